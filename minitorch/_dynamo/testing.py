"""A backend that counts what it is given (``torch._dynamo.testing.CompileCounter``)."""

from __future__ import annotations

from .backends import lookup_backend


class CompileCounter:
    """A backend that counts the graphs it receives (``frame_count``) and their ops (``op_count``),
    and runs each graph as it is."""

    def __init__(self):
        self.frame_count = 0
        self.op_count = 0
        self.graphs = []

    def __call__(self, graph_module, example_inputs):
        self.frame_count += 1
        self.op_count += sum(node.op == "call_function" for node in graph_module.graph.nodes)
        self.graphs.append(graph_module)
        return graph_module.forward

    def clear(self) -> None:
        self.frame_count = self.op_count = 0
        self.graphs = []


class CompileCounterWithBackend(CompileCounter):
    """Counts like ``CompileCounter``, then compiles with ``backend`` (a name or a function)."""

    def __init__(self, backend):
        super().__init__()
        self.backend = lookup_backend(backend)

    def __call__(self, graph_module, example_inputs):
        super().__call__(graph_module, example_inputs)
        return self.backend(graph_module, example_inputs)
