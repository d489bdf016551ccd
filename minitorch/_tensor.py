"""The Tensor: an array, its dtype and device, and the fields autograd needs.

A ``Tensor`` is deliberately thin. It holds

* ``_data``: the array with the numbers (``numpy.ndarray`` on the CPU, ``cupy.ndarray`` on a GPU),
* ``_device``: where that array lives,
* autograd's fields: ``requires_grad``, ``grad``, ``grad_fn`` (the node that made it) and a
  version counter that in-place ops bump, so backward can tell when a saved tensor changed.

Every operator method is a one-line call into ``minitorch.ops``, where each op's forward
and backward sit side by side. Reading this file tells you *what* a tensor can do; reading
``ops/`` tells you *how*.

The methods are grouped as PyTorch's documentation groups the operations (``torch``'s
"Pointwise Ops", "Comparison Ops", "Reduction Ops", "Other Operations", "BLAS and LAPACK
Operations", "Indexing, Slicing, Joining, Mutating Ops", "Creation Ops"), after what a tensor is,
autograd and conversions; the pointwise ops follow the files of ``ops/pointwise/``. Each section
starts with a ``# --`` comment naming the module that implements it. An in-place method
(``log_``) follows its out-of-place twin (``log``), as in PyTorch's reference.
"""

from __future__ import annotations

import builtins
import copy as copy_module
import functools
import inspect
import warnings

import numpy as np

from . import _arguments, _conjugation, _creation, _dtype, _sparse_coo, _tensor_base
from ._device import CPU, canonical, device as _device_type
from ._dlpack import to_dlpack
from ._memory_format import (
    contiguous_format as _contiguous_format,
    contiguous_strides as _contiguous_strides,
    preserve_format as _preserve_format,
    strided as _strided,
)
from ._shapes import wrap_dim as _wrap_dim
from ._tensor_base import Size, TensorBase, register_tensor_class
from ._tensor_str import tensor_repr
from .autograd import backward as _autograd_backward
from .autograd.function import _RemovableHandle, leaf_accumulator as _leaf_accumulator
from .autograd.grad_mode import (
    InferenceVersionCounter as _InferenceVersionCounter,
    is_inference_mode_enabled as _is_inference_mode_enabled,
)
from .autograd.hooks import add_retain_grad_hook, register_tensor_hook
from .ops import (
    conversion,
    indexing,
    inplace,
    linalg,
    memory_format as memory_format_ops,
    nn_ops,
    pointwise,
    reduction,
    shape as shape_ops,
    sorting,
)
from .ops._util import sizes_given
from .storage import storage_offset_of, typed_storage_of, untyped_storage_of


def numpy_names(method):
    """Decorator: ``method`` also takes NumPy's names for ``dim``, ``keepdim`` and ``other`` (``x.sum(axis=0,
    keepdims=True)``, ``x.add(x2=y)``), as PyTorch's argument parser does for every method."""
    aliases = _arguments.aliases_for(inspect.signature(method), ("axis", "keepdims", "x2"))
    name = method.__name__

    @functools.wraps(method)
    def with_numpy_names(*args, **kwargs):
        if not aliases.keys().isdisjoint(kwargs):  # a NumPy name was given (``axis=``, ``x2=``)
            _arguments.rename_aliases(name, kwargs, aliases)
        return method(*args, **kwargs)

    return with_numpy_names



def _comparable(other) -> bool:
    """Whether ``tensor == other`` compares elements: a tensor, a number or an array (not None, a str, a list)."""
    return isinstance(other, (TensorBase, int, float, complex, np.generic, np.ndarray))

