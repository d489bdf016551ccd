"""A stand-in for CuPy, so the GPU code path runs and is checked on a machine without a GPU.

minitorch's GPU path is the same code as its CPU path with CuPy in place of NumPy (``array_module(x)``
picks the module from the array). On a machine without a GPU that path never runs: a fake ``cuda`` that
hands out NumPy arrays would let through exactly the mistakes a real GPU punishes. This module is a
``cupy`` that behaves like the real one where it matters:

* its arrays are their own type (``ndarray``, holding a NumPy array inside) and refuse implicit
  conversion to NumPy, with CuPy's words: ``np.asarray(x)``, ``np.exp(x)`` on a stand-in array raises
  ``TypeError`` unless NumPy dispatches to a function CuPy has (as CuPy's ``__array_function__`` does);
* it offers only the names the real CuPy 14 has: the module's functions, ``linalg``, ``fft``, ``random``,
  the ufuncs and their methods, the array's methods (``cupy_namespace.json``, read from the real
  ``cupy-cuda12x`` wheel; ``tests/test_gpu_standin.py`` keeps the list honest against it);
* it counts what costs on a real GPU: copies host to device, copies device to host, and synchronisations
  (reading a value with ``item()``, ``bool()``, ``float()``, ``int()``, ``tolist()``; a copy the host waits
  for: any copy from ordinary host memory, which CUDA stages, and a blocking one; only ``blocking=False``
  from pinned memory, ``cupyx.empty_pinned``, is not counted);
* ``cupy.cuda`` has CuPy's devices, streams and events with CuPy's rules (a stream is used on its own device,
  an event is recorded on its device's streams, elapsed time needs two recorded timing events); kernels run at
  once, except on a stream held by ``stalled(stream)``, whose later events never complete (a NCCL collective
  waiting for a rank that never comes): waiting for one raises ``StandInHang`` where a GPU would hang.
  ``nccl.py`` beside it is a recording NCCL communicator whose ranks are threads.

``install()`` puts it in ``sys.modules["cupy"]`` and registers minitorch's real CuPy backend for "cuda",
so minitorch imports it exactly where it would import CuPy. ``make test-gpu-standin`` runs the op table on it.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import types
import weakref
from pathlib import Path

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

NAMES = json.loads((Path(__file__).with_name("cupy_namespace.json")).read_text())
_MODULE_NAMES = set(NAMES["cupy"])
_ARRAY_NAMES = set(NAMES["cupy.ndarray"])
DEVICE_COUNT = 2

IMPLICIT_CONVERSION = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a "
                       "NumPy array explicitly.")


class Counts:
    """What a real GPU would make costly, counted since the last ``reset``."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.host_to_device = 0
        self.device_to_host = 0
        self.synchronizations = 0

    def __repr__(self) -> str:
        return (f"Counts(host_to_device={self.host_to_device}, device_to_host={self.device_to_host}, "
                f"synchronizations={self.synchronizations})")


counts = Counts()


class _CurrentDevice(threading.local):
    """CUDA's current device, one per host thread (``cudaSetDevice`` is per thread): ``_current_device[0]``."""

    def __init__(self):
        self.index = 0

    def __getitem__(self, position: int) -> int:
        return self.index

    def __setitem__(self, position: int, index: int) -> None:
        self.index = index


_current_device = _CurrentDevice()
_live = weakref.WeakValueDictionary()  # id of an array that owns its memory -> its stand-in wrapper


class _MemoryPool:
    """``cupy.get_default_memory_pool()``: the bytes of the live arrays that own their memory (one pool for all
    the stand-in's devices; freed memory is not kept, so reserved equals used)."""

    def used_bytes(self) -> int:
        return sum(array._host.nbytes for array in list(_live.values()))

    def total_bytes(self) -> int:
        return self.used_bytes()

    def free_all_blocks(self) -> None:
        pass


_pool = _MemoryPool()


