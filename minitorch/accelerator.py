"""``minitorch.accelerator``: device-agnostic questions about the accelerator (PyTorch 2.13's API).

Code that should run on "whatever accelerator there is" asks here instead of naming CUDA:

    >>> import minitorch
    >>> device = minitorch.accelerator.current_accelerator() if minitorch.accelerator.is_available() else "cpu"

minitorch's only accelerator type is ``cuda`` (through CuPy), so each function forwards to
``minitorch.cuda``. Without a usable GPU, ``is_available()`` is False, ``device_count()`` is 0,
and the functions that need a device raise PyTorch's error.
"""

from __future__ import annotations

import contextlib

from . import cuda
from ._device import device as _device
from .backends import cuda as _cuda_backend

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """Whether an accelerator (a GPU minitorch can use) is present."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False):
    """The accelerator's device type (``device(type='cuda')``), or None when there is none.

    Without ``check_available``, an installed accelerator counts even with no device present,
    as in PyTorch (a CUDA build on a machine without a GPU still answers ``cuda``).
    """
    if is_available() or (not check_available and _cuda_backend.is_built()):
        return _device("cuda")
    return None


def device_count() -> int:
    """How many accelerator devices there are (0 without any)."""
    return cuda.device_count() if is_available() else 0


def _require() -> None:
    if not is_available():
        raise RuntimeError(_NONE_AVAILABLE)


def current_device_index() -> int:
    """The index of the current accelerator device."""
    _require()
    return cuda.current_device()


current_device_idx = current_device_index


def _index(device) -> int:
    if isinstance(device, int):
        return device
    parsed = _device(device)
    return parsed.index if parsed.index is not None else cuda.current_device()


def set_device_index(device, /) -> None:
    """Make ``device`` (an index, ``"cuda:1"`` or a device) the current accelerator device."""
    _require()
    cuda.set_device(_index(device))


set_device_idx = set_device_index


@contextlib.contextmanager
def device_index(device, /):
    """Within the ``with`` block, ``device`` (an index; None changes nothing) is the current device."""
    if device is None:
        yield
        return
    _require()
    previous = cuda.current_device()
    cuda.set_device(_index(device))
    try:
        yield
    finally:
        cuda.set_device(previous)


def synchronize(device=None, /) -> None:
    """Wait for every queued operation on ``device`` (default: the current one) to finish."""
    _require()
    cuda.synchronize(None if device is None else _index(device))


def empty_cache() -> None:
    """Release cached device memory to the system: CuPy's memory pool, when a GPU is in use."""
    if is_available():
        cuda._backend().array_module.get_default_memory_pool().free_all_blocks()
