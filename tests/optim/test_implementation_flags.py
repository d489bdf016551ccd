"""The implementation flags PyTorch records in every parameter group: foreach, fused, capturable, differentiable.

They choose how PyTorch runs an update (a loop, multi-tensor kernels, one fused kernel, CUDA
graphs), not what it computes, except ``differentiable``, which records the update in the graph.
Code that prints or checkpoints ``optimizer.state_dict()`` sees them, so minitorch keeps the same
keys, in the same order, with the same defaults; ``differentiable=True`` really differentiates.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

OPTIMIZERS = ["SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop", "Rprop"]


def _parameters(lib):
    return [lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0])), lib.nn.Parameter(lib.tensor([[0.5, 0.25]]))]


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_groups_hold_pytorchs_keys_in_pytorchs_order(name):
    torch = require_torch()
    expected = getattr(torch.optim, name)(_parameters(torch), lr=0.1).state_dict()["param_groups"]
    got = getattr(minitorch.optim, name)(_parameters(minitorch), lr=0.1).state_dict()["param_groups"]
    assert [list(group) for group in got] == [list(group) for group in expected]
    assert repr(got) == repr(expected)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_constructor_takes_pytorchs_parameters(name):
    torch = require_torch()
    expected = inspect.signature(getattr(torch.optim, name).__init__).parameters
    got = inspect.signature(getattr(minitorch.optim, name).__init__).parameters
    assert [(p.name, p.kind, p.default) for p in got.values()] == [
        (p.name, p.kind, p.default) for p in expected.values()
    ]


@pytest.mark.parametrize("flags", [{"foreach": True}, {"foreach": False}, {"fused": True}])
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_foreach_and_fused_compute_the_same_steps(name, flags):
    """The flags name kernels; the numbers are those of the plain loop (PyTorch's own tests say the same)."""
    torch = require_torch()
    results = {}
    for lib in (minitorch, torch):
        params = _parameters(lib)
        options = {"lr": 0.1} | ({"momentum": 0.9} if name == "SGD" else {})
        optimizer = getattr(lib.optim, name)(params, **options, **flags)
        for _ in range(3):
            optimizer.zero_grad()
            sum(((p - 0.3) ** 2).sum() for p in params).backward()
            optimizer.step()
        results[lib.__name__] = [p.detach().numpy().copy() for p in params]
        assert optimizer.param_groups[0][next(iter(flags))] == next(iter(flags.values()))
    for got, expected in zip(results["minitorch"], results["torch"]):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_differentiable_step_is_recorded_like_pytorchs(name):
    """With differentiable=True the updated parameter is a function of its gradient.

    As in PyTorch's own tests, the parameter is a non-leaf (a clone), so that the in-place
    update may be recorded, and its ``.grad`` requires grad; the gradient of the updated
    parameter with respect to that ``.grad`` comes from PyTorch.
    """
    torch = require_torch()
    grads = {}
    for lib in (minitorch, torch):
        start = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        param = start.clone()
        gradient = lib.tensor([0.5, 0.25, -1.0], dtype=lib.float64, requires_grad=True)
        param.grad = gradient
        optimizer = getattr(lib.optim, name)([param], lr=0.1, differentiable=True)
        optimizer.step()
        assert param.grad_fn is not None
        (param * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        grads[lib.__name__] = (gradient.grad.numpy().copy(), start.grad.numpy().copy(), param.detach().numpy().copy())
    (got_gradient, got_start, got_param), (expected_gradient, expected_start, expected_param) = (
        grads["minitorch"], grads["torch"]
    )
    np.testing.assert_allclose(got_gradient, expected_gradient, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_start, expected_start, rtol=1e-12, atol=1e-12)
    # PyTorch's differentiable Adam computes its bias corrections from the step counter as a
    # float32 tensor (1 - 0.999 ** step in float32: a relative error near 1e-6 on 0.001), where
    # its ordinary path, and minitorch, use a Python float.
    np.testing.assert_allclose(got_param, expected_param, rtol=2e-6, atol=1e-12)


def test_ordinary_step_records_nothing():
    weight = minitorch.nn.Parameter(minitorch.tensor([1.0, 2.0]))
    (weight * weight).sum().backward()
    optimizer = minitorch.optim.SGD([weight], lr=0.1)
    optimizer.step()
    assert weight.grad_fn is None and weight.is_leaf


def test_a_checkpoint_without_the_flags_loads_with_their_defaults():
    """Checkpoints written before the flags were recorded still load (as PyTorch's __setstate__ does)."""
    weight = minitorch.nn.Parameter(minitorch.tensor([1.0, 2.0]))
    optimizer = minitorch.optim.SGD([weight], lr=0.1, momentum=0.9)
    old = optimizer.state_dict()
    for flag in ("foreach", "differentiable", "fused"):
        del old["param_groups"][0][flag]
    fresh = minitorch.optim.SGD([weight], lr=0.5)
    fresh.load_state_dict(old)
    group = fresh.param_groups[0]
    assert (group["lr"], group["foreach"], group["differentiable"], group["fused"]) == (0.1, None, False, None)
