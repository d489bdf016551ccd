"""Helpers shared by several families of ``nn.functional``: in-place writing, ``where``, the broadcast
check, the batch dimension of convolution and pooling inputs, and shapes as PyTorch's messages print them.
"""

from __future__ import annotations

from ..._shapes import check_expandable as _check_expandable  # noqa: F401  (imported from here)
from ..._tensor import Tensor
from ...ops import inplace as _inplace_ops, pointwise


def _maybe_inplace(input: Tensor, inplace: bool, compute) -> Tensor:
    """``compute(input)``, written back into ``input`` when ``inplace`` (recorded like any in-place op)."""
    if inplace:
        return _inplace_ops._inplace(input, compute)
    return compute(input)


def _where(condition: Tensor, selected, otherwise) -> Tensor:
    return pointwise.where(condition, selected, otherwise)


def _expand_to_tuple(value, dims: int, name: str) -> tuple:
    """``3`` -> ``(3, 3)`` for 2 spatial dimensions; a sequence must already have ``dims`` entries."""
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return (int(value[0]),) * dims
        if len(value) != dims:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {dims} values to match the convolution "
                f"dimensions, but got {name}={list(value)}"
            )
        return tuple(int(v) for v in value)
    return (int(value),) * dims


def _batched(input: Tensor, dims: int, name: str, *, non_empty_message: bool = False) -> tuple:
    """``(input with a batch dimension, whether one was added)``; PyTorch's error for a wrong rank."""
    if input.dim() == dims + 1:
        return input.unsqueeze(0), True
    if input.dim() == dims + 2:
        return input, False
    if non_empty_message:
        raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected for input")
    raise RuntimeError(
        f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}, but got input of size: "
        f"{list(input.shape)}"
    )


def _unbatched(output, was_unbatched: bool):
    if isinstance(output, tuple):
        return tuple(_unbatched(o, was_unbatched) for o in output)
    return output.squeeze(0) if was_unbatched else output


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(int(extent)) for extent in shape) + "]"
