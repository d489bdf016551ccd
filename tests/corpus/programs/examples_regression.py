# Corpus program: pytorch/examples "regression": fit a degree-4 polynomial with one Linear layer.
# Source: pytorch/examples, regression/main.py
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example's steps.
# Changes: the target polynomial, the batches and the layer's start come from NumPy; at most 300
#   batches (the example stops when the loss falls below 1e-3, which both runs print).
# Randomness: all random values come from NumPy.
# corpus-tolerance: rtol=1e-3 -- the smooth L1 loss after hundreds of SGD steps on float32 keeps
#   the rounding differences of every step; the learned coefficients agree to about 1e-4.
from itertools import count

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(38)
POLY_DEGREE = 4
W_target = torch.tensor(rng.standard_normal((POLY_DEGREE, 1)) * 5, dtype=torch.float32)
b_target = torch.tensor(rng.standard_normal(1) * 5, dtype=torch.float32)


def make_features(x):
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    result = "y = "
    for i, w in enumerate(W):
        result += f"{w:+.2f} x^{i + 1} "
    result += f"{b[0]:+.2f}"
    return result


def get_batch(batch_size=32):
    random = torch.tensor(rng.standard_normal(batch_size), dtype=torch.float32)
    x = make_features(random)
    y = f(x)
    return x, y


fc = torch.nn.Linear(W_target.size(0), 1)
with torch.no_grad():
    fc.weight.copy_(torch.tensor(rng.uniform(-0.5, 0.5, (1, 4)), dtype=torch.float32))
    fc.bias.fill_(0.1)

for batch_idx in count(1):
    batch_x, batch_y = get_batch()
    fc.zero_grad()
    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()
    output.backward()
    with torch.no_grad():
        for param in fc.parameters():
            param.add_(-0.1 * param.grad)
    if loss < 1e-3 or batch_idx == 300:
        break

print(f"Loss: {loss:.4f} after {batch_idx} batches")
print("==> Learned function:\t" + poly_desc(fc.weight.view(-1), fc.bias))
print("==> Actual function:\t" + poly_desc(W_target.view(-1), b_target))
