"""Rearranging channels into space and back (``pixel_shuffle``, ``pixel_unshuffle``, ``channel_shuffle``), one
node each as in PyTorch (``PixelShuffleBackward0``...).

Each is a reshape, a permutation of axes and a reshape: it moves every value to a new place and changes none,
so its backward moves the gradient back, which is the inverse rearrangement (``pixel_unshuffle`` undoes
``pixel_shuffle``; shuffling ``g x c`` channels is undone by shuffling ``c x g``). Written as ``Function``s
in Tensor operations, so the backward is differentiable again.
"""

from __future__ import annotations

from ..autograd.function import Function


def _shuffled(x, r: int):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``: each group of ``r^2`` channels becomes an ``r x r`` block."""
    *leading, channels, height, width = x.shape
    k = len(leading)
    blocks = x.reshape(*leading, channels // (r * r), r, r, height, width)
    # (C, r_row, r_col, H, W) -> (C, H, r_row, W, r_col): row offsets sit next to rows, column offsets next to columns.
    return blocks.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2).reshape(
        *leading, channels // (r * r), height * r, width * r)


def _unshuffled(x, r: int):
    """The inverse: ``(*, C, H r, W r) -> (*, C r^2, H, W)``."""
    *leading, channels, height, width = x.shape
    k = len(leading)
    blocks = x.reshape(*leading, channels, height // r, r, width // r, r)
    return blocks.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3).reshape(
        *leading, channels * r * r, height // r, width // r)


class PixelShuffle(Function):
    """``y = pixel_shuffle(x, r)``;  ``dx = pixel_unshuffle(grad, r)``."""

    node_name = "PixelShuffleBackward0"

    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        return _shuffled(x, r)

    @staticmethod
    def backward(ctx, grad):
        return PixelUnshuffle.apply(grad, ctx.r), None


class PixelUnshuffle(Function):
    """``y = pixel_unshuffle(x, r)``;  ``dx = pixel_shuffle(grad, r)``."""

    node_name = "PixelUnshuffleBackward0"

    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        return _unshuffled(x, r)

    @staticmethod
    def backward(ctx, grad):
        return PixelShuffle.apply(grad, ctx.r), None


class ChannelShuffle(Function):
    """``y``: the channels of ``x`` seen as a ``g x c`` grid, transposed to ``c x g``;
    ``dx``: the same shuffle of ``grad`` with ``c`` groups (the grid transposed back)."""

    node_name = "ChannelShuffleBackward0"

    @staticmethod
    def forward(ctx, x, groups):
        batch, channels, *spatial = x.shape
        ctx.groups = groups
        grid = x.reshape(batch, groups, channels // groups, *spatial)
        return grid.transpose(1, 2).reshape(batch, channels, *spatial)

    @staticmethod
    def backward(ctx, grad):
        return ChannelShuffle.apply(grad, grad.shape[1] // ctx.groups), None
