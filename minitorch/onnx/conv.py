"""ONNX mappings of the convolution ops (``minitorch/ops/conv.py``): ``Conv``, ``ConvTranspose``, im2col, padding.

A ``ConvGeometry`` holds what ONNX's attributes need: ``kernel_shape``, ``strides``,
``dilations``, ``group`` and ``pads`` (all the befores, then all the afters).
"""

from __future__ import annotations

import math

import numpy as np

from ..ops import conv as ops
from ._registry import maps
from .errors import UnsupportedOperatorError


def _pads(geometry) -> list:
    return [int(before) for before, _ in geometry.padding] + [int(after) for _, after in geometry.padding]


_WINDOW_FIELDS = ("kernel_size", "stride", "padding", "dilation", "groups")


def fixed_geometry(graph, call, index: int):
    """The window geometry of argument ``index``, checked to be the same at the other size of a dynamic axis.

    A geometry also records the input and output sizes, which follow the dynamic axes and which
    ONNX's ``Conv``/``MaxPool`` compute themselves; the window itself must not change (it would
    with ``padding='same'`` and a stride, where the padding depends on the size).
    """
    geometry = call.args[index]
    for other in (getattr(call, "other_args", call.args)[index], getattr(call, "third_args", call.args)[index]):
        for field in _WINDOW_FIELDS:
            if getattr(geometry, field, None) != getattr(other, field, None):
                raise UnsupportedOperatorError(
                    f"Exporting 'minitorch::{call.name}' whose {field} changes with the input size "
                    f"({getattr(geometry, field)} and {getattr(other, field)}) is not supported (called at "
                    f"{call.where}); export without that dynamic axis"
                )
    return geometry


def _attributes(geometry) -> dict:
    return {"kernel_shape": list(geometry.kernel_size), "strides": list(geometry.stride), "pads": _pads(geometry),
            "dilations": list(geometry.dilation), "group": int(geometry.groups)}


@maps(ops.Convolution, size_aware=True)
def convolution(graph, call):
    input, weight, bias, _ = call.args
    geometry = fixed_geometry(graph, call, 3)
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


@maps(ops.Unfold, size_aware=True)
def unfold(graph, call):
    """im2col as a convolution with one-hot kernels: output channel ``c * K + k`` copies offset ``k`` of channel ``c``.

    Multiplying by 1 and adding zeros is exact, so the columns are the input's own numbers.
    """
    input, _ = call.args
    geometry = fixed_geometry(graph, call, 1)
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
