"""Indexing: reading and writing parts of a tensor (``x[i]``, ``x[mask] = v``, gather, scatter...).

A PyTorch index (ints, slices, ``None``, ``...``, integer tensors or lists, boolean masks)
is translated once into a NumPy *key*, and everything else is NumPy's own indexing:

* a **basic** key (ints, slices, ``None``, ``...``) picks a regular grid of elements, so
  ``x[key]`` is a *view* sharing ``x``'s memory (``Slice``);
* a key with **index arrays** or masks picks arbitrary elements, possibly the same one
  twice, so ``x[key]`` is a copy (``Index``).

Either way the backward sends each element's gradient back to where it was read from:
``dx = zeros like x; dx[key] += grad`` (``AccumulateAt``). An element read twice receives
both gradients, which is why that ``+=`` must be an *unbuffered* add (``numpy.add.at``):
a plain ``dx[key] += grad`` would keep only one of them.

``gather``, ``index_select``, ``take`` and ``masked_select`` are the same read with a key
built for them; ``scatter`` and ``x[key] = v`` are the matching write (``IndexPut``).
"""

from __future__ import annotations

import numbers
import re
import warnings

import numpy as np

from .. import _autocast_state, _dtype, _messages
from .._creation import as_tensor
from .._shapes import expand_mismatch
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op
from ..autograd.grad_mode import _GradState
from . import copy_slices
from ._reduced_precision import computes_in_float32
from ._util import (  # noqa: F401 (_add_at: the other ops import it from here or from _util)
    _add_at,
    _has_integer_array,
    array_module,
    broadcast_shapes,
    cast,
    check_broadcastable,
    check_same_device,
    wrap_dim,
)
from .pointwise import where


# -- from a PyTorch index to a NumPy key ----------------------------------------------------
def _to_key(x: Tensor, index) -> tuple:
    """``index`` as a NumPy key (a tuple ending in ``...``) and whether it holds index arrays.

    The trailing ``...`` changes nothing about which elements are picked, but it makes NumPy
    return a 0-d *array* (a view) rather than a plain number when every dimension gets an int.
    """
    if type(index) is int:  # the most common case, x[i], takes the short way
        return (index, Ellipsis), False
    if type(index) is list and _sequence_as_tuple(index):
        warnings.warn(
            "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch "
            "2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, "
            "x[torch.tensor(seq)], which will result either in an error or a different result",
            UserWarning,
            stacklevel=4,
        )
        index = tuple(index)
    parts = index if type(index) is tuple else (index,)
    key = []
    has_arrays = has_ellipsis = False
    for part in parts:
        if part is None:
            key.append(None)
        elif part is Ellipsis:
            has_ellipsis = True
            key.append(part)
        elif isinstance(part, slice):
            if part.step is not None and int(part.step) <= 0:
                raise ValueError("step must be greater than zero")  # PyTorch has no negative steps: use flip()
            key.append(part)
        elif isinstance(part, (bool, np.bool_)):
            has_arrays = True  # x[True] adds a dimension, as a 0-d mask does
            key.append(bool(part))
        elif isinstance(part, (int, np.integer)):
            key.append(int(part))
        elif isinstance(part, Tensor):
            converted = _tensor_index(x, part)
            has_arrays = has_arrays or not isinstance(converted, int)
            key.append(converted)
        elif isinstance(part, (list, tuple, range, np.ndarray)):
            has_arrays = True
            key.append(_sequence_index(x, part))
        elif hasattr(part, "__index__") and not isinstance(part, float):
            key.append(part.__index__())
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                f"(got {type(part).__name__})"
            )
    if not has_ellipsis:
        key.append(Ellipsis)
    return tuple(key), has_arrays


def _sequence_as_tuple(index: list) -> bool:
    """PyTorch's old rule for a list index: ``x[[0, 1], [1, 2]]``-like lists (short, holding sequences, slices,
    tensors, None or ``...``) are read as a tuple of indices, with a deprecation warning; others are one index."""
    if len(index) >= 32:
        return False
    return any(
        item is None or item is Ellipsis or isinstance(item, (slice, Tensor, list, tuple, range, np.ndarray))
        for item in index
    )


def _tensor_index(x: Tensor, index: Tensor):
    """An index tensor as an int (0-d integer tensors select, like ints) or an array on ``x``'s device."""
    data = index._data
    kind = data.dtype.kind
    if kind not in "biu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if data.dtype == np.uint8:
        data = data.astype(bool)  # PyTorch still reads byte tensors as masks
    elif kind != "b" and data.ndim == 0:
        return int(index.item())
    if index._device is not x._device:  # a CPU index may pick from a tensor on another device
        data = x._device.backend.to_device(index._device.backend.to_host(data), x._device.index)
    return data


def _sequence_index(x: Tensor, sequence):
    """A list (or NumPy array) of ints or bools as an index array on ``x``'s device."""
    array = np.asarray(sequence)
    if array.size == 0:
        array = array.astype(np.int64)  # [] is an empty *integer* index, not a float array
    elif array.dtype.kind not in "biu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if x._device.type != "cpu":
        array = x._device.backend.to_device(array, x._device.index)
    return array


def _index_error(error: Exception, x: Tensor, key) -> IndexError:
    """NumPy's indexing error in PyTorch's words (only runs when indexing failed)."""
    text = str(error)
    if x._data.ndim == 0 and "too many indices" in text:
        return IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a "
            "0-dim tensor to a number"
        )
    match = re.match(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", text)
    if match:
        return IndexError("index {} is out of bounds for dimension {} with size {}".format(*match.groups()))
    match = re.match(r"too many indices for array: array is (\d+)-dimensional", text)
    if match:
        return IndexError(f"too many indices for tensor of dimension {match.group(1)}")
    match = re.match(r"boolean index did not match indexed array along axis (\d+)", text)
    if match:
        mask = next(part for part in key if getattr(getattr(part, "dtype", None), "kind", None) == "b")
        axis = match.group(1)
        return IndexError(
            f"The shape of the mask {list(mask.shape)} at index {axis} does not match the shape of the indexed tensor "
            f"{list(x._data.shape)} at index {axis}"
        )
    if text.startswith("shape mismatch"):
        shapes = ", ".join("[" + s.strip().rstrip(",") + "]" for s in re.findall(r"\(([^)]*)\)", text))
        return IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}")
    return IndexError(text)


