"""Copies of a tensor in another memory format (``contiguous(memory_format=...)``, ``clone``, ``to``).

The values and the shape stay; only the order in memory changes (``minitorch/_memory_format.py``),
so the gradient passes through unchanged.
"""

from __future__ import annotations

from .._memory_format import (
    contiguous_format,
    is_contiguous_in,
    laid_out,
    memory_format as _memory_format_type,
    preserve_format,
)
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op


class ToMemoryFormat(Op):
    """``y = x`` laid out in memory as ``memory_format`` says;  ``dx = grad``."""

    node_name = "CloneBackward0"  # PyTorch's contiguous(memory_format=...) and clone(memory_format=...)

    @staticmethod
    def forward(ctx, x, memory_format):
        return laid_out(x, memory_format)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class ToCopyInMemoryFormat(ToMemoryFormat):
    """``x.to(memory_format=...)``: the same copy, under PyTorch's name for ``to``."""

    node_name = "ToCopyBackward0"


def _check(memory_format) -> None:
    if not isinstance(memory_format, _memory_format_type):
        raise TypeError(f"memory_format must be minitorch.memory_format, not {type(memory_format).__name__}")


def is_contiguous(x: Tensor, memory_format=contiguous_format) -> bool:
    """Does ``x``'s memory follow ``memory_format`` with no gaps?"""
    _check(memory_format)
    if memory_format in (contiguous_format, preserve_format):  # PyTorch reads preserve_format as the default
        return bool(x._data.flags.c_contiguous)
    return is_contiguous_in(x.shape, x.stride(), memory_format)


def contiguous(x: Tensor, memory_format=contiguous_format) -> Tensor:
    """``x`` itself when its memory already follows ``memory_format``, else a copy that does."""
    _check(memory_format)
    if is_contiguous(x, memory_format):
        return x
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if memory_format is contiguous_format:
        return x.contiguous()
    return ToMemoryFormat.apply(x, memory_format)


def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A copy of ``input``: in its own memory order (``preserve_format``, the default) or in ``memory_format``'s."""
    if memory_format is None or memory_format is preserve_format:
        return input.clone()
    _check(memory_format)
    return ToMemoryFormat.apply(input, memory_format)


def to_memory_format(x: Tensor, memory_format) -> Tensor:
    """``x.to(memory_format=...)``'s last step: ``x`` itself if it is laid out so already."""
    _check(memory_format)
    if memory_format is preserve_format or is_contiguous(x, memory_format):
        return x
    return ToCopyInMemoryFormat.apply(x, memory_format)
