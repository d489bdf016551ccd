"""ONNX mappings of the pooling ops (``minitorch/ops/pooling.py``, ``minitorch/ops/average_pooling.py``)."""

from __future__ import annotations

import math

import numpy as np

from ..ops import average_pooling, pooling as ops
from ._registry import maps
from .conv import _pads, fixed_geometry
from .errors import UnsupportedOperatorError


def _refuse_dynamic_planes(graph, call, input, what: str) -> None:
    if not graph.is_static(input) and any(isinstance(d, tuple) for d in graph.dims(input)[2:]):
        raise UnsupportedOperatorError(
            f"Exporting 'minitorch::{call.name}' with a spatial size that changes with the dynamic axes is not "
            f"supported ({what} follow the size; called at {call.where})"
        )


@maps(ops.MaxPool, ops.MaxPool3D, size_aware=True)
def max_pool(graph, call):
    """``MaxPool``; padding counts as ``-inf`` in both. The indices output is not exported."""
    geometry = fixed_geometry(graph, call, 1)
    values = graph.node("MaxPool", [graph.input(call, 0)], kernel_shape=list(geometry.kernel_size),
                        strides=list(geometry.stride), pads=_pads(geometry), dilations=list(geometry.dilation))
    return values, None


@maps(ops.AdaptiveMaxPool)
def adaptive_max_pool(graph, call):
    """To size 1: ``GlobalMaxPool``; to a size that divides the input: ``MaxPool`` with equal windows."""
    input, sizes = call.args
    spatial = input.shape[2:]
    if all(o == 1 for o in sizes):
        return graph.node("GlobalMaxPool", [graph.input(call, 0)]), None
    _refuse_dynamic_planes(graph, call, input, "its windows")
    if any(n % o for n, o in zip(spatial, sizes)):
        raise UnsupportedOperatorError(
            f"Exporting 'minitorch::AdaptiveMaxPool' from {list(spatial)} to {list(sizes)} (windows of unequal "
            f"sizes) is not supported (called at {call.where})"
        )
    kernel = [n // o for n, o in zip(spatial, sizes)]
    return graph.node("MaxPool", [graph.input(call, 0)], kernel_shape=kernel, strides=kernel), None


@maps(average_pooling.AvgPool, average_pooling.AvgPool3D, size_aware=True)
def avg_pool(graph, call):
    """``AveragePool`` counting the padding (a window's sum over its full size), then, where minitorch's divisor
    is another count (padding left out, ``divisor_override``, a ceil-mode window), times ``size / divisor``."""
    geometry = fixed_geometry(graph, call, 1)
    divisor = np.asarray(call.args[2], dtype=np.float64)
    kernel_numel = math.prod(geometry.kernel_size)
    average = graph.node("AveragePool", [graph.input(call, 0)], kernel_shape=list(geometry.kernel_size),
                         strides=list(geometry.stride), pads=_pads(geometry), count_include_pad=1)
    if np.all(divisor == kernel_numel):
        return average
    _refuse_dynamic_planes(graph, call, call.args[0], "its divisors")
    scale = (kernel_numel / divisor).astype(call.args[0].dtype)
    return graph.node("Mul", [average, graph.constant(scale, "avg_pool_scale")])


@maps(average_pooling.AdaptiveAvgPool, average_pooling.AdaptiveAvgPool3D)
def adaptive_avg_pool(graph, call):
    """One ``MatMul`` per spatial axis with its averaging matrix (moved last by a ``Transpose`` and back)."""
    input, matrices = call.args
    _refuse_dynamic_planes(graph, call, input, "its windows")
    output, rank = graph.input(call, 0), len(input.shape)
    for axis, matrix in enumerate(matrices, start=rank - len(matrices)):
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        moved = graph.node("Transpose", [output], perm=perm)
        product = graph.node("MatMul", [moved, graph.constant(np.asarray(matrix.T, dtype=input.dtype), "averaging")])
        output = graph.node("Transpose", [product], perm=perm)
    return output
