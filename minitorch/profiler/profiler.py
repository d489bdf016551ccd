"""``profile``: record every op that runs in a block, with its time; ``record_function``: name a region.

While a ``profile`` records, ``Function.apply`` (every op's forward) and ``BackwardNode.apply`` (every
node the engine runs in backward) are replaced by versions that note a start and an end around the real
call, as the ONNX exporter's tracer does (``onnx/_trace.py``); on exit they are put back. Nothing else
changes, so the ops' results are the same with and without the profiler; the cost is a few microseconds
per op, which the table includes.

An op's name is PyTorch's ``aten::`` name where minitorch's op class carries one (``Mul`` -> ``aten::mul``,
``Addmm`` -> ``aten::addmm``); a custom ``Function`` is named by its class, as in PyTorch. Backward nodes
appear as PyTorch shows them: ``autograd::engine::evaluate_function: MulBackward0`` around ``MulBackward0``.
Only the thread that entered ``profile`` is recorded.

    >>> import minitorch
    >>> from minitorch.profiler import profile, record_function
    >>> x = minitorch.ones(3, requires_grad=True)
    >>> with profile() as prof:
    ...     with record_function("forward"):
    ...         y = (x * x).sum()
    ...     y.backward()
    >>> [e.key for e in prof.key_averages()][:3]
    ['forward', 'aten::mul', 'aten::sum']
"""

from __future__ import annotations

import enum
import functools
import os
import re
import socket
import threading
import time

from ..autograd import function as _function
from ._events import EventList, FunctionEvent

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1  # accepted; GPU ops are timed on the host, around the call (minitorch has no device-side tracer)


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0):
    """Which steps to record (``prof.step()`` counts them): skip ``skip_first``, then cycles of ``wait`` steps off,
    ``warmup`` steps running the profiler without keeping it, ``active`` steps recorded, the last of which hands
    the trace to ``on_trace_ready``; ``repeat`` cycles (0: for ever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False):
    """An ``on_trace_ready`` that writes each trace to ``dir_name`` as ``<worker>.<time>.pt.trace.json``."""

    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns()}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            import gzip  # noqa: PLC0415 - only when asked for

            with open(path, "rb") as plain, gzip.open(path + ".gz", "wb") as packed:
                packed.write(plain.read())
            os.remove(path)

    return handler


_active: list[profile] = []  # the recording profiles, innermost last (record_function writes to the last)


def _now_us() -> float:
    return time.perf_counter_ns() / 1000.0


def _aten_name(op_class) -> str:
    """``aten::addmm`` from the op's backward-node name ``AddmmBackward0``, or a custom Function's class name."""
    if not issubclass(op_class, _function.Op):
        return op_class.__name__
    node_name = getattr(op_class, "node_name", None) or f"{op_class.__name__}Backward0"
    base = re.sub(r"Backward\d*$", "", node_name)
    return "aten::" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()


def _shapes(args) -> list:
    return [list(arg.shape) if hasattr(arg, "shape") and hasattr(arg, "requires_grad") else [] for arg in args]


class profile:
    """Record the ops a block runs: ``with profile() as prof: ...``, then ``prof.key_averages().table()``.

    ``activities``, ``record_shapes`` (input shapes per call, for ``key_averages(group_by_input_shape=True)``),
    ``schedule`` with ``on_trace_ready`` and ``prof.step()`` as in ``torch.profiler.profile``; ``profile_memory``,
    ``with_stack``, ``with_flops`` and ``with_modules`` are accepted and record nothing more.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None):
        self.activities = set(activities or [ProfilerActivity.CPU])
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.step_num = 0
        self._events = EventList()
        self._open: list[FunctionEvent] = []
        self._thread = None
        self._saved_applies = None
        self._recording = False

    # -- entering and leaving -------------------------------------------------------------------------------
    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def start(self) -> None:
        self._thread = threading.get_ident()
        self._install()
        _active.append(self)
        self._recording = self.schedule(self.step_num) != ProfilerAction.NONE

    def stop(self) -> None:
        if self in _active:
            _active.remove(self)
        self._uninstall()
        if self.on_trace_ready is not None and self.schedule(self.step_num) == ProfilerAction.RECORD_AND_SAVE:
            self.on_trace_ready(self)

    def step(self) -> None:
        """The end of one training step: move along the schedule (and hand over a trace when a cycle ends)."""
        action = self.schedule(self.step_num)
        if action == ProfilerAction.RECORD_AND_SAVE and self.on_trace_ready is not None:
            self.on_trace_ready(self)
        self.step_num += 1
        following = self.schedule(self.step_num)
        if action in (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE) and following != ProfilerAction.NONE:
            self._events = EventList()  # a new cycle starts with a new trace
        self._recording = following in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

    # -- the results ----------------------------------------------------------------------------------------
    def events(self) -> EventList:
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        return self._events.key_averages(group_by_input_shape)

    def export_chrome_trace(self, path: str) -> None:
        self._events.export_chrome_trace(path)

    # -- recording ------------------------------------------------------------------------------------------
    def _begin(self, name: str, args=(), category: str = "cpu_op") -> FunctionEvent | None:
        if not self._recording or threading.get_ident() != self._thread:
            return None
        event = FunctionEvent(name, _now_us(), _shapes(args) if self.record_shapes else [], 0, category)
        if self._open:
            event.cpu_parent = self._open[-1]
            self._open[-1].cpu_children.append(event)
        self._open.append(event)
        self._events.append(event)
        return event

    def _end(self, event: FunctionEvent | None) -> None:
        if event is not None:
            event.end_us = _now_us()
            if self._open and self._open[-1] is event:
                self._open.pop()

    def _install(self) -> None:
        """Wrap the two entry points every op passes through (forward: ``Function.apply``; backward: a node's
        ``apply``), keeping the originals to put back."""
        original_forward = _function.Function.__dict__["apply"]
        original_backward = _function.BackwardNode.__dict__["apply"]
        self._saved_applies = (original_forward, original_backward)
        forward, backward = original_forward.__func__, original_backward
        profiler = self

        @functools.wraps(forward)
        def profiled_forward(cls, *args):
            event = profiler._begin(_aten_name(cls), args)
            try:
                return forward(cls, *args)
            finally:
                profiler._end(event)

        @functools.wraps(backward)
        def profiled_backward(node, *grad_outputs):
            name = node.name()
            outer = profiler._begin(f"autograd::engine::evaluate_function: {name}", grad_outputs)
            inner = profiler._begin(name, grad_outputs)
            try:
                return backward(node, *grad_outputs)
            finally:
                profiler._end(inner)
                profiler._end(outer)

        _function.Function.apply = classmethod(profiled_forward)
        _function.BackwardNode.apply = profiled_backward

    def _uninstall(self) -> None:
        if self._saved_applies is not None:
            _function.Function.apply, _function.BackwardNode.apply = self._saved_applies
            self._saved_applies = None


class record_function:
    """Name a region in the profile (``with record_function("attention"): ...`` or as a decorator); it shows
    in the table with the ops inside it as its children. Without an active profile it does nothing."""

    def __init__(self, name: str, args: str | None = None):
        self.name, self.args = name, args
        self._event = None
        self._profiler = None

    def __enter__(self) -> record_function:
        if _active:
            self._profiler = _active[-1]
            self._event = self._profiler._begin(self.name, category="user_annotation")
        return self

    def __exit__(self, *exc_info) -> None:
        if self._profiler is not None:
            self._profiler._end(self._event)
            self._profiler = self._event = None

    def __call__(self, function):
        @functools.wraps(function)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return function(*args, **kwargs)

        return wrapped
