"""minitorch's first file format: a zip of ``.npy`` files and a JSON index (read, and written for tests).

Files written by ``minitorch.save`` before it wrote PyTorch's own format (the shipped
pretrained weights among them) use this format; ``minitorch.load`` recognises it by its
``index.json`` and reads it here. It holds no code at all: loading reads a JSON document
and raw numbers, nothing else, so a malicious file can only fail to load.

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

What it holds: tensors (and ``Parameter``), NumPy arrays, ``None``, bools, ints, floats,
strings, dtypes, devices, ``Size``, and lists, tuples, dicts and ``OrderedDict`` of these.
Views of one array are saved as views of one storage, and load as views again.
``save_npz`` still writes the format (the tests make old-format files with it).
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from collections import OrderedDict
from typing import IO, Any

import numpy as np

from . import _dtype
from ._device import CPU, device as Device
from ._map_location import place
from ._storage import LARGEST, contiguous_strides, make_view, storage_view, view_fits
from ._tensor import Size, Tensor
from .nn.parameter import Parameter

__all__ = ["save_npz", "is_npz_archive", "read"]

FORMAT_NAME = "minitorch.save"
FORMAT_VERSION = 1
INDEX_NAME = "index.json"
_DTYPES = {d.name: d for d in _dtype.ALL_DTYPES}
_TENSOR_CLASSES = ("Tensor", "Parameter", "ndarray")


# ==================================================================================================
# Saving
# ==================================================================================================
FileLike = str | os.PathLike | IO[bytes]  # a path, or a binary file object


def save_npz(obj: Any, f: FileLike) -> None:
    """Write ``obj`` (a tensor, a state dict, nested containers of tensors and numbers) to ``f``.

    ``f`` is a path or a binary file object opened for writing.
    """
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
            f"save_npz cannot store {where}, an object of type {type(value).__module__}."
            f"{type(value).__qualname__}: only tensors, NumPy arrays, numbers, strings, bools, None, dtypes, devices "
            "and lists, tuples and dicts of them can be saved (the file format holds no code)."
        )

    def _encode_container(self, value, where: str):
        if id(value) in self._open_containers:
            raise ValueError(f"save_npz cannot store {where}: it contains itself")
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
            f"save_npz cannot store {where}: its key {key!r} is a {type(key).__name__}; dict keys must be "
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
            raise TypeError(f"save_npz cannot store {where}: {error}") from None
        storage, offset, strides = self._storage_for(array, device)
        if isinstance(owner, np.ndarray):
            kind, requires_grad = "ndarray", False
        else:
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
        found = storage_view(array)
        if found is not None:
            base, offset, strides = found
            number = self._storage_numbers.get(id(base))
            if number is None:
                # ravel(order="K") lists the elements in memory order, without a copy.
                number = self._add_storage(base.ravel(order="K"), device)
                self._storage_numbers[id(base)] = number
                self._keep_alive.append(base)
            return number, offset, strides
        compact = array.reshape(-1) if array.flags.c_contiguous else array.copy().reshape(-1)
        return self._add_storage(compact, device), 0, contiguous_strides(array.shape)

    def _add_storage(self, flat_array, device) -> int:
        host = flat_array if device.type == "cpu" else device.backend.to_host(flat_array)
        number = len(self.storage_entries)
        self.storage_entries.append({
            "file": f"data/{number}.npy", "dtype": _dtype.from_numpy_dtype(host.dtype).name, "size": int(host.size),
            "device": str(device),
        })
        self.storage_arrays.append(host)
        return number


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
    """Something in the file is not what ``save_npz`` writes (turned into a RuntimeError naming the file)."""


def is_npz_archive(names) -> bool:
    """Is a zip archive with these member names in this format (an ``index.json`` at its root)?"""
    return INDEX_NAME in names


def read(archive: zipfile.ZipFile, name: str, map_location) -> Any:
    """The object saved in ``archive`` (opened from the file called ``name``), its storages placed by ``map_location``.

    A malformed or damaged archive raises a ``RuntimeError`` that names the file and says why.
    """
    try:
        raw = _read_archive(archive)
    except _FormatError as error:
        raise RuntimeError(f"minitorch.load cannot read '{name}': {error}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, KeyError, TypeError, IndexError, OverflowError,
            RecursionError, EOFError, UnicodeDecodeError, NotImplementedError, MemoryError, OSError,
            RuntimeError) as error:  # zipfile raises RuntimeError for entries marked as encrypted
        raise RuntimeError(
            f"minitorch.load cannot read '{name}': the file is damaged ({type(error).__name__}: {error})"
        ) from error
    return _Placer(raw, map_location).build()


class _RawContents:
    """What the file holds, checked: host storages, tensor entries and the object tree."""

    def __init__(self, storages, storage_locations, tensor_entries, tree):
        self.storages, self.storage_locations = storages, storage_locations
        self.tensor_entries, self.tree = tensor_entries, tree


def _read_archive(archive: zipfile.ZipFile) -> _RawContents:
    names = set(archive.namelist())
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
    _expect(math.prod(shape) < LARGEST and all(abs(s) < LARGEST // 16 for s in strides),
            f"tensor {number}: shape or strides too large")
    _expect(view_fits(offset, shape, strides, size), f"tensor {number}: its view reaches outside its storage")


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
        # Safe: _check_tensor_entry proved that this view stays inside the storage.
        view = make_view(storage, entry["offset"], entry["shape"], entry["strides"], xp)
        if entry["class"] == "ndarray":
            result = view
        else:
            result = Tensor._make(view, device, version_counter=version_counter)
            if entry["class"] == "Parameter":
                result = Parameter(result, requires_grad=entry["requires_grad"])
            elif entry["requires_grad"]:
                result.requires_grad_(True)
        self.tensors[number] = result
        return result

    def _storage(self, number: int):
        placed = self.placed_storages.get(number)
        if placed is None:
            host, location = self.raw.storages[number], self.raw.storage_locations[number]
            array, device = place(host, location, self.map_location)
            placed = (array, device, [0])  # tensors of one storage share a version counter, as views do
            self.placed_storages[number] = placed
        return placed
