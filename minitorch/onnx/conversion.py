"""ONNX mapping of ``to`` (``minitorch/ops/conversion.py``): a change of dtype is ``Cast``; of device, nothing."""

from __future__ import annotations

from ..ops import conversion as ops
from ._registry import maps


@maps(ops.ToCopy)
def to_copy(graph, call):
    x, output = call.args[0], call.outputs[0]
    name = graph.input(call, 0)
    return graph.node("Identity", [name]) if x.dtype == output.dtype else graph.cast(name, output.dtype)
