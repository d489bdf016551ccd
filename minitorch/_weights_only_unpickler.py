"""The allow-list unpickler behind ``minitorch.load(f)`` (``weights_only=True``), after PyTorch's own.

Unpickling an ordinary pickle can run any code its author wanted: a pickle is a small
program whose ``GLOBAL`` instruction imports any function (``os.system``, ``eval``) and whose
``REDUCE`` instruction calls it. A checkpoint only needs a handful of functions (those that
rebuild tensors), dtypes, storage types and plain containers, so this unpickler knows only
those (``torch_globals()``) and refuses every other name with PyTorch's message:

    Unsupported global: GLOBAL eval was not an allowed global by default. ...

Like ``torch/_weights_only_unpickler.py`` it also restricts what the other instructions may
touch: ``BUILD`` (set an object's attributes) only on a ``Parameter``, an ``OrderedDict`` or
a user-allowed type, never on a tensor, a dtype or a device (minitorch shares one object per
dtype and device: a file must not be able to change them); ``APPEND`` only to lists,
``SETITEM`` only to dicts, ``NEWOBJ`` only for plain containers and user-allowed classes.

It is Python's own unpickler (``pickle._Unpickler``, the pure-Python one) with its
instruction table cut down to the safe subset: the C unpickler cannot restrict ``BUILD``.
The names mapped here are PyTorch's (``torch._utils._rebuild_tensor_v2``, ``torch.float32``,
``torch.FloatStorage``): ``minitorch.save`` writes them, so files cross over both ways.

``add_safe_globals([MyClass])`` (or the ``safe_globals`` context manager) allows more
names, as ``torch.serialization.add_safe_globals`` does; ``os``, ``sys``, ``posix`` and ``nt``
stay blocked whatever is added.
"""

from __future__ import annotations

import codecs
import pickle
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from . import _dtype, _utils
from ._device import device as Device
from ._tensor import Size
from .nn.parameter import Parameter

__all__ = ["Unpickler", "WeightsOnlyError", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "torch_globals"]

# Modules never allowed, even if a user adds names from them.
_blocklisted_modules = ["sys", "os", "posix", "nt"]


class WeightsOnlyError(pickle.UnpicklingError):
    """The file asks for something the allow-list refuses (a global, an instruction, a target)."""


# -- the names a checkpoint may use ----------------------------------------------------------------------------
_TORCH_DTYPES_MINITORCH_LACKS = (
    "complex32", "complex64", "complex128", "uint16", "uint32", "uint64", "float8_e4m3fn",
    "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", "qint8", "quint8",
    "qint32", "quint4x2", "quint2x4", "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16", "cfloat", "cdouble",
    "chalf", "bool8",
)
_TORCH_STORAGES_MINITORCH_LACKS = (
    "ComplexFloatStorage", "ComplexDoubleStorage", "QInt8Storage", "QUInt8Storage",
    "QInt32Storage", "QUInt4x2Storage", "QUInt2x4Storage",
)


def _encode(text, encoding="latin1"):
    """``_codecs.encode``, which protocol 2 uses for ``bytes``: only the latin-1 codec that pickle itself uses."""
    if not isinstance(text, str) or codecs.lookup(encoding).name != "iso8859-1":
        raise WeightsOnlyError(f"_codecs.encode is allowed for latin-1 text only, not {type(text).__name__}")
    return codecs.encode(text, encoding)


def _bytearray(source=b"", encoding="latin-1"):
    """``bytearray`` from text or bytes, as pickle writes it (never ``bytearray(n)``: that would allocate n bytes)."""
    if isinstance(source, str):
        return bytearray(_encode(source, encoding))
    if isinstance(source, (bytes, bytearray)):
        return bytearray(source)
    raise WeightsOnlyError(f"bytearray is allowed only from text or bytes, got {type(source).__name__}")


