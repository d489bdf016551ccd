# Corpus program: "PyTorch: optim" of "Learning PyTorch with Examples" (RMSprop).
# Source: pytorch/tutorials, beginner_source/examples_nn/polynomial_optim.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: 400 steps instead of 2000; the Linear layer's weights start from NumPy.
# Randomness: the Linear layer's starting weights come from NumPy.
# corpus-tolerance: rtol=1e-4 -- RMSprop divides by the square root of a running mean of squared
#   gradients that starts near zero, which magnifies float32 rounding differences a little.
import math

import numpy as np
import torch

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)

model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
start = np.random.default_rng(13).uniform(-0.5, 0.5, 4).astype(np.float32)
with torch.no_grad():
    model[0].weight.copy_(torch.from_numpy(start[:3]).reshape(1, 3))
    model[0].bias.fill_(float(start[3]))
loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-3
optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
for t in range(400):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

linear_layer = model[0]
print(f"Result: y = {linear_layer.bias.item():.4f} + {linear_layer.weight[:, 0].item():.4f} x + "
      f"{linear_layer.weight[:, 1].item():.4f} x^2 + {linear_layer.weight[:, 2].item():.4f} x^3")
