"""``minitorch._dynamo``: graph capture with guards, and ``minitorch.compile`` (PyTorch 2's ``torch.compile``).

``capture.py`` records one call's ops into an FX graph; ``split.py`` cuts it at branches on a
tensor's value; ``eval_frame.py`` keeps one compiled graph per set of guards and recompiles
when they change; ``backends.py`` names the compilers
(``"eager"``, ``"aot_eager"``, ``"inductor"``); ``explain.py`` reports graphs and graph breaks.
"""

from __future__ import annotations

import weakref

from . import config
from .backends import InvalidBackend, compile_fx_with, list_backends, lookup_backend
from .capture import GraphBreak
from .eval_frame import CompiledFunction, OptimizedModule, Unsupported, optimize
from .explain import ExplainOutput, explain

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# What ``options=`` may set (the inductor backend's passes).
OPTIONS = ("constant_folding", "dead_code_elimination", "fuse_pointwise")
_compiled_functions: weakref.WeakSet = weakref.WeakSet()


def compile(model=None, *, fullgraph: bool = False, dynamic: bool | None = None, backend=None,
            mode: str | None = None, options: dict | None = None, name: str | None = None, disable: bool = False,
            recompile_limit: int | None = None, isolate_recompiles: bool = False, shapes_spec=None):
    """Compile a module or function: capture its ops per input signature, hand each graph to ``backend``.

    ``fullgraph=True`` raises on a graph break instead of running that call eagerly;
    ``dynamic=True`` makes sizes symbolic from the first call, ``None`` (the default) after a second
    size, ``False`` never (each size its own graph; ``_dynamo/dynamic.py``);
    ``mode`` is one of PyTorch's names (all run the same passes here); ``options`` switches the
    inductor backend's passes (``constant_folding``, ``dead_code_elimination``, ``fuse_pointwise``);
    ``disable=True`` returns ``model`` unchanged. Used bare or with arguments as a decorator.

        >>> import minitorch
        >>> @minitorch.compile
        ... def gelu_ish(x):
        ...     return x * minitorch.sigmoid(1.702 * x)
        >>> gelu_ish(minitorch.tensor([0.0, 1.0])).shape
        minitorch.Size([2])
    """
    if model is None:
        return lambda function: compile(function, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                        options=options, name=name, disable=disable, recompile_limit=recompile_limit,
                                        isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
    if not callable(model):
        raise RuntimeError(f"compile() expected a callable (a function or an nn.Module), got {type(model).__name__}")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    for key in options or {}:
        if key not in OPTIONS:
            raise RuntimeError(f"Unexpected optimization option {key}, known options are {list(OPTIONS)}")
    if shapes_spec is not None:
        raise NotImplementedError("minitorch.compile does not take shapes_spec: it specializes on every size")
    if disable:
        return model
    backend = "inductor" if backend is None else backend  # PyTorch's default
    compiler = lookup_backend(backend)
    if options and backend == "inductor":
        compiler = compile_fx_with(**options)
    compiled = optimize(model, compiler, fullgraph=fullgraph, recompile_limit=recompile_limit, dynamic=dynamic)
    _compiled_functions.add(compiled._compiled if not isinstance(compiled, OptimizedModule) else
                            compiled.__dict__["_compiled"])
    return compiled


def reset() -> None:
    """Forget every compiled graph (each compiled function captures again on its next call)."""
    for compiled in list(_compiled_functions):
        compiled.cache.clear()


__all__ = ["CompiledFunction", "ExplainOutput", "GraphBreak", "InvalidBackend", "OptimizedModule", "Unsupported",
           "compile", "config", "explain", "list_backends", "lookup_backend", "optimize", "reset"]
