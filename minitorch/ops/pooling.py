"""Max pooling: the largest value of each window, and where it was.

The windows are the same strided view the convolution uses (``ops/conv.py``), here with
the padding filled with ``-inf`` so that it never wins. A pass over the kernel offsets
keeps the best value so far and where it was; like PyTorch, we report the winner as a
*flat index into the input plane* (``row * W + column`` for 2-D), and the first maximum
in scan order wins a tie.

The gradient of a maximum flows only to the element that won, so the backward is a
scatter: every output gradient is added at its winner's index (``ScatterIntoPlanes``).
The backward of that scatter is the matching gather (``GatherFromPlanes``), and the
other way round, so gradients of gradients work. ``max_unpool`` is the same scatter used
forwards.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy

from .._dtype import is_floating
from ..autograd.function import Op
from ._util import array_module
from .conv import pad_constant, sliding_windows


def window_positions(geometry) -> list:
    """Per spatial dimension, the input index each (output position, kernel offset) reads: ``(out, k)`` arrays.

    ``position = out * stride - padding_before + k * dilation`` (may fall in the padding).
    """
    return [
        numpy.arange(o)[:, None] * s - before + numpy.arange(k)[None, :] * d
        for o, k, s, (before, _), d in zip(
            geometry.output_size, geometry.kernel_size, geometry.stride, geometry.padding, geometry.dilation
        )
    ]


def offset_indices(positions, plane_size) -> tuple:
    """``(kernel offset, plane index per output position)`` for every kernel offset, from ``window_positions``."""
    offsets = itertools.product(*(range(table.shape[1]) for table in positions))
    return tuple((offset, _plane_index(positions, offset, plane_size)) for offset in offsets)


@functools.lru_cache(maxsize=128)
def _pooling_offset_indices(geometry) -> tuple:
    """``offset_indices`` of a pooling geometry, computed once per shape (a training loop repeats them)."""
    return offset_indices(window_positions(geometry), geometry.input_size)


@functools.lru_cache(maxsize=128)
def _pooling_offset_indices_on_gpu(geometry, xp, device_id: int) -> tuple:
    """The same tables copied to GPU ``device_id`` once, instead of from the host on every call."""
    with xp.cuda.Device(device_id):
        return tuple((offset, xp.asarray(index)) for offset, index in _pooling_offset_indices(geometry))


def _offset_indices_for(input, geometry) -> tuple:
    xp = array_module(input)
    if xp is numpy:
        return _pooling_offset_indices(geometry)
    return _pooling_offset_indices_on_gpu(geometry, xp, input.device.id)


def max_over_windows(windows, indices_by_offset):
    """Largest value of each window and its flat index in the input plane.

    ``windows`` is ``(N, C, *out, *k)`` (a strided view, or gathered windows);
    ``indices_by_offset`` pairs each kernel offset with the plane index it reads at every
    output position. The loop runs over the kernel offsets only (4 times for a 2x2
    window), each pass comparing whole tensors (NumPy's ``argmax`` over a short last axis
    is many times slower). A later element takes over only when strictly larger, so the
    first maximum wins a tie, as in PyTorch.
    """
    xp = array_module(windows)
    offsets = [offset for offset, _ in indices_by_offset]
    indices = [xp.asarray(index) for _, index in indices_by_offset]
    best = windows[(Ellipsis,) + offsets[0]].copy()
    # The winner so far is kept as its offset's number in the scan (one byte for up to 256 offsets).
    winner = xp.zeros(best.shape, dtype=xp.min_scalar_type(len(offsets) - 1))
    for number, offset in enumerate(offsets[1:], start=1):
        candidate = windows[(Ellipsis,) + offset]
        # Speed only: winner = where(candidate > best, number, winner), without NumPy's branch per element, which
        # guesses wrong half the time on real data (15x slower). Numbers grow along the scan: a newcomer is larger.
        xp.maximum(winner, xp.multiply(candidate > best, number, dtype=winner.dtype), out=winner)
        xp.maximum(best, candidate, out=best)  # NaN propagates into the value, as in PyTorch
    best_index = _plane_index_of_winner(winner, xp.stack(indices))
    # A NaN changes which index wins. On the CPU, look first; on a GPU, looking would stop the device and copy a
    # flag to the host on every call, so the NaN rule is applied always (it changes nothing where there is none).
    if is_floating(best.dtype) and (xp is not numpy or xp.isnan(best).any()):
        best_index = _nan_winners(windows, offsets, indices, best_index)
    return best, best_index


def _plane_index_of_winner(winner, index_table):
    """``index_table[winner, position]``: the plane index the winning offset read at each output position.

    ``winner`` is ``(N, C, *out)``, ``index_table`` is ``(offsets, *out)``.
    """
    xp = array_module(winner)
    offset_count, positions = index_table.shape[0], math.prod(index_table.shape[1:])
    # Speed only: one flat take, several times faster than indexing with the two arrays (and than a where
    # per offset with the 8-byte indices, as a scan could keep them): position p's offsets lie at p * offsets.
    by_position = index_table.reshape(offset_count, positions).T.reshape(-1)
    first_of_position = (xp.arange(positions) * offset_count).reshape(index_table.shape[1:])
    return xp.take(by_position, winner + first_of_position)


def _plane_index(positions, offset, plane_size):
    """The flat plane index that kernel ``offset`` reads, for every output position: an ``(*out)`` array."""
    dims = len(positions)
    index = 0
    for d, (table, k) in enumerate(zip(positions, offset)):
        shape = [1] * dims
        shape[d] = table.shape[0]
        index = index + table[:, k].reshape(shape) * math.prod(plane_size[d + 1:])  # row * W + column in 2-D
    return index


def _nan_winners(windows, offsets, indices, best_index):
    """PyTorch's rule where a window holds NaN: the last NaN in scan order is the reported maximum."""
    xp = array_module(windows)
    for offset, index in zip(offsets, indices):
        candidate = windows[(Ellipsis,) + offset]
        best_index = xp.where(xp.isnan(candidate), index, best_index)
    return best_index


