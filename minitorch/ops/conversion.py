"""Moving a tensor to another dtype or device: ``tensor.to(...)``.

``ToCopy`` is differentiable: the gradient of a copy is the incoming gradient moved back
to where (and what type) the input was. Moving between devices copies the data through
host memory when the two array modules differ (NumPy <-> CuPy).
"""

from __future__ import annotations

from .. import _dtype
from .._device import canonical, check_available, device as Device, get_backend
from .._memory_format import preserved_copy
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd._lent_ops import lend_to_autograd
from ..autograd.function import Op
from .memory_format import to_memory_format


class ToCopy(Op):
    """``y = x`` on another device or dtype;  ``dx = grad`` moved back to ``x``'s device and dtype."""

    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, source_device, target_device, target_dtype, copy, non_blocking=False):
        ctx.source_device, ctx.source_dtype = source_device, _dtype.from_numpy_dtype(x.dtype)
        ctx.output_device = target_device
        result = x
        if target_device is not source_device:
            # non_blocking: copies queued on the current stream, the host going on (truly so from pinned memory);
            # between two GPUs the bytes pass the host, so that leg waits
            to_cpu = target_device.type == "cpu"
            host = source_device.backend.to_host(x, non_blocking=non_blocking and to_cpu)
            result = target_device.backend.to_device(host, target_device.index, blocking=not non_blocking)
            ctx.moved = True
        if target_dtype is not None and result.dtype != target_dtype.numpy_dtype:
            result = preserved_copy(result, target_dtype.numpy_dtype)  # PyTorch's layout for the copy
        elif copy and result is x:
            result = preserved_copy(x)
        return result

    @staticmethod
    def backward(ctx, grad):
        return to(grad, ctx.source_device, ctx.source_dtype), None, None, None, None, None


class PinMemory(Op):
    """``y = x`` in page-locked host memory (``tensor.pin_memory()``);  ``dx = grad``."""

    node_name = "PinMemoryBackward0"

    @staticmethod
    def forward(ctx, x, backend):
        return backend.pin(x)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def pin_memory(tensor: Tensor) -> Tensor:
    """``tensor`` copied to pinned memory (itself if it is there already): a GPU copies from it asynchronously."""
    if tensor._device.type != "cpu":
        raise RuntimeError(f"cannot pin '{tensor.type()}' only dense CPU tensors can be pinned")
    backend = get_backend("cuda")
    if not backend.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if backend.is_pinned(tensor._data):
        return tensor
    return PinMemory.apply(tensor, backend)


def is_pinned(tensor: Tensor) -> bool:
    return tensor._device.type == "cpu" and get_backend("cuda").is_pinned(tensor._data)


def _parse_to_arguments(tensor, args, kwargs):
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", None)
    non_blocking = kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for arg in args:
        if isinstance(arg, _dtype.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            device, dtype = arg._device, arg.dtype
        elif isinstance(arg, (str, Device, int)) and not isinstance(arg, bool):
            device = arg
        elif isinstance(arg, bool):  # to(device, dtype, non_blocking, copy) given positionally
            if non_blocking is None:
                non_blocking = arg
            elif copy is None:
                copy = arg
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(arg).__name__})")
    return device, dtype, bool(copy), bool(non_blocking)


@lend_to_autograd
def to(tensor: Tensor, *args, **kwargs) -> Tensor:
    """``tensor`` on the requested device and dtype; ``tensor`` itself when nothing changes."""
    device, dtype, copy, non_blocking = _parse_to_arguments(tensor, args, dict(kwargs))
    source = tensor._device
    if isinstance(device, int):
        device = f"cuda:{device}"
    target = canonical(Device(device)) if device is not None else source
    if target is not source:
        check_available(target)
    same_dtype = dtype is None or tensor._data.dtype == dtype.numpy_dtype
    memory_format = kwargs.get("memory_format")
    if target is source and same_dtype and not copy:
        return tensor if memory_format is None else to_memory_format(tensor, memory_format)
    result = ToCopy.apply(tensor, source, target, dtype, copy, non_blocking)
    return result if memory_format is None else to_memory_format(result, memory_format)