# -- reading: x[key] -------------------------------------------------------------------------
class Slice(Op):
    """``y = x[key]`` for a key of ints, slices, ``None`` and ``...`` (a view of ``x``);
    ``dx = zeros like x, with dx[key] = grad``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, key):
        ctx.input_shape, ctx.key = x.shape, key
        return x[key]

    @staticmethod
    def backward(ctx, grad):
        return AccumulateAt.apply(grad, ctx.input_shape, ctx.key, False), None


# PyTorch names the node after the last step of the index: x[1] selects, x[1:] slices, x[None] unsqueezes.
class Select(Slice):
    pass


class Unsqueeze(Slice):
    pass


class Alias(Slice):
    pass


_BASIC_BY_LAST_PART = {int: Select, slice: Slice, type(None): Unsqueeze}


class Index(Op):
    """``y = x[key]`` for a key with index arrays or masks (a copy);
    ``dx = zeros like x, with grad added at key``: an element picked twice receives both gradients."""

    @staticmethod
    def forward(ctx, x, key):
        ctx.input_shape, ctx.key = x.shape, key
        # a fresh row-major array, as PyTorch's index gives (NumPy may lay the result out in another order,
        # and a following .view would then fail where PyTorch's succeeds)
        result = x[key]
        return result if result.flags.c_contiguous else result.copy(order="C")

    @staticmethod
    def backward(ctx, grad):
        return AccumulateAt.apply(grad, ctx.input_shape, ctx.key, True), None


def _padding(mode_name: str, dims: int):
    return type(f"{mode_name}Pad{dims}D", (Index,), {
        "node_name": f"{mode_name}Pad{dims}DBackward0", "__module__": __name__,
        "__doc__": f"``F.pad(mode=...)`` on {dims} axes: ``Index`` with each padded element's source position."})


# F.pad's reflect and replicate modes: the same gather, under PyTorch's node for the mode and the number of axes
PADDINGS = {(mode, dims): _padding(name, dims)
            for mode, name in (("reflect", "Reflection"), ("replicate", "Replication")) for dims in (1, 2, 3)}


class AccumulateAt(Op):
    """``y = zeros(shape); y[key] += g`` (an index that repeats adds up);  ``dg = grad[key]``.

    The backward of every read above; its own backward is the read again, so gradients of
    gradients work.
    """

    @staticmethod
    def forward(ctx, g, shape, key, has_arrays):
        ctx.key, ctx.has_arrays = key, has_arrays
        result = array_module(g).zeros(shape, dtype=g.dtype)
        if has_arrays:
            _add_at(result, key, g)
        else:
            result[key] = g  # a basic key never names an element twice
        return result

    @staticmethod
    def backward(ctx, grad):
        return _read(grad, ctx.key, ctx.has_arrays), None, None, None


def _read(x: Tensor, key, has_arrays: bool) -> Tensor:
    return (Index if has_arrays else Slice).apply(x, key)


def getitem(x: Tensor, index) -> Tensor:
    """``x[index]`` with PyTorch's rules (no negative steps) and messages.

        >>> import minitorch
        >>> x = minitorch.arange(12).reshape(3, 4)
        >>> x[1:, ::2]
        tensor([[ 4,  6],
                [ 8, 10]])
        >>> x[[0, 2], [1, 3]]
        tensor([ 1, 11])
    """
    key, has_arrays = _to_key(x, index)
    if has_arrays:
        op = Index
    else:
        last = next((part for part in reversed(key) if part is not Ellipsis), Ellipsis)
        op = _BASIC_BY_LAST_PART.get(type(last), Alias)
    try:
        return op.apply(x, key)
    except IndexError as error:
        raise _index_error(error, x, key) from None


# -- writing: x[key] = v ---------------------------------------------------------------------
class IndexPut(Op):
    """``y = x`` with ``y[key] = v`` (``y[key] += v`` when accumulating);
    ``dx = grad`` with ``dx[key] = 0`` (those elements were overwritten; when accumulating, ``dx = grad``),
    ``dv = grad[key]`` (summed by the engine to ``v``'s shape where ``v`` was broadcast)."""

    @staticmethod
    def forward(ctx, x, value, key, has_arrays, accumulate):
        ctx.key, ctx.has_arrays, ctx.accumulate = key, has_arrays, accumulate
        ctx.value_ndim = getattr(value, "ndim", 0)
        result = x.copy()
        if accumulate:
            _add_at(result, key, value)
        else:
            result[key] = value
        return result

    @staticmethod
    def backward(ctx, grad):
        grad_x = grad_value = None
        if ctx.needs_input_grad[0]:
            grad_x = grad if ctx.accumulate else IndexPut.apply(grad, 0.0, ctx.key, ctx.has_arrays, False)
        if ctx.needs_input_grad[1]:
            grad_value = _read(grad, ctx.key, ctx.has_arrays)
            extra = ctx.value_ndim - grad_value.ndim
            if extra > 0:  # v may carry leading size-1 dimensions that x[key] has not
                grad_value = grad_value.reshape((1,) * extra + tuple(grad_value.shape))
        return grad_x, grad_value, None, None, None


class SliceAssign(IndexPut):
    """``x[slices] = v``: IndexPut by another name. PyTorch writes through the view ``x[slices]``, so its
    node is the ``CopySlices`` of ``ops/copy_slices.py``; the math is the same."""

    node_name = "CopySlices"


def setitem(x: Tensor, index, value) -> None:
    """``x[index] = value``: written into ``x``'s memory, and differentiable for ``x`` and ``value``.

    With gradients recorded, the out-of-place ``IndexPut`` computes the new contents and its
    node; ``x`` then takes them over (its data in place, so views of ``x`` see the change)
    and its version counter is bumped, so backward notices if an op had saved the old ``x``.
    """
    key, has_arrays = _to_key(x, index)
    if isinstance(value, Tensor):
        if value._device is not x._device:
            if value._data.ndim == 0:
                value = value.to(x._device)  # like PyTorch, a 0-d tensor may come from another device
            else:
                check_same_device(x, value)
    elif not isinstance(value, numbers.Number):
        value = as_tensor(value, dtype=x.dtype, device=x._device)
    if isinstance(value, Tensor) and value._data.dtype != x._data.dtype and _has_integer_array(key):
        raise RuntimeError(  # PyTorch casts for x[slices] = v (a copy) but not for index arrays (index_put_)
            f"Index put requires the source and destination dtypes match, got {x.dtype.type_name} for the "
            f"destination and {value.dtype.type_name} for the source."
        )
    value_requires_grad = isinstance(value, Tensor) and value._requires_grad
    base = x._base
    try:
        if _GradState.enabled and (base is not None and base._requires_grad or x._requires_grad or value_requires_grad):
            positions = None if base is None else copy_slices.view_positions(x)
            if positions is not None:  # x is a view: the write rewrites its base's history too
                if isinstance(value, Tensor):
                    value = cast(value, x.dtype)

                def put(old_view: Tensor) -> Tensor:
                    return IndexPut.apply(old_view, value, key, has_arrays, False)

                copy_slices.write_through_view(x, positions, put, (), _store_into)
                return
            _check_inplace_allowed(x, has_arrays)
            if isinstance(value, Tensor):
                value = cast(value, x.dtype)
            result = (IndexPut if has_arrays else SliceAssign).apply(x, value, key, has_arrays, False)
            x._data[...] = result._data
            x.grad_fn, x._requires_grad, x._output_nr = result.grad_fn, result._requires_grad, result._output_nr
        else:
            x._data[key] = value._data if isinstance(value, Tensor) else value
    except IndexError as error:
        raise _index_error(error, x, key) from None
    except ValueError as error:
        raise _assignment_error(error, x, key, value, has_arrays) from None
    x._bump_version()


def _store_into(x: Tensor, result: Tensor) -> Tensor:
    """Write the new contents of the view ``x`` into its memory (``copy_slices`` then rewrites the history)."""
    x._data[...] = result._data
    x._bump_version()
    return result


def _check_inplace_allowed(x: Tensor, has_arrays: bool) -> None:
    """Refuse the write autograd cannot follow: into a leaf that requires grad."""
    if x._requires_grad and x.grad_fn is None:
        # x[basic key] = v is a write through a view of x in PyTorch, hence its message names a view
        what = "a leaf Variable" if has_arrays else "a view of a leaf Variable"
        raise RuntimeError(f"{what} that requires grad is being used in an in-place operation.")


def _assignment_error(error: ValueError, x: Tensor, key, value, has_arrays: bool = False) -> Exception:
    """NumPy's assignment errors in PyTorch's words (only runs when the write failed).

    PyTorch writes ``x[slices] = v`` as a copy into a view (``expand``'s message) but ``x[index arrays] = v``
    with ``index_put_``, which first drops the value's leading size-1 dims, then names both shapes."""
    if "read-only" in str(error):
        return RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
            "Please clone() the tensor before performing the operation."
        )
    target = list(x._data[key].shape)
    source = list(getattr(value, "shape", ()))
    if has_arrays:
        while source and source[0] == 1:
            source = source[1:]
        return RuntimeError(f"shape mismatch: value tensor of shape {source} cannot be broadcast to indexing result "
                            f"of shape {target}")
    if len(source) > len(target):
        return RuntimeError(
            f"expand(torch.FloatTensor{{{source}}}, size={target}): the number of sizes provided ({len(target)}) must "
            f"be greater or equal to the number of dimensions in the tensor ({len(source)})"
        )
    mismatch = expand_mismatch(source, target)
    return RuntimeError(mismatch if mismatch is not None else str(error))


