"""From a graph to Python source: what ``GraphModule.code`` shows and runs.

Each node becomes one line, in the graph's order::

    def forward(self, x):
        fc = self.fc(x);  x = None
        relu = minitorch.relu(fc);  fc = None
        add = relu + 1;  relu = None
        return add

* ``placeholder`` nodes become the function's parameters;
* ``get_attr`` reads ``self.<path>``, ``call_module`` calls ``self.<path>(...)``,
  ``call_method`` calls ``first_argument.<name>(...)``;
* ``call_function`` prints operators as operators (``a + b``, ``a[i]``) and every other
  function by the name a reader would type (``minitorch.nn.functional.relu``), or by a global
  of the generated module;
* after the last line that reads a value, ``name = None`` drops it, as PyTorch's code does,
  so memory is freed as early as in the hand-written forward.

The source and the globals it needs come back together as a ``PythonCode``; ``GraphModule``
runs them with ``exec``.
"""

from __future__ import annotations

import builtins
import math
import re
from dataclasses import dataclass
from typing import Any

from .node import Node, map_arg, qualified_name

# How each operator of the ``operator`` module prints (PyTorch's ``magic_methods`` table).
OPERATOR_TEMPLATES = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}", "truediv": "{} / {}",
    "mod": "{} % {}", "pow": "{} ** {}", "lshift": "{} << {}", "rshift": "{} >> {}", "and_": "{} & {}",
    "or_": "{} | {}", "xor": "{} ^ {}", "matmul": "{} @ {}", "getitem": "{}[{}]",
    "eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}", "ge": "{} >= {}",
    "neg": "-{}", "pos": "+{}", "invert": "~{}",
}


@dataclass
class PythonCode:
    """Generated source (``src``) and the objects its global names stand for (``globals``)."""

    src: str
    globals: dict[str, Any]


class _Globals:
    """The global names the generated code uses, each bound to one object."""

    def __init__(self, local_names: set[str]):
        import minitorch  # the public face imports fx; the generated code names minitorch's functions through it

        self.objects: dict[str, Any] = {"minitorch": minitorch, "inf": math.inf, "nan": math.nan}
        self.local_names = local_names  # the nodes' names: a global must not be shadowed by one

    def name_for(self, hint: str, value: Any) -> str:
        for name, known in self.objects.items():
            if known is value:
                return name
        base = re.sub(r"[^0-9a-zA-Z_]+", "_", hint) or "_global"
        name, number = base, 0
        while name in self.objects or name in self.local_names or hasattr(builtins, name):
            number += 1
            name = f"{base}_{number}"
        self.objects[name] = value
        return name


def _is_plain(value: Any) -> bool:
    return value is None or value is Ellipsis or type(value) in (bool, int, str) or (
        type(value) is float and math.isfinite(value))


def _source_of(value: Any, names: _Globals) -> str:
    """``value`` as Python source: a node by its name, literals by ``repr``, any other object by a global."""
    if isinstance(value, Node):
        return value.name
    if _is_plain(value):
        return repr(value)
    if type(value) is float:  # inf, -inf, nan
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        inside = ", ".join(_source_of(item, names) for item in value)
        return f"({inside},)" if len(value) == 1 else f"({inside})"
    if isinstance(value, list):
        return "[" + ", ".join(_source_of(item, names) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {_source_of(item, names)}" for key, item in value.items()) + "}"
    if isinstance(value, slice):
        return f"slice({_source_of(value.start, names)}, {_source_of(value.stop, names)}, " \
               f"{_source_of(value.step, names)})"
    return names.name_for(_hint(value), value)


def _hint(value: Any) -> str:
    """A readable global name for an object: a function's name, ``float32`` for ``minitorch.float32``."""
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    if type(value).__name__ in ("dtype", "device"):
        return str(value).split(".")[-1]
    return "_" + type(value).__name__.lower()


def _arguments(args: tuple, kwargs: dict, names: _Globals) -> str:
    parts = [_source_of(item, names) for item in args]
    parts += [f"{key} = {_source_of(item, names)}" for key, item in kwargs.items()]
    return ", ".join(parts)


def _attribute_path(base: str, path: str) -> str:
    """``self.fc.weight``; a part that is not an identifier is read with ``getattr``."""
    for atom in path.split("."):
        base = f"{base}.{atom}" if atom.isidentifier() else f"getattr({base}, {atom!r})"
    return base


