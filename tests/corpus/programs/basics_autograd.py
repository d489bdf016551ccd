# Corpus program: "Automatic Differentiation with torch.autograd" of "Learn the Basics".
# Source: pytorch/tutorials, beginner_source/basics/autogradqs_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: w and b come from NumPy instead of torch.randn.
# Randomness: none after the change above.
import numpy as np
import torch

rng = np.random.default_rng(4)
x = torch.ones(5)
y = torch.zeros(3)
w = torch.tensor(rng.standard_normal((5, 3)), dtype=torch.float32, requires_grad=True)
b = torch.tensor(rng.standard_normal(3), dtype=torch.float32, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")

loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)

z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")
