"""Type promotion of elementwise ops, checked against PyTorch over every dtype minitorch has.

For each op and each combination of operand kinds (tensor-tensor, tensor and 0-d tensor,
tensor and Python number, on either side) the result's dtype and values must be PyTorch's,
and where PyTorch refuses (bool subtraction, integers to negative powers) minitorch must
raise the same exception type with the same message.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SCALARS = [True, False, 2, -3, 2.5, -0.5]

OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "eq": lambda a, b: a == b,
    "lt": lambda a, b: a < b,
    "pow": lambda a, b: a**b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
}

# Functions that take two tensors (no Python numbers): checked over tensor-tensor and 0-d combinations.
def _function(name):
    """``lib.<name>(a, b)`` for whichever library made the operands."""
    return lambda a, b: getattr(_lib(a, b), name)(a, b)


TENSOR_FUNCTIONS = {
    name: _function(name)
    for name in [
        "fmod", "maximum", "minimum", "atan2", "hypot", "logical_and", "logical_xor", "ne", "ge", "isclose", "equal",
        "floor_divide", "remainder", "bitwise_and",
    ]
}
TENSOR_FUNCTIONS["where"] = lambda a, b: _lib(a, b).where(_lib(a, b).tensor([True, False, True]), a, b)
TENSOR_FUNCTIONS["clamp"] = lambda a, b: _lib(a, b).clamp(a, min=b)
TENSOR_FUNCTIONS["lerp"] = lambda a, b: _lib(a, b).lerp(a, b, 0.5)
TENSOR_FUNCTIONS["lerp_weight"] = lambda a, b: _lib(a, b).lerp(a, a, b)
OPS.update(TENSOR_FUNCTIONS)

UNARY = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "abs", "sign", "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "relu", "erf", "floor", "ceil", "round", "trunc",
    "frac", "reciprocal", "neg", "logical_not", "bitwise_not", "isnan", "isinf", "isfinite",
]


def _lib(*operands):
    """The library (minitorch or torch) that made these operands."""
    for operand in operands:
        if isinstance(operand, minitorch.Tensor):
            return minitorch
    return require_torch()


def _values(dtype: str, zero_dim: bool = False):
    if dtype == "bool":
        return True if zero_dim else [True, False, True]
    return 3 if zero_dim else [1, 2, 3]


def _make(lib, dtype: str, zero_dim: bool = False):
    return lib.tensor(_values(dtype, zero_dim), dtype=getattr(lib, dtype))


def _outcome(fn, *operands):
    """("ok", dtype name, values) or ("error", exception type name, first line of the message)."""
    try:
        result = fn(*operands)
    except Exception as error:  # noqa: BLE001 - any exception is an outcome to compare
        return ("error", type(error).__name__, str(error).splitlines()[0])
    if isinstance(result, bool):  # equal() answers with a Python bool
        return ("ok", "bool", np.array(result))
    return ("ok", str(result.dtype).split(".")[-1], result.detach().cpu().numpy())


def _same(ours, theirs) -> bool:
    if ours[:2] != theirs[:2]:
        return False
    if ours[0] == "error":
        return ours[2] == theirs[2]
    a, b = ours[2], theirs[2]
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "biu":
        return bool(np.array_equal(a, b))
    tolerance = 1e-3 if a.dtype == np.float16 else 1e-6
    return bool(np.allclose(a, b, rtol=tolerance, atol=0, equal_nan=True))


def _check(op_name, build):
    """Run ``build(lib)`` -> operands for both libraries over all cases; report every mismatch at once."""
    torch = require_torch()
    fn = OPS[op_name]
    mismatches = []
    for case, (ours, theirs) in build(torch).items():
        ours_outcome, theirs_outcome = _outcome(fn, *ours), _outcome(fn, *theirs)
        if not _same(ours_outcome, theirs_outcome):
            mismatches.append(f"{case}: minitorch {ours_outcome[:3]} vs PyTorch {theirs_outcome[:3]}")
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches)


@pytest.mark.parametrize("op_name", OPS)
def test_tensor_tensor(op_name):
    def build(torch):
        return {
            f"{left} {op_name} {right}": (
                (_make(minitorch, left), _make(minitorch, right)),
                (_make(torch, left), _make(torch, right)),
            )
            for left in DTYPES
            for right in DTYPES
        }

    _check(op_name, build)


@pytest.mark.parametrize("op_name", OPS)
def test_tensor_and_zero_dim_tensor(op_name):
    """A 0-d tensor only decides the dtype when its category (bool < int < float) is higher."""

    def build(torch):
        cases = {}
        for dimensioned in DTYPES:
            for zero_dim in DTYPES:
                cases[f"{dimensioned}[3] {op_name} {zero_dim}[]"] = (
                    (_make(minitorch, dimensioned), _make(minitorch, zero_dim, True)),
                    (_make(torch, dimensioned), _make(torch, zero_dim, True)),
                )
                cases[f"{zero_dim}[] {op_name} {dimensioned}[3]"] = (
                    (_make(minitorch, zero_dim, True), _make(minitorch, dimensioned)),
                    (_make(torch, zero_dim, True), _make(torch, dimensioned)),
                )
        return cases

    _check(op_name, build)


@pytest.mark.parametrize("op_name", [name for name in OPS if name not in TENSOR_FUNCTIONS])
def test_tensor_and_python_scalar(op_name):
    """A Python number only decides the dtype when its category is higher (int * 2.5 -> float32)."""

    def build(torch):
        cases = {}
        for dtype in DTYPES:
            for scalar in SCALARS:
                ours, theirs = _make(minitorch, dtype), _make(torch, dtype)
                cases[f"{dtype} {op_name} {scalar!r}"] = ((ours, scalar), (theirs, scalar))
                cases[f"{scalar!r} {op_name} {dtype}"] = ((scalar, ours), (scalar, theirs))
        return cases

    _check(op_name, build)


@pytest.mark.parametrize("op_name", ["add", "mul", "div"])
def test_zero_dim_tensors_together(op_name):
    """Only 0-d tensors: they promote among themselves like dimensioned ones."""

    def build(torch):
        return {
            f"{left}[] {op_name} {right}[]": (
                (_make(minitorch, left, True), _make(minitorch, right, True)),
                (_make(torch, left, True), _make(torch, right, True)),
            )
            for left in DTYPES
            for right in DTYPES
        }

    _check(op_name, build)


@pytest.mark.parametrize("name", UNARY + ["round_decimals"])
def test_unary_result_dtypes(name):
    """Float functions turn integer and bool tensors into float32; abs, sign, floor... keep integers; errors match."""
    torch = require_torch()
    mismatches = []
    for dtype in DTYPES:
        for zero_dim in (False, True):
            def fn(tensor):
                lib = _lib(tensor)
                return lib.round(tensor, decimals=1) if name == "round_decimals" else getattr(lib, name)(tensor)

            ours, theirs = _outcome(fn, _make(minitorch, dtype, zero_dim)), _outcome(fn, _make(torch, dtype, zero_dim))
            if not _same(ours, theirs):
                mismatches.append(f"{name}({dtype}{'[]' if zero_dim else '[3]'}): minitorch {ours} vs PyTorch {theirs}")
    assert not mismatches, "\n".join(mismatches)


def test_default_dtype_decides_float_results():
    """Integer / integer and int * float scalar take the default float dtype (float64 after set_default_dtype)."""
    torch = require_torch()
    previous = minitorch.get_default_dtype()
    try:
        minitorch.set_default_dtype(minitorch.float64)
        torch_previous = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        try:
            for fn in (lambda lib: _make(lib, "int32") / _make(lib, "int32"), lambda lib: _make(lib, "uint8") * 2.5):
                assert str(fn(minitorch).dtype).split(".")[-1] == str(fn(torch).dtype).split(".")[-1] == "float64"
        finally:
            torch.set_default_dtype(torch_previous)
    finally:
        minitorch.set_default_dtype(previous)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16"])
@pytest.mark.parametrize("scalar", [300, -1, -200])
def test_out_of_range_integer_scalars_wrap_like_pytorch(dtype, scalar):
    """PyTorch converts a Python int into the tensor's integer type with wrap-around (uint8 + 300 adds 44)."""
    torch = require_torch()
    for op_name in ("add", "mul", "eq"):
        ours = _outcome(OPS[op_name], _make(minitorch, dtype), scalar)
        theirs = _outcome(OPS[op_name], _make(torch, dtype), scalar)
        assert _same(ours, theirs), f"{dtype} {op_name} {scalar}: {ours} vs {theirs}"


