# Corpus program: recipe "Defining a Neural Network in PyTorch".
# Source: pytorch/tutorials, recipes_source/recipes/defining_a_neural_network.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the recipe's steps.
# Changes: the input image comes from NumPy; Dropout layers keep their places and are shown in
#   eval mode for the output values (training mode would draw a random mask).
# Randomness: weights set from NumPy after construction; input from NumPy.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


my_nn = Net()
print(my_nn)
rng = np.random.default_rng(28)
with torch.no_grad():
    for p in my_nn.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else p.numel()
        p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))

random_data = torch.from_numpy(rng.random((1, 1, 28, 28), dtype=np.float32))
my_nn.eval()
result = my_nn(random_data)
print(result)
