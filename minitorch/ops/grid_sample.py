"""Sampling an image at arbitrary points: ``grid_sample`` (the warp of a spatial transformer).

``grid[n, h, w] = (x, y)`` names a point of image ``n`` in normalised coordinates: ``-1`` is
the left (top) edge and ``+1`` the right (bottom) edge. With ``align_corners=True`` those are
the centres of the corner pixels; with ``False`` (the default) the outer edges of the corner
pixels, so the result does not depend on the image's resolution. In pixel units::

    align_corners=True:   px = (x + 1) / 2 * (W - 1)
    align_corners=False:  px = ((x + 1) * W - 1) / 2

``mode="bilinear"`` mixes the four pixels around ``(px, py)``: with ``x0 = floor(px)``,
``x1 = x0 + 1`` (and the same for y), each pixel weighted by the area of the rectangle
between the point and the opposite pixel::

    out = v[y0, x0] (x1-px)(y1-py) + v[y0, x1] (px-x0)(y1-py) + v[y1, x0] (x1-px)(py-y0) + v[y1, x1] (px-x0)(py-y0)

``mode="nearest"`` takes the pixel at ``round(px), round(py)`` (halves to even, as PyTorch).
``padding_mode`` says what lies outside the image: ``"zeros"`` (pixels out of range count 0),
``"border"`` (the point is clamped into the image) or ``"reflection"`` (it is mirrored back
in at the edges).

Gradients. The input gets each output gradient back at the pixels it came from, times the
same weights (a scatter-add, ``np.add.at``). The grid gets the derivative of the mixture in
its coordinates: for bilinear ``d out / d px = (y1-py)(v[y0,x1] - v[y0,x0]) + (py-y0)(v[y1,x1] - v[y1,x0])``,
times ``d px / d x`` (``(W-1)/2`` or ``W/2``) and the padding's own factor (0 where clamped,
-1 where mirrored). Nearest sampling is flat almost everywhere: its grid gradient is 0.
"""

from __future__ import annotations

from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op, once_differentiable
from ._util import array_module
from .indexing import _add_at

MODES = ("bilinear", "nearest", "bicubic")  # PyTorch's order: the integer a mode is passed as in the C++ API
PADDING_MODES = ("zeros", "border", "reflection")


def _unnormalize(xp, coordinate, size: int, align_corners: bool):
    """Pixel coordinate of a normalised one, and its derivative ``d pixel / d normalised``."""
    if align_corners:
        return (coordinate + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coordinate + 1) * size - 1) / 2, size / 2


def _clip(xp, coordinate, size: int):
    """Clamp into ``[0, size - 1]``; the derivative is 0 where the clamp acted."""
    clipped = xp.clip(coordinate, 0, size - 1)
    return clipped, (clipped == coordinate).astype(coordinate.dtype)


def _reflect(xp, coordinate, twice_low: int, twice_high: int):
    """Mirror ``coordinate`` into ``[twice_low / 2, twice_high / 2]`` as often as needed; derivative +-1."""
    if twice_low == twice_high:
        return xp.zeros_like(coordinate), xp.zeros_like(coordinate)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    shifted = coordinate - low
    sign = xp.where(shifted < 0, -1.0, 1.0).astype(coordinate.dtype)
    distance = xp.abs(shifted)
    extra = xp.fmod(distance, span)
    flips = xp.floor(distance / span)
    even = xp.fmod(flips, 2) == 0
    reflected = xp.where(even, extra + low, span - extra + low)
    return reflected, xp.where(even, sign, -sign)


def _source_coordinates(xp, coordinate, size: int, padding_mode: str, align_corners: bool):
    """The pixel coordinate to sample for each normalised one, and ``d pixel / d normalised``."""
    pixel, scale = _unnormalize(xp, coordinate, size, align_corners)
    derivative = xp.full_like(pixel, scale)
    if padding_mode == "border":
        pixel, factor = _clip(xp, pixel, size)
        derivative = derivative * factor
    elif padding_mode == "reflection":
        if align_corners:
            pixel, factor = _reflect(xp, pixel, 0, 2 * (size - 1))
        else:
            pixel, factor = _reflect(xp, pixel, -1, 2 * size - 1)
        pixel, clip_factor = _clip(xp, pixel, size)
        derivative = derivative * factor * clip_factor
    return pixel, derivative


def _corners(xp, px, py, height: int, width: int):
    """For bilinear sampling: the four neighbours as (row, column, weight, inside), and the distances
    ``(px - x0, x1 - px, py - y0, y1 - py)`` to them (computed as PyTorch does, so float32 rounds alike)."""
    x0, y0 = xp.floor(px), xp.floor(py)
    x1, y1 = x0 + 1, y0 + 1
    left, right, top, bottom = px - x0, x1 - px, py - y0, y1 - py
    corners = []
    for dy, dx, weight in ((0, 0, right * bottom), (0, 1, left * bottom), (1, 0, right * top), (1, 1, left * top)):
        row, column = y0 + dy, x0 + dx
        inside = (row >= 0) & (row < height) & (column >= 0) & (column < width)
        corners.append((xp.clip(row, 0, height - 1).astype(xp.int64), xp.clip(column, 0, width - 1).astype(xp.int64),
                        weight * inside, inside))
    return corners, (left, right, top, bottom)


