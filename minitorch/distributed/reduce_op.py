"""``ReduceOp``: how a reducing collective combines the ranks' tensors, element by element.

The names and numbers are PyTorch's (``torch.distributed.ReduceOp``). ``AVG`` is the sum
divided by the number of ranks; MPI has no such operation, so the MPI backend sums and
then divides (on integer tensors the quotient is truncated toward zero, back to the dtype).

    >>> from minitorch.distributed import ReduceOp
    >>> ReduceOp.SUM
    <RedOpType.SUM: 0>
"""

from __future__ import annotations

import enum

__all__ = ["ReduceOp"]


class RedOpType(enum.IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"


class ReduceOp:
    """``ReduceOp.SUM``, ``AVG``, ``PRODUCT``, ``MIN``, ``MAX``, ``BAND``, ``BOR``, ``BXOR`` (PyTorch's spelling)."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR


def as_reduce_op(op) -> RedOpType:
    """``op`` as a ``RedOpType``, or PyTorch's error for anything else."""
    if isinstance(op, RedOpType):
        return op
    if isinstance(op, int) and not isinstance(op, bool) and op in RedOpType._value2member_map_:
        return RedOpType(op)
    raise ValueError(f"Invalid ReduceOp: {op!r}; use minitorch.distributed.ReduceOp.SUM, AVG, PRODUCT, MIN or MAX")
