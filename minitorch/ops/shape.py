"""Shape ops: the same numbers arranged differently (reshape, view, permute, cat, split...).

Most return *views* that share memory with their input (as NumPy's do); their backward
rearranges the gradient the opposite way: ``reshape`` reshapes it back, ``permute``
applies the inverse permutation, ``expand`` sums over the broadcast dimensions.

Ops with several inputs or outputs mirror each other: the gradient of ``cat`` is the
incoming gradient *split* into one piece per input, and the gradient of ``split`` is the
pieces' gradients *concatenated*; ``stack`` and ``unbind`` pair up the same way.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype, _messages
from .._creation import zeros
from .._memory_format import preserved_copy
from .._shapes import broadcast_shapes as common_shape, expand_mismatch
from .._tensor_base import Size, TensorBase as Tensor  # the class sits above the ops
from ..autograd._lent_ops import lend_to_autograd
from ..autograd.function import Op
from . import indexing
from ._util import array_module, cast, normalize_dims, shape_argument, sizes_given, wrap_dim
from .conversion import to


# -- reshape and view --------------------------------------------------------------------
def _infer_size(shape, numel: int) -> tuple:
    """Resolve one ``-1`` in ``shape`` and check the element count, with PyTorch's messages."""
    shape = list(shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[unknown[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _view_or_none(array, shape):
    """``array`` seen with ``shape`` without copying, or None when its strides do not allow it."""
    view = array.view()
    try:
        view.shape = shape  # NumPy refuses (rather than copying) when strides don't allow it
    except AttributeError:
        return None
    return view


class Reshape(Op):
    """``y = x`` with a new shape, copied (its layout allowed no view);  ``dx = grad.reshape(x.shape)``."""

    node_name = "UnsafeViewBackward0"  # PyTorch's name for a reshape that had to copy

    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        return x.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape), None


class View(Reshape):
    """``y = x`` seen with a new shape, always sharing memory;  ``dx = grad.reshape(x.shape)``."""

    node_name = "ViewBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        view = _view_or_none(x, shape)
        if view is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                "across two contiguous subspaces). Use .reshape(...) instead."
            )
        return view


def reshape(input: Tensor, *sizes, shape=None) -> Tensor:
    """``x`` with a new shape: a view when the memory layout allows one (as ``view``), else a copy."""
    target = _infer_size(shape_argument(sizes_given(sizes, shape, "shape", "reshape")), input._data.size)
    if target == input._data.shape:
        if input._requires_grad:
            return View.apply(input, target)
        # an alias, no node needed
        return Tensor._make(input._data, input._device, version_counter=input._version_counter)
    if input._data.flags.c_contiguous or _view_or_none(input._data, target) is not None:
        return View.apply(input, target)  # shares x's memory and version counter, like PyTorch's reshape
    return Reshape.apply(input, target)


def view(x: Tensor, *shape) -> Tensor:
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
        return to(x, shape[0])  # view(dtype) is only supported for same-size dtypes in PyTorch; a cast is close
    return View.apply(x, _infer_size(shape_argument(shape), x._data.size))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim..end_dim`` into one (a view when possible).

        >>> import minitorch
        >>> minitorch.zeros(2, 3, 4).flatten(1).shape
        minitorch.Size([2, 12])
    """
    ndim = input._data.ndim
    if ndim == 0:
        return reshape(input, (1,))
    start, end = wrap_dim(start_dim, ndim), wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input  # nothing to merge: PyTorch returns the input itself
    shape = input._data.shape
    return reshape(input, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """Split dimension ``dim`` into ``sizes`` (one of them may be -1)."""
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = input._data.shape
    dim = wrap_dim(dim, input._data.ndim)
    known = math.prod(s for s in sizes if s != -1)
    fits = known == shape[dim] if -1 not in sizes else known != 0 and shape[dim] % known == 0
    if not fits or sizes.count(-1) > 1:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} ({shape[dim]}) in the "
            "input tensor"
        )
    return reshape(input, shape[:dim] + sizes + shape[dim + 1:])


# -- adding and removing size-1 dimensions -------------------------------------------------
class Squeeze(Op):
    """``y = x`` without some of its size-1 dimensions (a view);  ``dx = grad.reshape(x.shape)``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, dims):
        ctx.input_shape = x.shape
        return x.squeeze(axis=dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape), None


class SqueezeDim(Squeeze):
    node_name = "SqueezeBackward1"  # PyTorch numbers its overloads: squeeze(), squeeze(dim), squeeze(dims)


class SqueezeDims(Squeeze):
    node_name = "SqueezeBackward2"


