"""Which ONNX operators each recorded minitorch op becomes: the table the mapping modules fill.

A mapping is a function ``mapping(graph, call)`` that adds ONNX nodes to ``graph`` (a
``GraphBuilder``) for one recorded ``call`` and returns the ONNX name of each output (one
name, or a tuple with one entry per output of the op, ``None`` for outputs nobody reads).
Each family of ops has its own module (``pointwise.py``, ``shape.py``, ``nn.py``...); a
module registers its mappings with the ``maps`` decorator:

    @maps(pointwise.Relu)
    def relu(graph, call):
        return graph.node("Relu", [graph.input(call, 0)])
"""

from __future__ import annotations

MAPPINGS: dict = {}
# Ops whose non-tensor arguments may change with the size of a dynamic axis (a reshape's target
# shape): their mapping builds those sizes from the recorded shapes instead of reading the arguments.
SIZE_AWARE: set = set()


def maps(*ops, size_aware: bool = False):
    """Register the decorated function as the ONNX mapping of ``ops`` (classes or function names)."""

    def register(function):
        for op in ops:
            MAPPINGS[op] = function
            if size_aware:
                SIZE_AWARE.add(op)
        return function

    return register


def mapping_of(op):
    """The mapping of an op class or function name, or ``None``.

    Exactly that class: a subclass may compute something else with the same arguments
    (``Gather`` is a subclass of ``Index``), so each subclass is registered by name.
    """
    return MAPPINGS.get(op)


def is_size_aware(op) -> bool:
    return op in SIZE_AWARE
