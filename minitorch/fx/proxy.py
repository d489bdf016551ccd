"""``Proxy``: a stand-in for a tensor that writes down what is done to it.

Symbolic tracing runs ``forward`` once with a ``Proxy`` in place of each input. A proxy
holds no numbers, only the graph ``Node`` that will compute its value; every operation on
it adds a node and returns a new proxy:

* an operator (``x + y``, ``x @ w``, ``x[0]``, ``-x``)      -> ``call_function`` of ``operator.add``...
* a method (``x.relu()``, ``x.view(2, -1)``)                -> ``call_method`` ``"relu"``...
* an attribute (``x.shape``)                                -> ``call_function`` of ``getattr``
* a function of minitorch (``minitorch.relu(x)``)           -> ``call_function``: the function
  finds a proxy where it wants a tensor and hands the call to ``Proxy.__torch_function__``
  (PyTorch's protocol, ``minitorch/overrides.py``)

A proxy records into the graph of its ``tracer``. ``symbolic_trace`` makes its own; to add
nodes to an existing graph outside a trace, wrap its nodes in proxies of a
``GraphAppendingTracer(graph)`` (``Proxy(node)`` makes one) and call functions on them: the
nodes land at the graph's insert point.

What a proxy cannot do is *have a value*: ``if x.sum() > 0:`` needs to know whether the
sum is positive, and a proxy does not know. Such data-dependent control flow stops the
trace with a ``TraceError`` (PyTorch's words), the essential limit of symbolic tracing.
"""

from __future__ import annotations

import dis
import inspect
import operator
from typing import Any

from .node import map_aggregate


class TraceError(ValueError):
    """Symbolic tracing met something it cannot record (control flow on a traced value)."""


class TracerBase:
    """What a proxy asks of its tracer: record an operation (``create_proxy``), and say what it
    cannot do (``to_bool``, ``iter``). ``Tracer`` (``_symbolic_trace.py``) builds on it."""

    graph = None

    def create_node(self, kind: str, target: Any, args: tuple, kwargs: dict, name: str | None = None,
                    type_expr: Any = None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def create_proxy(self, kind: str, target: Any, args: tuple, kwargs: dict, name: str | None = None,
                     type_expr: Any = None) -> Proxy:
        """Record one operation: its arguments become graph values and its result a new proxy."""
        node = self.create_node(kind, target, self.create_arg(tuple(args)), self.create_arg(dict(kwargs)), name,
                                type_expr)
        return Proxy(node, self)

    def create_arg(self, value: Any) -> Any:
        """What a node stores for an argument: a proxy becomes its node, a plain value stays."""
        return map_aggregate(value, lambda item: item.node if isinstance(item, Proxy) else item)

    def to_bool(self, obj: Proxy) -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: Proxy):
        raise TraceError(
            "Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop or as a *args "
            "or **kwargs function argument. See the torch.fx docs on pytorch.org for a more detailed explanation of "
            "what types of control flow can be traced, and check out the Proxy docstring for help troubleshooting "
            "Proxy iteration errors")

    def keys(self, obj: Proxy):
        return self.create_proxy("call_method", "keys", (obj,), {})


class GraphAppendingTracer(TracerBase):
    """A tracer that only appends to ``graph`` (at its insert point): for proxies made outside a trace."""

    def __init__(self, graph):
        self.graph = graph


class Proxy:
    """The value of ``node``; operations on it are recorded by ``tracer`` (a fresh
    ``GraphAppendingTracer`` of the node's graph when none is given)."""

    def __init__(self, node, tracer=None):
        self.node = node
        self.tracer = tracer if tracer is not None else GraphAppendingTracer(node.graph)

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None):
        """A function of minitorch called with a proxy: one ``call_function`` node in the proxies' graph."""
        tracers: dict = {}
        map_aggregate((args, kwargs or {}), lambda item: tracers.setdefault(item.tracer) if isinstance(item, Proxy)
                      else None)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while trying to trace operations "
                               f"{orig_method}")
        tracer = next(iter(tracers))
        return tracer.create_proxy("call_function", orig_method, args, kwargs or {})

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, name: str) -> Attribute:
        if name.startswith("__") and name.endswith("__"):  # copy, pickle and friends probe for these
            raise AttributeError(name)
        return Attribute(self, name)

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # ``a, b = proxy`` (a module returning a tuple) can be traced: the bytecode says how many
        # values are unpacked. Any other iteration depends on the value, which a proxy lacks.
        frame = inspect.currentframe().f_back
        instruction = next((i for i in dis.get_instructions(frame.f_code) if i.offset == frame.f_lasti), None)
        if instruction is not None and instruction.opname == "UNPACK_SEQUENCE":
            return (self[index] for index in range(instruction.argval))
        return self.tracer.iter(self)

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def __len__(self) -> int:
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    def keys(self):
        return self.tracer.keys(self)

    __hash__ = object.__hash__  # defining __eq__ below would otherwise make proxies unhashable


class Attribute(Proxy):
    """``proxy.name``: a method about to be called (``call_method``) or an attribute read (``getattr``)."""

    def __init__(self, root: Proxy, attr: str):
        self.root, self.attr, self.tracer = root, attr, root.tracer
        self._node = None

    @property
    def node(self):
        # Made only when the attribute is used as a value: ``x.relu()`` records no ``getattr``.
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


def _binary(function):
    def method(self, other):
        return self.tracer.create_proxy("call_function", function, (self, other), {})

    return method


def _reflected(function):
    def method(self, other):
        return self.tracer.create_proxy("call_function", function, (other, self), {})

    return method


def _unary(function):
    def method(self):
        return self.tracer.create_proxy("call_function", function, (self,), {})

    return method


# The operators a proxy records, by the name of their function in ``operator``.
_BINARY = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift", "and_", "or_", "xor",
           "matmul")
_COMPARISONS = ("eq", "ne", "lt", "gt", "le", "ge")

for _name in _BINARY + _COMPARISONS + ("getitem",):
    _dunder = _name.rstrip("_")
    setattr(Proxy, f"__{_dunder}__", _binary(getattr(operator, _name)))
for _name in _BINARY:
    _dunder = _name.rstrip("_")
    setattr(Proxy, f"__r{_dunder}__", _reflected(getattr(operator, _name)))
for _name in ("neg", "pos", "invert", "abs"):
    setattr(Proxy, f"__{_name}__", _unary(getattr(operator, _name)))


def _setitem(self, key, value) -> None:
    self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})


Proxy.__setitem__ = _setitem


def find_proxy(value: Any) -> Proxy | None:
    """The first ``Proxy`` inside ``value`` (nested in tuples, lists and dicts), or None."""
    if isinstance(value, Proxy):
        return value
    if isinstance(value, (tuple, list)):
        for item in value:
            found = find_proxy(item)
            if found is not None:
                return found
    if isinstance(value, dict):
        return find_proxy(list(value.values()))
    return None
