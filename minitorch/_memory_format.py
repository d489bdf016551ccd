"""Memory formats and layouts: the order in which a tensor's elements sit in memory.

A 4-D image batch ``(N, C, H, W)`` is stored row-major by default (``contiguous_format``): the
last dimension W moves fastest, strides ``(C*H*W, H*W, W, 1)``. ``channels_last`` stores the same
tensor as ``(N, H, W, C)`` would be stored, so the C values of one pixel sit side by side: strides
``(H*W*C, 1, W*C, C)``. The shape and every value stay the same; only ``stride()`` changes (and
the speed of kernels that read whole pixels at once).

    >>> import minitorch
    >>> x = minitorch.zeros(2, 3, 4, 5)
    >>> x.contiguous(memory_format=minitorch.channels_last).stride()
    (60, 1, 15, 3)

An op that makes a new tensor chooses its layout from its inputs' (``layout_of_result``): PyTorch's
elementwise ops follow the first operand that tells two axes apart (a channels-last image times a
row-major one is channels-last), and ``empty_like``/``clone`` keep a template's order. NumPy picks
its own order when operands disagree, so the ops ask here and copy in the rare case NumPy's differs.

``layout`` is the kind of storage: minitorch, like most of PyTorch, has only ``strided``.
"""

from __future__ import annotations

__all__ = [
    "memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
    "layout", "strided", "axes_in_memory_order", "is_contiguous_in", "laid_out", "layout_of_result",
    "in_layout_of_result", "dense_order", "contiguous_strides", "preserved_copy",
]


class memory_format:  # noqa: N801 - PyTorch's name
    """One of ``contiguous_format``, ``channels_last``, ``channels_last_3d``, ``preserve_format``."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __reduce__(self):
        return self.name  # pickles as the module-level singleton


class layout:  # noqa: N801 - PyTorch's name
    """How a tensor's elements are stored: ``strided`` (an offset and strides into one block)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __reduce__(self):
        return self.name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
strided = layout("strided")

# The rank each channels-last format needs, and its axes from slowest to fastest in memory.
_CHANNELS_LAST = {channels_last: (4, "channels_last", (0, 2, 3, 1)),
                  channels_last_3d: (5, "channels_last_3d", (0, 2, 3, 4, 1))}


def axes_in_memory_order(fmt: memory_format, ndim: int) -> tuple:
    """The tensor's axes from the slowest-moving to the fastest in memory under ``fmt``."""
    if fmt in _CHANNELS_LAST:
        rank, name, order = _CHANNELS_LAST[fmt]
        if ndim != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {name} format")
        return order
    return tuple(range(ndim))


def is_contiguous_in(shape, strides, fmt: memory_format) -> bool:
    """PyTorch's test: walking the axes from fastest to slowest, each stride equals the product of the
    sizes before it; axes of size 1 are skipped (any stride describes them). Channels-last formats of
    the wrong rank are simply not matched."""
    if fmt in _CHANNELS_LAST and len(shape) != _CHANNELS_LAST[fmt][0]:
        return False
    expected = 1
    for axis in reversed(axes_in_memory_order(fmt, len(shape))):
        if shape[axis] != 1:
            if strides[axis] != expected:
                return False
            expected *= shape[axis]
    return True


def laid_out(array, fmt):
    """A copy of ``array`` whose memory follows ``fmt`` (a memory format, or the axes from slowest to
    fastest); same shape and values, new strides."""
    order = fmt if isinstance(fmt, tuple) else axes_in_memory_order(fmt, array.ndim)
    inverse = sorted(range(len(order)), key=order.__getitem__)
    return array.transpose(order).copy(order="C").transpose(inverse)


def contiguous_strides(shape, order=None) -> tuple:
    """The strides, in elements, of a tensor of ``shape`` stored with no gaps with its axes in ``order``
    (slowest to fastest; row-major when ``None``)."""
    order = range(len(shape)) if order is None else order
    strides, step = [0] * len(shape), 1
    for axis in reversed(tuple(order)):
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


def _is_dense(shape, strides) -> bool:
    """PyTorch's ``is_non_overlapping_and_dense``: sorted by stride, the axes tile memory with no gap or overlap."""
    order = sorted((axis for axis in range(len(shape)) if shape[axis] != 1), key=lambda axis: strides[axis])
    expected = 1
    for axis in order:
        if strides[axis] != expected:
            return False
        expected *= shape[axis]
    return True


