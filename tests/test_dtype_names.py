"""Each dtype spells itself as PyTorch's messages do (``_dtype.py``), and the shared message builders
(``_messages.py``) give PyTorch's text: both checked against PyTorch itself."""

from __future__ import annotations

import pytest

import minitorch
from minitorch import _messages
from tests.support import require_torch

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def _error(function) -> str:
    with pytest.raises(Exception) as caught:  # noqa: B017 - each builder's text is what is compared
        function()
    return str(caught.value)


@pytest.mark.parametrize("name", NAMES)
def test_type_name_is_pytorchs(name):
    torch = require_torch()
    assert "torch." + getattr(minitorch, name).type_name + "Tensor" == torch.empty(0, dtype=getattr(torch, name)).type()


@pytest.mark.parametrize("name", [n for n in NAMES if n != "bool"])
def test_cpp_name_is_pytorchs(name):
    torch = require_torch()
    mask = torch.zeros(1, dtype=getattr(torch, name))
    message = _error(lambda: torch.zeros(1).masked_fill_(mask, 0.0))
    cpp_name = getattr(minitorch, name).cpp_name
    assert message == f"masked_fill_ only supports boolean masks, but got mask with dtype {cpp_name}"


def test_message_builders_say_what_pytorch_says():
    torch = require_torch()
    f32, f64, i64 = minitorch.float32, minitorch.float64, minitorch.int64
    bools = torch.ones(2, dtype=torch.bool)
    assert _error(lambda: bools.abs()) == _messages.not_implemented_for("abs_cpu", minitorch.bool)
    assert _error(lambda: torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))) == _messages.m1_m2_dtypes(
        f32, f64
    )
    assert _error(lambda: torch.add(torch.ones(2), 1, out=torch.zeros(2, dtype=torch.int64))) == _messages.cannot_cast(
        f32, i64
    )
    assert _error(lambda: torch.relu([1.0])) == _messages.must_be_tensor("relu", [1.0])
    double_weight = torch.ones(1, 1, 1, dtype=torch.float64)
    assert _error(lambda: torch.nn.functional.conv1d(torch.ones(1, 1, 3), double_weight)) == (
        _messages.expected_scalar_type(f32, f64)
    )


def test_finfo_and_iinfo_as_pytorch():
    """The limits of every dtype, their printing, equality and the errors for the wrong kind of dtype."""
    torch = require_torch()
    for name in ("float16", "float32", "float64"):
        ours, theirs = minitorch.finfo(getattr(minitorch, name)), torch.finfo(getattr(torch, name))
        for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
            assert getattr(ours, field) == getattr(theirs, field), (name, field)
        assert repr(ours) == repr(theirs) and ours == minitorch.finfo(getattr(minitorch, name))
    assert repr(minitorch.finfo()) == repr(torch.finfo())
    for name in ("uint8", "int8", "int16", "int32", "int64"):
        ours, theirs = minitorch.iinfo(getattr(minitorch, name)), torch.iinfo(getattr(torch, name))
        assert (ours.bits, ours.max, ours.min, ours.dtype) == (theirs.bits, theirs.max, theirs.min, theirs.dtype)
        assert repr(ours) == repr(theirs)
    for lib in (minitorch, torch):
        with pytest.raises(TypeError, match="requires a floating point input type"):
            lib.finfo(lib.int32)
        with pytest.raises(TypeError, match="requires an integer input type"):
            lib.iinfo(lib.float32)
