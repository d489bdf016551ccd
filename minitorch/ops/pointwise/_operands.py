"""What the pointwise ops share: checking and promoting operands, and wrapping results that need no graph.

Binary ops broadcast like NumPy and promote dtypes like PyTorch (``_util.promote``; Python ints that
do not fit an integer result wrap around, as PyTorch converts them): ``_prepare`` does both.
Functions that are never differentiable (comparisons, logic, ``isnan``) skip the Op machinery:
they compute on the arrays and wrap the result (``_direct``).
"""

from __future__ import annotations

import numpy as np

from ... import _dtype, _messages
from ..._memory_format import in_layout_of_result
from ..._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from .._util import (
    array_module,
    as_operand,
    cast,
    check_broadcastable,
    check_same_device,
    is_number,
    promote,
)

# NumPy warns about overflow, 0/0, inf - inf and log(0); PyTorch silently returns inf or nan.
# Forwards that can meet those values run under this decorator (CuPy never warns anyway). Speed only: Add, Sub and
# Mul are left outside it (their ``forward`` says "not @_quiet"), though inf - inf and 0 * inf make NumPy warn:
# entering ``np.errstate`` costs more than the arithmetic itself on small tensors, and those values are rare.
_quiet = np.errstate(all="ignore")


_INTEGER_RANGES = {
    np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max)) for t in (np.uint8, np.int8, np.int16, np.int32, np.int64)
}


# -- helpers ------------------------------------------------------------------------------
def _dtype_of(tensor_or_array) -> _dtype.dtype:
    data = tensor_or_array._data if isinstance(tensor_or_array, Tensor) else tensor_or_array
    return _dtype.from_numpy_dtype(data.dtype)


def _not_implemented(kernel: str, tensor) -> NotImplementedError:
    """PyTorch's error for a dtype an op has no kernel for: ``"abs_cpu" not implemented for 'Bool'``."""
    return NotImplementedError(_messages.not_implemented_for(kernel, _dtype_of(tensor)))


def _require_tensor(value, function: str, argument: str = "input", position: int = 1) -> None:
    """PyTorch's ``TypeError`` for a non-tensor where a tensor is wanted (``neg(3)``, ``atan2(x, 2.0)``)."""
    if not isinstance(value, Tensor):
        raise TypeError(_messages.must_be_tensor(function, value, argument, position))


def _fit_integer(value: int, numpy_dtype):
    """A Python int converted to an integer dtype the way PyTorch does: wrapping around (300 -> 44 in uint8).

    NumPy 2 refuses out-of-range Python ints instead (``OverflowError``).
    """
    low, high = _INTEGER_RANGES[numpy_dtype]
    if low <= value <= high:
        return value
    return int(np.array(value, dtype=np.int64).astype(numpy_dtype))


def _prepare(a, b, function: str, result=None, floating: bool = False):
    """Two operands ready for a binary op: checked, promoted to their common dtype, numbers kept as numbers.

    ``floating=True`` turns an integer or bool result type into the default float (true division).
    """
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a._device is not b._device:
            check_same_device(a, b)
        if a._data.shape != b._data.shape:
            check_broadcastable(a, b)
    else:  # a number (or a list) on one side
        like = a if isinstance(a, Tensor) else b
        if not isinstance(like, Tensor):
            _require_tensor(a, function)
        if type(a) not in _PLAIN_NUMBERS:
            a = as_operand(a, like)
        if type(b) not in _PLAIN_NUMBERS:
            b = as_operand(b, like)
    if result is None and floating:
        result = _dtype.result_type(a, b)
        if not result.is_floating_point:
            result = _dtype.get_default_dtype()
    return _promote(a, b, result)


_PLAIN_NUMBERS = (int, float, bool)


def _promote(a, b, result=None):
    """``_util.promote`` (PyTorch's rules; numbers stay numbers), and Python ints fitted into an integer result."""
    a, b, result = promote(a, b, result)
    if result.category == _dtype.INTEGER:
        if type(a) is int:
            a = _fit_integer(a, result.numpy_dtype)
        if type(b) is int:
            b = _fit_integer(b, result.numpy_dtype)
    return a, b, result