# -- gather and scatter: one index per element, along one dimension -------------------------------
def _along_dim_key(index, dim: int) -> tuple:
    """The key that reads ``x[i][j][index[i][j][k]]`` at position ``(i, j, k)`` (for ``dim = 2``).

    Along ``dim`` the position comes from ``index``; along every other dimension it is the
    element's own coordinate, an ``arange`` shaped to broadcast against ``index``.
    """
    xp = array_module(index)
    key = []
    for axis, extent in enumerate(index.shape):
        if axis == dim:
            key.append(index)
        else:
            key.append(xp.arange(extent).reshape((extent,) + (1,) * (index.ndim - axis - 1)))
    return tuple(key)


def _check_integer_index(index, op_name: str) -> None:
    if not isinstance(index, Tensor):
        raise TypeError(f"{op_name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{op_name}(): Expected dtype int32/int64 for index")


def _check_bounds(index_array, size: int, dim: int) -> None:
    """gather and scatter take no negative indices: each must lie in ``[0, size)``."""
    outside = (index_array < 0) | (index_array >= size)
    if outside.any():
        value = int(index_array[outside][0])
        raise RuntimeError(f"index {value} is out of bounds for dimension {dim} with size {size}")


class Gather(Index):
    """``y[i][j][k] = x[i][j][index[i][j][k]]`` (for ``dim = 2``);  ``dx[i][j][index[i][j][k]] += grad[i][j][k]``."""


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """Pick one element of ``x`` along ``dim`` for each entry of ``index``; the result has ``index``'s shape.

    ``sparse_grad=True`` asks PyTorch for a sparse gradient; minitorch has only dense tensors, so the
    gradient is the same values, dense.

        >>> import minitorch
        >>> x = minitorch.tensor([[1, 2], [3, 4]])
        >>> x.gather(1, minitorch.tensor([[0, 0], [1, 0]]))
        tensor([[1, 1],
                [4, 3]])
    """
    _check_integer_index(index, "gather")
    check_same_device(input, index)
    if index._data.ndim == 0 and input._data.ndim == 1:  # PyTorch counts a 0-d index as 1-d with one element
        return gather(input, dim, index.reshape((1,))).reshape(())
    if input._data.ndim == 0:
        return gather(input.reshape((1,)), 0, index.reshape((-1,))).reshape(index.shape)
    dim = wrap_dim(dim, input._data.ndim)
    shape, index_shape = input._data.shape, index._data.shape
    if len(index_shape) != len(shape):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for axis, (wanted, available) in enumerate(zip(index_shape, shape)):
        if axis != dim and wanted > available:
            raise RuntimeError(
                f"Size does not match at dimension {axis} expected index {list(index_shape)} to be no larger than self "
                f"{list(shape)} apart from dimension {dim}"
            )
    _check_bounds(index._data, shape[dim], dim)
    return Gather.apply(input, _along_dim_key(index._data, dim))


