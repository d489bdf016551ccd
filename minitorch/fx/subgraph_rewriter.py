"""``replace_pattern``: find a small program inside a graph and put another in its place (PyTorch's subgraph rewriter).

``pattern`` and ``replacement`` are functions (or modules) that are traced into graphs of
their own. A match is a set of nodes of the big graph that computes what the pattern computes:

* the search starts from the pattern's *anchors*, the nodes its ``output`` returns, and walks
  backwards through their arguments in both graphs at once. Two nodes match when their ``op``
  and ``target`` are the same and their arguments match in turn (nodes recursively, lists item
  by item, constants by equality);
* a ``placeholder`` of the pattern matches any value, the same one wherever it is read;
* the match must be self-contained: a node inside it that the pattern does not return may not
  be read from outside (it will be erased);
* matches are found in the order of the graph, and one that shares a node with an earlier
  match is dropped.

For each match, the replacement's graph is copied in just before the first node that reads the
matched result (its placeholders bound to what the pattern's placeholders matched), the readers
are pointed at the copy, and the matched nodes are erased.

    >>> import minitorch
    >>> from minitorch import fx
    >>> def f(x):
    ...     return minitorch.relu(minitorch.neg(x)) + 1
    >>> traced = fx.symbolic_trace(f)
    >>> matches = fx.replace_pattern(traced, lambda a: minitorch.relu(minitorch.neg(a)),
    ...                              lambda a: minitorch.sigmoid(a))
    >>> print(traced.code.strip())
    def forward(self, x):
        sigmoid = minitorch.sigmoid(x);  x = None
        add = sigmoid + 1;  sigmoid = None
        return add
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..nn import Module
from ._symbolic_trace import symbolic_trace
from .graph import Graph
from .graph_module import GraphModule, _copy_attr
from .node import Node


class Match(NamedTuple):
    """One replaced match: the graph node that matched the pattern's (first) anchor, and every pattern node's match."""

    anchor: Node
    nodes_map: dict[Node, Node]


def _graph_of(program: Callable | Graph | GraphModule) -> Graph:
    if isinstance(program, GraphModule):
        return program.graph
    if isinstance(program, Graph):
        return program
    return symbolic_trace(program).graph


def _same_kind(pattern_node: Node, node: Node) -> bool:
    """A pattern placeholder matches any node; other nodes need the same op and target."""
    if pattern_node.op == "placeholder":
        return True
    return pattern_node.op == node.op and pattern_node.target == node.target


def _match_value(pattern_value: Any, value: Any, nodes_map: dict) -> bool:
    """Match one argument: nodes recursively, lists and tuples item by item, constants by type and value."""
    if isinstance(pattern_value, Node) and isinstance(value, Node):
        return _match_node(pattern_value, value, nodes_map)
    if isinstance(pattern_value, (list, tuple)) and isinstance(value, (list, tuple)):
        return len(pattern_value) == len(value) and all(
            _match_value(p, v, nodes_map) for p, v in zip(pattern_value, value))
    if isinstance(pattern_value, Node):  # a pattern input may stand for a constant of the graph
        if pattern_value.op != "placeholder":
            return False
        if pattern_value in nodes_map:
            return nodes_map[pattern_value] == value
        nodes_map[pattern_value] = value
        return True
    if isinstance(value, Node):
        return False
    return type(pattern_value) is type(value) and pattern_value == value


def _match_node(pattern_node: Node, node: Node, nodes_map: dict) -> bool:
    """Whether ``node`` computes what ``pattern_node`` does; extends ``nodes_map`` (undone on failure)."""
    if pattern_node in nodes_map:
        return nodes_map[pattern_node] is node
    if any(matched is node for matched in nodes_map.values()) or not _same_kind(pattern_node, node):
        return False
    saved = dict(nodes_map)
    nodes_map[pattern_node] = node
    if pattern_node.op == "placeholder":
        return True
    if len(pattern_node.args) != len(node.args) or list(pattern_node.kwargs) != list(node.kwargs):
        found = False
    else:
        found = _match_value(list(pattern_node.args) + list(pattern_node.kwargs.values()),
                             list(node.args) + list(node.kwargs.values()), nodes_map)
    if not found:
        nodes_map.clear()
        nodes_map.update(saved)
    return found


def _is_contained(nodes_map: dict, returning: list[Node]) -> bool:
    """No node of the match but the ones it returns is read from outside the match."""
    inside = {node for pattern_node, node in nodes_map.items() if isinstance(node, Node)
              and pattern_node.op != "placeholder"}
    for pattern_node, node in nodes_map.items():
        if pattern_node.op == "placeholder" or pattern_node in returning:
            continue
        if any(user not in inside for user in node.users):
            return False
    return True


def _find_matches(pattern: Graph, graph: Graph) -> list[dict[Node, Node]]:
    output = pattern.output_node()
    anchors = list(output.all_input_nodes)
    matches: list[dict[Node, Node]] = []

    def extend(index: int, nodes_map: dict) -> None:
        if index == len(anchors):
            matches.append(dict(nodes_map))
            return
        for candidate in graph.nodes:
            attempt = dict(nodes_map)
            if _same_kind(anchors[index], candidate) and _match_node(anchors[index], candidate, attempt):
                extend(index + 1, attempt)

    extend(0, {})
    matches = [nodes_map for nodes_map in matches if _is_contained(nodes_map, anchors)]
    kept, used = [], set()
    for nodes_map in matches:  # matches that overlap an earlier one are dropped
        computed = {node for pattern_node, node in nodes_map.items() if pattern_node.op != "placeholder"}
        if computed & used:
            continue
        used |= computed
        kept.append(nodes_map)
    return kept


def replace_pattern(gm: GraphModule, pattern: Callable | Graph | GraphModule,
                    replacement: Callable | Graph | GraphModule) -> list[Match]:
    """Replace every non-overlapping match of ``pattern`` in ``gm``'s graph by ``replacement``; returns the matches.

    ``pattern`` and ``replacement`` take the same inputs in the same order. ``gm`` is recompiled.
    """
    pattern_graph, replacement_graph = _graph_of(pattern), _graph_of(replacement)
    graph = gm.graph
    pattern_placeholders = [node for node in pattern_graph.nodes if node.op == "placeholder"]
    replacement_placeholders = [node for node in replacement_graph.nodes if node.op == "placeholder"]
    anchors = list(pattern_graph.output_node().all_input_nodes)
    returned = pattern_graph.output_node().args[0]
    returned = list(returned) if isinstance(returned, (list, tuple)) else [returned]
    if len(pattern_placeholders) != len(replacement_placeholders):
        raise AssertionError(f"Placeholder count mismatch: {len(pattern_placeholders)} vs "
                             f"{len(replacement_placeholders)}")
    replaced_by: dict[Node, Node] = {}  # a node an earlier replacement took the place of -> its replacement
    results = []
    for nodes_map in _find_matches(pattern_graph, graph):
        value_map = {}
        for pattern_input, replacement_input in zip(pattern_placeholders, replacement_placeholders):
            value = nodes_map.get(pattern_input)
            value_map[replacement_input] = replaced_by.get(value, value) if isinstance(value, Node) else value
        returning = [nodes_map[node] for node in returned]
        users = {user for node in returning for user in node.users}
        insert_point = next((node for node in graph.nodes if node in users), None)
        if insert_point is None:  # nothing reads the result: after the last node of the match
            insert_point = next(node for node in reversed(graph.nodes) if node in returning).next
        with graph.inserting_before(insert_point):
            copied = graph.graph_copy(replacement_graph, value_map)
        copied = list(copied) if isinstance(copied, (list, tuple)) else [copied]
        if len(copied) != len(returning):
            raise AssertionError(f"Returning nodes count mismatch: {len(returning)} vs {len(copied)}")
        for old, new in zip(returning, copied):
            old.replace_all_uses_with(new)
            replaced_by[old] = new
        for pattern_node in reversed(pattern_graph.nodes):  # readers before what they read
            if pattern_node.op not in ("placeholder", "output"):
                graph.erase_node(nodes_map[pattern_node])
        results.append(Match(anchor=anchors[0], nodes_map=nodes_map))
    gm.recompile()
    if isinstance(replacement, Module):  # what the copied get_attr/call_module nodes read, taken from the replacement
        for node in replacement_graph.nodes:
            if node.op in ("get_attr", "call_module") and not _has_attr(gm, node.target):
                _copy_attr(replacement, gm, node.target)
    return results


def _has_attr(module: Module, target: str) -> bool:
    for atom in target.split("."):
        if not hasattr(module, atom):
            return False
        module = getattr(module, atom)
    return True
