"""Small helpers shared by the ops: argument conversion, device checks, dtype promotion."""

from __future__ import annotations

import numbers

import numpy as np

from .. import _dtype
from .._creation import as_tensor
from .._shapes import broadcast_shapes, shape_argument, sizes_given, wrap_dim  # noqa: F401 (the ops import them from here)
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import common_device
from .conversion import to


def array_module(array):
    """The module that computes on ``array``: NumPy for NumPy arrays, CuPy for CuPy arrays.

    ``forward`` methods receive raw arrays; they call ``array_module(x).exp(x)`` and the
    like so that one code path serves every device.
    """
    if isinstance(array, np.ndarray) or isinstance(array, np.generic):
        return np
    import cupy  # optional (the cuda extra): only on a GPU

    return cupy.get_array_module(array)


def is_number(value) -> bool:
    """A Python (or NumPy scalar) number: ops treat it as a constant, never as a tensor."""
    return isinstance(value, numbers.Number) and not isinstance(value, Tensor)


def as_operand(value, like: Tensor):
    """A Tensor or a Python number; lists and NumPy arrays become tensors on ``like``'s device."""
    if isinstance(value, Tensor) or is_number(value):
        if isinstance(value, np.generic):
            return value.item()
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return as_tensor(value, device=like._device)
    raise TypeError(f"unsupported operand type: expected a Tensor or a number, but got {type(value).__name__}")


def check_same_device(*tensors) -> None:
    device = None
    for tensor in tensors:
        if isinstance(tensor, Tensor):
            if device is None:
                device = tensor._device
            elif tensor._device is not device:
                common_device(tensors)  # PyTorch's error, unless the odd ones out are 0-d CPU tensors
                return


def cast(tensor: Tensor, dtype: _dtype.dtype) -> Tensor:
    """``tensor`` converted to ``dtype`` (differentiably), or itself when it already has it."""
    if tensor._data.dtype == dtype.numpy_dtype:
        return tensor
    return to(tensor, dtype)


def promote(a, b, result: _dtype.dtype | None = None):
    """Cast tensor operands to their common dtype (PyTorch's rules); numbers stay numbers.

    NumPy 2 treats Python numbers as "weak", so ``float32_array * 2.5`` stays float32,
    just like PyTorch: only the tensors need casting.
    """
    if result is None:
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.dtype == b._data.dtype:
            return a, b, _dtype.from_numpy_dtype(a._data.dtype)
        result = _dtype.result_type(a, b)
    if isinstance(a, Tensor):
        a = cast(a, result)
    if isinstance(b, Tensor):
        b = cast(b, result)
    return a, b, result


def check_broadcastable(a, b) -> None:
    """PyTorch's error for shapes that do not broadcast: sizes and the dimension named."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.shape != b._data.shape:
        broadcast_shapes(a._data.shape, b._data.shape)


def normalize_dims(dim, ndim: int) -> tuple:
    """``dim`` (None, an int, or a sequence) as a sorted tuple of non-negative axes; None means all."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        axes = tuple(wrap_dim(d, ndim) for d in dim)
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
        return tuple(sorted(axes))
    return (wrap_dim(dim, ndim),)


def _has_integer_array(key) -> bool:
    return any(getattr(part, "dtype", None) is not None and part.dtype.kind in "iu" for part in key)


def _add_at(target, key, values) -> None:
    """``target[key] += values``, adding once per occurrence of an index that repeats."""
    if not _has_integer_array(key):
        target[key] += values  # slices and masks never name an element twice: the plain (faster) add is exact
    elif isinstance(target, np.ndarray):
        np.add.at(target, key, values)
    else:
        import cupyx  # optional (the cuda extra): only on a GPU

        cupyx.scatter_add(target, key, values)
