"""Saving and loading tensors and state dicts: ``minitorch.save`` and ``minitorch.load``.

    >>> import io, minitorch
    >>> buffer = io.BytesIO()
    >>> minitorch.save({"weight": minitorch.ones(2, 3), "step": 10}, buffer)
    >>> _ = buffer.seek(0)
    >>> minitorch.load(buffer)
    {'weight': tensor([[1., 1., 1.],
            [1., 1., 1.]]), 'step': 10}

Why not pickle
--------------
``torch.save`` writes a *pickle*, and loading a pickle may run any code the file names:
a downloaded checkpoint can delete your files. (PyTorch's ``weights_only=True`` loads
through a restricted unpickler to limit that.) minitorch's format cannot hold code at all:
loading reads a JSON document and raw numbers, nothing else, so a malicious file can only
fail to load.

The file format
---------------
A file is a zip archive in NumPy's ``.npz`` layout (``numpy.load`` opens it too):

* ``index.json`` describes what was saved, in three lists:

  - ``storages``: flat blocks of numbers, one ``.npy`` file each (``data/0.npy``...), with
    their dtype, length and the device they were saved from (``"cpu"``, ``"cuda:1"``);
  - ``tensors``: each tensor is a *view* of a storage: a dtype, a shape, an offset and
    strides (in elements), ``requires_grad``, and whether it is a ``Parameter``;
  - ``object``: the saved object itself, as a tree of tagged nodes
    (``{"kind": "dict", "items": [[key, value], ...]}``, ``{"kind": "tensor", "index": 0}``,
    ``{"kind": "float", "value": 0.001}``...).

* ``data/<n>.npy``: the numbers, written and read with ``allow_pickle=False``.

What can be saved: tensors (and ``Parameter``), NumPy arrays, ``None``, bools, ints, floats,
strings, dtypes, devices, ``Size``, and lists, tuples, dicts and ``OrderedDict`` of these,
nested to any depth; dict keys may be strings, numbers, bools, ``None`` or tuples of those
(an optimizer's state dict uses integer keys). Anything else raises ``TypeError`` on save.

Round trips are bit exact for every dtype (NaN payloads, ``-0.0``, subnormals: the bytes
are copied), shapes are kept (0-d and empty tensors too), and so is ``requires_grad``.
Sharing is kept as in PyTorch: the same tensor saved twice (tied weights) loads as one
tensor, and tensors that are views of one array (a tensor and its slice or transpose)
load as views of one storage again. Like PyTorch, a view saves its whole base: call
``.clone()`` first to save only the slice. Gradients (``.grad``) are not saved.

Loading onto another device: ``map_location``
---------------------------------------------
As in ``torch.load``: ``None`` puts each storage back on the device it was saved from;
a device (``"cpu"``, ``"cuda:0"``, ``minitorch.device(...)``) puts everything there; a
dict maps saved locations (``{"cuda:1": "cpu"}``; other locations stay); a callable is
called as ``map_location(storage, location)`` with the storage as a 1-D CPU tensor and
its saved location string, and returns the storage moved where it should go (or ``None``
for the default). ``lambda storage, location: storage`` loads everything onto the CPU.

Moving weights between minitorch and PyTorch
--------------------------------------------
The two libraries name parameters alike (``"0.weight"``, ``"lstm.weight_ih_l0"``) and store
them in the same layout, so a state dict crosses over through NumPy arrays::

    # PyTorch -> minitorch (the same architecture built with minitorch.nn)
    state = {k: minitorch.from_numpy(v.detach().cpu().numpy()) for k, v in torch_model.state_dict().items()}
    model.load_state_dict(state)

    # minitorch -> PyTorch
    torch_model.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in model.state_dict().items()})

``from_numpy`` shares memory and ``load_state_dict`` copies, so nothing is left tied
together. Through a file, use NumPy's own format, which both sides read without pickle::

    numpy.savez("weights.npz", **{k: v.detach().cpu().numpy() for k, v in torch_model.state_dict().items()})
    with numpy.load("weights.npz", allow_pickle=False) as arrays:
        model.load_state_dict({k: minitorch.from_numpy(arrays[k]) for k in arrays.files})

``minitorch.load`` does not read ``torch.save`` files (they are pickles) and says so.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
from collections import OrderedDict
from typing import IO, Any

import numpy as np

from . import _dtype
from ._device import CPU, Backend, canonical, device as Device
from ._tensor import Size, Tensor

__all__ = ["save", "load"]

FORMAT_NAME = "minitorch.save"
FORMAT_VERSION = 1
INDEX_NAME = "index.json"
_DTYPES = {d.name: d for d in _dtype.ALL_DTYPES}
_TENSOR_CLASSES = ("Tensor", "Parameter", "ndarray")


# ==================================================================================================
# Saving
# ==================================================================================================
FileLike = str | os.PathLike | IO[bytes]  # a path, or a binary file object


def save(obj: Any, f: FileLike, pickle_module=None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Write ``obj`` (a tensor, a state dict, nested containers of tensors and numbers) to ``f``.

    ``f`` is a path or a binary file object opened for writing. The pickle arguments exist
    so PyTorch code runs unchanged; minitorch never pickles.
    """
    if pickle_module is not None:
        raise ValueError("minitorch.save never uses pickle, so pickle_module must be None")
    writer = _Writer()
    tree = writer.encode(obj, where="the saved object")
    index = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "storages": writer.storage_entries,
        "tensors": writer.tensor_entries,
        "object": tree,
    }
    text = json.dumps(index, allow_nan=False, separators=(",", ":"))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as stream:
            _write_archive(stream, text, writer.storage_arrays)
    else:
        _write_archive(f, text, writer.storage_arrays)