# -- the array ----------------------------------------------------------------------------------------------
def _unwrap(value):
    """Stand-in arrays to the NumPy arrays inside (recursively in tuples, lists and dicts); a NumPy array
    among a stand-in function's arguments is refused, as CuPy refuses it."""
    if isinstance(value, ndarray):
        return value._host
    if isinstance(value, np.ndarray) and value.ndim > 0:
        raise TypeError(f"Unsupported type {type(value)}")
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def _wrap(value):
    """NumPy results back into stand-in arrays (a NumPy scalar becomes a 0-d array, as CuPy returns)."""
    if isinstance(value, np.ndarray):
        return ndarray(value)
    if isinstance(value, np.generic):
        return ndarray(np.asarray(value))
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple (eigh, qr, svd results)
        return type(value)(*(_wrap(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_wrap(v) for v in value)
    return value


class ndarray(NDArrayOperatorsMixin):  # noqa: N801 - CuPy's name
    """An array "on the GPU": a NumPy array inside that only the stand-in's functions may touch."""

    __array_priority__ = 100

    def __init__(self, host: np.ndarray):
        self._host = host
        if host.base is None:
            _live[id(host)] = self

    # -- what CuPy refuses ----------------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError(IMPLICIT_CONVERSION)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc.__name__ not in _MODULE_NAMES or method not in ("__call__", *NAMES["ufunc methods"]):
            return NotImplemented  # NumPy then raises its TypeError, as with a CuPy array
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_unwrap(o) for o in out)
        result = getattr(ufunc, method)(*_unwrap(inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types_, args, kwargs):
        if func.__name__ not in _MODULE_NAMES:
            raise TypeError(f"no implementation found for 'numpy.{func.__name__}' on types that implement "
                            "__array_function__: [<class 'cupy.ndarray'>] (CuPy has no such function)")
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    # -- reading values: a synchronisation and a copy to the host -----------------------------------------------
    def get(self, stream=None, order="C", out=None, blocking=True):
        """A copy on the host; the host waits for it unless ``blocking=False`` into a pinned ``out``."""
        counts.device_to_host += 1
        if blocking or out is None or not _is_pinned(out):
            counts.synchronizations += 1
        if out is not None:
            out[...] = self._host
            return out
        return np.array(self._host, order=order, copy=True)

    def _read(self):
        counts.synchronizations += 1
        counts.device_to_host += 1
        return self._host

    def item(self, *args):
        return self._read().item(*args)

    def tolist(self):
        return self._read().tolist()

    def __bool__(self) -> bool:
        return bool(self._read())

    def __float__(self) -> float:
        return float(self._read())

    def __int__(self) -> int:
        return int(self._read())

    def __index__(self) -> int:
        if self._host.dtype.kind not in "iub" or self._host.ndim:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self._read())

    def __complex__(self) -> complex:
        return complex(self._read())

    def __repr__(self) -> str:
        return repr(self._read()).replace("array(", "array(", 1)

    def __str__(self) -> str:
        return str(self._read())

    def __format__(self, spec: str) -> str:
        return format(self._read(), spec)

    def __len__(self) -> int:
        return len(self._host)

    def __iter__(self):
        if self._host.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (ndarray(row) if isinstance(row, np.ndarray) else ndarray(np.asarray(row)) for row in self._host)

    def __hash__(self):
        raise TypeError("unhashable type: 'cupy.ndarray'")

    # -- indexing ---------------------------------------------------------------------------------------------
    def __getitem__(self, key):
        return _wrap(self._host[_index_key(key)])

    def __setitem__(self, key, value):
        if isinstance(value, np.ndarray) and value.ndim > 0:  # CuPy copies a host array over, once
            counts.host_to_device += 1
            self._host[_index_key(key)] = value
            return
        self._host[_index_key(key)] = _unwrap(value)

    # -- everything else an array has: the methods and attributes CuPy's arrays have ---------------------------
    def __getattr__(self, name):
        if name.startswith("__") or name not in _ARRAY_NAMES:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
        value = getattr(self._host, name)
        if callable(value):
            def method(*args, **kwargs):
                return _wrap(value(*_unwrap(args), **_unwrap(kwargs)))
            return method
        if name == "flags":
            return value
        return _wrap(value)

    @property
    def shape(self):
        return self._host.shape

    @shape.setter
    def shape(self, value):
        self._host.shape = value

    @property
    def dtype(self):
        return self._host.dtype

    @property
    def ndim(self):
        return self._host.ndim

    @property
    def size(self):
        return self._host.size

    @property
    def strides(self):
        return self._host.strides

    @property
    def itemsize(self):
        return self._host.itemsize

    @property
    def nbytes(self):
        return self._host.nbytes

    @property
    def data(self):
        """CuPy's ``MemoryPointer``: ``ptr`` is the address of the first element (views share the memory)."""
        return types.SimpleNamespace(ptr=self._host.__array_interface__["data"][0])

    @property
    def device(self):
        return cuda.Device(_current_device[0])

    @property
    def base(self):
        return None if self._host.base is None else ndarray(self._host.base) if isinstance(
            self._host.base, np.ndarray) else self._host.base

    def __copy__(self):
        return ndarray(self._host.copy())

    def __deepcopy__(self, memo):
        return ndarray(self._host.copy())

    def __reduce__(self):
        raise TypeError("a stand-in GPU array cannot be pickled: copy it to the host first (.get())")


def _index_key(key):
    """An index for the array inside: stand-in arrays unwrapped; a NumPy array is allowed (CuPy copies it over)."""
    if isinstance(key, ndarray):
        return key._host
    if isinstance(key, tuple):
        return tuple(k._host if isinstance(k, ndarray) else k for k in key)
    return key


# -- the module -----------------------------------------------------------------------------------------------
class _UFunc:
    """A CuPy ufunc: called on stand-in arrays, with the methods CuPy's ufuncs have (``at``, ``reduce``...)."""

    def __init__(self, numpy_ufunc):
        self._ufunc = numpy_ufunc
        self.__name__ = numpy_ufunc.__name__
        self.nin, self.nout = numpy_ufunc.nin, numpy_ufunc.nout

    def __call__(self, *args, **kwargs):
        return self._call("__call__", args, kwargs)

    def _call(self, method, args, kwargs):
        _refuse_host_arrays(args)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = _unwrap(out)
        result = getattr(self._ufunc, method)(*_unwrap(args), **_unwrap({k: v for k, v in kwargs.items()
                                                                          if k != "out"}),
                                              **({"out": kwargs["out"]} if out is not None else {}))
        return out if out is not None and method == "__call__" else _wrap(result)

    def __getattr__(self, name):
        if name not in NAMES["ufunc methods"]:
            raise AttributeError(f"'cupy._core._kernel.ufunc' object has no attribute '{name}'")
        return lambda *args, **kwargs: self._call(name, args, kwargs)

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}'>"