class Tensor(TensorBase):
    """A multi-dimensional array that can record the operations applied to it.

        >>> import minitorch
        >>> x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> y = (x * x).sum()
        >>> y.backward()
        >>> x.grad
        tensor([2., 4., 6.])
    """

    # The fields. ``_make`` sets them (the one place); a view also gets ``_base_history`` and
    # ``_view_made_without_grad`` where it is made (autograd/function.py, ops/copy_slices.py).
    __slots__ = (
        "_data", "_device", "_requires_grad", "_grad", "grad_fn", "_output_nr", "_version_counter", "_base",
        "_base_history", "_view_made_without_grad", "_retains_grad", "_backward_hooks", "_post_accumulate_hooks",
        "_accumulator_ref", "__weakref__",
        "__dict__",  # a learner's own attributes (fastai's ``x.g = ...``), as a PyTorch tensor allows; empty until used
    )
    __array_priority__ = 1000  # NumPy defers to Tensor's operators: ndarray + Tensor -> Tensor
    __module__ = "minitorch"  # where a learner finds it: type(x) is <class 'minitorch.Tensor'> (torch.Tensor's rule)

    # -- construction --------------------------------------------------------------------------------------------------
    def __new__(cls, *args, **kwargs):
        """``Tensor(data)`` copies data as float32; ``Tensor(2, 3)`` makes an uninitialised 2x3 tensor."""
        device = kwargs.pop("device", None)
        if len(args) == 1 and not isinstance(args[0], (builtins.int, np.integer)):
            data = args[0]
            if isinstance(data, Tensor):
                data = data._data
            array = np.array(data, dtype=np.float32) if not hasattr(data, "__cuda_array_interface__") else data
        else:
            sizes = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            array = np.empty(tuple(builtins.int(s) for s in sizes), dtype=_dtype.get_default_dtype().numpy_dtype)
        target = canonical(_device_type(device)) if device is not None else CPU
        if target.type != "cpu":
            array = target.backend.to_device(array, target.index)
        return Tensor._make(array, target, cls=cls)

    def __init__(self, *args, **kwargs):
        pass

    @staticmethod
    def _make(data, device=None, requires_grad=False, grad_fn=None, output_nr=0, version_counter=None, *, cls=None):
        """Wrap an array without copying it: the constructor every tensor goes through (``cls``: a subclass's)."""
        self = object.__new__(cls or Tensor)
        self._data = data  # the numbers: a NumPy array on the CPU, a CuPy array on a GPU
        self._device = CPU if device is None else device
        self._requires_grad = requires_grad
        self._grad = None
        self.grad_fn = grad_fn  # the node that made this tensor (None for a leaf)
        self._output_nr = output_nr  # which output of that node it is
        self._version_counter = version_counter if version_counter is not None else _tensor_base.new_version_counter()
        self._base = None  # a view's base; its history when the view's own was recorded: _base_history
        self._retains_grad, self._backward_hooks = False, None  # retain_grad() and tensor hooks (autograd/hooks.py)
        self._post_accumulate_hooks, self._accumulator_ref = None, None  # a leaf's hooks; its AccumulateGrad, weakly
        return self

    # -- what a tensor is (PyTorch's tensor attributes) ----------------------------------------------------------------
    @property
    def _xp(self):
        """The array module (NumPy or CuPy) that computes on this tensor's device."""
        return self._device.backend.array_module

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    @numpy_names
    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return builtins.int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return self._device

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    def get_device(self) -> int:
        return -1 if self._device.type == "cpu" else self._device.index

    def is_floating_point(self) -> bool:
        return _dtype.is_floating(self._data.dtype)

    def is_complex(self) -> bool:
        return False

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return builtins.int(self._data.nbytes)

    def is_contiguous(self, memory_format=_contiguous_format) -> bool:
        if memory_format is _contiguous_format:
            return builtins.bool(self._data.flags.c_contiguous)
        return memory_format_ops.is_contiguous(self, memory_format)  # channels_last... (_memory_format.py)

    @numpy_names
    def stride(self, dim: int | None = None):
        if self._device.type == "meta":  # no memory behind it (_meta.py): the strides it would have, row-major
            strides = _contiguous_strides(self._data.shape)
        else:
            strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    def data_ptr(self) -> int:
        interface = getattr(self._data, "__array_interface__", None) or self._data.__cuda_array_interface__
        return interface["data"][0]

    # -- autograd: requires_grad, grad, backward, hooks (autograd/) ----------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                    "in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
                )
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        if value and self.is_inference() and not _is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        if value and not _dtype.is_floating(self._data.dtype):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._requires_grad = builtins.bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad and self.grad_fn is not None:
            return self  # a computed tensor already requires grad: nothing to change (PyTorch allows this call)
        if requires_grad and not _dtype.is_floating(self._data.dtype):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")  # PyTorch's wording here
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not made by a recorded op: the ones whose ``.grad`` backward fills."""
        return self.grad_fn is None

    @property
    def grad(self):
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
                )
            if value._device != self._device:
                raise RuntimeError(
                    f"assigned grad has data located on {value._device} different from the tensor {self._device}"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype}' to a tensor with grad_dtype "
                    f"'{self.dtype}'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype)."
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                    f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
        self._grad = value

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _version(self) -> int:
        if self.is_inference():
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter[0]

    def is_inference(self) -> bool:
        """Whether this is an inference tensor: made inside ``inference_mode`` (or a view of one). Autograd
        refuses to save it for backward, and it cannot be written in place outside the mode."""
        return type(self._version_counter) is _InferenceVersionCounter

    def _bump_version(self) -> None:
        self._version_counter[0] += 1

    def _grad_accumulator(self):
        return _leaf_accumulator(self)

    def retain_grad(self) -> None:
        """Keep the gradient of this non-leaf tensor in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        add_retain_grad_hook(self)
        self._retains_grad = True

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def register_hook(self, hook):
        """Call ``hook(grad)`` whenever the gradient for this tensor is computed; it may return a new gradient."""
        return register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` on a leaf after its ``.grad`` has been updated."""
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = []
            accumulator = self._accumulator_ref() if self._accumulator_ref is not None else None
            if accumulator is not None:  # (an accumulator made later sees the hooks when it is made)
                accumulator._extras = True  # the engine now calls autograd/_extensions.py for this leaf
        self._post_accumulate_hooks.append(hook)
        return _RemovableHandle(self._post_accumulate_hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
        """Compute the gradient of this tensor with respect to graph leaves and add it into their ``.grad``."""
        _autograd_backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self) -> Tensor:
        """A tensor sharing this one's data, cut out of the graph (``requires_grad=False``)."""
        detached = Tensor._make(self._data, self._device, version_counter=self._version_counter)
        return detached

    def detach_(self) -> Tensor:
        if self._base is not None and self._base.requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    def _detached_copy(self) -> Tensor:
        return Tensor._make(self._data.copy(), self._device)

    @property
    def data(self) -> Tensor:
        """The same numbers, outside the graph: changes to it are not seen by autograd."""
        return Tensor._make(self._data, self._device)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data = value._data
        self._device = value._device

    # -- conversion to Python and NumPy --------------------------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array behind this CPU tensor (shared memory: writing one changes the other)."""
        if force:
            return self._device.backend.to_host(self._data)
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._device.type != "cpu":
            raise TypeError(
                f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                "host memory first."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        return array.copy() if copy else array

    def __array_wrap__(self, array, context=None, return_scalar=False):
        # A NumPy ufunc on a tensor gives a tensor back, as in PyTorch (bool results as uint8, PyTorch's choice).
        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return Tensor._make(np.asarray(array))

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """This tensor's memory as a DLPack capsule, for ``torch.from_dlpack`` / ``np.from_dlpack`` (no copy)."""
        return to_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def item(self):
        """The single number in this tensor, as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._device.backend.to_host(self._data).reshape(()).item()

    def tolist(self):
        return self._device.backend.to_host(self._data).tolist()

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            amount = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return builtins.bool(self.item())

    def __float__(self) -> float:
        return builtins.float(self._scalar())

    def __int__(self) -> int:
        return builtins.int(self._scalar())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return _sparse_coo.sparse_repr(self, tensor_repr) if _sparse_coo.is_sparse(self) else tensor_repr(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        # Lets DataLoader worker processes send tensors back (multiprocessing pickles them);
        # model files pickle tensors under PyTorch's names instead (minitorch.serialization).
        return (_rebuild_tensor, (self._device.backend.to_host(self._data), str(self._device), self._requires_grad))

    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the "
                "moment."
            )
        copied = Tensor._make(self._data.copy(), self._device, self._requires_grad, cls=type(self))
        if self._grad is not None:
            copied._grad = self._grad._detached_copy()
        for name, value in getattr(self, "__dict__", {}).items():
            copied.__dict__[name] = copy_module.deepcopy(value, memo)
        memo[id(self)] = copied
        return copied

    # -- dtype and device conversion (ops/conversion.py) ---------------------------------------------------------------
    def to(self, *args, **kwargs) -> Tensor:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(other)``; ``self`` if nothing changes."""
        return conversion.to(self, *args, **kwargs)

    def cpu(self) -> Tensor:
        return conversion.to(self, "cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> Tensor:
        target = "cuda" if device is None else (f"cuda:{device}" if isinstance(device, builtins.int) else device)
        return conversion.to(self, target, non_blocking=non_blocking)

    def type(self, dtype=None, non_blocking: bool = False):
        """``'torch.FloatTensor'`` without an argument; else this tensor converted to ``dtype``: a dtype, a typed
        class (``minitorch.LongTensor``) or its name (``'torch.LongTensor'``, ``'torch.cuda.FloatTensor'``)."""
        if dtype is None:
            prefix = "torch.cuda." if self.is_cuda else "torch."
            return prefix + self.dtype.type_name + "Tensor"
        if isinstance(dtype, str):
            names = {d.type_name + "Tensor": d.name for d in _dtype.ALL_DTYPES}
            prefix, _, name = dtype.rpartition(".")
            if name not in names or prefix not in ("torch", "torch.cuda", "minitorch", "minitorch.cuda"):
                raise ValueError(f"invalid type: '{dtype}'")
            converted = conversion.to(self, getattr(_dtype, names[name]))
            return converted.cuda() if prefix.endswith("cuda") and not converted.is_cuda else converted
        return conversion.to(self, getattr(dtype, "dtype", dtype))  # a typed class carries its dtype

    @numpy_names
    @_arguments.tensor_arguments
    def type_as(self, other: Tensor) -> Tensor:
        return conversion.to(self, other.dtype)

    def float(self) -> Tensor:
        return conversion.to(self, _dtype.float32)

    def double(self) -> Tensor:
        return conversion.to(self, _dtype.float64)

    def half(self) -> Tensor:
        return conversion.to(self, _dtype.float16)

    def bfloat16(self) -> Tensor:
        return conversion.to(self, _dtype.bfloat16)

    def long(self) -> Tensor:
        return conversion.to(self, _dtype.int64)

    def int(self) -> Tensor:
        return conversion.to(self, _dtype.int32)

    def short(self) -> Tensor:
        return conversion.to(self, _dtype.int16)

    def char(self) -> Tensor:
        return conversion.to(self, _dtype.int8)

    def byte(self) -> Tensor:
        return conversion.to(self, _dtype.uint8)

    def bool(self) -> Tensor:
        return conversion.to(self, _dtype.bool)

    # -- Python's operators: x + y, x * y, x == y... (ops/pointwise/) --------------------------------------------------
    # x + y is add(x, y); 1 + x is add(x, 1), as in PyTorch: the tensor is input 0 of the node, the number input 1.
    __add__ = __radd__ = pointwise.add
    __sub__ = pointwise.sub
    __rsub__ = pointwise.rsub
    __mul__ = __rmul__ = pointwise.mul  # x * y is mul(x, y); 2 * x is mul(x, 2)
    __truediv__ = pointwise.div

    def __rtruediv__(self, other):
        # 2 / x is x.reciprocal() * 2, as in PyTorch: the same graph (MulBackward0) and roundings
        return pointwise.mul(pointwise.reciprocal(self), other)

    __floordiv__ = pointwise.floor_divide

    def __rfloordiv__(self, other):
        return pointwise.floor_divide(other, self)

    __mod__ = pointwise.remainder

    def __rmod__(self, other):
        return pointwise.remainder(other, self)

    __pow__ = pointwise.pow

    def __rpow__(self, base):
        return pointwise.pow(base, self)

    __matmul__ = linalg.matmul

    def __rmatmul__(self, other):
        return linalg.matmul(other, self)

    __neg__ = pointwise.neg

    def __pos__(self):
        return self

    __abs__ = pointwise.abs

    def __invert__(self):
        if _dtype.is_floating(self._data.dtype):
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return pointwise.bitwise_not(self)

    # &, | and ^ look their function up when called: the ONNX and compile tracers record them by swapping it there.
    def __and__(self, other):
        return pointwise.bitwise_and(self, other)

    __rand__ = __and__

    def __or__(self, other):
        return pointwise.bitwise_or(self, other)

    __ror__ = __or__

    def __xor__(self, other):
        return pointwise.bitwise_xor(self, other)

    __rxor__ = __xor__

    # A comparison with something that is no tensor or number (None, a string, a list) is not ours to answer: as in
    # PyTorch, ``tensor == None`` is then False, ``tensor != None`` True, and ``tensor < None`` Python's TypeError.
    def __eq__(self, other):
        if not _comparable(other):
            return NotImplemented
        return pointwise.eq(self, other)

    def __ne__(self, other):
        if not _comparable(other):
            return NotImplemented
        return pointwise.ne(self, other)

    def __lt__(self, other):
        if not _comparable(other):
            return NotImplemented
        return pointwise.lt(self, other)

    def __le__(self, other):
        if not _comparable(other):
            return NotImplemented
        return pointwise.le(self, other)

    def __gt__(self, other):
        if not _comparable(other):
            return NotImplemented
        return pointwise.gt(self, other)

    def __ge__(self, other):
        if not _comparable(other):
            return NotImplemented
        return pointwise.ge(self, other)

    # in-place operators: x += y
    def __iadd__(self, other):
        return inplace.add_(self, other)

    def __isub__(self, other):
        return inplace.sub_(self, other)

    def __imul__(self, other):
        return inplace.mul_(self, other)

    def __itruediv__(self, other):
        return inplace.div_(self, other)

    # -- pointwise ops: arithmetic (ops/pointwise/arithmetic.py) -------------------------------------------------------
    @numpy_names
    def add(self, other, *, alpha=1):
        return pointwise.add(self, other, alpha=alpha)

    @numpy_names
    def add_(self, other, *, alpha=1):
        return inplace.add_(self, other, alpha=alpha)

    @numpy_names
    def sub(self, other, *, alpha=1):
        return pointwise.sub(self, other, alpha=alpha)

    @numpy_names
    def sub_(self, other, *, alpha=1):
        return inplace.sub_(self, other, alpha=alpha)

    subtract = sub

    def subtract_(self, other, *, alpha=1) -> Tensor:
        return inplace.in_place(self, Tensor.subtract, other, alpha=alpha)

    @numpy_names
    def mul(self, other):
        return pointwise.mul(self, other)

    @numpy_names
    def mul_(self, other):
        return inplace.mul_(self, other)

    multiply = mul

    def multiply_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.multiply, other)

    @numpy_names
    def div(self, other, *, rounding_mode=None):
        return pointwise.div(self, other, rounding_mode=rounding_mode)

    @numpy_names
    def div_(self, other, *, rounding_mode=None):
        return inplace.div_(self, other, rounding_mode=rounding_mode)

    divide = true_divide = div

    def divide_(self, other, *, rounding_mode=None) -> Tensor:
        return inplace.in_place(self, Tensor.divide, other, rounding_mode=rounding_mode)

    def true_divide_(self, other, *, rounding_mode=None) -> Tensor:
        return inplace.in_place(self, Tensor.true_divide, other, rounding_mode=rounding_mode)

    @numpy_names
    def floor_divide(self, other):
        return pointwise.floor_divide(self, other)

    def floor_divide_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.floor_divide, other)

    @numpy_names
    def remainder(self, other):
        return pointwise.remainder(self, other)

    def remainder_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.remainder, other)

    @numpy_names
    def fmod(self, other):
        return pointwise.fmod(self, other)

    def fmod_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.fmod, other)

    def neg(self):
        return pointwise.neg(self)

    def neg_(self):
        return inplace.neg_(self)

    negative = neg

    def negative_(self) -> Tensor:
        return inplace.in_place(self, Tensor.negative)

    def positive(self):
        return pointwise.positive(self)

    # -- pointwise ops: powers and roots (ops/pointwise/powers.py) -----------------------------------------------------
    def pow(self, exponent):
        return pointwise.pow(self, exponent)

    def pow_(self, exponent):
        return inplace.pow_(self, exponent)

    def sqrt(self):
        return pointwise.sqrt(self)

    def sqrt_(self):
        return inplace.sqrt_(self)

    def rsqrt(self):
        return pointwise.rsqrt(self)

    def rsqrt_(self) -> Tensor:
        return inplace.in_place(self, Tensor.rsqrt)

    def square(self):
        return pointwise.square(self)

    def square_(self) -> Tensor:
        return inplace.in_place(self, Tensor.square)

    def reciprocal(self):
        return pointwise.reciprocal(self)

    def reciprocal_(self) -> Tensor:
        return inplace.in_place(self, Tensor.reciprocal)

    def float_power(self, exponent):
        return pointwise.float_power(self, exponent)

    def float_power_(self, exponent):
        return inplace.float_power_(self, exponent)

    # -- pointwise ops: exponentials and logarithms (ops/pointwise/exponential.py) -------------------------------------
    def exp(self):
        return pointwise.exp(self)

    def exp_(self):
        return inplace.exp_(self)

    def exp2(self):
        return pointwise.exp2(self)

    def exp2_(self) -> Tensor:
        return inplace.in_place(self, Tensor.exp2)

    def log(self):
        return pointwise.log(self)

    def log_(self) -> Tensor:
        return inplace.in_place(self, Tensor.log)

    def log2(self):
        return pointwise.log2(self)

    def log2_(self) -> Tensor:
        return inplace.in_place(self, Tensor.log2)

    def log10(self):
        return pointwise.log10(self)

    def log10_(self) -> Tensor:
        return inplace.in_place(self, Tensor.log10)

    def log1p(self):
        return pointwise.log1p(self)

    def log1p_(self) -> Tensor:
        return inplace.in_place(self, Tensor.log1p)

    def expm1(self):
        return pointwise.expm1(self)

    def expm1_(self) -> Tensor:
        return inplace.in_place(self, Tensor.expm1)

    @numpy_names
    def ldexp(self, other):
        return pointwise.ldexp(self, other)

    def ldexp_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.ldexp, other)

    def frexp(self):
        return pointwise.frexp(self)

    @numpy_names
    def logaddexp(self, other):
        return pointwise.logaddexp(self, other)

    @numpy_names
    def logaddexp2(self, other):
        return pointwise.logaddexp2(self, other)

    @numpy_names
    def xlogy(self, other):
        return pointwise.xlogy(self, other)

    def xlogy_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.xlogy, other)

    def logit(self, eps=None):
        return pointwise.logit(self, eps)

    def logit_(self, eps=None) -> Tensor:
        return inplace.in_place(self, Tensor.logit, eps)

    # -- pointwise ops: trigonometric and hyperbolic (ops/pointwise/trigonometric.py) ----------------------------------
    def sin(self):
        return pointwise.sin(self)

    def sin_(self) -> Tensor:
        return inplace.in_place(self, Tensor.sin)

    def cos(self):
        return pointwise.cos(self)

    def cos_(self) -> Tensor:
        return inplace.in_place(self, Tensor.cos)

    def tan(self):
        return pointwise.tan(self)

    def tan_(self) -> Tensor:
        return inplace.in_place(self, Tensor.tan)

    def asin(self):
        return pointwise.asin(self)

    def asin_(self) -> Tensor:
        return inplace.in_place(self, Tensor.asin)

    def acos(self):
        return pointwise.acos(self)

    def acos_(self) -> Tensor:
        return inplace.in_place(self, Tensor.acos)

    def atan(self):
        return pointwise.atan(self)

    def atan_(self) -> Tensor:
        return inplace.in_place(self, Tensor.atan)

    arcsin, arccos, arctan = asin, acos, atan

    def arcsin_(self) -> Tensor:
        return inplace.in_place(self, Tensor.arcsin)

    def arccos_(self) -> Tensor:
        return inplace.in_place(self, Tensor.arccos)

    def arctan_(self) -> Tensor:
        return inplace.in_place(self, Tensor.arctan)

    def asinh(self):
        return pointwise.asinh(self)

    def asinh_(self) -> Tensor:
        return inplace.in_place(self, Tensor.asinh)

    def acosh(self):
        return pointwise.acosh(self)

    def acosh_(self) -> Tensor:
        return inplace.in_place(self, Tensor.acosh)

    def atanh(self):
        return pointwise.atanh(self)

    def atanh_(self) -> Tensor:
        return inplace.in_place(self, Tensor.atanh)

    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def arcsinh_(self) -> Tensor:
        return inplace.in_place(self, Tensor.arcsinh)

    def arccosh_(self) -> Tensor:
        return inplace.in_place(self, Tensor.arccosh)

    def arctanh_(self) -> Tensor:
        return inplace.in_place(self, Tensor.arctanh)

    @numpy_names
    def copysign(self, other):
        return pointwise.copysign(self, other)

    def copysign_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.copysign, other)

    def sinh(self):
        return pointwise.sinh(self)

    def sinh_(self) -> Tensor:
        return inplace.in_place(self, Tensor.sinh)

    def cosh(self):
        return pointwise.cosh(self)

    def cosh_(self) -> Tensor:
        return inplace.in_place(self, Tensor.cosh)

    def tanh(self):
        return pointwise.tanh(self)

    def tanh_(self):
        return inplace.tanh_(self)

    @numpy_names
    def atan2(self, other):
        return pointwise.atan2(self, other)

    def atan2_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.atan2, other)

    arctan2 = atan2

    def arctan2_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.arctan2, other)

    @numpy_names
    def hypot(self, other):
        return pointwise.hypot(self, other)

    def hypot_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.hypot, other)

    def deg2rad(self):
        return pointwise.deg2rad(self)

    def deg2rad_(self) -> Tensor:
        return inplace.in_place(self, Tensor.deg2rad)

    def rad2deg(self):
        return pointwise.rad2deg(self)

    def rad2deg_(self) -> Tensor:
        return inplace.in_place(self, Tensor.rad2deg)

    # -- pointwise ops: activations (ops/pointwise/activations.py; softmax: ops/nn_ops.py) -----------------------------
    def sigmoid(self):
        return pointwise.sigmoid(self)

    def sigmoid_(self):
        return inplace.sigmoid_(self)

    def relu(self):
        return pointwise.relu(self)

    def relu_(self):
        return inplace.relu_(self)

    @numpy_names
    def softmax(self, dim: int, dtype=None):
        return nn_ops.softmax(self, dim, dtype)

    @numpy_names
    def log_softmax(self, dim: int, dtype=None):
        return nn_ops.log_softmax(self, dim, dtype)

    # -- pointwise ops: special functions (ops/pointwise/special.py) ---------------------------------------------------
    def erf(self):
        return pointwise.erf(self)

    def erf_(self) -> Tensor:
        return inplace.in_place(self, Tensor.erf)

    def erfinv(self):
        return pointwise.erfinv(self)

    def erfinv_(self) -> Tensor:
        return inplace.in_place(self, Tensor.erfinv)

    def erfc(self):
        return pointwise.erfc(self)

    def erfc_(self) -> Tensor:
        return inplace.in_place(self, Tensor.erfc)

    def lgamma(self):
        return pointwise.lgamma(self)

    def lgamma_(self) -> Tensor:
        return inplace.in_place(self, Tensor.lgamma)

    def digamma(self):
        return pointwise.digamma(self)

    def digamma_(self) -> Tensor:
        return inplace.in_place(self, Tensor.digamma)

    def polygamma(self, n: int):
        return pointwise.polygamma(n, self)

    def polygamma_(self, n: int) -> Tensor:
        return inplace.in_place(self, Tensor.polygamma, n)

    def i0(self):
        return pointwise.i0(self)

    def i0_(self) -> Tensor:
        return inplace.in_place(self, Tensor.i0)

    def sinc(self):
        return pointwise.sinc(self)

    def sinc_(self) -> Tensor:
        return inplace.in_place(self, Tensor.sinc)

    # -- pointwise ops: rounding and piecewise (ops/pointwise/rounding.py) ---------------------------------------------
    def abs(self):
        return pointwise.abs(self)

    def abs_(self):
        return inplace.abs_(self)

    absolute = abs

    def absolute_(self) -> Tensor:
        return inplace.in_place(self, Tensor.absolute)

    def sign(self):
        return pointwise.sign(self)

    def sign_(self) -> Tensor:
        return inplace.in_place(self, Tensor.sign)

    def clamp(self, min=None, max=None):
        return pointwise.clamp(self, min, max)

    def clamp_(self, min=None, max=None):
        return inplace.clamp_(self, min, max)

    clip = clamp

    clip_ = clamp_

    def clamp_min(self, min):
        return pointwise.clamp_min(self, min)

    def clamp_min_(self, min) -> Tensor:
        return inplace.in_place(self, Tensor.clamp_min, min)

    def clamp_max(self, max):
        return pointwise.clamp_max(self, max)

    def clamp_max_(self, max) -> Tensor:
        return inplace.in_place(self, Tensor.clamp_max, max)

    def floor(self):
        return pointwise.floor(self)

    def floor_(self) -> Tensor:
        return inplace.in_place(self, Tensor.floor)

    def ceil(self):
        return pointwise.ceil(self)

    def ceil_(self) -> Tensor:
        return inplace.in_place(self, Tensor.ceil)

    def round(self, *, decimals: int = 0):
        return pointwise.round(self, decimals=decimals)

    def round_(self, *, decimals: int = 0) -> Tensor:
        return inplace.in_place(self, Tensor.round, decimals=decimals)

    def trunc(self):
        return pointwise.trunc(self)

    def trunc_(self) -> Tensor:
        return inplace.in_place(self, Tensor.trunc)

    fix = trunc

    def fix_(self) -> Tensor:
        return inplace.in_place(self, Tensor.fix)

    def frac(self):
        return pointwise.frac(self)

    def frac_(self) -> Tensor:
        return inplace.in_place(self, Tensor.frac)

    @numpy_names
    def maximum(self, other):
        return pointwise.maximum(self, other)

    @numpy_names
    def minimum(self, other):
        return pointwise.minimum(self, other)

    @numpy_names
    def fmax(self, other):
        return pointwise.fmax(self, other)

    @numpy_names
    def fmin(self, other):
        return pointwise.fmin(self, other)

    @numpy_names
    def nextafter(self, other):
        return pointwise.nextafter(self, other)

    def nextafter_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.nextafter, other)

    def sgn(self):
        return pointwise.sgn(self)

    def sgn_(self) -> Tensor:
        return inplace.in_place(self, Tensor.sgn)

    def signbit(self):
        return pointwise.signbit(self)

    def heaviside(self, values):
        return pointwise.heaviside(self, values)

    def heaviside_(self, values) -> Tensor:
        return inplace.in_place(self, Tensor.heaviside, values)

    # -- pointwise ops: selection and blending (ops/pointwise/selection.py) --------------------------------------------
    @numpy_names
    def where(self, condition, other):
        return pointwise.where(condition, self, other)

    def lerp(self, end, weight):
        return pointwise.lerp(self, end, weight)

    def lerp_(self, end, weight):
        return inplace.lerp_(self, end, weight)

    # -- pointwise ops: logic and bits (ops/pointwise/comparison.py) ---------------------------------------------------
    @numpy_names
    def gcd(self, other):
        return pointwise.gcd(self, other)

    def gcd_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.gcd, other)

    @numpy_names
    def lcm(self, other):
        return pointwise.lcm(self, other)

    def lcm_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.lcm, other)

    def nan_to_num(self, nan=None, posinf=None, neginf=None):
        return pointwise.nan_to_num(self, nan, posinf, neginf)

    def nan_to_num_(self, nan=None, posinf=None, neginf=None):
        return inplace.nan_to_num_(self, nan, posinf, neginf)

    def logical_not(self):
        return pointwise.logical_not(self)

    def logical_not_(self) -> Tensor:
        return inplace.in_place(self, Tensor.logical_not)

    @numpy_names
    def logical_and(self, other):
        return pointwise.logical_and(self, other)

    def logical_and_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.logical_and, other)

    @numpy_names
    def logical_or(self, other):
        return pointwise.logical_or(self, other)

    def logical_or_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.logical_or, other)

    @numpy_names
    def logical_xor(self, other):
        return pointwise.logical_xor(self, other)

    def logical_xor_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.logical_xor, other)

    def bitwise_not(self):
        return pointwise.bitwise_not(self)

    def bitwise_not_(self) -> Tensor:
        return inplace.in_place(self, Tensor.bitwise_not)

    @numpy_names
    def bitwise_and(self, other):
        return pointwise.bitwise_and(self, other)

    def bitwise_and_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.bitwise_and, other)

    @numpy_names
    def bitwise_or(self, other):
        return pointwise.bitwise_or(self, other)

    def bitwise_or_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.bitwise_or, other)

    @numpy_names
    def bitwise_xor(self, other):
        return pointwise.bitwise_xor(self, other)

    def bitwise_xor_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.bitwise_xor, other)

    # -- comparison ops (ops/pointwise/comparison.py; sorting: ops/sorting.py) -----------------------------------------
    def isposinf(self):
        return pointwise.isposinf(self)

    def isneginf(self):
        return pointwise.isneginf(self)

    def isreal(self):
        return pointwise.isreal(self)

    @numpy_names
    def eq(self, other):
        return pointwise.eq(self, other)

    def eq_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.eq, other)

    @numpy_names
    def ne(self, other):
        return pointwise.ne(self, other)

    def ne_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.ne, other)

    @numpy_names
    def lt(self, other):
        return pointwise.lt(self, other)

    def lt_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.lt, other)

    @numpy_names
    def le(self, other):
        return pointwise.le(self, other)

    def le_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.le, other)

    @numpy_names
    def gt(self, other):
        return pointwise.gt(self, other)

    def gt_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.gt, other)

    @numpy_names
    def ge(self, other):
        return pointwise.ge(self, other)

    def ge_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.ge, other)

    def isnan(self):
        return pointwise.isnan(self)

    def isinf(self):
        return pointwise.isinf(self)

    def isfinite(self):
        return pointwise.isfinite(self)

    @numpy_names
    def equal(self, other) -> bool:
        return pointwise.equal(self, other)

    @numpy_names
    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
        return pointwise.allclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan)

    @numpy_names
    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return pointwise.isclose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan)

    @numpy_names
    def sort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        return sorting.sort(self, dim, descending, stable)

    @numpy_names
    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False):
        return sorting.argsort(self, dim, descending, stable)

    @numpy_names
    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
        return sorting.topk(self, k, dim, largest, sorted)

    @numpy_names
    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False):
        return sorting.kthvalue(self, k, dim, keepdim)

    def msort(self):
        return sorting.msort(self)

    # -- reduction ops (ops/reduction.py) ------------------------------------------------------------------------------
    sum = numpy_names(reduction.sum)

    @numpy_names
    def mean(self, dim=None, keepdim: bool = False, *, dtype=None):
        return reduction.mean(self, dim, keepdim, dtype=dtype)

    @numpy_names
    def prod(self, dim=None, keepdim: bool = False, *, dtype=None):
        return reduction.prod(self, dim, keepdim, dtype=dtype)

    @numpy_names
    def max(self, dim=None, keepdim: bool = False):
        return reduction.max(self, dim, keepdim)

    @numpy_names
    def min(self, dim=None, keepdim: bool = False):
        return reduction.min(self, dim, keepdim)

    @numpy_names
    def amax(self, dim=(), keepdim: bool = False):
        return reduction.amax(self, dim, keepdim)

    @numpy_names
    def amin(self, dim=(), keepdim: bool = False):
        return reduction.amin(self, dim, keepdim)

    @numpy_names
    def argmax(self, dim=None, keepdim: bool = False):
        return reduction.argmax(self, dim, keepdim)

    @numpy_names
    def argmin(self, dim=None, keepdim: bool = False):
        return reduction.argmin(self, dim, keepdim)

    @numpy_names
    def var(self, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
        return reduction.var(self, dim, unbiased, keepdim, correction=correction)

    @numpy_names
    def std(self, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
        return reduction.std(self, dim, unbiased, keepdim, correction=correction)

    @numpy_names
    def norm(self, p="fro", dim=None, keepdim: bool = False, dtype=None):
        return reduction.norm(self, p, dim, keepdim, dtype=dtype)

    @numpy_names
    def logsumexp(self, dim, keepdim: bool = False):
        return reduction.logsumexp(self, dim, keepdim)

    @numpy_names
    def all(self, dim=None, keepdim: bool = False):
        return reduction.all(self, dim, keepdim)

    @numpy_names
    def any(self, dim=None, keepdim: bool = False):
        return reduction.any(self, dim, keepdim)

    @numpy_names
    def nansum(self, dim=None, keepdim: bool = False, *, dtype=None):
        return reduction.nansum(self, dim, keepdim, dtype=dtype)

    @numpy_names
    def nanmean(self, dim=None, keepdim: bool = False, *, dtype=None):
        return reduction.nanmean(self, dim, keepdim, dtype=dtype)

    @numpy_names
    def count_nonzero(self, dim=None):
        return reduction.count_nonzero(self, dim)

    @numpy_names
    def aminmax(self, *, dim=None, keepdim: bool = False):
        return reduction.aminmax(self, dim=dim, keepdim=keepdim)

    @numpy_names
    def median(self, dim=None, keepdim: bool = False):
        return sorting.median(self, dim, keepdim)

    @numpy_names
    def nanmedian(self, dim=None, keepdim: bool = False):
        return sorting.nanmedian(self, dim, keepdim)

    @numpy_names
    def mode(self, dim: int = -1, keepdim: bool = False):
        return sorting.mode(self, dim, keepdim)

    @numpy_names
    def quantile(self, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
        return sorting.quantile(self, q, dim, keepdim, interpolation=interpolation)

    @numpy_names
    def nanquantile(self, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
        return sorting.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    @numpy_names
    def unique(self, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None):
        return sorting.unique(self, sorted, return_inverse, return_counts, dim)

    @numpy_names
    def unique_consecutive(self, return_inverse: bool = False, return_counts: bool = False, dim=None):
        return sorting.unique_consecutive(self, return_inverse, return_counts, dim)

    # -- other operations: cumulative, differences, counting (ops/reduction.py) ----------------------------------------
    def sum_to_size(self, *sizes, size=None):
        return reduction.sum_to_size(self, *sizes_given(sizes, size, "size", "sum_to_size"))

    @numpy_names
    def cumsum(self, dim, *, dtype=None):
        return reduction.cumsum(self, dim, dtype=dtype)

    def cumsum_(self, dim, *, dtype=None) -> Tensor:
        return inplace.in_place(self, Tensor.cumsum, dim, dtype=dtype)

    @numpy_names
    def cumprod(self, dim, *, dtype=None):
        return reduction.cumprod(self, dim, dtype=dtype)

    def cumprod_(self, dim, *, dtype=None) -> Tensor:
        return inplace.in_place(self, Tensor.cumprod, dim, dtype=dtype)

    @numpy_names
    def logcumsumexp(self, dim):
        return reduction.logcumsumexp(self, dim)

    @numpy_names
    def cummax(self, dim):
        return reduction.cummax(self, dim)

    @numpy_names
    def cummin(self, dim):
        return reduction.cummin(self, dim)

    @numpy_names
    def diff(self, n: int = 1, dim: int = -1, prepend=None, append=None):
        return reduction.diff(self, n, dim, prepend, append)

    def bincount(self, weights=None, minlength: int = 0):
        return reduction.bincount(self, weights, minlength)

    def histc(self, bins: int = 100, min=0, max=0):
        return reduction.histc(self, bins, min, max)

    def histogram(self, bins=100, *, range=None, weight=None, density: bool = False):
        return reduction.histogram(self, bins, range=range, weight=weight, density=density)

    def argwhere(self):
        return reduction.argwhere(self)

    @numpy_names
    def renorm(self, p, dim: int, maxnorm):
        return reduction.renorm(self, p, dim, maxnorm)

    def renorm_(self, p, dim: int, maxnorm) -> Tensor:
        return inplace.in_place(self, Tensor.renorm, p, dim, maxnorm)

    # -- BLAS and LAPACK operations (ops/linalg.py) --------------------------------------------------------------------
    @numpy_names
    def matmul(self, other):
        return linalg.matmul(self, other)

    def mm(self, mat2):
        return linalg.mm(self, mat2)

    def bmm(self, mat2):
        return linalg.bmm(self, mat2)

    def mv(self, vec):
        return linalg.mv(self, vec)

    def dot(self, tensor):
        return linalg.dot(self, tensor)

    def outer(self, vec2):
        return linalg.outer(self, vec2)

    ger = outer

    @_arguments.tensor_arguments
    def addmm(self, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1):
        return linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    @_arguments.tensor_arguments
    def addmm_(self, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
        return inplace.in_place(self, linalg.addmm, mat1, mat2, beta=beta, alpha=alpha)

    @_arguments.tensor_arguments
    def addmv(self, mat: Tensor, vec: Tensor, *, beta=1, alpha=1):
        return linalg.addmv(self, mat, vec, beta=beta, alpha=alpha)

    @_arguments.tensor_arguments
    def addmv_(self, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
        return inplace.in_place(self, linalg.addmv, mat, vec, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return linalg.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
        return inplace.in_place(self, Tensor.baddbmm, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return linalg.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
        return inplace.in_place(self, Tensor.addbmm, batch1, batch2, beta=beta, alpha=alpha)

    def addcmul(self, tensor1, tensor2, *, value=1):
        return linalg.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        return inplace.addcmul_(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        return linalg.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        return inplace.addcdiv_(self, tensor1, tensor2, value=value)

    @numpy_names
    @_arguments.tensor_arguments
    def inner(self, other: Tensor):
        return linalg.inner(self, other)

    @numpy_names
    @_arguments.tensor_arguments
    def kron(self, other: Tensor):
        return linalg.kron(self, other)

    @numpy_names
    @_arguments.tensor_arguments
    def cross(self, other: Tensor, dim=None):
        return linalg.cross(self, other, dim)

    @numpy_names
    def dist(self, other, p=2):
        return linalg.dist(self, other, p)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1):
        return linalg.diagonal(self, offset, dim1, dim2)

    def diag(self, diagonal: int = 0):
        return linalg.diag(self, diagonal)

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1):
        return linalg.diag_embed(self, offset, dim1, dim2)

    @_arguments.tensor_arguments
    def diagonal_scatter(self, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1):
        return linalg.diagonal_scatter(self, src, offset, dim1, dim2)

    def trace(self):
        return linalg.trace(self)

    def det(self):
        return linalg.det(self)

    def inverse(self):
        return linalg.inverse(self)

    def logdet(self):
        return linalg.logdet(self)

    def slogdet(self):
        return linalg.slogdet(self)

    def cov(self, *, correction: int = 1, fweights=None, aweights=None):
        return linalg.cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def corrcoef(self):
        return linalg.corrcoef(self)

    @numpy_names
    def vdot(self, other):
        return linalg.vdot(self, other)

    def diagflat(self, offset: int = 0):
        return linalg.diagflat(self, offset)

    def matrix_power(self, n: int):
        return linalg.matrix_power(self, n)

    def matrix_exp(self):
        return linalg.matrix_exp(self)

    def qr(self, some: bool = True):
        return linalg.qr(self, some)

    def svd(self, some: bool = True, compute_uv: bool = True):
        return linalg.svd(self, some, compute_uv)

    def pinverse(self, rcond: float = 1e-15):
        return linalg.pinverse(self, rcond)

    def cholesky(self, upper: bool = False):
        return linalg.cholesky(self, upper)

    # -- indexing, slicing, joining, mutating: shapes and views (ops/shape.py) -----------------------------------------
    def reshape(self, *sizes, shape=None):
        return shape_ops.reshape(self, *sizes, shape=shape)

    @numpy_names
    @_arguments.tensor_arguments
    def reshape_as(self, other: Tensor):
        return shape_ops.reshape(self, other.shape)

    def view(self, *shape, size=None):
        return shape_ops.view(self, *sizes_given(shape, size, "size", "view"))

    @numpy_names
    @_arguments.tensor_arguments
    def view_as(self, other: Tensor):
        return shape_ops.view(self, other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1):
        return shape_ops.flatten(self, start_dim, end_dim)

    @numpy_names
    def unflatten(self, dim: int, sizes):
        return shape_ops.unflatten(self, dim, sizes)

    @numpy_names
    def squeeze(self, dim=None):
        return shape_ops.squeeze(self, dim)

    @numpy_names
    def unsqueeze(self, dim: int):
        return shape_ops.unsqueeze(self, dim)

    def permute(self, *order, dims=None):
        return shape_ops.permute(self, *order, dims=dims)

    def transpose(self, dim0: int, dim1: int):
        return shape_ops.transpose(self, dim0, dim1)

    swapdims = transpose

    def swapaxes(self, axis0: int, axis1: int):
        return shape_ops.transpose(self, axis0, axis1)

    def t(self):
        return shape_ops.t(self)

    def movedim(self, source, destination):
        return shape_ops.movedim(self, source, destination)

    moveaxis = movedim

    @property
    def T(self):
        if self._data.ndim != 2:  # PyTorch deprecates .T except on matrices, and says so
            warnings.warn(_T_DEPRECATED[0] if self._data.ndim == 0 else _T_DEPRECATED[1], UserWarning, stacklevel=2)
        return shape_ops.permute(self, *reversed(range(self._data.ndim)))

    @property
    def mT(self):
        return shape_ops.transpose(self, -2, -1)

    def expand(self, *sizes, size=None):
        return shape_ops.expand(self, *sizes_given(sizes, size, "size", "expand"))

    @numpy_names
    @_arguments.tensor_arguments
    def expand_as(self, other: Tensor):
        return shape_ops.expand(self, other.shape)

    def broadcast_to(self, size):
        return shape_ops.expand(self, size)

    def repeat(self, *sizes, repeats=None):
        return shape_ops.repeat(self, *sizes_given(sizes, repeats, "repeats", "repeat"))

    def tile(self, *repeats, dims=None):
        return shape_ops.tile(self, *repeats, dims=dims)

    @numpy_names
    def split(self, split_size, dim: int = 0):
        return shape_ops.split(self, split_size, dim)

    @numpy_names
    def chunk(self, chunks: int, dim: int = 0):
        return shape_ops.chunk(self, chunks, dim)

    @numpy_names
    def unbind(self, dim: int = 0):
        return shape_ops.unbind(self, dim)

    def flip(self, *axes, dims=None):
        return shape_ops.flip(self, *axes, dims=dims)

    def roll(self, shifts, dims=None):
        return shape_ops.roll(self, shifts, dims)

    @numpy_names
    def narrow(self, dim: int, start: int, length: int):
        return shape_ops.narrow(self, dim, start, length)

    def contiguous(self, memory_format=_contiguous_format):
        if memory_format is _contiguous_format:
            return shape_ops.contiguous(self)
        return memory_format_ops.contiguous(self, memory_format)

    def clone(self, *, memory_format=None):
        if memory_format is None or memory_format is _preserve_format:
            return shape_ops.clone(self)
        return memory_format_ops.clone(self, memory_format=memory_format)

    @numpy_names
    def tensor_split(self, indices_or_sections, dim: int = 0):
        return shape_ops.tensor_split(self, indices_or_sections, dim)

    @numpy_names
    def select(self, dim: int, index: int):
        return shape_ops.select(self, dim, index)

    @numpy_names
    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        return shape_ops.repeat_interleave(self, repeats, dim, output_size=output_size)

    def unfold(self, dimension: int, size: int, step: int):
        return shape_ops.unfold(self, dimension, size, step)

    def rot90(self, k: int = 1, dims=(0, 1)):
        return shape_ops.rot90(self, k, dims)

    def fliplr(self):
        return shape_ops.fliplr(self)

    def flipud(self):
        return shape_ops.flipud(self)

    def ravel(self):
        return shape_ops.ravel(self)

    def hsplit(self, indices_or_sections):
        return shape_ops.hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections):
        return shape_ops.vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections):
        return shape_ops.dsplit(self, indices_or_sections)

    @numpy_names
    def narrow_copy(self, dim: int, start: int, length: int):
        return shape_ops.narrow_copy(self, dim, start, length)

    # -- indexing, slicing, joining, mutating: x[...], gather, scatter (ops/indexing.py) -------------------------------
    def __getitem__(self, index):
        return indexing.getitem(self, index)

    def __setitem__(self, index, value) -> None:
        indexing.setitem(self, index, value)

    @numpy_names
    def gather(self, dim: int, index, *, sparse_grad: bool = False):
        return indexing.gather(self, dim, index)

    @numpy_names
    def scatter(self, dim: int, index, src=None, *, value=None, reduce=None):
        return indexing.scatter(self, dim, index, src, value=value, reduce=reduce)

    @numpy_names
    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        return inplace.scatter_(self, dim, index, src, value=value, reduce=reduce)

    @numpy_names
    def scatter_add(self, dim: int, index, src):
        return indexing.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim: int, index, src) -> Tensor:
        return inplace.in_place(self, Tensor.scatter_add, dim, index, src)

    @numpy_names
    def index_select(self, dim: int, index):
        return indexing.index_select(self, dim, index)

    def masked_fill(self, mask, value):
        return indexing.masked_fill(self, mask, value)

    def masked_fill_(self, mask, value):
        return inplace.masked_fill_(self, mask, value)

    def tril(self, diagonal: int = 0):
        return indexing.tril(self, diagonal)

    def tril_(self, diagonal: int = 0) -> Tensor:
        return inplace.in_place(self, Tensor.tril, diagonal)

    def triu(self, diagonal: int = 0):
        return indexing.triu(self, diagonal)

    def triu_(self, diagonal: int = 0) -> Tensor:
        return inplace.in_place(self, Tensor.triu, diagonal)

    @_arguments.tensor_arguments
    def masked_select(self, mask: Tensor):
        return indexing.masked_select(self, mask)

    @_arguments.tensor_arguments
    def take(self, index: Tensor):
        return indexing.take(self, index)

    def nonzero(self, *, as_tuple: bool = False):
        return indexing.nonzero(self, as_tuple=as_tuple)

    @numpy_names
    @_arguments.tensor_arguments
    def take_along_dim(self, indices: Tensor, dim=None):
        return indexing.take_along_dim(self, indices, dim)

    @numpy_names
    def index_add(self, dim: int, index, source, *, alpha=1):
        return indexing.index_add(self, dim, index, source, alpha=alpha)

    @numpy_names
    def index_add_(self, dim, index, source, *, alpha=1):
        return inplace.index_add_(self, dim, index, source, alpha=alpha)

    @numpy_names
    def index_copy(self, dim: int, index, source):
        return indexing.index_copy(self, dim, index, source)

    @numpy_names
    def index_copy_(self, dim, index, source):
        return inplace.index_copy_(self, dim, index, source)

    def masked_scatter(self, mask, source):
        return indexing.masked_scatter(self, mask, source)

    def masked_scatter_(self, mask, source):
        return inplace.masked_scatter_(self, mask, source)

    @numpy_names
    @_arguments.tensor_arguments
    def slice_scatter(self, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1):
        return indexing.slice_scatter(self, src, dim, start, end, step)

    @numpy_names
    def select_scatter(self, src, dim: int, index: int):
        return indexing.select_scatter(self, src, dim, index)

    @numpy_names
    def index_fill(self, dim: int, index, value):
        return indexing.index_fill(self, dim, index, value)

    @numpy_names
    def index_fill_(self, dim, index, value):
        return inplace.index_fill_(self, dim, index, value)

    def index_put(self, indices, values, accumulate: bool = False):
        return indexing.index_put(self, indices, values, accumulate)

    def index_put_(self, indices, values, accumulate: bool = False) -> Tensor:
        return inplace.in_place(self, Tensor.index_put, indices, values, accumulate)

    @numpy_names
    def scatter_reduce(self, dim: int, index, src, reduce: str, *, include_self: bool = True):
        return indexing.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def scatter_reduce_(self, dim: int, index, src, reduce: str, *, include_self: bool = True) -> Tensor:
        return inplace.in_place(self, Tensor.scatter_reduce, dim, index, src, reduce, include_self=include_self)

    # -- in-place ops with no out-of-place twin: fills and copies (ops/inplace.py) -------------------------------------
    def zero_(self):
        return inplace.zero_(self)

    def fill_(self, value):
        return inplace.fill_(self, value)

    @numpy_names
    def copy_(self, other, non_blocking: bool = False):  # PyTorch's documentation says src; its parser, other
        return inplace.copy_(self, other)

    def uniform_(self, a: float = 0.0, b: float = 1.0, *, generator=None):
        return inplace.uniform_(self, a, b, generator=generator)

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None):
        return inplace.normal_(self, mean, std, generator=generator)

    def bernoulli_(self, p: float = 0.5, *, generator=None):
        return inplace.bernoulli_(self, p, generator=generator)

    def random_(self, low: int = 0, high: int | None = None, *, generator=None):
        return inplace.random_(self, low, high, generator=generator)

    def exponential_(self, lambd: float = 1.0, *, generator=None):
        return inplace.exponential_(self, lambd, generator=generator)

    def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator=None):
        return inplace.cauchy_(self, median, sigma, generator=generator)

    def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator=None):
        return inplace.log_normal_(self, mean, std, generator=generator)

    def geometric_(self, p: float, *, generator=None):
        return inplace.geometric_(self, p, generator=generator)

    # -- in-place shape changes: x.unsqueeze_(0) gives x itself the new shape (ops/inplace.py) -------------------------
    def squeeze_(self, dim=None) -> Tensor:
        return inplace.in_place_view(self, Tensor.squeeze, dim)

    def unsqueeze_(self, dim: int) -> Tensor:
        return inplace.in_place_view(self, Tensor.unsqueeze, dim)

    def t_(self) -> Tensor:
        return inplace.in_place_view(self, Tensor.t)

    def transpose_(self, dim0: int, dim1: int) -> Tensor:
        return inplace.in_place_view(self, Tensor.transpose, dim0, dim1)

    def swapdims_(self, dim0: int, dim1: int) -> Tensor:
        return inplace.in_place_view(self, Tensor.swapdims, dim0, dim1)

    def swapaxes_(self, axis0: int, axis1: int) -> Tensor:
        return inplace.in_place_view(self, Tensor.swapaxes, axis0, axis1)

    # -- creation ops: new tensors like this one (_creation.py) --------------------------------------------------------
    def new_tensor(self, data, *, dtype=None, device=None, requires_grad: bool = False):
        return _creation.tensor(
            data, dtype=dtype or self.dtype, device=device or self._device, requires_grad=requires_grad
        )

    def new_zeros(self, *sizes, size=None, dtype=None, device=None, requires_grad: bool = False):
        return _creation.zeros(
            *sizes_given(sizes, size, "size", "new_zeros"), dtype=dtype or self.dtype, device=device or self._device,
            requires_grad=requires_grad,
        )

    def new_ones(self, *sizes, size=None, dtype=None, device=None, requires_grad: bool = False):
        return _creation.ones(
            *sizes_given(sizes, size, "size", "new_ones"), dtype=dtype or self.dtype, device=device or self._device,
            requires_grad=requires_grad,
        )

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False):
        return _creation.full(
            size, fill_value, dtype=dtype or self.dtype, device=device or self._device, requires_grad=requires_grad
        )

    def new_empty(self, *sizes, size=None, dtype=None, device=None, requires_grad: bool = False):
        return _creation.empty(
            *sizes_given(sizes, size, "size", "new_empty"), dtype=dtype or self.dtype, device=device or self._device,
            requires_grad=requires_grad,
        )

    # -- appended: shifts, pinned memory, resize_ (the corpus of tutorials met them) ----------------------------------
    def bitwise_left_shift(self, other):
        return pointwise.bitwise_left_shift(self, other)

    def bitwise_left_shift_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.bitwise_left_shift, other)

    def bitwise_right_shift(self, other):
        return pointwise.bitwise_right_shift(self, other)

    def bitwise_right_shift_(self, other) -> Tensor:
        return inplace.in_place(self, Tensor.bitwise_right_shift, other)

    def __lshift__(self, other):
        return pointwise.bitwise_left_shift(self, other)

    def __rlshift__(self, other):
        return pointwise.bitwise_left_shift(other, self)

    def __ilshift__(self, other):
        return inplace.in_place(self, Tensor.bitwise_left_shift, other)

    def __rshift__(self, other):
        return pointwise.bitwise_right_shift(self, other)

    def __rrshift__(self, other):
        return pointwise.bitwise_right_shift(other, self)

    def __irshift__(self, other):
        return inplace.in_place(self, Tensor.bitwise_right_shift, other)

    def conj(self) -> Tensor:
        return _conjugation.conj(self)

    def conj_physical(self) -> Tensor:
        return _conjugation.conj_physical(self)

    def resolve_conj(self) -> Tensor:
        return _conjugation.resolve_conj(self)

    def is_conj(self) -> bool:
        return _conjugation.is_conj(self)

    def is_pinned(self, device=None) -> bool:
        """Whether the tensor sits in page-locked (pinned) host memory, which a GPU copies from asynchronously."""
        return conversion.is_pinned(self)

    def pin_memory(self, device=None) -> Tensor:
        """This tensor in pinned host memory (itself if it is there): ``.to("cuda", non_blocking=True)`` from it
        lets the host go on while the copy runs. Needs a GPU, as in PyTorch."""
        return conversion.pin_memory(self)

    def resize_(self, *sizes, size=None, memory_format=None) -> Tensor:
        """Give the tensor a new shape in place, keeping its first elements in row-major order.

        As in PyTorch, the elements that fit are kept and new ones are left uninitialised (zeros here);
        a tensor that needs a gradient cannot be resized.
        """
        shape = tuple(int(size) for size in sizes_given(sizes, size, "size", "resize_"))
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        flat = self._xp.ravel(self._data)
        count = int(np.prod(shape, dtype=np.int64))
        if count > flat.size:
            flat = self._xp.concatenate([flat, self._xp.zeros(count - flat.size, dtype=flat.dtype)])
        self._data = self._xp.ascontiguousarray(flat[:count]).reshape(shape)
        self._version_counter[0] += 1
        return self

    def untyped_storage(self):
        """The memory this tensor's elements live in, as bytes, shared with every view of it (storage.py)."""
        return untyped_storage_of(self)

    def storage(self):
        """The memory this tensor's elements live in, as elements of its dtype (deprecated in PyTorch: a warning)."""
        return typed_storage_of(self)

    def storage_offset(self) -> int:
        """Where this tensor's first element sits in its storage, counted in elements (``x[1:]``: 1)."""
        return storage_offset_of(self)

    @property
    def layout(self):
        """How the elements are stored: ``minitorch.strided`` (an offset and strides into one block), or
        ``minitorch.sparse_coo`` for a sparse tensor (``_sparse_coo.py``)."""
        return _sparse_coo.sparse_coo if _sparse_coo.is_sparse(self) else _strided

    # -- sparse COO tensors (_sparse_coo.py): the positions and numbers of the nonzeros ---------------------------
    @property
    def is_sparse(self) -> builtins.bool:
        return _sparse_coo.is_sparse(self)

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> Tensor:
        """The nonzeros of this tensor as a sparse COO tensor (all its dimensions sparse)."""
        return _sparse_coo.to_sparse(self)

    def to_sparse_coo(self) -> Tensor:
        return _sparse_coo.to_sparse(self)

    def to_dense(self, dtype=None, *, masked_grad=None) -> Tensor:
        result = _sparse_coo.to_dense(self)
        return result if dtype is None else result.to(dtype)

    def coalesce(self) -> Tensor:
        """Each position once, duplicates summed, positions in row-major order."""
        return _sparse_coo.coalesce(self)

    def is_coalesced(self) -> builtins.bool:
        return _sparse_coo._table(self)[2]

    def indices(self) -> Tensor:
        """The ``(sparse_dim, nnz)`` positions of a coalesced sparse tensor."""
        return _sparse_coo.indices(self)

    def values(self) -> Tensor:
        """The ``nnz`` numbers of a coalesced sparse tensor, in the order of ``indices()``."""
        return _sparse_coo.values(self)

    def _indices(self) -> Tensor:
        return _sparse_coo.indices(self, check_coalesced=False)

    def _values(self) -> Tensor:
        return _sparse_coo.values(self, check_coalesced=False)

    def _nnz(self) -> int:
        return _sparse_coo._table(self)[0].shape[1]

    def sparse_dim(self) -> int:
        return _sparse_coo._table(self)[0].shape[0] if self.is_sparse else 0

    def dense_dim(self) -> int:
        return self.dim() - self.sparse_dim() if self.is_sparse else self.dim()

    @property
    def is_meta(self) -> bool:
        """Is this tensor on the ``meta`` device (a shape and a dtype, no data; ``minitorch/_meta.py``)?"""
        return self._device.type == "meta"


def _rebuild_tensor(array, device_text, requires_grad):
    tensor = Tensor._make(array)
    if device_text != "cpu":
        tensor = tensor.to(device_text)
    tensor._requires_grad = requires_grad
    return tensor


_T_DEPRECATED = (
    "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw an "
    "error in a future release. Consider `x.mT` to transpose batches of matrices or "
    "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
)


# The layers below make tensors (an op's output, a gradient) with TensorBase._make: Tensor._make.
register_tensor_class(Tensor)
