# Corpus program: "Neural Networks" of the 60 Minute Blitz (LeNet on a 32x32 input).
# Source: pytorch/tutorials, beginner_source/blitz/neural_networks_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: input and target come from NumPy instead of torch.randn.
# Randomness: weights set from NumPy after construction.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        output = self.fc3(f6)
        return output


net = Net()
rng = np.random.default_rng(8)
with torch.no_grad():
    for parameter in net.parameters():
        fan_in = parameter[0].numel() if parameter.dim() > 1 else parameter.numel()
        parameter.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(parameter.shape)) / fan_in**0.5).astype(np.float32)))
print(net)

params = list(net.parameters())
print(len(params))
print(params[0].size())

input = torch.from_numpy(rng.standard_normal((1, 1, 32, 32)).astype(np.float32))
out = net(input)
print(out)

net.zero_grad()
out.backward(torch.from_numpy(rng.standard_normal((1, 10)).astype(np.float32)))

output = net(input)
target = torch.from_numpy(rng.standard_normal(10).astype(np.float32))
target = target.view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)
print(loss.grad_fn)
print(loss.grad_fn.next_functions[0][0])
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])

net.zero_grad()
print("conv1.bias.grad before backward")
print(net.conv1.bias.grad)
loss.backward()
print("conv1.bias.grad after backward")
print(net.conv1.bias.grad)

learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)

import torch.optim as optim

optimizer = optim.SGD(net.parameters(), lr=0.01)
for _ in range(3):
    optimizer.zero_grad()
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print(f"{loss.item():.6f}")
