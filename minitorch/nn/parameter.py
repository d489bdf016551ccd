"""``Parameter`` and ``Buffer``: tensors that a ``Module`` registers when they are assigned to it.

A ``Parameter`` is an ordinary tensor with one extra meaning: "this is a weight to train".
Assigning one as a module attribute (``self.weight = Parameter(...)``) puts it in
``module.parameters()``, so an optimizer finds it and ``state_dict()`` saves it. A plain
tensor assigned the same way is just an attribute (a cache, a constant).

``Parameter(data)`` shares ``data``'s memory: no copy is made.

    >>> import minitorch
    >>> weight = minitorch.nn.Parameter(minitorch.zeros(2))
    >>> weight
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
"""

from __future__ import annotations

import copy

from .. import _dtype
from .._creation import empty
from .._tensor import Tensor


def _share(cls, data: Tensor, requires_grad: bool) -> Tensor:
    """A ``cls`` instance over ``data``'s array (same memory, same version counter), as a graph leaf."""
    result = Tensor._make(data._data, data._device, version_counter=data._version_counter, cls=cls)
    if requires_grad:
        result.requires_grad_(True)  # checks the dtype: only floating point tensors may require grad
    return result


class Parameter(Tensor):
    """A tensor that is a module parameter: ``Parameter(data=None, requires_grad=True)``.

    ``requires_grad`` defaults to True even under ``no_grad()``, as in PyTorch. Results of
    operations on a parameter are plain tensors.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        if requires_grad and not data.is_floating_point():
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        return _share(cls, data, requires_grad)

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(Tensor._make(self._data.copy(), self._device), self.requires_grad)
        if self._grad is not None:
            result._grad = self._grad._detached_copy()
        for name, value in getattr(self, "__dict__", {}).items():
            result.__dict__[name] = copy.deepcopy(value, memo)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        # Pickled (by DataLoader worker processes) as a Parameter, not as a plain tensor.
        return (_rebuild_parameter, (Tensor._make(self._device.backend.to_host(self._data)), self.requires_grad,
                                     str(self._device)))


def _rebuild_parameter(data: Tensor, requires_grad: bool, device_text: str) -> Parameter:
    if device_text != "cpu":
        data = data.to(device_text)
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """A tensor that a module registers as a buffer when assigned: ``Buffer(data=None, *, persistent=True)``.

    Buffers are state that is not trained (BatchNorm's running mean): they move with
    ``module.to(...)`` and, when ``persistent``, are saved in ``state_dict()``.
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): argument 'data' must be Tensor, not {type(data).__name__}")
        result = _share(cls, data, data.requires_grad and data.grad_fn is None)
        result.persistent = persistent
        return result

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True):
        pass


class UninitializedTensorMixin:
    """What uninitialized parameters and buffers share: no shape until ``materialize(shape)``.

    A lazy module (``nn.LazyLinear``...) holds these until its first input tells it the sizes.
    They may be moved and converted (``to``, ``cpu``, ``cuda``, ``float``, ``double``, ``half``), which
    sets the device and dtype that ``materialize`` will use; reading their shape is an error.
    """

    cls_to_become: type = Tensor

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Become a ``cls_to_become`` (``Parameter`` or ``Tensor``) of ``shape``, in place (same object)."""
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes."
        )

    def size(self, dim=None):
        return self.shape

    def to(self, *args, **kwargs):
        """The same kind of uninitialized tensor with another device or dtype (nothing to copy yet)."""
        converted = Tensor.to(Tensor._make(self._data, self._device), *args, **kwargs)
        if converted._data is self._data and converted._device == self._device:
            return self
        return type(self)(self.requires_grad, converted.device, converted.dtype)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def float(self):
        return self.to(dtype=_dtype.float32)

    def double(self):
        return self.to(dtype=_dtype.float64)

    def half(self):
        return self.to(dtype=_dtype.float16)

    def bfloat16(self):
        return self.to(dtype=_dtype.bfloat16)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def is_lazy(param) -> bool:
    """Whether ``param`` is an ``UninitializedParameter`` or an ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (``UninitializedParameter(requires_grad=True, device, dtype)``)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return _share(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (BatchNorm's running statistics in ``LazyBatchNorm2d``).

    It becomes a ``Buffer`` (a tensor that ``isinstance(t, nn.Buffer)`` recognises, as PyTorch's
    materialized buffers are).
    """

    cls_to_become = Buffer

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        result = _share(cls, empty(0, device=device, dtype=dtype), requires_grad)
        result.persistent = persistent
        return result

    def __init__(self, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        pass
