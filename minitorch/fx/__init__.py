"""``minitorch.fx``: a program as a graph you can print, edit and run (PyTorch's ``torch.fx``).

``symbolic_trace(module)`` runs ``forward`` once on proxies (``proxy.py``), records every
operation as a ``Node`` of a ``Graph`` (``node.py``, ``graph.py``, ``_symbolic_trace.py``) and
returns a ``GraphModule`` (``graph_module.py``) whose ``forward`` is Python generated from the
graph (``codegen.py``). A pass edits the graph with ``inserting_after``, ``call_function``,
``replace_all_uses_with``, ``erase_node``, ``eliminate_dead_code`` and then calls
``recompile()``; an ``Interpreter`` (``interpreter.py``) runs a graph node by node, and a
``Transformer`` runs it on proxies to build an edited copy. ``replace_pattern``
(``subgraph_rewriter.py``) finds every match of a small traced program in a graph and splices
another in its place; a ``Proxy`` of a ``GraphAppendingTracer`` adds nodes to an existing graph
by calling functions on it, outside any trace.
"""

from ._symbolic_trace import Tracer, symbolic_trace, wrap
from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, map_arg
from .proxy import Attribute, GraphAppendingTracer, Proxy, TraceError
from .subgraph_rewriter import replace_pattern

__all__ = ["Attribute", "Graph", "GraphAppendingTracer", "GraphModule", "Interpreter", "Node", "Proxy", "TraceError",
           "Tracer", "Transformer", "map_arg", "replace_pattern", "symbolic_trace", "wrap"]
