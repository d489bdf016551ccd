"""DLPack: handing a tensor's memory to another library, and taking theirs, without a copy.

DLPack is a small C struct (pointer, shape, strides, dtype, device) that array libraries
agree on. ``torch.from_dlpack(t)`` calls ``t.__dlpack__()`` to get that struct (in a
Python "capsule") and ``t.__dlpack_device__()`` to learn where the memory is; the new
tensor then *views the same memory*: write through one, read the change through the other.

A minitorch tensor's memory is a NumPy (CPU) or CuPy (GPU) array, and both speak DLPack,
so export and import are thin: export hands out the array's capsule, import lets NumPy or
CuPy read the producer's capsule and wraps the resulting array.

    >>> import numpy as np, minitorch
    >>> array = np.zeros(3, dtype=np.float32)
    >>> t = minitorch.from_dlpack(array)
    >>> t[0] = 5.0
    >>> float(array[0])
    5.0
"""

from __future__ import annotations

import numpy as np

from ._device import canonical, device as Device
from ._tensor_base import TensorBase as Tensor  # the class sits above; this module serves its __dlpack__

__all__ = ["from_dlpack", "to_dlpack"]

# DLPack's device type codes (dlpack.h, DLDeviceType).
_CPU, _CUDA, _CUDA_HOST, _CUDA_MANAGED = 1, 2, 3, 13


def to_dlpack(tensor: Tensor, *, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule of ``tensor``'s memory (what ``Tensor.__dlpack__`` returns)."""
    if tensor.requires_grad:
        # The consumer would see the numbers but not the graph: refuse, as PyTorch does.
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    options = {"max_version": max_version, "dl_device": dl_device, "copy": copy}
    options = {name: value for name, value in options.items() if value is not None}
    if stream is not None:
        options["stream"] = stream
    try:
        return tensor._data.__dlpack__(**options)
    except TypeError:
        if set(options) - {"max_version", "stream"}:
            raise
        # An older NumPy without versioned capsules: a legacy capsule is what the protocol falls back to.
        options.pop("max_version", None)
        return tensor._data.__dlpack__(**options)


class _LegacyCapsule:
    """Adapts a bare capsule (``torch.utils.dlpack.to_dlpack``'s output) to the ``__dlpack__`` protocol."""

    def __init__(self, capsule, device_type: int, device_index: int):
        self._capsule = capsule
        self._device = (device_type, device_index)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def from_dlpack(ext_tensor) -> Tensor:
    """A tensor viewing the memory of any DLPack producer (NumPy, PyTorch, CuPy, JAX...) without copying.

    ``ext_tensor`` is an object with ``__dlpack__`` / ``__dlpack_device__``, or a bare
    capsule (taken to hold CPU memory). NumPy imports a bare (unversioned) capsule as
    read-only memory, since such a capsule cannot say whether writing is allowed.
    """
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if not hasattr(ext_tensor, "__dlpack__"):
        ext_tensor = _LegacyCapsule(ext_tensor, _CPU, 0)
    device_type, device_index = (int(value) for value in ext_tensor.__dlpack_device__())
    if device_type in (_CPU, _CUDA_HOST):
        # Writable unless the producer flagged its memory read-only (a read-only NumPy array does).
        array = np.from_dlpack(ext_tensor)
        return Tensor._make(array, canonical(Device("cpu")))
    if device_type in (_CUDA, _CUDA_MANAGED):
        target = canonical(Device("cuda", device_index))
        cupy = target.backend.array_module
        with target.backend.use_device(device_index):
            array = cupy.from_dlpack(ext_tensor)
        return Tensor._make(array, target)
    raise RuntimeError(f"from_dlpack: unsupported DLPack device type {device_type}: minitorch has CPU and CUDA tensors")