def _refuse_host_arrays(args) -> None:
    for arg in args:
        if isinstance(arg, np.ndarray) and arg.ndim > 0:
            raise TypeError(f"Unsupported type {type(arg)}")


def _function(numpy_function, name: str):
    def function(*args, **kwargs):
        _refuse_host_arrays(args)
        return _wrap(numpy_function(*_unwrap(args), **_unwrap(kwargs)))

    function.__name__ = name
    return function


def _module(name: str, numpy_namespace, names: list[str], extra: dict) -> types.ModuleType:
    module = types.ModuleType(name)
    for attribute in names:
        if attribute in extra:
            setattr(module, attribute, extra[attribute])
            continue
        value = getattr(numpy_namespace, attribute, None)
        if isinstance(value, np.ufunc):
            setattr(module, attribute, _UFunc(value))
        elif callable(value) and not isinstance(value, type):
            setattr(module, attribute, _function(value, attribute))
        elif value is not None:
            setattr(module, attribute, value)  # dtypes, constants (float32, pi, newaxis...)
    return module


def _count_host_to_device(source, blocking: bool) -> None:
    """A copy to the device; the host waits for it unless it is asynchronous (``blocking=False``) from pinned
    memory: from pageable memory CUDA stages the copy and may synchronise with the stream."""
    counts.host_to_device += 1
    if blocking or not (isinstance(source, np.ndarray) and _is_pinned(source)):
        counts.synchronizations += 1


def asarray(a, dtype=None, order=None, *, copy=None, blocking=False):
    """A stand-in array from a host array (counted as a copy to the device) or from a stand-in array."""
    if isinstance(a, ndarray):
        return a if dtype is None or a.dtype == np.dtype(dtype) else ndarray(a._host.astype(dtype))
    _count_host_to_device(a, blocking)
    return ndarray(np.array(a, dtype=dtype, order=order or "K", copy=True))


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    if isinstance(obj, ndarray):
        return ndarray(np.array(obj._host, dtype=dtype, copy=copy, order=order, ndmin=ndmin))
    _count_host_to_device(obj, blocking)
    return ndarray(np.array(obj, dtype=dtype, copy=True, order=order, ndmin=ndmin))