def _write_archive(stream, index_text: str, storages: list) -> None:
    # ZIP_STORED (no compression): weights hardly compress, and reading stays fast. Every entry
    # carries the same fixed timestamp, so saving the same weights twice gives the same bytes
    # (and the same hash: the shipped pretrained weights are checked by theirs).
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(_entry(INDEX_NAME), index_text)
        for number, array in enumerate(storages):
            with archive.open(_entry(f"data/{number}.npy"), "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def _entry(name: str) -> zipfile.ZipInfo:
    return zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))


class _Writer:
    """Turns an object into the JSON tree, collecting tensors and the storages behind them."""

    def __init__(self):
        self.storage_entries: list = []
        self.storage_arrays: list = []  # host (NumPy) arrays, one per storage entry
        self.tensor_entries: list = []
        self._tensor_numbers: dict = {}  # id(tensor) -> its entry (the same tensor twice is saved once)
        self._storage_numbers: dict = {}  # id(base array) -> its storage number
        self._keep_alive: list = []  # ids above stay unique only while their objects live
        self._open_containers: set = set()  # containers on the current path (to refuse cycles)

    def encode(self, value, where: str):
        if isinstance(value, Tensor):
            return {"kind": "tensor", "index": self._add_tensor(value, value._data, value._device, where)}
        if isinstance(value, np.ndarray):
            return {"kind": "tensor", "index": self._add_tensor(value, value, CPU, where)}
        if value is None:
            return {"kind": "none"}
        if isinstance(value, (bool, np.bool_)):  # before int: bool is a subclass of int
            return {"kind": "bool", "value": bool(value)}
        if isinstance(value, (int, np.integer)):
            return {"kind": "int", "value": int(value)}
        if isinstance(value, (float, np.floating)):
            return {"kind": "float", "value": _float_to_json(float(value))}
        if isinstance(value, str):
            return {"kind": "str", "value": value}
        if isinstance(value, _dtype.dtype):
            return {"kind": "dtype", "value": value.name}
        if isinstance(value, Device):
            return {"kind": "device", "value": str(value)}
        if isinstance(value, (list, tuple, dict)):
            return self._encode_container(value, where)
        raise TypeError(
            f"minitorch.save cannot store {where}, an object of type {type(value).__module__}."
            f"{type(value).__qualname__}: only tensors, NumPy arrays, numbers, strings, bools, None, dtypes, devices "
            "and lists, tuples and dicts of them can be saved (the file format holds no code)."
        )

    def _encode_container(self, value, where: str):
        if id(value) in self._open_containers:
            raise ValueError(f"minitorch.save cannot store {where}: it contains itself")
        self._open_containers.add(id(value))
        try:
            if isinstance(value, dict):
                kind = "ordered_dict" if isinstance(value, OrderedDict) else "dict"
                items = [
                    [self._encode_key(key, where), self.encode(item, f"{where}[{key!r}]")]
                    for key, item in value.items()
                ]
                return {"kind": kind, "items": items}
            kind = "size" if isinstance(value, Size) else "tuple" if isinstance(value, tuple) else "list"
            return {"kind": kind, "items": [self.encode(item, f"{where}[{i}]") for i, item in enumerate(value)]}
        finally:
            self._open_containers.discard(id(value))

    def _encode_key(self, key, where: str):
        if isinstance(key, tuple):
            return {"kind": "tuple", "items": [self._encode_key(part, where) for part in key]}
        if key is None or isinstance(key, (str, bool, int, float, np.integer, np.floating, np.bool_)):
            return self.encode(key, where)
        raise TypeError(
            f"minitorch.save cannot store {where}: its key {key!r} is a {type(key).__name__}; dict keys must be "
            "strings, numbers, bools, None or tuples of these"
        )

    def _add_tensor(self, owner, array, device, where: str) -> int:
        """The number of ``owner``'s entry in the tensor list (adding it, and its storage, the first time)."""
        number = self._tensor_numbers.get(id(owner))
        if number is not None:
            return number
        try:
            dtype = _dtype.from_numpy_dtype(array.dtype)
        except TypeError as error:
            raise TypeError(f"minitorch.save cannot store {where}: {error}") from None
        storage, offset, strides = self._storage_for(array, device)
        if isinstance(owner, np.ndarray):
            kind, requires_grad = "ndarray", False
        else:
            from .nn.parameter import Parameter

            kind, requires_grad = ("Parameter" if isinstance(owner, Parameter) else "Tensor"), owner.requires_grad
        number = len(self.tensor_entries)
        self.tensor_entries.append({
            "class": kind, "storage": storage, "dtype": dtype.name, "shape": list(array.shape), "offset": offset,
            "strides": strides, "requires_grad": requires_grad,
        })
        self._tensor_numbers[id(owner)] = number
        self._keep_alive.append(owner)
        return number

    def _storage_for(self, array, device) -> tuple[int, int, list]:
        """(storage number, element offset, element strides) of ``array`` inside the storage that holds it.

        Arrays that are views of one contiguous base array share that base as their storage,
        so views of one another load as views again. Anything else (an empty array, a view
        that reinterprets the dtype) is saved as its own compact storage.
        """
        base = _base_array(array)
        itemsize = array.itemsize
        if array.size > 0 and base.dtype == array.dtype and (base.flags.c_contiguous or base.flags.f_contiguous):
            byte_offset = _address(array) - _address(base)
            offset, strides = byte_offset // itemsize, [stride // itemsize for stride in array.strides]
            aligned = byte_offset % itemsize == 0 and all(stride % itemsize == 0 for stride in array.strides)
            if aligned and _view_fits(offset, array.shape, strides, base.size):
                number = self._storage_numbers.get(id(base))
                if number is None:
                    # ravel(order="K") lists the elements in memory order, without a copy.
                    number = self._add_storage(base.ravel(order="K"), device)
                    self._storage_numbers[id(base)] = number
                    self._keep_alive.append(base)
                return number, offset, strides
        compact = array.reshape(-1) if array.flags.c_contiguous else array.copy().reshape(-1)
        return self._add_storage(compact, device), 0, _contiguous_strides(array.shape)

    def _add_storage(self, flat_array, device) -> int:
        host = flat_array if device.type == "cpu" else device.backend.to_host(flat_array)
        number = len(self.storage_entries)
        self.storage_entries.append({
            "file": f"data/{number}.npy", "dtype": _dtype.from_numpy_dtype(host.dtype).name, "size": int(host.size),
            "device": str(device),
        })
        self.storage_arrays.append(host)
        return number


