"""Devices, and the array module that computes on each.

A tensor lives on one device. Each device *type* has a backend that says which array
module does the arithmetic there: NumPy for ``cpu``, CuPy for ``cuda`` (imported only
when a CUDA tensor is first asked for, so a CPU-only machine never needs CuPy). Ops ask
a tensor for its array module (``tensor._xp``) and never import NumPy or CuPy for
computation themselves, so one code path serves every device, the way Chainer does it.

    >>> import minitorch
    >>> minitorch.device("cpu")
    device(type='cpu')
    >>> minitorch.device("cuda:1")
    device(type='cuda', index=1)
"""

from __future__ import annotations

import contextlib
import platform

import numpy as np


class Backend:
    """How one device type stores arrays and moves them.

    ``array_module`` is NumPy or CuPy (or anything with NumPy's API). A backend also
    says how many devices of its type exist, copies arrays onto and off its devices,
    and runs code with one of its devices made current.
    """

    def __init__(self, type_name: str):
        self.type_name = type_name

    array_module = None  # each backend sets NumPy, CuPy, or another NumPy-like module

    def device_count(self) -> int:
        return 1

    def is_available(self) -> bool:
        return self.device_count() > 0

    def to_device(self, array, index: int, blocking: bool = False):
        """Copy a host (NumPy) array onto device ``index`` of this type (``blocking``: the host waits for it)."""
        return array

    def to_host(self, array, non_blocking: bool = False) -> np.ndarray:
        """Copy an array of this backend to a NumPy array (``non_blocking``: into pinned memory, the host goes on)."""
        return array

    def pin(self, array: np.ndarray) -> np.ndarray:
        """A copy of a host array in page-locked (pinned) memory, which the device can copy from asynchronously."""
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def is_pinned(self, array: np.ndarray) -> bool:
        return False

    def synchronize(self, index: int) -> None:
        """Wait for all queued work on device ``index`` to finish."""

    def device_name(self, index: int) -> str:
        return self.type_name

    def use_device(self, index: int):
        """A context manager that makes device ``index`` current for allocations."""
        return contextlib.nullcontext()

    def make_current(self, index: int) -> None:
        """Make device ``index`` current from now on (``cuda.set_device``): what the engine allocates on next."""


class NumpyBackend(Backend):
    """The CPU: NumPy arrays in host memory."""

    array_module = np

    def device_name(self, index: int) -> str:
        return platform.processor() or platform.machine() or "cpu"


