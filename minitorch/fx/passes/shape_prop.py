"""``ShapeProp``: run a graph once on example inputs and note each value's shape and dtype on its node.

An ``Interpreter`` that, after running a node, stores a ``TensorMetadata`` for its result in
``node.meta["tensor_meta"]`` (a tuple of them when the node returns several tensors), as
``torch.fx.passes.shape_prop.ShapeProp`` does. A pass that needs sizes (a memory planner, a
fusion rule) reads them from there.

    >>> import minitorch
    >>> from minitorch import fx
    >>> from minitorch.fx.passes.shape_prop import ShapeProp
    >>> traced = fx.symbolic_trace(minitorch.nn.Linear(4, 3))
    >>> ShapeProp(traced).propagate(minitorch.randn(2, 4)).shape
    minitorch.Size([2, 3])
    >>> [tuple(node.meta["tensor_meta"].shape) for node in traced.graph.nodes]
    [(2, 4), (3, 4), (3,), (2, 3), (2, 3)]
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..._tensor import Tensor
from ..interpreter import Interpreter
from ..node import Node, map_aggregate


class TensorMetadata(NamedTuple):
    """What a pass may need to know about a tensor without its values."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _metadata(tensor: Tensor) -> TensorMetadata:
    memory_format = "torch.contiguous_format" if tensor.is_contiguous() else None
    return TensorMetadata(tensor.shape, tensor.dtype, tensor.requires_grad, tuple(tensor.stride()), memory_format,
                          False, {})


class ShapeProp(Interpreter):
    """Runs the graph on example inputs, recording ``node.meta["tensor_meta"]`` for every tensor result."""

    def run_node(self, n: Node) -> Any:
        result = super().run_node(n)
        found = []

        def describe(value):
            if isinstance(value, Tensor):
                found.append(True)
                return _metadata(value)
            return value

        metadata = map_aggregate(result, describe)
        if found:
            n.meta["tensor_meta"] = metadata
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args) -> Any:
        """Run the graph on ``args``; the nodes then carry their results' metadata."""
        return super().run(*args)
