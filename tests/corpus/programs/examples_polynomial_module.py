# Corpus program: "PyTorch: Custom nn Modules" of "Learning PyTorch with Examples".
# Source: pytorch/tutorials, beginner_source/examples_nn/polynomial_module.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: 400 steps instead of 2000; parameters start from NumPy instead of torch.randn(()).
# Randomness: the parameters' starting values come from NumPy.
import math

import numpy as np
import torch

start = np.random.default_rng(14).standard_normal(4)


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(start[0], dtype=torch.float32))
        self.b = torch.nn.Parameter(torch.tensor(start[1], dtype=torch.float32))
        self.c = torch.nn.Parameter(torch.tensor(start[2], dtype=torch.float32))
        self.d = torch.nn.Parameter(torch.tensor(start[3], dtype=torch.float32))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return (f"y = {self.a.item():.4f} + {self.b.item():.4f} x + {self.c.item():.4f} x^2 + "
                f"{self.d.item():.4f} x^3")


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
model = Polynomial3()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(400):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"Result: {model.string()}")
print([name for name, _ in model.named_parameters()])
