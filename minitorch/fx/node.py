"""``Node``: one instruction of an FX graph.

A graph is a straight list of nodes; each node is one of six kinds (its ``op``):

===============  ==========================================  ===========================
``op``           what it does                                 ``target``
===============  ==========================================  ===========================
placeholder      an input of the function                     the argument's name
get_attr         reads a parameter, buffer or constant        its dotted path: ``fc.weight``
call_function    calls a free function or operator            the function: ``operator.add``
call_method      calls a method on its first argument         the method's name: ``"relu"``
call_module      calls a submodule's ``forward``              its dotted path: ``"fc"``
output           returns ``args[0]``                          ``"output"``
===============  ==========================================  ===========================

``args`` and ``kwargs`` hold other nodes (the values they produce) and plain constants, nested
in tuples, lists and dicts. Each node knows the nodes that read it (``users``) and its
neighbours in the list (``prev``, ``next``), which is what graph editing walks and rewrites.

    >>> import minitorch
    >>> from minitorch import fx
    >>> graph = fx.Graph()
    >>> x = graph.placeholder("x")
    >>> y = graph.call_function(minitorch.relu, (x,))
    >>> _ = graph.output(y)
    >>> y.args, list(x.users)
    ((x,), [relu])
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

# The six kinds of node.
OPCODES = ("placeholder", "get_attr", "call_function", "call_method", "call_module", "output")


def map_aggregate(value: Any, function: Callable[[Any], Any]) -> Any:
    """Apply ``function`` to every leaf of ``value``, rebuilding the tuples, lists and dicts around them."""
    if isinstance(value, tuple):
        mapped = tuple(map_aggregate(item, function) for item in value)
        return type(value)(*mapped) if hasattr(value, "_fields") else mapped  # a namedtuple keeps its type
    if isinstance(value, list):
        return [map_aggregate(item, function) for item in value]
    if isinstance(value, dict):
        return {key: map_aggregate(item, function) for key, item in value.items()}
    if isinstance(value, slice):
        return slice(map_aggregate(value.start, function), map_aggregate(value.stop, function),
                     map_aggregate(value.step, function))
    return function(value)


def map_arg(value: Any, function: Callable[[Node], Any]) -> Any:
    """Apply ``function`` to every ``Node`` inside ``value`` (args or kwargs); other leaves stay as they are."""
    return map_aggregate(value, lambda item: function(item) if isinstance(item, Node) else item)


class Node:
    """One instruction: ``name = target(*args, **kwargs)`` (how exactly depends on ``op``).

    ``users`` maps each node that reads this one to ``None`` (a dict keeps insertion order);
    it is kept up to date whenever ``args`` or ``kwargs`` are assigned.
    """

    def __init__(self, graph, name: str, op: str, target: Any, args: tuple, kwargs: dict, return_type=None):
        if op not in OPCODES:
            raise ValueError(f"Unknown node op {op!r}: expected one of {', '.join(OPCODES)}")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = return_type
        self.users: dict[Node, None] = {}
        self.meta: dict[str, Any] = {}
        self._input_nodes: dict[Node, None] = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self._update_args_kwargs(args, kwargs)
        # the doubly linked list of the graph: the graph's root sentinel closes the ring
        self._prev: Node = self
        self._next: Node = self
        self._erased = False

    # -- the list: neighbours and moving --------------------------------------------------
    @property
    def next(self) -> Node:
        """The node after this one (the graph's root sentinel after the last)."""
        return self._next

    @property
    def prev(self) -> Node:
        """The node before this one (the graph's root sentinel before the first)."""
        return self._prev

    def prepend(self, node: Node) -> None:
        """Move ``node`` (new or already in the graph) to just before this one."""
        if node is self:
            raise RuntimeError("Cannot prepend a node to itself")
        node._remove_from_list()
        before = self._prev
        before._next, node._prev, node._next, self._prev = node, before, self, node

    def append(self, node: Node) -> None:
        """Move ``node`` to just after this one."""
        self._next.prepend(node)

    def _remove_from_list(self) -> None:
        before, after = self._prev, self._next
        before._next, after._prev = after, before
        self._prev = self._next = self

    # -- arguments and the users they imply ------------------------------------------------
    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, value: tuple) -> None:
        self._update_args_kwargs(tuple(value), self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value: dict) -> None:
        self._update_args_kwargs(self._args, dict(value))

    @property
    def all_input_nodes(self) -> list[Node]:
        """The nodes this one reads, in the order they first appear in ``args`` then ``kwargs``."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, args: tuple, kwargs: dict) -> None:
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._args, self._kwargs = args, kwargs
        self._input_nodes = {}
        map_arg((args, kwargs), self._input_nodes.setdefault)
        for new in self._input_nodes:
            new.users.setdefault(self)

    def update_arg(self, index: int, value: Any) -> None:
        """Set ``args[index]`` to ``value``."""
        args = list(self._args)
        args[index] = value
        self.args = tuple(args)

    def update_kwarg(self, key: str, value: Any) -> None:
        """Set ``kwargs[key]`` to ``value``."""
        self.kwargs = {**self._kwargs, key: value}

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Read ``new_input`` wherever this node read ``old_input``."""
        swap = lambda node: new_input if node is old_input else node  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def replace_all_uses_with(self, replace_with: Node, delete_user_cb: Callable[[Node], bool] = lambda user: True,
                              *, propagate_meta: bool = False) -> list[Node]:
        """Make every user of this node read ``replace_with`` instead; returns the users changed.

        ``delete_user_cb(user)`` may return False to leave a user reading this node (the usual
        case: the node that was just inserted to consume this one).
        """
        if propagate_meta:
            for key, value in self.meta.items():
                replace_with.meta.setdefault(key, value)
        changed = []
        for user in list(self.users):
            if delete_user_cb(user):
                user.replace_input_with(self, replace_with)
                changed.append(user)
        return changed

    # -- what a pass needs to know ----------------------------------------------------------
    def is_impure(self) -> bool:
        """Whether removing this node could change what the program does, even if nobody reads it.

        Inputs and the output always stay; so do calls of functions with a known side effect
        (``operator.setitem``, ``print``) and modules marked ``_is_impure``. As in PyTorch, a
        method call is taken to be pure: ``x.add_(1)`` whose result nobody reads is removed,
        so a pass over a graph with in-place methods must say which nodes to keep
        (``eliminate_dead_code(is_impure_node=...)``).
        """
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _SIDE_EFFECTFUL_FUNCTIONS or getattr(self.target, "_is_impure", False)
        if self.op == "call_module" and self.graph.owning_module is not None:
            return getattr(self.graph.owning_module.get_submodule(self.target), "_is_impure", False)
        return False

    # -- printing ---------------------------------------------------------------------------------
    def __repr__(self) -> str:
        return self.name

    def format_node(self) -> str:
        """One line of ``print(graph)``: ``%add : [num_users=1] = call_function[target=operator.add](...)``."""
        if self.op == "output":
            return f"return {self.args[0]}"
        head = f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={target_text(self.target)}]"
        if self.op == "placeholder":
            return head + (f"(default={self.args[0]})" if self.args else "")
        if self.op == "get_attr":
            return head
        return head + f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"


