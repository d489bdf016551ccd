"""``torch.jit``'s eager-mode names against PyTorch: the guards, the decorators that leave a function to
Python, ``annotate`` and ``Final`` (torchvision's ops and other library code call them when run eagerly)."""

from __future__ import annotations

import typing

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def test_the_guards_say_no_script_and_no_trace_as_eager_pytorch(torch):
    for library in (torch, minitorch):
        assert library.jit.is_scripting() is False
        assert library.jit.is_tracing() is False


def test_annotate_returns_its_value_and_final_is_typings(torch):
    for library in (torch, minitorch):
        value = []
        assert library.jit.annotate(list[int], value) is value
        assert library.jit.Final is typing.Final


def _decorated(library):
    def scale(x, factor=2):
        """Doubles."""
        return x * factor

    return {
        "ignore": library.jit.ignore(scale),
        "ignore(drop=True)": library.jit.ignore(drop=True)(scale),
        "unused": library.jit.unused(scale),
        "export": library.jit.export(scale),
        "_script_if_tracing": library.jit._script_if_tracing(scale),
    }


def test_the_decorators_leave_the_function_callable_as_pytorch_does(torch):
    expected, got = _decorated(torch), _decorated(minitorch)
    for name in expected:
        assert got[name](3, factor=4) == expected[name](3, factor=4) == 12, name
        assert got[name].__name__ == expected[name].__name__ == "scale", name
        assert got[name].__doc__ == expected[name].__doc__, name
    wrapper = got["_script_if_tracing"]
    assert getattr(wrapper, "__script_if_tracing_wrapper") is True
    assert getattr(wrapper, "__original_fn").__name__ == "scale"


def test_a_guarded_tensor_function_gives_pytorchs_values(torch):
    # torchvision's pattern: `if not torch.jit.is_scripting() and not torch.jit.is_tracing(): log...`
    def box_area(library, boxes):
        if not library.jit.is_scripting() and not library.jit.is_tracing():
            boxes = boxes.float()
        return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])

    data = [[0, 0, 3, 4], [1, 1, 2, 5]]
    assert box_area(minitorch, minitorch.tensor(data)).tolist() == box_area(torch, torch.tensor(data)).tolist()


def test_a_scripted_function_and_module_compute_pytorchs_values(torch):
    # descript-audio-codec's `@torch.jit.script def snake(x, alpha)`, called eagerly afterwards.
    def snake(library):
        def function(x, alpha):
            shape = x.shape
            x = x.reshape(shape[0], shape[1], -1)
            x = x + (alpha + 1e-9).reciprocal() * library.sin(alpha * x).pow(2)
            return x.reshape(shape)

        scripted = library.jit.script(function)
        x = library.linspace(-2, 2, 6).view(1, 2, 3)
        return scripted(x, library.full((1, 2, 1), 0.5)).tolist()

    np.testing.assert_allclose(snake(minitorch), snake(torch), rtol=1e-6)
    module = minitorch.nn.Linear(2, 1)
    assert minitorch.jit.script(module)(minitorch.ones(1, 2)).shape == (1, 1)
