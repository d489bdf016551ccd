# Corpus program: PyTorch's activation checkpointing and parametrization utilities by their docstrings:
#   torch.utils.checkpoint.checkpoint (use_reentrant=False) and checkpoint_sequential,
#   nn.utils.parametrizations.weight_norm, spectral_norm and orthogonal, nn.utils.parametrize.register_parametrization
#   with a custom module, remove_parametrizations, and the deprecated nn.utils.weight_norm.
# Source: pytorch/pytorch, torch/utils/checkpoint.py, torch/nn/utils/parametrizations.py,
#   torch/nn/utils/parametrize.py and torch/nn/utils/weight_norm.py (the Example:: sections of their docstrings).
# Licence: BSD-3-Clause (PyTorch); the docstrings' examples, put together in one script.
# Changes: small layers; values printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 -- float32 arithmetic.
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils import parametrizations
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
input_var = torch.randn(3, 4, requires_grad=True)
out = checkpoint_sequential(model, 2, input_var, use_reentrant=False)
out.sum().backward()
print(out, input_var.grad)
plain_grad = input_var.grad.clone()
input_var.grad = None
model(input_var).sum().backward()
print(torch.allclose(plain_grad, input_var.grad))


def block(x, y):
    return torch.sin(x) * y


x = torch.randn(3, requires_grad=True)
y = torch.randn(3, requires_grad=True)
z = checkpoint(block, x, y, use_reentrant=False)
z.sum().backward()
print(z, x.grad, y.grad)

m = parametrizations.weight_norm(nn.Linear(20, 40), name='weight')
print(m)
print(m.parametrizations.weight.original0.size(), m.parametrizations.weight.original1.size())
print(torch.allclose(m.weight.norm(dim=1, keepdim=True), m.parametrizations.weight.original0))
snm = parametrizations.spectral_norm(nn.Linear(20, 40))
print(snm)
print(snm.parametrizations.weight.original.size())
snm(torch.randn(2, 20))
print(torch.linalg.matrix_norm(snm.weight, 2) < 1.5)
orth_linear = parametrizations.orthogonal(nn.Linear(20, 40))
print(orth_linear)
Q = orth_linear.weight
print(torch.dist(Q.T @ Q, torch.eye(20)) < 1e-5)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


m = nn.Linear(5, 5)
parametrize.register_parametrization(m, "weight", Symmetric())
print(torch.allclose(m.weight, m.weight.T), parametrize.is_parametrized(m), parametrize.is_parametrized(m, "bias"))
with parametrize.cached():
    print(m.weight is m.weight)
A = m.weight.detach().clone()
parametrize.remove_parametrizations(m, "weight")
print(torch.equal(m.weight, A), type(m.weight).__name__, parametrize.is_parametrized(m))
m = nn.utils.weight_norm(nn.Linear(20, 40), name='weight')
print(m.weight_g.size(), m.weight_v.size())
m = nn.utils.remove_weight_norm(m)
print(hasattr(m, 'weight_g'), m.weight.shape)