_SIDE_EFFECTFUL_FUNCTIONS = {operator.setitem, print}


def qualified_name(function: Any) -> str:
    """The name a reader would type for ``function``: ``operator.add``, ``minitorch.relu``,
    ``minitorch.nn.functional.relu`` (found in those namespaces first), else ``module.name``."""
    name = getattr(function, "__name__", repr(function))
    if getattr(function, "__module__", None) in ("_operator", "operator"):
        return f"operator.{name}"
    if getattr(function, "__module__", None) == "builtins":
        return name
    import minitorch  # the public face imports fx: its namespaces are read when a name is printed

    for prefix, namespace in (("minitorch", minitorch), ("minitorch.nn.functional", minitorch.nn.functional)):
        if getattr(namespace, name, None) is function:
            return f"{prefix}.{name}"
    return f"{getattr(function, '__module__', None) or '<unknown>'}.{getattr(function, '__qualname__', name)}"


def target_text(target: Any) -> str:
    """How a target prints: a string as it is, a function by its qualified name."""
    return target if isinstance(target, str) else qualified_name(target)


def _format_arg(value: Any) -> str:
    if isinstance(value, Node):
        return f"%{value}"
    if isinstance(value, tuple):
        inside = ", ".join(_format_arg(item) for item in value)
        return f"({inside},)" if len(value) == 1 else f"({inside})"
    if isinstance(value, list):
        return "[" + ", ".join(_format_arg(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_format_arg(item)}" for key, item in value.items()) + "}"
    return str(value)
