"""Average pooling: the mean of each window, as one node (PyTorch's ``AvgPool2DBackward0``...).

``AvgPool``: the windows are the strided view the convolution uses (``ops/conv.py``) over the
zero-padded input; each output is its window's sum divided by how many elements it counts
(``divisor``, worked out by ``nn/functional/pooling.py``). The gradient of a sum goes to every
element summed, so the backward spreads ``grad / divisor`` over each window and adds the windows
back where they came from: that is ``fold`` (col2im), whose own backward is ``unfold``, so gradients
of gradients work.

``AdaptiveAvgPool``: window ``i`` of ``o`` over a length ``n`` spans ``[floor(i n / o), ceil((i + 1) n / o))``,
so averaging along one axis is a product with an ``(o, n)`` averaging matrix ``A``, and pooling is one
product per spatial axis (in 2-D ``y = A_h x A_w^T``); the backward multiplies by the transposed matrices.
"""

from __future__ import annotations

import math

from .._tensor_base import TensorBase as Tensor  # _make; the class sits above the ops
from ..autograd.function import Op
from ._util import array_module
from .conv import Fold, pad_constant, sliding_windows
from .resampling import ResampleByMatrices


class AvgPool(Op):
    """``y[n, c, p] = sum of window p of x (zero padding included) / divisor[p]``.

    ``dx = fold(grad / divisor spread over each window)``: every element of window ``p`` gets ``grad[p] / divisor[p]``,
    summed over the windows it sits in.
    """

    node_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, input, geometry, divisor):
        xp = array_module(input)
        ctx.geometry, ctx.divisor = geometry, xp.asarray(divisor, dtype=input.dtype)
        windows = sliding_windows(pad_constant(input, geometry.padding), geometry, kernel_first=False)
        kernel_axes = tuple(range(-len(geometry.kernel_size), 0))  # (N, C, *output, *kernel)
        return windows.sum(axis=kernel_axes) / ctx.divisor

    @staticmethod
    def backward(ctx, grad):
        batch, channels = grad.shape[:2]
        kernel_numel, positions = math.prod(ctx.geometry.kernel_size), math.prod(ctx.geometry.output_size)
        share = (grad / Tensor._make(ctx.divisor, grad._device)).reshape(batch, channels, 1, positions)
        columns = share.expand(batch, channels, kernel_numel, positions).reshape(batch, channels * kernel_numel,
                                                                                 positions)
        return Fold.apply(columns, ctx.geometry), None, None


class AvgPool3D(AvgPool):
    """``avg_pool3d``: the same op under PyTorch's name for three spatial axes."""

    node_name = "AvgPool3DBackward0"


class AdaptiveAvgPool(ResampleByMatrices):
    """``y = x`` multiplied along each spatial axis ``d`` by its averaging matrix ``A_d`` ``(o_d, n_d)``
    (``ops/resampling.py``);  ``dx = grad`` multiplied along each axis by ``A_d^T``."""

    node_name = "AdaptiveAvgPool2DBackward0"


class AdaptiveAvgPool3D(AdaptiveAvgPool):
    """``adaptive_avg_pool3d``: the same op under PyTorch's name for three spatial axes."""

    node_name = "AdaptiveAvgPool3DBackward0"
