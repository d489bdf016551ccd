# Corpus program: recipe "Saving and loading a general checkpoint in PyTorch".
# Source: pytorch/tutorials, recipes_source/recipes/saving_and_loading_a_general_checkpoint.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the recipe's steps.
# Changes: one training step on NumPy-made data before saving, so the checkpoint holds optimizer
#   state; loading uses weights_only=True (tensors, numbers and strings only).
# Randomness: weights set from NumPy; data from NumPy.
import numpy as np
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


rng = np.random.default_rng(29)
net = Net()
with torch.no_grad():
    for p in net.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else p.numel()
        p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
inputs = torch.from_numpy(rng.random((4, 3, 32, 32), dtype=np.float32))
labels = torch.tensor([1, 2, 3, 4])
loss = F.cross_entropy(net(inputs), labels)
loss.backward()
optimizer.step()

EPOCH = 5
PATH = "model.pt"
LOSS = 0.4
torch.save({
    'epoch': EPOCH,
    'model_state_dict': net.state_dict(),
    'optimizer_state_dict': optimizer.state_dict(),
    'loss': LOSS,
}, PATH)

model = Net()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
checkpoint = torch.load(PATH, weights_only=True)
model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
epoch = checkpoint['epoch']
loss = checkpoint['loss']
print(epoch, loss)
model.eval()
print(model(inputs))
model.train()
loss = F.cross_entropy(model(inputs), labels)
loss.backward()
optimizer.step()
print(f"{F.cross_entropy(model(inputs), labels).item():.6f}")
print(optimizer.state_dict()["param_groups"])
