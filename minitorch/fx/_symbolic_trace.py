"""``symbolic_trace``: run ``forward`` once on proxies and keep the graph they recorded.

``Tracer.trace(module)`` makes one ``placeholder`` per argument of ``forward``, calls
``forward`` with proxies for them, and ends the graph with an ``output`` node. For the
duration of that one call it swaps three things, and puts them back afterwards:

* ``Module.__call__``: a *leaf* module (``is_leaf_module``: minitorch's own ``nn`` layers,
  but not the containers) is recorded as one ``call_module`` node instead of being entered;
  any other module's ``forward`` runs on the proxies, so its operations are recorded;
* ``Module.__getattr__``: a parameter read directly in ``forward`` (``self.weight``)
  becomes a ``get_attr`` node;
* the functions of ``minitorch`` and ``minitorch.nn.functional``: called with a proxy, they
  record a ``call_function`` node. Most would do so anyway (a function that finds a proxy where
  it checks for a tensor hands the call to ``Proxy.__torch_function__``, as in PyTorch); the
  swap covers the functions that check no argument, and a proxy that is not the first one.

A tensor that is neither an input nor computed from one (a parameter, a buffer, a constant
made in ``forward``) is read through ``get_attr``; constants are kept on the module as
``_tensor_constant0``, ``_tensor_constant1``...

    >>> import minitorch
    >>> from minitorch import fx, nn
    >>> class Net(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Linear(4, 3)
    ...     def forward(self, x):
    ...         return minitorch.relu(self.fc(x)) + 1
    >>> print(fx.symbolic_trace(Net()).code.strip())
    def forward(self, x):
        fc = self.fc(x);  x = None
        relu = minitorch.relu(fc);  fc = None
        add = relu + 1;  relu = None
        return add
"""

from __future__ import annotations

import builtins
import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..nn import Module, Parameter, Sequential
from ..overrides import handle_torch_function
from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate
from .proxy import Proxy, TraceError, TracerBase, find_proxy


class Tracer(TracerBase):
    """Turns a module's ``forward`` (or a function) into a ``Graph`` by running it on proxies.

    Subclass it and override ``is_leaf_module`` to decide which modules stay one node.
    """

    def __init__(self, autowrap_functions: tuple = ()):
        self.autowrap_functions = tuple(autowrap_functions)
        self.graph: Graph | None = None
        self.root: Module | None = None

    # -- what becomes a node -------------------------------------------------------------------
    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """Whether ``m`` is recorded as one ``call_module`` (minitorch's own layers) or traced through."""
        return type(m).__module__.startswith("minitorch.nn") and not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        """The dotted name of ``mod`` inside the traced module (``"encoder.layers.0"``)."""
        for name, module in self.root.named_modules():
            if module is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def create_proxy(self, kind: str, target: Any, args: tuple, kwargs: dict, name: str | None = None,
                     type_expr: Any = None) -> Proxy:
        if isinstance(target, _Recording):  # a function read from a namespace while it is swapped
            target = target.function
        return super().create_proxy(kind, target, args, kwargs, name, type_expr)

    def create_arg(self, value: Any) -> Any:
        """What a node stores for an argument: proxies become their nodes, tensors ``get_attr`` nodes."""
        def convert(item):
            if isinstance(item, Proxy):
                return item.node
            if isinstance(item, Tensor):
                return self._tensor_node(item)
            if isinstance(item, Module):
                raise NotImplementedError(f"argument of type: {type(item)}")
            return item

        return map_aggregate(value, convert)

    def _tensor_node(self, tensor):
        for name, parameter in self.root.named_parameters():
            if parameter is tensor:
                return self.create_node("get_attr", name, (), {})
        for name, buffer in self.root.named_buffers():
            if buffer is tensor:
                return self.create_node("get_attr", name, (), {})
        name = self.tensor_attrs.get(id(tensor))
        if name is None:  # a constant made in forward: kept on the root module under a fresh name
            name = f"_tensor_constant{len(self.tensor_attrs)}"
            self.tensor_attrs[id(tensor)] = name
            self._constants.append(tensor)  # alive until the trace ends, so its id is not reused
            setattr(self.root, name, tensor)
        return self.create_node("get_attr", name, (), {})

    # -- the trace -------------------------------------------------------------------------------------
    def call_module(self, m: Module, forward: Callable, args: tuple, kwargs: dict) -> Any:
        """A leaf module becomes one ``call_module`` node; any other module is traced through."""
        name = self.path_of_module(m)
        if not self.is_leaf_module(m, name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", name, args, kwargs)

    def trace(self, root: Module | Callable, concrete_args: dict[str, Any] | None = None) -> Graph:
        """The graph of ``root.forward`` (or of the function ``root``), recorded on proxies."""
        if isinstance(root, Module):
            self.root, function = root, type(root).forward
        else:
            self.root, function = Module(), root
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs: dict[int, str] = {}
        self._constants: list = []
        arguments = self._placeholders(function, isinstance(root, Module), concrete_args or {})
        with _Patches(self):
            result = function(*arguments)
        self.create_node("output", "output", (self.create_arg(result),), {})
        return self.graph

    def _placeholders(self, function: Callable, is_method: bool, concrete_args: dict) -> list:
        """One ``placeholder`` proxy per parameter of ``forward`` (a default value is kept)."""
        parameters = list(inspect.signature(function).parameters.values())
        arguments = [self.root] if is_method else []
        for parameter in parameters[1:] if is_method else parameters:
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                raise TraceError(f"symbolic_trace of a forward with *args or **kwargs ('{parameter.name}') is not "
                                 "supported by minitorch.fx: name each argument")
            if parameter.name in concrete_args:  # a fixed value: specialized into the graph
                arguments.append(concrete_args[parameter.name])
                continue
            # through create_proxy, as torch.fx does, so that a Tracer overriding create_node sees placeholders too
            default = () if parameter.default is inspect.Parameter.empty else (parameter.default,)
            arguments.append(self.create_proxy("placeholder", parameter.name, default, {}))
        return arguments


_MISSING = object()


class _Patches:
    """Swap ``Module.__call__``, ``Module.__getattr__`` and the namespaces' functions while tracing."""

    def __init__(self, tracer: Tracer):
        self.tracer = tracer
        self.saved: list[tuple[Any, str, Any]] = []

    def _swap(self, owner, name: str, value) -> None:
        self.saved.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, value)

    def __enter__(self):
        tracer = self.tracer
        original_call, original_getattr = Module.__call__, Module.__getattr__
        parameter_proxies: dict[int, Proxy] = {}

        def module_call(module, *args, **kwargs):
            return tracer.call_module(module, functools.partial(original_call, module), args, kwargs)

        def module_getattr(module, name):
            value = original_getattr(module, name)
            if isinstance(value, Parameter):  # ``self.weight`` in a traced forward: a get_attr node
                if id(value) not in parameter_proxies:
                    for qualified, parameter in tracer.root.named_parameters():
                        if parameter is value:
                            parameter_proxies[id(value)] = tracer.create_proxy("get_attr", qualified, (), {})
                            break
                return parameter_proxies.get(id(value), value)
            return value

        import minitorch  # the public face imports fx: its namespaces are swapped while tracing

        self._swap(Module, "__call__", module_call)
        self._swap(Module, "__getattr__", module_getattr)
        for namespace in (minitorch, minitorch.nn.functional):
            for name, value in list(vars(namespace).items()):
                if not name.startswith("_") and isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
                    self._swap(namespace, name, _recording(value))
        for globals_, name in _WRAPPED_NAMES:  # fx.wrap: the name as the module sees it (a builtin: len)
            original = globals_.get(name, getattr(builtins, name, None))
            self.saved.append((globals_, name, globals_.get(name, _MISSING)))
            globals_[name] = _Recording(original, wrapped=True)
        for function in tracer.autowrap_functions:
            module = inspect.getmodule(function)
            self._swap(module, function.__name__, _Recording(function, wrapped=True))
        return self

    def __exit__(self, *exc_info):
        for owner, name, value in reversed(self.saved):
            if isinstance(owner, dict):  # a module's globals (fx.wrap)
                if value is _MISSING:
                    del owner[name]
                else:
                    owner[name] = value
            else:
                setattr(owner, name, value)
        return False


