# Corpus program: recipe "Warmstarting model using parameters from a different model in PyTorch".
# Source: pytorch/tutorials, recipes_source/recipes/warmstarting_model_using_parameters_from_a_different_model.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the recipe's steps.
# Changes: the load result (missing and unexpected keys) is printed.
# Randomness: netA's weights set from NumPy; netB's printed values are those copied from netA.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class NetA(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


class NetB(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
        self.fc4 = nn.Linear(10, 2)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return self.fc4(x)


netA = NetA()
rng = np.random.default_rng(31)
with torch.no_grad():
    for p in netA.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))
PATH = "model.pt"
torch.save(netA.state_dict(), PATH)

netB = NetB()
result = netB.load_state_dict(torch.load(PATH, weights_only=True), strict=False)
print(result.missing_keys, result.unexpected_keys)
print(torch.equal(netB.conv1.weight, netA.conv1.weight), netB.fc3.bias)
