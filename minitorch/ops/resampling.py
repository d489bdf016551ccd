"""Resampling the spatial axes of an image one axis at a time (``F.interpolate``, adaptive average pooling).

Every resize minitorch offers is separable: output pixel ``i`` along an axis of length ``n`` is a weighted
sum of that axis's input pixels, the same weights for every other position. So resizing is one small
matrix per spatial axis, ``(o, n)``, applied along that axis (``A_h x A_w^T`` in 2-D): linear and cubic
weights, window averages (adaptive average pooling, ``mode="area"``), antialiasing filters. ``nearest``
picks one pixel, a matrix with a single 1 per row; it is applied as that row's index instead (a copy,
not a product), and its backward adds each gradient back at the pixel it came from.

Each is one node, under PyTorch's name for the mode and the number of axes (``UpsampleBilinear2DBackward0``),
which ``resampler`` picks.
"""

from __future__ import annotations

from .._tensor_base import TensorBase as Tensor  # _make; the class sits above the ops
from ..autograd.function import Op
from ._util import array_module


class ResampleByMatrices(Op):
    """``y = x`` multiplied along each spatial axis ``d`` by its matrix ``A_d`` ``(o_d, n_d)``.

    ``dx = grad`` multiplied along each axis by ``A_d^T`` (the adjoint of each product).
    """

    @staticmethod
    def forward(ctx, input, matrices):
        ctx.matrices = matrices
        xp = array_module(input)
        output = input
        for axis, matrix in enumerate(matrices, start=input.ndim - len(matrices)):
            output = xp.moveaxis(xp.moveaxis(output, axis, -1) @ xp.asarray(matrix, dtype=input.dtype).T, -1, axis)
        return xp.ascontiguousarray(output)

    @staticmethod
    def backward(ctx, grad):
        grad_input = grad
        for axis, matrix in enumerate(ctx.matrices, start=grad.dim() - len(ctx.matrices)):
            weights = Tensor._make(grad._xp.asarray(matrix, dtype=grad._data.dtype), grad._device)
            grad_input = grad_input.transpose(axis, -1).matmul(weights).transpose(axis, -1)
        return grad_input, None


class ResampleByIndices(Op):
    """``y = x[..., source_h, source_w]``: along each spatial axis, output pixel ``i`` is input pixel ``source[i]``.

    ``dx = zeros with grad added at each source pixel`` along each axis (``index_add``, the adjoint of a pick).
    """

    @staticmethod
    def forward(ctx, input, sources):
        ctx.sources, ctx.input_size = sources, input.shape[input.ndim - len(sources):]
        xp = array_module(input)
        output = input
        for axis, source in enumerate(sources, start=input.ndim - len(sources)):
            output = xp.take(output, xp.asarray(source), axis=axis)
        return output

    @staticmethod
    def backward(ctx, grad):
        grad_input = grad
        for axis, (source, n) in enumerate(zip(ctx.sources, ctx.input_size), start=grad.dim() - len(ctx.sources)):
            index = Tensor._make(grad._xp.asarray(source), grad._device)
            shape = list(grad_input.shape)
            shape[axis] = n
            grad_input = grad_input.new_zeros(shape).index_add(axis, index, grad_input)
        return grad_input, None


def _resampler(base, name: str):
    return type(name, (base,), {"node_name": name + "Backward0", "__module__": __name__,
                                "__doc__": f"``{name}``: the resampling above under PyTorch's node name."})


# PyTorch's node for each (mode, number of spatial axes); ``area`` is adaptive average pooling (average_pooling.py)
RESAMPLERS = {
    **{("nearest", d): _resampler(ResampleByIndices, f"UpsampleNearest{d}D") for d in (1, 2, 3)},
    **{("nearest-exact", d): _resampler(ResampleByIndices, f"UpsampleNearestExact{d}D") for d in (1, 2, 3)},
    ("linear", 1): _resampler(ResampleByMatrices, "UpsampleLinear1D"),
    ("bilinear", 2): _resampler(ResampleByMatrices, "UpsampleBilinear2D"),
    ("bicubic", 2): _resampler(ResampleByMatrices, "UpsampleBicubic2D"),
    ("trilinear", 3): _resampler(ResampleByMatrices, "UpsampleTrilinear3D"),
    ("bilinear-antialias", 2): _resampler(ResampleByMatrices, "UpsampleBilinear2DAa"),
    ("bicubic-antialias", 2): _resampler(ResampleByMatrices, "UpsampleBicubic2DAa"),
}
