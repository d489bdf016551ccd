"""Saving and loading: ``minitorch.save`` and ``minitorch.load``, in PyTorch's own file format.

    >>> import io, minitorch
    >>> buffer = io.BytesIO()
    >>> minitorch.save({"weight": minitorch.ones(2, 3), "step": 10}, buffer)
    >>> _ = buffer.seek(0)
    >>> minitorch.load(buffer)
    {'weight': tensor([[1., 1., 1.],
            [1., 1., 1.]]), 'step': 10}

A file written by ``minitorch.save`` is the file ``torch.save`` writes, so ``torch.load``
reads it, and ``minitorch.load`` reads what ``torch.save`` wrote: checkpoints move both
ways between minitorch and PyTorch.

The file format
---------------
A zip archive (uncompressed) whose members all sit in one folder (``archive/``, or the
file's name without its extension):

* ``data.pkl``: the saved object as a *pickle* (protocol 2). A tensor is pickled as the call
  ``torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
  backward_hooks)``: a view of a flat storage, offset and strides counted in elements. A
  storage is not in the pickle; it is a *persistent id*, the tuple
  ``('storage', torch.FloatStorage, key, location, numel)``, whose numbers are in
  ``data/<key>``. A ``Parameter`` is ``torch._utils._rebuild_parameter(tensor,
  requires_grad, backward_hooks)``; dtypes are the globals ``torch.float32``...;
* ``data/0``, ``data/1``...: each storage's raw bytes, in the byte order of ``byteorder``,
  each aligned to 64 bytes in the file (so a reader can map it into memory);
* ``byteorder`` (``little``), ``version`` (``3``), ``.format_version`` (``1``),
  ``.storage_alignment`` (``64``) and ``.data/serialization_id``.

Tensors that are views of one array (``w``, ``w.t()``, ``w[1]``) become views of one storage,
so they load as views of one storage again; the same tensor saved twice (tied weights)
loads as one tensor. Like PyTorch, a view saves its whole base: call ``.clone()`` first to
save only the slice. Gradients (``.grad``) are not saved.

What can be saved: anything Python can pickle, as with ``torch.save``: state dicts,
optimizer state dicts, nested containers of tensors and numbers, and whole modules
(``minitorch.save(model, f)`` pickles the module object itself).

Loading safely: ``weights_only``
--------------------------------
Unpickling can run any code the file names: a downloaded checkpoint can delete your
files. So ``minitorch.load``, like ``torch.load`` since PyTorch 2.6, unpickles with an
*allow-list* by default (``weights_only=True``, see ``minitorch._weights_only_unpickler``):
it rebuilds tensors, parameters, storages, dtypes, devices, ``Size`` and plain containers
(dict, list, tuple, set, ``OrderedDict``) and refuses everything else, so nothing in the
file runs. A whole module is a pickle of classes, so loading one needs
``weights_only=False``: do that only for files you trust. ``add_safe_globals([MyClass])``
allows more classes in ``weights_only`` loads.

Every check a hostile file could defeat is made before its numbers are used: a storage's
bytes must be exactly ``numel`` elements, a view must lie inside its storage, a member may
not be compressed beyond reason (a zip bomb), and a damaged file raises a ``RuntimeError``
that names the file and says why.

Other formats ``minitorch.load`` reads
--------------------------------------
* the zip of ``.npy`` files and a JSON index that ``minitorch.save`` wrote before it wrote
  PyTorch's format (``minitorch/_npz_serialization.py``; the shipped pretrained weights);
* a path ending in ``.safetensors``, as ``torch.load`` does (``minitorch.utils.safetensors``
  writes and reads those files).

Not read (refused with a message that says so, before anything is unpickled): PyTorch's
legacy format (a bare pickle stream, written before PyTorch 1.6 or with
``_use_new_zipfile_serialization=False``) and TorchScript archives (``torch.jit.save``).

Loading onto another device: ``map_location``
---------------------------------------------
As in ``torch.load`` (see ``minitorch._map_location``): ``None`` puts each storage back on the
device it was saved from; a device puts everything there; a dict maps saved locations
(``{"cuda:1": "cpu"}``); a callable ``map_location(storage, location)`` returns the storage
moved, or ``None``.
"""