class _Recording:
    """``function``, but called with a proxy among its arguments it records a ``call_function`` node.

    It compares equal to ``function`` (``node.target == minitorch.relu`` holds while tracing),
    so a pass written during a trace or a ``Transformer`` finds the functions it looks for.
    """

    def __init__(self, function: Callable, wrapped: bool = False):
        self.function = self.__wrapped__ = function
        self.wrapped = wrapped  # given to fx.wrap (or autowrap_functions): the generated code says so
        self.__name__ = getattr(function, "__name__", type(function).__name__)
        self.__doc__ = getattr(function, "__doc__", None)

    def __call__(self, *args, **kwargs):
        if find_proxy((args, kwargs)) is None:
            return self.function(*args, **kwargs)
        result = handle_torch_function(self.function, args, kwargs)  # recorded by Proxy.__torch_function__
        if self.wrapped and isinstance(result, Proxy):
            result.node.meta["is_wrapped"] = True
        return result

    def __eq__(self, other) -> bool:
        return other is self or other is self.function

    def __hash__(self) -> int:
        return hash(self.function)


_recording = _Recording


# (the globals of a module, a name) for each ``wrap``: the name is swapped for a recording version while tracing
_WRAPPED_NAMES: list[tuple[dict, str]] = []


def wrap(fn_or_name):
    """Make a function a leaf of symbolic tracing: called with a proxy, it is recorded as one
    ``call_function`` instead of being traced into (``torch.fx.wrap``). Call it at the top level of
    the module that uses the function, with the function or its name (``fx.wrap("len")``).
    """
    caller = inspect.currentframe().f_back
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    _WRAPPED_NAMES.append((caller.f_globals, name))
    return fn_or_name


def symbolic_trace(root: Module | Callable, concrete_args: dict[str, Any] | None = None) -> GraphModule:
    """Trace ``root`` (a module or a function) on proxies and return it as a ``GraphModule``.

    The result runs like the original (for inputs that take the same path through it: the
    trace follows no data-dependent branch) and shows its program as ``.graph`` and ``.code``.
    """
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
