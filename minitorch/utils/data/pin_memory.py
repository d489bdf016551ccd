"""``pin_memory=True``: each batch the loader yields sits in page-locked (pinned) host memory.

A GPU copies from pinned memory by DMA while the host goes on, so a training loop can write
``x = x.to("cuda", non_blocking=True)`` and queue the next kernels at once; from ordinary (pageable)
memory CUDA first stages the bytes and the host waits. The loader pins what the collate function
returned, walking containers as ``default_collate`` builds them (PyTorch's
``torch/utils/data/_utils/pin_memory.py`` does the same walk).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..._tensor_base import TensorBase as Tensor


def pin_memory(data):
    """``data`` with every tensor in it pinned: tensors, dicts, named tuples, tuples and lists of them, and any
    object with its own ``pin_memory()`` method (a custom batch); anything else is returned as it is."""
    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, Mapping):
        pinned = {key: pin_memory(value) for key, value in data.items()}
        try:
            return type(data)(pinned)
        except TypeError:  # a mapping that cannot be rebuilt from a dict
            return pinned
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a named tuple
        return type(data)(*(pin_memory(item) for item in data))
    if isinstance(data, tuple):
        return tuple(pin_memory(item) for item in data)
    if isinstance(data, Sequence):
        pinned = [pin_memory(item) for item in data]
        try:
            return type(data)(pinned)
        except TypeError:
            return pinned
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