def squeeze(input: Tensor, dim=None) -> Tensor:
    """Remove dimensions of size 1 (all of them, or those in ``dim`` that have size 1)."""
    shape, ndim = input._data.shape, input._data.ndim
    if dim is None:
        return Squeeze.apply(input, tuple(axis for axis, extent in enumerate(shape) if extent == 1))
    if isinstance(dim, (tuple, list)):
        axes = normalize_dims(dim, ndim) if ndim else ()
        return SqueezeDims.apply(input, tuple(axis for axis in axes if shape[axis] == 1))
    axis = wrap_dim(dim, ndim)
    return SqueezeDim.apply(input, (axis,) if ndim and shape[axis] == 1 else ())


class Unsqueeze(Op):
    """``y = x`` with a new size-1 dimension at ``dim`` (a view);  ``dx = grad.reshape(x.shape)``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.input_shape = x.shape
        return array_module(x).expand_dims(x, dim)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape), None


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    return Unsqueeze.apply(input, wrap_dim(dim, input._data.ndim + 1))


# -- reordering dimensions -------------------------------------------------------------------
class Permute(Op):
    """``y = x`` with dimensions reordered, ``y.shape[i] = x.shape[dims[i]]`` (a view);
    ``dx = grad.permute(inverse)``, where the inverse permutation puts each dimension back."""

    is_view = True

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return x.transpose(dims)

    @staticmethod
    def backward(ctx, grad):
        inverse = sorted(range(len(ctx.dims)), key=ctx.dims.__getitem__)
        return permute(grad, *inverse), None


def permute(input: Tensor, *order, dims=None) -> Tensor:
    dims = shape_argument(sizes_given(order, dims, "dims", "permute"))
    ndim = input._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            f"ordering of dimensions i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
        )
    axes = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(axes)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(input, axes)


def movedim(input: Tensor, source, destination) -> Tensor:
    """Move dimensions ``source`` to positions ``destination``; the others keep their order."""
    sources = (source,) if isinstance(source, int) else tuple(source)
    destinations = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(sources) != len(destinations):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(sources)} dims) should contain the same "
            f"number of dims as destination ({list(destinations)} dims)"
        )
    ndim = input._data.ndim
    wrapped_sources = [wrap_dim(d, ndim) for d in sources]
    wrapped_destinations = [wrap_dim(d, ndim) for d in destinations]
    checks = (("source", sources, wrapped_sources), ("destination", destinations, wrapped_destinations))
    for name, given, wrapped in checks:
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    order = [None] * ndim
    for src, dst in zip(wrapped_sources, wrapped_destinations):
        order[dst] = src
    remaining = iter(axis for axis in range(ndim) if axis not in wrapped_sources)
    return Permute.apply(input, tuple(axis if axis is not None else next(remaining) for axis in order))


class Transpose(Op):
    """``y = x`` with dimensions ``dim0`` and ``dim1`` swapped (a view);  ``dx = grad.transpose(dim0, dim1)``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return x.swapaxes(dim0, dim1) if x.ndim else x.view()

    @staticmethod
    def backward(ctx, grad):
        return transpose(grad, *ctx.dims), None, None


class T(Transpose):
    """``y = x.t()``: the transpose of a matrix (vectors and scalars are returned as they are)."""


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    ndim = input._data.ndim
    return Transpose.apply(input, wrap_dim(dim0, ndim), wrap_dim(dim1, ndim))


swapdims = transpose


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """``transpose`` under NumPy's name and argument names."""
    return transpose(input, axis0, axis1)


def t(input: Tensor) -> Tensor:
    ndim = input._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return T.apply(input, 0, max(ndim - 1, 0))


# -- repeating ---------------------------------------------------------------------------------
def expand(x: Tensor, *sizes) -> Tensor:
    """Broadcast ``x`` to ``sizes`` without copying; ``-1`` keeps a dimension's size."""
    sizes = shape_argument(sizes)
    shape = x._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(shape)}}}, size=[{', '.join(map(str, sizes))}]): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    mismatch = expand_mismatch(shape, sizes)
    if mismatch is not None:
        raise RuntimeError(mismatch)
    leading = len(sizes) - len(shape)
    target = tuple(sizes[:leading]) + tuple(extent if wanted == -1 else wanted
                                            for wanted, extent in zip(sizes[leading:], shape))
    if target == shape:
        return x
    return Expand.apply(x, target)


