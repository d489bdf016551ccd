"""``ChannelShuffle``: interleave the channels of ``groups`` groups (ShuffleNet).

    >>> import minitorch
    >>> x = minitorch.arange(4.0).reshape(1, 4, 1, 1)
    >>> minitorch.nn.ChannelShuffle(2)(x).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
"""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """``(N, g * c, *) -> (N, c * g, *)``: channel ``i * c + j`` moves to ``j * g + i``."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
