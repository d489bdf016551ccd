"""``minitorch.cuda`` streams and events on the CuPy stand-in, and PyTorch's errors without a GPU.

The stand-in keeps CuPy's rules that matter here: an event belongs to the device it was made on and cannot be
recorded on another device's stream; a stream cannot be used while another device is current; elapsed time needs
two recorded timing events. A stream can be stalled (a kernel that never ends), so ``query`` is seen to answer
without waiting.
"""

from __future__ import annotations

import sys

import pytest

import minitorch
from minitorch import _device
from tests import gpu_standin
from tests.gpu_standin import counts, installed


@pytest.fixture
def standin():
    with installed() as cupy:
        yield cupy
    minitorch.cuda._current["index"] = 0


@pytest.fixture
def without_gpu(monkeypatch):
    """The real CuPy backend on a machine where ``import cupy`` fails (whatever this machine has)."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    previous = _device.register_backend("cuda", _device.CupyBackend())
    yield
    _device.register_backend("cuda", previous)


def test_without_a_gpu_streams_and_events_raise_pytorchs_error(without_gpu):
    for make in (lambda: minitorch.cuda.Event(enable_timing=True), minitorch.cuda.Stream,
                 minitorch.cuda.current_stream, minitorch.cuda.default_stream):
        with pytest.raises(RuntimeError, match="Torch not compiled with CUDA enabled"):
            make()
    with minitorch.cuda.stream(None):  # PyTorch's StreamContext(None) does nothing, with or without a GPU
        pass


def test_work_goes_to_the_stream_made_current_and_comes_back(standin):
    cuda = minitorch.cuda
    assert cuda.current_stream() == cuda.default_stream() and cuda.current_stream().cuda_stream == 0
    side = cuda.Stream()
    assert side.device == minitorch.device("cuda:0") and side.cuda_stream != 0
    with cuda.stream(side):
        assert cuda.current_stream() == side
        assert standin.cuda.get_current_stream() is side._stream  # CuPy queues its kernels there
    assert cuda.current_stream() == cuda.default_stream()
    cuda.set_stream(side)
    assert cuda.current_stream() == side
    cuda.set_stream(cuda.default_stream())


def test_a_stream_of_another_device_switches_the_device_inside_its_block(standin):
    cuda = minitorch.cuda
    other = cuda.Stream(device=1)
    assert other.device == minitorch.device("cuda:1")
    with pytest.raises(RuntimeError, match="created on device 1"):  # CuPy's own check, which the context avoids
        other._stream.use()
    with cuda.stream(other):
        assert standin.cuda.runtime.getDevice() == 1 and cuda.current_stream(1) == other
    assert standin.cuda.runtime.getDevice() == 0 and cuda.current_stream(1) == cuda.default_stream(1)


def test_events_time_on_the_stream_they_are_recorded_on(standin):
    cuda = minitorch.cuda
    other = cuda.Stream(device=1)
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    start.record(other)  # made current on device 0, recorded on device 1: created there, as in PyTorch
    end.record(other)
    assert start.device == minitorch.device("cuda:1")
    end.synchronize()
    assert start.query() and start.elapsed_time(end) >= 0.0
    with pytest.raises(RuntimeError, match="Event device 1 does not match recording stream's device 0"):
        start.record()


def test_elapsed_time_needs_timing_events_both_recorded_and_completed(standin):
    cuda = minitorch.cuda
    plain, timed, later = cuda.Event(), cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    with pytest.raises(ValueError, match="must be recorded"):
        timed.elapsed_time(later)
    plain.record()
    timed.record()
    with pytest.raises(ValueError, match="enable_timing=True"):
        plain.elapsed_time(timed)
    side = cuda.Stream()
    with gpu_standin.stalled(side._stream):
        later.record(side)
        assert not later.query() and not side.query()  # asked without waiting
        with pytest.raises(RuntimeError, match="must be completed"):
            timed.elapsed_time(later)


def test_wait_event_orders_streams_on_the_device_not_the_host(standin):
    cuda = minitorch.cuda
    producer, consumer = cuda.Stream(), cuda.Stream()
    with gpu_standin.stalled(producer._stream):
        counts.reset()
        ready = producer.record_event()
        consumer.wait_event(ready)  # queued on the device: the host does not wait
        assert counts.synchronizations == 0
        assert not consumer.query()  # the consumer's later work waits for the producer's
    consumer._stream._stalled = False
    consumer.wait_stream(producer)
    assert consumer.query()
