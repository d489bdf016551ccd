"""Comparisons and logic: ``eq``, ``lt``..., ``isnan``..., ``isin``, ``logical_*``, ``bitwise_*``, ``gcd``,
``isclose``, ``nan_to_num``.

Comparisons and logic are never differentiable: they compute on the arrays directly (``_direct``),
with no graph.
"""

from __future__ import annotations

import builtins
import math
import operator

from ... import _dtype, _messages
from ..._memory_format import in_layout_of_result
from ..._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ...autograd.function import Op
from .._util import (
    array_module,
    check_broadcastable,
    check_same_device,
    is_number,
)
from ._operands import (
    _bool_operand,
    _direct,
    _integer_copy,
    _not_implemented,
    _promoted_arrays,
    _quiet,
    _raw,
    _require_tensor,
)
from .selection import where


# -- comparisons and logic (never differentiable: computed directly) --------------------------
def _compare(compare, input, other, function: str) -> Tensor:
    """``compare(input, other)`` on the promoted arrays (numbers allowed on either side), as a bool tensor."""
    a, b, _, device = _promoted_arrays(input, other, function)
    return _direct(device, compare, a, b)


def eq(input, other) -> Tensor:
    """``input == other`` elementwise, as a bool tensor (numbers allowed on either side)."""
    return _compare(operator.eq, input, other, "eq")


def ne(input, other) -> Tensor:
    """``input != other`` elementwise, as a bool tensor."""
    return _compare(operator.ne, input, other, "ne")


def lt(input, other) -> Tensor:
    """``input < other`` elementwise, as a bool tensor."""
    return _compare(operator.lt, input, other, "lt")


def le(input, other) -> Tensor:
    """``input <= other`` elementwise, as a bool tensor."""
    return _compare(operator.le, input, other, "le")


def gt(input, other) -> Tensor:
    """``input > other`` elementwise, as a bool tensor."""
    return _compare(operator.gt, input, other, "gt")


def ge(input, other) -> Tensor:
    """``input >= other`` elementwise, as a bool tensor."""
    return _compare(operator.ge, input, other, "ge")


not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge


def isnan(input: Tensor) -> Tensor:
    """True where an element is NaN (never for integer tensors)."""
    _require_tensor(input, "isnan")
    if not _dtype.is_floating(input._data.dtype):
        return _direct(input._device, lambda x: input._xp.zeros(x.shape, dtype=bool), input._data)
    return _direct(input._device, input._xp.isnan, input._data)


def isinf(input: Tensor) -> Tensor:
    """True where an element is +inf or -inf."""
    _require_tensor(input, "isinf")
    if not _dtype.is_floating(input._data.dtype):
        return _direct(input._device, lambda x: input._xp.zeros(x.shape, dtype=bool), input._data)
    return _direct(input._device, input._xp.isinf, input._data)


def isfinite(input: Tensor) -> Tensor:
    """True where an element is neither infinite nor NaN."""
    _require_tensor(input, "isfinite")
    if not _dtype.is_floating(input._data.dtype):
        return _direct(input._device, lambda x: input._xp.ones(x.shape, dtype=bool), input._data)
    return _direct(input._device, input._xp.isfinite, input._data)


def isposinf(input: Tensor) -> Tensor:
    """True where an element is +inf."""
    _require_tensor(input, "isposinf")
    return _direct(input._device, lambda x: x == math.inf, input._data)


def isneginf(input: Tensor) -> Tensor:
    """True where an element is -inf."""
    _require_tensor(input, "isneginf")
    return _direct(input._device, lambda x: x == -math.inf, input._data)