def _build_torch_globals() -> dict[str, Any]:
    names: dict[str, Any] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": _utils.PARAMETER_TYPE,
        "torch.Tensor": _utils.TENSOR_TYPE,
        "torch.Size": Size,
        "torch.device": Device,
        "_codecs.encode": _encode,
        "builtins.bytearray": _bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch.UntypedStorage": _utils.StorageType("UntypedStorage", _dtype.uint8),
    }
    for dtype in _dtype.ALL_DTYPES:
        names[f"torch.{dtype.name}"] = dtype
        storage_name = _utils.STORAGE_CLASS_NAMES[dtype.name]
        names[f"torch.{storage_name}"] = _utils.StorageType(storage_name, dtype)
    for function in (_utils._rebuild_tensor, _utils._rebuild_tensor_v2, _utils._rebuild_tensor_v3,
                     _utils._rebuild_parameter, _utils._rebuild_parameter_with_state):
        names[f"torch._utils.{function.__name__}"] = function
    names["torch._tensor._rebuild_from_type_v2"] = _utils._rebuild_from_type_v2
    unsupported = {
        "_rebuild_sparse_tensor": "a sparse tensor", "_rebuild_qtensor": "a quantized tensor",
        "_rebuild_meta_tensor_no_storage": "a tensor on the meta device", "_rebuild_nested_tensor": "a nested tensor",
        "_rebuild_wrapper_subclass": "a tensor subclass without storage",
        "_rebuild_device_tensor_from_numpy": "a tensor of a device without storages",
        "_rebuild_device_tensor_from_cpu_tensor": "a tensor of a device without storages",
    }
    for name, what in unsupported.items():
        names[f"torch._utils.{name}"] = _utils._unsupported(what)
    names["torch.serialization._get_layout"] = _utils._unsupported("a tensor of a non-strided layout")
    return names


_TORCH_GLOBALS = _build_torch_globals()


def torch_globals() -> dict[str, Any]:
    """PyTorch's names in a checkpoint (``"torch._utils._rebuild_tensor_v2"``) -> what minitorch rebuilds them with."""
    return _TORCH_GLOBALS


def _missing_torch_name(module: str, name: str) -> str | None:
    """Why a PyTorch name that PyTorch itself would allow cannot be loaded here (a dtype minitorch lacks), or None."""
    if module == "torch" and name in _TORCH_DTYPES_MINITORCH_LACKS:
        return f"the file holds tensors of dtype torch.{name}, which minitorch does not have"
    if module == "torch" and name in _TORCH_STORAGES_MINITORCH_LACKS:
        return f"the file holds a torch.{name}, whose dtype minitorch does not have"
    return None


# Python 2's names of a few modules and functions, renamed as PyTorch's weights-only unpickler renames
# them (a subset of the standard library's _compat_pickle): the renamed name still has to be allowed.
_IMPORT_MAPPING = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
    "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections", "UserString": "collections",
    "whichdb": "dbm", "StringIO": "io", "cStringIO": "io",
}
_NAME_MAPPING = {
    ("__builtin__", "xrange"): ("builtins", "range"), ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"), ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"), ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"), ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"), ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"),
    ("UserList", "UserList"): ("collections", "UserList"),
    ("UserString", "UserString"): ("collections", "UserString"), ("__builtin__", "basestring"): ("builtins", "str"),
    ("exceptions", "StandardError"): ("builtins", "Exception"), ("UserDict", "UserDict"): ("collections", "UserDict"),
}


# -- names a user adds -------------------------------------------------------------------------------------------
_marked_safe_globals: set = set()


def add_safe_globals(safe_globals: list[Callable | tuple[Callable, str]]) -> None:
    """Allow more names in ``weights_only`` loads: classes or functions, or ``(object, "module.name")`` pairs."""
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals.union(set(safe_globals))


def get_safe_globals() -> list[Callable | tuple[Callable, str]]:
    return list(_marked_safe_globals)


def clear_safe_globals() -> None:
    global _marked_safe_globals
    _marked_safe_globals = set()


class safe_globals:
    """``with safe_globals([MyClass]): minitorch.load(f)``: allow names for the loads inside the block only."""

    def __init__(self, safe_globals: list[Callable | tuple[Callable, str]]):
        self.safe_globals = safe_globals

    def __enter__(self):
        global _marked_safe_globals
        self._added = set(self.safe_globals) - _marked_safe_globals
        _marked_safe_globals = _marked_safe_globals | self._added

    def __exit__(self, *exc_info):
        global _marked_safe_globals
        _marked_safe_globals = _marked_safe_globals - self._added


