"""Two graph passes a compiler runs before it generates code: constant folding and dead-code elimination.

*Constant folding*: an op whose every input is a constant made inside the function (a mask
from ``minitorch.ones(n, n).triu()``, a scale from ``minitorch.tensor(8.0).sqrt()``) gives the
same result on every call with these guards, so it is computed once, now, and the node is
replaced by a ``get_attr`` of the result. Parameters and inputs are never constants: they
change between calls.

*Dead-code elimination*: a node whose value nobody reads is erased (``Graph.eliminate_dead_code``);
after folding, the ops that only fed folded nodes are dead too.
"""

from __future__ import annotations

import operator

from .._dynamo.capture import array_of
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..fx import GraphModule, map_arg


def _value(graph_module: GraphModule, node):
    value = graph_module
    for atom in node.target.split("."):
        value = getattr(value, atom)
    return value


def constant_fold(graph_module: GraphModule) -> int:
    """Compute now every op that reads only constants; returns how many nodes were folded."""
    constant = {node for node in graph_module.graph.nodes if node.op == "get_attr" and node.meta.get("constant")}
    folded = 0
    for node in list(graph_module.graph.nodes):
        inputs = node.all_input_nodes
        if node.op != "call_function" or not inputs or not all(item in constant for item in inputs):
            continue
        if node.target is array_of or node.target is operator.getitem:
            continue
        with no_grad():
            result = node.target(*map_arg(node.args, lambda item: _value(graph_module, item)),
                                 **map_arg(node.kwargs, lambda item: _value(graph_module, item)))
        if not isinstance(result, Tensor):
            continue  # an op with several outputs stays
        name = f"_folded_constant{folded}"
        graph_module.register_buffer(name, result)
        with graph_module.graph.inserting_before(node):
            replacement = graph_module.graph.get_attr(name)
        replacement.meta.update(node.meta, constant=True)
        node.replace_all_uses_with(replacement)
        graph_module.graph.erase_node(node)
        constant.add(replacement)
        folded += 1
    if folded:
        eliminate_dead_code(graph_module)
    return folded


def eliminate_dead_code(graph_module: GraphModule) -> bool:
    """Erase the nodes nobody reads (get_attr nodes included) and regenerate the code."""
    changed = graph_module.graph.eliminate_dead_code()
    graph_module.recompile()
    return changed