def isreal(input: Tensor) -> Tensor:
    """True where an element is real: everywhere, as minitorch has no complex tensors."""
    _require_tensor(input, "isreal")
    return _direct(input._device, lambda x: input._xp.ones(x.shape, dtype=bool), input._data)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """True where an element of ``elements`` occurs in ``test_elements`` (either may be a number), with
    ``elements``' shape; ``invert=True`` asks where it does not. Compared in the promoted dtype; NaN matches nothing.

        >>> import minitorch
        >>> minitorch.isin(minitorch.tensor([[1, 2], [3, 4]]), minitorch.tensor([2, 3]))
        tensor([[False,  True],
                [ True, False]])
    """
    if not (isinstance(elements, Tensor) and (isinstance(test_elements, Tensor) or is_number(test_elements))) and not (
        is_number(elements) and isinstance(test_elements, Tensor)
    ):
        raise TypeError(
            f"isin() received an invalid combination of arguments - got ({type(elements).__name__}, "
            f"{type(test_elements).__name__}), but expected (Tensor elements, Tensor test_elements), "
            "(Number element, Tensor test_elements) or (Tensor elements, Number test_element)"
        )
    for value in (elements, test_elements):
        if _bool_operand(value):
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    like = elements if isinstance(elements, Tensor) else test_elements
    if isinstance(elements, Tensor) and isinstance(test_elements, Tensor):
        check_same_device(elements, test_elements)
    result = _dtype.result_type(elements, test_elements)
    xp = like._xp

    def membership(values, tests):
        return xp.isin(xp.asarray(values, dtype=result.numpy_dtype), xp.asarray(tests, dtype=result.numpy_dtype),
                       assume_unique=assume_unique, invert=invert)

    numpy_dtype = result.numpy_dtype
    return _direct(like._device, membership, _raw(elements, numpy_dtype), _raw(test_elements, numpy_dtype))