def _function_source(target: Any, names: _Globals) -> str:
    """How a called function is named in the code: ``minitorch.nn.functional.relu``, ``len``, or a global."""
    qualified = qualified_name(target)
    if qualified.startswith("minitorch.") and _lookup(qualified) is target:
        return qualified
    if getattr(builtins, qualified, None) is target:
        return qualified
    return names.name_for(qualified if hasattr(target, "__qualname__") else getattr(target, "__name__", "function"),
                          target)  # ``__main__.sigmoid_lowp`` -> ``__main___sigmoid_lowp``, as torch.fx names it


def _lookup(dotted: str) -> Any:
    import minitorch  # the public face imports fx: resolved when code is generated

    value = minitorch
    for atom in dotted.split(".")[1:]:
        value = getattr(value, atom, None)
    return value


def _line(node: Node, root_module: str, names: _Globals) -> str:
    """The Python line of one (non-placeholder) node."""
    if node.op == "get_attr":
        return f"{node.name} = {_attribute_path(root_module, node.target)}"
    if node.op == "call_module":
        return f"{node.name} = {_attribute_path(root_module, node.target)}({_arguments(node.args, node.kwargs, names)})"
    if node.op == "call_method":
        receiver = _source_of(node.args[0], names)
        return f"{node.name} = {receiver}.{node.target}({_arguments(node.args[1:], node.kwargs, names)})"
    if node.op == "output":
        return f"return {_source_of(node.args[0], names)}"
    target = node.target
    if getattr(target, "__module__", None) in ("_operator", "operator") and target.__name__ in OPERATOR_TEMPLATES \
            and not node.kwargs:
        operands = [_source_of(item, names) for item in node.args]
        return f"{node.name} = " + OPERATOR_TEMPLATES[target.__name__].format(*operands)
    if target is getattr and len(node.args) == 2 and isinstance(node.args[1], str) and node.args[1].isidentifier():
        return f"{node.name} = {_source_of(node.args[0], names)}.{node.args[1]}"
    return f"{node.name} = {_function_source(target, names)}({_arguments(node.args, node.kwargs, names)})"


def python_code(graph, root_module: str = "self") -> PythonCode:
    """The graph as the source of ``def forward(<root_module>, ...)``, with ``name = None`` after last uses."""
    nodes = list(graph.nodes)
    names = _Globals({node.name for node in nodes} | {node.target for node in nodes if node.op == "placeholder"})
    last_use: dict[Node, Node] = {}  # value -> the last node that reads it
    for node in reversed(nodes):
        map_arg((node.args, node.kwargs), lambda value, user=node: last_use.setdefault(value, user))
    dying: dict[Node, list[Node]] = {}
    for value, user in last_use.items():
        dying.setdefault(user, []).append(value)

    parameters, body, wrapped = [root_module], [], {}
    for node in nodes:
        if node.op == "placeholder":
            default = f" = {_source_of(node.args[0], names)}" if node.args else ""
            parameters.append(f"{node.target}{default}")
            if node.name != node.target:
                body.append(f"{node.name} = {node.target}")
            continue
        line = _line(node, root_module, names)
        if node.op == "call_function" and node.meta.get("is_wrapped"):  # fx.wrap: the code says so (kept if traced)
            wrapped.setdefault(_function_source(node.target, names))
        freed = [value.name for value in dying.get(node, ()) if node.op != "output"]
        if not node.users and node.op != "output":  # a value nobody reads (kept for its side effect): freed at once
            freed.append(node.name)
        if freed:
            line += ";  " + " = ".join(freed) + " = None"
        body.append(line)
    if not body or not body[-1].startswith("return"):
        body.append("return None")
    wrap_lines = ""
    if wrapped:
        # fx.wrap, reached through the global ``minitorch`` of the generated code
        wrap_lines = "\n".join(f'minitorch.fx._symbolic_trace.wrap("{name}")' for name in wrapped)
    # torch.fx's source ends with the indentation of a next line ("    "), which prints as a line of spaces
    source = f"\n{wrap_lines}\n\ndef forward({', '.join(parameters)}):\n" + "".join(f"    {line}\n" for line in body)
    source += "    "
    return PythonCode(source, dict(names.objects))