def _operand_strides(array, shape) -> tuple:
    """``array``'s strides in elements, seen at the broadcast ``shape``: 0 along an axis it is broadcast over."""
    missing = len(shape) - array.ndim
    own = [stride // array.itemsize for stride in array.strides]
    return (0,) * missing + tuple(0 if size == 1 and shape[missing + axis] != 1 else stride
                                  for axis, (size, stride) in enumerate(zip(array.shape, own)))


def _ordered_by_strides(shape, operand_strides) -> tuple:
    """TensorIterator's ``reorder_dimensions``: the axes from slowest to fastest in memory.

    An insertion sort over the axes listed fastest first, starting from row-major order. An axis moves
    behind (is slower than) another when the first operand that tells them apart, neither broadcast, has
    the larger stride on it; equal strides put the longer axis behind. Where no operand tells two axes
    apart (both broadcast somewhere, or all strides equal), they keep their row-major order."""
    def should_swap(axis, other):  # 1: ``axis`` is slower than ``other``; -1: faster; 0: undecided
        for strides in operand_strides:
            if strides[axis] == 0 or strides[other] == 0:
                continue
            if strides[axis] != strides[other]:
                return 1 if strides[axis] > strides[other] else -1
            if shape[axis] > shape[other]:
                return 1
        return 0

    fastest_first = list(range(len(shape)))[::-1]
    for moving in range(1, len(fastest_first)):
        position = moving
        for before in range(moving - 1, -1, -1):
            comparison = should_swap(fastest_first[before], fastest_first[position])
            if comparison > 0:
                fastest_first[before], fastest_first[position] = fastest_first[position], fastest_first[before]
                position = before
            elif comparison < 0:
                break
    return tuple(fastest_first[::-1])


def dense_order(shape, strides) -> tuple:
    """PyTorch's ``infer_dense_strides`` as an order: the axes of a (possibly gapped or overlapping) tensor
    from slowest to fastest, the order a compact copy of it keeps."""
    return _ordered_by_strides(shape, [strides])


def layout_of_result(shape, operands) -> tuple:
    """The strides PyTorch gives the new output of an elementwise op on ``operands`` (arrays broadcastable
    to ``shape``; numbers are ignored), by its TensorIterator's rule:

    1. operands all of the output's shape and all row-major, or all channels-last, or all dense with the
       same strides: the output is laid out as they are;
    2. otherwise the axes are ordered by the operands' strides, the first operand deciding first
       (``_ordered_by_strides``), and the output is stored compactly in that order."""
    arrays = [operand for operand in operands if hasattr(operand, "strides")]
    if arrays and all(array.shape == tuple(shape) for array in arrays):
        strides = [_operand_strides(array, shape) for array in arrays]
        if all(is_contiguous_in(shape, each, contiguous_format) for each in strides):
            return contiguous_strides(shape)
        if len(shape) == 4 and all(is_contiguous_in(shape, each, channels_last) for each in strides):
            return contiguous_strides(shape, axes_in_memory_order(channels_last, 4))
        if all(_is_dense(shape, each) and each == strides[0] for each in strides):
            return strides[0]
    strides = [_operand_strides(array, shape) for array in arrays]
    return contiguous_strides(shape, _ordered_by_strides(shape, strides))


def _same_strides(shape, ours, wanted) -> bool:
    """Equal strides along every axis longer than 1 (any stride describes an axis of length 1)."""
    return all(size == 1 or a == b for size, a, b in zip(shape, ours, wanted))


def in_layout_of_result(result, operands):
    """``result`` (an elementwise op's new array) laid out as PyTorch lays out that op's output
    (``layout_of_result``): itself when NumPy chose the same strides, else a copy in PyTorch's order."""
    if result.ndim < 2 or result.size < 2 or (result.flags.c_contiguous and all(
            operand.flags.c_contiguous for operand in operands if hasattr(operand, "flags"))):
        return result  # row-major operands give a row-major result in both libraries
    if 0 in result.strides:
        return result  # not a fresh array (a meta tensor's stand-in): nothing in memory to lay out
    wanted = layout_of_result(result.shape, operands)
    ours = tuple(stride // result.itemsize for stride in result.strides)
    if _same_strides(result.shape, ours, wanted):
        return result
    order = tuple(sorted(range(result.ndim), key=lambda axis: -wanted[axis]))
    return laid_out(result, order)


def preserved_copy(array, numpy_dtype=None):
    """A copy of ``array`` (in ``numpy_dtype``) laid out as PyTorch's ``preserve_format`` copies are
    (``empty_like``, ``clone``, ``to``): a dense array's own order, else its axes ordered by their strides
    (``dense_order``). NumPy's ``astype`` keeps the same order, except along a broadcast axis (stride 0),
    where PyTorch keeps row-major order."""
    copy = array.astype(numpy_dtype or array.dtype, order="K", copy=True)
    if 0 in array.strides and copy.size > 1 and 0 not in copy.strides:  # (a meta stand-in keeps its zeros)
        return laid_out(copy, dense_order(array.shape, [stride // array.itemsize for stride in array.strides]))
    return copy
