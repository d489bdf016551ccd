# Corpus program: "Introduction to PyTorch" of "Deep Learning for NLP with PyTorch".
# Source: pytorch/tutorials, beginner_source/nlp/pytorch_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: torch.randn tensors are made with NumPy.
# Randomness: random tensors come from NumPy.
import numpy as np
import torch

rng = np.random.default_rng(23)


def randn(*shape, **kwargs):
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float32, **kwargs)


V_data = [1., 2., 3.]
V = torch.tensor(V_data)
print(V)
M_data = [[1., 2., 3.], [4., 5., 6]]
M = torch.tensor(M_data)
print(M)
T_data = [[[1., 2.], [3., 4.]], [[5., 6.], [7., 8.]]]
T = torch.tensor(T_data)
print(T)
print(V[0])
print(V[0].item())
print(M[0])
print(T[0])

x = randn(3, 4, 5)
print(x)

x = torch.tensor([1., 2., 3.])
y = torch.tensor([4., 5., 6.])
z = x + y
print(z)

x_1 = randn(2, 5)
y_1 = randn(3, 5)
z_1 = torch.cat([x_1, y_1])
print(z_1)
x_2 = randn(2, 3)
y_2 = randn(2, 5)
z_2 = torch.cat([x_2, y_2], 1)
print(z_2)

x = randn(2, 3, 4)
print(x)
print(x.view(2, 12))
print(x.view(2, -1))

x = torch.tensor([1., 2., 3], requires_grad=True)
y = torch.tensor([4., 5., 6], requires_grad=True)
z = x + y
print(z)
print(z.grad_fn)
s = z.sum()
print(s)
print(s.grad_fn)
s.backward()
print(x.grad)

x = randn(2, 2)
y = randn(2, 2)
print(x.requires_grad, y.requires_grad)
z = x + y
print(z.grad_fn)
x = x.requires_grad_()
y = y.requires_grad_()
z = x + y
print(z.grad_fn)
print(z.requires_grad)
new_z = z.detach()
print(new_z.grad_fn)

print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
