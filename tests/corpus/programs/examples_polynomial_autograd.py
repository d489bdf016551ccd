# Corpus program: "PyTorch: Tensors and autograd" of "Learning PyTorch with Examples".
# Source: pytorch/tutorials, beginner_source/examples_autograd/polynomial_autograd.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: 400 steps instead of 2000; the coefficients start from NumPy.
# Randomness: the starting coefficients come from NumPy.
import math

import numpy as np
import torch

dtype = torch.float
device = "cpu"
torch.set_default_device(device)

x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)

start = np.random.default_rng(11).standard_normal(4)
a, b, c, d = (torch.tensor(value, dtype=dtype, requires_grad=True) for value in start)

learning_rate = 1e-6
for t in range(400):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")
