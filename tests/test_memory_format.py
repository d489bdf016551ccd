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


def test_mixed_layouts_follow_the_first_operand():
    x = minitorch.zeros(2, 3, 4, 5)
    assert (x.contiguous(memory_format=minitorch.channels_last) * x).stride() == (60, 1, 15, 3)


def test_like_functions_keep_a_transposed_layout():
    assert minitorch.zeros_like(minitorch.zeros(3, 4).t()).stride() == (1, 4)


TEMPLATES = {
    "transposed": "lib.zeros(3, 4).t()", "permuted": "lib.zeros(2, 3, 4).permute(2, 0, 1)",
    "gapped_transposed": "lib.zeros(6, 4)[::2].t()", "expanded": "lib.zeros(3, 1).expand(3, 4)",
    "expanded_transposed": "lib.zeros(4, 1).expand(4, 3).t()",
    "channels_last": "lib.zeros(2, 4, 5, 3).permute(0, 3, 1, 2)",
    "size_one_axes": "lib.zeros(1, 3, 1, 4).permute(3, 2, 1, 0)",
    "gapped_channels_last": "lib.zeros(2, 4, 5, 6)[..., ::2].permute(0, 3, 1, 2)",
}
COPIES = ["lib.zeros_like(t)", "lib.empty_like(t)", "lib.ones_like(t)", "lib.full_like(t, 2.0)", "t.clone()",
          "lib.clone(t)", "t.to(lib.float64)", "t.to(lib.float64).double()", "t.double() + 1",
          "lib.zeros_like(t, dtype=lib.int64)",
          "lib.rand_like(t)", "lib.randn_like(t)", "t.new_zeros(t.shape)"]


def _strides_where_longer_than_1(tensor):
    return [stride for stride, size in zip(tensor.stride(), tensor.shape) if size > 1]


@pytest.mark.parametrize("copy", COPIES)
@pytest.mark.parametrize("template", TEMPLATES)
def test_copies_keep_the_templates_layout_as_pytorch_does(template, copy):
    """``preserve_format``: a dense template's strides, else its axes ordered by stride (``empty_like``)."""
    torch = require_torch()
    strides = [_strides_where_longer_than_1(eval(copy, {"lib": lib, "t": eval(TEMPLATES[template], {"lib": lib})}))
               for lib in (minitorch, torch)]
    assert strides[0] == strides[1]


def test_meta_tensors_report_pytorchs_strides():
    torch = require_torch()
    calls = ["lib.empty(2, 3, 4, device='meta')", "lib.zeros(2, 3, device='meta') + 1", "lib.empty(5, device='meta')"]
    for call in calls:
        assert eval(call, {"lib": minitorch}).stride() == eval(call, {"lib": torch}).stride(), call


@pytest.mark.parametrize("draw", ["rand_like", "randn_like"])
def test_random_like_functions_draw_in_memory_order(draw):
    """PyTorch fills ``rand_like(template)``'s memory one element after the next: a transposed template's
    numbers are a row-major draw, transposed."""
    torch = require_torch()
    values = []
    for lib in (minitorch, torch):
        lib.manual_seed(0)
        values.append(getattr(lib, draw)(lib.zeros(3, 4, dtype=lib.float64).t()).numpy())
    np.testing.assert_array_equal(values[0], values[1])
