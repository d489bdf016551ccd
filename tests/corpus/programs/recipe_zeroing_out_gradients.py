# Corpus program: recipe "Zeroing out gradients in PyTorch".
# Source: pytorch/tutorials, recipes_source/recipes/zeroing_out_gradients.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the recipe's steps.
# Changes: CIFAR-10 is replaced by 40 NumPy images; one epoch, loss printed every 5 batches.
# Randomness: weights set from NumPy; no shuffling.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(32)
trainset = TensorDataset(torch.from_numpy(rng.random((40, 3, 32, 32), dtype=np.float32) * 2 - 1),
                         torch.from_numpy(rng.integers(0, 10, 40)))
trainloader = DataLoader(trainset, batch_size=4, shuffle=False, num_workers=0)


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
with torch.no_grad():
    for p in net.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else p.numel()
        p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

for epoch in range(1):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 5 == 4:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 5:.3f}")
            running_loss = 0.0
print("Finished Training")
print(net.conv1.weight.grad is None)
net.zero_grad()
print(net.conv1.weight.grad)