from __future__ import annotations

import hashlib
import io
import mmap as mmap_module
import os
import pickle
import struct
import sys
import warnings
import zipfile
from collections import OrderedDict
from typing import IO, Any

import numpy as np

from . import _dtype, _npz_serialization, _utils
from ._device import device as Device
from ._map_location import place
from ._storage import LARGEST, contiguous_strides, storage_view
from ._tensor import Size, Tensor
from ._weights_only_unpickler import (
    Unpickler as _WeightsOnlyUnpickler,
    WeightsOnlyError,
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
    torch_globals,
)
from .nn.parameter import Parameter
from .utils import safetensors

__all__ = ["save", "load", "get_default_mmap_options", "set_default_mmap_options", "add_safe_globals",
           "clear_safe_globals", "get_safe_globals", "safe_globals", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2  # torch.save's: the protocol PyTorch's weights-only unpickler reads
STORAGE_ALIGNMENT = 64  # storages start at multiples of 64 bytes in the file, as PyTorch writes them
FORMAT_VERSION = b"3\n"  # the archive version PyTorch 2 writes ("version")

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)
DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)

FileLike = str | os.PathLike | IO[bytes]  # a path, or a binary file object


# ==================================================================================================
# Saving
# ==================================================================================================
def save(obj: Any, f: FileLike, pickle_module=None, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Write ``obj`` to ``f`` (a path or a binary file object) in ``torch.save``'s format.

    ``pickle_module`` is accepted for PyTorch compatibility and must be ``None`` or ``pickle``.
    """
    if pickle_module not in (None, pickle):
        raise ValueError("minitorch.save pickles with Python's pickle module only, so pickle_module must be None")
    if not _use_new_zipfile_serialization:
        raise ValueError(
            "minitorch.save writes PyTorch's zip format only (_use_new_zipfile_serialization=True); the legacy "
            "format before PyTorch 1.6 is not written"
        )
    storages = _StorageTable()
    buffer = io.BytesIO()
    _Pickler(buffer, pickle_protocol, storages).dump(obj)
    records = [("data.pkl", buffer.getbuffer()), (".format_version", b"1"),
               (".storage_alignment", str(STORAGE_ALIGNMENT).encode())]
    if not _disable_byteorder_record:
        records.append(("byteorder", sys.byteorder.encode()))
    records += [(f"data/{storage.key}", storage.data()) for storage in storages.saved]
    records.append(("version", FORMAT_VERSION))
    if isinstance(f, (str, os.PathLike)):
        archive_name = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
        with open(f, "wb") as stream:
            _write_archive(stream, archive_name, records)
    else:
        _write_archive(f, "archive", records)


class _TorchGlobal:
    """A PyTorch name (``torch._utils._rebuild_tensor_v2``) as minitorch's pickler writes it: a ``GLOBAL`` instruction.

    Writing the name does not need PyTorch: the pickle only *names* the function; whoever
    loads the file (``torch.load`` or ``minitorch.load``) looks the name up.
    """

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle insists that what a reduction calls is callable
        raise TypeError(f"{self.module}.{self.name} is a name written into a file, not a function to call here")


_REBUILD_TENSOR_V2 = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _TorchGlobal("torch._utils", "_rebuild_parameter")
_TORCH_SIZE = _TorchGlobal("torch", "Size")
_TORCH_DEVICE = _TorchGlobal("torch", "device")
_DTYPE_NAMES = {dtype: _TorchGlobal("torch", dtype.name) for dtype in _dtype.ALL_DTYPES}
_STORAGE_NAMES = {dtype: _TorchGlobal("torch", _utils.STORAGE_CLASS_NAMES[dtype.name]) for dtype in _dtype.ALL_DTYPES}


class _SavedStorage:
    """One storage being saved: the flat host array behind one or more tensors, and its key in the file."""

    __slots__ = ("key", "dtype", "location", "array")

    def __init__(self, key: str, dtype: _dtype.dtype, location: str, array):
        self.key, self.dtype, self.location, self.array = key, dtype, location, array

    def persistent_id(self) -> tuple:
        return ("storage", _STORAGE_NAMES[self.dtype], self.key, self.location, int(self.array.size))

    def data(self) -> memoryview:
        # viewed as bytes: NumPy's buffers have no format for bfloat16 (an ml_dtypes type)
        return memoryview(np.ascontiguousarray(self.array).reshape(-1).view(np.uint8))


class _StorageTable:
    """The storages of one save: tensors that view one base array share that base's storage."""

    def __init__(self):
        self.saved: list[_SavedStorage] = []
        self._by_base: dict = {}  # id(base array) -> its _SavedStorage
        self._keep_alive: list = []  # the ids above stay unique only while their arrays live

    def view_of(self, tensor: Tensor) -> tuple[_SavedStorage, int, tuple]:
        """(storage, element offset, element strides) of ``tensor``."""
        array, device = tensor._data, tensor._device
        found = storage_view(array, allow_negative_strides=False)
        if found is None:  # saved as a compact storage of its own
            compact = array.reshape(-1) if array.flags.c_contiguous else array.copy().reshape(-1)
            return self._add(compact, tensor.dtype, device), 0, tuple(contiguous_strides(array.shape))
        base, offset, strides = found
        storage = self._by_base.get(id(base))
        if storage is None:
            # ravel(order="K") lists the elements in memory order, without a copy.
            storage = self._add(base.ravel(order="K"), tensor.dtype, device)
            self._by_base[id(base)] = storage
            self._keep_alive.append(base)
        return storage, offset, tuple(strides)

    def _add(self, flat_array, dtype: _dtype.dtype, device) -> _SavedStorage:
        host = flat_array if device.type == "cpu" else device.backend.to_host(flat_array)
        storage = _SavedStorage(str(len(self.saved)), dtype, str(device), host)
        self.saved.append(storage)
        return storage


class _Pickler(pickle._Pickler):
    """Python's pickler, writing minitorch's tensors, dtypes, devices and sizes under PyTorch's names.

    It is the pure-Python pickler (``pickle._Pickler``) because writing a *name* of a
    function that is not importable here (``torch._utils._rebuild_tensor_v2``) needs its
    ``GLOBAL`` instruction written by hand (``_save_torch_global``); the C pickler insists
    on importing every name it writes.
    """

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol: int, storages: _StorageTable):
        super().__init__(file, protocol=protocol)
        self.storages = storages

    def persistent_id(self, obj):
        return obj.persistent_id() if type(obj) is _SavedStorage else None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if type(obj) is Size:
            return (_TORCH_SIZE, (tuple(obj),))
        if type(obj) is Device:
            return (_TORCH_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index))
        return NotImplemented

    def _reduce_tensor(self, tensor: Tensor):
        if isinstance(tensor, Parameter):
            # As PyTorch: the parameter's data as a plain tensor (requires_grad False), then the flag.
            data = Tensor._make(tensor._data, tensor._device, version_counter=tensor._version_counter)
            return (_REBUILD_PARAMETER, (data, tensor.requires_grad, OrderedDict()))
        storage, offset, strides = self.storages.view_of(tensor)
        return (_REBUILD_TENSOR_V2, (storage, offset, tuple(tensor.shape), strides, tensor.requires_grad,
                                     OrderedDict()))

    def _save_torch_global(self, obj: _TorchGlobal) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    def _save_dtype(self, obj: _dtype.dtype) -> None:
        self.save(_DTYPE_NAMES[obj])

    dispatch[_TorchGlobal] = _save_torch_global
    dispatch[_dtype.dtype] = _save_dtype