def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    if isinstance(a, ndarray):
        return a.get(stream, order, out, blocking)
    return np.asarray(a, order=order)


def get_array_module(*args):
    return cupy if any(isinstance(a, ndarray) for a in args) else np


def ascontiguousarray(a, dtype=None):
    _refuse_host_arrays([a])
    return ndarray(np.ascontiguousarray(_unwrap(a), dtype=dtype))


class _Generator:
    """``cupy.random.Generator``: NumPy's generator whose draws land on the device (no copy counted)."""

    def __init__(self, seed=None):
        self._generator = np.random.default_rng(seed)

    def __getattr__(self, name):
        method = getattr(self._generator, name)
        return lambda *args, **kwargs: _wrap(method(*_unwrap(args), **_unwrap(kwargs)))


def _default_rng(seed=None):
    return _Generator(seed)


class CUDARuntimeError(RuntimeError):
    """CuPy's ``cupy.cuda.runtime.CUDARuntimeError``."""


class StandInHang(RuntimeError):
    """Waiting for work that never finishes: on a real GPU the host would block here forever."""


_MEMORY_TYPE = {"unregistered": 0, "host": 1, "device": 2}
_pinned = weakref.WeakValueDictionary()  # address of a pinned buffer -> the NumPy array that owns it
_current_streams: dict[int, object] = {}  # device -> the stream made current with use() or ``with``
_handles = iter(range(0x7000, 1 << 62, 16))  # raw handles (``ptr``) of streams and events


def _memory_type(ptr: int) -> int:
    """``cudaPointerGetAttributes(ptr).type``: host for pinned buffers, device for arrays, else unregistered."""
    for address, owner in list(_pinned.items()):
        if address <= ptr < address + max(owner.nbytes, 1):
            return _MEMORY_TYPE["host"]
    for array in list(_live.values()):
        address = array._host.__array_interface__["data"][0]
        if address <= ptr < address + max(array._host.nbytes, 1):
            return _MEMORY_TYPE["device"]
    return _MEMORY_TYPE["unregistered"]


def _is_pinned(array: np.ndarray) -> bool:
    return _memory_type(array.__array_interface__["data"][0]) == _MEMORY_TYPE["host"]


