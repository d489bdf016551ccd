"""``Proxy``: a stand-in for a tensor that writes down what is done to it.

Symbolic tracing runs ``forward`` once with a ``Proxy`` in place of each input. A proxy
holds no numbers, only the graph ``Node`` that will compute its value; every operation on
it adds a node and returns a new proxy:

* an operator (``x + y``, ``x @ w``, ``x[0]``, ``-x``)      -> ``call_function`` of ``operator.add``...
* a method (``x.relu()``, ``x.view(2, -1)``)                -> ``call_method`` ``"relu"``...
* an attribute (``x.shape``)                                -> ``call_function`` of ``getattr``
* a function of minitorch (``minitorch.relu(x)``)           -> ``call_function`` (the tracer
  swaps the functions of the ``minitorch`` and ``minitorch.nn.functional`` namespaces for
  recording versions while it traces: ``_symbolic_trace.py``)

What a proxy cannot do is *have a value*: ``if x.sum() > 0:`` needs to know whether the
sum is positive, and a proxy does not know. Such data-dependent control flow stops the
trace with a ``TraceError`` (PyTorch's words), the essential limit of symbolic tracing.
"""

from __future__ import annotations

import dis
import inspect
import operator
from typing import Any


class TraceError(ValueError):
    """Symbolic tracing met something it cannot record (control flow on a traced value)."""


class Proxy:
    """The value of ``node`` while tracing; operations on it are recorded by ``tracer``."""

    def __init__(self, node, tracer=None):
        self.node = node
        self.tracer = tracer if tracer is not None else node.graph._tracer

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