def _base_array(array):
    """The array that owns the memory ``array`` looks into (following ``.base`` through views)."""
    array_type = np.ndarray if isinstance(array, np.ndarray) else type(array)  # NumPy or CuPy
    base = array
    while isinstance(base.base, array_type):
        base = base.base
    return base


def _view_fits(offset: int, shape, strides, storage_size: int) -> bool:
    """Does the view (element ``offset``, ``shape``, element ``strides``) read only elements of the storage?"""
    if not 0 <= offset <= storage_size:
        return False
    if any(extent == 0 for extent in shape):
        return True  # an empty view reads nothing
    lowest = offset + sum((extent - 1) * stride for extent, stride in zip(shape, strides) if stride < 0)
    highest = offset + sum((extent - 1) * stride for extent, stride in zip(shape, strides) if stride > 0)
    return 0 <= lowest and highest < storage_size


def _address(array) -> int:
    interface = getattr(array, "__array_interface__", None) or array.__cuda_array_interface__
    return interface["data"][0]


def _contiguous_strides(shape) -> list:
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return strides[::-1]


def _float_to_json(value: float):
    # Strict JSON has no NaN or infinity; those are written as strings. Finite floats round-trip
    # exactly: JSON writes the shortest decimal that reads back as the same float.
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


# ==================================================================================================
# Loading
# ==================================================================================================
class _FormatError(Exception):
    """Something in the file is not what ``minitorch.save`` writes (turned into a RuntimeError naming the file)."""