class Scatter(IndexPut):
    """``y = x`` with ``y[i][j][index[i][j][k]] = src[i][j][k]``;  ``dx = grad`` with 0 where written,
    ``dsrc = grad.gather(dim, index)``."""


class ScatterValue(IndexPut):
    node_name = "ScatterBackward1"  # scatter(dim, index, value=number)


class ScatterAdd(IndexPut):
    """``y = x`` with ``y[i][j][index[i][j][k]] += src[i][j][k]``;
    ``dx = grad``,  ``dsrc = grad.gather(dim, index)``."""

    @staticmethod
    @computes_in_float32  # bfloat16, float16: PyTorch's scatter_add sums in float32 and rounds each sum once
    def forward(ctx, x, value, key, has_arrays, accumulate):
        return IndexPut.forward(ctx, x, value, key, has_arrays, accumulate)


class ScatterReduce(Op):
    """``y = x`` with ``src`` added or multiplied in at ``index``: PyTorch gives this form no derivative."""

    node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, x, source, key, reduce):
        result = x.copy()
        if reduce == "add":
            _add_at(result, key, source)
        else:
            array_module(x).multiply.at(result, key, source)
        return result

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::scatter is not implemented")


def _scatter_arguments(x: Tensor, dim: int, index: Tensor, src, op_name: str) -> tuple:
    """Check scatter's arguments (PyTorch's messages); return the key and ``src`` cut to ``index``'s shape."""
    _check_integer_index(index, op_name)
    check_same_device(x, index, src)
    if x._data.ndim == 1:
        # PyTorch counts a 0-d index or src as 1-d here: zeros(10).scatter_(0, tensor(3), value=1) writes one place
        if index._data.ndim == 0:
            index = index.reshape((1,))
        if isinstance(src, Tensor) and src._data.ndim == 0:
            src = src.reshape((1,))
    shape, index_shape = x._data.shape, index._data.shape
    dim = wrap_dim(dim, len(shape))
    if len(index_shape) != len(shape):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, Tensor):
        if src._data.dtype != x._data.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        if src._data.ndim != len(shape):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        source_shape = src._data.shape
        if any((a != dim and i > s) or i > o for a, (i, s, o) in enumerate(zip(index_shape, shape, source_shape))):
            raise RuntimeError(
                f"Expected index {list(index_shape)} to be no larger than self {list(shape)} apart from dimension "
                f"{dim} and to be no larger size than src {list(source_shape)}"
            )
        if source_shape != index_shape:  # only the part of src that index covers is used
            src = Slice.apply(src, tuple(slice(0, extent) for extent in index_shape) + (Ellipsis,))
    elif any(a != dim and i > s for a, (i, s) in enumerate(zip(index_shape, shape))):
        raise RuntimeError(
            f"Expected index {list(index_shape)} to be no larger than self {list(shape)} apart from dimension {dim}"
        )
    if len(shape):
        _check_bounds(index._data, shape[dim], dim)
    return _along_dim_key(index._data, dim), src


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    """A copy of ``x`` with ``src[i][j][k]`` (or ``value``) written at ``[i][j][index[i][j][k]]`` (``dim = 2``)."""
    if src is not None and not isinstance(src, Tensor):
        value, src = src, None  # scatter(dim, index, 1.5): the number is the value
    if src is None and value is None:
        raise TypeError(
            "scatter() received an invalid combination of arguments - got (int, Tensor), but expected one of:\n"
            " * (int dim, Tensor index, Tensor src)\n * (int dim, Tensor index, Number value)"
        )
    key, source = _scatter_arguments(input, dim, index, src, "scatter")
    source = source if src is not None else value
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        return ScatterReduce.apply(input, source, key, reduce)
    return (Scatter if src is not None else ScatterValue).apply(input, source, key, True, False)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``x`` with ``src[i][j][k]`` added at ``[i][j][index[i][j][k]]``; repeated indices all add."""
    key, source = _scatter_arguments(input, dim, index, src, "scatter")
    return ScatterAdd.apply(input, source, key, True, True)


# -- other reads: index_select, take, masked_select ---------------------------------------------
class IndexSelect(Index):
    """``y = x`` restricted to positions ``index`` along ``dim``;  ``dx[..., index[i], ...] += grad[..., i, ...]``."""


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    if not isinstance(index, Tensor) or index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    check_same_device(input, index)
    if input._data.ndim == 0:
        input = input.reshape((1,))
    dim = wrap_dim(dim, input._data.ndim)
    positions = index._data.reshape(-1)
    extent = input._data.shape[dim]
    outside = (positions < 0) | (positions >= extent)
    if outside.any():
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(positions[outside][0])} axis_dim={extent}")
    return IndexSelect.apply(input, (slice(None),) * dim + (positions, Ellipsis))


class Take(Index):
    """``y = x.flatten()[index]``;  ``dx.flatten()[index] += grad``."""


def take(input: Tensor, index: Tensor) -> Tensor:
    """Elements of ``x`` at ``index`` as if ``x`` were 1-D; the result has ``index``'s shape."""
    if index._data.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype.type_name}")
    check_same_device(input, index)
    count = input._data.size
    positions = index._data
    outside = (positions < -count) | (positions >= count)
    if outside.any():
        first = int(positions[outside][0])
        raise IndexError(f"out of range: tried to access index {first} on a tensor of {count} elements.")
    if input._data.ndim == 0:
        input = input.reshape((1,))
    xp = array_module(positions)
    # A flat position becomes one coordinate per dimension, so x is read where it lies, without a copy.
    coordinates = xp.unravel_index(positions % count, input._data.shape) if count else (positions,) * input._data.ndim
    return Take.apply(input, tuple(coordinates) + (Ellipsis,))


