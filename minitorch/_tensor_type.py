"""The legacy typed tensor classes: ``FloatTensor``, ``LongTensor``, ``BoolTensor``...

Before dtypes were arguments, PyTorch had one class per element type, and old tutorials still
use them. ``minitorch.FloatTensor(2, 3)`` makes an uninitialised float32 tensor of that shape,
``minitorch.LongTensor([1, 2])`` converts data, and ``isinstance(x, minitorch.FloatTensor)``
asks whether ``x`` is a float32 tensor on the CPU. As in PyTorch, these are not subclasses of
``Tensor``: every tensor is a plain ``Tensor``; the classes only make tensors and answer
``isinstance`` through their metaclass.

    >>> import minitorch
    >>> minitorch.LongTensor([1, 2])
    tensor([1, 2])
    >>> isinstance(minitorch.ones(2), minitorch.FloatTensor)
    True
    >>> minitorch.ones(2).type()
    'torch.FloatTensor'
"""

from __future__ import annotations

import numbers

from . import _creation, _dtype
from ._tensor import Size, Tensor


def _options(dtype) -> str:
    return (
        f"TensorOptions(dtype={dtype.cpp_name}, device=cpu, layout=Strided, requires_grad=false (default), "
        "pinned_memory=false (default), memory_format=(nullopt))"
    )


class tensortype(type):  # noqa: N801 - PyTorch's name for the metaclass (torch.tensortype)
    """The metaclass of the typed classes: calling one makes a tensor, ``isinstance`` checks dtype and device."""

    dtype: _dtype.dtype
    is_cuda = False
    is_sparse = False

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor) and instance.dtype is cls.dtype and instance._device.type == "cpu"

    def __call__(cls, *args, device=None) -> Tensor:
        """``T()`` (empty), ``T(2, 3)`` or ``T(Size)`` (uninitialised), ``T(tensor)`` (the same data), ``T(data)``."""
        if not args:
            return _creation.empty(0, dtype=cls.dtype, device=device)
        sizes = args[0] if len(args) == 1 and isinstance(args[0], Size) else args
        if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in sizes):
            if len(args) > 1 or isinstance(args[0], (Size, numbers.Integral)):
                return _creation.empty(*sizes, dtype=cls.dtype, device=device)
        if len(args) > 1:
            raise TypeError(f"new(): data must be a sequence (got {type(args[1]).__name__})")
        data = args[0]
        if isinstance(data, Tensor):
            if data.dtype is not cls.dtype:
                raise TypeError(f"expected {_options(cls.dtype)} (got {_options(data.dtype)})")
            return data.detach()
        return _creation.tensor(data, dtype=cls.dtype, device=device)

    def __repr__(cls) -> str:
        return f"<class 'minitorch.{cls.__name__}'>"


def _make(name: str, dtype) -> tensortype:
    return tensortype(name, (), {"dtype": dtype, "__module__": "minitorch", "__doc__": f"{dtype} tensors on the CPU."})


FloatTensor = _make("FloatTensor", _dtype.float32)
DoubleTensor = _make("DoubleTensor", _dtype.float64)
HalfTensor = _make("HalfTensor", _dtype.float16)
BFloat16Tensor = _make("BFloat16Tensor", _dtype.bfloat16)
LongTensor = _make("LongTensor", _dtype.int64)
IntTensor = _make("IntTensor", _dtype.int32)
ShortTensor = _make("ShortTensor", _dtype.int16)
CharTensor = _make("CharTensor", _dtype.int8)
ByteTensor = _make("ByteTensor", _dtype.uint8)
BoolTensor = _make("BoolTensor", _dtype.bool)