def load(f: FileLike, map_location=None, pickle_module=None, *, weights_only: bool = True, mmap=None) -> Any:
    """Read back what ``minitorch.save`` wrote to ``f`` (a path or a binary file object).

    ``map_location`` moves storages onto another device (see the module docstring).
    ``weights_only`` is accepted for PyTorch compatibility; either way nothing in the file
    is ever executed, because the format holds only JSON and numbers. A file that is
    malformed, truncated, not a zip, a pickle, or written by ``torch.save`` raises a
    ``RuntimeError`` that names the file.
    """
    if pickle_module is not None:
        raise ValueError("minitorch.load never unpickles, so pickle_module must be None")
    if mmap:
        raise ValueError("minitorch.load does not support mmap=True: files are read into memory")
    name = _describe(f)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            raw = _read_file(stream, name)
    else:
        raw = _read_file(_seekable(f), name)
    return _Placer(raw, map_location).build()


def _describe(f) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    return str(getattr(f, "name", None) or f"<{type(f).__name__}>")


def _seekable(f):
    """``f`` if zipfile can seek in it, else its remaining bytes in memory."""
    try:
        if f.seekable():
            return f
    except AttributeError:
        pass
    return io.BytesIO(f.read())


class _RawContents:
    """What the file holds, checked: host storages, tensor entries and the object tree."""

    def __init__(self, storages, storage_locations, tensor_entries, tree):
        self.storages, self.storage_locations = storages, storage_locations
        self.tensor_entries, self.tree = tensor_entries, tree


