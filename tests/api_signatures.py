"""PyTorch's own signatures, read from its type stubs (``torch/_C/*.pyi``, ``torch/nn/functional.pyi``).

Most of ``torch``'s functions are C++ builtins that ``inspect.signature`` cannot read; their
stubs list every overload with its parameter names and defaults, which is what a learner's
keyword arguments must match. Python functions (``torch.nn.functional``, ``torch.functional``)
are read with ``inspect``.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Overload:
    positional: tuple  # parameter names that may be passed by position, in order
    keyword_only: tuple
    defaults: dict  # name -> default (a Python value, or the stub's source text when it is not a literal)
    var_positional: bool = False


def _default(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)


def _overload_from_ast(node: ast.FunctionDef, drop_self: bool = False) -> Overload:
    arguments = node.args
    positional = [a.arg for a in arguments.posonlyargs + arguments.args]
    defaults = {}
    for argument, default in zip(reversed(positional), reversed(arguments.defaults)):
        defaults[argument] = _default(default)
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        if default is not None:
            defaults[argument.arg] = _default(default)
    if drop_self and positional and positional[0] == "self":
        positional = positional[1:]
    keyword_only = tuple(a.arg for a in arguments.kwonlyargs)
    return Overload(tuple(positional), keyword_only, defaults, arguments.vararg is not None)


def overload_from_signature(signature: inspect.Signature, drop_self: bool = False) -> Overload:
    positional, keyword_only, defaults, var_positional = [], [], {}, False
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            positional.append(parameter.name)
        elif parameter.kind is parameter.KEYWORD_ONLY:
            keyword_only.append(parameter.name)
        elif parameter.kind is parameter.VAR_POSITIONAL:
            var_positional = True
        if parameter.default is not parameter.empty:
            defaults[parameter.name] = parameter.default
    if drop_self and positional and positional[0] == "self":
        positional = positional[1:]
    return Overload(tuple(positional), tuple(keyword_only), defaults, var_positional)


def _torch_root() -> Path:
    import torch

    return Path(torch.__file__).parent


def _stub_functions(tree, drop_self=False) -> dict:
    functions = {}
    for node in tree:
        if isinstance(node, ast.FunctionDef):
            functions.setdefault(node.name, []).append(_overload_from_ast(node, drop_self))
    return functions


@functools.cache
def torch_functions() -> dict:
    """``{name: [Overload, ...]}`` for the builtins of the ``torch`` namespace."""
    tree = ast.parse((_torch_root() / "_C" / "_VariableFunctions.pyi").read_text())
    return _stub_functions(tree.body)


@functools.cache
def tensor_methods() -> dict:
    """``{name: [Overload, ...]}`` for ``torch.Tensor``'s builtin methods (``self`` left out)."""
    tree = ast.parse((_torch_root() / "_C" / "__init__.pyi").read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "TensorBase":
            return _stub_functions(node.body, drop_self=True)
    raise LookupError("class TensorBase not found in torch/_C/__init__.pyi")


@functools.cache
def functional_functions() -> dict:
    """``{name: [Overload, ...]}`` for ``torch.nn.functional`` (its stub, and ``torch._C._nn``'s for builtins)."""
    functions = _stub_functions(ast.parse((_torch_root() / "_C" / "_nn.pyi").read_text()).body)
    functions.update(_stub_functions(ast.parse((_torch_root() / "nn" / "functional.pyi").read_text()).body))
    return functions


def overloads_of(reference, stubs: dict, name: str, drop_self: bool = False, python_first: bool = False) -> list:
    """The overloads of PyTorch's ``reference``: from the stub when there is one, else ``inspect``.

    ``python_first``: ``inspect`` first (``nn.functional``'s stub writes its defaults as ``...``).
    """
    if python_first and not inspect.isbuiltin(reference):
        try:
            return [overload_from_signature(inspect.signature(reference), drop_self)]
        except (TypeError, ValueError):
            pass
    if name in stubs:
        return stubs[name]
    try:
        return [overload_from_signature(inspect.signature(reference), drop_self)]
    except (TypeError, ValueError):
        return []
