# Corpus program: recipe "What is a state_dict in PyTorch".
# Source: pytorch/tutorials, recipes_source/recipes/what_is_state_dict.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the recipe's steps.
# Changes: none beyond printing the optimizer's state_dict after one step too.
# Randomness: only shapes and hyperparameters are printed until the step, whose state holds the
#   momentum buffers, printed by shape.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
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


net = Net()
print(net)
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())
print()
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])

net(torch.ones(2, 3, 32, 32)).sum().backward()
optimizer.step()
state = optimizer.state_dict()
print(sorted(state["state"].keys()))
print({key: tuple(value["momentum_buffer"].shape) for key, value in state["state"].items()})
print(state["param_groups"])
