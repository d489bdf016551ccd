"""What pytorch/examples' fx scripts rely on, against torch.fx: aliases written by their own names in generated
code (fx/invert.py's ``torch.arctan``), and a Tracer's ``create_node`` called for every node, placeholders
included (fx/custom_tracer.py's TaggingTracer)."""

from __future__ import annotations

import minitorch
from tests.corpus.compare import as_torch_names
from tests.support import require_torch


def _inverted_code(lib):
    graph = lib.fx.Graph()
    output = graph.placeholder("output")
    log = graph.call_function(lib.log, (output,))
    graph.output(graph.call_function(lib.arctan, (log,)))
    return lib.fx.GraphModule(lib.nn.Module(), graph).code


def test_an_alias_is_written_by_its_own_name():
    torch = require_torch()
    assert as_torch_names(_inverted_code(minitorch)) == _inverted_code(torch)
    assert [f.__name__ for f in (minitorch.arctan, minitorch.absolute, minitorch.atan)] == [
        f.__name__ for f in (torch.arctan, torch.absolute, torch.atan)]


def _tags(lib):
    class TaggingTracer(lib.fx.Tracer):
        def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
            node = super().create_node(kind, target, args, kwargs, name)
            node.tag = "foo"
            return node

    class M(lib.nn.Module):
        def forward(self, a, b=2.0):
            return a + b

    graph = TaggingTracer().trace(M())
    return [(node.op, node.name, str(node.args), getattr(node, "tag", None)) for node in graph.nodes]


def test_a_tracer_overriding_create_node_sees_every_node_placeholders_included():
    torch = require_torch()
    assert _tags(minitorch) == _tags(torch)