class Expand(Op):
    """``y = x`` broadcast to a larger shape (a read-only view);  ``dx = grad`` summed back to ``x.shape``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        return np.broadcast_to(x, shape)  # read-only, stride 0 where a dimension repeats (CuPy's, for a CuPy array)

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.input_shape), None


def broadcast_to(input: Tensor, size) -> Tensor:
    return expand(input, size)


class Repeat(Op):
    """``y = x`` tiled ``repeats[i]`` times along dimension ``i`` (a copy);
    ``dx = sum over the copies of grad``: seen as shape ``(r0, s0, r1, s1, ...)``, copy number
    ``k`` along dimension ``i`` is index ``k`` of axis ``2i``, so the copies are summed over the even axes."""

    @staticmethod
    def forward(ctx, x, repeats):
        ctx.input_shape, ctx.repeats = x.shape, repeats
        return array_module(x).tile(x, repeats)

    @staticmethod
    def backward(ctx, grad):
        repeats, input_shape = ctx.repeats, ctx.input_shape
        if not repeats:
            return grad, None
        padded = (1,) * (len(repeats) - len(input_shape)) + tuple(input_shape)  # extra leading dims act as size 1
        interleaved = tuple(extent for pair in zip(repeats, padded) for extent in pair)
        copies_summed = grad.reshape(interleaved).sum(tuple(range(0, 2 * len(repeats), 2)))
        return copies_summed.reshape(input_shape), None


def repeat(x: Tensor, *sizes) -> Tensor:
    """Tile ``x``: ``sizes[i]`` copies along dimension ``i`` (extra leading sizes add dimensions)."""
    repeats = shape_argument(sizes)
    shape = x._data.shape
    if len(repeats) < len(shape):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = (1,) * (len(repeats) - len(shape)) + shape
    result_shape = [r * s for r, s in zip(repeats, padded)]
    negative = [r for r in repeats if r < 0]
    if negative:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(result_shape)}: {result_shape}")
    return Repeat.apply(x, repeats)


def tile(input: Tensor, *repeats, dims=None) -> Tensor:
    """Like ``repeat``, but too few ``dims`` are padded with 1s at the front."""
    repeats = shape_argument(sizes_given(repeats, dims, "dims", "tile"))
    missing = input._data.ndim - len(repeats)
    return repeat(input, (1,) * missing + repeats if missing > 0 else repeats)


# -- joining and splitting -------------------------------------------------------------------
def _check_tensor_list(tensors, name: str) -> list:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}"
        )
    for position, tensor in enumerate(tensors):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 0, but got {type(tensor).__name__}")
    return list(tensors)


def _promote_all(tensors: list) -> list:
    """Cast every tensor to their common dtype (PyTorch's promotion): ``cat([int, float])`` is float."""
    first = tensors[0]._data.dtype
    if all(t._data.dtype == first for t in tensors):
        return tensors
    common = _dtype.result_type(*tensors)
    return [cast(t, common) for t in tensors]


class Cat(Op):
    """``y = [x_0, x_1, ...]`` joined along ``dim``;  ``dx_i`` = the slice of ``grad`` where ``x_i`` went."""

    @staticmethod
    def forward(ctx, dim, *arrays):
        ctx.dim, ctx.sizes = dim, tuple(a.shape[dim] for a in arrays)
        return array_module(arrays[0]).concatenate(arrays, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return (None, *split(grad, list(ctx.sizes), ctx.dim))


def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension; all other sizes must match.

        >>> import minitorch
        >>> minitorch.cat([minitorch.zeros(2, 3), minitorch.ones(1, 3)]).shape
        minitorch.Size([3, 3])
    """
    tensors = _check_tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for position, tensor in enumerate(tensors):
        if tensor._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {position}) cannot be concatenated")
    # A legacy rule PyTorch keeps: 1-D empty tensors are skipped, whatever the others' shape.
    numbered = [(n, t) for n, t in enumerate(tensors) if t._data.shape != (0,)] or list(enumerate(tensors))
    reference = numbered[0][1]._data.shape
    dim = wrap_dim(dim, len(reference))
    for number, tensor in numbered:
        shape = tensor._data.shape
        if len(shape) != len(reference):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(reference)} and {len(shape)}")
        for axis, (expected, got) in enumerate(zip(reference, shape)):
            if axis != dim and expected != got:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size {expected} but got size "
                    f"{got} for tensor number {number} in the list."
                )
    return Cat.apply(dim, *_promote_all([t for _, t in numbered]))


concat = concatenate = cat


class Stack(Op):
    """``y = [x_0, x_1, ...]`` joined along a new dimension ``dim``;  ``dx_i = grad.select(dim, i)``."""

    @staticmethod
    def forward(ctx, dim, *arrays):
        ctx.dim = dim
        return array_module(arrays[0]).stack(arrays, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return (None, *unbind(grad, ctx.dim))


@lend_to_autograd
def stack(tensors, dim: int = 0) -> Tensor:
    """Join equally shaped tensors along a new dimension ``dim``."""
    tensors = _check_tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]._data.shape
    for entry, tensor in enumerate(tensors):
        if tensor._data.shape != first:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 and "
                f"{list(tensor._data.shape)} at entry {entry}"
            )
    return Stack.apply(wrap_dim(dim, len(first) + 1), *_promote_all(tensors))


def _at_least(tensor: Tensor, ndim: int) -> Tensor:
    shape = tensor._data.shape
    return tensor if len(shape) >= ndim else reshape(tensor, (1,) * (ndim - len(shape)) + shape)


def hstack(tensors) -> Tensor:
    """Join along the columns: dimension 1, or 0 for 1-D tensors."""
    tensors = [_at_least(t, 1) for t in _check_tensor_list(tensors, "hstack")]
    return cat(tensors, 0 if tensors and tensors[0]._data.ndim == 1 else 1)


def vstack(tensors) -> Tensor:
    """Join along the rows (dimension 0), treating 1-D tensors as rows."""
    return cat([_at_least(t, 2) for t in _check_tensor_list(tensors, "vstack")], 0)


def _pieces_share_memory(x: Tensor, pieces: tuple) -> tuple:
    """Every piece is a view of ``x``: give them all its version counter (``Op.apply`` does it for the first)."""
    base = x if x._base is None else x._base
    for piece in pieces[1:]:
        piece._version_counter = x._version_counter
        piece._base, piece._base_history = base, pieces[0]._base_history
        piece._view_made_without_grad = pieces[0]._view_made_without_grad
    return pieces


class Split(Op):
    """``y_0, y_1, ... = consecutive pieces of x`` along ``dim`` (views);  ``dx = cat(grads, dim)``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, sizes, dim):
        ctx.dim = dim
        boundaries = list(_running_sums(sizes))[:-1]
        return tuple(array_module(x).split(x, boundaries, axis=dim))

    @staticmethod
    def backward(ctx, *grads):
        return cat(list(grads), ctx.dim), None, None


class SplitWithSizes(Split):
    """``split`` given a list of sizes rather than one size."""


def _running_sums(sizes):
    total = 0
    for size in sizes:
        total += size
        yield total


def _split_dim(x: Tensor, dim: int) -> int:
    if x._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    return wrap_dim(dim, x._data.ndim)


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Pieces of ``tensor`` along ``dim``: each of size ``split_size`` (the last may be smaller), or of the given
    sizes."""
    dim = _split_dim(tensor, dim)
    extent = tensor._data.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = tuple(int(s) for s in split_size_or_sections)
        if any(s < 0 for s in sizes):
            raise RuntimeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={list(sizes)}"
            )
        if sum(sizes) != extent:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {extent} (input tensor's size at dimension "
                f"{dim}), but got split_sizes={list(sizes)}"
            )
        return _pieces_share_memory(tensor, SplitWithSizes.apply(tensor, sizes, dim))
    size = int(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0 and extent != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {extent}")
    return _pieces_share_memory(tensor, Split.apply(tensor, _even_sizes(extent, size), dim))


def _even_sizes(extent: int, size: int) -> tuple:
    """``extent`` cut into pieces of ``size`` and one smaller remainder; one empty piece if ``extent`` is 0."""
    if extent == 0:
        return (0,)
    whole, remainder = divmod(extent, size)
    return (size,) * whole + ((remainder,) if remainder else ())


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """``chunks`` nearly equal pieces along ``dim`` (fewer if the size does not allow that many)."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = _split_dim(input, dim)
    extent = input._data.shape[dim]
    sizes = (0,) * chunks if extent == 0 else _even_sizes(extent, -(-extent // chunks))
    return _pieces_share_memory(input, Split.apply(input, sizes, dim))


class Unbind(Op):
    """``y_i = x.select(dim, i)`` for every ``i`` (views);  ``dx = stack(grads, dim)``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return tuple(array_module(x).moveaxis(x, dim, 0))  # iterating an array yields views of its slices

    @staticmethod
    def backward(ctx, *grads):
        return stack(list(grads), ctx.dim), None


def unbind(input: Tensor, dim: int = 0) -> tuple:
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _pieces_share_memory(input, Unbind.apply(input, wrap_dim(dim, input._data.ndim)))


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` elements of ``x`` along ``dim`` from ``start`` (a view): ``x[..., start:start + length, ...]``."""
    dim = wrap_dim(dim, input._data.ndim)
    start, length = int(start), int(length)
    extent = input._data.shape[dim]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -extent <= start <= extent:
        raise IndexError(f"start out of range (expected to be in range of [{-extent}, {extent}], but got {start})")
    if start < 0:
        start += extent
    if start + length > extent:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({extent}).")
    return indexing.Slice.apply(input, (slice(None),) * dim + (slice(start, start + length), Ellipsis))


# -- reversing and rotating --------------------------------------------------------------------
class Flip(Op):
    """``y = x`` in reverse order along ``dims`` (a copy, as in PyTorch);  ``dx = grad`` flipped back."""

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return array_module(x).flip(x, dims).copy()

    @staticmethod
    def backward(ctx, grad):
        return flip(grad, ctx.dims), None


def flip(input: Tensor, *axes, dims=None) -> Tensor:
    axes = shape_argument(sizes_given(axes, dims, "dims", "flip"))
    axes = normalize_dims(axes, input._data.ndim) if input._data.ndim else ()
    return Flip.apply(input, axes)


class Roll(Op):
    """``y = x`` shifted cyclically by ``shifts`` along ``dims`` (flattened when ``dims`` is None);
    ``dx = grad`` shifted back by ``-shifts``."""

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return array_module(x).roll(x, shifts, axis=dims)

    @staticmethod
    def backward(ctx, grad):
        return roll(grad, tuple(-s for s in ctx.shifts), ctx.dims), None, None


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    shifts = (int(shifts),) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return Roll.apply(input, shifts, None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return Roll.apply(input, shifts, tuple(wrap_dim(d, input._data.ndim) for d in dims))


# -- copies ------------------------------------------------------------------------------------
class Clone(Op):
    """``y = a copy of x`` (same memory layout);  ``dx = grad``."""

    @staticmethod
    def forward(ctx, x):
        return preserved_copy(x)  # the strides' order kept, as PyTorch's clone keeps it (_memory_format.py)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Contiguous(Op):
    """``y = a row-major (C-order) copy of x``;  ``dx = grad``."""

    node_name = "CloneBackward0"  # PyTorch's contiguous() is a clone in row-major layout

    @staticmethod
    def forward(ctx, x):
        return x.copy(order="C")

    @staticmethod
    def backward(ctx, grad):
        return grad


def clone(input: Tensor) -> Tensor:
    return Clone.apply(input)


def contiguous(x: Tensor) -> Tensor:
    """``x`` itself when its memory is row-major already, else a row-major copy."""
    return x if x._data.flags.c_contiguous else Contiguous.apply(x)


def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of ``shapes`` broadcast to (``torch.broadcast_shapes``), or PyTorch's error."""
    normalized = [(shape,) if isinstance(shape, int) else tuple(shape) for shape in shapes]
    for shape in normalized:
        for extent in shape:
            if extent < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {extent}: {list(shape)}")
    return Size(common_shape(*normalized))


def broadcast_tensors(*tensors) -> tuple:
    """Each tensor expanded (as a view) to the common broadcast shape (``torch.broadcast_tensors``)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    target = broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(expand(t, target) for t in tensors)


# -- more splitting, selecting and repeating ----------------------------------------------------------
def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """Views of ``x`` along ``dim``: ``sections`` nearly equal pieces (the first ones one longer), or the pieces
    between ``indices`` (``x[:i0], x[i0:i1], ..., x[ik:]``, Python slicing rules)."""
    if input._data.ndim == 0:
        raise RuntimeError(
            f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with {input._data.ndim} dims"
        )
    if isinstance(indices_or_sections, Tensor):
        given = indices_or_sections
        if given._data.dtype.kind not in "iu":
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                f"{given.dtype.type_name}"
            )
        if given._data.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, "
                f"but got a tensor with {given._data.ndim} dims"
            )
        indices_or_sections = given.item() if given._data.ndim == 0 else given.tolist()
    dim = wrap_dim(dim, input._data.ndim)
    if isinstance(indices_or_sections, (list, tuple)):
        boundaries = [int(i) for i in indices_or_sections]
        starts, stops = [None] + boundaries, boundaries + [None]
    else:
        sections = int(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, longer = divmod(input._data.shape[dim], sections)
        sizes = [base + 1] * longer + [base] * (sections - longer)
        stops = list(_running_sums(sizes))
        starts = [0] + stops[:-1]
    leading = (slice(None),) * dim
    pieces = (leading + (slice(start, stop), Ellipsis) for start, stop in zip(starts, stops))
    return tuple(indexing.Slice.apply(input, key) for key in pieces)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """``x[..., index, ...]`` with ``index`` in dimension ``dim`` (a view one dimension smaller)."""
    return indexing.Select.apply(input, indexing.select_key(input, dim, index))


def repeat_interleave(input: Tensor, repeats=None, dim: int | None = None, *, output_size: int | None = None) -> Tensor:
    """Repeat each element (or each slice along ``dim``) ``repeats`` times, in place: ``[a, b] -> [a, a, b, b]``.

    It reads ``input`` at the indices ``0, 0, 1, 1, ...`` (``index_select``), so the gradient of each
    element is the sum over its copies. With ``dim=None`` ``input`` is flattened first. Called with
    only a tensor of counts, it returns those indices themselves.
    """
    if repeats is None:  # repeat_interleave(counts): the indices 0, 0, 1, ... of the form above
        counts = _repeat_counts(input)
        return Tensor._make(_on_device(np.repeat(np.arange(counts.size), counts), input), input._device)
    if dim is None:
        input = reshape(input, (-1,))
        dim = 0
    dim = wrap_dim(dim, input._data.ndim)
    if input._data.ndim == 0:
        input = reshape(input, (1,))
    extent = input._data.shape[dim]
    if isinstance(repeats, Tensor):
        counts = _repeat_counts(repeats, extent, dim)
    else:
        if int(repeats) < 0:
            raise RuntimeError("Repeats must be non-negative")
        counts = int(repeats)
    positions = _on_device(np.repeat(np.arange(extent), counts), input)
    return indexing.IndexSelect.apply(input, (slice(None),) * dim + (positions, Ellipsis))


def _on_device(array, like: Tensor):
    """A NumPy array of indices moved to ``like``'s device (they are built on the host, like Python indices)."""
    return array if like._device.type == "cpu" else like._device.backend.to_device(array, like._device.index)


def _repeat_counts(repeats: Tensor, extent: int | None = None, dim: int = 0):
    """The counts of ``repeat_interleave`` as a NumPy array (of ``extent`` integers if given), checked as in PyTorch."""
    if repeats._data.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats._data.dtype.kind not in "iu":
        raise NotImplementedError(_messages.not_implemented_for("repeat_interleave_cpu", repeats.dtype))
    data = repeats._device.backend.to_host(repeats._data).reshape(-1)
    if extent is not None and data.size == 1:  # one count for every slice
        data = np.full(extent, int(data[0]))
    elif extent is not None and data.size != extent:
        raise RuntimeError(
            f"repeats must have the same size as input along dim, but got repeats.size(0) = {data.size} and "
            f"input.size({dim}) = {extent}"
        )
    if (data < 0).any():
        raise RuntimeError("repeats can not be negative")
    return data


class Unfold(Op):
    """``y[..., i, ..., j] = x[..., i * step + j, ...]``: windows of ``size`` along ``dim``, ``step`` apart,
    as a new last dimension (a view);  ``dx[..., i * step + j, ...] += grad[..., i, ..., j]``
    (overlapping windows add their gradients)."""

    is_view = True

    @staticmethod
    def forward(ctx, x, dim, size, step):
        ctx.input_shape, ctx.window = x.shape, (dim, size, step)
        # Overlapping windows share memory: like ``expand``, such a view is read-only. (CuPy arrays have no
        # read-only flag, and its sliding_window_view takes no ``writeable``.)
        flags_writeable = getattr(x.flags, "writeable", None)
        options = {} if flags_writeable is None else {"writeable": step >= size and flags_writeable}
        windows = array_module(x).lib.stride_tricks.sliding_window_view(x, size, axis=dim, **options)
        return windows[(slice(None),) * dim + (slice(None, None, step), Ellipsis)]

    @staticmethod
    def backward(ctx, grad):
        return UnfoldBackward.apply(grad, ctx.input_shape, *ctx.window), None, None, None


class UnfoldBackward(Op):
    """``y = zeros(shape)`` with ``y[..., i * step + j, ...] += g[..., i, ..., j]``;
    ``dg = grad.unfold(dim, size, step)``."""

    @staticmethod
    def forward(ctx, g, shape, dim, size, step):
        ctx.window = (dim, size, step)
        xp = array_module(g)
        result = xp.zeros(shape, dtype=g.dtype)
        count = g.shape[dim]
        # positions[i, j] = i * step + j: where window i's element j came from
        positions = xp.arange(count).reshape(-1, 1) * step + xp.arange(size)
        indexing._add_at(xp.moveaxis(result, dim, -1), (Ellipsis, positions), xp.moveaxis(g, dim, -2))
        return result

    @staticmethod
    def backward(ctx, grad):
        return Unfold.apply(grad, *ctx.window), None, None, None, None


def unfold(x: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every window of ``size`` elements along ``dimension``, ``step`` apart, as a new last dimension (a view).

        >>> import minitorch
        >>> minitorch.arange(5).unfold(0, 2, 1).tolist()
        [[0, 1], [1, 2], [2, 3], [3, 4]]
    """
    dim = wrap_dim(dimension, x._data.ndim)
    extent = x._data.shape[dim] if x._data.ndim else 1
    size, step = int(size), int(step)
    if size > extent:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {extent} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if x._data.ndim == 0:  # PyTorch's answer for a 0-d tensor: its one element, or nothing
        return indexing.Slice.apply(reshape(x, (1,)), (slice(0, size), Ellipsis))
    return Unfold.apply(x, dim, size, step)


# -- grids and products of sets ---------------------------------------------------------------------
def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids: output ``i`` holds ``tensors[i]`` along its own dimension, repeated along the others.

    ``indexing="ij"`` gives dimension ``i`` to tensor ``i``; ``"xy"`` (NumPy's default, the
    Cartesian convention) swaps the first two. Each grid is an ``expand`` view: no copying.
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning, stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    tensors = _check_tensor_list(tensors, "meshgrid")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for tensor in tensors:
        if tensor._data.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {tensor._data.ndim}D tensor"
            )
        if tensor._data.dtype != tensors[0]._data.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        axes[0], axes[1] = 1, 0
    sizes = [tensor._data.size for tensor in tensors]
    grid_shape = [0] * len(tensors)
    for axis, size in zip(axes, sizes):
        grid_shape[axis] = size
    grids = []
    for axis, tensor in zip(axes, tensors):
        along_axis = [1] * len(tensors)
        along_axis[axis] = grid_shape[axis]
        grids.append(expand(reshape(tensor, tuple(along_axis)), tuple(grid_shape)))
    return tuple(grids)


def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element from each 1-D tensor, as rows: ``cartesian_prod(a, b)[k] = (a[i], b[j])``."""
    for tensor in tensors:
        if tensor._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(tensor._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([reshape(grid, (-1,)) for grid in meshgrid(*tensors, indexing="ij")], 1)


class BlockDiag(Op):
    """``y`` = the matrices on the diagonal of a block matrix, zeros elsewhere;
    ``dx_i`` = the block of ``grad`` where ``x_i`` went (shaped like ``x_i`` again)."""

    @staticmethod
    def forward(ctx, *arrays):
        xp = array_module(arrays[0])
        matrices = [a.reshape((1,) * (2 - a.ndim) + a.shape) for a in arrays]  # 0-d and 1-d ones are single rows
        ctx.shapes = [a.shape for a in arrays]
        ctx.corners = list(zip(_running_sums([0] + [m.shape[0] for m in matrices]),
                               _running_sums([0] + [m.shape[1] for m in matrices])))  # fmt: skip
        rows, columns = ctx.corners[-1]
        result = xp.zeros((rows, columns), dtype=arrays[0].dtype)
        for (row, column), matrix in zip(ctx.corners, matrices):
            result[row:row + matrix.shape[0], column:column + matrix.shape[1]] = matrix
        return result

    @staticmethod
    def backward(ctx, grad):
        grads = []
        for (row, column), (next_row, next_column), shape in zip(ctx.corners, ctx.corners[1:], ctx.shapes):
            grads.append(reshape(grad[row:next_row, column:next_column], shape))
        return tuple(grads)


def block_diag(*tensors) -> Tensor:
    """The block-diagonal matrix of ``tensors`` (0-d and 1-d ones count as one row); types promote."""
    for position, tensor in enumerate(tensors):
        if tensor._data.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {position} has "
                f"{tensor._data.ndim} dimensions"
            )
    if not tensors:
        return zeros(1, 0)
    return BlockDiag.apply(*_promote_all(list(tensors)))


def _at_least_each(tensors, ndim: int):
    """``atleast_Nd``'s calling conventions: one tensor gives a tensor; several, or a sequence, a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return _at_least_nd(tensors[0], ndim)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(_at_least_nd(tensor, ndim) for tensor in tensors)


def _at_least_nd(tensor: Tensor, ndim: int) -> Tensor:
    shape = tensor._data.shape
    if len(shape) >= ndim:
        return tensor
    if ndim == 3 and len(shape) >= 1:  # a vector becomes (1, n, 1) and a matrix (m, n, 1), as in NumPy
        return reshape(tensor, ((1,) if len(shape) == 1 else ()) + shape + (1,))
    return reshape(tensor, (1,) * (ndim - len(shape)) + shape)


def atleast_1d(*tensors):
    """``tensors`` with 0-d ones seen as 1-D (views)."""
    return _at_least_each(tensors, 1)


def atleast_2d(*tensors):
    """``tensors`` seen with at least 2 dimensions: a vector becomes a row ``(1, n)`` (views)."""
    return _at_least_each(tensors, 2)


def atleast_3d(*tensors):
    """``tensors`` seen with at least 3 dimensions: ``(n) -> (1, n, 1)``, ``(m, n) -> (m, n, 1)`` (views)."""
    return _at_least_each(tensors, 3)


# -- rotating and flipping matrices ------------------------------------------------------------------
class Rot90(Op):
    """``y`` = ``x`` turned ``k`` quarter turns in the plane ``dims`` (from the first axis towards the second; a copy);
    ``dx = rot90(grad, -k, dims)``: turned back."""

    @staticmethod
    def forward(ctx, x, k, dims):
        ctx.k, ctx.dims = k, dims
        return array_module(x).rot90(x, k, axes=dims).copy()

    @staticmethod
    def backward(ctx, grad):
        return Rot90.apply(grad, -ctx.k, ctx.dims), None, None


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate ``x`` by ``k * 90`` degrees in the plane of ``dims``."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    ndim = input._data.ndim
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    axes = (wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim))
    if axes[0] == axes[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    return Rot90.apply(input, int(k) % 4, axes)


def fliplr(input: Tensor) -> Tensor:
    """Reverse the columns (dimension 1): left becomes right."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    """Reverse the rows (dimension 0): up becomes down."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


# -- flattening, stacking and splitting the NumPy way ---------------------------------------------------
def ravel(input: Tensor) -> Tensor:
    """``x`` as one dimension, in row-major order: a view of a row-major ``x``, else a row-major copy
    (PyTorch's ``contiguous().view(-1)``, even where ``reshape`` could have made a strided view)."""
    return reshape(contiguous(input), (-1,))


def column_stack(tensors) -> Tensor:
    """Join along the columns (dimension 1), with 0-d and 1-d tensors seen as columns ``(n, 1)``."""
    tensors = _check_tensor_list(tensors, "column_stack")
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    columns = [reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in tensors]
    return cat(columns, 1)


def dstack(tensors) -> Tensor:
    """Join along the depth (dimension 2), after ``atleast_3d``: ``(n) -> (1, n, 1)``, ``(m, n) -> (m, n, 1)``."""
    tensors = _check_tensor_list(tensors, "dstack")
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return cat([_at_least_nd(t, 3) for t in tensors], 2)


def _split_along(x: Tensor, indices_or_sections, dim: int, name: str, min_ndim: int) -> tuple:
    """``tensor_split`` along ``dim``, except that a number of sections must divide the size exactly."""
    ndim = x._data.ndim
    if ndim < min_ndim:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a tensor with {ndim} "
            "dimensions!"
        )
    if not isinstance(indices_or_sections, (list, tuple)):
        sections, extent = int(indices_or_sections), x._data.shape[dim]
        if sections == 0 or extent % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension {extent} is not "
                f"divisible by the split_size {sections}!"
            )
    return tensor_split(x, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections) -> tuple:
    """Split along the columns: dimension 1 (dimension 0 for a vector), into equal sections or at ``indices``."""
    return _split_along(input, indices_or_sections, 1 if input._data.ndim > 1 else 0, "hsplit", 1)


def vsplit(input: Tensor, indices_or_sections) -> tuple:
    """Split along the rows (dimension 0) of a tensor with at least 2 dimensions."""
    return _split_along(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input: Tensor, indices_or_sections) -> tuple:
    """Split along the depth (dimension 2) of a tensor with at least 3 dimensions."""
    return _split_along(input, indices_or_sections, 2, "dsplit", 3)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``narrow`` as a copy: ``x[..., start:start + length, ...]`` with its own memory."""
    if int(length) < 0:  # narrow_copy words this differently from narrow
        extent = input._data.shape[wrap_dim(dim, input._data.ndim)]
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({extent}).")
    return clone(narrow(input, dim, start, length))


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The ``r``-element combinations of a vector's elements as rows, in lexicographic order of positions
    (``itertools.combinations``, or ``combinations_with_replacement``).

    Every ``r``-tuple of positions is drawn up (``n ** r`` of them, as PyTorch does), those in
    increasing order are kept (non-decreasing with replacement), and ``x`` is read at them: an
    indexing read, so each element's gradient is the sum over the rows it appears in.

        >>> import minitorch
        >>> minitorch.combinations(minitorch.tensor([1, 2, 3])).tolist()
        [[1, 2], [1, 3], [2, 3]]
    """
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    r = int(r)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:  # PyTorch's answer: an empty vector, with no history
        return Tensor._make(input._xp.empty(0, dtype=input._data.dtype), input._device)
    count = input._data.shape[0]
    positions = np.indices((count,) * r).reshape(r, -1)  # every r-tuple, in lexicographic order
    steps = np.diff(positions, axis=0)
    keep = (steps >= 0 if with_replacement else steps > 0).all(axis=0)
    chosen = _on_device(positions[:, keep].T.copy(), input)
    return indexing.Index.apply(input, (chosen, Ellipsis))
