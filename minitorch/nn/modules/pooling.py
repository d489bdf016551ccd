"""Pooling layers: max, average, adaptive (fixed output size), and max-unpooling.

Each layer stores its settings and calls its functional form (``F.max_pool2d``...).

    >>> import minitorch
    >>> pool = minitorch.nn.MaxPool2d(2)
    >>> pool
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> pool(minitorch.arange(16.0).reshape(1, 1, 4, 4)).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
"""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxUnpool1d", "MaxUnpool2d",
]


class _MaxPoolNd(Module):
    _functional = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor):
        return type(self)._functional(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                      ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
            f"ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """The largest value of each window of ``(N, C, L)``."""

    _functional = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """The largest value of each ``kernel_size`` window of ``(N, C, H, W)``; ``return_indices`` for ``MaxUnpool2d``."""

    _functional = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    _functional = staticmethod(F.max_pool3d)


def _single(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class AvgPool1d(Module):
    """The mean of each window of ``(N, C, L)``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    _functional = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._functional(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                      self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """The mean of each window; ``count_include_pad=False`` leaves zero padding out of the count."""

    _functional = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    _functional = staticmethod(F.avg_pool3d)


class _AdaptivePoolNd(Module):
    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    """Average pooling to a fixed output size (``None`` keeps that input size): ``AdaptiveAvgPool2d(1)`` is global."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output size."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _dims = 2
    _functional = None

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        dims = self._dims

        def expand(value):
            return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims

        self.kernel_size = expand(kernel_size)
        self.stride = expand(stride if stride is not None else kernel_size)
        self.padding = expand(padding)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return type(self)._functional(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _dims = 1
    _functional = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Puts each value back at the index ``MaxPool2d(return_indices=True)`` reported; zeros elsewhere."""

    _dims = 2
    _functional = staticmethod(F.max_unpool2d)