class CupyBackend(Backend):
    """CUDA GPUs through CuPy, imported on first use."""

    def __init__(self):
        super().__init__("cuda")
        self._cupy = None
        self._import_error = None

    def _import(self):
        if self._cupy is None and self._import_error is None:
            try:
                import cupy  # optional (the cuda extra): only on a GPU

                self._cupy = cupy
            except Exception as error:  # not installed, or a broken CUDA install
                self._import_error = error
        return self._cupy

    @property
    def array_module(self):
        cupy = self._import()
        if cupy is None or self.device_count() == 0:
            raise RuntimeError(_no_cuda_message(self._import_error))
        return cupy

    def device_count(self) -> int:
        cupy = self._import()
        if cupy is None:
            return 0
        try:
            return cupy.cuda.runtime.getDeviceCount()
        except Exception:  # CuPy installed but no driver or no GPU
            return 0

    def to_device(self, array, index: int, blocking: bool = False):
        # Queued on the current stream. From pinned memory with blocking=False the host goes on at once (the
        # caller must not change the source until the copy is done: PyTorch's non_blocking=True); from pageable
        # memory CUDA stages the bytes first, so the source may be reused as soon as this returns.
        cupy = self.array_module
        with cupy.cuda.Device(index):
            return cupy.asarray(array, blocking=blocking)

    def to_host(self, array, non_blocking: bool = False) -> np.ndarray:
        if not hasattr(array, "get"):
            return np.asarray(array)
        if not non_blocking:
            return array.get()
        # PyTorch's non_blocking copy to the CPU: into pinned memory, queued on the current stream; the values
        # are there once the stream has reached this point (an event, or synchronize)
        out = self._cupyx().empty_pinned(array.shape, array.dtype)
        return array.get(out=out, blocking=False)

    def pin(self, array: np.ndarray) -> np.ndarray:
        self.array_module  # noqa: B018 -- reading it raises the explanation of why CUDA is missing
        out = self._cupyx().empty_pinned(array.shape, array.dtype)
        out[...] = array
        return out

    def is_pinned(self, array: np.ndarray) -> bool:
        """Is the array's memory page-locked? CUDA's answer for its first byte (as PyTorch asks)."""
        if not self.is_available() or not isinstance(array, np.ndarray):
            return False
        runtime = self._cupy.cuda.runtime
        return runtime.pointerGetMemoryType(array.__array_interface__["data"][0]) == runtime.memoryTypeHost

    def _cupyx(self):
        import cupyx  # optional (the cuda extra), next to cupy: its pinned-memory allocation

        return cupyx

    def synchronize(self, index: int) -> None:
        cupy = self.array_module
        with cupy.cuda.Device(index):
            cupy.cuda.Device(index).synchronize()

    def device_name(self, index: int) -> str:
        cupy = self.array_module
        return cupy.cuda.runtime.getDeviceProperties(index)["name"].decode()

    def use_device(self, index: int):
        return self.array_module.cuda.Device(index)

    def make_current(self, index: int) -> None:
        # CuPy's current device, which NCCL's communicator and CuPy's own allocations follow: each rank of a
        # job binds its own GPU with set_device(local_rank), not GPU 0
        self.array_module.cuda.Device(index).use()

    def memory_pool(self, index: int):
        """CuPy's memory pool on GPU ``index`` (CuPy keeps freed blocks for reuse, as PyTorch's caching allocator)."""
        with self.use_device(index):
            return self.array_module.get_default_memory_pool()


def _no_cuda_message(import_error) -> str:
    reason = (
        "CuPy is not installed (pip install 'minitorch-kit[cuda]')"
        if isinstance(import_error, ImportError)
        else "no CUDA GPU was found"
    )
    return f"Torch not compiled with CUDA enabled: {reason}, so tensors cannot be moved to a cuda device."


_BACKENDS: dict[str, Backend] = {"cpu": NumpyBackend("cpu"), "cuda": CupyBackend()}


def register_backend(type_name: str, backend: Backend) -> Backend | None:
    """Install ``backend`` for a device type; returns the one it replaces.

    The test suite uses this to stand a NumPy-backed ``cuda`` in for a real GPU, so the
    multi-device logic (mixing errors, transfers, where gradients land) is tested on any
    machine.
    """
    previous = _BACKENDS.get(type_name)
    _BACKENDS[type_name] = backend
    return previous


def get_backend(type_name: str) -> Backend:
    return _BACKENDS[type_name]