def _read_file(stream, name: str) -> _RawContents:
    """Parse and check everything in the file, or raise a RuntimeError that names it and says why."""
    start = stream.tell()
    head = stream.read(8)
    stream.seek(start)
    try:
        if not head.startswith(b"PK"):
            raise _FormatError(_not_a_zip_reason(head))
        with zipfile.ZipFile(stream) as archive:
            return _read_archive(archive)
    except _FormatError as error:
        raise RuntimeError(f"minitorch.load cannot read '{name}': {error}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, KeyError, TypeError, IndexError, OverflowError,
            RecursionError, EOFError, UnicodeDecodeError, NotImplementedError, MemoryError, OSError,
            RuntimeError) as error:  # zipfile raises RuntimeError for entries marked as encrypted
        raise RuntimeError(
            f"minitorch.load cannot read '{name}': the file is damaged or was not written by minitorch.save "
            f"({type(error).__name__}: {error})"
        ) from error


def _not_a_zip_reason(head: bytes) -> str:
    if not head:
        return "the file is empty"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):  # a pickle's opening bytes
        return (
            "it is a pickle, not a minitorch.save archive. minitorch never unpickles, because unpickling can run "
            "any code the file contains; convert the weights through NumPy arrays instead (see "
            "minitorch.serialization)"
        )
    if head.startswith(b"\x93NUMPY"):
        return (
            "it is a single NumPy .npy array: read it with numpy.load(f, allow_pickle=False) and minitorch.from_numpy"
        )
    return "it is not a zip archive (a minitorch.save file is a zip in NumPy's .npz layout)"


def _read_archive(archive: zipfile.ZipFile) -> _RawContents:
    names = set(archive.namelist())
    if INDEX_NAME not in names:
        if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
            raise _FormatError(
                "it was written by torch.save (a pickle inside a zip). minitorch never unpickles, because unpickling "
                "can run any code the file contains; move the weights through NumPy arrays instead (see "
                "minitorch.serialization)"
            )
        raise _FormatError(f"it has no {INDEX_NAME}, so it was not written by minitorch.save")
    if archive.getinfo(INDEX_NAME).file_size > 256 * 2**20:
        raise _FormatError(f"its {INDEX_NAME} is implausibly large")
    index = json.loads(archive.read(INDEX_NAME).decode("utf-8"))
    _expect(isinstance(index, dict), f"{INDEX_NAME} is not a JSON object")
    _expect(index.get("format") == FORMAT_NAME, f"{INDEX_NAME} does not name the format {FORMAT_NAME!r}")
    version = index.get("version")
    _expect(_is_int(version) and 1 <= version <= FORMAT_VERSION,
            f"format version {version!r} is not one this minitorch reads (up to {FORMAT_VERSION})")
    storage_entries, tensor_entries = index.get("storages"), index.get("tensors")
    _expect(isinstance(storage_entries, list) and isinstance(tensor_entries, list),
            f"{INDEX_NAME} lacks its storages and tensors lists")

    storages, locations = [], []
    for number, entry in enumerate(storage_entries):
        storages.append(_read_storage(archive, names, number, entry))
        locations.append(entry["device"])
    for number, entry in enumerate(tensor_entries):
        _check_tensor_entry(number, entry, storages)
    tree = index.get("object")
    _check_tree(tree, len(tensor_entries))
    return _RawContents(storages, locations, tensor_entries, tree)


def _expect(condition: bool, reason: str) -> None:
    if not condition:
        raise _FormatError(reason)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _read_storage(archive: zipfile.ZipFile, names: set, number: int, entry) -> np.ndarray:
    _expect(isinstance(entry, dict), f"storage {number} is not described by an object")
    file_name, dtype_name, size, location = (entry.get(k) for k in ("file", "dtype", "size", "device"))
    _expect(isinstance(file_name, str) and file_name in names, f"storage {number}: its file {file_name!r} is missing")
    _expect(dtype_name in _DTYPES, f"storage {number}: unknown dtype {dtype_name!r}")
    _expect(_is_int(size) and size >= 0, f"storage {number}: bad size {size!r}")
    _expect(isinstance(location, str), f"storage {number}: bad device {location!r}")
    expected = _DTYPES[dtype_name].numpy_dtype
    with archive.open(file_name) as member:
        # allow_pickle=False: an object array (which NumPy would unpickle) is refused, not run.
        array = np.lib.format.read_array(member, allow_pickle=False)
    _expect(array.ndim == 1 and array.size == size, f"storage {number} holds shape {array.shape}, expected ({size},)")
    _expect(array.dtype.kind == expected.kind and array.dtype.itemsize == expected.itemsize,
            f"storage {number} holds {array.dtype}, expected {dtype_name}")
    if array.dtype != expected:  # the same numbers in the other byte order: convert to this machine's
        array = array.astype(expected)
    return array


