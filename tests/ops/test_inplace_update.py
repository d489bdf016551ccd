"""``x.add_(y, alpha=a)`` with no graph to record and ``y`` alike: the update on the arrays (``ops/inplace.add_``).

An optimizer's step is ``param.add_(grad, alpha=-lr)`` under ``no_grad``: the same dtype, shape and device on both
sides. That update is the arithmetic on the arrays, written into the parameter's memory; everything else (other
dtypes, broadcasting, a graph to record, bad input) goes through the out-of-place ``add`` written back. Both must
give PyTorch's values, versions and errors, and the same bits as each other.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.ops import inplace
from tests.support import require_torch


def _both(build):
    torch = require_torch()
    return build(minitorch), build(torch)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("alpha", [1, -0.1, 3])
def test_an_update_under_no_grad_equals_pytorch(dtype, alpha):
    generator = np.random.default_rng(0)
    weights = generator.standard_normal((3, 4)).astype(dtype)
    gradient = generator.standard_normal((3, 4)).astype(dtype)

    def build(lib):
        param = lib.tensor(weights, requires_grad=True)
        grad = lib.tensor(gradient)
        view = param[1]
        before = param._version
        with lib.no_grad():
            same = param.add_(grad, alpha=alpha)
        return same is param, param._version - before, param.detach().numpy(), view.detach().numpy(), \
            param.requires_grad, param.is_leaf

    mine, theirs = _both(build)
    assert mine[0] and theirs[0]
    assert mine[1] == theirs[1] == 1
    tolerance = 1e-3 if dtype == "float16" else 1e-6  # float16: PyTorch fuses the multiply-add, NumPy rounds twice
    np.testing.assert_allclose(mine[2], theirs[2], rtol=tolerance, atol=tolerance)
    np.testing.assert_array_equal(mine[3], mine[2][1])  # a view of the parameter sees the update
    assert mine[4:] == theirs[4:] == (True, True)


def test_the_update_on_the_arrays_gives_the_bits_of_the_out_of_place_add():
    generator = np.random.default_rng(1)
    for dtype in ("float16", "float32", "float64"):
        values = generator.standard_normal((5, 3)).astype(dtype) * 100
        other = generator.standard_normal((5, 3)).astype(dtype)
        for alpha in (1, -0.01, 7, -1e-3):
            target = minitorch.tensor(values)
            assert inplace._alike_without_graph(target, minitorch.tensor(other)) is False  # grad mode is on
            expected = minitorch.add(minitorch.tensor(values), minitorch.tensor(other), alpha=alpha).numpy()
            with minitorch.no_grad():
                # float16 takes the out-of-place add (in float32, rounded once, as PyTorch's kernel)
                assert inplace._alike_without_graph(target, minitorch.tensor(other)) is (dtype != "float16")
                target.add_(minitorch.tensor(other), alpha=alpha)
            np.testing.assert_array_equal(target.numpy(), expected)


def test_a_view_updated_under_no_grad_writes_through_to_its_base():
    def build(lib):
        base = lib.zeros(2, 3)
        with lib.no_grad():
            base[0].add_(lib.ones(3), alpha=2)
            base.t()[2].add_(lib.ones(2))
        return base.numpy(), base._version

    mine, theirs = _both(build)
    np.testing.assert_array_equal(mine[0], theirs[0])
    assert mine[1] == theirs[1]


@pytest.mark.parametrize(
    "case",
    [
        lambda lib: lib.zeros(2, 3).add_(lib.ones(3), alpha=0.5),  # broadcast
        lambda lib: lib.zeros(2, 3).add_(lib.ones(2, 3, dtype=lib.float64)),  # another dtype
        lambda lib: lib.zeros(2, 3).add_(2.5),  # a number
        lambda lib: lib.zeros(2, 3, dtype=lib.int64).add_(lib.ones(2, 3, dtype=lib.int64), alpha=2),  # integers
    ],
)
def test_updates_outside_the_array_route_under_no_grad_equal_pytorch(case):
    def build(lib):
        with lib.no_grad():
            try:
                return case(lib).numpy()
            except (RuntimeError, TypeError) as error:
                return str(error)

    mine, theirs = _both(build)
    if isinstance(theirs, str):
        assert mine == theirs
    else:
        np.testing.assert_allclose(mine, theirs)


@pytest.mark.parametrize(
    "case",
    [
        lambda lib: lib.zeros(1, 3).expand(2, 3).add_(lib.ones(2, 3)),  # memory shared by several elements
        lambda lib: lib.zeros(2, 3, dtype=lib.int64).add_(lib.ones(2, 3, dtype=lib.int64), alpha=0.5),
        lambda lib: lib.zeros(3).add_(lib.ones(2, 3)),  # the result would not fit
    ],
)
def test_bad_updates_under_no_grad_raise_pytorchs_errors(case):
    def build(lib):
        with lib.no_grad():
            with pytest.raises(RuntimeError) as caught:
                case(lib)
        return str(caught.value)

    mine, theirs = _both(build)
    assert mine == theirs


def test_with_grad_mode_on_the_update_is_recorded_as_pytorch_does():
    def build(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y.add_(x, alpha=3)
        y.sum().backward()
        return y.grad_fn.name(), x.grad.numpy()

    mine, theirs = _both(build)
    assert mine[0] == theirs[0]
    np.testing.assert_array_equal(mine[1], theirs[1])
