"""The rebuild functions a checkpoint calls: PyTorch's ``torch._utils._rebuild_*``, made for minitorch.

A file written by ``torch.save`` (or ``minitorch.save``) is a pickle that, for each tensor,
says "call ``torch._utils._rebuild_tensor_v2`` with this storage, offset, size, stride and
requires_grad". The loader maps that name to the function of the same name here, which
checks its arguments and builds a minitorch tensor:

    _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks)
        a view of ``storage``: element ``storage_offset``, shape ``size``, element ``stride``
    _rebuild_parameter(data, requires_grad, backward_hooks)
        ``nn.Parameter(data, requires_grad)``

Every argument comes from a file, so nothing is trusted: a view must lie inside its
storage, sizes must be non-negative integers, and a failed check raises ``CheckpointError``
(the loader turns it into an error that names the file). ``backward_hooks`` is always an
empty ``OrderedDict`` in files PyTorch writes (hooks are never saved); it is ignored.

The *storage* argument is a ``LoadedStorage``: the loader's answer to the pickle's
persistent id ``('storage', torch.FloatStorage, key, location, numel)``, already read from
``data/<key>`` and placed on its device. ``StorageType`` stands for ``torch.FloatStorage``
and its kin: it only carries the dtype.
"""

from __future__ import annotations

from collections import OrderedDict

from . import _dtype
from ._storage import make_view, view_fits
from ._tensor import Tensor
from .nn.parameter import Parameter

__all__ = ["CheckpointError", "StorageType", "LoadedStorage", "TensorType", "STORAGE_CLASS_NAMES"]

# PyTorch's legacy storage class of each dtype: what a pickle names in a storage's persistent id.
STORAGE_CLASS_NAMES = {d.name: d.type_name + "Storage" for d in _dtype.ALL_DTYPES}  # "float32": "FloatStorage"


class CheckpointError(Exception):
    """A checkpoint's contents are inconsistent (a view outside its storage, a size that lies...)."""


class StorageType:
    """``torch.FloatStorage`` and its kin in a checkpoint: a name that stands for a dtype (untyped: bytes)."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str, dtype: _dtype.dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self) -> str:
        return f"StorageType(torch.{self.name}, dtype={self.dtype})"


class TensorType:
    """``torch.Tensor`` or ``torch.nn.Parameter`` named as the type of a rebuilt tensor (``_rebuild_from_type_v2``).

    A stand-in rather than the class itself, so that a file cannot create a bare, uninitialised tensor.
    """

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"TensorType({self.name})"


TENSOR_TYPE = TensorType("torch.Tensor")
PARAMETER_TYPE = TensorType("torch.nn.parameter.Parameter")


class LoadedStorage:
    """One storage of a checkpoint, read and placed: a flat array on ``device``, shared by the tensors that view it."""

    __slots__ = ("array", "device", "dtype", "version_counter", "key")

    def __init__(self, array, device, dtype: _dtype.dtype, key: str):
        self.array, self.device, self.dtype, self.key = array, device, dtype, key
        self.version_counter = [0]  # views of one storage share one version counter, as views do

    def __repr__(self) -> str:
        return f"LoadedStorage(key={self.key!r}, dtype={self.dtype}, numel={self.array.size}, device={self.device})"


# -- tensors ---------------------------------------------------------------------------------------------------
def _rebuild_tensor(storage, storage_offset, size, stride):
    """PyTorch's oldest rebuild function (no requires_grad)."""
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, False, OrderedDict())


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    """The tensor ``storage[storage_offset:]`` viewed with shape ``size`` and element strides ``stride``."""
    _check_storage(storage)
    return _view(storage, storage.array, storage.dtype, storage_offset, size, stride, requires_grad, metadata)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    """Like v2, for a storage of raw bytes (``torch.UntypedStorage``) read as ``dtype``."""
    _check_storage(storage)
    if not isinstance(dtype, _dtype.dtype):
        raise CheckpointError(f"_rebuild_tensor_v3 expects a dtype, got {type(dtype).__name__}")
    array = storage.array
    if dtype is not storage.dtype:
        if array.nbytes % dtype.itemsize:
            raise CheckpointError(f"a storage of {array.nbytes} bytes cannot be read as {dtype.name} elements")
        array = array.view(dtype.numpy_dtype)
    return _view(storage, array, dtype, storage_offset, size, stride, requires_grad, metadata)


