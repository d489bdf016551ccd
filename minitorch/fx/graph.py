"""``Graph``: a program as a list of ``Node``s, and the edits a pass makes to it.

The list is doubly linked and closed by a sentinel ``root`` node, so inserting before or
after any node, or erasing one, touches only its neighbours. New nodes go to the *insert
point*, the end of the list unless a ``with graph.inserting_after(node):`` block says
otherwise. Every node has a unique, readable name: the function or module it calls, made
unique with ``_1``, ``_2``... (``add``, ``add_1``).

    >>> import operator
    >>> from minitorch import fx
    >>> graph = fx.Graph()
    >>> x = graph.placeholder("x")
    >>> doubled = graph.call_function(operator.add, (x, x))
    >>> _ = graph.output(doubled)
    >>> print(graph)
    graph():
        %x : [num_users=1] = placeholder[target=x]
        %add : [num_users=1] = call_function[target=operator.add](args = (%x, %x), kwargs = {})
        return add

The passes a compiler needs are short on this structure: ``eliminate_dead_code`` walks the
list backwards and erases every pure node nobody reads; ``lint`` checks that each node
reads only nodes defined before it.
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import re
from collections.abc import Callable, Iterator
from typing import Any

from .codegen import PythonCode, python_code
from .node import Node, map_arg, target_text

_EMPTY = inspect.Signature.empty


class _NodeList:
    """The nodes of a graph in order (``graph.nodes``): iterate, reverse, ``len``."""

    def __init__(self, graph: Graph, reverse: bool = False):
        self.graph, self.reverse = graph, reverse

    def __len__(self) -> int:
        return self.graph._len

    def __iter__(self) -> Iterator[Node]:
        root = self.graph._root
        step = "_prev" if self.reverse else "_next"
        node = getattr(root, step)
        while node is not root:
            following = getattr(node, step)  # read before the body may erase ``node``
            if not node._erased:
                yield node
            node = following

    def __reversed__(self) -> Iterator[Node]:
        return iter(_NodeList(self.graph, not self.reverse))


class _InsertPoint:
    """``with graph.inserting_after(node):`` - new nodes go there until the block ends."""

    def __init__(self, graph: Graph, insert: Callable[[Node], None]):
        self.graph, self.insert = graph, insert

    def __enter__(self):
        self.previous, self.graph._insert = self.graph._insert, self.insert

    def __exit__(self, *exc_info):
        self.graph._insert = self.previous
        return False


class _Namespace:
    """Unique Python names for nodes: ``add``, ``add_1``... never a keyword or a builtin's name."""

    _name_pattern = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")

    def __init__(self):
        self.used: set[str] = set()
        self.count: dict[str, int] = {}

    def create_name(self, candidate: str) -> str:
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = "_" + candidate
        base, number = self._name_pattern.match(candidate).group(1, 2)
        if number is None or candidate in self.used:
            number = self.count.get(base, 0)
            if keyword.iskeyword(candidate) or hasattr(builtins, candidate):
                number += 1
                candidate = f"{base}_{number}"
        else:
            number = int(number)
        while candidate in self.used:
            number += 1
            candidate = f"{base}_{number}"
        self.used.add(candidate)
        self.count[base] = number
        return candidate


def _candidate_name(op: str, target: Any) -> str:
    """A node's name before it is made unique: ``fc.weight`` -> ``fc_weight``, ``__add__`` -> ``add``,
    ``layerNorm`` -> ``layer_norm`` (PyTorch's rule)."""
    if callable(target):
        name = getattr(target, "__name__", type(target).__name__)
    else:
        name = target
        if name.startswith("__") and name.endswith("__"):
            name = name[2:-2]
    return re.sub(r"(?<=[a-z])([A-Z])", r"_\1", name).lower()


