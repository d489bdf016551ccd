"""Sorting and what is built on it: ``sort``, ``argsort``, ``topk``, order statistics, quantiles, search, unique.

Sorting permutes the elements along ``dim``; the indices say where each sorted value came
from. The gradient of a permutation is the inverse permutation, so the backward puts each
incoming gradient back at the position its value came from (a scatter with the indices).
``topk`` is a sort followed by keeping the first ``k``: positions that were not kept get 0.

``median``, ``kthvalue`` and ``mode`` pick one element per slice; its gradient goes to that
element's index. ``quantile`` interpolates between sorted neighbours, so its gradient flows
through the sort. ``searchsorted``, ``bucketize`` and ``unique`` return positions and counts,
which have no gradient.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import _dtype, _messages, return_types
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op
from . import indexing, pointwise
from ._util import array_module, wrap_dim
from .reduction import inclusive_scan


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
        if descending and _dtype.is_floating(x.dtype) and bool(xp.isnan(x).any()):
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
    if _dtype.is_floating(x.dtype):
        return -x
    if x.dtype.kind == "b":
        return ~x
    return -(x.astype(xp.int64) if x.dtype.kind == "u" else x.astype(xp.int64))


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> return_types.sort:
    """``(values, indices)`` of ``x`` sorted along ``dim`` (ascending unless ``descending``).

        >>> import minitorch
        >>> minitorch.tensor([3.0, 1.0, 2.0]).sort()
        minitorch.return_types.sort(
        values=tensor([1., 2., 3.]),
        indices=tensor([1, 2, 0]))
    """
    axis = wrap_dim(dim, input._data.ndim)
    values, indices = Sort.apply(input, axis, bool(descending), None)
    return return_types.sort(values, indices)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``x`` along ``dim``."""
    return sort(input, dim, descending, stable).indices


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> return_types.topk:
    """The ``k`` largest (or smallest) elements along ``dim``, with their indices."""
    axis = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[axis] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    values, indices = TopK.apply(input, axis, bool(largest), int(k))
    return return_types.topk(values, indices)


def msort(input: Tensor) -> Tensor:
    """``x`` sorted along its first dimension (``sort(x, dim=0).values``)."""
    return sort(input, 0).values


# -- order statistics: median, nanmedian, kthvalue, mode ----------------------------------------------
class Kthvalue(Op):
    """``values = x`` at ``indices`` along ``dim``, where ``choose`` picks one element per slice;
    ``dx = grad`` at that index, 0 elsewhere.

    ``choose(xp, x, axis)`` returns the chosen indices with ``axis`` kept (size 1): the k-th
    smallest, the median, the mode. The gradient goes to the element whose index is returned,
    as in PyTorch. The subclasses differ only in their node's name.
    """

    @staticmethod
    def forward(ctx, x, axis, keepdim, choose):
        xp = array_module(x)
        indices = choose(xp, x, axis).astype(xp.int64)
        values = xp.take_along_axis(x, indices, axis=axis)
        if not keepdim:
            values, indices = values.squeeze(axis), indices.squeeze(axis)
        ctx.mark_non_differentiable(indices)
        ctx.axis, ctx.keepdim, ctx.input_shape, ctx.indices = axis, keepdim, x.shape, indices
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        xp, device = grad_values._xp, grad_values._device
        index = Tensor._make(ctx.indices, device)
        if not ctx.keepdim:
            grad_values, index = grad_values.unsqueeze(ctx.axis), index.unsqueeze(ctx.axis)
        zeros = Tensor._make(xp.zeros(ctx.input_shape, dtype=grad_values._data.dtype), device)
        return indexing.scatter(zeros, ctx.axis, index, grad_values), None, None, None


class MedianDim(Kthvalue):
    node_name = "MedianBackward1"


class NanmedianDim(Kthvalue):
    node_name = "NanmedianBackward1"


class Mode(Kthvalue):
    node_name = "ModeBackward0"


def _stable_order(xp, x, axis):
    """The indices that sort ``x`` along ``axis``, equal values in their original order, NaN last."""
    return xp.argsort(x, axis=axis, kind="stable")


def _kth_smallest(k: int):
    """A ``choose`` for ``Kthvalue``: the index of the k-th smallest (1-based; NaN counts as largest)."""

    def choose(xp, x, axis):
        return xp.take(_stable_order(xp, x, axis), xp.arange(k - 1, k), axis=axis)

    return choose


