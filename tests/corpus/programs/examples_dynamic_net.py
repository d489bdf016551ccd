# Corpus program: "PyTorch: Control Flow + Weight Sharing" of "Learning PyTorch with Examples".
# Source: pytorch/tutorials, beginner_source/examples_nn/dynamic_net.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: 200 steps instead of 30000; parameters start from NumPy instead of torch.randn(()).
# Randomness: Python's random module (seeded, the same in both runs) picks the depth; the
#   parameters' starting values come from NumPy.
# corpus-tolerance: rtol=1e-4 -- SGD with momentum on a loss of size 1e3 accumulates float32
#   rounding differences over the steps.
import math
import random

import numpy as np
import torch

random.seed(0)
start = np.random.default_rng(15).standard_normal(5) * 0.1


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(start[0], dtype=torch.float32))
        self.b = torch.nn.Parameter(torch.tensor(start[1], dtype=torch.float32))
        self.c = torch.nn.Parameter(torch.tensor(start[2], dtype=torch.float32))
        self.d = torch.nn.Parameter(torch.tensor(start[3], dtype=torch.float32))
        self.e = torch.nn.Parameter(torch.tensor(start[4], dtype=torch.float32))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return (f"y = {self.a.item():.4f} + {self.b.item():.4f} x + {self.c.item():.4f} x^2 + "
                f"{self.d.item():.4f} x^3 + {self.e.item():.4f} x^4 ? + {self.e.item():.4f} x^5 ?")


x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(200):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.2f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")
