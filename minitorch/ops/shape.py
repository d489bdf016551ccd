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

from .. import _dtype
from .._tensor import Size, Tensor
from ..autograd.function import Op
from ..autograd.grad_mode import _GradState
from . import indexing
from ._util import array_module, cast, normalize_dims, shape_argument, wrap_dim
from .copy_slices import remember_view


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


def reshape(x: Tensor, *shape) -> Tensor:
    """``x`` with a new shape: a view when the memory layout allows one (as ``view``), else a copy."""
    target = _infer_size(shape_argument(shape), x._data.size)
    if target == x._data.shape:
        if x._requires_grad:
            return View.apply(x, target)
        return Tensor._make(x._data, x._device, version_counter=x._version_counter)  # an alias, no node needed
    if x._data.flags.c_contiguous or _view_or_none(x._data, target) is not None:
        return View.apply(x, target)  # shares x's memory and version counter, like PyTorch's reshape
    return Reshape.apply(x, target)


def view(x: Tensor, *shape) -> Tensor:
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
        from .conversion import to

        return to(x, shape[0])  # view(dtype) is only supported for same-size dtypes in PyTorch; a cast is close
    return View.apply(x, _infer_size(shape_argument(shape), x._data.size))


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim..end_dim`` into one (a view when possible).

        >>> import minitorch
        >>> minitorch.zeros(2, 3, 4).flatten(1).shape
        minitorch.Size([2, 12])
    """
    ndim = x._data.ndim
    if ndim == 0:
        return reshape(x, (1,))
    start, end = wrap_dim(start_dim, ndim), wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return x  # nothing to merge: PyTorch returns the input itself
    shape = x._data.shape
    return reshape(x, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


def unflatten(x: Tensor, dim: int, sizes) -> Tensor:
    """Split dimension ``dim`` into ``sizes`` (one of them may be -1)."""
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = x._data.shape
    dim = wrap_dim(dim, x._data.ndim)
    known = math.prod(s for s in sizes if s != -1)
    fits = known == shape[dim] if -1 not in sizes else known != 0 and shape[dim] % known == 0
    if not fits or sizes.count(-1) > 1:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} ({shape[dim]}) in the "
            "input tensor"
        )
    return reshape(x, shape[:dim] + sizes + shape[dim + 1:])


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


def squeeze(x: Tensor, dim=None) -> Tensor:
    """Remove dimensions of size 1 (all of them, or those in ``dim`` that have size 1)."""
    shape, ndim = x._data.shape, x._data.ndim
    if dim is None:
        return Squeeze.apply(x, tuple(axis for axis, extent in enumerate(shape) if extent == 1))
    if isinstance(dim, (tuple, list)):
        axes = normalize_dims(dim, ndim) if ndim else ()
        return SqueezeDims.apply(x, tuple(axis for axis in axes if shape[axis] == 1))
    axis = wrap_dim(dim, ndim)
    return SqueezeDim.apply(x, (axis,) if ndim and shape[axis] == 1 else ())


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


def unsqueeze(x: Tensor, dim: int) -> Tensor:
    return Unsqueeze.apply(x, wrap_dim(dim, x._data.ndim + 1))


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


def permute(x: Tensor, *dims) -> Tensor:
    dims = shape_argument(dims)
    ndim = x._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            f"ordering of dimensions i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
        )
    axes = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(axes)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(x, axes)


def movedim(x: Tensor, source, destination) -> Tensor:
    """Move dimensions ``source`` to positions ``destination``; the others keep their order."""
    sources = (source,) if isinstance(source, int) else tuple(source)
    destinations = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(sources) != len(destinations):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(sources)} dims) should contain the same "
            f"number of dims as destination ({list(destinations)} dims)"
        )
    ndim = x._data.ndim
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
    return Permute.apply(x, tuple(axis if axis is not None else next(remaining) for axis in order))


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


def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    ndim = x._data.ndim
    return Transpose.apply(x, wrap_dim(dim0, ndim), wrap_dim(dim1, ndim))


def t(x: Tensor) -> Tensor:
    ndim = x._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return T.apply(x, 0, max(ndim - 1, 0))


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
    leading = len(sizes) - len(shape)
    target = list(sizes)
    for axis, extent in enumerate(shape):
        wanted = sizes[leading + axis]
        if wanted == -1:
            target[leading + axis] = extent
        elif extent != 1 and extent != wanted:
            raise RuntimeError(
                f"The expanded size of the tensor ({wanted}) must match the existing size ({extent}) at non-singleton "
                f"dimension {leading + axis}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}"
            )
    target = tuple(target)
    if target == shape:
        return x
    return Expand.apply(x, target)


class Expand(Op):
    """``y = x`` broadcast to a larger shape (a read-only view);  ``dx = grad`` summed back to ``x.shape``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        xp = array_module(x)
        return xp.broadcast_to(x, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.input_shape), None


