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

``layout`` is the kind of storage: minitorch, like most of PyTorch, has only ``strided``.
"""

from __future__ import annotations

__all__ = [
    "memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
    "layout", "strided", "axes_in_memory_order", "is_contiguous_in", "laid_out",
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
