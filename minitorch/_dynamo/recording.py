"""Where a recording listens: the entry points every op passes, swapped while a recorder is active.

Two tools record a forward pass by running it: ``minitorch.compile`` (``capture.py``, which
writes an FX graph) and ``minitorch.onnx.export`` (``onnx/_trace.py``, which writes the calls it
maps to ONNX operators). Both listen at the same places, through this one module, as PyTorch's
compiler and its dynamo-based ONNX exporter share TorchDynamo:

* ``Function.apply`` (``autograd/function.py``): every differentiable op passes it once;
* functions that make their result without a ``Function`` (comparisons, masks, ``interpolate``),
  which a recorder names for recording whole;
* ``ops/inplace._store``: an in-place write (``relu_``, ``x += y``), after which the target
  stands for the result; ``_alike_without_graph`` answers False meanwhile, so every write
  takes that path (also ``x += y`` under ``no_grad``);
* ``TensorBase._make``: a tensor made outside every op (``minitorch.ones(n)``, ``argmax``);
* the ``Tensor`` methods that turn a tensor into a Python value (``__bool__``, ``item``...).

Each swapped entry point runs the real one, then tells the *listener* (the recorder) what
happened. ``listener.depth`` counts the recorded calls in progress: inside one, the ops it runs
are part of it and are not reported again. A recorder decides what each event means: the
compiler adds graph nodes and splits at a branch; the exporter adds calls and warns at one.
"""

from __future__ import annotations

import sys

from .._tensor import Tensor
from .._tensor_base import TensorBase
from ..autograd import function as _function
from ..ops import inplace as _inplace


class Listener:
    """What a recorder hears (each method does nothing here; a recorder overrides what it needs)."""

    depth = 0  # recorded calls in progress

    def inline(self, op) -> bool:
        """Record the ops inside this ``Function`` instead of the ``Function`` (the exporter's
        ``autograd_inlining`` for a custom Function with no ONNX mapping)."""
        return False

    def records(self, function, args: tuple) -> bool:
        """Whether this call of a function named for recording whole is recorded whole."""
        return True

    def applied(self, op, args: tuple, outputs) -> None:
        """``op.apply(*args)`` ran and returned ``outputs``."""

    def inlined(self, op, args: tuple, outputs) -> None:
        """``op`` ran with its inside recorded (``inline``); it returned ``outputs``."""

    def called(self, function, name: str, args: tuple, kwargs: dict, output) -> None:
        """A function recorded whole ran."""

    def stored(self, target: Tensor, stored: Tensor) -> None:
        """``target`` was written in place; ``stored`` is the tensor whose values it now holds."""

    def made(self, tensor: Tensor, caller) -> None:
        """``tensor`` was made outside every recorded op, by the code of frame ``caller``."""

    def converted(self, tensor: Tensor, method: str, args: tuple, kwargs: dict, outcome) -> None:
        """``tensor.<method>()`` turned the tensor into the Python value ``outcome``."""


CONVERSIONS = ("__bool__", "item", "__float__", "__int__", "__index__")


class EntryPoints:
    """The entry points swapped for ``listener`` (use as a context manager).

    ``functions``: (module, name) pairs of functions recorded whole; ``conversions``: the
    ``Tensor`` methods reported to ``listener.converted``. ``swap`` replaces one more attribute
    for the duration (a recorder's own extras), restored with the rest.
    """

    def __init__(self, listener: Listener, functions=(), conversions=CONVERSIONS):
        self.listener, self.functions, self.conversions = listener, list(functions), conversions
        self.saved: list = []

    def swap(self, owner, name: str, value) -> None:
        self.saved.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, value)

    def __enter__(self):
        listener = self.listener
        original_apply = _function.Function.__dict__["apply"].__func__

        def recording_apply(cls, *args):
            if listener.depth:  # inside a recorded op (a custom Function's forward): part of that op
                return original_apply(cls, *args)
            if listener.inline(cls):
                outputs = original_apply(cls, *args)
                listener.inlined(cls, args, outputs)
                return outputs
            listener.depth += 1
            try:
                outputs = original_apply(cls, *args)
            finally:
                listener.depth -= 1
            listener.applied(cls, args, outputs)
            return outputs

        self.swap(_function.Function, "apply", classmethod(recording_apply))
        for owner, name in self.functions:
            self.swap(owner, name, self._recording(getattr(owner, name), name))
        original_store = _inplace._store

        def recording_store(target, result):
            stored = original_store(target, result)
            listener.stored(target, stored)
            return stored

        self.swap(_inplace, "_store", recording_store)
        self.swap(_inplace, "_alike_without_graph", lambda target, other: False)
        original_make = TensorBase._make

        def recording_make(*args, **kwargs):
            tensor = original_make(*args, **kwargs)
            if listener.depth == 0:
                listener.made(tensor, sys._getframe(1))
            return tensor

        self.swap(TensorBase, "_make", staticmethod(recording_make))  # the layers below Tensor call it there,
        self.swap(Tensor, "_make", staticmethod(recording_make))  # the rest as Tensor._make
        for method in self.conversions:
            self.swap(Tensor, method, self._converting(getattr(Tensor, method), method))
        return self

    def _recording(self, function, name: str):
        listener = self.listener

        def recording(*args, **kwargs):
            if listener.depth or not listener.records(function, args):
                return function(*args, **kwargs)
            listener.depth += 1
            try:
                output = function(*args, **kwargs)
            finally:
                listener.depth -= 1
            listener.called(function, name, args, kwargs, output)
            return output

        recording.__name__ = name
        recording.__wrapped__ = function
        return recording

    def _converting(self, original, method: str):
        listener = self.listener

        def converting(tensor, *args, **kwargs):
            outer = listener.depth == 0
            listener.depth += 1  # ``__bool__`` calls ``item``: one report per conversion
            try:
                outcome = original(tensor, *args, **kwargs)
            finally:
                listener.depth -= 1
            if outer:
                listener.converted(tensor, method, args, kwargs, outcome)
            return outcome

        converting.__name__ = original.__name__
        return converting

    def __exit__(self, *exc_info):
        for owner, name, value in reversed(self.saved):
            setattr(owner, name, value)
        self.saved = []
        return False