def test_bool_subtraction_and_negation_errors():
    torch = require_torch()
    cases = [
        lambda lib: _make(lib, "bool") - _make(lib, "bool"),
        lambda lib: _make(lib, "bool") - _make(lib, "float32"),
        lambda lib: _make(lib, "int64") - _make(lib, "bool"),
        lambda lib: _make(lib, "float32") - True,
        lambda lib: True - _make(lib, "bool"),
        lambda lib: lib.sub(_make(lib, "bool"), 1),
        lambda lib: -_make(lib, "bool"),
        lambda lib: lib.neg(_make(lib, "bool", True)),
    ]
    for index, case in enumerate(cases):
        ours, theirs = _outcome(case, minitorch), _outcome(case, torch)
        assert theirs[0] == "error", f"case {index}: PyTorch accepted it"
        assert ours == theirs, f"case {index}: {ours} vs {theirs}"


def test_integer_negative_power_error():
    torch = require_torch()
    for dtype in ["uint8", "int8", "int32", "int64", "bool"]:
        ours = _outcome(lambda tensor: tensor**-2, _make(minitorch, dtype))
        theirs = _outcome(lambda tensor: tensor**-2, _make(torch, dtype))
        assert ours == theirs, f"{dtype}: {ours} vs {theirs}"
        assert theirs == ("error", "RuntimeError", "Integers to negative integer powers are not allowed.")