def windows_overlap(geometry) -> bool:
    """Whether an input element can sit in two windows (then two outputs may pick the same winner)."""
    return any(s < d * (k - 1) + 1 for k, s, d in zip(geometry.kernel_size, geometry.stride, geometry.dilation))


class MaxPool(Op):
    """``y = max over each window of x``, with ``indices`` the flat plane index of the maximum.

    ``dx = grad`` added at ``indices`` (zero everywhere else).
    """

    node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, input, geometry):
        fill = -float("inf") if is_floating(input.dtype) else array_module(input).iinfo(input.dtype).min
        padded = pad_constant(input, geometry.padding, fill)
        windows = sliding_windows(padded, geometry, kernel_first=False)
        values, indices = max_over_windows(windows, _offset_indices_for(input, geometry))
        ctx.input_size = geometry.input_size
        ctx.overlapping = windows_overlap(geometry)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        # Disjoint windows never share a winner: plain assignment, no need to add up repeats.
        return ScatterIntoPlanes.apply(grad, indices, ctx.input_size, ctx.overlapping), None


class MaxPool3D(MaxPool):
    """``max_pool3d``: the same op under PyTorch's name for three spatial axes."""

    node_name = "MaxPool3DWithIndicesBackward0"


class AdaptiveMaxPool(Op):
    """``y[i] = max of x over window i``, windows ``[floor(i * n / out), ceil((i + 1) * n / out))``.

    The windows differ in size, so they are gathered with index arrays (each padded to the
    largest window by repeating its last index, which cannot change a maximum or win a
    tie). ``dx = grad`` added at ``indices``.
    """

    node_name = "AdaptiveMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, input, output_size):
        xp = array_module(input)
        plane_size = input.shape[2:]
        positions = []
        for n, o in zip(plane_size, output_size):
            starts = (numpy.arange(o) * n) // o
            ends = -((-(numpy.arange(o) + 1) * n) // o)  # ceil((i + 1) * n / o)
            widest = int((ends - starts).max())
            offsets = numpy.arange(widest)[None, :]
            positions.append(numpy.minimum(starts[:, None] + offsets, ends[:, None] - 1))
        dims = len(plane_size)
        key = [Ellipsis]
        for d, table in enumerate(positions):  # table d spans output axis d and kernel axis dims + d
            shape = [1] * (2 * dims)
            shape[d], shape[dims + d] = table.shape
            key.append(xp.asarray(table.reshape(shape)))
        windows = input[tuple(key)]  # (N, C, *out, *k)
        values, indices = max_over_windows(windows, offset_indices(positions, plane_size))
        ctx.input_size = plane_size
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        (indices,) = ctx.saved_tensors
        return ScatterIntoPlanes.apply(grad, indices, ctx.input_size, True), None


class ScatterIntoPlanes(Op):
    """``y = zeros (N, C, *plane_size); y[n, c].flat[indices[n, c]] += x[n, c]`` (``=`` when not accumulating).

    ``dx = grad[n, c].flat[indices[n, c]]`` (a gather). ``accumulate=False`` is for indices
    that never repeat (disjoint pooling windows) and for ``max_unpool``, where a repeated
    index keeps one value, as in PyTorch.
    """

    node_name = "MaxUnpool2DBackward0"

    @staticmethod
    def forward(ctx, values, indices, plane_size, accumulate):
        ctx.save_for_backward(indices)
        xp = array_module(values)
        batch, channels = values.shape[:2]
        planes, plane_numel = batch * channels, math.prod(plane_size)
        # One flat index into all the planes at once: plane number * plane size + index in the plane.
        outputs_per_plane = math.prod(indices.shape[2:])  # spelled out: an empty batch has no -1
        flat = (indices.reshape(planes, outputs_per_plane) + xp.arange(planes)[:, None] * plane_numel).reshape(-1)
        if accumulate:
            # bincount adds repeated indices (overlapping windows share a winner) in one vectorised pass.
            result = xp.bincount(flat, weights=values.reshape(-1), minlength=planes * plane_numel)
            result = result.astype(values.dtype, copy=False)
        else:
            result = xp.zeros(planes * plane_numel, dtype=values.dtype)
            result[flat] = values.reshape(-1)
        return result.reshape((batch, channels) + tuple(plane_size))

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        return GatherFromPlanes.apply(grad, indices), None, None, None


class GatherFromPlanes(Op):
    """``y[n, c] = x[n, c].flat[indices[n, c]]``;  ``dx = zeros, with grad added at indices``."""

    @staticmethod
    def forward(ctx, planes, indices):
        ctx.save_for_backward(indices)
        ctx.plane_size = planes.shape[2:]
        xp = array_module(planes)
        batch, channels = planes.shape[:2]
        flat_planes = planes.reshape(batch, channels, -1)
        picked = xp.take_along_axis(flat_planes, indices.reshape(batch, channels, -1), -1)
        return picked.reshape(indices.shape)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        return ScatterIntoPlanes.apply(grad, indices, ctx.plane_size, True), None