def _cuda_module() -> types.ModuleType:
    """``cupy.cuda``: devices, streams, events and the runtime calls minitorch uses (only names CuPy 14 has).

    The stand-in runs every kernel at once, so queued work is always done, except on a stream stalled with
    ``stalled(stream)``: a kernel that never ends there (a NCCL collective waiting for a rank that never comes).
    Waiting for it raises ``StandInHang`` where a real GPU would block the host forever.
    """
    cuda_module = types.ModuleType("cupy.cuda")

    class Device:
        def __init__(self, device=None):
            self.id = _current_device[0] if device is None else int(device)
            if not 0 <= self.id < DEVICE_COUNT:
                raise CUDARuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {self.id}")
            self._previous = []

        def __enter__(self):
            self._previous.append(_current_device[0])
            _current_device[0] = self.id
            return self

        def __exit__(self, *exc_info):
            _current_device[0] = self._previous.pop()

        def use(self):
            _current_device[0] = self.id

        def synchronize(self):
            counts.synchronizations += 1
            if any(s.device_id == self.id and s._stalled for s in _current_streams.values()):
                raise StandInHang(f"device {self.id} has a kernel that never finishes")

        def __eq__(self, other):
            return isinstance(other, Device) and other.id == self.id

        def __hash__(self):
            return hash(self.id)

        def __repr__(self):
            return f"<CUDA Device {self.id}>"

    class Stream:
        """A queue of work on one device (``device_id`` -1 for the null stream, which serves the current one)."""

        null = None

        def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
            if null or ptds:
                self.ptr, self.device_id = (0 if null else 2), -1
            else:
                self.ptr, self.device_id = next(_handles), _current_device[0]
            self.priority = 0 if priority is None else priority
            self._non_blocking = non_blocking
            self._stalled = False
            self._previous = []

        def _check_device(self):
            if self.device_id not in (-1, _current_device[0]):  # CuPy's check_stream_device_match
                raise RuntimeError(f"the current device is {_current_device[0]}, but the stream was created on "
                                   f"device {self.device_id}")

        @property
        def done(self) -> bool:
            return not self._stalled

        def is_non_blocking(self) -> bool:
            return self._non_blocking

        def synchronize(self):
            counts.synchronizations += 1
            if self._stalled:
                raise StandInHang("stream.synchronize() waits for a kernel that never finishes")

        def use(self):
            self._check_device()
            _current_streams[_current_device[0]] = self
            return self

        def __enter__(self):
            self._check_device()
            self._previous.append((_current_device[0], _current_streams.get(_current_device[0])))
            _current_streams[_current_device[0]] = self
            return self

        def __exit__(self, *exc_info):
            device_id, previous = self._previous.pop()
            if previous is None:
                _current_streams.pop(device_id, None)
            else:
                _current_streams[device_id] = previous

        def record(self, event=None):
            event = Event() if event is None else event
            event.record(self)
            return event

        def wait_event(self, event):
            self._stalled = self._stalled or event._stalled  # what follows on this stream waits for the event

        def __eq__(self, other):
            return isinstance(other, Stream) and (other.ptr, other.device_id) == (self.ptr, self.device_id)

        def __hash__(self):
            return hash((self.ptr, self.device_id))

        def __repr__(self):
            return f"<Stream {self.ptr} (device {self.device_id})>"

    Stream.null = Stream(null=True)
    Stream.ptds = Stream(ptds=True)

    def get_current_stream(device_id=-1):
        return _current_streams.get(_current_device[0] if device_id == -1 else device_id, Stream.null)

    class Event:
        """A marker in a stream; made on the current device and recordable only on that device's streams."""

        def __init__(self, block=False, disable_timing=False, interprocess=False):
            self.ptr, self.device_id = next(_handles), _current_device[0]
            self._disable_timing = disable_timing
            self._time = None
            self._stalled = False

        def record(self, stream=None):
            stream = get_current_stream() if stream is None else stream
            device_id = _current_device[0] if stream.device_id == -1 else stream.device_id
            if device_id != self.device_id:  # cudaEventRecord: event and stream on different devices
                raise CUDARuntimeError("cudaErrorInvalidResourceHandle: invalid resource handle")
            import time

            self._time, self._stalled = time.perf_counter(), stream._stalled

        @property
        def done(self) -> bool:
            return not self._stalled

        def synchronize(self):
            counts.synchronizations += 1
            if self._stalled:
                raise StandInHang("event.synchronize() waits for a kernel that never finishes")

    def get_elapsed_time(start, end):
        if start._time is None or end._time is None or start._disable_timing or end._disable_timing \
                or start.device_id != end.device_id:
            raise CUDARuntimeError("cudaErrorInvalidResourceHandle: invalid resource handle")
        if start._stalled or end._stalled:
            raise CUDARuntimeError("cudaErrorNotReady: device not ready")
        return (end._time - start._time) * 1000.0

    def _synchronize_all():
        counts.synchronizations += 1

    runtime = types.SimpleNamespace(
        getDeviceCount=lambda: DEVICE_COUNT,
        getDeviceProperties=lambda index: {"name": f"Stand-in GPU {index}".encode(), "totalGlobalMem": 16 << 30,
                                           "major": 9, "minor": 0, "multiProcessorCount": 132},
        getDevice=lambda: _current_device[0],
        setDevice=lambda index: _current_device.__setitem__(0, index),
        deviceSynchronize=_synchronize_all,
        pointerGetMemoryType=_memory_type,
        memoryTypeUnregistered=_MEMORY_TYPE["unregistered"], memoryTypeHost=_MEMORY_TYPE["host"],
        memoryTypeDevice=_MEMORY_TYPE["device"],
        CUDARuntimeError=CUDARuntimeError,
    )
    cuda_module.Device, cuda_module.Event, cuda_module.Stream = Device, Event, Stream
    cuda_module.runtime, cuda_module.get_elapsed_time = runtime, get_elapsed_time
    cuda_module.get_current_stream = get_current_stream
    return cuda_module


@contextlib.contextmanager
def stalled(stream):
    """Inside the block, ``stream`` holds a kernel that never finishes (events recorded on it never complete)."""
    stream._stalled = True
    try:
        yield stream
    finally:
        stream._stalled = False


