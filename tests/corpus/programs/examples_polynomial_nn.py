# Corpus program: "PyTorch: nn" of "Learning PyTorch with Examples".
# Source: pytorch/tutorials, beginner_source/examples_nn/polynomial_nn.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: 400 steps instead of 2000; the Linear layer's weights start from NumPy.
# Randomness: the Linear layer's starting weights come from NumPy.
import math

import numpy as np
import torch

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape)

model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
start = np.random.default_rng(12).uniform(-0.5, 0.5, 4).astype(np.float32)
with torch.no_grad():
    model[0].weight.copy_(torch.from_numpy(start[:3]).reshape(1, 3))
    model[0].bias.fill_(float(start[3]))

loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-6
for t in range(400):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f"Result: y = {linear_layer.bias.item():.4f} + {linear_layer.weight[:, 0].item():.4f} x + "
      f"{linear_layer.weight[:, 1].item():.4f} x^2 + {linear_layer.weight[:, 2].item():.4f} x^3")
