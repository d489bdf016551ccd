"""Arithmetic functions given two Python numbers, against PyTorch (``torch.add(5, 5)`` is ``tensor(10)``)."""

from __future__ import annotations

import pytest

import minitorch
from tests.support import require_torch

CALLS = {
    "add_ints": lambda lib: lib.add(5, 2),
    "add_floats": lambda lib: lib.add(1.5, 2.5),
    "add_int_float": lambda lib: lib.add(5, 5.5),
    "add_bool_int": lambda lib: lib.add(True, 2),
    "add_alpha": lambda lib: lib.add(5, 2, alpha=2),
    "add_keywords": lambda lib: lib.add(input=3, other=4),
    "sub": lambda lib: lib.sub(5, 2, alpha=2),
    "subtract": lambda lib: lib.subtract(1.5, 2),
    "mul_bools": lambda lib: lib.mul(True, False),
    "multiply": lambda lib: lib.multiply(3, 4.0),
    "div": lambda lib: lib.div(5, 2),
    "div_floor": lambda lib: lib.div(5, 2, rounding_mode="floor"),
    "divide": lambda lib: lib.divide(7, 2),
    "true_divide": lambda lib: lib.true_divide(7, 2),
    "floor_divide": lambda lib: lib.floor_divide(5.5, 2),
    "number_and_tensor": lambda lib: lib.mul(2, lib.tensor([1, 2])),
    "out": lambda lib: lib.add(5, 2, out=lib.empty(())),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_two_numbers_give_pytorchs_tensor(name):
    torch = require_torch()
    theirs = CALLS[name](torch)
    ours = CALLS[name](minitorch)
    assert str(ours.dtype).replace("minitorch.", "torch.") == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("call", [lambda lib: lib.maximum(5, 2), lambda lib: lib.atan2(1.0, 2.0),
                                  lambda lib: lib.add("a", 2)])
def test_functions_pytorch_refuses_numbers_for_are_refused_alike(call):
    torch = require_torch()
    with pytest.raises(TypeError) as theirs:
        call(torch)
    with pytest.raises(TypeError) as ours:
        call(minitorch)
    assert str(ours.value) == str(theirs.value)
