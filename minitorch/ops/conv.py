"""Convolution as im2col: strided windows of the input, then one matrix product.

A 2-D convolution slides a ``(C, kh, kw)`` kernel over the (padded) input. Every kernel
position of every image sees one *window* of the input; laid out as a column of
``C * kh * kw`` numbers, the windows form one matrix ``columns`` of shape
``(C * kh * kw, H_out * W_out * N)`` and the whole convolution is one matrix product::

    output = weight.reshape(O, C * kh * kw) @ columns          # (O, H_out * W_out * N)

The windows cost nothing to find: ``as_strided`` gives a *view* of the padded input with
shape ``(C, kh, kw, H_out, W_out, N)`` (moving one step along ``kh`` moves ``dilation``
rows; one step along ``H_out`` moves ``stride`` rows). Only reshaping it into the column
matrix copies, once.

Why is the batch ``N`` last? Then every slab that im2col copies and col2im adds back is a
long contiguous run (a whole row of windows for all the images at once), and NumPy
moves long runs many times faster than the short rows of one image. The price is one
transpose of the input on the way in and of the result on the way out.

The code works for any number of spatial dimensions (1-D, 2-D, 3-D): shapes are tuples.

**Three views of one sum.** Write ``x`` for the input, ``w`` for the weight, ``y`` for a
tensor shaped like the output, and ``cols(x)`` for the columns. One number ties them::

    T(x, w, y) = sum over g, o, c, k, p of  y[g, o, p] * w[g, o, c, k] * cols(x)[g, c, k, p]

(``g`` a group, ``o`` an output channel, ``c`` an input channel of the group, ``k`` a
kernel offset, ``p`` an (output position, image) pair). Its derivative with respect to
each argument is one of the three ops below, and the backward of each is made of the
other two:

* ``Convolution``:          ``dT/dy = conv(x, w)``           (the forward pass)
* ``ConvolutionTranspose``: ``dT/dx = conv_transpose(y, w)`` (col2im: windows added back in place)
* ``ConvolutionWeight``:    ``dT/dw = weight_grad(x, y)``    (output gradient times the columns)

so gradients of gradients of any order come for free. ``F.conv_transpose2d`` is the
second one used forwards. ``Unfold`` / ``Fold`` (``F.unfold``, ``F.fold``) are the window
copy and its adjoint on their own, with no weight.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

from ..autograd.function import Op
from ._util import array_module


class ConvGeometry(NamedTuple):
    """Everything about a convolution except its numbers; one entry per spatial dimension.

    ``padding`` holds ``(before, after)`` pairs (``padding='same'`` with an even kernel pads
    one more after than before). ``input_size`` is the unpadded spatial size and
    ``output_size`` the number of window positions along each dimension.
    """

    kernel_size: tuple
    stride: tuple
    padding: tuple
    dilation: tuple
    groups: int
    input_size: tuple
    output_size: tuple

    @property
    def padded_size(self) -> tuple:
        return tuple(n + before + after for n, (before, after) in zip(self.input_size, self.padding))


def output_size(input_size, kernel_size, stride, padding, dilation) -> tuple:
    """Window positions per dimension: ``floor((n + pads - dilation * (k - 1) - 1) / stride) + 1``."""
    return tuple(
        (n + before + after - d * (k - 1) - 1) // s + 1
        for n, k, s, (before, after), d in zip(input_size, kernel_size, stride, padding, dilation)
    )


def make_geometry(input_size, kernel_size, stride, padding, dilation, groups=1) -> ConvGeometry:
    sizes = output_size(input_size, kernel_size, stride, padding, dilation)
    return ConvGeometry(tuple(kernel_size), tuple(stride), tuple(padding), tuple(dilation), groups, tuple(input_size),
                        sizes)


# -- array-level building blocks: padding, windows, im2col and col2im ----------------------------------
def pad_constant(x, padding, value=0.0):
    """``x`` with ``(before, after)`` entries of ``value`` around each spatial dimension (no copy if none)."""
    if not any(before or after for before, after in padding):
        return x
    xp = array_module(x)
    spatial = x.shape[-len(padding):]
    padded_shape = x.shape[:-len(padding)] + tuple(n + b + a for n, (b, a) in zip(spatial, padding))
    padded = xp.full(padded_shape, value, dtype=x.dtype)
    padded[(Ellipsis,) + tuple(slice(b, b + n) for n, (b, _) in zip(spatial, padding))] = x
    return padded


def sliding_windows(padded, geometry: ConvGeometry, kernel_first: bool = True, first_spatial_axis: int = 2):
    """A view of ``padded`` holding every window, no copy.

    The spatial axes (``len(kernel_size)`` of them from ``first_spatial_axis`` on) are
    replaced by ``(*kernel_size, *output_size)`` (``(*output_size, *kernel_size)`` with
    ``kernel_first=False``): for ``(N, C, H, W)``,
    ``windows[n, c, i, j, y, x] = padded[n, c, y * stride + i * dilation, x * stride + j * dilation]``.
    """
    xp = array_module(padded)
    dims = len(geometry.kernel_size)
    end = first_spatial_axis + dims
    spatial_strides = padded.strides[first_spatial_axis:end]
    kernel_strides = tuple(step * d for step, d in zip(spatial_strides, geometry.dilation))
    position_strides = tuple(step * s for step, s in zip(spatial_strides, geometry.stride))
    if kernel_first:
        shape, strides = geometry.kernel_size + geometry.output_size, kernel_strides + position_strides
    else:
        shape, strides = geometry.output_size + geometry.kernel_size, position_strides + kernel_strides
    return xp.lib.stride_tricks.as_strided(
        padded, padded.shape[:first_spatial_axis] + shape + padded.shape[end:],
        padded.strides[:first_spatial_axis] + strides + padded.strides[end:],
    )


def batch_last(x):
    """``(N, C, *spatial) -> (C, *spatial, N)``, contiguous: ``x.transpose(1, ..., 0)`` copied."""
    batch, rest = x.shape[0], math.prod(x.shape[1:])
    return transposed_copy(x.reshape(batch, rest)).reshape(x.shape[1:] + (batch,))


def batch_first(x):
    """``(C, *spatial, N) -> (N, C, *spatial)``, contiguous (the layout every tensor shows the user)."""
    batch, rest = x.shape[-1], math.prod(x.shape[:-1])
    return transposed_copy(x.reshape(rest, batch)).reshape((batch,) + x.shape[:-1])


def transposed_copy(matrix):
    """``matrix.T`` as a contiguous array (plainly ``xp.ascontiguousarray(matrix.T)``)."""
    xp = array_module(matrix)
    rows, columns = matrix.shape
    block = math.gcd(columns, 128)
    if block == 1:
        return xp.ascontiguousarray(matrix.T)
    # Speed only: one transposing copy reads down the columns, whose elements lie a whole row apart (often a
    # power of two bytes, which piles them onto the same few cache lines): up to 5x slower. Cut into blocks
    # of up to 128 columns, the first copy moves long runs of each row, the second turns each block round,
    # and one block fits in the fastest cache.
    blocks = xp.ascontiguousarray(matrix.reshape(rows, columns // block, block).transpose(1, 0, 2))
    return xp.ascontiguousarray(blocks.transpose(0, 2, 1)).reshape(columns, rows)


def im2col(x, geometry: ConvGeometry):
    """The column matrix of ``x`` ``(N, C, *input_size)``, split by group: ``(G, C/G * prod(kernel), P * N)``.

    ``P`` is the number of output positions; the column index runs over positions, then
    images (the image varies fastest). Two copies: padding with the batch moved last,
    then the windows themselves.
    """
    batch, channels = x.shape[:2]
    xp = array_module(x)
    if any(before or after for before, after in geometry.padding):
        padded = xp.zeros((channels,) + geometry.padded_size + (batch,), dtype=x.dtype)
        inside = tuple(slice(before, before + n) for n, (before, _) in zip(geometry.input_size, geometry.padding))
        padded[(slice(None),) + inside] = batch_last(x)
    else:
        padded = batch_last(x)
    windows = sliding_windows(padded, geometry, first_spatial_axis=1)  # (C, *kernel, *output, N)
    rows = channels // geometry.groups * math.prod(geometry.kernel_size)  # spelled out: an empty batch has no -1
    return windows.reshape(geometry.groups, rows, math.prod(geometry.output_size) * batch)


def col2im(window_values, geometry: ConvGeometry):
    """The adjoint of im2col: add each window's values back where the window came from.

    ``window_values`` is ``(C, *kernel_size, *output_size, N)``; the result is
    ``(N, C, *input_size)``. Overlapping windows add up. The loop runs over kernel
    offsets only (9 times for a 3x3 kernel): each pass adds a whole strided slab at once.
    """
    xp = array_module(window_values)
    channels, batch = window_values.shape[0], window_values.shape[-1]
    padded = xp.zeros((channels,) + geometry.padded_size + (batch,), dtype=window_values.dtype)
    for offset in itertools.product(*(range(k) for k in geometry.kernel_size)):
        target = tuple(
            slice(i * d, i * d + s * (o - 1) + 1, s)
            for i, d, s, o in zip(offset, geometry.dilation, geometry.stride, geometry.output_size)
        )
        padded[(slice(None),) + target] += window_values[(slice(None),) + offset]
    inside = tuple(slice(before, before + n) for n, (before, _) in zip(geometry.input_size, geometry.padding))
    return batch_first(padded[(slice(None),) + inside])


def _rows_of(grad_output, groups: int):
    """``(N, O, *output_size) -> (G, O/G, P * N)``: an output-shaped tensor in the columns' order."""
    return batch_last(grad_output).reshape(groups, grad_output.shape[1] // groups, -1)


def _add_bias(output, bias):
    if bias is not None:
        output += bias.reshape((-1,) + (1,) * (output.ndim - 2))  # output is fresh: adding in place saves a copy
    return output


def _bias_grad(grad):
    """``d bias = grad`` summed over the batch and every spatial position."""
    return grad.sum((0,) + tuple(range(2, grad.dim())))


# -- the ops --------------------------------------------------------------------------------------
class Convolution(Op):
    """``y[g] = w[g] @ cols(x)[g] + b`` (``w[g]`` is ``(O/G, C/G * K)``, ``cols(x)[g]`` is ``(C/G * K, P * N)``).

    ``dx = conv_transpose(grad, w)`` (col2im of ``w^T @ grad``);  ``dw = grad @ cols(x)^T``;
    ``db = grad`` summed over batch and positions.
    """

    node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, input, weight, bias, geometry):
        ctx.geometry = geometry
        batch, out_channels, groups = input.shape[0], weight.shape[0], geometry.groups
        columns = im2col(input, geometry)  # (G, C/G * K, P * N)
        # The weight gradient needs the same columns: keep them rather than copying the windows again.
        needs = ctx.needs_input_grad
        ctx.save_for_backward(input, weight, columns if needs and needs[1] else None)
        output = weight.reshape(groups, out_channels // groups, -1) @ columns  # (G, O/G, P * N)
        output = batch_first(output.reshape((out_channels,) + geometry.output_size + (batch,)))
        return _add_bias(output, bias).astype(input.dtype, copy=False)  # bfloat16's @ gives float32: round once

    @staticmethod
    def backward(ctx, grad):
        input, weight, columns = ctx.saved_tensors
        geometry = ctx.geometry
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = ConvolutionTranspose.apply(grad, weight, None, geometry)
        if ctx.needs_input_grad[1]:
            grad_weight = ConvolutionWeight.apply(input, grad, geometry, columns._data)
        if ctx.needs_input_grad[2]:
            grad_bias = _bias_grad(grad)
        return grad_input, grad_weight, grad_bias, None


class ConvolutionTranspose(Op):
    """``x = col2im(w^T @ y) + b``: the adjoint of ``Convolution`` in its input (``F.conv_transpose2d``).

    ``y`` is shaped like a convolution's output, ``w`` like its weight ``(O, C/G, *K)``
    and the result like its input. ``dy = conv(grad, w)``;  ``dw = weight_grad(grad, y)``;
    ``db = grad`` summed over batch and positions.
    """

    node_name = "ConvolutionBackward0"  # PyTorch's node for conv_transpose2d too

    @staticmethod
    def forward(ctx, grad_output, weight, bias, geometry):
        ctx.geometry = geometry
        ctx.save_for_backward(grad_output, weight)
        groups = geometry.groups
        batch, out_channels = grad_output.shape[:2]
        in_channels = weight.shape[1] * groups
        weight_matrices = weight.reshape(groups, out_channels // groups, -1)  # (G, O/G, C/G * K)
        window_values = weight_matrices.transpose(0, 2, 1) @ _rows_of(grad_output, groups)  # (G, C/G * K, P * N)
        window_values = window_values.reshape((in_channels,) + geometry.kernel_size + geometry.output_size + (batch,))
        # bfloat16's @ gives float32: the windows are summed in float32 and rounded once
        return _add_bias(col2im(window_values, geometry), bias).astype(grad_output.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        grad_output, weight = ctx.saved_tensors
        geometry = ctx.geometry
        result = [None, None, None, None]
        if ctx.needs_input_grad[0]:
            result[0] = Convolution.apply(grad, weight, None, geometry)
        if ctx.needs_input_grad[1]:
            result[1] = ConvolutionWeight.apply(grad, grad_output, geometry, None)
        if ctx.needs_input_grad[2]:
            result[2] = _bias_grad(grad)
        return tuple(result)


class ConvolutionWeight(Op):
    """``w[g] = y[g] @ cols(x)[g]^T``: a convolution's weight gradient (one product over every image at once).

    ``dx = conv_transpose(y, grad)``;  ``dy = conv(x, grad)``. ``columns`` is ``cols(x)`` when the
    forward convolution kept it, else None (then it is computed here).
    """

    @staticmethod
    def forward(ctx, input, grad_output, geometry, columns):
        ctx.geometry = geometry
        ctx.save_for_backward(input, grad_output)
        groups = geometry.groups
        if columns is None:
            columns = im2col(input, geometry)  # (G, C/G * K, P * N)
        grad_weight = _rows_of(grad_output, groups) @ columns.transpose(0, 2, 1)  # (G, O/G, C/G * K)
        channels_per_group = input.shape[1] // groups
        grad_weight = grad_weight.astype(grad_output.dtype, copy=False)  # bfloat16's @ gives float32: round once
        return grad_weight.reshape((grad_output.shape[1], channels_per_group) + geometry.kernel_size)

    @staticmethod
    def backward(ctx, grad):
        input, grad_output = ctx.saved_tensors
        geometry = ctx.geometry
        grad_input = grad_grad_output = None
        if ctx.needs_input_grad[0]:
            grad_input = ConvolutionTranspose.apply(grad_output, grad, None, geometry)
        if ctx.needs_input_grad[1]:
            grad_grad_output = Convolution.apply(input, grad, None, geometry)
        return grad_input, grad_grad_output, None, None


class Unfold(Op):
    """``y[n, (c, k), p] = padded x[n, c, window p, offset k]``: every window as a column (``F.unfold``).

    ``dx = fold(grad)``: each column's gradient is added back where its window came from.
    """

    node_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, input, geometry):
        ctx.geometry = geometry
        batch, channels = input.shape[:2]
        columns = im2col(input, geometry)  # (1, C * K, P * N)
        kernel_numel, positions = math.prod(geometry.kernel_size), math.prod(geometry.output_size)
        return batch_first(columns.reshape(channels * kernel_numel, positions, batch))

    @staticmethod
    def backward(ctx, grad):
        return Fold.apply(grad, ctx.geometry), None


class Fold(Op):
    """``y = sum of the columns of x, each added at its window`` (``F.fold``, col2im);  ``dx = unfold(grad)``."""

    node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, columns, geometry):
        ctx.geometry = geometry
        batch = columns.shape[0]
        channels = columns.shape[1] // math.prod(geometry.kernel_size)
        window_values = batch_last(columns).reshape(
            (channels,) + geometry.kernel_size + geometry.output_size + (batch,))
        return col2im(window_values, geometry)

    @staticmethod
    def backward(ctx, grad):
        return Unfold.apply(grad, ctx.geometry), None


class ConstantPad(Op):
    """``y = x`` surrounded by ``value`` (``(before, after)`` per trailing dimension);  ``dx = grad[inside]``."""

    node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, input, padding, value):
        ctx.inside = (Ellipsis,) + tuple(
            slice(before, before + n) for n, (before, _) in zip(input.shape[-len(padding):], padding)
        )
        return pad_constant(input, padding, value)

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.inside], None, None