def broadcast_to(x: Tensor, shape) -> Tensor:
    return expand(x, shape)


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


def tile(x: Tensor, *dims) -> Tensor:
    """Like ``repeat``, but too few ``dims`` are padded with 1s at the front."""
    repeats = shape_argument(dims)
    missing = x._data.ndim - len(repeats)
    return repeat(x, (1,) * missing + repeats if missing > 0 else repeats)


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
        piece._base = base
        if base.grad_fn is not None and _GradState.enabled:
            remember_view(piece)
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


def split(x: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Pieces of ``x`` along ``dim``: each of size ``split_size`` (the last may be smaller), or of the given sizes."""
    dim = _split_dim(x, dim)
    extent = x._data.shape[dim]
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
        return _pieces_share_memory(x, SplitWithSizes.apply(x, sizes, dim))
    size = int(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0 and extent != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {extent}")
    return _pieces_share_memory(x, Split.apply(x, _even_sizes(extent, size), dim))


def _even_sizes(extent: int, size: int) -> tuple:
    """``extent`` cut into pieces of ``size`` and one smaller remainder; one empty piece if ``extent`` is 0."""
    if extent == 0:
        return (0,)
    whole, remainder = divmod(extent, size)
    return (size,) * whole + ((remainder,) if remainder else ())


def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple:
    """``chunks`` nearly equal pieces along ``dim`` (fewer if the size does not allow that many)."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = _split_dim(x, dim)
    extent = x._data.shape[dim]
    sizes = (0,) * chunks if extent == 0 else _even_sizes(extent, -(-extent // chunks))
    return _pieces_share_memory(x, Split.apply(x, sizes, dim))


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


def unbind(x: Tensor, dim: int = 0) -> tuple:
    if x._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _pieces_share_memory(x, Unbind.apply(x, wrap_dim(dim, x._data.ndim)))


def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` elements of ``x`` along ``dim`` from ``start`` (a view): ``x[..., start:start + length, ...]``."""
    dim = wrap_dim(dim, x._data.ndim)
    start, length = int(start), int(length)
    extent = x._data.shape[dim]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -extent <= start <= extent:
        raise IndexError(f"start out of range (expected to be in range of [{-extent}, {extent}], but got {start})")
    if start < 0:
        start += extent
    if start + length > extent:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({extent}).")
    return indexing.Slice.apply(x, (slice(None),) * dim + (slice(start, start + length), Ellipsis))


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


def flip(x: Tensor, *dims) -> Tensor:
    axes = normalize_dims(shape_argument(dims), x._data.ndim) if x._data.ndim else ()
    return Flip.apply(x, axes)


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


def roll(x: Tensor, shifts, dims=None) -> Tensor:
    shifts = (int(shifts),) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return Roll.apply(x, shifts, None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return Roll.apply(x, shifts, tuple(wrap_dim(d, x._data.ndim) for d in dims))


# -- copies ------------------------------------------------------------------------------------
class Clone(Op):
    """``y = a copy of x`` (same memory layout);  ``dx = grad``."""

    @staticmethod
    def forward(ctx, x):
        return x.copy(order="K")  # "K" keeps the strides' order, as PyTorch's clone keeps them

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


def clone(x: Tensor) -> Tensor:
    return Clone.apply(x)


def contiguous(x: Tensor) -> Tensor:
    """``x`` itself when its memory is row-major already, else a row-major copy."""
    return x if x._data.flags.c_contiguous else Contiguous.apply(x)


def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of ``shapes`` broadcast to (``torch.broadcast_shapes``), or PyTorch's error."""
    from ._util import broadcast_shapes as common_shape

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
