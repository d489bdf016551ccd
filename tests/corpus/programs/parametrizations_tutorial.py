# Corpus program: "Parametrizations Tutorial": torch.nn.utils.parametrize.register_parametrization
#   with Symmetric and Skew parametrizations, the parametrizations ModuleDict, and right_inverse.
# Source: pytorch/tutorials, intermediate_source/parametrizations.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's code.
# Changes: torch.rand inputs and the layers' weights come from NumPy; the Cayley map, orthogonal
#   init and pruning sections are left out.
# Randomness: inputs and weights from NumPy.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize

rng = np.random.default_rng(58)


def rand(*shape):
    return torch.tensor(rng.random(shape), dtype=torch.float32)


def symmetric(X):
    return X.triu() + X.triu(1).transpose(-1, -2)


X = rand(3, 3)
A = symmetric(X)
assert torch.allclose(A, A.T)
print(A)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(3, 3)
with torch.no_grad():
    layer.weight.copy_(rand(3, 3))
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
assert torch.allclose(A, A.T)
print(A)


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu(1)


cnn = nn.Conv2d(in_channels=5, out_channels=8, kernel_size=3)
with torch.no_grad():
    cnn.weight.copy_(rand(8, 5, 3, 3))
parametrize.register_parametrization(cnn, "weight", Skew())
print(cnn.weight[0, 1])
print(cnn.weight[2, 2])

layer = nn.Linear(3, 3)
print(f"Unparametrized:\n{layer}")
parametrize.register_parametrization(layer, "weight", Symmetric())
print(f"\nParametrized:\n{layer}")
print(layer.parametrizations)
print(layer.parametrizations.weight)
print(layer.parametrizations.weight[0])
print(sorted(dict(layer.named_parameters())))
symmetric = Symmetric()
weight_orig = layer.parametrizations.weight.original
print(torch.dist(layer.weight, symmetric(weight_orig)))

layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
X = rand(3, 3)
X = X - X.T
layer.weight = X
print(torch.dist(layer.weight, X))