class device:
    """Where a tensor's data lives: ``device('cpu')``, ``device('cuda')``, ``device('cuda', 1)``."""

    __slots__ = ("type", "index", "__weakref__")

    def __new__(cls, type_or_string, index: int | None = None):
        if isinstance(type_or_string, device):
            if index is not None:
                raise ValueError("device(): index must not be given together with a device")
            return type_or_string
        if isinstance(type_or_string, int) and not isinstance(type_or_string, bool):
            type_or_string, index = "cuda", type_or_string
        if not isinstance(type_or_string, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({type(type_or_string).__name__})"
            )
        key = (type_or_string, index)
        cached = _DEVICE_CACHE.get(key)
        if cached is not None:
            return cached
        type_name, parsed_index = _parse(type_or_string)
        if index is not None:
            if parsed_index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed explicitly: {type_or_string}"
                )
            parsed_index = index
        if parsed_index is not None and parsed_index < 0:
            raise RuntimeError(f"Device index must not be negative, got {parsed_index}")
        # One object per (type, index), however it was spelled: ops compare devices with ``is``.
        self = _DEVICE_CACHE.get((type_name, parsed_index))
        if self is None:
            self = object.__new__(cls)
            self.type = type_name
            self.index = parsed_index
            _DEVICE_CACHE[(type_name, parsed_index)] = self
        _DEVICE_CACHE[key] = self
        return self

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        # As in PyTorch, a device never equals a string: ``x.device == "cpu"`` is False; compare ``x.device.type``.
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    @property
    def backend(self) -> Backend:
        return _BACKENDS[self.type]

    # ``with torch.device("cuda"):`` -- factory functions (and layers built inside) default to this device.
    def __enter__(self) -> device:
        _device_contexts.append(_default_device["device"])
        set_default_device(self)
        return self

    def __exit__(self, *exception) -> None:
        _default_device["device"] = _device_contexts.pop()


_DEVICE_CACHE: dict = {}


def _parse(text: str) -> tuple[str, int | None]:
    type_name, _, index_text = text.partition(":")
    if type_name not in _BACKENDS:
        known = ", ".join(_BACKENDS)
        raise RuntimeError(f"Expected one of {known} device type at start of device string: {text}")
    if ":" in text and not index_text.isdigit():
        raise RuntimeError(f"Invalid device string: '{text}'")
    if type_name == "cpu" and index_text and index_text != "0":
        raise RuntimeError(f"CPU device index must be -1 or zero, got {index_text}")
    return type_name, (int(index_text) if index_text else None)


# The CUDA device that ``cuda`` without an index means; ``minitorch.cuda.set_device`` changes it (it lives here,
# below ``cuda/``, because every device made from ``"cuda"`` reads it).
current_cuda = {"index": 0}


def current_index(type_name: str) -> int:
    """The index that ``device(type_name)`` without an index means right now."""
    return current_cuda["index"] if type_name == "cuda" else 0


def check_available(target: device) -> None:
    """PyTorch's error for a device this machine does not have: no CUDA, or an index past the last GPU."""
    backend = target.backend
    if backend.is_available() and (target.index or 0) < backend.device_count():
        return
    if target.type == "cuda" and not backend.is_available():
        backend.array_module  # noqa: B018 - reading it raises the explanation of why CUDA is missing
    raise RuntimeError(
        f"CUDA error: invalid device ordinal: {target} was requested but only {backend.device_count()} "
        f"{target.type} device(s) are available"
    )


def canonical(d: device) -> device:
    """The device with its index filled in: ``cuda`` becomes ``cuda:<current>``; ``cpu`` stays ``cpu``."""
    if d.index is None and d.type not in ("cpu", "meta"):  # the meta device has no index, as in PyTorch
        return device(d.type, current_index(d.type))
    if d.type == "cpu" and d.index is not None:
        return CPU
    return d


CPU = device("cpu")


# -- the default device: where factory functions (tensor, zeros, rand...) put a tensor given no device --
_default_device = {"device": None}  # None means the CPU
_device_contexts: list = []  # the defaults that enclosing ``with device(...)`` blocks will restore


def set_default_device(device) -> None:
    """Make ``device`` (``"cuda"``, ``"cuda:1"``, a device, an index; None resets to the CPU) the default
    for the tensors that factory functions create without ``device=``, as ``torch.set_default_device``."""
    if device is None:
        _default_device["device"] = None
        return
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"cuda:{device}"
    chosen = device if isinstance(device, globals()["device"]) else globals()["device"](device)
    _default_device["device"] = None if chosen.type == "cpu" else chosen


def get_default_device():
    """The device that factory functions use without ``device=`` (``device(type='cpu')`` unless changed)."""
    chosen = _default_device["device"]
    return CPU if chosen is None else canonical(chosen)

