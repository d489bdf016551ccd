"""Data types and PyTorch's type-promotion rules.

A ``dtype`` names how each element is stored. minitorch keeps one ``dtype`` object per
kind (``minitorch.float32`` and so on) and maps it to the NumPy dtype that holds the data;
CuPy uses the same NumPy dtypes, so one table serves both devices.

Type promotion (what ``int_tensor + float_tensor`` gives) follows PyTorch, not NumPy:

* categories rank ``bool < integer < floating``;
* a Python number only matters when it is of a higher category than every tensor
  (``float32_tensor * 2.5`` stays float32; ``int_tensor * 2.5`` becomes the default
  float dtype);
* a zero-dimensional tensor likewise only matters when it is of a higher category than
  the tensors with dimensions;
* within a category, the wider type wins (``float16 + float32 -> float32``); mixing
  ``uint8`` and ``int8`` gives ``int16``; an integer mixed with a float gives that float
  (``int64 + float16 -> float16``, where NumPy would say float64).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

# PyTorch's two spellings of each dtype in its messages: the scalar type's name, as in ``FloatTensor`` and
# ``"abs_cpu" not implemented for 'Bool'``, and the C++ type, as in ``expected m1 and m2 to have the same
# dtype, but got: float != double`` and ``TensorOptions(dtype=c10::Half, ...)``.
_PYTORCH_NAMES = {
    "bool": ("Bool", "bool"), "uint8": ("Byte", "unsigned char"), "int8": ("Char", "signed char"),
    "int16": ("Short", "short int"), "int32": ("Int", "int"), "int64": ("Long", "long int"),
    "float16": ("Half", "c10::Half"), "float32": ("Float", "float"), "float64": ("Double", "double"),
    "bfloat16": ("BFloat16", "c10::BFloat16"),
}  # fmt: skip


class dtype:
    """A tensor element type, such as ``minitorch.float32``.

    Besides PyTorch's attributes it knows its NumPy dtype and how PyTorch's messages spell it:
    ``float32.type_name`` is ``"Float"`` and ``float32.cpp_name`` is ``"float"``.
    """

    __slots__ = ("name", "numpy_dtype", "is_floating_point", "is_signed", "itemsize", "category", "type_name",
                 "cpp_name")

    def __init__(self, name: str, numpy_dtype, category: int):
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        self.category = category  # 0 bool, 1 integer, 2 floating
        self.is_floating_point = category == 2
        self.is_signed = name != "uint8" and name != "bool"
        self.itemsize = self.numpy_dtype.itemsize
        self.type_name, self.cpp_name = _PYTORCH_NAMES[name]

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __reduce__(self):
        return self.name

    @property
    def is_complex(self) -> bool:
        return False

    def to_real(self) -> dtype:
        return self


BOOL, INTEGER, FLOATING = 0, 1, 2

bool = dtype("bool", np.bool_, BOOL)  # noqa: A001 - PyTorch's own name
uint8 = dtype("uint8", np.uint8, INTEGER)
int8 = dtype("int8", np.int8, INTEGER)
int16 = dtype("int16", np.int16, INTEGER)
int32 = dtype("int32", np.int32, INTEGER)
int64 = dtype("int64", np.int64, INTEGER)
float16 = dtype("float16", np.float16, FLOATING)
float32 = dtype("float32", np.float32, FLOATING)
float64 = dtype("float64", np.float64, FLOATING)
# bfloat16 ("brain float"): float32's 8 exponent bits with only 7 mantissa bits, so float32's range at 2-3
# significant digits. NumPy has no such type; the ml_dtypes package adds it (NumPy sees its kind as "V").
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, FLOATING)

# PyTorch's aliases
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
FLOATING_DTYPES = (float16, bfloat16, float32, float64)

_FROM_NUMPY = {d.numpy_dtype: d for d in ALL_DTYPES}
# Windows and some platforms name the same layouts differently; map by kind and size too (not bfloat16,
# whose ``str`` is a plain two-byte void, "<V2").
_FROM_NUMPY.update({np.dtype(d.numpy_dtype.str): d for d in ALL_DTYPES if d is not bfloat16})

# The NumPy dtypes of floating tensors. ``numpy_dtype.kind == "f"`` would miss bfloat16, whose kind is "V".
FLOATING_NUMPY_DTYPES = frozenset(d.numpy_dtype for d in FLOATING_DTYPES)


# PyTorch adds and multiplies bfloat16 numbers in float32 (its "opmath type") and rounds once, at the end;
# NumPy's bfloat16 reductions would round after every addition, so sums and means ask for float32 first.
ACCUMULATE_IN = {bfloat16.numpy_dtype: np.dtype(np.float32)}


def is_floating(numpy_dtype) -> builtins_bool:
    """Whether a NumPy (or CuPy) dtype holds floating-point numbers: float16/32/64 or bfloat16.

    Use it instead of ``numpy_dtype.kind == "f"``, which is False for ml_dtypes' bfloat16 (kind "V").
    (The hot path asks ``numpy_dtype in FLOATING_NUMPY_DTYPES`` directly, to save a call.)
    """
    return numpy_dtype in FLOATING_NUMPY_DTYPES

_default_float = float32


def from_numpy_dtype(numpy_dtype) -> dtype:
    """The minitorch dtype that stores elements of ``numpy_dtype``."""
    try:
        return _FROM_NUMPY[numpy_dtype]
    except KeyError:
        try:
            return _FROM_NUMPY[np.dtype(numpy_dtype)]
        except (KeyError, TypeError):
            raise TypeError(
                f"can't convert np.ndarray of type {np.dtype(numpy_dtype)}. The only supported types are: "
                "float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
            ) from None


def get_default_dtype() -> dtype:
    """The dtype of floating tensors made from Python floats (float32 unless changed)."""
    return _default_float


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype; only float32 and float64 are allowed, as in PyTorch."""
    global _default_float
    if d not in (float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_float = d


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype that both ``a`` and ``b`` can be converted to (``torch.promote_types``)."""
    if type1 is type2:
        return type1
    if type1.category != type2.category:
        return type1 if type1.category > type2.category else type2
    if type1.category == FLOATING:
        if type1.itemsize == type2.itemsize:  # float16 with bfloat16: neither holds the other, float32 holds both
            return float32
        return type1 if type1.itemsize > type2.itemsize else type2
    # Two integer types (bool never gets here): NumPy's rule agrees with PyTorch's.
    return _FROM_NUMPY[np.promote_types(type1.numpy_dtype, type2.numpy_dtype)]


def dtype_of_python_scalar(value) -> dtype:
    """The dtype a Python number takes on its own: bool, int64, or the default float."""
    if isinstance(value, (builtins_bool, np.bool_)):
        return bool
    if isinstance(value, (builtins_int, np.integer)):
        return int64
    return _default_float


def result_type(*operands) -> dtype:
    """The dtype of an elementwise op over tensors and Python numbers (``torch.result_type``).

    Three groups are promoted separately, then combined by category: tensors with
    dimensions, zero-dimensional tensors, and Python numbers.
    """
    dimensioned = zero_dim = scalars = None
    for operand in operands:
        data = getattr(operand, "_data", None)
        if data is None:
            d = dtype_of_python_scalar(operand)
            scalars = d if scalars is None else promote_types(scalars, d)
        elif data.ndim:
            d = _FROM_NUMPY[data.dtype]
            dimensioned = d if dimensioned is None else promote_types(dimensioned, d)
        else:
            d = _FROM_NUMPY[data.dtype]
            zero_dim = d if zero_dim is None else promote_types(zero_dim, d)
    return _combine_categories(dimensioned, _combine_categories(zero_dim, scalars))


def _combine_categories(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """``higher`` has priority; ``lower`` counts only when its category is above it."""
    if higher is None:
        return lower
    if lower is None or higher.category == FLOATING:
        return higher
    if higher.category == BOOL or lower.category == FLOATING:
        return promote_types(higher, lower)
    return higher


import builtins as _builtins  # noqa: E402

builtins_bool, builtins_int = _builtins.bool, _builtins.int