def _lower_median(xp, x, axis):
    """The index of the lower median (the ``(n-1)//2``-th smallest); a slice holding NaN gives its first NaN."""
    middle = (x.shape[axis] - 1) // 2
    indices = xp.take(_stable_order(xp, x, axis), xp.arange(middle, middle + 1), axis=axis)
    if _dtype.is_floating(x.dtype):
        is_nan = xp.isnan(x)
        has_nan = is_nan.any(axis=axis, keepdims=True)
        indices = xp.where(has_nan, xp.argmax(is_nan, axis=axis, keepdims=True), indices)
    return indices


def _lower_nanmedian(xp, x, axis):
    """The index of the lower median of the values that are not NaN (sorted first, NaN last)."""
    if not _dtype.is_floating(x.dtype):
        return _lower_median(xp, x, axis)
    numbers = (~xp.isnan(x)).sum(axis=axis, keepdims=True)
    middle = xp.maximum(numbers - 1, 0) // 2  # an all-NaN slice gives its first (sorted) NaN
    return xp.take_along_axis(_stable_order(xp, x, axis), middle, axis=axis)


def _most_frequent(xp, x, axis):
    """The index of the mode: the most frequent value (the smallest of those, at ties), at its last occurrence.

    In sorted order equal values form runs; the run length is counted at every position,
    and the first position where it is largest ends the earliest longest run. Its original
    index (the stable sort keeps equal values in order) is the last occurrence, as in PyTorch.
    """
    order = _stable_order(xp, x, axis)
    ordered = xp.take_along_axis(x, order, axis=axis)
    length = x.shape[axis]
    positions = xp.arange(length).reshape((-1,) + (1,) * (x.ndim - 1 - axis))
    starts_run = xp.ones(ordered.shape, dtype=bool)
    later = (slice(None),) * axis + (slice(1, None),)
    earlier = (slice(None),) * axis + (slice(None, length - 1),)
    starts_run[later] = ordered[later] != ordered[earlier]
    run_start = inclusive_scan(xp.maximum, xp.where(starts_run, positions, 0), axis)
    best = xp.argmax(positions - run_start, axis=axis, keepdims=True)
    return xp.take_along_axis(order, best, axis=axis)


def _check_reduction_dim(name: str, x: Tensor, axis: int) -> None:
    if x._data.ndim and x._data.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")


def _select_along(op, x: Tensor, axis: int, keepdim: bool, choose, result_type):
    """Apply a ``Kthvalue``-like op (a 0-d tensor is its own answer, at index 0) and name the result."""
    if x._data.ndim == 0:
        values, indices = op.apply(x.reshape(1), 0, False, choose)
        return result_type(values.reshape(()), indices.reshape(()))
    return result_type(*op.apply(x, axis, keepdim, choose))


def _refuse_bool(kernel: str, x: Tensor) -> None:
    if x._data.dtype == bool:
        raise NotImplementedError(_messages.not_implemented_for(kernel, _dtype.bool))


class MedianAll(Op):
    """``y`` = the lower median of all elements (NaN if any is NaN);
    ``dx = grad / m`` for each of the ``m`` elements equal to ``y`` (the NaNs, if ``y`` is NaN), else 0.

    Without ``dim`` PyTorch shares the gradient evenly among ties, like ``max()``. ``skip_nan``
    (``nanmedian``) takes the median of the values that are not NaN instead.
    """

    node_name = "MedianBackward0"

    @staticmethod
    def forward(ctx, x, skip_nan):
        xp = array_module(x)
        values = x.reshape(-1)
        is_nan = xp.isnan(values) if _dtype.is_floating(x.dtype) else xp.zeros(values.shape, dtype=bool)
        if skip_nan:
            values = values[~is_nan]
        if values.size == 0 or (not skip_nan and bool(is_nan.any())):
            result = xp.asarray(xp.nan, dtype=x.dtype) if _dtype.is_floating(x.dtype) else xp.asarray(0, dtype=x.dtype)
        else:
            middle = (values.size - 1) // 2
            result = xp.partition(values, middle)[middle]  # selection, no full sort needed
        if ctx.needs_input_grad and ctx.needs_input_grad[0]:
            chosen = xp.isnan(x) if _dtype.is_floating(x.dtype) and bool(xp.isnan(result)) else x == result
            ctx.save_for_backward(chosen.astype(x.dtype) / max(int(chosen.sum()), 1))
        return xp.asarray(result)

    @staticmethod
    def backward(ctx, grad):
        (weights,) = ctx.saved_tensors
        return grad * weights, None


