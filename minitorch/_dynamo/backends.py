"""The backends ``minitorch.compile`` hands a captured graph to, by name.

A backend is a function ``backend(graph_module, example_inputs) -> callable``: it receives the
captured FX graph (one placeholder per input tensor) and the tensors of the call that was
captured, and returns what runs instead of the graph on later calls. Any such function can be
passed as ``backend=``, as in PyTorch. The named ones:

* ``"eager"``: run the captured graph as it is (each op through ``Function.apply``): what
  capture alone costs and gives.
* ``"aot_eager"``: AOTAutograd (``minitorch/_functorch/aot_autograd.py``): the forward and
  the backward generated ahead of time as one joint program, run as a single autograd node.
* ``"inductor"`` (the default): the graph passes of ``minitorch/_inductor`` (constant folding,
  dead-code elimination, pointwise fusion into generated NumPy kernels), then AOTAutograd.
"""

from __future__ import annotations

from .._functorch.aot_autograd import aot_autograd
from .._inductor.compile_fx import compile_fx, compile_fx_with as _compile_fx_with
from .dynamic import per_size


def eager(graph_module, example_inputs):
    """Run the captured graph itself."""
    return graph_module.forward


def aot_eager(graph_module, example_inputs):
    """Forward and backward generated ahead of time, without graph passes or fusion."""
    return aot_autograd(graph_module, example_inputs)


def inductor(graph_module, example_inputs):
    """Graph passes and fused pointwise kernels, then the joint forward and backward."""
    return compile_fx(graph_module, example_inputs)


def compile_fx_with(**options):
    """The inductor backend with some passes switched off (``minitorch.compile(..., options={...})``)."""
    return per_size(_compile_fx_with(**options))


# The code-generating backends write their code per concrete size of a graph with symbolic sizes.
_BACKENDS = {"eager": eager, "aot_eager": per_size(aot_eager), "inductor": per_size(inductor)}
_DEBUG_BACKENDS = ("eager", "aot_eager")  # PyTorch tags these "debug": list_backends() leaves them out


class InvalidBackend(RuntimeError):
    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


def lookup_backend(backend):
    """A backend function from a name or a function."""
    if callable(backend):
        return backend
    if backend not in _BACKENDS:
        raise InvalidBackend(backend)
    return _BACKENDS[backend]


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The names ``backend=`` accepts (the debug ones only when ``exclude_tags`` does not exclude them)."""
    excluded = _DEBUG_BACKENDS if exclude_tags and "debug" in exclude_tags else ()
    return sorted(name for name in _BACKENDS if name not in excluded)
