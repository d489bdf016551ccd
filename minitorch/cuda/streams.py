"""Streams and events: the GPU's work queues, and markers placed in them.

A GPU runs work in the order it was queued on a **stream**. Each device has a current stream (at first
its default stream); every kernel and copy goes there. A second stream lets work overlap (a copy while
a kernel runs). An **event** is a marker recorded in a stream: ``query()`` says whether the work queued
before it has finished, ``synchronize()`` waits for it, and two timing events measure the GPU's own
clock between them (``start.elapsed_time(end)``, in milliseconds), without the host's launch overhead::

    start, end = minitorch.cuda.Event(enable_timing=True), minitorch.cuda.Event(enable_timing=True)
    start.record()
    y = x @ x
    end.record()
    end.synchronize()
    start.elapsed_time(end)

These wrap CuPy's ``cupy.cuda.Stream`` and ``cupy.cuda.Event``. As in PyTorch, an event is created on
the device of the stream it is first recorded on, and recording it later on another device's stream is
an error. Without a GPU nothing here can run: each raises instead of timing something else (the host).
"""

from __future__ import annotations

from .._device import current_cuda as _current, device as _device, get_backend


def _cupy():
    """CuPy, or PyTorch's error when there is no GPU (the reason CUDA is missing)."""
    return get_backend("cuda").array_module


def _index(device) -> int:
    if device is None:
        return _current["index"]
    if isinstance(device, int):
        return device
    index = _device(device).index
    return _current["index"] if index is None else index


class Stream:
    """A queue of GPU work on one device (``minitorch.cuda.Stream(device=None, priority=0)``)."""

    def __init__(self, device=None, priority: int = 0):
        cupy = _cupy()
        self._index = _index(device)
        with cupy.cuda.Device(self._index):  # a CUDA stream belongs to the device current when it is made
            self._stream = cupy.cuda.Stream(non_blocking=False, priority=priority or None)

    @classmethod
    def _wrapping(cls, index: int, cupy_stream) -> Stream:
        """A ``Stream`` for one of CuPy's (the current or the default one of device ``index``)."""
        stream = cls.__new__(cls)
        stream._index, stream._stream = index, cupy_stream
        return stream

    @property
    def device(self):
        return _device("cuda", self._index)

    @property
    def cuda_stream(self) -> int:
        """The raw ``cudaStream_t`` handle (0 for the default stream)."""
        return self._stream.ptr

    @property
    def priority(self) -> int:
        return self._stream.priority

    def query(self) -> bool:
        """Has all the work queued on this stream finished? Never waits."""
        return self._stream.done

    def synchronize(self) -> None:
        """Wait until all the work queued on this stream has finished."""
        self._stream.synchronize()

    def record_event(self, event: Event | None = None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event: Event) -> None:
        """Work queued on this stream from now on starts only after ``event`` has completed (the host goes on)."""
        event.wait(self)

    def wait_stream(self, stream: Stream) -> None:
        """Work queued on this stream from now on starts only after what ``stream`` holds now has finished."""
        self.wait_event(stream.record_event())

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and (other._index, other.cuda_stream) == (self._index, self.cuda_stream)

    def __hash__(self) -> int:
        return hash((self._index, self.cuda_stream))

    def __repr__(self) -> str:
        return f"<minitorch.cuda.Stream device=cuda:{self._index} cuda_stream={self.cuda_stream:#x}>"


def current_stream(device=None) -> Stream:
    """The stream that work on ``device`` (default: the current device) is queued on now."""
    cupy, index = _cupy(), _index(device)
    return Stream._wrapping(index, cupy.cuda.get_current_stream(index))


def default_stream(device=None) -> Stream:
    """The device's default stream (CUDA's null stream, handle 0)."""
    cupy = _cupy()
    return Stream._wrapping(_index(device), cupy.cuda.Stream.null)


def set_stream(stream: Stream | None) -> None:
    """Make ``stream`` the current stream of its device (prefer ``with minitorch.cuda.stream(s):``)."""
    if stream is None:
        return
    with _cupy().cuda.Device(stream._index):
        stream._stream.use()


class StreamContext:
    """``with minitorch.cuda.stream(s):`` queues the work inside on ``s``, switching to ``s``'s device as
    PyTorch does; both are restored on the way out. ``stream(None)`` does nothing."""

    def __init__(self, stream: Stream | None):
        self.stream = stream
        self._device = None

    def __enter__(self):
        if self.stream is None:
            return None
        cupy = _cupy()
        self._device = cupy.cuda.Device(self.stream._index)
        self._device.__enter__()  # CuPy refuses a stream made on another device than the current one
        self.stream._stream.__enter__()
        return self.stream

    def __exit__(self, *exc_info):
        if self.stream is not None:
            self.stream._stream.__exit__(*exc_info)
            self._device.__exit__(*exc_info)
        return False


def stream(stream: Stream | None) -> StreamContext:
    return StreamContext(stream)


class Event:
    """A marker in a stream: ``record``, ``query``, ``synchronize``, ``wait``, ``elapsed_time`` (ms)."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        _cupy()  # without a GPU: PyTorch's error, not a clock on the host
        self.enable_timing, self.blocking, self.interprocess = enable_timing, blocking, interprocess
        self._event = None  # created on the device of the first stream it is recorded on
        self._index = None

    @property
    def device(self):
        return None if self._index is None else _device("cuda", self._index)

    @property
    def cuda_event(self) -> int:
        return 0 if self._event is None else self._event.ptr

    def record(self, stream: Stream | None = None) -> None:
        """Place the marker at the end of ``stream``'s queue (default: the current stream)."""
        stream = current_stream() if stream is None else stream
        cupy = _cupy()
        if self._event is None:
            with cupy.cuda.Device(stream._index):
                self._event = cupy.cuda.Event(block=self.blocking, disable_timing=not self.enable_timing,
                                              interprocess=self.interprocess)
            self._index = stream._index
        elif stream._index != self._index:
            raise RuntimeError(f"Event device {self._index} does not match recording stream's device "
                               f"{stream._index}.")
        with cupy.cuda.Device(self._index):
            self._event.record(stream._stream)

    def wait(self, stream: Stream | None = None) -> None:
        """Make ``stream`` (default: the current one) wait on the device for this event; the host goes on."""
        if self._event is None:
            return  # nothing recorded: nothing to wait for
        stream = current_stream() if stream is None else stream
        with _cupy().cuda.Device(stream._index):
            stream._stream.wait_event(self._event)

    def query(self) -> bool:
        """Has the work before the marker finished? True for an event never recorded."""
        return True if self._event is None else self._event.done

    def synchronize(self) -> None:
        """Wait on the host until the work before the marker has finished."""
        if self._event is not None:
            self._event.synchronize()

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds on the GPU's clock from this event to ``end_event`` (both recorded and completed)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._event is None or end_event._event is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        if not (self.query() and end_event.query()):
            raise RuntimeError("Both events must be completed before calculating elapsed time.")
        return float(_cupy().cuda.get_elapsed_time(self._event, end_event._event))

    def __repr__(self) -> str:
        return f"<minitorch.cuda.Event {self.cuda_event:#x}>"
