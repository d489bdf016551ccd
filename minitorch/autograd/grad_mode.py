"""Switching gradient recording on and off: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

While recording is off, ops run their forward and build no graph: their results have
``requires_grad=False`` and no ``grad_fn``. Optimizer steps and evaluation loops use this
so that updating weights is not itself recorded. Each works as a context manager and as a
decorator, as in PyTorch:

    >>> import minitorch
    >>> x = minitorch.ones(2, requires_grad=True)
    >>> with minitorch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
"""

from __future__ import annotations

import functools
import inspect
import threading

from .. import _tensor_base


class _ThreadGradState(threading.local):
    """Whether ops record a graph right now. One flag per thread, as in PyTorch: a ``no_grad``
    block in one thread (a DataParallel replica updating BatchNorm statistics) must not stop
    another thread from recording. Every new thread starts with recording on."""

    enabled = True
    inference = False


_GradState = _ThreadGradState()


class _AnomalyState:
    """Whether anomaly detection is on: one switch for the whole process, as in PyTorch."""

    enabled = False


def is_grad_enabled() -> bool:
    """True while ops record the graph that ``backward()`` walks."""
    return _GradState.enabled


def is_inference_mode_enabled() -> bool:
    return _GradState.inference


class _DecoratorContextManager:
    """A context manager that can also decorate a function (or generator) to run inside it."""

    def __call__(self, function):
        if inspect.isgeneratorfunction(function):

            @functools.wraps(function)
            def generator_wrapper(*args, **kwargs):
                generator = function(*args, **kwargs)
                with self.clone():
                    value = next(generator)
                while True:
                    try:
                        sent = yield value
                    except GeneratorExit:
                        generator.close()
                        raise
                    with self.clone():
                        try:
                            value = generator.send(sent)
                        except StopIteration:
                            return

            return generator_wrapper

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self.clone():
                return function(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Run the enclosed code without recording a graph."""

    def __enter__(self):
        self.previous = _GradState.enabled
        _GradState.enabled = False

    def __exit__(self, *exc_info):
        _GradState.enabled = self.previous
        return False


class enable_grad(_DecoratorContextManager):
    """Record the graph inside, even within a ``no_grad`` block."""

    def __enter__(self):
        self.previous = _GradState.enabled
        _GradState.enabled = True

    def __exit__(self, *exc_info):
        _GradState.enabled = self.previous
        return False


class set_grad_enabled(_DecoratorContextManager):
    """Turn recording on or off: at once when called, and back again when used with ``with``."""

    def __init__(self, mode: bool):
        self.previous = _GradState.enabled
        self.mode = bool(mode)
        _GradState.enabled = self.mode

    def __call__(self, function):
        # Used as a decorator, the switch made by __init__ is undone: only calls of the function change the mode.
        _GradState.enabled = self.previous
        return super().__call__(function)

    def __enter__(self):
        _GradState.enabled = self.mode

    def __exit__(self, *exc_info):
        _GradState.enabled = self.previous
        return False

    def clone(self):
        return self.__class__(self.mode)


# PyTorch's words for what autograd refuses to do with an inference tensor.
SAVED_INFERENCE_TENSOR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)
INPLACE_INFERENCE_TENSOR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


class InferenceVersionCounter(list):
    """The version counter of an *inference tensor*, one made inside ``inference_mode`` (``is_inference()``).

    PyTorch's inference tensors carry no version counter and can never join a recorded graph, so it
    can skip that bookkeeping. Here the counter is the mark: outside ``inference_mode`` reading it means
    autograd is saving the tensor for backward, which PyTorch refuses.
    """

    def __init__(self, values=(0,)):
        super().__init__(values)

    def __getitem__(self, index):
        if not _GradState.inference:
            raise RuntimeError(SAVED_INFERENCE_TENSOR)
        return list.__getitem__(self, index)


_PLAIN_VERSION_COUNTER = _tensor_base.new_version_counter


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and the tensors made inside are inference tensors (``is_inference()``): autograd refuses
    to save them for backward, and they cannot be written in place outside the mode. ``inference_mode(False)``
    inside it makes normal tensors again, with recording on. minitorch has no faster path for it."""

    def __init__(self, mode: bool = True):
        self.mode = mode

    def __enter__(self):
        self.previous = (_GradState.enabled, _GradState.inference, _tensor_base.new_version_counter)
        _GradState.enabled, _GradState.inference = not self.mode, bool(self.mode)
        _tensor_base.new_version_counter = InferenceVersionCounter if self.mode else _PLAIN_VERSION_COUNTER

    def __exit__(self, *exc_info):
        _GradState.enabled, _GradState.inference, _tensor_base.new_version_counter = self.previous
        return False

    def clone(self):
        return self.__class__(self.mode)
