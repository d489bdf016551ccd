"""``gradgradcheck`` without ``grad_outputs`` draws them as PyTorch does (``torch.testing.make_tensor``: uniform in
``[-1, 1)`` from the default generator), so what a program draws afterwards matches PyTorch's stream."""

from __future__ import annotations

import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _run(lib, cube):
    lib.manual_seed(7)
    x = lib.tensor([[0.5, -1.0, 2.0], [0.1, 0.2, -0.3]], dtype=lib.float64, requires_grad=True)
    checked = lib.autograd.gradgradcheck(cube, (x,))
    return checked, lib.rand(4, dtype=lib.float64).tolist()


def test_the_stream_after_gradgradcheck_is_pytorchs(torch):
    mine, theirs = _run(minitorch, lambda x: x ** 3), _run(torch, lambda x: x ** 3)
    assert mine == theirs
    assert mine[0] is True


def test_a_wrong_second_derivative_still_fails(torch):
    class Cube(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x.detach() ** 2  # detached: its own derivative is lost

    x = minitorch.tensor([0.5, -1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradgradcheck(Cube.apply, (x,), raise_exception=False) is False
