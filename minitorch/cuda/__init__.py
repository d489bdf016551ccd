"""``minitorch.cuda``: GPUs through CuPy.

One CUDA device is one GPU card with its own memory. ``device_count()`` says how many
CuPy can see; without CuPy or without a GPU it is 0 and ``is_available()`` is False. A
tensor moves to a GPU with ``.to('cuda')`` (the current device) or ``.to('cuda:1')``.
GPU work is queued and runs asynchronously: call ``synchronize()`` before reading a clock.
"""

from __future__ import annotations

import time

from .. import _random
from .._device import current_cuda as _current, device as _device, get_backend
from .._random import manual_seed as seed_all


def _backend():
    return get_backend("cuda")


def is_available() -> bool:
    """True when CuPy is installed and sees at least one GPU."""
    return _backend().is_available()


def device_count() -> int:
    return _backend().device_count()


def current_device() -> int:
    return _current["index"]


def set_device(device) -> None:
    if isinstance(device, _device):
        index = device.index
    else:
        index = int(str(device).rsplit(":", 1)[-1]) if isinstance(device, str) else int(device)
    if index is None:
        return
    _check_index(index)
    _current["index"] = index


def _check_index(index: int) -> None:
    count = device_count()
    if not 0 <= index < count:
        if count == 0:
            _backend().array_module  # noqa: B018 -- reading it raises the explanation of why CUDA is missing
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {index} requested, {count} available)")


def synchronize(device=None) -> None:
    """Wait until every queued GPU operation on ``device`` (default: the current one) has finished."""
    index = current_device() if device is None else (_device(device).index if not isinstance(device, int) else device)
    _check_index(index or 0)
    _backend().synchronize(index or 0)


def get_device_name(device=None) -> str:
    index = current_device() if device is None else (_device(device).index if not isinstance(device, int) else device)
    _check_index(index or 0)
    return _backend().device_name(index or 0)


class device:
    """Context manager that makes ``index`` the current CUDA device inside it."""

    def __init__(self, index):
        self.index = index.index if isinstance(index, _device) else int(index)

    def __enter__(self):
        self.previous = current_device()
        set_device(self.index)

    def __exit__(self, *exc_info):
        _current["index"] = self.previous
        return False


def manual_seed(seed: int) -> None:
    """Seed GPU random numbers: minitorch draws them on the host, so this seeds the default generator."""
    seed_all(seed)


manual_seed_all = manual_seed


# minitorch draws a GPU tensor's random numbers on the host, from the default generator (``_random.py``), so
# the state of a GPU's generator is that generator's state (PyTorch keeps a Philox state per GPU instead).
def get_rng_state(device="cuda"):
    """The random state that GPU draws use (a uint8 tensor, as PyTorch returns)."""
    _check_rng_device(device)
    return _random.get_rng_state()


def set_rng_state(new_state, device="cuda") -> None:
    _check_rng_device(device)
    _random.set_rng_state(new_state)


def get_rng_state_all() -> list:
    return [get_rng_state(index) for index in range(device_count())]


def set_rng_state_all(new_states) -> None:
    for index, state in enumerate(new_states):
        set_rng_state(state, index)


def _check_rng_device(device) -> None:
    """Refuse a GPU that is not there, as PyTorch does (without a GPU: the reason CUDA is missing)."""
    index = device if isinstance(device, int) else _device(device).index
    _check_index(current_device() if index is None else index)


class Event:
    """A point in a device's work queue; two of them time GPU work (``start.elapsed_time(end)``, in ms)."""

    def __init__(self, enable_timing: bool = False):
        self.enable_timing = enable_timing
        self._event = None
        self._host_time = None

    def record(self, stream=None) -> None:
        if is_available():
            cupy = _backend().array_module
            self._event = cupy.cuda.Event()
            self._event.record()
        else:
            self._host_time = time.perf_counter()

    def synchronize(self) -> None:
        if self._event is not None:
            self._event.synchronize()

    def query(self) -> bool:
        return True if self._event is None else self._event.done

    def elapsed_time(self, end: Event) -> float:
        if self._event is not None:
            cupy = _backend().array_module
            end.synchronize()
            return cupy.cuda.get_elapsed_time(self._event, end._event)
        return (end._host_time - self._host_time) * 1000.0