class MaskedSelect(Index):
    """``y = the elements of x where mask is True`` (a 1-D copy);  ``dx = grad`` where mask is True, 0 elsewhere."""


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    if mask._data.dtype != bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    check_same_device(input, mask)
    check_broadcastable(mask, input)  # PyTorch names the mask as tensor a
    shape = broadcast_shapes(input._data.shape, mask._data.shape)
    mask_data = mask._data
    if mask_data.shape != shape:
        mask_data = array_module(mask_data).broadcast_to(mask_data, shape)
    return MaskedSelect.apply(input.expand(shape), (mask_data, Ellipsis))


# -- masked_fill ------------------------------------------------------------------------------
class MaskedFill(Op):
    """``y = value where mask else x``;  ``dx = grad`` with 0 where mask (those were replaced),
    ``dvalue = sum of grad where mask`` (when ``value`` is a tensor)."""

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.save_for_backward(mask)
        xp = array_module(x)
        # PyTorch casts the value to x's dtype (1.7 -> 1 in an int tensor); a number stays a scalar, which the
        # device takes with the kernel's arguments instead of as an array copied over
        fill = value.astype(x.dtype) if hasattr(value, "ndim") else x.dtype.type(value)
        return xp.where(mask, fill, x)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        grad_x = grad_value = None
        if ctx.needs_input_grad[0]:
            grad_x = masked_fill(grad, mask, 0.0)
        if ctx.needs_input_grad[2]:
            unmasked = Tensor._make(mask._xp.logical_not(mask._data), mask._device)
            grad_value = masked_fill(grad, unmasked, 0.0).sum()
        return grad_x, None, grad_value


class MaskedFillTensor(MaskedFill):
    node_name = "MaskedFillBackward1"  # masked_fill(mask, value=0-d tensor)


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """A copy of ``x`` with ``value`` wherever ``mask`` (broadcast against ``x``) is True."""
    if mask._data.dtype != bool:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.cpp_name}"
        )
    check_same_device(input, mask)
    check_broadcastable(mask, input)  # PyTorch names the mask as tensor a
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} "
                "dimension(s)."
            )
        if value._device is not input._device:
            value = value.to(input._device)
        return MaskedFillTensor.apply(input, mask, cast(value, input.dtype))
    return MaskedFill.apply(input, mask, value)


# -- nonzero ----------------------------------------------------------------------------------
def nonzero(input: Tensor, *, as_tuple: bool = False):
    """Coordinates of the nonzero elements: an ``(n, x.dim())`` int64 tensor, or one 1-D tensor per dimension."""
    xp = input._xp
    if as_tuple:
        data = input._data if input._data.ndim else input._data.reshape(1)  # PyTorch treats a 0-d tensor as 1-D here
        return tuple(Tensor._make(xp.ascontiguousarray(c, dtype=np.int64), input._device) for c in xp.nonzero(data))
    return Tensor._make(xp.argwhere(input._data).astype(np.int64, copy=False), input._device)


# -- triangles ------------------------------------------------------------------------------------
class Tril(Op):
    """``y = x`` on and below the ``diagonal``-th diagonal of the last two dimensions, 0 above;
    ``dx = tril(grad)`` (the kept entries pass their gradient, the zeroed ones none)."""

    @staticmethod
    def forward(ctx, x, diagonal):
        ctx.diagonal = diagonal
        return array_module(x).tril(x, diagonal)

    @staticmethod
    def backward(ctx, grad):
        return tril(grad, ctx.diagonal), None


class Triu(Op):
    """``y = x`` on and above the ``diagonal``-th diagonal of the last two dimensions, 0 below;
    ``dx = triu(grad)``."""

    @staticmethod
    def forward(ctx, x, diagonal):
        ctx.diagonal = diagonal
        return array_module(x).triu(x, diagonal)

    @staticmethod
    def backward(ctx, grad):
        return triu(grad, ctx.diagonal), None


def _check_triangle(x: Tensor, name: str) -> None:
    if x._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of each matrix in ``x`` (a causal attention mask is ``ones(n, n).tril()``)."""
    _check_triangle(input, "tril")
    return Tril.apply(input, int(diagonal))


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of each matrix in ``x``."""
    _check_triangle(input, "triu")
    return Triu.apply(input, int(diagonal))