# -- pinned (page-locked) host memory: cupyx.empty_pinned & co. return NumPy arrays the stand-in remembers --------
def empty_pinned(shape, dtype=float, order="C"):
    array = np.empty(shape, dtype=dtype, order=order)
    _pinned[array.__array_interface__["data"][0]] = array
    return array


def zeros_pinned(shape, dtype=float, order="C"):
    array = empty_pinned(shape, dtype, order)
    array[...] = 0
    return array


def empty_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    shape = a.shape if shape is None else shape
    return empty_pinned(shape, a.dtype if dtype is None else dtype, "F" if order == "F" else "C")


def zeros_like_pinned(a, dtype=None, order="K", subok=None, shape=None):
    array = empty_like_pinned(a, dtype, order, subok, shape)
    array[...] = 0
    return array


def _elementwise_kernel(*args, **kwargs):
    """``cupy.ElementwiseKernel``: CuPy's rules around the body, the body's C interpreted with NumPy (the subset and
    the reasons are in grading/library/elementwise.py, which chapter 1's stand-in shares)."""
    from grading.library.elementwise import ElementwiseKernel

    return ElementwiseKernel(*args, wrap=ndarray, **kwargs)


def _build():
    extra = {"asarray": asarray, "array": array, "asnumpy": asnumpy, "get_array_module": get_array_module,
             "ndarray": ndarray, "ascontiguousarray": ascontiguousarray,
             "get_default_memory_pool": lambda: _pool, "ElementwiseKernel": _elementwise_kernel}
    module = _module("cupy", np, NAMES["cupy"], extra)
    module.linalg = _module("cupy.linalg", np.linalg, NAMES["cupy.linalg"], {})
    module.fft = _module("cupy.fft", np.fft, NAMES["cupy.fft"], {})
    module.random = _module("cupy.random", np.random, NAMES["cupy.random"], {"default_rng": _default_rng})
    module.cuda = _cuda_module()
    module.lib = types.ModuleType("cupy.lib")
    module.lib.stride_tricks = _module("cupy.lib.stride_tricks", np.lib.stride_tricks,
                                       ["as_strided", "sliding_window_view"], {})
    module.__version__ = NAMES["version"]
    module.__file__ = __file__
    module.counts = counts
    return module


def _scatter(numpy_ufunc):
    def scatter(a, slices, value):  # cupyx.scatter_add & co.: a[slices] op= value, repeated indices accumulating
        numpy_ufunc.at(_unwrap(a), _index_key(slices), _unwrap(value))

    return scatter


def _build_cupyx() -> types.ModuleType:
    import scipy.linalg
    import scipy.special

    module = types.ModuleType("cupyx")
    module.scatter_add, module.scatter_max, module.scatter_min = (_scatter(np.add), _scatter(np.maximum),
                                                                  _scatter(np.minimum))
    module.empty_pinned, module.zeros_pinned = empty_pinned, zeros_pinned
    module.empty_like_pinned, module.zeros_like_pinned = empty_like_pinned, zeros_like_pinned
    module.scipy = types.ModuleType("cupyx.scipy")
    module.scipy.special = _module("cupyx.scipy.special", scipy.special, NAMES["cupyx.scipy.special"], {})
    module.scipy.linalg = _module("cupyx.scipy.linalg", scipy.linalg, NAMES["cupyx.scipy.linalg"], {})
    return module


cupy = _build()
cupyx = _build_cupyx()
cuda = cupy.cuda


@contextlib.contextmanager
def installed():
    """``import cupy`` gives the stand-in, and minitorch's "cuda" device uses it, inside the block."""
    from minitorch import _device

    modules = {"cupy": cupy, "cupy.cuda": cupy.cuda, "cupy.linalg": cupy.linalg, "cupy.fft": cupy.fft,
               "cupy.random": cupy.random, "cupy.lib": cupy.lib, "cupy.lib.stride_tricks": cupy.lib.stride_tricks,
               "cupyx": cupyx, "cupyx.scipy": cupyx.scipy, "cupyx.scipy.special": cupyx.scipy.special,
               "cupyx.scipy.linalg": cupyx.scipy.linalg}
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    previous = _device.register_backend("cuda", _device.CupyBackend())
    try:
        yield cupy
    finally:
        _device.register_backend("cuda", previous)
        _current_streams.clear()  # no stream made current inside the block outlives it
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
