# Corpus program: "Build the Neural Network" of PyTorch's "Learn the Basics".
# Source: pytorch/tutorials, beginner_source/basics/buildmodel_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: inputs come from NumPy instead of torch.rand.
# Randomness: weights are set from NumPy after each layer is built (random streams differ).
import numpy as np
import torch
from torch import nn

device = "cpu"
print(f"Using {device} device")


def fill_parameters_(model, seed=0):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            fan_in = parameter[0].numel() if parameter.dim() > 1 else parameter.numel()
            values = rng.uniform(-1, 1, tuple(parameter.shape)) / fan_in**0.5
            parameter.copy_(torch.from_numpy(values.astype(np.float32)))


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork().to(device)
fill_parameters_(model)
print(model)

rng = np.random.default_rng(3)
X = torch.tensor(rng.random((1, 28, 28)), dtype=torch.float32, device=device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")

input_image = torch.tensor(rng.random((3, 28, 28)), dtype=torch.float32)
print(input_image.size())
flatten = nn.Flatten()
flat_image = flatten(input_image)
print(flat_image.size())
layer1 = nn.Linear(in_features=28 * 28, out_features=20)
fill_parameters_(layer1, seed=1)
hidden1 = layer1(flat_image)
print(hidden1.size())
print(f"Before ReLU: {hidden1}\n\n")
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1}")

seq_modules = nn.Sequential(flatten, layer1, nn.ReLU(), nn.Linear(20, 10))
fill_parameters_(seq_modules, seed=2)
logits = seq_modules(input_image)
softmax = nn.Softmax(dim=1)
pred_probab = softmax(logits)
print(pred_probab)

print(f"Model structure: {model}\n\n")
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
