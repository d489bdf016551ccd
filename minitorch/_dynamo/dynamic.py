"""Dynamic sizes: one captured graph for every size of the dimensions that vary.

A graph captured at batch 8 holds the number 8 wherever the function computed with the batch
size (``x.reshape(x.shape[0] * 2, -1)``, a slice ``mask[:T]``). PyTorch makes such sizes
*symbolic* (``SymInt``): the graph reads them from its inputs (``sym_size``) and computes
with them, so a new batch size needs no new graph. ``minitorch.compile(..., dynamic=True)``
does this from the first call; by default (``dynamic=None``), as in PyTorch's "automatic
dynamic", the dimensions whose size changed between two calls become symbolic on the second.

minitorch records by running the function, so it learns how each number depends on the sizes
by running it again at other sizes (``probe``): each symbolic size grown by 1, by 2, and all
together, the inputs grown by repeating their last slice (real values, so indices stay in
range). A number that changed is then written as ``a * s + b`` or ``a * s * t + b`` over the
sizes ``s``, ``t`` (``fit``), and checked against every recording; anything else (a size
that is not such an expression, a constant made from a size, a different sequence of ops)
keeps the graph static. Dimensions of equal size are one symbol and stay equal (PyTorch's
"duck sizing"); sizes 0 and 1 are never symbolic (a size-1 batch broadcasts differently).

``make_symbolic`` writes the result as an FX graph: ``sym_size(x, 0)`` nodes read the sizes,
``operator.mul``/``operator.add`` nodes compute with them, and the ops take those nodes where
they took numbers; each node keeps its symbolic shape in ``meta["sym_val"]``. The ``"eager"``
backend replays it as it is; code-generating backends write their NumPy code for each concrete
size the first time it arrives (``PerSize``), from this one graph: no new graph for the backend.

Rules fitted from a few sizes can miss one that only shows at another size (``split(x, 3)``
makes one more piece at some sizes). So the first call at each new size runs eagerly while it
is recorded, and the graph serves that size from then on only if, with the size written in, it
equals that recording (``same_graph``); else that size keeps running eagerly. PyTorch reasons
about such sizes symbolically instead, and guards them.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass

import numpy as np

from .._tensor import Tensor
from ..fx import Graph, GraphModule, Node


class NotDynamic(Exception):
    """The recordings at other sizes do not give one graph with symbolic sizes (the reason says why)."""


def sym_size(tensor, dim: int) -> int:
    """The size of ``tensor`` along ``dim``, read at run time (PyTorch's ``aten.sym_size.int``)."""
    return tensor.shape[dim]


@dataclass(frozen=True)
class SymExpr:
    """``coef * (product of symbols) + offset``: a number the function computed from sizes."""

    coef: int
    symbols: tuple
    offset: int

    def evaluate(self, sizes: dict) -> int:
        return self.coef * math.prod(sizes[symbol] for symbol in self.symbols) + self.offset

    def __repr__(self) -> str:
        text = "*".join(([str(self.coef)] if self.coef != 1 else []) + list(self.symbols))
        return text + (f"+{self.offset}" if self.offset > 0 else f"{self.offset}" if self.offset else "")


def grow(tensor, dim: int, by: int):
    """``tensor`` longer by ``by`` along ``dim``, its last slice repeated (values the function accepts)."""
    array = tensor._data
    grown = np.concatenate([array, np.repeat(np.take(array, [-1], axis=dim), by, axis=dim)], axis=dim)
    result = Tensor._make(grown, tensor._device)
    result._requires_grad = tensor._requires_grad
    return result


def symbols_of(tensors: list, candidates) -> dict:
    """Symbol name -> (its size now, the (input, dim) pairs it stands for): equal sizes share one symbol."""
    by_size: dict[int, list] = {}
    for index, dim in sorted(candidates):
        size = tensors[index]._data.shape[dim]
        if size >= 2:  # 0 and 1 stay specialized, as in PyTorch
            by_size.setdefault(size, []).append((index, dim))
    return {f"s{number}": (size, places) for number, (size, places) in enumerate(sorted(by_size.items()))}


def grown_inputs(tensors: list, symbols: dict, steps: dict) -> list:
    """The inputs with each symbol's dimensions grown by ``steps[symbol]``."""
    grown = list(tensors)
    for symbol, step in steps.items():
        for index, dim in symbols[symbol][1]:
            grown[index] = grow(grown[index], dim, step)
    return grown


def _fit_number(values: dict, symbols: dict):
    """An int seen in every recording -> the int, or the ``SymExpr`` all recordings agree on.

    ``values`` maps a recording's steps (``(("s0", 1),)``, ``()`` for the base) to the int it held.
    """
    base = values[()]
    if all(value == base for value in values.values()):
        return base
    sizes = {symbol: size for symbol, (size, _) in symbols.items()}
    depends = [symbol for symbol in symbols if values.get(((symbol, 1),), base) != base]
    if len(depends) == 1:
        (symbol,) = depends
        expr = SymExpr(values[((symbol, 1),)] - base, (symbol,), 0)
        expr = SymExpr(expr.coef, expr.symbols, base - expr.evaluate(sizes))
    elif len(depends) == 2:
        first, second = depends
        coef, remainder = divmod(values[((first, 1),)] - base, sizes[second])
        if remainder:
            raise NotDynamic(f"the number {base} grows with two sizes but not as their product")
        expr = SymExpr(coef, (first, second), 0)
        expr = SymExpr(coef, expr.symbols, base - expr.evaluate(sizes))
    else:
        raise NotDynamic(f"the number {base} depends on {len(depends)} sizes or on none of them alone")
    for steps, value in values.items():  # every recording must agree, or the number is not this expression
        grown = dict(sizes)
        for symbol, step in steps:
            grown[symbol] += step
        if expr.evaluate(grown) != value:
            raise NotDynamic(f"the number {base} follows no rule a * size + b or a * size * size + b")
    return expr


def _fit(items: dict, symbols: dict):
    """The same structure seen in every recording (``items``: steps -> value), with ints fitted."""
    base = items[()]
    if type(base) is int:
        if any(type(value) is not int for value in items.values()):
            raise NotDynamic("a recording held something else where another held a number")
        return _fit_number(items, symbols)
    if isinstance(base, (tuple, list)) and not hasattr(base, "_fields"):
        if any(not isinstance(value, type(base)) or len(value) != len(base) for value in items.values()):
            raise NotDynamic("the recordings differ in the length of an argument")
        return type(base)(_fit({steps: value[i] for steps, value in items.items()}, symbols)
                          for i in range(len(base)))
    if isinstance(base, dict):
        return {key: _fit({steps: value[key] for steps, value in items.items()}, symbols) for key in base}
    if isinstance(base, slice):  # x[:, :T]: the bounds may be sizes
        if any(type(value) is not slice for value in items.values()):
            raise NotDynamic("a recording held something else where another held a slice")
        return slice(*[_fit({steps: getattr(value, part) for steps, value in items.items()}, symbols)
                       for part in ("start", "stop", "step")])
    if isinstance(base, Node):
        names = {value.name if isinstance(value, Node) else None for value in items.values()}
        if len(names) != 1:
            raise NotDynamic("the recordings read different values")
        return base
    if isinstance(base, np.ndarray):
        if any(not np.array_equal(value, base) for value in items.values()):
            raise NotDynamic("an array argument differs between recordings")
        return base
    for value in items.values():
        try:
            same = value is base or type(value) is type(base) and bool(value == base)
        except Exception:  # noqa: BLE001 - a value without a plain equality (a tensor): only itself is the same
            same = False
        if not same:
            raise NotDynamic(f"the argument {base!r} differs between recordings")
    return base


def fit(graphs: dict, symbols: dict) -> tuple[dict, dict]:
    """Per node name of the base recording: its arguments and its shape with numbers fitted to the sizes.

    ``graphs`` maps each recording's steps to its graph module; they must hold the same ops in order.
    """
    base = graphs[()]
    sequences = {steps: list(module.graph.nodes) for steps, module in graphs.items()}
    if len({len(nodes) for nodes in sequences.values()}) != 1:
        raise NotDynamic("the function runs a different number of ops at another size")
    arguments, shapes = {}, {}
    for position, node in enumerate(base.graph.nodes):
        others = {steps: nodes[position] for steps, nodes in sequences.items()}
        if any(other.op != node.op or other.target != node.target and node.op != "get_attr" or
               other.name != node.name for other in others.values()):
            raise NotDynamic(f"the op '{node.name}' is not the same at another size")
        if node.op == "get_attr":
            shapes_seen = {tuple(np.shape(getattr_path(module, other.target)._data))
                           for module, other in ((graphs[steps], other) for steps, other in others.items())}
            if len(shapes_seen) != 1:
                raise NotDynamic(f"the constant '{node.target}' was made with a size (it would be stale)")
        arguments[node.name] = _fit({steps: (other.args, other.kwargs) for steps, other in others.items()}, symbols)
        if "val" in node.meta:
            shapes[node.name] = _fit({steps: _shape_part(other.meta["val"]) for steps, other in others.items()},
                                     symbols)
    return arguments, shapes


def _shape_part(value):
    """``meta["val"]`` without dtypes: ``(shape, dtype)`` -> shape; a tuple of them -> a tuple of shapes."""
    if value is None:
        return None
    if len(value) == 2 and isinstance(value[0], tuple) and not isinstance(value[1], tuple):
        return tuple(value[0])
    return tuple(_shape_part(item) for item in value)


def getattr_path(module, target: str):
    for part in target.split("."):
        module = getattr(module, part)
    return module


def make_symbolic(base: GraphModule, arguments: dict, shapes: dict, symbols: dict, input_names: list) -> GraphModule:
    """The base graph with its sizes read by ``sym_size`` nodes and computed by arithmetic nodes."""
    graph, copies = Graph(), {}
    old_nodes = list(base.graph.nodes)
    placeholders = [node for node in old_nodes if node.op == "placeholder"]
    for node in placeholders:
        copies[node] = graph.node_copy(node)
    size_nodes: dict = {}
    for symbol, (_, places) in symbols.items():
        index, dim = places[0]
        node = graph.call_function(sym_size, (copies[placeholders[index]], dim))
        node.meta["size_of"] = symbol
        size_nodes[symbol] = node
    expressions: dict[SymExpr, Node] = {}

    def value_of(item):
        if isinstance(item, SymExpr):
            if item not in expressions:
                node = size_nodes[item.symbols[0]]
                for symbol in item.symbols[1:]:
                    node = graph.call_function(operator.mul, (node, size_nodes[symbol]))
                if item.coef != 1:
                    node = graph.call_function(operator.mul, (node, item.coef))
                if item.offset:
                    node = graph.call_function(operator.add, (node, item.offset))
                expressions[item] = node
            return expressions[item]
        if isinstance(item, Node):
            return copies[item]
        if isinstance(item, (tuple, list)) and not hasattr(item, "_fields"):
            return type(item)(value_of(part) for part in item)
        if isinstance(item, dict):
            return {key: value_of(part) for key, part in item.items()}
        if isinstance(item, slice):
            return slice(value_of(item.start), value_of(item.stop), value_of(item.step))
        return item

    for node in old_nodes:
        if node.op == "placeholder":
            copies[node].meta["sym_val"] = shapes.get(node.name)
            continue
        args, kwargs = arguments[node.name]
        copy = graph.create_node(node.op, node.target, value_of(args), value_of(kwargs), node.name)
        copy.meta = dict(node.meta)
        if node.name in shapes:
            copy.meta["sym_val"] = shapes[node.name]
        copies[node] = copy
    module = GraphModule(base, graph, "CapturedGraph")
    module.symbols = {symbol: places for symbol, (_, places) in symbols.items()}
    return module


def has_sizes(graph_module: GraphModule) -> bool:
    return any(node.op == "call_function" and node.target is sym_size for node in graph_module.graph.nodes)


def _concrete(value, sizes: dict):
    if isinstance(value, SymExpr):
        return value.evaluate(sizes)
    if isinstance(value, tuple):
        return tuple(_concrete(item, sizes) for item in value)
    return value


def _is_size_node(node: Node, values: dict) -> bool:
    return node.op == "call_function" and (node.target is sym_size or node.target in (operator.mul, operator.add)
                                           and all(arg in values or not isinstance(arg, Node) for arg in node.args))


def specialize(graph_module: GraphModule, inputs: list) -> GraphModule:
    """The symbolic graph with the sizes of ``inputs`` written in: the graph a static capture would give."""
    placeholders = [node for node in graph_module.graph.nodes if node.op == "placeholder"]
    known = dict(zip(placeholders, inputs))
    values: dict[Node, int] = {}
    sizes = {}
    for node in graph_module.graph.nodes:  # the sizes first: every shape below is written with them
        if _is_size_node(node, values):
            args = [values.get(arg, arg) if isinstance(arg, Node) else arg for arg in node.args]
            values[node] = sym_size(known[node.args[0]], node.args[1]) if node.target is sym_size else \
                node.target(*args)
            if "size_of" in node.meta:
                sizes[node.meta["size_of"]] = values[node]
    graph, copies = Graph(), {}
    for node in graph_module.graph.nodes:
        if node in values:
            continue
        copy = graph.node_copy(node, lambda arg: values[arg] if arg in values else copies[arg])
        if node.meta.get("sym_val") is not None:
            shape = _concrete(node.meta["sym_val"], sizes)
            old = node.meta["val"]
            copy.meta["val"] = (shape, old[1]) if _single_meta(old) else tuple(
                None if item is None else (part, item[1]) for part, item in zip(shape, old))
        copies[node] = copy
    return GraphModule(graph_module, graph, "CapturedGraph")


def _single_meta(value) -> bool:
    return len(value) == 2 and isinstance(value[0], tuple) and not isinstance(value[1], tuple)


def same_graph(specialized: GraphModule, recorded: GraphModule) -> bool:
    """Whether the symbolic graph, with this call's sizes written in, is the graph a recording at these sizes
    gave: the same ops with the same arguments and result shapes.

    Sizes are fitted from a few recordings; a rule they cannot see (``min(m, n)``, the number of
    pieces ``split`` makes) shows here, at the first call of each new size, which runs eagerly
    while it is recorded. A size whose recording differs keeps running eagerly: a graph with
    symbolic sizes gives eager's answer or none.
    """
    try:
        fit({(): specialized, (("recorded", 0),): recorded}, {})
    except NotDynamic:
        return False
    return True


class PerSize:
    """A backend for a graph with symbolic sizes: it writes the code for each concrete size the first time
    that size arrives (from the one captured graph), and reuses it for later calls of that size."""

    def __init__(self, graph_module: GraphModule, compile_graph):
        self.graph_module, self.compile_graph = graph_module, compile_graph
        placeholders = [node for node in graph_module.graph.nodes if node.op == "placeholder"]
        self.reads = [(placeholders.index(node.args[0]), node.args[1]) for node in graph_module.graph.nodes
                      if node.op == "call_function" and node.target is sym_size]
        self.compiled: dict = {}

    def __call__(self, *inputs):
        sizes = tuple([inputs[index]._data.shape[dim] for index, dim in self.reads])
        compiled = self.compiled.get(sizes)
        if compiled is None:
            compiled = self.compiled[sizes] = self.compile_graph(specialize(self.graph_module, list(inputs)),
                                                                 list(inputs))
        return compiled(*inputs)


def per_size(compile_graph):
    """``compile_graph`` made to accept graphs with symbolic sizes (``PerSize``); static graphs pass through."""

    def backend(graph_module, example_inputs):
        if has_sizes(graph_module):
            return PerSize(graph_module, compile_graph)
        return compile_graph(graph_module, example_inputs)

    backend.__name__ = getattr(compile_graph, "__name__", "backend")
    return backend
