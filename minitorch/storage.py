"""Storages: the flat memory a tensor's elements live in, shared by every view of it.

A tensor is a *view* of a storage: an offset, a shape and strides (``x.storage_offset()``,
``x.shape``, ``x.stride()``). ``x``, ``x.t()``, ``x[1:]`` and ``x.expand(...)`` are views of one
storage, so they report the same ``data_ptr()`` and the same size, and a write through one is seen
through the others:

    >>> import minitorch
    >>> x = minitorch.tensor([10.0, 20.0, 30.0])
    >>> x[1:].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    True
    >>> x[1:].storage_offset(), x.untyped_storage().nbytes()
    (1, 12)

``untyped_storage()`` sees the memory as bytes (``UntypedStorage``); ``storage()`` sees it as
elements of the tensor's dtype (``TypedStorage``, which PyTorch has deprecated in favour of the
untyped one, and warns about once). In minitorch the storage is the NumPy (or CuPy) array that owns
the memory a tensor's array looks into (``_storage.base_array``); both storage classes are views
of it, so writing through a storage changes the tensors.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _dtype
from ._storage import base_array

__all__ = ["UntypedStorage", "TypedStorage", "owner_and_offset"]


def owner_and_offset(array):
    """``(owner, byte offset)``: the array whose memory ``array`` looks into, laid out flat (in
    memory order), and where ``array``'s first element sits in it. An owner that is not one
    contiguous block (rare: memory NumPy borrowed from elsewhere) is replaced by ``array`` itself."""
    owner = base_array(array)
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous) or owner.dtype.hasobject:
        owner = array
    flat = owner.reshape(-1, order="A")  # memory order; a view, as the owner is contiguous
    offset = _address(array) - _address(flat) if array.size else 0
    return flat, offset


def _address(array) -> int:
    interface = getattr(array, "__array_interface__", None) or array.__cuda_array_interface__
    return interface["data"][0]


class _Storage:
    """What both storages share: the owner's memory, its device, and printing in PyTorch's form."""

    def __init__(self, flat, device):
        self._flat = flat  # the owner's elements, in memory order
        self.device = device

    def data_ptr(self) -> int:
        return _address(self._flat)

    def nbytes(self) -> int:
        return int(self._flat.nbytes)

    def __len__(self) -> int:
        return self.size()

    def tolist(self) -> list:
        return self._elements().tolist()

    def __getitem__(self, index):
        return self._elements()[index].tolist()

    def __setitem__(self, index, value):
        self._elements()[index] = value

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value):
        self._elements()[...] = value
        return self

    def is_shared(self) -> bool:
        return False

    def _host_elements(self):
        return self._elements() if isinstance(self._flat, np.ndarray) else self.device.backend.to_host(self._elements())

    def __str__(self) -> str:
        info = f"[{self._type_name()} of size {len(self)}]"
        if self.device.type == "meta":
            return "...\n" + info
        return " " + "\n ".join(str(value) for value in self._host_elements().tolist()) + "\n" + info

    __repr__ = __str__


class UntypedStorage(_Storage):
    """A tensor's memory as bytes: ``size()`` and ``nbytes()`` count bytes, items are ints 0-255."""

    def size(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def _elements(self):
        return self._flat.view(np.uint8)

    def _type_name(self) -> str:
        return f"minitorch.storage.UntypedStorage(device={self.device})"


class TypedStorage(_Storage):
    """A tensor's memory as elements of its dtype (deprecated in PyTorch: use ``untyped_storage()``)."""

    def __init__(self, flat, device, dtype):
        super().__init__(flat, device)
        self.dtype = dtype

    def size(self) -> int:
        return self.nbytes() // self.element_size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def _elements(self):
        return self._flat.view(self.dtype.numpy_dtype)

    def untyped(self) -> UntypedStorage:
        return UntypedStorage(self._flat, self.device)

    def _type_name(self) -> str:
        return f"minitorch.storage.TypedStorage(dtype={self.dtype!r}, device={self.device})"

    def type(self) -> str:
        return f"minitorch.{self.dtype.type_name}Storage"


_warned = {"typed": False}


def typed_storage_of(tensor) -> TypedStorage:
    """``tensor.storage()``, with PyTorch's one-time deprecation warning."""
    if not _warned["typed"]:
        _warned["typed"] = True
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
            "storage class. This should only matter to you if you are using storages directly.  To access "
            "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
            UserWarning, stacklevel=3,
        )
    flat, _ = owner_and_offset(tensor._data)
    return TypedStorage(flat, tensor.device, _dtype.from_numpy_dtype(tensor._data.dtype))


def untyped_storage_of(tensor) -> UntypedStorage:
    flat, _ = owner_and_offset(tensor._data)
    return UntypedStorage(flat, tensor.device)


def storage_offset_of(tensor) -> int:
    """Where ``tensor``'s first element sits in its storage, counted in elements."""
    _, offset = owner_and_offset(tensor._data)
    return offset // tensor._data.itemsize