def _as_floating(x, function: str) -> Tensor:
    """``x`` itself if floating, else converted to the default float dtype (``exp(int_tensor)`` is float32)."""
    _require_tensor(x, function)
    if _dtype.is_floating(x._data.dtype):
        return x
    return cast(x, _dtype.get_default_dtype())


def _raw(value, numpy_dtype):
    """The array of a tensor (or a number) in ``numpy_dtype``: for ops that build no graph."""
    if isinstance(value, Tensor):
        data = value._data
        return data if data.dtype == numpy_dtype else data.astype(numpy_dtype)
    if type(value) is int and numpy_dtype.kind in "iu":
        return _fit_integer(value, numpy_dtype)
    return value


def _promoted_arrays(a, b, function: str):
    """Raw operands of a non-differentiable binary op, promoted like PyTorch; also their dtype and device."""
    like = a if isinstance(a, Tensor) else b
    if not isinstance(like, Tensor):
        _require_tensor(a, function)
    a, b = as_operand(a, like), as_operand(b, like)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a._device is not b._device:
            check_same_device(a, b)
        if a._data.shape != b._data.shape:
            check_broadcastable(a, b)
        if a._data.dtype == b._data.dtype:
            return a._data, b._data, _dtype.from_numpy_dtype(a._data.dtype), like._device
    result = _dtype.result_type(a, b)
    return _raw(a, result.numpy_dtype), _raw(b, result.numpy_dtype), result, like._device


def _direct(device, function, *arrays) -> Tensor:
    """Run ``function`` on raw arrays on ``device`` and wrap the result: no graph, for non-differentiable results."""
    if device.type == "cpu":
        result = function(*arrays)
    else:
        with device.backend.use_device(device.index):
            result = function(*arrays)
    if len(arrays) > 1 and not isinstance(result, tuple):  # operands laid out differently: PyTorch's order, not NumPy's
        result = in_layout_of_result(result, arrays)
    if isinstance(result, np.generic):  # NumPy turns 0-d results into scalars; a tensor holds an array
        result = np.asarray(result)
    return Tensor._make(result, device)


def _apply_in_layout(op, *operands) -> Tensor:
    """``op.apply(*operands)`` for an op of two or more operands, its output laid out in memory as PyTorch's
    (``_memory_format.layout_of_result``: the first operand that tells two axes apart decides their order).

    NumPy allocates the result in its own order, which differs from PyTorch's only when the operands are laid
    out differently (a channels-last image times a row-major one); then the result is copied into PyTorch's."""
    output = op.apply(*operands)
    arrays = [operand._data for operand in operands if isinstance(operand, Tensor)]
    if len(arrays) > 1:  # with one tensor (and numbers), NumPy keeps its order, as PyTorch does
        output._data = in_layout_of_result(output._data, arrays)
    return output


def _zeros_like(tensor: Tensor) -> Tensor:
    """The gradient of a piecewise-constant op (floor, sign...): zeros, with no graph behind them."""
    return _direct(tensor._device, tensor._xp.zeros_like, tensor._data)


def _module(a, b):
    """The array module of whichever operand is an array (the other may be a Python number)."""
    return array_module(b if is_number(a) else a)


def _check_integer_divisor(divisor) -> None:
    """Integer division by zero is an error in PyTorch (NumPy would warn and return 0)."""
    if is_number(divisor):
        if divisor == 0:
            raise RuntimeError("ZeroDivisionError")
    elif divisor.dtype.kind in "iub" and not divisor.all():
        raise RuntimeError("ZeroDivisionError")


def _integer_copy(input: Tensor) -> Tensor:
    """Rounding an integer tensor changes nothing: a fresh copy, as PyTorch returns."""
    return _direct(input._device, input._data.copy)


def _bool_operand(value) -> bool:
    return (isinstance(value, Tensor) and value._data.dtype == bool) or type(value) is bool
