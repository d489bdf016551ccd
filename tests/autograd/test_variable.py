"""``torch.autograd.Variable``, the pre-0.4 wrapper that older code (GAN zoos, MADE) still calls.

Each check runs the same code on minitorch and on PyTorch and compares what it observes: sharing of
memory, the graph cut, ``requires_grad``, ``isinstance`` and the errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


def _observe(lib):
    Variable = lib.autograd.Variable
    leaf = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    made = leaf * 2
    wrapped = Variable(made)
    asked = Variable(lib.zeros(2), requires_grad=True)
    wrapped_again = Variable(made, requires_grad=True)
    (wrapped_again * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    wrapped.data[0] = 10.0  # shares memory with `made`
    return {
        "same object": wrapped is made,
        "grad_fn": wrapped.grad_fn, "requires_grad": wrapped.requires_grad, "is_leaf": wrapped.is_leaf,
        "made after write": made.detach().numpy().tolist(),
        "asked": (asked.requires_grad, asked.is_leaf),
        "again": (wrapped_again.requires_grad, wrapped_again.grad_fn, wrapped_again.grad.numpy().tolist()),
        "leaf untouched": leaf.grad,
        "isinstance": (isinstance(made, Variable), isinstance(lib.ones(1), Variable), isinstance([1], Variable)),
        "type": type(wrapped).__name__,
    }


def test_variable_is_a_detached_leaf_sharing_memory_as_in_pytorch():
    torch = require_torch()
    assert _observe(minitorch) == _observe(torch)


def test_variable_trains_like_the_tensor_it_wraps():
    torch = require_torch()
    results = []
    for lib in (minitorch, torch):
        weight = lib.autograd.Variable(lib.tensor(np.array([[0.5, -1.0], [2.0, 0.25]], dtype=np.float32)),
                                       requires_grad=True)
        x = lib.autograd.Variable(lib.tensor(np.array([[1.0, 2.0]], dtype=np.float32)))
        (x @ weight).pow(2).sum().backward()
        results.append(weight.grad.numpy())
    np.testing.assert_allclose(results[0], results[1])


@pytest.mark.parametrize("call", [
    lambda lib: lib.autograd.Variable([1.0, 2.0]),
    lambda lib: lib.autograd.Variable(lib.tensor([1, 2]), requires_grad=True),
])
def test_variable_errors_are_pytorchs(call):
    torch = require_torch()
    errors = []
    for lib in (minitorch, torch):
        with pytest.raises((TypeError, RuntimeError)) as caught:
            call(lib)
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]


def test_volatile_is_ignored_with_pytorchs_warning():
    torch = require_torch()
    messages = []
    for lib in (minitorch, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = lib.autograd.Variable(lib.tensor([1.0]), volatile=True)
        assert not result.requires_grad
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1]