def _integer_binary(function_name: str, input: Tensor, other: Tensor) -> Tensor:
    """``gcd``/``lcm``: elementwise on integer tensors only (PyTorch has no kernels for floats or bools)."""
    _require_tensor(input, function_name)
    _require_tensor(other, function_name, "other", 2)
    a, b, result, device = _promoted_arrays(input, other, function_name)
    if result.category != _dtype.INTEGER:
        raise NotImplementedError(_messages.not_implemented_for(f"{function_name}_cpu", result))
    return _direct(device, getattr(array_module(a), function_name), a, b)


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """The greatest common divisor of each pair of integers (never negative; ``gcd(0, 0) = 0``).

        >>> import minitorch
        >>> minitorch.gcd(minitorch.tensor([12, -9, 0]), minitorch.tensor([18, 6, 0]))
        tensor([6, 3, 0])
    """
    return _integer_binary("gcd", input, other)


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple of each pair of integers (never negative; 0 if either is 0).

    Like PyTorch, it is computed in the integers' own dtype, so a multiple too large for it wraps around.
    """
    return _integer_binary("lcm", input, other)


class NanToNum(Op):
    """``y = x`` with NaN, +inf and -inf replaced by numbers;  ``dx = grad`` where ``x`` is finite, else 0."""

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        xp = array_module(x)
        if ctx.needs_input_grad and ctx.needs_input_grad[0]:
            ctx.save_for_backward(xp.isfinite(x))
        # None means the largest (smallest) finite value of the dtype, as in PyTorch
        if x.dtype in _dtype.ACCUMULATE_IN:  # bfloat16: NumPy's nan_to_num knows only its own floats
            info = xp.finfo(x.dtype)
            posinf, neginf = info.max if posinf is None else posinf, info.min if neginf is None else neginf
            return xp.nan_to_num(x.astype(xp.float32), nan=nan, posinf=posinf, neginf=neginf).astype(x.dtype)
        return in_layout_of_result(xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf), [x])  # an expanded x

    @staticmethod
    def backward(ctx, grad):
        (is_finite,) = ctx.saved_tensors
        return where(is_finite, grad, 0.0), None, None, None


def nan_to_num(input: Tensor, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """``input`` with NaN replaced by ``nan`` and infinities by ``posinf``/``neginf`` (the dtype's extremes by default).

        >>> import minitorch
        >>> minitorch.nan_to_num(minitorch.tensor([float("nan"), 1.0, float("-inf")]), neginf=-9.0)
        tensor([ 0.,  1., -9.])
    """
    _require_tensor(input, "nan_to_num")
    if not _dtype.is_floating(input._data.dtype):  # integers have no NaN or inf: a copy, as PyTorch returns
        return _integer_copy(input)
    return NanToNum.apply(input, 0.0 if nan is None else nan, posinf, neginf)


def _logical(function_name: str, input: Tensor, other: Tensor) -> Tensor:
    """``xp.<function_name>`` of the truth values (nonzero is True), as a bool tensor."""
    _require_tensor(input, function_name)
    _require_tensor(other, function_name, "other", 2)
    check_same_device(input, other)
    check_broadcastable(input, other)
    return _direct(input._device, getattr(input._xp, function_name), input._data, other._data)


def logical_and(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``logical_and`` of the truth values (nonzero is True), as a bool tensor."""
    return _logical("logical_and", input, other)


def logical_or(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``logical_or`` of the truth values (nonzero is True), as a bool tensor."""
    return _logical("logical_or", input, other)


def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``logical_xor`` of the truth values (nonzero is True), as a bool tensor."""
    return _logical("logical_xor", input, other)


def logical_not(input: Tensor) -> Tensor:
    """True where an element is zero (or False), as a bool tensor."""
    _require_tensor(input, "logical_not")
    return _direct(input._device, input._xp.logical_not, input._data)


def _bitwise(function_name: str, input, other) -> Tensor:
    """``xp.<function_name>`` of bool or integer tensors (and Python ints or bools), promoted like PyTorch."""
    a, b, result, device = _promoted_arrays(input, other, function_name)
    if result.is_floating_point:
        raise NotImplementedError(_messages.not_implemented_for(f"{function_name}_cpu", result))
    xp = array_module(b if is_number(a) else a)
    return _direct(device, getattr(xp, function_name), a, b)


def bitwise_and(input, other) -> Tensor:
    """Elementwise ``bitwise_and`` of bool or integer tensors (and Python ints or bools)."""
    return _bitwise("bitwise_and", input, other)


def bitwise_or(input, other) -> Tensor:
    """Elementwise ``bitwise_or`` of bool or integer tensors (and Python ints or bools)."""
    return _bitwise("bitwise_or", input, other)


def bitwise_xor(input, other) -> Tensor:
    """Elementwise ``bitwise_xor`` of bool or integer tensors (and Python ints or bools)."""
    return _bitwise("bitwise_xor", input, other)


def _shift(function_name: str, kernel_name: str, input, other) -> Tensor:
    """``xp.<function_name>`` of integer tensors; PyTorch names its kernel ``lshift``/``rshift`` in errors."""
    a, b, result, device = _promoted_arrays(input, other, function_name)
    if result.is_floating_point:
        raise NotImplementedError(_messages.not_implemented_for(f"{kernel_name}_cpu", result))
    xp = array_module(b if is_number(a) else a)
    return _direct(device, getattr(xp, function_name), a, b)


def bitwise_left_shift(input, other) -> Tensor:
    """``input << other`` for integer tensors: ``input * 2**other``, wrapping at the dtype's width (0 past it)."""
    return _shift("left_shift", "lshift", input, other)


def bitwise_right_shift(input, other) -> Tensor:
    """``input >> other`` for integer tensors: an arithmetic shift (keeps the sign bit; -1 or 0 past the width)."""
    return _shift("right_shift", "rshift", input, other)


def bitwise_not(input: Tensor) -> Tensor:
    """``~input``: logical not for bool tensors, bit flip for integer tensors."""
    _require_tensor(input, "bitwise_not")
    if _dtype.is_floating(input._data.dtype):
        raise _not_implemented("bitwise_not_cpu", input)
    return _direct(input._device, input._xp.invert, input._data)


def equal(input: Tensor, other: Tensor) -> bool:
    """True if both tensors have the same shape and the same elements (a Python bool)."""
    _require_tensor(input, "equal")
    _require_tensor(other, "equal", "other", 2)
    check_same_device(input, other)
    if input._data.shape != other._data.shape:
        return False
    a, b, _, _ = _promoted_arrays(input, other, "equal")
    return builtins.bool((a == b).all())


@_quiet  # inf - inf is NaN here on purpose; it is caught by isfinite
def _isclose_arrays(xp, a, b, rtol, atol, equal_nan):
    close = a == b
    if equal_nan and _dtype.is_floating(a.dtype):
        close |= xp.isnan(a) & xp.isnan(b)
    if rtol == 0 and atol == 0:
        return close
    if not _dtype.is_floating(a.dtype):
        default = _dtype.get_default_dtype().numpy_dtype
        a, b = a.astype(default), b.astype(default)
    allowed_error = atol + xp.abs(rtol * b)
    actual_error = xp.abs(a - b)
    return close | (xp.isfinite(actual_error) & (actual_error <= allowed_error))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """True where ``|input - other| <= atol + rtol * |other|`` (or both equal), as a bool tensor."""
    _require_tensor(input, "isclose")
    _require_tensor(other, "isclose", "other", 2)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{input.dtype.type_name} did not match {other.dtype.type_name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    check_same_device(input, other)
    check_broadcastable(input, other)
    return _direct(
        input._device, lambda a, b: _isclose_arrays(input._xp, a, b, rtol, atol, equal_nan), input._data, other._data
    )


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True if every element of ``input`` is close to ``other`` (see ``isclose``): a Python bool."""
    _require_tensor(input, "allclose")
    _require_tensor(other, "allclose", "other", 2)
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan)._data.all())