def _triangle_indices(name: str, triangle, row: int, col: int, offset: int, dtype, device) -> Tensor:
    for argument, value in (("row", row), ("col", col)):
        if value < 0:
            raise RuntimeError(f"{argument} must be non-negative, got{value}")
    dtype = dtype or _dtype.int64
    if dtype.is_floating_point or dtype.numpy_dtype == np.bool_:
        raise NotImplementedError(_messages.not_implemented_for(name, dtype))
    rows, columns = triangle(row, offset, col)
    return as_tensor(np.stack([rows, columns]).astype(dtype.numpy_dtype), device=device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The coordinates ``(2, n)`` of the lower triangle of a ``row x col`` matrix, row by row (``x[tuple(...)]``)."""
    return _triangle_indices("tril_indices", np.tril_indices, row, col, offset, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """The coordinates ``(2, n)`` of the upper triangle of a ``row x col`` matrix, row by row."""
    return _triangle_indices("triu_indices", np.triu_indices, row, col, offset, dtype, device)


# -- more reads and writes along one dimension ---------------------------------------------------------
def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """``gather`` with broadcasting: ``x`` and ``indices`` broadcast against each other except along ``dim``
    (with ``dim=None``, both are flattened first). The indices ``argsort`` or ``argmax(keepdim=True)`` return
    pick the matching values: ``take_along_dim(x, x.argsort(1), 1)`` is ``x`` sorted."""
    if dim is None:  # PyTorch leaves the checks to gather here
        return gather(input.reshape((-1,)), 0, indices.reshape((-1,)))
    if input._data.ndim != indices._data.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{input._data.ndim} dimensions for input, and {indices._data.ndim} dimensions for indices"
        )
    if indices._data.dtype != np.int64:
        raise RuntimeError(
            f"torch.take_along_dim(): dtype of indices should be Long but got {indices.dtype.type_name}"
        )
    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = wrap_dim(dim, input._data.ndim)
    x_shape, index_shape = list(input._data.shape), list(indices._data.shape)
    x_shape[dim] = index_shape[dim] = 1
    common = list(broadcast_shapes(tuple(x_shape), tuple(index_shape)))
    x_target, index_target = list(common), list(common)
    x_target[dim], index_target[dim] = input._data.shape[dim], indices._data.shape[dim]
    return gather(input.expand(tuple(x_target)), dim, indices.expand(tuple(index_target)))


class IndexAdd(IndexPut):
    """``y = x`` with ``y[..., index[i], ...] += source[..., i, ...]`` along ``dim`` (repeats add up);
    ``dx = grad``,  ``dsource = grad.index_select(dim, index)``."""


class IndexCopy(IndexPut):
    """``y = x`` with ``y[..., index[i], ...] = source[..., i, ...]`` along ``dim``;
    ``dx = grad`` with the overwritten slices 0,  ``dsource = grad.index_select(dim, index)``."""


def _along_dim_index(x: Tensor, dim: int, index: Tensor, source: Tensor):
    """``x``, ``source`` and the key that reaches slice ``index[i]`` along ``dim`` (0-d tensors seen as 1-D)."""
    positions = index._data.reshape(-1)
    if x._data.ndim == 0:
        x = x.reshape((1,))
    if source._data.ndim == 0:
        source = source.reshape((1,))
    return x, source, (slice(None),) * dim + (positions, Ellipsis)


def _first_outside(positions, extent: int):
    outside = (positions < 0) | (positions >= extent)
    return int(positions[outside][0]) if outside.any() else None


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """A copy of ``x`` with ``alpha * source[..., i, ...]`` added to slice ``index[i]`` along ``dim``."""
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            f"index_add_(): Expected dtype int32/int64 for index but got: {index.dtype.type_name}"
        )
    if index._data.ndim > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {index._data.ndim} with type: "
            f"{index.dtype.type_name} and size: {list(index._data.shape)}"
        )
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(
            f"index_add_(): self ({input.dtype.type_name}) and source ({source.dtype.type_name}) "
            "must have "
            "the same scalar type"
        )
    check_same_device(input, index, source)
    dim = wrap_dim(dim, input._data.ndim)
    count = index._data.size
    if source._data.ndim and dim >= source._data.ndim:
        raise RuntimeError(
            f"index_add_(): Indexing dim {dim} is out of bounds of the source tensor with dim {source._data.ndim}"
        )
    source_extent = source._data.shape[dim] if source._data.ndim else 1
    if count != source_extent:
        raise RuntimeError(
            f"index_add_(): Number of indices ({count}) should be equal to source.size(dim): ({source_extent}), for "
            f"dim: {dim}"
        )
    shape, source_shape = input._data.shape, source._data.shape
    sliced, source_sliced = shape[:dim] + shape[dim + 1:], source_shape[:dim] + source_shape[dim + 1:]
    if sliced != source_sliced or (not shape and source_shape):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
            f"{list(shape)} source.shape = {list(source_shape)}"
        )
    extent = shape[dim] if shape else 1
    outside = _first_outside(index._data, extent)
    if outside is not None:
        raise RuntimeError(f"index {outside} is out of bounds for dimension {dim} with size {extent}")
    target, source, key = _along_dim_index(input, dim, index, source)
    if alpha != 1:
        source = cast(source * alpha, input.dtype)
    result = IndexAdd.apply(target, source, key, True, True)
    return result if shape else result.reshape(shape)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``x`` with slice ``index[i]`` along ``dim`` replaced by ``source[..., i, ...]``."""
    if index._data.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index.dtype.type_name}")
    if index._data.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index._data.ndim})")
    check_same_device(input, index, source)
    dim = wrap_dim(dim, input._data.ndim)
    shape, source_shape = input._data.shape, source._data.shape
    count = index._data.size
    if input._data.ndim and source._data.ndim and source._data.ndim != input._data.ndim:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source "
            f"dimensionality ({source._data.ndim}), destination dimensionality ({input._data.ndim})"
        )
    source_extent = source_shape[dim] if source._data.ndim else 1
    if count != source_extent:
        raise IndexError(
            f"index_copy_(): Number of indices ({count}) should be equal to source.size(dim) ({source_extent})"
        )
    sliced, source_sliced = shape[:dim] + shape[dim + 1:], source_shape[:dim] + source_shape[dim + 1:]
    if input._data.ndim and sliced != source_sliced:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
            f"{' '.join(map(str, sliced))} at dimension {dim} and source slice shape: "
            f"{' '.join(map(str, source_sliced))} at dimension 0."
        )
    extent = shape[dim] if shape else 1
    outside = _first_outside(index._data, extent)
    if outside is not None:
        raise IndexError(f"index_copy_(): index {outside} is out of bounds for dimension {dim} with size {extent}")
    if _autocast_state.casts_inputs():  # on PyTorch's CPU list (promote: both to the wider dtype)
        input, source = _autocast_state.cast_inputs("promote", ("cpu",), input, source)
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{input.dtype.type_name} and (source) {source.dtype.type_name}"
        )
    target, source, key = _along_dim_index(input, dim, index, source)
    result = IndexCopy.apply(target, source, key, True, False)
    return result if shape else result.reshape(shape)


