"""``Interpreter``: run a graph one node at a time, in Python, with a hook for each kind of node.

Where ``GraphModule`` runs generated code, an ``Interpreter`` walks the nodes and keeps
each value in an environment (``env``: node -> value). Every kind of node has its own
method (``placeholder``, ``get_attr``, ``call_function``, ``call_method``, ``call_module``,
``output``), so a subclass can change how one kind runs: count the calls, record the
shapes, swap a function for another.

    >>> import minitorch, operator
    >>> from minitorch import fx
    >>> class NegateAdds(fx.Interpreter):
    ...     def call_function(self, target, args, kwargs):
    ...         if target is operator.add:
    ...             target = operator.sub
    ...         return super().call_function(target, args, kwargs)
    >>> traced = fx.symbolic_trace(lambda x: x + 1)
    >>> NegateAdds(traced).run(minitorch.tensor([1.0]))
    tensor([0.])
"""

from __future__ import annotations

import inspect
from typing import Any

from ..nn import Module
from ._symbolic_trace import Tracer, _Patches
from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_aggregate, map_arg
from .proxy import Proxy


class Interpreter:
    """Executes ``module``'s graph (or ``graph``) node by node."""

    def __init__(self, module: Module, garbage_collect_values: bool = True, graph: Graph | None = None):
        self.module = module
        self.graph = graph if graph is not None else module.graph
        self.garbage_collect_values = garbage_collect_values
        self.env: dict[Node, Any] = {}
        # After which node each value is read for the last time: the interpreter forgets it there.
        self.user_to_last_uses: dict[Node, list[Node]] = {}
        seen: set[Node] = set()
        for node in reversed(self.graph.nodes):
            for used in node.all_input_nodes:
                if used not in seen:
                    seen.add(used)
                    self.user_to_last_uses.setdefault(node, []).append(used)

    def run(self, *args, initial_env: dict[Node, Any] | None = None, enable_io_processing: bool = True) -> Any:
        """Run the graph on ``args`` (one per placeholder) and return what its output node returns."""
        self.env = dict(initial_env or {})
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue  # given in initial_env: not recomputed
            self.env[node] = self.run_node(node)
            if self.garbage_collect_values:
                for finished in self.user_to_last_uses.get(node, []):
                    self.env.pop(finished, None)
            if node.op == "output":
                return self.env[node]
        return None

    def run_node(self, n: Node) -> Any:
        """Fetch ``n``'s arguments from the environment and call the method for its kind."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # -- one method per kind of node -----------------------------------------------------------------
    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Any:
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]  # the argument's default value
            message = f"Expected positional argument for parameter {target}, but one was not passed in!"
            raise RuntimeError(message) from None

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.fetch_attr(target)

    def call_function(self, target, args: tuple, kwargs: dict) -> Any:
        return target(*args, **kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Any:
        receiver, *rest = args
        return getattr(receiver, target)(*rest, **kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args: tuple, kwargs: dict) -> Any:
        return args[0]

    # -- helpers ---------------------------------------------------------------------------------------------
    def fetch_attr(self, target: str) -> Any:
        """``self.module.<target>`` for a dotted ``target``."""
        value = self.module
        for index, atom in enumerate(target.split(".")):
            if not hasattr(value, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(target.split('.')[:index + 1])}")
            value = getattr(value, atom)
        return value

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args: Any, n: Node) -> Any:
        def value_of(node: Node) -> Any:
            if node not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {node}! Run Graph.lint() to diagnose "
                                   "such issues")
            return self.env[node]

        return map_arg(args, value_of)


class Transformer(Interpreter):
    """An ``Interpreter`` that builds a new graph instead of computing values (``torch.fx.Transformer``).

    Each node is "run" on proxies of a fresh tracer, so every call records a node of the new
    graph; a subclass overrides ``call_function``/``call_method``/``call_module`` to record
    something else in its place. ``transform()`` returns the new ``GraphModule``.

        >>> import minitorch
        >>> from minitorch import fx
        >>> class ReluToGelu(fx.Transformer):
        ...     def call_function(self, target, args, kwargs):
        ...         if target == minitorch.relu:
        ...             target = minitorch.nn.functional.gelu
        ...         return super().call_function(target, args, kwargs)
        >>> traced = fx.symbolic_trace(lambda x: minitorch.relu(x) + 1)
        >>> print(ReluToGelu(traced).transform().code.strip().splitlines()[1])
            gelu = minitorch.nn.functional.gelu(x);  x = None
    """

    def __init__(self, module: Module):
        super().__init__(module)
        class TransformerTracer(Tracer):
            def is_leaf_module(self, m, module_qualified_name) -> bool:
                return True  # a module of the old graph stays one call_module

        self.new_graph = Graph()
        self.tracer = TransformerTracer()
        self.tracer.graph, self.tracer.root = self.new_graph, module
        self.tracer.tensor_attrs, self.tracer._constants = {}, []

    def placeholder(self, target: str, args: tuple, kwargs: dict):
        default = args[0] if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target: str, args: tuple, kwargs: dict):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict):
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def call_function(self, target, args: tuple, kwargs: dict):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self) -> GraphModule:
        """Run the old graph on proxies and return the module of the new one."""
        with _Patches(self.tracer):  # minitorch's functions record when a subclass calls them on proxies
            result = super().run()
        if result is not None:  # the output's proxies become their nodes
            self.new_graph.output(map_aggregate(result, lambda item: item.node if isinstance(item, Proxy) else item))
        return GraphModule(self.module, self.new_graph)
