"""``finfo`` and ``iinfo``: the limits of a dtype (``torch.finfo(torch.float32).eps``...).

Code uses them to pick safe constants: the most negative float for a mask (``finfo(dtype).min``),
the step between 1 and the next number (``eps``) to keep a probability away from 0 and 1, the
smallest normal number (``tiny``) below which precision is lost. The numbers are NumPy's (the same
IEEE formats); the names, the printing and the errors are PyTorch's.

    >>> import minitorch
    >>> minitorch.finfo(minitorch.float32).eps
    1.1920928955078125e-07
    >>> minitorch.iinfo(minitorch.uint8).max
    255
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from . import _dtype

__all__ = ["finfo", "iinfo"]


def _short(value) -> str:
    return f"{value:g}"  # PyTorch prints six significant digits


class finfo:
    """The limits of a floating dtype (the default dtype when none is given)."""

    def __init__(self, type: _dtype.dtype | None = None):
        dtype = _dtype.get_default_dtype() if type is None else type
        if not dtype.is_floating_point:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'"
            )
        info = ml_dtypes.finfo(dtype.numpy_dtype)  # NumPy's own finfo for its types, and bfloat16's
        self.bits, self.eps, self.max, self.min = info.bits, float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision  # exactly 1e-6 for float32 (NumPy stores it in the dtype itself)
        self.dtype = dtype.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={_short(self.resolution)}, min={_short(self.min)}, max={_short(self.max)}, "
                f"eps={_short(self.eps)}, smallest_normal={_short(self.smallest_normal)}, tiny={_short(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype."""

    def __init__(self, type: _dtype.dtype):
        if type.is_floating_point or type is _dtype.bool:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.numpy_dtype)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), type.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={_short(float(self.min))}, max={_short(float(self.max))}, dtype={self.dtype})"
