# Corpus program: "PyTorch: Tensors" of "Learning PyTorch with Examples" (fit sin with a cubic).
# Source: pytorch/tutorials, beginner_source/examples_tensor/polynomial_tensor.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: 400 steps instead of 2000 (printing every 100); the coefficients start from NumPy.
# Randomness: the starting coefficients come from NumPy.
import math

import numpy as np
import torch

dtype = torch.float
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

start = np.random.default_rng(10).standard_normal(4)
a, b, c, d = (torch.tensor(value, device=device, dtype=dtype) for value in start)

learning_rate = 1e-6
for t in range(400):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 100 == 99:
        print(t, f"{loss:.3f}")
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d

print(f"Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")
