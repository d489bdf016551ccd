# Corpus program: recipe "Reasoning about Shapes in PyTorch".
# Source: pytorch/tutorials, recipes_source/recipes/reasoning_about_shapes.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the recipe's steps.
# Changes: tensors are made on the CPU (the recipe uses device="meta"; the shapes are the same and
#   only shapes are printed); the recipe's forward hook prints each layer's output shape; a batch of
#   64 instead of 1024 (the meta device computes nothing, the CPU does).
# Randomness: only shapes are printed.
import torch
import torch.nn as nn
import torch.nn.functional as F

t = torch.rand(2, 3, 10, 10)
conv = torch.nn.Conv2d(3, 5, 2)
out = conv(t)
print(out.shape)


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
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def fw_hook(module, input, output):
    print(f"Shape of output to {module} is {output.shape}.")


net = Net()
for name, layer in net.named_modules():
    layer.register_forward_hook(fw_hook)
inp = torch.randn((64, 3, 32, 32))
out = net(inp)
