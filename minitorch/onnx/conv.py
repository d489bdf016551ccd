"""ONNX mappings of the convolution ops (``minitorch/ops/conv.py``): ``Conv``, ``ConvTranspose``, im2col, padding.

A ``ConvGeometry`` holds what ONNX's attributes need: ``kernel_shape``, ``strides``,
``dilations``, ``group`` and ``pads`` (all the befores, then all the afters).
"""

from __future__ import annotations

import math

import numpy as np

from ..ops import conv as ops
from ._registry import maps


def _pads(geometry) -> list:
    return [int(before) for before, _ in geometry.padding] + [int(after) for _, after in geometry.padding]


def _attributes(geometry) -> dict:
    return {"kernel_shape": list(geometry.kernel_size), "strides": list(geometry.stride), "pads": _pads(geometry),
            "dilations": list(geometry.dilation), "group": int(geometry.groups)}


@maps(ops.Convolution)
def convolution(graph, call):
    input, weight, bias, geometry = call.args
    names = [graph.input(call, 0), graph.input(call, 1), graph.input(call, 2) if bias is not None else None]
    return graph.node("Conv", names, **_attributes(geometry))


@maps(ops.ConvolutionTranspose)
def convolution_transpose(graph, call):
    """The adjoint of a convolution; ``output_padding`` makes the size the geometry's ``input_size``."""
    input, weight, bias, geometry = call.args
    output_padding = [
        int(wanted - (s * (n - 1) + d * (k - 1) + 1 - before - after))
        for wanted, s, n, d, k, (before, after) in zip(geometry.input_size, geometry.stride, geometry.output_size,
                                                        geometry.dilation, geometry.kernel_size, geometry.padding)
    ]
    names = [graph.input(call, 0), graph.input(call, 1), graph.input(call, 2) if bias is not None else None]
    return graph.node("ConvTranspose", names, output_padding=output_padding, **_attributes(geometry))


@maps(ops.Unfold)
def unfold(graph, call):
    """im2col as a convolution with one-hot kernels: output channel ``c * K + k`` copies offset ``k`` of channel ``c``.

    Multiplying by 1 and adding zeros is exact, so the columns are the input's own numbers.
    """
    input, geometry = call.args
    channels, kernel = input.shape[1], math.prod(geometry.kernel_size)
    one_hot = np.eye(kernel, dtype=input.dtype).reshape((kernel, 1) + tuple(geometry.kernel_size))
    weight = graph.constant(np.tile(one_hot, (channels, 1) + (1,) * len(geometry.kernel_size)))
    attributes = {**_attributes(geometry), "group": int(channels)}
    windows = graph.node("Conv", [graph.input(call, 0), weight], **attributes)
    return graph.node("Reshape", [windows, graph.shape_of(call.outputs[0])])


@maps(ops.ConstantPad)
def constant_pad(graph, call):
    input, padding, value = call.args
    leading = len(input.shape) - len(padding)
    pads = [0] * leading + [int(b) for b, _ in padding] + [0] * leading + [int(a) for _, a in padding]
    return graph.node("Pad", [graph.input(call, 0), graph.int64s(pads),
                              graph.constant(np.asarray(value, dtype=input.dtype))], mode="constant")
