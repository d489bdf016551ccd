"""Chapter 13's exercise checks reject the typical mistakes (a Rosenbrock gradient in float32, without its
factor 100 or missing, a step uphill, on the summed loss or with the weight untransposed, a prediction with
a transposed weight, without the ReLU or with the wrong parameter names), and the framework-agnostic step
is also run with PyTorch when it is installed.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from grading import check
from grading.registry import randn
from tests.grading.chapter_notebooks import solutions
from tests.support import require_torch

SOLUTIONS = solutions("13_ecosystem_and_pytorch")


def _rosenbrock(point):
    return ((1 - point[:-1]) ** 2 + 100 * (point[1:] - point[:-1] ** 2) ** 2).sum()


def gradient_in_float32(x):
    point = minitorch.tensor(x, dtype=minitorch.float32, requires_grad=True)
    loss = _rosenbrock(point)
    loss.backward()
    return loss.item(), point.grad.numpy()  # SciPy needs float64


def gradient_without_factor_100(x):
    point = minitorch.tensor(x, dtype=minitorch.float64, requires_grad=True)
    loss = ((1 - point[:-1]) ** 2 + (point[1:] - point[:-1] ** 2) ** 2).sum()
    loss.backward()
    return loss.item(), point.grad.numpy()


def value_only(x):
    point = minitorch.tensor(x, dtype=minitorch.float64)
    return _rosenbrock(point).item()


def step_uphill(x, labels, weight, bias, lr, lib=minitorch):
    weight, bias = weight.detach().requires_grad_(), bias.detach().requires_grad_()
    loss = lib.nn.functional.cross_entropy(x @ weight.T + bias, labels)
    grad_weight, grad_bias = lib.autograd.grad(loss, (weight, bias))
    with lib.no_grad():
        return weight + lr * grad_weight, bias + lr * grad_bias, loss.detach()


def step_summed_loss(x, labels, weight, bias, lr, lib=minitorch):
    weight, bias = weight.detach().requires_grad_(), bias.detach().requires_grad_()
    loss = lib.nn.functional.cross_entropy(x @ weight.T + bias, labels, reduction="sum")
    grad_weight, grad_bias = lib.autograd.grad(loss, (weight, bias))
    with lib.no_grad():
        return weight - lr * grad_weight, bias - lr * grad_bias, loss.detach()


def step_weight_not_transposed(x, labels, weight, bias, lr, lib=minitorch):
    # treats weight as (in, out): fails on the shapes, reported as a failed case
    weight, bias = weight.detach().requires_grad_(), bias.detach().requires_grad_()
    loss = lib.nn.functional.cross_entropy(x @ weight + bias, labels)
    grad_weight, grad_bias = lib.autograd.grad(loss, (weight, bias))
    with lib.no_grad():
        return weight - lr * grad_weight, bias - lr * grad_bias, loss.detach()


def predict_with_transposed_weights(x, w1, b1, w2, b2):
    x, w1, b1, w2, b2 = (minitorch.from_numpy(array) for array in (x, w1, b1, w2, b2))
    return minitorch.relu(x @ w1.T + b1) @ w2 + b2  # forgot to transpose the second weight


def predict_without_relu(x, w1, b1, w2, b2):
    model = nn.Sequential(nn.Linear(w1.shape[1], w1.shape[0]), nn.Linear(w2.shape[1], w2.shape[0]))
    model.load_state_dict({"0.weight": minitorch.from_numpy(w1), "0.bias": minitorch.from_numpy(b1),
                           "1.weight": minitorch.from_numpy(w2), "1.bias": minitorch.from_numpy(b2)})
    with minitorch.no_grad():
        return model(minitorch.from_numpy(x))


def predict_with_wrong_names(x, w1, b1, w2, b2):
    # "1.weight" for the second Linear: load_state_dict reports missing and unexpected keys
    model = nn.Sequential(nn.Linear(w1.shape[1], w1.shape[0]), nn.ReLU(), nn.Linear(w2.shape[1], w2.shape[0]))
    model.load_state_dict({"0.weight": minitorch.from_numpy(w1), "0.bias": minitorch.from_numpy(b1),
                           "1.weight": minitorch.from_numpy(w2), "1.bias": minitorch.from_numpy(b2)})
    with minitorch.no_grad():
        return model(minitorch.from_numpy(x))


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("rosenbrock_value_and_grad", gradient_in_float32),
        ("rosenbrock_value_and_grad", gradient_without_factor_100),
        ("rosenbrock_value_and_grad", value_only),
        ("agnostic_step", step_uphill),
        ("agnostic_step", step_summed_loss),
        ("agnostic_step", step_weight_not_transposed),
        ("predict_from_numpy_weights", predict_with_transposed_weights),
        ("predict_from_numpy_weights", predict_without_relu),
        ("predict_from_numpy_weights", predict_with_wrong_names),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch13.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out


def test_agnostic_step_solution_runs_on_pytorch_with_the_same_results():
    torch = require_torch()
    step = SOLUTIONS["agnostic_step"]
    arrays = [randn(8, 4, seed=1), np.random.default_rng(2).integers(0, 3, 8), randn(3, 4, seed=3), randn(3, seed=4)]
    on_minitorch = step(*[minitorch.from_numpy(array) for array in arrays], 0.5)
    on_pytorch = step(*[torch.from_numpy(array) for array in arrays], 0.5, lib=torch)
    for ours, theirs in zip(on_minitorch, on_pytorch):
        assert type(theirs).__module__.startswith("torch")
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
