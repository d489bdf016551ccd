"""Storages and views: how a file describes where a tensor's numbers are.

PyTorch (and both of minitorch's file formats) describe a tensor as a *view* of a flat
*storage*: an offset, a shape and strides, all counted in elements. ``x`` and ``x.t()`` and
``x[1]`` are three views of one storage, so a file that keeps them as views of one storage
loads them as views again: a write through one is seen through the others.

In minitorch a tensor's data is a NumPy (or CuPy) array, and views of one array share its
*base* array. ``storage_view`` finds that base and the view's place in it; ``make_view``
does the reverse on load, after ``view_fits`` has proved that the view stays inside its
storage (a view that reached outside would read stray memory).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["base_array", "storage_view", "view_fits", "make_view", "contiguous_strides", "LARGEST"]

# Sizes NumPy can index: a product or stride beyond 2**62 bytes would overflow its index arithmetic.
LARGEST = 2**62


def base_array(array):
    """The array that owns the memory ``array`` looks into (following ``.base`` through views)."""
    array_type = np.ndarray if isinstance(array, np.ndarray) else type(array)  # NumPy or CuPy
    base = array
    while isinstance(base.base, array_type):
        base = base.base
    return base


def storage_view(array, allow_negative_strides: bool = True):
    """``(base, offset, strides)``: ``array`` as a view of its base array, in elements; ``None`` if it is not one.

    The base is the storage, its elements listed in memory order (``base.ravel(order="K")``).
    An empty array, or a view that reinterprets its base's dtype or is not aligned to whole
    elements, is not a plain view: the caller saves a compact copy instead. PyTorch's
    strides are never negative, so a writer for its format passes
    ``allow_negative_strides=False``.
    """
    base = base_array(array)
    itemsize = array.itemsize
    if array.size == 0 or base.dtype != array.dtype or not (base.flags.c_contiguous or base.flags.f_contiguous):
        return None
    byte_offset = _address(array) - _address(base)
    if byte_offset % itemsize or any(stride % itemsize for stride in array.strides):
        return None
    offset, strides = byte_offset // itemsize, [stride // itemsize for stride in array.strides]
    if not allow_negative_strides and any(stride < 0 for stride in strides):
        return None
    if not view_fits(offset, array.shape, strides, base.size):
        return None
    return base, offset, strides


def view_fits(offset: int, shape, strides, storage_size: int) -> bool:
    """Does the view (element ``offset``, ``shape``, element ``strides``) read only elements of the storage?"""
    if not 0 <= offset <= storage_size:
        return False
    if math.prod(shape) >= LARGEST or any(abs(stride) >= LARGEST // 16 for stride in strides):
        return False
    if any(extent == 0 for extent in shape):
        return True  # an empty view reads nothing
    lowest = offset + sum((extent - 1) * stride for extent, stride in zip(shape, strides) if stride < 0)
    highest = offset + sum((extent - 1) * stride for extent, stride in zip(shape, strides) if stride > 0)
    return 0 <= lowest and highest < storage_size


def make_view(storage, offset: int, shape, strides, xp=np):
    """The view of the 1-D array ``storage`` at element ``offset`` with ``shape`` and element ``strides``.

    Only call it after ``view_fits`` said yes: ``as_strided`` itself checks nothing.
    """
    byte_strides = tuple(stride * storage.itemsize for stride in strides)
    if xp is np and offset < storage.size:
        # Built on ``storage`` itself, so the view's ``.base`` is the storage (``as_strided``'s is a stand-in
        # object): ``untyped_storage()`` of a loaded view then finds the whole storage, as in PyTorch.
        return np.ndarray(tuple(shape), storage.dtype, buffer=storage, offset=offset * storage.itemsize,
                          strides=byte_strides)
    return xp.lib.stride_tricks.as_strided(storage[offset:], shape=tuple(shape), strides=byte_strides)


def contiguous_strides(shape) -> list:
    """The element strides of a C-contiguous array of ``shape``."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return strides[::-1]


def _address(array) -> int:
    interface = getattr(array, "__array_interface__", None) or array.__cuda_array_interface__
    return interface["data"][0]