def _check_storage(storage) -> None:
    if not isinstance(storage, LoadedStorage):
        raise CheckpointError(f"a tensor's storage must be a data/ record, not {type(storage).__name__}")


def _view(storage, array, dtype, offset, size, stride, requires_grad, metadata) -> Tensor:
    size, stride = _int_sequence(size, "size"), _int_sequence(stride, "stride")
    if not _is_int(offset) or offset < 0 or any(extent < 0 for extent in size) or len(stride) != len(size):
        raise CheckpointError(f"a tensor has an invalid view: offset {offset!r}, size {size}, stride {stride}")
    if not view_fits(offset, size, stride, array.size):
        raise CheckpointError(
            f"a tensor's view (offset {offset}, size {tuple(size)}, stride {tuple(stride)}) reaches outside its "
            f"storage '{storage.key}' of {array.size} elements"
        )
    if not isinstance(requires_grad, bool):
        raise CheckpointError(f"requires_grad must be a bool, got {type(requires_grad).__name__}")
    if metadata:  # PyTorch records the conjugate and negative bits of complex views here; minitorch has neither
        raise CheckpointError(f"minitorch cannot rebuild a tensor with metadata {metadata!r}")
    xp = storage.device.backend.array_module
    tensor = Tensor._make(make_view(array, offset, size, stride, xp), storage.device,
                          version_counter=storage.version_counter)
    if requires_grad:
        if not dtype.is_floating_point:
            raise CheckpointError("Only Tensors of floating point and complex dtype can require gradients")
        tensor.requires_grad_(True)
    return tensor


def _int_sequence(value, what: str) -> list:
    if not isinstance(value, (tuple, list)) or not all(_is_int(item) for item in value):
        raise CheckpointError(f"a tensor's {what} must be a tuple of ints, got {value!r}")
    return list(value)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- parameters and tensors with extra state ---------------------------------------------------------------------
def _rebuild_parameter(data, requires_grad, backward_hooks):
    """``nn.Parameter(data, requires_grad)``."""
    if not isinstance(data, Tensor) or not isinstance(requires_grad, bool):
        raise CheckpointError("_rebuild_parameter expects a tensor and a bool")
    if requires_grad and not data.is_floating_point():
        raise CheckpointError("Only Tensors of floating point and complex dtype can require gradients")
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """A parameter with Python attributes of its own (``param.note = "frozen"``)."""
    return _set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """``func(*args)`` as ``new_type`` (``torch.Tensor`` or ``torch.nn.Parameter``), with its attributes ``state``."""
    if func not in (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter):
        raise CheckpointError(f"_rebuild_from_type_v2 expects a tensor rebuild function, got {func!r}")
    if not isinstance(args, tuple):
        raise CheckpointError("_rebuild_from_type_v2 expects a tuple of arguments")
    tensor = func(*args)
    if new_type in (PARAMETER_TYPE, Parameter) and type(tensor) is not Parameter:
        tensor = Parameter(tensor, tensor.requires_grad)
    elif new_type not in (TENSOR_TYPE, Tensor, Parameter):
        raise CheckpointError(f"minitorch cannot rebuild a tensor of type {new_type!r}")
    return _set_obj_state(tensor, state)


def _set_obj_state(tensor: Tensor, state):
    """Set the Python attributes a tensor had when saved; an attribute may not replace one the class defines."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise CheckpointError(f"Invalid serialized state: {state!r}")
        state = {**(state[0] or {}), **(state[1] or {})}
    if not state:
        return tensor
    if not isinstance(state, dict) or not all(isinstance(key, str) for key in state):
        raise CheckpointError(f"Invalid serialized state: {state!r}")
    for name, value in state.items():
        if hasattr(type(tensor), name) or name.startswith("__"):
            raise CheckpointError(f"a saved tensor attribute may not replace {type(tensor).__name__}.{name}")
        tensor.__dict__[name] = value
    return tensor


def _unsupported(what: str):
    """A rebuild function for a kind of tensor minitorch does not have: it raises, naming the kind."""

    def rebuild(*args, **kwargs):
        raise CheckpointError(f"the file holds {what}, which minitorch does not support")

    rebuild.__name__ = f"_unsupported({what})"
    return rebuild
