"""``torch._foreach_*``: every function minitorch has gives PyTorch's results, in place and out of place.

Each case runs on minitorch and on PyTorch with the same inputs (positive numbers, so that every unary
op is defined); the results and the lists changed in place must agree, and an in-place form returns
its list as PyTorch's does.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch import _foreach
from tests.support import require_torch

SHAPES = [(3,), (2, 4), ()]


def _lists(lib, count=3, seed=0):
    rng = np.random.default_rng(seed)
    return [[lib.tensor(rng.uniform(0.2, 0.9, size=shape).astype(np.float32)) for shape in SHAPES]
            for _ in range(count)]


def _numbers(result):
    if isinstance(result, (list, tuple)):
        return [_numbers(item) for item in result]
    return result.numpy().tolist() if hasattr(result, "numpy") else result


def _both(call, in_place):
    torch = require_torch()
    outcomes = []
    for lib in (minitorch, torch):
        tensors = _lists(lib)
        result = call(lib, *tensors)
        if in_place:
            assert result is tensors[0]
        outcomes.append((_numbers(result), _numbers(tensors)))
    np.testing.assert_allclose(np.concatenate([np.ravel(x) for x in _flat(outcomes[0])]),
                               np.concatenate([np.ravel(x) for x in _flat(outcomes[1])]), rtol=1e-6, atol=1e-7)


def _flat(nested):
    if isinstance(nested, (list, tuple)) and nested and isinstance(nested[0], (list, tuple)):
        return [item for part in nested for item in _flat(part)]
    return [np.asarray(nested, dtype=np.float64)]


@pytest.mark.parametrize("name", _foreach.UNARY)
@pytest.mark.parametrize("suffix", ["", "_"])
def test_unary(name, suffix):
    _both(lambda lib, a, b, c: getattr(lib, f"_foreach_{name}{suffix}")(a), in_place=suffix == "_")


OPERANDS = {
    "number": lambda lib, b: 0.5, "numbers": lambda lib, b: [0.5, 2.0, 3.0], "tensors": lambda lib, b: b,
}


@pytest.mark.parametrize("name", _foreach.BINARY)
@pytest.mark.parametrize("operand", OPERANDS)
@pytest.mark.parametrize("suffix", ["", "_"])
def test_binary(name, operand, suffix):
    _both(lambda lib, a, b, c: getattr(lib, f"_foreach_{name}{suffix}")(a, OPERANDS[operand](lib, b)),
          in_place=suffix == "_")


@pytest.mark.parametrize("name", ["add", "sub"])
@pytest.mark.parametrize("suffix", ["", "_"])
def test_alpha(name, suffix):
    _both(lambda lib, a, b, c: getattr(lib, f"_foreach_{name}{suffix}")(a, b, alpha=-0.25), in_place=suffix == "_")


@pytest.mark.parametrize("name", ["mul", "div", "add"])
def test_one_tensor_for_all(name):
    _both(lambda lib, a, b, c: getattr(lib, f"_foreach_{name}")(a, lib.tensor(1.5)), in_place=False)


@pytest.mark.parametrize("name", _foreach.TERNARY)
@pytest.mark.parametrize("value", ["default", "number", "numbers", "tensor"])
@pytest.mark.parametrize("suffix", ["", "_"])
def test_ternary(name, value, suffix):
    def call(lib, a, b, c):
        function = getattr(lib, f"_foreach_{name}{suffix}")
        values = {"number": 0.5, "numbers": [0.5, 2.0, -1.0], "tensor": lib.tensor([0.5, 2.0, -1.0])}
        return function(a, b, c) if value == "default" else function(a, b, c, values[value])
    _both(call, in_place=suffix == "_")


@pytest.mark.parametrize("weight", ["number", "numbers", "tensors"])
@pytest.mark.parametrize("suffix", ["", "_"])
def test_lerp(weight, suffix):
    def call(lib, a, b, c):
        weights = {"number": 0.3, "numbers": [0.1, 0.5, 0.9], "tensors": c}[weight]
        return getattr(lib, f"_foreach_lerp{suffix}")(a, b, weights)
    _both(call, in_place=suffix == "_")


@pytest.mark.parametrize("call", [
    lambda lib, a, b, c: lib._foreach_norm(a), lambda lib, a, b, c: lib._foreach_norm(a, 1),
    lambda lib, a, b, c: lib._foreach_norm(a, float("inf")), lambda lib, a, b, c: lib._foreach_max(a),
    lambda lib, a, b, c: lib._foreach_clone(a), lambda lib, a, b, c: lib._foreach_pow(2.0, a),
])
def test_reductions_and_copies(call):
    _both(call, in_place=False)


@pytest.mark.parametrize("call", [
    lambda lib, a, b, c: lib._foreach_copy_(a, b), lambda lib, a, b, c: lib._foreach_zero_(a),
])
def test_in_place_copies(call):
    _both(call, in_place=True)


def test_the_foreach_step_of_an_optimizer_is_the_loop():
    """Lion's foreach update (lucidrains/lion-pytorch) equals its per-tensor update, as in PyTorch."""
    params, grads, exp_avgs = _lists(minitorch, seed=1)
    looped = [p.clone() for p in params]
    for p, g, m in zip(looped, grads, exp_avgs):
        p.mul_(1 - 0.1 * 0.01)
        p.add_(m.clone().mul_(0.9).add(g, alpha=0.1).sign_(), alpha=-0.1)
    minitorch._foreach_mul_(params, 1 - 0.1 * 0.01)
    updates = [t.clone() for t in exp_avgs]
    minitorch._foreach_lerp_(updates, grads, 0.1)
    minitorch._foreach_sign_(updates)
    minitorch._foreach_add_(params, updates, alpha=-0.1)
    for mine, loop in zip(params, looped):
        np.testing.assert_allclose(mine.numpy(), loop.numpy(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda lib: lib._foreach_add_([], 1.0),
    lambda lib: lib._foreach_add_([lib.ones(2), lib.ones(3)], [lib.ones(2)]),
    lambda lib: lib._foreach_add_([lib.ones(2), lib.ones(3)], [1.0]),
    lambda lib: lib._foreach_addcmul_([lib.ones(2)], [lib.ones(2), lib.ones(2)], [lib.ones(2)]),
])
def test_errors_are_pytorchs(call):
    torch = require_torch()
    messages = []
    for lib in (minitorch, torch):
        with pytest.raises(RuntimeError) as caught:
            call(lib)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
