# Corpus program: "A Gentle Introduction to torch.autograd" of the 60 Minute Blitz.
# Source: pytorch/tutorials, beginner_source/blitz/autograd_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: the pretrained resnet18 (a download) is replaced by a small convolutional network of the
#   same pattern (a body and an fc head); the image and labels come from NumPy.
# Randomness: weights and data come from NumPy.
import numpy as np
import torch
from torch import nn, optim

rng = np.random.default_rng(7)


class SmallResNetLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(4, 10)

    def forward(self, x):
        return self.fc(self.body(x))


model = SmallResNetLike()
with torch.no_grad():
    for parameter in model.parameters():
        parameter.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, tuple(parameter.shape)).astype(np.float32)))
data = torch.from_numpy(rng.random((1, 3, 16, 16), dtype=np.float32))
labels = torch.from_numpy(rng.random((1, 10), dtype=np.float32))

prediction = model(data)
loss = (prediction - labels).sum()
loss.backward()
optim_ = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
optim_.step()
print(f"{loss.item():.5f}", f"{model(data).sum().item():.5f}")

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9 * a**2 == a.grad)
print(-2 * b == b.grad)
print(a.grad, b.grad)

x = torch.ones(5, 5)
y = torch.ones(5, 5)
z = torch.ones((5, 5), requires_grad=True)
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")

for param in model.parameters():
    param.requires_grad = False
model.fc = nn.Linear(4, 10)
optimizer = optim.SGD(model.fc.parameters(), lr=1e-2, momentum=0.9)
print(sum(p.requires_grad for p in model.parameters()), sum(p.requires_grad for p in model.fc.parameters()))
