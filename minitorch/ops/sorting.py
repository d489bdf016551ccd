"""Sorting: ``sort``, ``argsort`` and ``topk``.

Sorting permutes the elements along ``dim``; the indices say where each sorted value came
from. The gradient of a permutation is the inverse permutation, so the backward puts each
incoming gradient back at the position its value came from (a scatter with the indices).
``topk`` is a sort followed by keeping the first ``k``: positions that were not kept get 0.
"""

from __future__ import annotations

from .. import return_types
from .._tensor import Tensor
from ..autograd.function import Op
from . import indexing
from ._util import array_module, wrap_dim


class Sort(Op):
    """``values = x`` sorted along ``dim`` (``indices`` where each came from);
    ``dx[indices] = grad_values`` (scattered back; no gradient flows through the indices)."""

    @staticmethod
    def forward(ctx, x, dim, descending, k):
        xp = array_module(x)
        if x.ndim == 0:
            indices = xp.zeros((), dtype=xp.int64)
            ctx.mark_non_differentiable(indices)
            ctx.dim, ctx.input_shape = dim, x.shape
            return x.copy(), indices
        # A stable sort keeps equal values in their original order (PyTorch's stable=True); for
        # descending order, sort the reversed ranks so that ties still keep that order.
        keys = x if not descending else _descending_keys(xp, x)
        indices = xp.argsort(keys, axis=dim, kind="stable").astype(xp.int64)
        if descending and x.dtype.kind == "f" and bool(xp.isnan(x).any()):
            # NaN counts as the largest value, as in PyTorch: move the NaNs (sorted last) to the front
            not_nan = ~xp.isnan(xp.take_along_axis(x, indices, axis=dim))
            indices = xp.take_along_axis(indices, xp.argsort(not_nan, axis=dim, kind="stable"), axis=dim)
        if k is not None:
            indices = xp.take(indices, xp.arange(k), axis=dim)
        values = xp.take_along_axis(x, indices, axis=dim)
        ctx.mark_non_differentiable(indices)
        ctx.dim, ctx.input_shape, ctx.indices = dim, x.shape, indices
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        if not ctx.input_shape:
            return grad_values, None, None, None
        device = grad_values._device
        zeros = Tensor._make(grad_values._xp.zeros(ctx.input_shape, dtype=grad_values._data.dtype), device)
        index = Tensor._make(ctx.indices, device)
        return indexing.scatter(zeros, ctx.dim, index, grad_values), None, None, None


class TopK(Sort):
    node_name = "TopkBackward0"


def _descending_keys(xp, x):
    """Keys whose ascending order is ``x``'s descending order (NaN still sorts last: ``Sort`` moves it)."""
    if x.dtype.kind == "f":
        return -x
    if x.dtype.kind == "b":
        return ~x
    return -(x.astype(xp.int64) if x.dtype.kind == "u" else x.astype(xp.int64))


def sort(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> return_types.sort:
    """``(values, indices)`` of ``x`` sorted along ``dim`` (ascending unless ``descending``).

        >>> import minitorch
        >>> minitorch.tensor([3.0, 1.0, 2.0]).sort()
        minitorch.return_types.sort(
        values=tensor([1., 2., 3.]),
        indices=tensor([1, 2, 0]))
    """
    axis = wrap_dim(dim, x._data.ndim)
    values, indices = Sort.apply(x, axis, bool(descending), None)
    return return_types.sort(values, indices)


def argsort(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``x`` along ``dim``."""
    return sort(x, dim, descending, stable).indices


def topk(x: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> return_types.topk:
    """The ``k`` largest (or smallest) elements along ``dim``, with their indices."""
    axis = wrap_dim(dim, x._data.ndim)
    size = x._data.shape[axis] if x._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    values, indices = TopK.apply(x, axis, bool(largest), int(k))
    return return_types.topk(values, indices)
