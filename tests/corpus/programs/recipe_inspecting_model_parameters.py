# Corpus program: recipe "Inspecting Model Parameters": parameters(), named_parameters(),
#   state_dict(), children and modules of a small network, and counting parameters.
# Source: pytorch/tutorials, recipes_source/inspecting_model_parameters.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the recipe's steps.
# Changes: the parameter values are printed only for the last layer, after setting them from NumPy.
# Randomness: the printed values come from NumPy.
import numpy as np
import torch
from torch import nn


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


model = NeuralNetwork()
print(model)
for param in model.parameters():
    print(param.shape)
for name, param in model.named_parameters():
    print(name, param.size(), param.requires_grad)
print(list(model.state_dict().keys()))
print([type(child).__name__ for child in model.children()])
print([name for name, _ in model.named_modules()])
total = sum(param.numel() for param in model.parameters())
trainable = sum(param.numel() for param in model.parameters() if param.requires_grad)
print(f"Total parameters: {total:,}, trainable: {trainable:,}")

last = model.linear_relu_stack[4]
with torch.no_grad():
    last.bias.copy_(torch.tensor(np.linspace(-1, 1, 10), dtype=torch.float32))
print(last.bias)
for param in model.linear_relu_stack[0].parameters():
    param.requires_grad_(False)
print(sum(param.numel() for param in model.parameters() if param.requires_grad))
print(model.state_dict()["linear_relu_stack.4.bias"])