def _gather(input, batch, row, column):
    """``input[n, :, row[n, h, w], column[n, h, w]]`` as an array ``(N, C, H_out, W_out)``."""
    values = input[batch, :, row, column]  # advanced indices first: (N, H_out, W_out, C)
    return values.transpose(0, 3, 1, 2)


class GridSample2d(Op):
    """``out[n, c, h, w] = input[n, c]`` sampled at ``grid[n, h, w]`` (see the module docstring for the formulas)."""

    node_name = "GridSampler2DBackward0"

    @staticmethod
    def forward(ctx, input, grid, mode, padding_mode, align_corners):
        xp = array_module(input)
        batch_size, channels, height, width = input.shape
        px, dpx = _source_coordinates(xp, grid[..., 0], width, padding_mode, align_corners)
        py, dpy = _source_coordinates(xp, grid[..., 1], height, padding_mode, align_corners)
        batch = xp.broadcast_to(xp.arange(batch_size).reshape(-1, 1, 1), px.shape)
        ctx.save_for_backward(input, grid)
        ctx.mode, ctx.padding_mode, ctx.align_corners = mode, padding_mode, align_corners
        if mode == "nearest":
            column, row = xp.rint(px), xp.rint(py)  # rint rounds halves to even, like PyTorch's nearbyint
            inside = (row >= 0) & (row < height) & (column >= 0) & (column < width)
            row = xp.clip(row, 0, height - 1).astype(xp.int64)
            column = xp.clip(column, 0, width - 1).astype(xp.int64)
            return _gather(input, batch, row, column) * inside[:, None].astype(input.dtype)
        corners, _ = _corners(xp, px, py, height, width)
        output = xp.zeros((batch_size, channels) + grid.shape[1:3], dtype=input.dtype)
        for row, column, weight, _ in corners:
            output += _gather(input, batch, row, column) * weight[:, None].astype(input.dtype)
        return output

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        input_tensor, grid_tensor = ctx.saved_tensors
        input, grid, grad_output = input_tensor._data, grid_tensor._data, grad._data
        xp = array_module(input)
        batch_size, channels, height, width = input.shape
        px, dpx = _source_coordinates(xp, grid[..., 0], width, ctx.padding_mode, ctx.align_corners)
        py, dpy = _source_coordinates(xp, grid[..., 1], height, ctx.padding_mode, ctx.align_corners)
        batch = xp.broadcast_to(xp.arange(batch_size).reshape(-1, 1, 1), px.shape)
        grad_input = xp.zeros_like(input) if ctx.needs_input_grad[0] else None
        grad_grid = xp.zeros_like(grid) if ctx.needs_input_grad[1] else None
        # (N, H_out, W_out, C): the channel last, to line up with the advanced-index scatter below.
        grad_channels_last = grad_output.transpose(0, 2, 3, 1)

        if ctx.mode == "nearest":
            if grad_input is not None:
                column, row = xp.rint(px), xp.rint(py)
                inside = (row >= 0) & (row < height) & (column >= 0) & (column < width)
                row = xp.clip(row, 0, height - 1).astype(xp.int64)
                column = xp.clip(column, 0, width - 1).astype(xp.int64)
                _scatter_add(xp, grad_input, batch, row, column, grad_channels_last * inside[..., None])
        else:
            corners, (left, right, top, bottom) = _corners(xp, px, py, height, width)
            if grad_input is not None:
                for row, column, weight, _ in corners:
                    _scatter_add(xp, grad_input, batch, row, column, grad_channels_last * weight[..., None])
            if grad_grid is not None:
                # d out / d px and d out / d py, summed over channels with the output gradient.
                (r00, c00, _, in00), (r01, c01, _, in01), (r10, c10, _, in10), (r11, c11, _, in11) = corners
                values = [
                    _gather(input, batch, r, c) * inside[:, None].astype(input.dtype)
                    for r, c, inside in ((r00, c00, in00), (r01, c01, in01), (r10, c10, in10), (r11, c11, in11))
                ]
                v00, v01, v10, v11 = values
                left, right, top, bottom = (distance[:, None] for distance in (left, right, top, bottom))
                d_px = -v00 * bottom + v01 * bottom - v10 * top + v11 * top
                d_py = -v00 * right - v01 * left + v10 * right + v11 * left
                grad_grid[..., 0] = (d_px * grad_output).sum(axis=1) * dpx
                grad_grid[..., 1] = (d_py * grad_output).sum(axis=1) * dpy
        device = grad._device
        return (
            Tensor._make(grad_input, device) if grad_input is not None else None,
            Tensor._make(grad_grid, device) if grad_grid is not None else None,
            None, None, None,
        )


def _scatter_add(xp, target, batch, row, column, values_channels_last):
    """``target[n, :, row, column] += values`` for every grid point, repeated pixels adding up."""
    _add_at(target.transpose(0, 2, 3, 1), (batch, row, column), values_channels_last)
