"""``minitorch.cuda``: GPUs through CuPy.

One CUDA device is one GPU card with its own memory. ``device_count()`` says how many
CuPy can see; without CuPy or without a GPU it is 0 and ``is_available()`` is False. A
tensor moves to a GPU with ``.to('cuda')`` (the current device) or ``.to('cuda:1')``.
GPU work is queued on a stream and runs asynchronously: call ``synchronize()`` before reading a
clock, or time with ``Event(enable_timing=True)`` (``streams.py``).
"""

from __future__ import annotations

from .. import _random
from .._device import current_cuda as _current, device as _device, get_backend
from .._random import manual_seed as seed_all

# re-exported as minitorch.cuda.Stream, .Event, .stream(...):
from .streams import Event, Stream, StreamContext, current_stream, default_stream, set_stream, stream  # noqa: F401


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
    _backend().make_current(index)


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
        set_device(self.previous)
        return False


def manual_seed(seed: int) -> None:
    """Seed GPU random numbers: they come from the default generator (drawn on the host and copied, or, for
    dropout's masks, drawn on the GPU from a seed it gives), so this seeds that generator."""
    seed_all(seed)


manual_seed_all = manual_seed


# minitorch's GPU random numbers come from the default generator (``_random.py``), so the state of a GPU's
# generator is that generator's state (PyTorch keeps a Philox state per GPU instead).
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


# -- memory: what the GPU holds (CuPy's memory pool keeps freed blocks for reuse, like PyTorch's allocator) -----
def _index_of(device) -> int:
    index = current_device() if device is None else (device if isinstance(device, int) else _device(device).index)
    index = current_device() if index is None else index
    _check_index(index)
    return index


def memory_allocated(device=None) -> int:
    """Bytes held by tensors on the GPU now."""
    return _backend().memory_pool(_index_of(device)).used_bytes()


def memory_reserved(device=None) -> int:
    """Bytes the memory pool holds from the GPU: the tensors' and the freed blocks kept for reuse."""
    return _backend().memory_pool(_index_of(device)).total_bytes()


def empty_cache() -> None:
    """Give the freed blocks back to the GPU (other programs may then use that memory)."""
    for index in range(device_count()):
        _backend().memory_pool(index).free_all_blocks()


def get_device_properties(device=None):
    """The GPU's name, total memory and compute capability (as PyTorch's ``_CudaDeviceProperties``)."""
    index = _index_of(device)
    properties = _backend().array_module.cuda.runtime.getDeviceProperties(index)
    name = properties["name"]
    return _DeviceProperties(name.decode() if isinstance(name, bytes) else name, int(properties["totalGlobalMem"]),
                             int(properties.get("major", 0)), int(properties.get("minor", 0)),
                             int(properties.get("multiProcessorCount", 0)))


class _DeviceProperties:
    def __init__(self, name: str, total_memory: int, major: int, minor: int, multi_processor_count: int):
        self.name, self.total_memory = name, total_memory
        self.major, self.minor, self.multi_processor_count = major, minor, multi_processor_count

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // 2**20}MB, multi_processor_count={self.multi_processor_count})")
