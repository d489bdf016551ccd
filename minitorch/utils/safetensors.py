"""safetensors files: ``save_file`` and ``load_file``, as ``safetensors.torch`` offers them for PyTorch.

A safetensors file is a JSON header (each tensor's name, dtype, shape and byte range) and
the raw bytes, nothing else: unlike a pickle it cannot hold code, so it is safe to load
from anywhere, and it is the format model hubs distribute weights in. This module reads and
writes it with the ``safetensors`` package's NumPy interface, so a file written here opens
with ``safetensors.torch.load_file`` in PyTorch (and ``torch.load`` reads a path ending in
``.safetensors``), and the other way round; ``minitorch.load`` reads such a path too.

    >>> import minitorch, os, tempfile
    >>> from minitorch.utils import safetensors
    >>> path = os.path.join(tempfile.mkdtemp(), "model.safetensors")
    >>> safetensors.save_file({"weight": minitorch.ones(2, 3)}, path, metadata={"epoch": "3"})
    >>> safetensors.load_file(path)["weight"].shape
    minitorch.Size([2, 3])

The format keeps a flat dict of name -> tensor and nothing more: every tensor is saved as
its own contiguous block, so (as in ``safetensors.torch``) tensors that share memory are
refused (``save_model`` drops the duplicates of tied weights and ``load_model`` restores
them), and so are non-contiguous ones (call ``.contiguous()``).
"""

from __future__ import annotations

import os

import numpy as np
import safetensors as _safetensors
import safetensors.numpy as _safetensors_numpy

from .. import _dtype
from .._device import CPU, canonical, device as Device
from .._storage import base_array
from .._tensor import Tensor

__all__ = ["save", "save_file", "load", "load_file", "save_model", "load_model"]

# safetensors' dtype names -> minitorch's dtypes (the names of dtypes minitorch lacks are refused by name)
_DTYPES = {
    "BOOL": _dtype.bool, "U8": _dtype.uint8, "I8": _dtype.int8, "I16": _dtype.int16, "I32": _dtype.int32,
    "I64": _dtype.int64, "F16": _dtype.float16, "BF16": _dtype.bfloat16, "F32": _dtype.float32, "F64": _dtype.float64,
}


# -- saving ------------------------------------------------------------------------------------------------------
def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The bytes of a safetensors file holding ``tensors`` (contiguous, not sharing memory)."""
    return _safetensors_numpy.save(_to_arrays(tensors), metadata=metadata)


def save_file(tensors: dict[str, Tensor], filename: str | os.PathLike, metadata: dict[str, str] | None = None) -> None:
    """Write ``tensors`` to ``filename`` as a safetensors file; ``metadata`` is free text (str -> str)."""
    _safetensors_numpy.save_file(_to_arrays(tensors), filename, metadata=metadata)


def _to_arrays(tensors) -> dict[str, np.ndarray]:
    _check_for_save(tensors)
    arrays = {}
    for name, tensor in tensors.items():
        if not tensor.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{name}` which is not allowed. It either means you"
                " are trying to save tensors which are reference of each other in which case it's recommended to save"
                " only the full tensors, and reslice at load time, or simply call `.contiguous()` on your tensor to"
                " pack it before saving."
            )
        # safetensors reads the array's memory from its first byte on: it must be one C-ordered block.
        arrays[name] = np.require(tensor._device.backend.to_host(tensor._data), requirements=["C"])  # 0-d stays 0-d
    return arrays


def _check_for_save(tensors) -> None:
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for name, tensor in tensors.items():
        if not isinstance(tensor, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received {type(tensor)}")
    failing = [names for names in _shared_tensors(tensors) if len(names) > 1]
    if failing:
        raise RuntimeError(
            f"""
            Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: {failing}.
            A potential way to correctly save your model is to use `save_model`.
            More information at https://huggingface.co/docs/safetensors/torch_shared_tensors
            """  # noqa: E501 - safetensors' own message, line for line
        )


def _shared_tensors(tensors: dict) -> list[set]:
    """Groups of names whose tensors overlap in memory (views of one base array that touch the same bytes)."""
    by_base: dict = {}
    for name, tensor in tensors.items():
        array = tensor._data
        if array.size:
            by_base.setdefault(id(base_array(array)), []).append((name, _byte_range(array)))
    groups = []
    for members in by_base.values():
        members.sort(key=lambda member: member[1])
        group, group_end = [members[0][0]], members[0][1][1]
        for name, (start, end) in members[1:]:
            if start < group_end:
                group.append(name)
                group_end = max(group_end, end)
            else:
                groups.append(set(group))
                group, group_end = [name], end
        groups.append(set(group))
    return groups


def _byte_range(array) -> tuple[int, int]:
    interface = getattr(array, "__array_interface__", None) or array.__cuda_array_interface__
    start = interface["data"][0] + sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s < 0)
    end = interface["data"][0] + sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s > 0)
    return start, end + array.itemsize


# -- loading -----------------------------------------------------------------------------------------------------
def load(data: bytes) -> dict[str, Tensor]:
    """The tensors of a safetensors file given as bytes, on the CPU."""
    tensors = {}
    for name, view in _safetensors.deserialize(data):
        dtype = _dtype_of(name, view["dtype"])
        array = np.frombuffer(bytearray(view["data"]), dtype=dtype.numpy_dtype.newbyteorder("<"))
        tensors[name] = Tensor._make(_native(array).reshape(view["shape"]), CPU)
    return tensors


def load_file(filename: str | os.PathLike, device: str | int | Device = "cpu") -> dict[str, Tensor]:
    """The tensors of the safetensors file ``filename``, put on ``device``."""
    target = canonical(Device(device))
    tensors = {}
    with _safetensors.safe_open(filename, framework="np") as file:
        for name in file.keys():
            _dtype_of(name, file.get_slice(name).get_dtype())
            array = _native(np.require(file.get_tensor(name), requirements=["C", "W", "O"]))
            data = array if target.type == "cpu" else target.backend.to_device(array, target.index)
            tensors[name] = Tensor._make(data, target)
    return tensors


def _dtype_of(name: str, safetensors_dtype: str) -> _dtype.dtype:
    dtype = _DTYPES.get(safetensors_dtype)
    if dtype is None:
        raise TypeError(
            f"the safetensors tensor `{name}` is of dtype {safetensors_dtype}, which minitorch does not have (it has "
            f"{', '.join(_DTYPES)})"
        )
    return dtype


def _native(array: np.ndarray) -> np.ndarray:
    """``array`` in this machine's byte order (safetensors stores little-endian)."""
    return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))


