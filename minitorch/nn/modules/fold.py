"""``Unfold`` (every sliding window as a column, im2col) and ``Fold`` (the columns added back, col2im).

A convolution is ``weight.view(O, -1) @ Unfold(...)(x)``, reshaped: this file shows the
two halves of that idea on their own. The math is ``F.unfold`` / ``F.fold``.

    >>> import minitorch
    >>> minitorch.nn.Unfold(kernel_size=2)(minitorch.ones(1, 3, 4, 4)).shape
    minitorch.Size([1, 12, 9])
"""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """``(N, C * kh * kw, L) -> (N, C, *output_size)``: each column added into its window (overlaps add up)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """``(N, C, H, W) -> (N, C * kh * kw, L)``: every sliding window as a column."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )
