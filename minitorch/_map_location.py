"""Where a loaded storage goes: ``map_location``, as in ``torch.load``.

A file records, for each storage, the device it was saved from (its *location*: ``"cpu"``,
``"cuda:1"``). ``map_location`` decides where it goes on load:

* ``None``: back where it was saved from;
* a device (``"cpu"``, ``"cuda:0"``, ``minitorch.device(...)``): everything there;
* a dict: saved locations mapped to new ones (``{"cuda:1": "cpu"}``; other locations stay);
* a callable, called as ``map_location(storage, location)`` with the storage as a 1-D CPU
  tensor and its saved location string: it returns the storage moved where it should go,
  or ``None`` for the default. ``lambda storage, location: storage`` loads everything onto
  the CPU.

Every format minitorch reads (PyTorch's zip, the older zip of ``.npy`` files) places its
storages through ``place`` here, so the rule is written once.
"""

from __future__ import annotations

import numpy as np

from . import _dtype
from ._device import CPU, Backend, canonical, device as Device
from ._tensor import Tensor

__all__ = ["place"]


def place(host: np.ndarray, location: str, map_location):
    """(array, device): the 1-D storage ``host`` saved from ``location``, moved where ``map_location`` says."""
    if callable(map_location) and not isinstance(map_location, (str, Device, dict)):
        moved = map_location(Tensor._make(host, CPU), location)
        if moved is not None:
            if not isinstance(moved, Tensor):
                raise TypeError(
                    f"map_location must return a storage (a minitorch Tensor) or None, got {type(moved).__name__}"
                )
            if moved._data.shape != host.shape or moved._data.dtype != host.dtype:
                raise RuntimeError(
                    f"map_location returned a storage of {moved.numel()} {moved.dtype.name} elements for one of "
                    f"{host.size} {_dtype.from_numpy_dtype(host.dtype).name} elements: it may only move the storage"
                )
            return moved._xp.ascontiguousarray(moved._data), moved._device
        target = location
    elif map_location is None:
        target = location
    elif isinstance(map_location, (str, Device)):
        target = map_location
    elif isinstance(map_location, dict):
        mapping = {str(key): value for key, value in map_location.items()}
        target = mapping.get(location, location)
    else:
        raise TypeError(
            "map_location should be a string, a minitorch.device, a dict or a callable, "
            f"not {type(map_location).__name__}"
        )
    device = canonical(Device(target))
    if device.type == "cpu":
        return host, device
    _check_available(device)
    return device.backend.to_device(host, device.index), device


def _check_available(device) -> None:
    backend: Backend = device.backend
    if device.type == "cuda" and not backend.is_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are "
            "running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your "
            "storages to the CPU."
        )
    if device.index is not None and device.index >= backend.device_count():
        raise RuntimeError(
            f"Attempting to deserialize object on CUDA device {device.index} but torch.cuda.device_count() is "
            f"{backend.device_count()}. Please use torch.load with map_location to map your storages to an existing "
            "device."
        )
