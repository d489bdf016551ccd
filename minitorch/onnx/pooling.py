"""ONNX mappings of the pooling ops (``minitorch/ops/pooling.py``).

Average pooling needs none of its own: minitorch computes it as im2col (``conv.py``'s
``Unfold``), a sum and a division, and those map one by one.
"""

from __future__ import annotations

from ..ops import pooling as ops
from ._registry import maps
from .conv import _pads, fixed_geometry
from .errors import UnsupportedOperatorError


@maps(ops.MaxPool, size_aware=True)
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
    if not graph.is_static(input) and any(isinstance(d, tuple) for d in graph.dims(input)[2:]):
        raise UnsupportedOperatorError(
            f"Exporting 'minitorch::AdaptiveMaxPool' to {list(sizes)} with a spatial size that changes with the "
            f"dynamic axes is not supported (its windows follow the size; called at {call.where})"
        )
    if any(n % o for n, o in zip(spatial, sizes)):
        raise UnsupportedOperatorError(
            f"Exporting 'minitorch::AdaptiveMaxPool' from {list(spatial)} to {list(sizes)} (windows of unequal "
            f"sizes) is not supported (called at {call.where})"
        )
    kernel = [n // o for n, o in zip(spatial, sizes)]
    return graph.node("MaxPool", [graph.input(call, 0)], kernel_shape=kernel, strides=kernel), None
