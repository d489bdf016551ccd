"""Reductions: ops that combine many elements into fewer (sum, mean, max, var, norm...).

``dim`` may be an int, a tuple of ints, or None (every dimension); ``keepdim=True`` keeps
reduced dimensions with size 1, which is what makes the backward simple: the gradient of a
reduction is spread back over the elements that were combined, by reshaping ``grad`` to
the kept-dims shape and broadcasting it.
"""

from __future__ import annotations

from .. import _dtype
from .._tensor import Tensor
from ..autograd.function import Op
from ._util import normalize_dims, shape_argument


def _kept_shape(shape, dims) -> tuple:
    """``shape`` with each reduced dimension set to 1 (the shape ``keepdim=True`` gives)."""
    return tuple(1 if axis in dims else extent for axis, extent in enumerate(shape))


def _restore_dims(grad: Tensor, shape, dims, keepdim: bool) -> Tensor:
    """Give a reduced gradient back its size-1 dimensions so it broadcasts against the input."""
    if keepdim or len(dims) == len(shape):  # a full reduction's 0-d gradient already broadcasts
        return grad
    return grad.reshape(_kept_shape(shape, dims))


class Sum(Op):
    """``y = sum_i x_i`` over ``dims``;  ``dx_i = grad`` (the gradient is copied to every summed element)."""

    @staticmethod
    def forward(ctx, x, dims, keepdim, numpy_dtype):
        ctx.input_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        return x.sum(axis=dims, keepdims=keepdim, dtype=numpy_dtype)

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim).expand(ctx.input_shape), None, None, None


def _accumulate_dtype(x: Tensor, dtype) -> _dtype.dtype:
    """Sums of integers and bools are int64, as in PyTorch; ``dtype=`` overrides."""
    if dtype is not None:
        return dtype
    return x.dtype if x.is_floating_point() else _dtype.int64


def sum(x: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    dims = normalize_dims(dim, x._data.ndim) if dim is not None and dim != () else tuple(range(x._data.ndim))
    if dtype is not None and x.is_floating_point() and dtype.is_floating_point and dtype != x.dtype:
        x = x.to(dtype)
    return Sum.apply(x, dims, keepdim, _accumulate_dtype(x, dtype).numpy_dtype)


def sum_to_size(x: Tensor, *size) -> Tensor:
    """Sum ``x`` down to ``size`` (the inverse of broadcasting ``size`` up to ``x.shape``)."""
    target = shape_argument(size)
    shape = x._data.shape
    if target == shape:
        return x
    leading = len(shape) - len(target)
    if leading < 0 or any(t != s and t != 1 for t, s in zip(target, shape[leading:])):
        raise RuntimeError(f"size {list(target)} is not expandable to size {list(shape)}.")
    dims = tuple(range(leading)) + tuple(
        leading + axis for axis, (t, s) in enumerate(zip(target, shape[leading:])) if t == 1 and s != 1
    )
    reduced = sum(x, dims, keepdim=True) if dims else x
    return reduced.reshape(target)
