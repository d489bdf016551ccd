"""A non-tensor where a pointwise op wants a tensor: PyTorch's ``TypeError``, word for word.

The public wrapper (``minitorch/_arguments.py``) lets numbers through to the op, and the op's own check
(``ops/pointwise.py: _require_tensor``) refuses them; both spell the type with one builder,
``minitorch._messages.must_be_tensor``: builtins by their bare name (``int``), other types written in C
by their dotted one (``numpy.float64``, ``decimal.Decimal``), classes written in Python by their bare name
(``Fraction``).
"""

from __future__ import annotations

import decimal
import fractions

import numpy as np
import pytest

import minitorch
from minitorch import _messages
from minitorch.ops import pointwise
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _ones(lib):
    return lib.ones(2, dtype=lib.float64)


# name -> a call that PyTorch and minitorch both refuse with a TypeError naming the argument and its type
CASES = {
    "neg-int": lambda lib: lib.neg(3),
    "neg-numpy-float64": lambda lib: lib.neg(np.float64(1.0)),
    "neg-numpy-int64": lambda lib: lib.neg(np.int64(1)),
    "neg-numpy-bool": lambda lib: lib.neg(np.bool_(True)),
    "neg-ndarray": lambda lib: lib.neg(np.ones(2)),
    "neg-fraction": lambda lib: lib.neg(fractions.Fraction(1, 2)),
    "neg-decimal": lambda lib: lib.neg(decimal.Decimal(1)),
    "neg-list": lambda lib: lib.neg([1.0]),
    "exp-int": lambda lib: lib.exp(3),
    "exp-numpy-float32": lambda lib: lib.exp(np.float32(3.0)),
    "relu-numpy-float64": lambda lib: lib.relu(np.float64(1.0)),
    "atan2-other-float": lambda lib: lib.atan2(_ones(lib), 2.0),
    "atan2-other-numpy-float64": lambda lib: lib.atan2(_ones(lib), np.float64(2.0)),
    "atan2-other-ndarray": lambda lib: lib.atan2(_ones(lib), np.ones(2)),
    "hypot-other-float": lambda lib: lib.hypot(_ones(lib), 2.0),
    "maximum-other-ndarray": lambda lib: lib.maximum(_ones(lib), np.ones(2)),
    "heaviside-values-float": lambda lib: lib.heaviside(_ones(lib), 1.0),
    "ldexp-other-int": lambda lib: lib.ldexp(_ones(lib), 2),
}


def _error(call, lib):
    with pytest.raises(TypeError) as caught:
        call(lib)
    return str(caught.value)


@pytest.mark.parametrize("name", sorted(CASES))
def test_non_tensor_argument_is_pytorchs_type_error(torch, name):
    assert _error(CASES[name], minitorch) == _error(CASES[name], torch)


@pytest.mark.parametrize("value", [3, np.float64(1.0), np.ones(2), decimal.Decimal(1), fractions.Fraction(1, 2)])
def test_the_op_check_and_the_public_check_share_one_builder(value):
    """``_require_tensor`` (reached through the library's own calls, which skip the public wrapper) says what
    the public wrapper says."""
    with pytest.raises(TypeError) as caught:
        pointwise.neg(value)
    assert str(caught.value) == _messages.must_be_tensor("neg", value)