class Graph:
    """An FX graph: ``placeholder`` nodes, the calls, and one ``output`` node."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node.__new__(Node)  # the sentinel that closes the list; never yielded by ``nodes``
        self._root.__dict__.update(graph=self, name="", op="root", target="", users={}, _prev=self._root,
                                   _next=self._root, _erased=False, _args=(), _kwargs={}, _input_nodes={})
        self._insert = self._root.prepend  # by default, new nodes go at the end
        self._len = 0
        self._namespace = _Namespace()
        self.owning_module = owning_module
        self._tracer_cls = tracer_cls

    @property
    def nodes(self) -> _NodeList:
        return _NodeList(self)

    def output_node(self) -> Node:
        """The last node, the ``output`` (a method, as in PyTorch)."""
        return next(iter(reversed(self.nodes)))

    def find_nodes(self, *, op: str, target: Any = None) -> list[Node]:
        """The nodes with this ``op`` (and ``target``, if given), in order."""
        return [node for node in self.nodes if node.op == op and (target is None or node.target == target)]

    # -- making nodes ------------------------------------------------------------------------
    def create_node(self, op: str, target: Any, args: tuple | None = None, kwargs: dict | None = None,
                    name: str | None = None, type_expr: Any = None) -> Node:
        """A new node at the insert point, named ``name`` or after its target."""
        unique = self._namespace.create_name(name if name is not None else _candidate_name(op, target))
        node = Node(self, unique, op, target, tuple(args or ()), dict(kwargs or {}), type_expr)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name: str, type_expr: Any = None, default_value: Any = _EMPTY) -> Node:
        """An input of the function; ``default_value`` makes it optional."""
        args = () if default_value is _EMPTY else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any = None) -> Node:
        """Read ``self.<qualified_name>`` (a parameter, buffer or constant of the owning module)."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    type_expr: Any = None) -> Node:
        """Call ``self.<module_name>(*args, **kwargs)``."""
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args: tuple | None = None, kwargs: dict | None = None,
                    type_expr: Any = None) -> Node:
        """Call ``args[0].<method_name>(*args[1:], **kwargs)``."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args: tuple | None = None, kwargs: dict | None = None,
                      type_expr: Any = None) -> Node:
        """Call ``the_function(*args, **kwargs)``."""
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result: Any, type_expr: Any = None) -> Node:
        """The value the function returns (a node, or a tuple/list/dict of them)."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node: Node, arg_transform: Callable[[Node], Any] = lambda x: x) -> Node:
        """A copy of ``node`` (from any graph) here, its node arguments mapped by ``arg_transform``."""
        copy = self.create_node(node.op, node.target, map_arg(node.args, arg_transform),
                                map_arg(node.kwargs, arg_transform), node.name, node.type)
        copy.meta = dict(node.meta)
        return copy

    def graph_copy(self, graph: Graph, value_remap: dict, return_output_node: bool = False):
        """Copy every node of ``graph`` but its output here; returns what its output returned, remapped.

        A node already in ``value_remap`` is not copied: it stands for the value it maps to (how a
        placeholder of ``graph`` is bound to a node of this one).
        """
        for node in graph.nodes:
            if node in value_remap:
                continue
            if node.op == "output":
                output = map_arg(node.args[0], value_remap.__getitem__)
                return (output, node) if return_output_node else output
            value_remap[node] = self.node_copy(node, value_remap.__getitem__)
        return None

    # -- editing ------------------------------------------------------------------------------
    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """New nodes go just before ``n`` (at the start of the graph when ``n`` is None)."""
        if n is None:
            return self.inserting_after(self._root)
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """New nodes go just after ``n`` (at the end of the graph when ``n`` is None).

        As in PyTorch, each new node goes directly after ``n``, so several inserted in one
        block end up in reverse order; insert after the last new node to keep them in order.
        """
        if n is None:
            return self.inserting_before(self._root)
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase: Node) -> None:
        """Remove a node that nobody reads any more."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in the "
                               f"graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})  # it no longer reads its inputs

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Erase every node whose value nobody reads and that has no side effect; True if any was.

        Walking backwards erases a whole dead chain in one pass: once the last node of the
        chain is gone, the one before it has no users either.
        """
        is_impure = is_impure_node or Node.is_impure
        changed = False
        for node in reversed(self.nodes):
            if not is_impure(node) and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    # -- checking and printing -------------------------------------------------------------------
    def lint(self) -> None:
        """Check the graph is well formed: nodes belong to it, read only earlier nodes, names unique,
        and (with an owning module) every ``get_attr``/``call_module`` target exists."""
        seen: set[Node] = set()
        names: set[str] = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for argument in node.all_input_nodes:
                if argument.graph is not self:
                    raise RuntimeError(
                        f"Argument '{argument}' of Node '{node}' does not belong to this Graph, but was used as an "
                        f"argument! If you are copying nodes from another graph, make sure to use ``arg_transform`` "
                        f"on node_copy() to remap values\n{self}")
                if argument not in seen:
                    raise RuntimeError(
                        f"Argument '{argument}' of Node '{node}' was used before it has been defined! Please check "
                        f"that Nodes in the graph are topologically ordered\n{self}")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            names.add(node.name)
            seen.add(node)
        if self.owning_module is not None:
            for node in self.nodes:
                if node.op in ("get_attr", "call_module"):
                    _check_target_exists(self.owning_module, node)

    def print_tabular(self) -> None:
        """Print one row per node: opcode, name, target, args, kwargs (PyTorch's layout)."""
        rows = [[node.op, node.name, target_text(node.target), str(node.args), str(node.kwargs)]
                for node in self.nodes]
        print(_table(["opcode", "name", "target", "args", "kwargs"], rows))

    def python_code(self, root_module: str = "self") -> PythonCode:
        """The graph as Python source: ``def forward(self, x): ...`` and the globals it needs."""
        return python_code(self, root_module)

    def __str__(self) -> str:
        return "graph():" + "".join("\n    " + node.format_node() for node in self.nodes)


def _check_target_exists(module, node: Node) -> None:
    owner = module
    for atom in node.target.split("."):
        if not hasattr(owner, atom):
            kind = "module" if node.op == "call_module" else "attribute"
            raise RuntimeError(f"Node {node} target {node.target} references nonexistent {kind} {atom}")
        owner = getattr(owner, atom)


def _table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain-text table as the ``tabulate`` package draws it by default: columns two spaces apart."""
    widths = [max(len(text) for text in column) for column in zip(headers, *rows)]
    line = lambda cells: "  ".join(text.ljust(width) for text, width in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * width for width in widths])] + [line(row) for row in rows])
