"""``torch.jit``: TorchScript's names, for code that runs eagerly anyway.

TorchScript compiles a Python function or module into a graph that runs without Python. minitorch has
no compiler: eager Python *is* its only execution mode. What PyTorch code asks of ``torch.jit`` when it
runs eagerly is small, and this module gives exactly that:

* the guards ``is_scripting()`` and ``is_tracing()``, which library code (torchvision's ops, for one)
  puts around Python-only work: both are False here, as they are in eager PyTorch;
* the decorators ``ignore``, ``unused``, ``export`` and ``_script_if_tracing``, which mark what the
  compiler should skip or compile later: in eager mode each returns the function it decorates (or a
  wrapper that calls it), so the decorated code runs unchanged;
* ``annotate(type, value)``, a type hint for the compiler, which returns ``value``;
* ``Final``, the marker of constant attributes (``typing.Final``, as PyTorch re-exports it);
* ``script``, which returns the function or module it is given: code that scripts a helper for speed
  (``@torch.jit.script def snake(x, alpha): ...``) and then calls it computes the same values. What
  differs is only what a compiled object adds: PyTorch's ``ScriptFunction`` has ``.graph`` and ``.code``
  and prints as such; here the object stays the Python function (or module) it was.

``trace`` is left out: a traced module is a recording of one run (its control flow frozen), which an
unchanged module is not, so code that traces fails with PyTorch's ``AttributeError`` for a missing name.
"""

from __future__ import annotations

import functools
from typing import Final  # torch.jit.Final is typing.Final

__all__ = ["Final", "annotate", "export", "ignore", "is_scripting", "is_tracing", "script", "unused"]


def is_scripting() -> bool:
    """True inside TorchScript compilation; eager code (all of minitorch's) is never being scripted."""
    return False


def is_tracing() -> bool:
    """True while ``torch.jit.trace`` records a function; minitorch has no tracer, so never."""
    return False


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Compile ``obj`` (a function or an ``nn.Module``) to TorchScript in PyTorch; here, ``obj`` itself, which
    eager execution runs with the same values (see the module's docstring for what differs)."""
    return obj


def annotate(the_type, the_value):
    """A type hint for the TorchScript compiler (``torch.jit.annotate(List[int], [])``): returns the value."""
    return the_value


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` or ``@torch.jit.ignore(drop=True)``: leave a function to Python. Eagerly, the
    function itself (a bare decorator receives it as ``drop``)."""
    if callable(drop):
        return drop
    return lambda function: function


def unused(function):
    """``@torch.jit.unused``: a method the compiler replaces by a raise. Eagerly, the method itself."""
    return function


def export(function):
    """``@torch.jit.export``: compile this method of a scripted module too. Eagerly, the method itself."""
    return function


def _script_if_tracing(function):
    """Compile ``function`` only when a trace reaches it (torchvision's box ops use it). No trace runs in
    minitorch, so the wrapper always calls the function; it keeps PyTorch's two marker attributes."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)

    wrapper.__original_fn = function
    wrapper.__script_if_tracing_wrapper = True
    return wrapper
