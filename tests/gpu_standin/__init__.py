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
  (reading a value with ``item()``, ``bool()``, ``float()``, ``int()``, ``tolist()``).

``install()`` puts it in ``sys.modules["cupy"]`` and registers minitorch's real CuPy backend for "cuda",
so minitorch imports it exactly where it would import CuPy. ``make test-gpu-standin`` runs the op table on it.
"""

from __future__ import annotations

import contextlib
import json
import sys
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
_current_device = [0]
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
    def get(self, stream=None, order="C", out=None):
        counts.device_to_host += 1
        counts.synchronizations += 1  # a copy to the host waits for the device (CuPy's get is synchronous)
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


def asarray(a, dtype=None, order=None, *, blocking=False):
    """A stand-in array from a host array (counted as a copy to the device) or from a stand-in array."""
    if isinstance(a, ndarray):
        return a if dtype is None or a.dtype == np.dtype(dtype) else ndarray(a._host.astype(dtype))
    counts.host_to_device += 1
    return ndarray(np.array(a, dtype=dtype, order=order or "K", copy=True))


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, *, blocking=False):
    if isinstance(obj, ndarray):
        return ndarray(np.array(obj._host, dtype=dtype, copy=copy, order=order, ndmin=ndmin))
    counts.host_to_device += 1
    return ndarray(np.array(obj, dtype=dtype, copy=True, order=order, ndmin=ndmin))


def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    if isinstance(a, ndarray):
        return a.get(order=order)
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


def _cuda_module() -> types.ModuleType:
    cuda_module = types.ModuleType("cupy.cuda")

    class Device:
        def __init__(self, device=None):
            self.id = _current_device[0] if device is None else int(device)
            if not 0 <= self.id < DEVICE_COUNT:
                raise RuntimeError(f"CUDARuntimeError: cudaErrorInvalidDevice: invalid device ordinal {self.id}")
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

        def __eq__(self, other):
            return isinstance(other, Device) and other.id == self.id

        def __hash__(self):
            return hash(self.id)

        def __repr__(self):
            return f"<CUDA Device {self.id}>"

    class Event:
        def __init__(self, block=False, disable_timing=False, interprocess=False):
            self.time = None
            self.done = True

        def record(self, stream=None):
            import time

            self.time = time.perf_counter()

        def synchronize(self):
            counts.synchronizations += 1

    class Stream:
        null = None

        def __init__(self, null=False, non_blocking=False, ptds=False):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            pass

        def synchronize(self):
            counts.synchronizations += 1

        def use(self):
            return self

    def get_elapsed_time(start, end):
        counts.synchronizations += 1
        return (end.time - start.time) * 1000.0

    runtime = types.SimpleNamespace(
        getDeviceCount=lambda: DEVICE_COUNT,
        getDeviceProperties=lambda index: {"name": f"Stand-in GPU {index}".encode(), "totalGlobalMem": 16 << 30,
                                           "major": 9, "minor": 0, "multiProcessorCount": 132},
        getDevice=lambda: _current_device[0],
        setDevice=lambda index: _current_device.__setitem__(0, index),
        deviceSynchronize=lambda: setattr(counts, "synchronizations", counts.synchronizations + 1),
    )
    cuda_module.Device, cuda_module.Event, cuda_module.Stream = Device, Event, Stream
    cuda_module.runtime, cuda_module.get_elapsed_time = runtime, get_elapsed_time
    cuda_module.get_current_stream = lambda device=None: Stream()
    return cuda_module


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
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
