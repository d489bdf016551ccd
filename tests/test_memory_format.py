"""Memory formats (channels_last...) and layouts (minitorch/_memory_format.py) against PyTorch: strides,
contiguity tests, the grad_fn of each copy, and the ``*_like`` functions' ``preserve_format``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

EXPRESSIONS = [
    "[y.stride(), y.grad_fn.name(), y.is_contiguous(), y.is_contiguous(memory_format=lib.channels_last)]",
    "[z.stride(), z.grad_fn.name()]",
    "[y.contiguous(memory_format=lib.channels_last) is y, y.contiguous().stride(), y.contiguous().grad_fn.name()]",
    "[lib.channels_last, lib.contiguous_format, lib.preserve_format, lib.channels_last_3d, "
    "type(lib.channels_last).__name__, x.layout, lib.strided, type(lib.strided).__name__]",
    "[x.clone(memory_format=lib.channels_last).stride(), y.clone().stride(), "
    "x.clone(memory_format=lib.channels_last).grad_fn.name()]",
    "lib.zeros(2, 3, 4, 5, 6).contiguous(memory_format=lib.channels_last_3d).stride()",
    "[lib.clone(x, memory_format=lib.channels_last).stride(), lib.clone(y).stride(), lib.clone(x).stride()]",
    "[lib.relu(y).stride(), (y + 1).stride(), y.sigmoid().stride()]",
    "lib.nn.Conv2d(3, 4, 3).to(memory_format=lib.channels_last).weight.stride()",
    "[lib.zeros(2, 1, 4, 1).is_contiguous(memory_format=lib.channels_last), "
    "lib.zeros(2, 3, 4, 5).is_contiguous(memory_format=lib.channels_last), "
    "lib.zeros(3).is_contiguous(memory_format=lib.channels_last), "
    "lib.zeros(2, 3, 4, 5, 6).is_contiguous(memory_format=lib.channels_last_3d)]",
    "[x.to(lib.float64, memory_format=lib.channels_last).stride(), "
    "x.to(lib.float64, memory_format=lib.channels_last).dtype]",
    "[w.is_contiguous(memory_format=lib.channels_last), w.stride(), "
    "w.is_contiguous(memory_format=lib.preserve_format), x.contiguous(memory_format=lib.preserve_format) is x]",
    "[lib.empty(2, 3, 4, 5, memory_format=lib.channels_last).stride(), lib.empty_like(y).stride(), "
    "lib.zeros_like(y).stride(), lib.ones_like(y, memory_format=lib.contiguous_format).stride(), "
    "lib.full_like(y, 2.0).stride(), lib.empty_like(x).stride()]",
]


def _evaluate(lib, expression):
    lib.manual_seed(0)
    x = lib.randn(2, 3, 4, 5, requires_grad=True)
    values = {"lib": lib, "x": x, "y": x.contiguous(memory_format=lib.channels_last),
              "z": x.to(memory_format=lib.channels_last),
              "w": lib.zeros(2, 4, 5, 3).permute(0, 3, 1, 2)}
    return re.sub(r"\btorch\.", "minitorch.", str(eval(expression, values)))


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_memory_formats_match_pytorch(expression):
    torch = require_torch()
    assert _evaluate(minitorch, expression) == _evaluate(torch, expression)


def test_a_channels_last_copy_keeps_values_and_passes_gradients_through():
    x = minitorch.randn(2, 3, 4, 5, requires_grad=True)
    y = x.contiguous(memory_format=minitorch.channels_last)
    np.testing.assert_array_equal(y.detach().numpy(), x.detach().numpy())
    (y * minitorch.arange(120.0).view(2, 3, 4, 5)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(120.0).reshape(2, 3, 4, 5))


@pytest.mark.parametrize("call", [
    "lib.zeros(3, 4).contiguous(memory_format=lib.channels_last)",
    "lib.zeros(2, 4, 5, 3).permute(0, 3, 1, 2).contiguous(memory_format=lib.preserve_format)",
    "lib.zeros(2, 3, 4).to(memory_format=lib.channels_last_3d)",
])
def test_wrong_formats_raise_pytorchs_error(call):
    torch = require_torch()
    errors = []
    for lib in (minitorch, torch):
        with pytest.raises(RuntimeError) as caught:
            eval(call, {"lib": lib})
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


@pytest.mark.xfail(strict=True, reason="an op on operands in two layouts: NumPy's result is row-major, PyTorch's "
                   "follows the first operand (output strides are the op table's class)")
def test_mixed_layouts_follow_the_first_operand():
    x = minitorch.zeros(2, 3, 4, 5)
    assert (x.contiguous(memory_format=minitorch.channels_last) * x).stride() == (60, 1, 15, 3)


@pytest.mark.xfail(strict=True, reason="the *_like functions keep a channels-last template's layout only; PyTorch "
                   "keeps every dense order (a transposed template's too)")
def test_like_functions_keep_a_transposed_layout():
    assert minitorch.zeros_like(minitorch.zeros(3, 4).t()).stride() == (1, 4)