def _write_archive(stream, archive_name: str, records: list) -> None:
    """Write the records as an uncompressed zip, each record's data starting at a multiple of 64 bytes."""
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in records:
            _write_record(archive, f"{archive_name}/{name}", data)
        # A name for this save, as PyTorch records one; derived from the contents, so saving the
        # same weights twice gives the same bytes (and the same hash).
        digest = hashlib.sha1(b"".join(struct.pack("<IQ", info.CRC, info.file_size) for info in archive.infolist()))
        serialization_id = f"{int.from_bytes(digest.digest()[:16], 'big'):040d}"
        _write_record(archive, f"{archive_name}/.data/serialization_id", serialization_id.encode())


def _write_record(archive: zipfile.ZipFile, name: str, data) -> None:
    size = len(data)
    # A fixed timestamp: the same weights give the same bytes (the shipped weights are checked by hash).
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = size
    zip64 = size * 1.05 > zipfile.ZIP64_LIMIT  # zipfile's own rule; a zip64 header carries 20 more bytes
    data_start = archive.start_dir + 30 + len(name.encode("utf-8")) + (20 if zip64 else 0)
    padding = -data_start % STORAGE_ALIGNMENT
    if padding:
        if padding < 4:  # an extra field is at least its 4-byte header
            padding += STORAGE_ALIGNMENT
        info.extra = b"FB" + struct.pack("<H", padding - 4) + b"Z" * (padding - 4)  # PyTorch's padding field
    with archive.open(info, "w", force_zip64=zip64) as member:
        member.write(data)
    info.extra = b""  # the padding is needed in the local header only; the central directory stays compact