class MaskedScatter(IndexPut):
    """``y = x`` with the elements where ``mask`` is True replaced, in order, by ``source``'s first elements;
    ``dx = grad`` with 0 where ``mask``,  ``dsource`` = ``grad[mask]`` in its first elements, 0 after."""


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy of ``x`` (broadcast with ``mask``) where each True of ``mask`` takes the next element of ``source``."""
    if mask._data.dtype != bool:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype.type_name}"
        )
    if input._data.dtype != source._data.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{input.dtype.type_name} and {source.dtype.type_name}"
        )
    check_same_device(input, mask, source)
    check_broadcastable(mask, input)  # PyTorch names the mask as tensor a
    shape = broadcast_shapes(input._data.shape, mask._data.shape)
    mask_data = array_module(mask._data).broadcast_to(mask._data, shape)
    count = int(mask_data.sum())
    if count > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    used = Slice.apply(source.reshape((-1,)), (slice(0, count), Ellipsis))
    return MaskedScatter.apply(input.expand(shape), used, (mask_data, Ellipsis), True, False)


class SliceScatter(IndexPut):
    """``y = x`` with ``y[..., start:end:step, ...] = src`` along ``dim``;
    ``dx = grad`` with that slice 0,  ``dsrc = grad[..., start:end:step, ...]``."""


class SelectScatter(IndexPut):
    """``y = x`` with ``y[..., index, ...] = src`` along ``dim``;
    ``dx = grad`` with that slice 0,  ``dsrc = grad[..., index, ...]``."""


def _scatter_into_view(op, x: Tensor, src: Tensor, key) -> Tensor:
    """``op`` writing ``src`` at the basic ``key`` of a copy of ``x``; ``src`` must have exactly ``x[key]``'s shape."""
    check_same_device(x, src)
    expected = x._data[key].shape
    if src._data.shape != expected:
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src._data.shape)}, slice size = "
            f"{list(expected)}"
        )
    return op.apply(x, cast(src, x.dtype), key, False, False)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """A copy of ``x`` with ``src`` written where ``x[..., start:end:step, ...]`` (along ``dim``) reads."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    dim = wrap_dim(dim, input._data.ndim)
    return _scatter_into_view(SliceScatter, input, src, (slice(None),) * dim + (slice(start, end, step), Ellipsis))


def select_key(x: Tensor, dim: int, index: int) -> tuple:
    """The key of ``x.select(dim, index)``, ``(:, ..., :, index, ...)``, after PyTorch's checks."""
    if x._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, x._data.ndim)
    extent = x._data.shape[dim]
    index = int(index)
    if not -extent <= index < extent:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(x._data.shape)} at dimension {dim}"
        )
    return (slice(None),) * dim + (index, Ellipsis)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``x`` with ``src`` written where ``x.select(dim, index)`` reads."""
    return _scatter_into_view(SelectScatter, input, src, select_key(input, dim, index))


# -- filling slices, putting values at indices, reducing into positions -------------------------------
def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """A copy of ``x`` with the slices ``index`` along ``dim`` set to ``value`` (a number or a 0-d tensor).

    It is ``masked_fill`` with a mask that is True on those slices, so ``dx = grad`` with the filled
    slices 0 and ``dvalue`` = the sum of ``grad`` over them.
    """
    if index._data.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} "
            "dimension(s)."
        )
    check_same_device(input, index)
    ndim = input._data.ndim
    dim = wrap_dim(dim, ndim)
    extent = input._data.shape[dim] if ndim else 1
    positions = index._data.reshape(-1)
    outside = (positions < -extent) | (positions >= extent)
    if outside.any():
        raise IndexError(
            f"index {int(positions[outside][0])} is out of bounds for dimension {dim} with size {extent}"
        )
    xp = input._xp
    chosen = xp.zeros(extent, dtype=bool)
    chosen[positions] = True
    along_dim = (extent,) + (1,) * (ndim - dim - 1) if ndim else ()  # a 0-d tensor is its own one slice
    mask = xp.broadcast_to(chosen.reshape(along_dim), input._data.shape)
    return masked_fill(input, Tensor._make(mask, input._device), value)


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``x`` with ``x[indices] = values`` (``+=`` with ``accumulate``, where repeated indices all add).

    ``indices`` is a tuple of index tensors (integer or bool), one per leading dimension, exactly
    as ``x[tuple(indices)]`` reads them; ``values`` broadcasts to what that read returns.
    """
    if not isinstance(indices, (list, tuple)):
        raise TypeError(
            f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, not {type(indices).__name__}"
        )
    for position, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 0, but got {type(index).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got {input.dtype.type_name} for the "
            f"destination and {values.dtype.type_name} for the source."
        )
    check_same_device(input, values)
    indexed = sum(index._data.ndim if index._data.dtype == bool else 1 for index in indices)  # a mask spans its dims
    if indexed > input._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input._data.ndim} (got {indexed})")
    key, has_arrays = _to_key(input, tuple(indices))
    try:
        target = input._data[key].shape
    except IndexError as error:
        raise _index_error(error, input, key) from None
    try:
        np.broadcast_shapes(values._data.shape, target)
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values._data.shape)} cannot be broadcast to indexing result "
            f"of shape {list(target)}"
        ) from None
    return IndexPut.apply(input, values, key, has_arrays, bool(accumulate))


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