class NanmedianAll(MedianAll):
    node_name = "NanmedianBackward0"


def median(input: Tensor, dim=None, keepdim: bool = False):
    """The lower median (of all elements, or a ``(values, indices)`` named tuple along ``dim``).

    For an even count it is the smaller of the two middle values (PyTorch does not average).
    A NaN makes the median NaN. At ties PyTorch's index depends on its selection algorithm;
    minitorch returns the first of the tied values in stable sorted order.

        >>> import minitorch
        >>> minitorch.tensor([[3.0, 1.0, 2.0, 4.0]]).median(1)
        minitorch.return_types.median(
        values=tensor([2.]),
        indices=tensor([2]))
    """
    if dim is None:
        _refuse_bool("median_cpu", input)
        return MedianAll.apply(input, False)
    _refuse_bool("median_out", input)
    axis = wrap_dim(dim, input._data.ndim)
    _check_reduction_dim("median", input, axis)
    return _select_along(MedianDim, input, axis, keepdim, _lower_median, return_types.median)


def nanmedian(input: Tensor, dim=None, keepdim: bool = False):
    """``median`` of the values that are not NaN (NaN only where a slice has no numbers)."""
    if dim is None:
        _refuse_bool("median_cpu", input)
        return NanmedianAll.apply(input, True)
    _refuse_bool("median_out", input)
    axis = wrap_dim(dim, input._data.ndim)
    _check_reduction_dim("median", input, axis)
    return _select_along(NanmedianDim, input, axis, keepdim, _lower_nanmedian, return_types.nanmedian)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """``(values, indices)`` of the ``k``-th smallest element (1-based) along ``dim``; NaN counts as the largest.

        >>> import minitorch
        >>> minitorch.tensor([3.0, 1.0, 2.0]).kthvalue(2)
        minitorch.return_types.kthvalue(
        values=tensor(2.),
        indices=tensor(2))
    """
    _refuse_bool("kthvalue_cpu", input)
    axis = wrap_dim(dim, input._data.ndim)
    _check_reduction_dim("kthvalue", input, axis)
    size = input._data.shape[axis] if input._data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    return _select_along(Kthvalue, input, axis, keepdim, _kth_smallest(int(k)), return_types.kthvalue)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest, at ties) and its last index.

        >>> import minitorch
        >>> minitorch.tensor([2.0, 1.0, 2.0, 1.0, 3.0]).mode()
        minitorch.return_types.mode(
        values=tensor(1.),
        indices=tensor(3))
    """
    axis = wrap_dim(dim, input._data.ndim)
    _check_reduction_dim("mode", input, axis)
    return _select_along(Mode, input, axis, keepdim, _most_frequent, return_types.mode)


# -- quantiles ----------------------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name: str, x: Tensor, q, dim, keepdim: bool, interpolation: str, skip_nan: bool) -> Tensor:
    """``quantile``/``nanquantile``: sort, find each quantile's rank, and interpolate between neighbours.

    The rank of ``q`` among ``n`` sorted values is ``q (n - 1)``; ``linear`` interpolates
    between the values at ``floor`` and ``ceil`` of it, ``midpoint`` takes their average,
    ``lower``/``higher``/``nearest`` round the rank. Only the sort and the interpolation
    depend on ``x``, so the gradient flows back through them (PyTorch's composition).
    """
    xp = x._xp
    scalar_q = not isinstance(q, Tensor)
    if scalar_q and not 0 <= q <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q:g}")
    if x._data.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if not scalar_q and q._data.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if x._data.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if not scalar_q and q._data.dtype != x._data.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if not scalar_q and not bool(((q._data >= 0) & (q._data <= 1)).all()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}"
        )
    single_q = scalar_q or q._data.ndim == 0
    probabilities = xp.asarray(q if scalar_q else q._data, dtype=x._data.dtype).reshape(-1)
    if dim is None:
        values, axis = x.reshape(-1), 0
        kept_shape = (1,) * x._data.ndim
    else:
        axis = wrap_dim(dim, x._data.ndim)
        values = x if x._data.ndim else x.reshape(1)
        kept_shape = tuple(1 if d == axis else size for d, size in enumerate(x._data.shape))
    ordered = sort(values, axis).values.movedim(axis, -1)  # NaN sorts last
    data, count = ordered._data, ordered._data.shape[-1]
    is_nan = xp.isnan(data)
    if skip_nan:  # rank among the numbers; an all-NaN slice gets rank 0, a NaN
        ranks = probabilities * (count - is_nan.sum(axis=-1, keepdims=True) - 1).astype(data.dtype)
        ranks = xp.maximum(ranks, 0)
    else:  # a slice holding NaN gets the last rank, a NaN
        ranks = xp.where(is_nan.any(axis=-1, keepdims=True), count - 1, probabilities * (count - 1)).astype(data.dtype)
    if interpolation == "lower":
        ranks = xp.floor(ranks)
    elif interpolation == "higher":
        ranks = xp.ceil(ranks)
    elif interpolation == "nearest":
        ranks = xp.round(ranks)  # halves to even, as PyTorch's round
    below = xp.floor(ranks)
    result = ordered.gather(-1, Tensor._make(below.astype(xp.int64), x._device))
    if interpolation in ("linear", "midpoint"):
        above = ordered.gather(-1, Tensor._make(xp.ceil(ranks).astype(xp.int64), x._device))
        weights = xp.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        result = pointwise.lerp(result, above, Tensor._make(weights, x._device))
    result = result.movedim(-1, 0)  # the quantiles first, then the dimensions that were kept
    if keepdim:
        result = result.reshape((result._data.shape[0],) + kept_shape)
    return result.squeeze(0) if single_q else result


def quantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """The ``q``-quantiles of ``x`` (over ``dim``, or all elements); ``q`` is a number or a 1-D tensor.

    With a tensor ``q`` the quantiles come first: the result has shape ``(len(q), ...)``.
    A NaN in a slice makes its quantiles NaN (``nanquantile`` skips NaN instead).

        >>> import minitorch
        >>> minitorch.tensor([1.0, 2.0, 3.0, 4.0]).quantile(0.5)
        tensor(2.5000)
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, skip_nan=False)


def nanquantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """``quantile`` of the values that are not NaN (NaN only where a slice has no numbers)."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, skip_nan=True)  # PyTorch's errors say quantile


# -- searching sorted sequences, unique values (never differentiable) ------------------------------------
def searchsorted(
    sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False, side=None, sorter=None
) -> Tensor:
    """For each value, the index where it would be inserted into ``sorted_sequence`` to keep it sorted.

    ``right=False`` (``side="left"``) gives the first such index, ``right=True`` the last.
    ``sorted_sequence`` is 1-D, or has the leading dimensions of ``input`` (one sequence per
    row); ``sorter`` holds the indices that sort it, if it is not sorted itself.

        >>> import minitorch
        >>> minitorch.searchsorted(minitorch.tensor([1.0, 3.0, 5.0]), minitorch.tensor([3.0, 4.0]))
        tensor([1, 2])
    """
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if side == "left" and right:
        raise RuntimeError(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"
        )
    right = right or side == "right"
    xp, device = sorted_sequence._xp, sorted_sequence._device
    boundaries = sorted_sequence._data
    if boundaries.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"
        )
    values = input._data if isinstance(input, Tensor) else xp.asarray(input)
    for array in (boundaries, values):
        if array.dtype == bool:
            raise NotImplementedError(_messages.not_implemented_for("searchsorted_out_cpu", _dtype.bool))
    if sorter is not None:
        if sorter._data.shape != boundaries.shape:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                f"{list(boundaries.shape)}and got sorter tensor {list(sorter._data.shape)}"
            )
        boundaries = xp.take_along_axis(boundaries, sorter._data, axis=-1)
    if boundaries.ndim > 1 and boundaries.shape[:-1] != values.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            "tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(boundaries.shape)} and input value tensor {list(values.shape)}"
        )
    common = xp.result_type(boundaries, values)
    boundaries, values = boundaries.astype(common, copy=False), values.astype(common, copy=False)
    if boundaries.ndim == 1:
        positions = xp.searchsorted(boundaries, values, side="right" if right else "left")
    else:
        # one sequence per row: count the boundaries below each value (row by row, all at once), with NaN
        # the largest value, as in sorting and in the 1-D path
        rows, columns = boundaries[..., None, :], values[..., :, None]
        if right:
            below = (rows <= columns) | xp.isnan(columns)
        else:
            below = (rows < columns) | (xp.isnan(columns) & ~xp.isnan(rows))
        positions = below.sum(axis=-1)
    return Tensor._make(xp.asarray(positions, dtype=xp.int32 if out_int32 else xp.int64), device)


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each value among the sorted 1-D ``boundaries``: ``boundaries[i-1] < x <= boundaries[i]``
    gives ``i`` (``right=True``: ``boundaries[i-1] <= x < boundaries[i]``)."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def unravel_index(indices: Tensor, shape) -> tuple:
    """Flat indices into a tensor of ``shape`` turned into coordinates: one int64 tensor per dimension.

    Row-major order, as ``reshape(-1)`` flattens: coordinate ``d`` is ``index // stride_d % shape[d]``,
    where ``stride_d`` is the product of the sizes after ``d`` (PyTorch's formula, so indices outside
    the range wrap around instead of failing).

        >>> import minitorch
        >>> minitorch.unravel_index(minitorch.tensor([4, 1]), (3, 2))
        (tensor([2, 0]), tensor([0, 1]))
    """
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): argument 'indices' must be Tensor, not {type(indices).__name__}")
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    elif isinstance(shape, Sequence):
        for size in shape:
            if not isinstance(size, (int, np.integer)) or isinstance(size, bool):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(size)}")
        shape = tuple(int(size) for size in shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if 0 in shape:
        raise RuntimeError("ZeroDivisionError")  # PyTorch's integer division (or remainder) by zero
    xp = indices._xp
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    flat = indices._data.astype(xp.int64)[..., None]
    coordinates = flat // xp.asarray(strides, dtype=xp.int64) % xp.asarray(shape, dtype=xp.int64)
    return tuple(Tensor._make(coordinates[..., d].copy(), indices._device) for d in range(len(shape)))


def _unique(x: Tensor, dim, return_inverse: bool, return_counts: bool, sort_first: bool):
    """``unique`` (sorting first) and ``unique_consecutive`` (not): runs of equal elements (or slices along ``dim``).

    Sorted, equal values sit next to each other: each run becomes one value, its length is
    the count, and every element's run number is its index in the result (the inverse).
    """
    xp, data = x._xp, x._data
    if dim is None:
        rows = data.reshape(-1, 1)  # each element is a "row" of one value
    else:
        if data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        axis = wrap_dim(dim, data.ndim)
        moved = xp.moveaxis(data, axis, 0)
        if moved.shape[0] and moved[0].size == 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        rows = moved.reshape(moved.shape[0], math.prod(moved.shape[1:]))
    count = rows.shape[0]
    if sort_first:  # stable, lexicographic by row (the first column decides first)
        order = xp.lexsort(rows.T[::-1]) if rows.shape[1] > 1 else xp.argsort(rows[:, 0], kind="stable")
    else:
        order = xp.arange(count)
    ordered = rows[order]
    starts_run = xp.ones(count, dtype=bool)
    starts_run[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)  # NaN != NaN: every NaN is its own value
    kept = ordered[starts_run]
    if dim is None:
        values = kept.reshape(-1)
    else:
        values = xp.moveaxis(kept.reshape((kept.shape[0],) + moved.shape[1:]), 0, axis)
    results = [Tensor._make(values, x._device)]
    if return_inverse:
        inverse = xp.empty(count, dtype=xp.int64)
        inverse[order] = xp.cumsum(starts_run) - 1
        results.append(Tensor._make(inverse.reshape(data.shape if dim is None else (count,)), x._device))
    if return_counts:
        starts = xp.flatnonzero(starts_run)
        counts = xp.diff(xp.concatenate([starts, xp.asarray([count])])).astype(xp.int64)
        results.append(Tensor._make(counts, x._device))
    return results[0] if len(results) == 1 else tuple(results)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """The distinct values of ``input`` (or distinct slices along ``dim``), sorted; optionally where each element
    went (``return_inverse``) and how often each value occurs (``return_counts``).

    PyTorch's CPU kernel sorts even with ``sorted=False``, and so does minitorch.

        >>> import minitorch
        >>> minitorch.unique(minitorch.tensor([3, 1, 3, 2]), return_counts=True)
        (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    return _unique(input, dim, return_inverse, return_counts, sort_first=True)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """``input`` with each run of consecutive equal elements (or slices along ``dim``) collapsed into one.

        >>> import minitorch
        >>> minitorch.unique_consecutive(minitorch.tensor([1, 1, 2, 1]))
        tensor([1, 2, 1])
    """
    return _unique(input, dim, return_inverse, return_counts, sort_first=False)