def _user_allowed_globals() -> dict[str, Any]:
    allowed = {}
    for entry in _marked_safe_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(
                    f"Expected tuple of length 2 (global, str of callable full path), but got tuple of length: "
                    f"{len(entry)}"
                )
            if type(entry[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: "
                                f"{type(entry[1])}")
            allowed[entry[1]] = entry[0]
        else:
            allowed[f"{entry.__module__}.{entry.__qualname__}"] = entry
    return allowed


def _parameter_class():
    return Parameter


class _InstructionTable(dict):
    """The unpickler's instruction table: an instruction not in it is refused by name."""

    def __missing__(self, code: int):
        raise WeightsOnlyError(f"Unsupported operand {code}")


# -- the unpickler -------------------------------------------------------------------------------------------------
_CONTAINER_CLASSES = (OrderedDict, Counter, set)


class Unpickler(pickle._Unpickler):
    """An unpickler that builds only what ``torch_globals()`` and the user allow.

    ``Unpickler(file, persistent_load).load()`` returns the object.

    ``persistent_load(pid)`` answers the storage references (``('storage', ...)`` tuples);
    any other persistent id is refused.
    """

    def __init__(self, file, persistent_load: Callable[[tuple], Any]):
        super().__init__(file, encoding="utf-8")
        self._load_storage = persistent_load
        self._user_allowed = _user_allowed_globals()
        self._allowed_values = {id(value) for value in _TORCH_GLOBALS.values()} | {
            id(value) for value in self._user_allowed.values()}

    # GLOBAL and STACK_GLOBAL: the only way a pickle names a function or class.
    def find_class(self, module: str, name: str):
        if (module, name) in _NAME_MAPPING:  # Python 2 names, as PyTorch renames them
            module, name = _NAME_MAPPING[(module, name)]
        elif module in _IMPORT_MAPPING:
            module = _IMPORT_MAPPING[module]
        full_path = f"{module}.{name}"
        if module in _blocklisted_modules:
            raise WeightsOnlyError(f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
        if full_path in _TORCH_GLOBALS:
            return _TORCH_GLOBALS[full_path]
        if full_path in self._user_allowed:
            return self._user_allowed[full_path]
        missing = _missing_torch_name(module, name)
        if missing is not None:
            raise _utils.CheckpointError(missing)
        shown = full_path[len("builtins."):] if full_path.startswith("builtins.") else full_path
        raise WeightsOnlyError(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
            f"`torch.serialization.add_safe_globals([{shown}])` or the `torch.serialization.safe_globals([{shown}])` "
            "context manager to allowlist this global if you trust this class/function."
        )

    def persistent_load(self, pid):
        if type(pid) is not tuple or not pid or pid[0] not in ("storage", b"storage"):
            raise WeightsOnlyError(f"Only persistent_load of storage is allowed, but got {pid!r:.80}")
        return self._load_storage(pid)

    # -- the instructions that act on objects, restricted ----------------------------------------------------------
    def load_reduce(self):
        args = self.stack.pop()
        function = self.stack[-1]
        if id(function) not in self._allowed_values or not callable(function):
            raise WeightsOnlyError(f"Trying to call reduce for unrecognized function {function!r:.80}")
        if not isinstance(args, tuple):
            raise pickle.UnpicklingError("REDUCE expects a tuple of arguments")
        try:
            self.stack[-1] = function(*args)
        except (_utils.CheckpointError, pickle.UnpicklingError):
            raise
        except Exception as error:  # an allowed function refused its arguments (torch.device("nowhere"))
            name = getattr(function, "__qualname__", type(function).__name__)
            raise _utils.CheckpointError(f"{name}{args!r:.80} failed: {type(error).__name__}: {error}") from error

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        allowed = cls in _CONTAINER_CLASSES or id(cls) in {id(value) for value in self._user_allowed.values()}
        if not allowed or not isinstance(cls, type):
            raise WeightsOnlyError(
                f"Can only create new object for nn.Parameter or classes allowlisted via `add_safe_globals` but got "
                f"{cls!r:.80}"
            )
        self.append(cls.__new__(cls, *args))

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        user_types = {id(value) for value in self._user_allowed.values()}
        if type(inst) is OrderedDict:
            if not isinstance(state, dict):
                raise WeightsOnlyError("BUILD of an OrderedDict expects a dict")
            inst.__dict__.update(state)
        elif type(inst) is _parameter_class():
            _utils._set_obj_state(inst, state)
        elif id(type(inst)) in user_types:
            self._build_allowed(inst, state)
        else:
            raise WeightsOnlyError(
                f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, but got "
                f"{type(inst)}"
            )

    def _build_allowed(self, inst, state) -> None:
        setstate = getattr(inst, "__setstate__", None)
        if setstate is not None:
            setstate(state)
            return
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        if state:
            inst.__dict__.update(state)
        if slotstate:
            for key, value in slotstate.items():
                setattr(inst, key, value)

    def load_append(self):
        item = self.stack.pop()
        if type(self.stack[-1]) is not list:
            raise WeightsOnlyError(f"Can only append to lists, but got {type(self.stack[-1])}")
        self.stack[-1].append(item)

    def load_appends(self):
        items = self.pop_mark()
        if type(self.stack[-1]) is not list:
            raise WeightsOnlyError(f"Can only extend lists, but got {type(self.stack[-1])}")
        self.stack[-1].extend(items)

    def load_setitem(self):
        value, key = self.stack.pop(), self.stack.pop()
        self._check_set_item_target("SETITEM")
        self.stack[-1][key] = value

    def load_setitems(self):
        items = self.pop_mark()
        self._check_set_item_target("SETITEMS")
        target = self.stack[-1]
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def load_additems(self):
        items = self.pop_mark()
        if type(self.stack[-1]) is not set:
            raise WeightsOnlyError(f"Can only add items to sets, but got {type(self.stack[-1])}")
        self.stack[-1].update(items)

    def _check_set_item_target(self, opcode: str) -> None:
        if type(self.stack[-1]) not in (dict, OrderedDict, Counter):
            raise WeightsOnlyError(
                f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, but got "
                f"{type(self.stack[-1])}"
            )

    # The instruction table: the data-only instructions of every protocol, and the restricted ones above.
    # Left out: INST, OBJ, NEWOBJ_EX, EXT1/2/4 (other ways to reach classes), PERSID (text ids), the
    # protocol-0 text instructions, and out-of-band buffers.
    _DATA_ONLY = (
        pickle.PROTO, pickle.FRAME, pickle.STOP, pickle.MARK, pickle.POP, pickle.POP_MARK, pickle.DUP,
        pickle.NONE, pickle.NEWTRUE, pickle.NEWFALSE, pickle.BININT, pickle.BININT1, pickle.BININT2, pickle.LONG1,
        pickle.LONG4, pickle.BINFLOAT, pickle.BINUNICODE, pickle.SHORT_BINUNICODE, pickle.BINUNICODE8,
        pickle.SHORT_BINSTRING, pickle.BINSTRING, pickle.BINBYTES, pickle.SHORT_BINBYTES, pickle.BINBYTES8,
        pickle.EMPTY_TUPLE, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3, pickle.EMPTY_LIST,
        pickle.LIST, pickle.EMPTY_DICT, pickle.DICT, pickle.EMPTY_SET, pickle.FROZENSET, pickle.GLOBAL,
        pickle.STACK_GLOBAL, pickle.BINPERSID, pickle.BINGET, pickle.LONG_BINGET, pickle.BINPUT, pickle.LONG_BINPUT,
        pickle.MEMOIZE,
    )
    dispatch = _InstructionTable({code[0]: pickle._Unpickler.dispatch[code[0]] for code in _DATA_ONLY})
    dispatch.update({
        pickle.REDUCE[0]: load_reduce, pickle.NEWOBJ[0]: load_newobj, pickle.BUILD[0]: load_build,
        pickle.APPEND[0]: load_append, pickle.APPENDS[0]: load_appends, pickle.SETITEM[0]: load_setitem,
        pickle.SETITEMS[0]: load_setitems, pickle.ADDITEMS[0]: load_additems,
    })