# -- whole models: tied weights ------------------------------------------------------------------------------------
def save_model(model, filename: str | os.PathLike, metadata: dict[str, str] | None = None,
               force_contiguous: bool = True) -> None:
    """Save ``model.state_dict()``, keeping one name of each group of tied (shared) tensors.

    Each dropped name is recorded in the metadata as ``dropped name -> kept name``.
    """
    state_dict = dict(model.state_dict())
    for kept, dropped in _remove_duplicate_names(state_dict).items():
        for name in dropped:
            metadata = {} if metadata is None else metadata
            metadata.setdefault(name, kept)
            del state_dict[name]
    if force_contiguous:
        state_dict = {name: tensor.contiguous() for name, tensor in state_dict.items()}
    try:
        save_file(state_dict, filename, metadata=metadata)
    except ValueError as error:
        raise ValueError(
            f"{error} Or use save_model(..., force_contiguous=True), read the docs for potential caveats."
        ) from None


def load_model(model, filename: str | os.PathLike, strict: bool = True,
               device: str | int | Device = "cpu") -> tuple[list[str], list[str]]:
    """Load a file written by ``save_model`` into ``model``; returns ``(missing, unexpected)`` names."""
    state_dict = load_file(filename, device=device)
    to_remove = _remove_duplicate_names(model.state_dict(), preferred_names=set(state_dict))
    missing, unexpected = model.load_state_dict(state_dict, strict=False)
    missing, unexpected = set(missing), list(unexpected)
    for dropped in to_remove.values():
        for name in dropped:
            if name not in missing:
                unexpected.append(name)
            else:
                missing.remove(name)
    if strict and (missing or unexpected):
        error = f"Error(s) in loading state_dict for {model.__class__.__name__}:"
        if missing:
            error += "\n    Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in sorted(missing))
        if unexpected:
            error += "\n    Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in sorted(unexpected))
        raise RuntimeError(error)
    return sorted(missing), unexpected


def _remove_duplicate_names(state_dict: dict, preferred_names: set | None = None) -> dict[str, list[str]]:
    """For each group of names of one shared tensor: the name kept -> the names dropped.

    The kept name is one whose tensor covers the whole shared memory, preferring ``preferred_names``
    and then the alphabetically first (as ``safetensors.torch`` chooses).
    """
    preferred_names = preferred_names or set()
    to_remove = {}
    for shared in _shared_tensors(state_dict):
        if len(shared) <= 1:
            continue
        complete = {name for name in shared if _is_complete(state_dict[name])}
        if not complete:
            raise RuntimeError(
                f"Error while trying to find names to remove to save state dict, but found no suitable name to keep "
                f"for saving amongst: {shared}. None is covering the entire storage. Refusing to save/load the model "
                "since you could be storing much more memory than needed. Please refer to "
                "https://huggingface.co/docs/safetensors/torch_shared_tensors for more information. Or open an issue."
            )
        candidates = sorted(complete & preferred_names) or sorted(complete)
        kept = candidates[0]
        to_remove[kept] = sorted(shared - {kept})
    return to_remove


def _is_complete(tensor: Tensor) -> bool:
    """Does ``tensor`` cover all of the memory of its base array, in order?"""
    array = tensor._data
    base = base_array(array)
    return array.flags.c_contiguous and array.nbytes == base.nbytes and _byte_range(array) == _byte_range(base)