# ==================================================================================================
# Loading
# ==================================================================================================
def load(f: FileLike, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap=None,
         **pickle_load_args) -> Any:
    """Read back what ``torch.save`` or ``minitorch.save`` wrote to ``f`` (a path or a binary file object).

    ``weights_only`` (default ``True``, as in PyTorch) loads through the allow-list unpickler;
    ``weights_only=False`` unpickles anything, running whatever code the file holds: only
    for files you trust. ``map_location`` moves storages onto another device (see
    ``minitorch._map_location``). A file that is damaged or hostile raises an error that names
    the file; a refusal of the allow-list raises ``pickle.UnpicklingError`` in PyTorch's words.
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    name = _describe(f)
    if isinstance(f, (str, os.PathLike)) and os.fspath(f).endswith(".safetensors"):
        return _load_safetensors(os.fspath(f), map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            return _load_stream(stream, name, map_location, weights_only, pickle_module, pickle_load_args,
                                mmap_path=os.fspath(f) if mmap else None)
    return _load_stream(_seekable(f), name, map_location, weights_only, pickle_module, pickle_load_args)


# -- mmap=True: storages are views of the file, read by the operating system as they are touched --------------
_mmap_flags = [mmap_module.MAP_PRIVATE]  # PyTorch's default: writes to a loaded tensor stay in memory


def get_default_mmap_options() -> int:
    """The flags ``load(..., mmap=True)`` maps files with: ``mmap.MAP_PRIVATE`` (default) or ``mmap.MAP_SHARED``."""
    return _mmap_flags[0]


class set_default_mmap_options:
    """Set the flags of ``load(..., mmap=True)``; as a context manager, only inside the ``with`` block.

    ``mmap.MAP_PRIVATE``: writes to a loaded tensor stay in this process (copy on write). ``mmap.MAP_SHARED``:
    they go to the file itself.
    """

    def __init__(self, flags: int) -> None:
        if flags not in (mmap_module.MAP_PRIVATE, mmap_module.MAP_SHARED):
            raise ValueError("Invalid argument in function set_default_mmap_options, "
                             f"expected mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}")
        self.previous = _mmap_flags[0]
        _mmap_flags[0] = flags

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info) -> None:
        _mmap_flags[0] = self.previous


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


def _load_safetensors(path: str, map_location):
    # torch.load reads a path ending in .safetensors with safetensors' loader, onto one device.
    if isinstance(map_location, dict) or (callable(map_location) and not isinstance(map_location, (str, Device))):
        kind = "dict" if isinstance(map_location, dict) else "callable"
        raise RuntimeError(
            f"Loading safetensors file with {kind} map_location is not supported. Use a device string or torch.device "
            "instead."
        )
    return safetensors.load_file(path, device="cpu" if map_location is None else str(map_location))


class _Unreadable(Exception):
    """The file is not something minitorch.load reads, or is damaged (becomes a RuntimeError naming the file)."""


class _PlacingFailed(Exception):
    """``map_location`` raised: its error reaches the caller as it is, not as a damaged file."""

    def __init__(self, error: Exception):
        super().__init__(str(error))
        self.error = error


_DAMAGE = (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, KeyError, TypeError, IndexError, OverflowError,
           RecursionError, EOFError, UnicodeDecodeError, NotImplementedError, MemoryError, OSError, AttributeError,
           struct.error, pickle.UnpicklingError)


def _load_stream(stream, name: str, map_location, weights_only: bool, pickle_module, pickle_load_args,
                 mmap_path: str | None = None):
    start = stream.tell()
    head = stream.read(8)
    stream.seek(start)
    try:
        if not head.startswith(b"PK"):
            raise _Unreadable(_not_a_zip_reason(head))
        try:
            archive = zipfile.ZipFile(stream)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
            raise _Unreadable(f"the file is damaged ({type(error).__name__}: {error})") from None
        with archive:
            names = archive.namelist()
            if _npz_serialization.is_npz_archive(names):
                return _npz_serialization.read(archive, name, map_location)
            reader = _TorchArchive(archive, names, map_location, stream, mmap_path)
            return reader.load(weights_only, pickle_module, pickle_load_args)
    except _PlacingFailed as failure:
        raise failure.error from None
    except WeightsOnlyError as error:
        raise pickle.UnpicklingError(_weights_only_message(str(error))) from None
    except (_Unreadable, _utils.CheckpointError) as error:
        raise RuntimeError(f"minitorch.load cannot read '{name}': {error}") from None
    except _DAMAGE as error:
        raise RuntimeError(
            f"minitorch.load cannot read '{name}': the file is damaged or is not a checkpoint "
            f"({type(error).__name__}: {error})"
        ) from error


def _weights_only_message(message: str) -> str:
    """PyTorch's text around a refusal of the weights-only unpickler (``torch.load``'s ``_get_wo_message``)."""
    if "was not an allowed global by default" in message:
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            f"the recommended steps in the following error message.\n\tWeightsUnpickler error: {message}{DOCS_MESSAGE}"
        )
    updated = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if "is blocked" not in message:
        updated += ("Please file an issue with the following so that we can make `weights_only=True` compatible "
                    "with your use case: WeightsUnpickler error: ")
    return f"{updated}\n\n{message}{DOCS_MESSAGE}"


def _not_a_zip_reason(head: bytes) -> str:
    if not head:
        return "the file is empty"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):  # a pickle's opening bytes
        return (
            "it is a bare pickle, not a zip archive: a file of torch.save's legacy format (before PyTorch 1.6, "
            "_use_new_zipfile_serialization=False) or of pickle.dump. minitorch does not read those, and never "
            "unpickles them; re-save the object with torch.save in its default (zip) format"
        )
    if head.startswith(b"\x93NUMPY"):
        return "it is a single NumPy .npy array: read it with numpy.load(f, allow_pickle=False) and from_numpy"
    return "it is not a zip archive (torch.save and minitorch.save write zip archives)"


# A compressed member may not expand more than this (PyTorch and minitorch never compress their members;
# a zip bomb expands a small file into gigabytes).
_MAX_EXPANSION = 100
_SMALL_MEMBER = 1 << 20


class _TorchArchive:
    """A ``torch.save`` zip archive: its records, read with every check a hostile file could defeat."""

    def __init__(self, archive: zipfile.ZipFile, names: list, map_location, stream=None, mmap_path=None):
        self.archive, self.map_location = archive, map_location
        self.stream, self.mmap_path = stream, mmap_path  # the file itself: storages are read (or mapped) directly
        self.infos = {info.filename: info for info in archive.infolist()}
        pickles = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(pickles) != 1:
            if any(n.endswith("data.pkl") for n in names):
                raise _Unreadable("its data.pkl is not in a single top-level folder, as torch.save writes it")
            raise _Unreadable("it is a zip archive, but neither torch.save nor minitorch.save wrote it (no data.pkl)")
        self.prefix = pickles[0][: -len("data.pkl")]
        if self.prefix + "constants.pkl" in self.infos:
            raise _Unreadable("it is a TorchScript archive (torch.jit.save), which minitorch cannot load")
        byteorder = self._read(self.prefix + "byteorder") if self.prefix + "byteorder" in self.infos else b"little"
        if byteorder not in (b"little", b"big"):
            raise _Unreadable("Unknown endianness type: " + byteorder.decode("ascii", "replace"))
        self.swap_bytes = byteorder.decode() != sys.byteorder
        self.storages: dict[str, _utils.LoadedStorage] = {}

    def load(self, weights_only: bool, pickle_module, pickle_load_args: dict):
        data = io.BytesIO(self._read(self.prefix + "data.pkl"))
        if weights_only:
            return _WeightsOnlyUnpickler(data, self.storage).load()
        unpickler_class = _full_unpickler_class(pickle_module or pickle)
        unpickler = unpickler_class(data, **{"encoding": "utf-8", **pickle_load_args})
        unpickler.persistent_load = self.storage
        return unpickler.load()

    def _member(self, name: str) -> zipfile.ZipInfo:
        info = self.infos.get(name)
        if info is None:
            raise _Unreadable(f"its record {name!r} is missing")
        if info.compress_type == zipfile.ZIP_STORED:
            if info.compress_size != info.file_size:
                raise _Unreadable(f"its record {name!r} claims {info.file_size} bytes but holds {info.compress_size}")
        elif info.file_size > max(_SMALL_MEMBER, _MAX_EXPANSION * info.compress_size):
            raise _Unreadable(
                f"its record {name!r} would expand from {info.compress_size} to {info.file_size} bytes: a zip bomb? "
                "(torch.save and minitorch.save never compress)"
            )
        return info

    def _read(self, name: str) -> bytes:
        return self.archive.read(self._member(name))

    def storage(self, saved_id) -> _utils.LoadedStorage:
        """The persistent id ``('storage', storage_type, key, location, numel)``: read, checked and placed."""
        if not isinstance(saved_id, tuple) or len(saved_id) != 5 or _ascii(saved_id[0]) != "storage":
            raise _utils.CheckpointError(f"unknown persistent id {saved_id!r:.100}")
        _, storage_type, key, location, numel = saved_id
        key, location = _ascii(key), _ascii(location)
        if not isinstance(storage_type, _utils.StorageType):
            raise _utils.CheckpointError(f"a storage's type must be a torch storage class, not {storage_type!r:.80}")
        if not isinstance(key, str) or not isinstance(location, str):
            raise _utils.CheckpointError(f"a storage's key and location must be strings: {saved_id!r:.100}")
        if not isinstance(numel, int) or isinstance(numel, bool) or not 0 <= numel < LARGEST // 16:
            raise _utils.CheckpointError(f"storage '{key}' has an invalid size {numel!r}")
        loaded = self.storages.get(key)
        if loaded is None:
            if self.map_location is None:  # the file's own location, used as it is: it must name a device
                try:
                    Device(location)
                except (RuntimeError, ValueError, TypeError):
                    raise _utils.CheckpointError(f"storage '{key}' was saved from an unknown device {location!r}") \
                        from None
            host = self._read_storage(key, storage_type.dtype, numel)
            try:
                array, device = place(host, location, self.map_location)
            except Exception as error:
                raise _PlacingFailed(error) from error
            loaded = _utils.LoadedStorage(array, device, storage_type.dtype, key)
            self.storages[key] = loaded
        elif loaded.dtype is not storage_type.dtype or loaded.array.size != numel:
            raise _utils.CheckpointError(f"storage '{key}' is named twice with different types or sizes")
        return loaded

    def _read_storage(self, key: str, dtype: _dtype.dtype, numel: int) -> np.ndarray:
        name = f"{self.prefix}data/{key}"
        info = self._member(name)
        expected = numel * dtype.itemsize
        if info.file_size != expected:
            raise _utils.CheckpointError(
                f"storage '{key}' should hold {numel} {dtype.name} elements ({expected} bytes), but its record "
                f"{name!r} has {info.file_size} bytes"
            )
        if info.compress_type == zipfile.ZIP_STORED and self.stream is not None:
            array = self._read_stored(info, dtype, numel)
        else:
            array = self._read_through_zipfile(info, dtype, expected)
        if self.swap_bytes and dtype.itemsize > 1:
            array = array.byteswap(inplace=self.mmap_path is None)  # a mapped file is not swapped in place
        return array

    def _read_stored(self, info: zipfile.ZipInfo, dtype: _dtype.dtype, numel: int) -> np.ndarray:
        """An uncompressed record (torch.save writes only those) read straight from the file at its offset, or
        mapped (``mmap=True``); like PyTorch's reader, without zipfile's CRC check, which would double the time."""
        self.stream.seek(info.header_offset)
        header = self.stream.read(_LOCAL_HEADER_SIZE)
        if len(header) != _LOCAL_HEADER_SIZE or header[:4] != b"PK\x03\x04":
            raise _Unreadable(f"its record {info.filename!r} has no local header where the directory says")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        stored_name = self.stream.read(name_length)
        if stored_name.decode("utf-8", "replace") != info.filename:
            raise _Unreadable(f"its record {info.filename!r} is named {stored_name!r:.80} in its local header")
        start = info.header_offset + _LOCAL_HEADER_SIZE + name_length + extra_length
        size = numel * dtype.itemsize
        if start + size > self.stream.seek(0, os.SEEK_END):
            raise _utils.CheckpointError(f"its record {info.filename!r} is truncated")
        if self.mmap_path is not None and size:
            mode = "c" if _mmap_flags[0] == mmap_module.MAP_PRIVATE else "r+"
            return np.memmap(self.mmap_path, dtype=dtype.numpy_dtype, mode=mode, offset=start, shape=(numel,))
        array = np.empty(numel, dtype=dtype.numpy_dtype)  # writable, so tensors over it are too
        self.stream.seek(start)
        if size and self.stream.readinto(array.view(np.uint8)) != size:
            raise _utils.CheckpointError(f"its record {info.filename!r} is truncated")
        return array

    def _read_through_zipfile(self, info: zipfile.ZipInfo, dtype: _dtype.dtype, expected: int) -> np.ndarray:
        """A record that zipfile must decompress (not one torch.save writes, but a valid zip may hold it)."""
        buffer = bytearray(expected)  # writable, so tensors over it are too
        with self.archive.open(info) as member:
            filled = member.readinto(buffer) if expected else 0
            while filled < expected:
                more = member.readinto(memoryview(buffer)[filled:])
                if not more:
                    raise _utils.CheckpointError(f"its record {info.filename!r} is truncated")
                filled += more
        return np.frombuffer(buffer, dtype=dtype.numpy_dtype)


_LOCAL_HEADER_SIZE = 30  # a zip entry's local header before its name and extra field


def _ascii(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


def _full_unpickler_class(pickle_module):
    """The unpickler of ``weights_only=False``: any name at all, PyTorch's rebuild names mapped to minitorch's."""

    class FullUnpickler(pickle_module.Unpickler):
        def find_class(self, module: str, name: str):
            mapped = torch_globals().get(f"{module}.{name}")
            if mapped is not None:
                return mapped
            if module == "torch" or module.startswith("torch."):
                # minitorch mirrors PyTorch's module paths: torch.nn.modules.linear.Linear is
                # minitorch.nn.modules.linear.Linear, so a whole PyTorch module loads as minitorch's.
                try:
                    return super().find_class("minitorch" + module[len("torch"):], name)
                except (ImportError, AttributeError):
                    pass
            return super().find_class(module, name)

    return FullUnpickler