class ScatterReduceTwo(Op):
    """``y = x`` with each ``src[i][j][k]`` reduced into ``y[i][j][index[i][j][k]]`` (``dim = 2``) by ``reduce``
    (sum, prod, mean, amax, amin); with ``include_self=False`` the positions written to forget ``x``.

    Backward, as PyTorch's (``N`` = how many values met at a position, ``where written`` = the
    positions ``index`` names; with ``include_self=False`` those get no gradient in ``dx``):

    * sum:  ``dx = grad``,  ``dsrc = grad.gather(index)``;
    * mean: ``dx = grad / N``,  ``dsrc = (grad / N).gather(index)``;
    * prod: ``dx = grad * y / x``,  ``dsrc = (grad * y).gather(index) / src`` (with a single zero in
      a product, the product of the others in place of ``y / 0``);
    * amax, amin: the gradient is shared evenly among the values equal to the result.
    """

    node_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, x, src, key, dim, index, reduce, include_self):
        xp = array_module(x)
        ctx.dim, ctx.index, ctx.reduce, ctx.include_self = dim, index, reduce, include_self
        result = x.copy()
        if not include_self:  # the positions written to start from the reduction's identity
            result[key] = _reduction_identity(reduce, x.dtype)
        if reduce in ("sum", "mean"):
            _add_at(result, key, src)
        else:
            {"prod": xp.multiply, "amax": xp.maximum, "amin": xp.minimum}[reduce].at(result, key, src)
        if reduce == "mean":
            counts = xp.full(x.shape, 1 if include_self else 0, dtype=np.int64)
            _add_at(counts, key, xp.ones(src.shape, dtype=np.int64))
            counts = xp.maximum(counts, 1)
            floating = _dtype.is_floating(result.dtype)
            result = (result / counts if floating else xp.floor_divide(result, counts)).astype(x.dtype, copy=False)
        ctx.save_for_backward(x, src, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, src, result = ctx.saved_tensors
        dim, index, reduce = ctx.dim, Tensor._make(ctx.index, grad._device), ctx.reduce
        if reduce == "sum":
            grad_x, grad_src = grad, gather(grad, dim, index)
        elif reduce == "mean":
            xp, dtype = grad._xp, grad._data.dtype
            counts = Tensor._make(xp.full(tuple(grad.shape), 1.0 if ctx.include_self else 0.0, dtype), grad._device)
            counts = scatter_add(counts, dim, index, Tensor._make(xp.ones(tuple(src.shape), dtype), grad._device))
            counts = counts + (counts == 0)
            grad_x = grad / counts
            grad_src = gather(grad_x, dim, index)
        elif reduce == "prod":
            nonzero_x = masked_fill(x, x == 0, 1)
            others = scatter_reduce(nonzero_x, dim, index, src, "prod", include_self=ctx.include_self)
            grad_x = grad * others / nonzero_x
            src_is_zero = src == 0
            zeros_at = scatter_add(Tensor._make(x._xp.zeros(tuple(x.shape), np.int64), x._device), dim, index,
                                   src_is_zero.long())  # fmt: skip
            single_zero = src_is_zero & (gather(zeros_at, dim, index) == 1)
            others_of_src = scatter_reduce(x, dim, index, masked_fill(src, single_zero, 1), "prod",
                                           include_self=ctx.include_self)  # fmt: skip
            grad_src = gather(grad * result, dim, index) / masked_fill(src, src_is_zero, 1)
            grad_src = where(single_zero, gather(grad * others_of_src, dim, index), grad_src)
        else:  # amax, amin: shared among the values that equal the result
            x_is_result = (x == result).to(grad.dtype)
            src_is_result = (src == gather(result, dim, index)).to(grad.dtype)
            shared = grad / scatter_add(x_is_result, dim, index, src_is_result)
            grad_x = x_is_result * shared
            grad_src = src_is_result * gather(shared, dim, index)
        if not ctx.include_self:
            grad_x = scatter(grad_x, dim, index, 0.0)
        return grad_x, grad_src, None, None, None, None, None


def _reduction_identity(reduce: str, dtype):
    """The value a reduction starts from: 0 for sums, 1 for products, the lowest (highest) value for amax (amin)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if _dtype.is_floating(dtype):
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    limits = np.iinfo(dtype)
    return limits.min if reduce == "amax" else limits.max


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True):
    """A copy of ``x`` with every ``src[i][j][k]`` reduced into position ``[i][j][index[i][j][k]]`` (``dim = 2``)
    by ``reduce``: ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.

        >>> import minitorch
        >>> x = minitorch.zeros(3)
        >>> x.scatter_reduce(0, minitorch.tensor([0, 0, 2]), minitorch.tensor([1.0, 5.0, 2.0]), "amax").tolist()
        [5.0, 0.0, 2.0]
    """
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    key, source = _scatter_arguments(input, dim, index, src, "scatter")
    axis = wrap_dim(dim, input._data.ndim)
    return ScatterReduceTwo.apply(input, source, key, axis, index, reduce, bool(include_self))
