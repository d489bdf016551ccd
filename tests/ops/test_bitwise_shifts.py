"""``bitwise_left_shift``/``bitwise_right_shift``, ``<<``/``>>`` and their in-place forms, against PyTorch."""

from __future__ import annotations

import pytest

import minitorch
from tests.support import require_torch

CASES = {
    "docstring_int8": lambda lib: lib.bitwise_left_shift(lib.tensor([-1, -2, 3], dtype=lib.int8),
                                                         lib.tensor([1, 0, 3], dtype=lib.int8)),
    "right_int8": lambda lib: lib.bitwise_right_shift(lib.tensor([-1, -2, 3], dtype=lib.int8),
                                                      lib.tensor([1, 0, 3], dtype=lib.int8)),
    "operator_left": lambda lib: lib.tensor([-1, -2, 3], dtype=lib.int8) << 1,
    "operator_right": lambda lib: lib.tensor([-9, 8, 3]) >> 2,
    "past_the_width": lambda lib: lib.tensor([1, 2]) << lib.tensor([70, 63]),
    "negative_past_the_width": lambda lib: lib.tensor([-8, 8]) >> lib.tensor([70, 70]),
    "bool_and_int": lambda lib: lib.bitwise_left_shift(lib.tensor([True, False]), 1),
    "number_first": lambda lib: lib.bitwise_left_shift(3, lib.tensor([1, 2])),
    "reflected": lambda lib: 1 << lib.tensor([3, 4]),
    "uint8_broadcast": lambda lib: lib.tensor([[1], [128]], dtype=lib.uint8) << lib.tensor([0, 1], dtype=lib.uint8),
    "method": lambda lib: lib.tensor([5, 6]).bitwise_right_shift(1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shift_matches_pytorch(name):
    torch = require_torch()
    theirs, ours = CASES[name](torch), CASES[name](minitorch)
    assert str(ours.dtype).replace("minitorch.", "torch.") == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()


def test_in_place_shifts_match_pytorch():
    torch = require_torch()
    for lib in (torch, minitorch):
        x = lib.tensor([5, -7])
        x <<= 2
        y = lib.tensor([5, -7])
        y >>= 1
        z = lib.tensor([5, -7]).bitwise_left_shift_(3)
        w = lib.tensor([5, -7]).bitwise_right_shift_(3)
        lib.results = [x.tolist(), y.tolist(), z.tolist(), w.tolist()]
    assert minitorch.results == torch.results


@pytest.mark.parametrize("call", [lambda lib: lib.tensor([1.5]) << 1,
                                  lambda lib: lib.bitwise_right_shift(lib.tensor([1.5]), 1)])
def test_float_shifts_are_refused_in_pytorchs_words(call):
    torch = require_torch()
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(minitorch)
    assert str(ours.value) == str(theirs.value)