def _check_tensor_entry(number: int, entry, storages: list) -> None:
    """Check that a tensor's view lies inside its storage (an out-of-range view would read stray memory)."""
    _expect(isinstance(entry, dict), f"tensor {number} is not described by an object")
    kind, storage, dtype_name = entry.get("class"), entry.get("storage"), entry.get("dtype")
    shape, strides, offset = entry.get("shape"), entry.get("strides"), entry.get("offset")
    _expect(kind in _TENSOR_CLASSES, f"tensor {number}: unknown class {kind!r}")
    _expect(_is_int(storage) and 0 <= storage < len(storages), f"tensor {number}: no storage {storage!r}")
    _expect(dtype_name in _DTYPES and _DTYPES[dtype_name].numpy_dtype == storages[storage].dtype,
            f"tensor {number}: dtype {dtype_name!r} differs from its storage's")
    _expect(isinstance(shape, list) and all(_is_int(n) and n >= 0 for n in shape), f"tensor {number}: bad shape")
    _expect(isinstance(strides, list) and len(strides) == len(shape) and all(_is_int(s) for s in strides),
            f"tensor {number}: bad strides")
    _expect(isinstance(entry.get("requires_grad"), bool), f"tensor {number}: bad requires_grad")
    _expect(not entry["requires_grad"] or dtype_name in ("float16", "float32", "float64"),
            f"tensor {number}: only floating point tensors can require grad")
    size = storages[storage].size
    _expect(_is_int(offset) and 0 <= offset <= size, f"tensor {number}: offset {offset!r} outside its storage")
    # Sizes NumPy can index (a product or stride beyond 2**62 bytes would overflow its index arithmetic).
    _expect(math.prod(shape) < _LARGEST and all(abs(s) < _LARGEST // 8 for s in strides),
            f"tensor {number}: shape or strides too large")
    _expect(_view_fits(offset, shape, strides, size), f"tensor {number}: its view reaches outside its storage")


_LARGEST = 2**62
_LEAF_KINDS = {"none": None, "bool": bool, "int": int, "str": str}


def _check_tree(node, tensor_count: int, depth: int = 0) -> None:
    _expect(depth < 500, "the saved object is nested too deeply")
    _expect(isinstance(node, dict), "a node of the saved object is not a JSON object")
    kind = node.get("kind")
    if kind == "none":
        return
    if kind in ("bool", "str"):
        _expect(isinstance(node.get("value"), _LEAF_KINDS[kind]), f"a {kind} node holds {node.get('value')!r}")
    elif kind == "int":
        _expect(_is_int(node.get("value")), f"an int node holds {node.get('value')!r}")
    elif kind == "float":
        value = node.get("value")
        _expect(isinstance(value, (int, float)) and not isinstance(value, bool) or value in ("nan", "inf", "-inf"),
                f"a float node holds {value!r}")
    elif kind == "dtype":
        _expect(node.get("value") in _DTYPES, f"unknown dtype {node.get('value')!r}")
    elif kind == "device":
        _expect(isinstance(node.get("value"), str), "a device node holds no string")
    elif kind == "tensor":
        index = node.get("index")
        _expect(_is_int(index) and 0 <= index < tensor_count, f"a tensor node refers to a missing tensor {index!r}")
    elif kind in ("list", "tuple", "size"):
        items = node.get("items")
        _expect(isinstance(items, list), f"a {kind} node has no items list")
        for item in items:
            _check_tree(item, tensor_count, depth + 1)
    elif kind in ("dict", "ordered_dict"):
        items = node.get("items")
        _expect(isinstance(items, list), f"a {kind} node has no items list")
        for pair in items:
            _expect(isinstance(pair, list) and len(pair) == 2, f"a {kind} item is not a [key, value] pair")
            _check_key(pair[0], depth + 1)
            _check_tree(pair[1], tensor_count, depth + 1)
    else:
        raise _FormatError(f"unknown node kind {kind!r}")


def _check_key(node, depth: int) -> None:
    _expect(isinstance(node, dict) and node.get("kind") in ("none", "bool", "int", "float", "str", "tuple"),
            "a dict key is not a string, number, bool, None or tuple")
    if node["kind"] == "tuple":
        _expect(depth < 500 and isinstance(node.get("items"), list), "a tuple key has no items list")
        for part in node["items"]:
            _check_key(part, depth + 1)
    else:
        _check_tree(node, 0, depth)


class _Placer:
    """Puts the checked storages on their devices (``map_location``) and rebuilds the object."""

    def __init__(self, raw: _RawContents, map_location):
        self.raw = raw
        self.map_location = map_location
        self.placed_storages: dict = {}  # storage number -> (array on its device, device, version counter)
        self.tensors: dict = {}  # tensor number -> the loaded Tensor (one object per saved tensor)

    def build(self):
        return self._decode(self.raw.tree)

    def _decode(self, node):
        kind = node["kind"]
        if kind == "none":
            return None
        if kind in ("bool", "int", "str"):
            return node["value"]
        if kind == "float":
            return float(node["value"])  # float("nan"), float("inf") and plain numbers alike
        if kind == "dtype":
            return _DTYPES[node["value"]]
        if kind == "device":
            return Device(node["value"])
        if kind == "tensor":
            return self._tensor(node["index"])
        if kind in ("list", "tuple", "size"):
            items = [self._decode(item) for item in node["items"]]
            return items if kind == "list" else tuple(items) if kind == "tuple" else Size(items)
        pairs = [(self._decode(key), self._decode(value)) for key, value in node["items"]]
        return OrderedDict(pairs) if kind == "ordered_dict" else dict(pairs)

    def _tensor(self, number: int):
        tensor = self.tensors.get(number)
        if tensor is not None:
            return tensor
        entry = self.raw.tensor_entries[number]
        if entry["class"] == "ndarray":  # NumPy arrays come back as NumPy arrays, on the host
            storage, device, version_counter = self.raw.storages[entry["storage"]], CPU, None
        else:
            storage, device, version_counter = self._storage(entry["storage"])
        xp = np if entry["class"] == "ndarray" else device.backend.array_module
        byte_strides = tuple(stride * storage.itemsize for stride in entry["strides"])
        # Safe: _check_tensor_entry proved that this view stays inside the storage.
        start = storage[entry["offset"]:]
        view = xp.lib.stride_tricks.as_strided(start, shape=tuple(entry["shape"]), strides=byte_strides)
        if entry["class"] == "ndarray":
            result = view
        else:
            result = Tensor._make(view, device, version_counter=version_counter)
            if entry["class"] == "Parameter":
                from .nn.parameter import Parameter

                result = Parameter(result, requires_grad=entry["requires_grad"])
            elif entry["requires_grad"]:
                result.requires_grad_(True)
        self.tensors[number] = result
        return result

    def _storage(self, number: int):
        placed = self.placed_storages.get(number)
        if placed is None:
            host, location = self.raw.storages[number], self.raw.storage_locations[number]
            array, device = _place(host, location, self.map_location)
            placed = (array, device, [0])  # tensors of one storage share a version counter, as views do
            self.placed_storages[number] = placed
        return placed


def _place(host: np.ndarray, location: str, map_location):
    """(array, device): the storage ``host`` saved from ``location``, moved where ``map_location`` says."""
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
