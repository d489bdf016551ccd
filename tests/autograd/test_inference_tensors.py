"""Inference tensors (``minitorch/autograd/grad_mode.py``): made inside ``inference_mode``, refused by autograd
with PyTorch's errors. Each check runs on minitorch and on PyTorch and compares."""

from __future__ import annotations

import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _attempt(action):
    try:
        result = action()
        return "ok", result
    except RuntimeError as error:
        return "RuntimeError", str(error)


def _run(lib):
    x = lib.ones(3, requires_grad=True)
    normal = lib.ones(2)
    with lib.inference_mode():
        w = x * 3
        made = lib.ones(2)
        inside = (made.is_inference(), (made + 1).is_inference(), lib.is_inference_mode_enabled(),
                  lib.is_grad_enabled(), lib.ones(2, requires_grad=True).is_inference())
        normal.add_(1)  # a normal tensor written inside the mode stays normal and counts the write
        made.add_(1)  # an inference tensor may be written inside the mode
        with lib.inference_mode(False):
            nested = (lib.ones(1).is_inference(), lib.is_inference_mode_enabled(), lib.is_grad_enabled())
    outside = (w.requires_grad, w.is_inference(), lib.is_inference(w), normal.is_inference(), normal._version,
               w.view(3).is_inference(), w.clone().is_inference(), (w + 1).is_inference(),
               lib.is_inference_mode_enabled())
    attempts = [_attempt(action) for action in (
        lambda: (w * x).sum().backward(),
        lambda: (x.exp() * w).sum().backward(),
        lambda: w.requires_grad_(),
        lambda: w._version,
        lambda: (w + x).sum().backward(),  # Add saves nothing: allowed
        lambda: (w.clone() * x).sum().backward(),  # a clone is a normal tensor
        lambda: w.add_(1),  # last: PyTorch writes the values before it raises, minitorch raises before writing
    )]
    return inside, nested, outside, attempts, x.grad.tolist()


def test_inference_tensors_as_pytorch(torch):
    mine, theirs = _run(minitorch), _run(torch)
    assert mine == theirs
    assert mine[0][0] is True and mine[2][1] is True
    assert mine[3][0][1].startswith("Inference tensors cannot be saved for backward.")


def test_no_grad_tensors_are_not_inference_tensors(torch):
    def build(lib):
        with lib.no_grad():
            t = lib.ones(2)
        with lib.no_grad(), lib.inference_mode(False):
            grad_on = lib.is_grad_enabled()
        return t.is_inference(), t._version, grad_on

    assert build(minitorch) == build(torch) == (False, 0, True)


def test_an_update_like_an_optimizers_is_refused_outside_the_mode(torch):
    """``param.add_(grad)`` under ``no_grad`` (an optimizer's step) on an inference tensor: PyTorch's in-place error."""

    def build(lib):
        with lib.inference_mode():
            weights = lib.ones(3)
        with lib.no_grad():
            try:
                weights.add_(lib.ones(3), alpha=-0.1)
            except RuntimeError as error:
                return str(error)

    assert build(minitorch) == build(torch)
    assert build(minitorch).startswith("Inplace update to inference tensor outside InferenceMode")
