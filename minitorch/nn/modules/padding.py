"""Padding layers: a fixed ``F.pad`` as a module.

``padding`` is an int (the same on every side) or a tuple in ``F.pad``'s order: last
dimension first, ``(left, right)`` for 1-D, ``(left, right, top, bottom)`` for 2-D...

    >>> import minitorch
    >>> minitorch.nn.ReflectionPad1d(2)(minitorch.tensor([[[1.0, 2.0, 3.0]]])).tolist()
    [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
"""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ReflectionPad1d",
    "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
    "CircularPad1d", "CircularPad2d", "CircularPad3d",
]


def _padding_tuple(padding, dims: int) -> tuple:
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * dims)


class _PadNd(Module):
    _dims = 2
    _mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _padding_tuple(padding, self._dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with ``value``."""

    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with ``value``."""

    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    _dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    _dims = 1


class ZeroPad2d(_ZeroPadNd):
    """Pads the last two dimensions with zeros."""

    _dims = 2


class ZeroPad3d(_ZeroPadNd):
    _dims = 3


class ReflectionPad1d(_PadNd):
    """Mirrors the input at its edges, without repeating the edge: ``[1, 2, 3]`` -> ``[3, 2, 1, 2, 3, 2, 1]``."""

    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Repeats the edge value: ``[1, 2, 3]`` -> ``[1, 1, 1, 2, 3, 3, 3]``."""

    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    _dims, _mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Wraps around: ``[1, 2, 3]`` -> ``[2, 3, 1, 2, 3, 1, 2]``."""

    _dims, _mode = 1, "circular"


class CircularPad2d(_PadNd):
    _dims, _mode = 2, "circular"


class CircularPad3d(_PadNd):
    _dims, _mode = 3, "circular"
