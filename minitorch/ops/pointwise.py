"""Elementwise ops: arithmetic, math functions, comparisons and logic.

Binary ops broadcast like NumPy and promote dtypes like PyTorch (``_util.promote``; Python
ints that do not fit an integer result wrap around, as PyTorch converts them).
Their backward returns the gradient at the *broadcast* shape; the engine sums it back
to each input's shape, in one place for every op.

Each ``Op`` below keeps forward (on arrays) and backward (on Tensors) together, with the
derivative written in its docstring. The backward formulas are PyTorch's own (from its
``derivatives.yaml``), including its conventions at points where the math has no
derivative: ``abs'(0) = 0``, ``relu'(0) = 0``, ``floor`` and friends have gradient 0.

Functions that are never differentiable (comparisons, logic, ``isnan``) skip the Op
machinery: they compute on the arrays and wrap the result (``_direct``).

Sections: helpers · arithmetic · powers and roots · exponentials and logarithms ·
trigonometry · activations · rounding and piecewise functions · selection and blending ·
comparisons and logic.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtype, _messages, return_types
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op
from ._util import (
    array_module,
    as_operand,
    broadcast_shapes,
    cast,
    check_broadcastable,
    check_same_device,
    is_number,
    promote,
)

# NumPy warns about overflow, 0/0, inf - inf and log(0); PyTorch silently returns inf or nan.
# Forwards that can meet those values run under this decorator (CuPy never warns anyway).
_quiet = np.errstate(all="ignore")


def _not_quiet(forward):
    """Speed only: marks a forward left outside ``_quiet`` (Add, Sub, Mul); it returns ``forward`` unchanged.

    Written plainly these forwards would carry ``@_quiet``, as inf - inf and 0 * inf make NumPy warn.
    But entering ``np.errstate`` costs more than the arithmetic itself on small tensors, and those
    values are rare on the hot path of training.
    """
    return forward


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


def _binary(op, a, b, function: str = "add", result=None):
    """Prepare two operands (numbers stay numbers) and apply ``op``."""
    if result is None and _nothing_to_prepare(a, b):  # speed only: see _nothing_to_prepare
        return op.apply(a, b)
    a, b, _ = _prepare(a, b, function, result)
    return op.apply(a, b)


def _nothing_to_prepare(a, b) -> bool:
    """Speed only: two tensors of one dtype and one shape, which ``_prepare`` would hand back unchanged.

    Without this shortcut ``_binary`` is its last two lines, and gives the same results::

        a, b, _ = _prepare(a, b, function, result)
        return op.apply(a, b)

    ``_binary`` runs for every ``x + y``, ``x * y``... of a training step, and most of those meet
    operands of one dtype and shape: there is nothing to promote and no broadcast to check, so the
    shortcut skips ``_prepare``'s calls (a device mismatch is still refused, by ``Function.apply``).
    """
    return (
        isinstance(a, Tensor) and isinstance(b, Tensor)
        and a._data.dtype == b._data.dtype and a._data.shape == b._data.shape
    )


def _as_floating(x, function: str) -> Tensor:
    """``x`` itself if floating, else converted to the default float dtype (``exp(int_tensor)`` is float32)."""
    _require_tensor(x, function)
    if x._data.dtype.kind == "f":
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
    if isinstance(result, np.generic):  # NumPy turns 0-d results into scalars; a tensor holds an array
        result = np.asarray(result)
    return Tensor._make(result, device)


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


# -- arithmetic -------------------------------------------------------------------------
class Add(Op):
    """``y = a + b``;  ``da = grad``,  ``db = grad``."""

    wraps_numbers = True  # c + 1 lists the 1 as an input: (None, 0) in next_functions

    @staticmethod
    @_not_quiet
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Sub(Op):
    """``y = a - b``;  ``da = grad``,  ``db = -grad``."""

    wraps_numbers = True  # c + 1 lists the 1 as an input: (None, 0) in next_functions

    @staticmethod
    @_not_quiet
    def forward(ctx, a, b):
        return a - b

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad


class Mul(Op):
    """``y = a * b``;  ``da = grad * b``,  ``db = grad * a``."""

    wraps_numbers = True  # c + 1 lists the 1 as an input: (None, 0) in next_functions

    @staticmethod
    @_not_quiet
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad * b if ctx.needs_input_grad[0] else None
        grad_b = grad * a if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Div(Op):
    """``y = a / b``;  ``da = grad / b``,  ``db = -grad * a / b**2``."""

    wraps_numbers = True  # c + 1 lists the 1 as an input: (None, 0) in next_functions

    @staticmethod
    @_quiet
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a / b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad / b if ctx.needs_input_grad[0] else None
        grad_b = -grad * a / (b * b) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def _integer_trunc_divide(xp, a, b):
    """``a / b`` rounded toward zero for integers, exactly (no detour through floats).

    ``a - fmod(a, b)`` is a multiple of ``b``, so the floor division that follows is exact.
    """
    return xp.floor_divide(a - xp.fmod(a, b), b)


class DivRounded(Op):
    """``y = floor(a / b)`` or ``trunc(a / b)``: a step function, so ``da = 0``, ``db = 0``."""

    node_name = "DivBackward2"
    wraps_numbers = True  # x.div(2, rounding_mode="floor") lists the 2 as an input, as PyTorch does

    @staticmethod
    @_quiet
    def forward(ctx, a, b, rounding_mode):
        xp = _module(a, b)
        if (a if not is_number(a) else b).dtype.kind in "iub":
            _check_integer_divisor(b)
            if rounding_mode == "floor":
                return xp.floor_divide(a, b)
            return _integer_trunc_divide(xp, a, b)
        if rounding_mode == "floor":
            return xp.floor_divide(a, b)  # NumPy and PyTorch share the same careful float algorithm
        return xp.trunc(a / b)

    @staticmethod
    def backward(ctx, grad):
        zeros = _zeros_like(grad)
        return (zeros if ctx.needs_input_grad[0] else None), (zeros if ctx.needs_input_grad[1] else None), None


class FloorDivide(DivRounded):
    """``y = floor(a / b)`` as ``a // b``; PyTorch defines no derivative for it, and neither do we.

    (``div(a, b, rounding_mode="floor")`` computes the same values with a zero gradient.)
    """

    node_name = "NotImplemented"

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class Remainder(Op):
    """``y = a - floor(a / b) * b`` (the sign of ``b``, Python's ``%``);
    ``da = grad``,  ``db = -grad * floor(a / b)``."""

    @staticmethod
    @_quiet
    def forward(ctx, a, b):
        if (a if not is_number(a) else b).dtype.kind in "iub":
            _check_integer_divisor(b)
        ctx.save_for_backward(a, b)
        return _module(a, b).remainder(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad if ctx.needs_input_grad[0] else None
        grad_b = -grad * div(a, b, rounding_mode="floor") if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Fmod(Op):
    """``y = a - trunc(a / b) * b`` (the sign of ``a``, C's ``fmod``);
    ``da = grad``,  ``db = -grad * trunc(a / b)``."""

    @staticmethod
    @_quiet
    def forward(ctx, a, b):
        if (a if not is_number(a) else b).dtype.kind in "iub":
            _check_integer_divisor(b)
        ctx.save_for_backward(a, b)
        return _module(a, b).fmod(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad if ctx.needs_input_grad[0] else None
        grad_b = -grad * div(a, b, rounding_mode="trunc") if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Neg(Op):
    """``y = -x``;  ``dx = -grad``."""

    @staticmethod
    def forward(ctx, x):
        return -x

    @staticmethod
    def backward(ctx, grad):
        return -grad


def _bool_operand(value) -> bool:
    return (isinstance(value, Tensor) and value._data.dtype == bool) or type(value) is bool


def _scaled(b, alpha, a):
    """``alpha * b`` for ``add``/``sub``; a float alpha is refused for integer results, as in PyTorch."""
    if isinstance(alpha, float) and not _dtype.result_type(a, b).is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return b * alpha if is_number(b) else mul(b, alpha)


def add(input, other, *, alpha=1) -> Tensor:
    """``input + alpha * other`` with broadcasting and type promotion.

        >>> import minitorch
        >>> minitorch.add(minitorch.tensor([1, 2]), 0.5)
        tensor([1.5000, 2.5000])
    """
    if alpha != 1:
        other = _scaled(other, alpha, input)
    return _binary(Add, input, other, "add")


def sub(input, other, *, alpha=1) -> Tensor:
    """``input - alpha * other`` with broadcasting (not defined for bool tensors)."""
    return _subtract(Sub, input, other, alpha)


def _subtract(op, input, other, alpha) -> Tensor:
    """``input - alpha * other`` recorded as ``op`` (``Sub``, or one of the ``Rsub`` names)."""
    if _bool_operand(input) or _bool_operand(other):
        if _bool_operand(input) and _bool_operand(other):
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead."
            )
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead."
        )
    if alpha != 1:
        other = _scaled(other, alpha, input)
    return _binary(op, input, other, "sub")


subtract = sub


class Rsub(Sub):
    """``y = b - a`` for ``torch.rsub(a, b)``: ``Sub`` on the swapped operands, under PyTorch's name."""

    node_name = "RsubBackward0"


class RsubScalar(Sub):
    node_name = "RsubBackward1"  # PyTorch's name when a number comes first: 2 - x is rsub(x, 2)
    wraps_numbers = False  # rsub(Tensor, Scalar) takes the number as a setting: one entry in next_functions


def rsub(input, other, *, alpha=1) -> Tensor:
    """``other - alpha * input`` (``torch.rsub``; also what ``number - tensor`` computes)."""
    return _subtract(Rsub if isinstance(other, Tensor) else RsubScalar, other, input, alpha)


def mul(input, other) -> Tensor:
    """``input * other`` with broadcasting and type promotion."""
    return _binary(Mul, input, other, "mul")


multiply = mul


def div(input, other, *, rounding_mode=None) -> Tensor:
    """True division (integers give floats); ``rounding_mode`` "floor" or "trunc" rounds the quotient.

        >>> import minitorch
        >>> minitorch.div(minitorch.tensor([7, -7]), 2, rounding_mode="trunc")
        tensor([ 3, -3])
    """
    if rounding_mode is None:
        if _floating_operands(input, other):
            return _binary(Div, input, other, "div")
        return _true_divide(input, other)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )
    a, b, result = _prepare(input, other, "div")
    _refuse_bool(result, f"div_{rounding_mode}_cpu")
    return DivRounded.apply(a, b, rounding_mode)


def _floating_operands(a, b) -> bool:
    """Both operands already floating tensors of one dtype (the common case: no promotion needed)."""
    return (
        isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.dtype == b._data.dtype and a._data.dtype.kind == "f"
    )


def _true_divide(a, b) -> Tensor:
    a, b, _ = _prepare(a, b, "div", floating=True)
    return Div.apply(a, b)


divide = true_divide = div


def _refuse_bool(result, kernel: str) -> None:
    if result.category == _dtype.BOOL:
        raise NotImplementedError(_messages.not_implemented_for(kernel, _dtype.bool))


def floor_divide(input, other) -> Tensor:
    """``input // other``: the quotient rounded down (Python's ``//``); integer division by zero is an error."""
    a, b, result = _prepare(input, other, "floor_divide")
    _refuse_bool(result, "div_floor_cpu")
    return FloorDivide.apply(a, b, "floor")


class RemainderTensor(Remainder):
    node_name = "RemainderBackward1"  # PyTorch's name when both operands are tensors


class FmodTensor(Fmod):
    node_name = "FmodBackward1"


def remainder(input, other) -> Tensor:
    """``input % other`` with the sign of ``other`` (Python's ``%``)."""
    a, b, result = _prepare(input, other, "remainder")
    _refuse_bool(result, "remainder_cpu")
    return (RemainderTensor if isinstance(a, Tensor) and isinstance(b, Tensor) else Remainder).apply(a, b)


def fmod(input, other) -> Tensor:
    """The remainder of ``input / other`` with the sign of ``input`` (C's ``fmod``)."""
    a, b, result = _prepare(input, other, "fmod")
    _refuse_bool(result, "fmod_cpu")
    return (FmodTensor if isinstance(a, Tensor) and isinstance(b, Tensor) else Fmod).apply(a, b)


def neg(input: Tensor) -> Tensor:
    """``-input`` (not defined for bool tensors)."""
    _require_tensor(input, "neg")
    if input._data.dtype == bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
            "the `~` or `logical_not()` operator instead."
        )
    return Neg.apply(input)


negative = neg


def positive(input: Tensor) -> Tensor:
    """``+input``: the tensor itself (not defined for bool tensors, as in PyTorch)."""
    _require_tensor(input, "positive")
    if input._data.dtype == bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# -- powers and roots -------------------------------------------------------------------
def _integer_power(xp, base, exponent):
    """``base ** exponent`` for integers, with PyTorch's answer for negative exponents.

    ``x ** -n`` is ``1 / x**n``: 1 for ``x = 1``, +-1 for ``x = -1``, and 0 (truncated) for
    every other integer, including 0. NumPy refuses negative integer powers instead.
    """
    if exponent.dtype.kind != "i" or not (exponent < 0).any():
        return xp.power(base, exponent)
    magnitude = xp.power(base, xp.abs(exponent))
    return xp.where((exponent < 0) & (base != 1) & (base != -1), 0, magnitude)


class PowScalar(Op):
    """``y = x ** p`` for a number ``p``;  ``dx = grad * p * x ** (p - 1)`` (0 when ``p = 0``)."""

    node_name = "PowBackward0"

    @staticmethod
    @_quiet
    def forward(ctx, x, exponent):
        ctx.save_for_backward(x)
        ctx.exponent = exponent
        return x**exponent

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        exponent = ctx.exponent
        if exponent == 0:
            return _zeros_like(x), None
        return grad * (exponent * x ** (exponent - 1)), None


class Pow(Op):
    """``y = a ** b`` for two tensors;  ``da = grad * b * a ** (b - 1)``,  ``db = grad * y * log(a)``.

    PyTorch's conventions where the formulas break down: ``da = 0`` where ``b == 0``, and
    ``db = 0`` where ``a == 0`` and ``b >= 0`` (``0 ** b`` is flat there, although ``log 0 = -inf``).
    """

    node_name = "PowBackward1"

    @staticmethod
    @_quiet
    def forward(ctx, a, b):
        result = _integer_power(array_module(a), a, b) if a.dtype.kind in "iu" else a**b
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = where(b == 0, 0.0, grad * (b * a ** (b - 1)))
        if ctx.needs_input_grad[1]:
            grad_b = grad * where(logical_and(a == 0, b >= 0), 0.0, result * log(a))
        return grad_a, grad_b


class RPow(Op):
    """``y = c ** x`` for a number ``c``;  ``dx = grad * y * log(c)`` (0 where ``c == 0`` and ``x >= 0``)."""

    node_name = "PowBackward2"

    @staticmethod
    @_quiet
    def forward(ctx, base, exponent):
        xp = array_module(exponent)
        result = _integer_power(xp, base, exponent) if exponent.dtype.kind in "iu" else xp.power(base, exponent)
        ctx.save_for_backward(exponent, result)
        ctx.base = base
        return result

    @staticmethod
    def backward(ctx, grad):
        exponent, result = ctx.saved_tensors
        base = ctx.base
        log_base = math.log(base) if base > 0 else (-math.inf if base == 0 else math.nan)
        if base == 0:  # 0 ** x is flat for x > 0 (PyTorch's convention at x = 0 too), and inf for x < 0
            return None, grad * where(exponent >= 0, 0.0, -math.inf)
        return None, grad * (result * log_base)


def pow(input, exponent) -> Tensor:
    """``input ** exponent``: tensor ** tensor, tensor ** number, or number ** tensor.

        >>> import minitorch
        >>> minitorch.pow(minitorch.tensor([1.0, 2.0, 3.0]), 2)
        tensor([1., 4., 9.])
    """
    if isinstance(input, Tensor) and is_number(exponent):
        exponent = as_operand(exponent, input)
        result = _dtype.result_type(input, exponent)
        if result.category == _dtype.INTEGER and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if result.category == _dtype.BOOL:
            # bool ** True is the tensor itself, bool ** False is all True (x ** 0 = 1)
            return _direct(input._device, lambda x: x.copy() if exponent else input._xp.ones_like(x), input._data)
        return PowScalar.apply(cast(input, result), exponent)
    if is_number(input) and isinstance(exponent, Tensor):
        base, exponent, result = _promote(as_operand(input, exponent), exponent)
        if result.category == _dtype.BOOL:
            raise _not_implemented("pow", exponent)
        return RPow.apply(base, exponent)
    a, b, result = _prepare(input, exponent, "pow")
    if result.category == _dtype.BOOL:
        raise _not_implemented("pow", a)
    return Pow.apply(a, b)


def square(input: Tensor) -> Tensor:
    """``input ** 2`` (integers stay integers; bool becomes int64, as in PyTorch)."""
    _require_tensor(input, "square")
    return pow(input, 2)


class Sqrt(Op):
    """``y = sqrt(x)``;  ``dx = grad / (2 * y)`` (from the saved output, as PyTorch does)."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        result = array_module(x).sqrt(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad / (2 * result)


class Rsqrt(Op):
    """``y = 1 / sqrt(x)``;  ``dx = -0.5 * grad * y ** 3``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        result = 1 / array_module(x).sqrt(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return -0.5 * grad * result**3


class Reciprocal(Op):
    """``y = 1 / x``;  ``dx = -grad * y ** 2``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        result = 1 / x
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return -grad * (result * result)


def float_power(input, exponent) -> Tensor:
    """``input ** exponent`` computed in double precision: the result is always float64.

        >>> import minitorch
        >>> minitorch.float_power(minitorch.tensor([2, 3]), 2)
        tensor([4., 9.], dtype=minitorch.float64)
    """
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(
            f"float_power() received an invalid combination of arguments - got ({type(input).__name__}, "
            f"{type(exponent).__name__}), but expected (Tensor input, Tensor exponent), (Number self, Tensor exponent) "
            "or (Tensor input, Number exponent)"
        )
    # PyTorch's own definition: both operands converted to double, then pow (the gradient flows back through the casts)
    if isinstance(input, Tensor):
        input = cast(input, _dtype.float64)
    if isinstance(exponent, Tensor):
        exponent = cast(exponent, _dtype.float64)
    return pow(input, float(exponent) if is_number(exponent) else exponent)


def float_power_(input: Tensor, exponent) -> Tensor:
    """``float_power`` in place; ``input`` must already be float64, the dtype of the result."""
    from .inplace import _inplace  # inplace.py builds on this module, so it is imported on first use

    if input._data.dtype != np.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {input.dtype.type_name} but the operation's result requires "
            "dtype Double"
        )
    return _inplace(input, lambda x, *rest: float_power(x, *rest), exponent)


def sqrt(input: Tensor) -> Tensor:
    return Sqrt.apply(_as_floating(input, "sqrt"))


def rsqrt(input: Tensor) -> Tensor:
    return Rsqrt.apply(_as_floating(input, "rsqrt"))


def reciprocal(input: Tensor) -> Tensor:
    return Reciprocal.apply(_as_floating(input, "reciprocal"))


# -- exponentials and logarithms ----------------------------------------------------------
class Exp(Op):
    """``y = e ** x``;  ``dx = grad * y``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        result = array_module(x).exp(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * result


class Exp2(Op):
    """``y = 2 ** x``;  ``dx = grad * y * ln 2``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        result = array_module(x).exp2(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * result * math.log(2.0)


class Expm1(Op):
    """``y = e ** x - 1`` (accurate for small ``x``);  ``dx = grad * (y + 1)``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        result = array_module(x).expm1(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * (result + 1)


class Log(Op):
    """``y = ln x``;  ``dx = grad / x``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).log(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / x


class Log2(Op):
    """``y = log2 x``;  ``dx = grad / (x * ln 2)``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).log2(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x * math.log(2.0))


class Log10(Op):
    """``y = log10 x``;  ``dx = grad / (x * ln 10)``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).log10(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x * math.log(10.0))


class Log1p(Op):
    """``y = ln(1 + x)`` (accurate for small ``x``);  ``dx = grad / (x + 1)``."""

    node_name = "Log1PBackward0"

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).log1p(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x + 1)


def exp(input: Tensor) -> Tensor:
    return Exp.apply(_as_floating(input, "exp"))


def exp2(input: Tensor) -> Tensor:
    return Exp2.apply(_as_floating(input, "exp2"))


def expm1(input: Tensor) -> Tensor:
    return Expm1.apply(_as_floating(input, "expm1"))


def log(input: Tensor) -> Tensor:
    return Log.apply(_as_floating(input, "log"))


def log2(input: Tensor) -> Tensor:
    return Log2.apply(_as_floating(input, "log2"))


def log10(input: Tensor) -> Tensor:
    return Log10.apply(_as_floating(input, "log10"))


def log1p(input: Tensor) -> Tensor:
    return Log1p.apply(_as_floating(input, "log1p"))


class Logaddexp(Op):
    """``y = log(e ** a + e ** b)`` without overflow;
    ``da = grad / (1 + e ** (b - a))``,  ``db = grad / (1 + e ** (a - b))``."""

    @staticmethod
    @_quiet
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return array_module(a).logaddexp(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad / (1 + (b - a).exp()) if ctx.needs_input_grad[0] else None
        grad_b = grad / (1 + (a - b).exp()) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Logaddexp2(Op):
    """``y = log2(2 ** a + 2 ** b)`` without overflow;
    ``da = grad / (1 + 2 ** (b - a))``,  ``db = grad / (1 + 2 ** (a - b))``."""

    @staticmethod
    @_quiet
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return array_module(a).logaddexp2(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad / (1 + pow(2.0, b - a)) if ctx.needs_input_grad[0] else None
        grad_b = grad / (1 + pow(2.0, a - b)) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def _floating_pair(input, other, function: str):
    """Two tensors promoted together for an op with floating kernels only (``logaddexp``, ``logaddexp2``)."""
    _require_tensor(input, function)
    _require_tensor(other, function, "other", 2)
    a, b, result = _prepare(input, other, function)
    if not result.is_floating_point:
        raise _not_implemented(f"{function}_cpu", a)
    return a, b


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """``log(exp(input) + exp(other))``, computed without overflow (a smooth maximum).

        >>> import minitorch
        >>> minitorch.logaddexp(minitorch.tensor([1000.0]), minitorch.tensor([1000.0]))
        tensor([1000.6932])
    """
    return Logaddexp.apply(*_floating_pair(input, other, "logaddexp"))


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2 ** input + 2 ** other)``, computed without overflow."""
    return Logaddexp2.apply(*_floating_pair(input, other, "logaddexp2"))


class Xlogy(Op):
    """``y = a * log(b)``, and 0 where ``a = 0`` (unless ``b`` is NaN);
    ``da = grad * log(b)`` (0 where ``a = 0`` and ``b <= 0``),  ``db = grad * a / b``."""

    @staticmethod
    @_quiet
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        xp = _module(a, b)
        dtype = (b if is_number(a) else a).dtype
        # A number operand becomes a 0-d array of the result dtype (a NumPy float64 scalar would promote float32)
        a, b = xp.asarray(a, dtype=dtype), xp.asarray(b, dtype=dtype)
        return xp.where((a == 0) & ~xp.isnan(b), xp.zeros((), dtype=dtype), a * xp.log(b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            # xlogy(grad, b), not grad * log(b): it stays 0 where grad is 0 and b is 0 (PyTorch's formula)
            grad_a = xlogy(grad, b)
            if not (is_number(b) and b > 0):  # and PyTorch sets it to 0 where a = 0 and b <= 0
                flat = a == 0 if is_number(b) else logical_and(a == 0, b <= 0)
                grad_a = where(flat, 0.0, grad_a)
        if ctx.needs_input_grad[1]:
            grad_b = grad * a / b
        return grad_a, grad_b


def xlogy(input, other) -> Tensor:
    """``input * log(other)``, with ``0 * log(0) = 0`` (as in entropy formulas); numbers allowed on either side.

        >>> import minitorch
        >>> minitorch.xlogy(minitorch.tensor([0.0, 2.0]), minitorch.tensor([0.0, 1.0]))
        tensor([0., 0.])
    """
    a, b, _ = _prepare(input, other, "xlogy", floating=True)
    return Xlogy.apply(a, b)


class Logit(Op):
    """``y = log(z / (1 - z))`` with ``z = clamp(x, eps, 1 - eps)`` (``z = x`` without ``eps``);
    ``dx = grad / (x (1 - x))`` inside ``[eps, 1 - eps]`` and 0 outside (without ``eps``: NaN outside ``[0, 1]``)."""

    @staticmethod
    @_quiet
    def forward(ctx, x, eps):
        ctx.save_for_backward(x)
        ctx.eps = eps
        xp = array_module(x)
        if eps is not None:
            x = xp.clip(x, eps, 1 - eps)
        return xp.log(x / (1 - x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        eps = ctx.eps
        derivative = grad / (x * (1 - x))
        if eps is None:
            return where(logical_or(x < 0, x > 1), math.nan, derivative), None
        return where(logical_or(x < eps, x > 1 - eps), 0.0, derivative), None


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """The inverse of ``sigmoid``: ``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.

        >>> import minitorch
        >>> minitorch.logit(minitorch.tensor([0.5, 0.0]), eps=1e-6)
        tensor([  0.0000, -13.8155])
    """
    # A negative eps means no clamping, as in PyTorch
    return Logit.apply(_as_floating(input, "logit"), None if eps is None or eps < 0 else eps)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other``, elementwise (PyTorch's definition, so the result is floating).

        >>> import minitorch
        >>> minitorch.ldexp(minitorch.tensor([1.0, 3.0]), minitorch.tensor([3, -1]))
        tensor([8.0000, 1.5000])
    """
    _require_tensor(input, "ldexp")
    _require_tensor(other, "ldexp", "other", 2)
    result = _dtype.result_type(input, other)
    if not result.is_floating_point:
        result = _dtype.get_default_dtype()
    # PyTorch's arithmetic: a floating exponent is raised in its own dtype, an integer one in the result's
    # (where every power of two is exact)
    power = pow(2.0, other if other._data.dtype.kind == "f" else cast(other, result))
    return mul(cast(input, result), cast(power, result))


class Frexp(Op):
    """``mantissa, exponent`` with ``x = mantissa * 2 ** exponent`` and ``0.5 <= |mantissa| < 1`` (0 for 0);
    ``dx = grad_mantissa / 2 ** exponent`` (the exponent is a piecewise-constant integer: no gradient)."""

    @staticmethod
    def forward(ctx, x):
        xp = array_module(x)
        mantissa, exponent = xp.frexp(x)
        exponent = exponent.astype(xp.int32, copy=False)
        ctx.mark_non_differentiable(exponent)
        # 2 ** exponent in x's dtype (for the backward): exact, and finite for every finite x
        ctx.save_for_backward(xp.ldexp(xp.ones((), dtype=x.dtype), exponent))
        return mantissa, exponent

    @staticmethod
    def backward(ctx, grad_mantissa, grad_exponent):
        (scale,) = ctx.saved_tensors
        return grad_mantissa / scale


def frexp(input: Tensor):
    """``(mantissa, exponent)``: ``input = mantissa * 2 ** exponent``, with ``|mantissa|`` in ``[0.5, 1)``
    and an int32 exponent.

        >>> import minitorch
        >>> minitorch.frexp(minitorch.tensor([8.0, -0.75]))
        minitorch.return_types.frexp(
        mantissa=tensor([ 0.5000, -0.7500]),
        exponent=tensor([4, 0], dtype=minitorch.int32))
    """
    _require_tensor(input, "frexp")
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return return_types.frexp(*Frexp.apply(input))


# -- trigonometry -----------------------------------------------------------------------
class Sin(Op):
    """``y = sin x``;  ``dx = grad * cos x``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).sin(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()


class Cos(Op):
    """``y = cos x``;  ``dx = -grad * sin x``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).cos(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * -x.sin()


class Tan(Op):
    """``y = tan x``;  ``dx = grad * (1 + y ** 2)``."""

    @staticmethod
    def forward(ctx, x):
        result = array_module(x).tan(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * (1 + result * result)


class Asin(Op):
    """``y = asin x``;  ``dx = grad / sqrt(1 - x ** 2)``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).arcsin(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (1 - x * x).rsqrt()


class Acos(Op):
    """``y = acos x``;  ``dx = -grad / sqrt(1 - x ** 2)``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).arccos(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * -(1 - x * x).rsqrt()


class Atan(Op):
    """``y = atan x``;  ``dx = grad / (1 + x ** 2)``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).arctan(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x * x + 1)


class Asinh(Op):
    """``y = asinh x = log(x + sqrt(x**2 + 1))``;  ``dx = grad / sqrt(x ** 2 + 1)``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).arcsinh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x * x + 1).rsqrt()


class Acosh(Op):
    """``y = acosh x`` (``x >= 1``; NaN below);  ``dx = grad / sqrt(x ** 2 - 1)``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).arccosh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x * x - 1).rsqrt()


class Atanh(Op):
    """``y = atanh x = log((1 + x) / (1 - x)) / 2`` (``|x| < 1``);  ``dx = grad / (1 - x ** 2)``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).arctanh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (1 - x * x)


class Copysign(Op):
    """``y = |a|`` with the sign of ``b`` (the sign *bit*: ``-0.0`` counts as negative);
    ``da = grad * y / a`` (so ``+-grad``; 0 where ``a == 0``, PyTorch's convention),  ``db = 0``."""

    @staticmethod
    def forward(ctx, a, b):
        result = _module(a, b).copysign(a, b)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        grad_a = where(a == 0, 0.0, grad * (result / a)) if ctx.needs_input_grad[0] else None
        grad_b = _zeros_like(grad) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Atan2(Op):
    """``y = atan2(a, b)`` (the angle of the point ``(b, a)``);  ``da = grad * b / r2``,  ``db = -grad * a / r2``
    with ``r2 = a ** 2 + b ** 2``."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return array_module(a).arctan2(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        inverse_radius_squared = (a * a + b * b).reciprocal()
        grad_a = grad * b * inverse_radius_squared if ctx.needs_input_grad[0] else None
        grad_b = grad * -a * inverse_radius_squared if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Hypot(Op):
    """``y = sqrt(a ** 2 + b ** 2)`` (without overflow);  ``da = grad * a / y``,  ``db = grad * b / y``."""

    @staticmethod
    def forward(ctx, a, b):
        result = array_module(a).hypot(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        grad_a = grad * a / result if ctx.needs_input_grad[0] else None
        grad_b = grad * b / result if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Sinh(Op):
    """``y = sinh x``;  ``dx = grad * cosh x``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).sinh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cosh()


class Cosh(Op):
    """``y = cosh x``;  ``dx = grad * sinh x``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).cosh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sinh()


class Tanh(Op):
    """``y = tanh x``;  ``dx = grad * (1 - y ** 2)``."""

    @staticmethod
    def forward(ctx, x):
        result = array_module(x).tanh(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return TanhBackward.apply(grad, result)


class TanhBackward(Op):
    """Tanh's backward as one op (one dispatch instead of three): ``y = grad * (1 - result ** 2)``;
    ``dgrad = g * (1 - result ** 2)``,  ``dresult = -2 * g * grad * result``."""

    node_name = "TanhBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, result):
        ctx.save_for_backward(grad, result)
        return grad * (1 - result * result)

    @staticmethod
    def backward(ctx, g):
        grad, result = ctx.saved_tensors
        grad_grad = TanhBackward.apply(g, result) if ctx.needs_input_grad[0] else None
        grad_result = -2 * g * grad * result if ctx.needs_input_grad[1] else None
        return grad_grad, grad_result


def sin(input: Tensor) -> Tensor:
    return Sin.apply(_as_floating(input, "sin"))


def cos(input: Tensor) -> Tensor:
    return Cos.apply(_as_floating(input, "cos"))


def tan(input: Tensor) -> Tensor:
    return Tan.apply(_as_floating(input, "tan"))


def asin(input: Tensor) -> Tensor:
    return Asin.apply(_as_floating(input, "asin"))


def acos(input: Tensor) -> Tensor:
    return Acos.apply(_as_floating(input, "acos"))


def atan(input: Tensor) -> Tensor:
    return Atan.apply(_as_floating(input, "atan"))


def sinh(input: Tensor) -> Tensor:
    return Sinh.apply(_as_floating(input, "sinh"))


def cosh(input: Tensor) -> Tensor:
    return Cosh.apply(_as_floating(input, "cosh"))


def tanh(input: Tensor) -> Tensor:
    return Tanh.apply(_as_floating(input, "tanh"))


arcsin, arccos, arctan = asin, acos, atan


def asinh(input: Tensor) -> Tensor:
    return Asinh.apply(_as_floating(input, "asinh"))


def acosh(input: Tensor) -> Tensor:
    return Acosh.apply(_as_floating(input, "acosh"))


def atanh(input: Tensor) -> Tensor:
    return Atanh.apply(_as_floating(input, "atanh"))


arcsinh, arccosh, arctanh = asinh, acosh, atanh


def copysign(input: Tensor, other) -> Tensor:
    """``|input|`` with the sign of ``other`` (a tensor or a number); integers give floats.

        >>> import minitorch
        >>> minitorch.copysign(minitorch.tensor([1.0, -2.0, 3.0]), -1.0)
        tensor([-1., -2., -3.])
    """
    _require_tensor(input, "copysign")
    a, b, _ = _prepare(input, other, "copysign", floating=True)
    return Copysign.apply(a, b)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of the point ``(other, input)`` in ``(-pi, pi]``: ``atan(input / other)`` with the right quadrant."""
    _require_tensor(input, "atan2")
    _require_tensor(other, "atan2", "other", 2)
    a, b, _ = _prepare(input, other, "atan2", floating=True)
    return Atan2.apply(a, b)


arctan2 = atan2


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input ** 2 + other ** 2)``, elementwise (floating tensors only, as in PyTorch)."""
    _require_tensor(input, "hypot")
    _require_tensor(other, "hypot", "other", 2)
    a, b, result = _prepare(input, other, "hypot")
    if not result.is_floating_point:
        raise _not_implemented("hypot_cpu", a)
    return Hypot.apply(a, b)


# PyTorch's constants for the angle conversions (double precision, applied in the tensor's dtype)
_RADIANS_PER_DEGREE = math.pi / 180
_DEGREES_PER_RADIAN = 180 / math.pi


class Deg2Rad(Op):
    """``y = x * pi / 180``;  ``dx = grad * pi / 180``."""

    @staticmethod
    def forward(ctx, x):
        return x * _RADIANS_PER_DEGREE

    @staticmethod
    def backward(ctx, grad):
        return grad * _RADIANS_PER_DEGREE


class Rad2Deg(Op):
    """``y = x * 180 / pi``;  ``dx = grad * 180 / pi``."""

    @staticmethod
    def forward(ctx, x):
        return x * _DEGREES_PER_RADIAN

    @staticmethod
    def backward(ctx, grad):
        return grad * _DEGREES_PER_RADIAN


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians (integers become the default float)."""
    return Deg2Rad.apply(_as_floating(input, "deg2rad"))


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees (integers become the default float)."""
    return Rad2Deg.apply(_as_floating(input, "rad2deg"))


# -- activations ------------------------------------------------------------------------
class Sigmoid(Op):
    """``y = 1 / (1 + e ** -x)``;  ``dx = grad * y * (1 - y)``."""

    @staticmethod
    @_quiet  # e ** -x overflows to inf for very negative x; 1 / inf = 0 is then the right answer
    def forward(ctx, x):
        result = 1 / (1 + array_module(x).exp(-x))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return SigmoidBackward.apply(grad, result)


class SigmoidBackward(Op):
    """Sigmoid's backward as one op (one dispatch instead of three): ``y = grad * (1 - result) * result``;
    ``dgrad = g * (1 - result) * result``,  ``dresult = g * grad * (1 - 2 * result)``."""

    node_name = "SigmoidBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, result):
        ctx.save_for_backward(grad, result)
        return grad * (1 - result) * result

    @staticmethod
    def backward(ctx, g):
        grad, result = ctx.saved_tensors
        grad_grad = SigmoidBackward.apply(g, result) if ctx.needs_input_grad[0] else None
        grad_result = g * grad * (1 - 2 * result) if ctx.needs_input_grad[1] else None
        return grad_grad, grad_result


class Relu(Op):
    """``y = max(x, 0)``;  ``dx = grad`` where ``y > 0``, else 0 (so ``relu'(0) = 0``)."""

    @staticmethod
    def forward(ctx, x):
        result = array_module(x).maximum(x, 0)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad, result)


class ThresholdBackward(Op):
    """Relu's backward as an op of its own: ``y = grad`` where ``result > 0``, else 0.

    It is linear in ``grad`` (``d grad = g`` masked the same way) and flat in ``result``,
    so it can be differentiated again. One array ``where`` instead of a comparison and a
    general ``where`` call: ReLU sits in every MLP, so this is on the hot path.
    """

    @staticmethod
    def forward(ctx, grad, result):
        ctx.save_for_backward(result)
        xp = array_module(grad)
        return xp.where(result > 0, grad, xp.zeros((), dtype=grad.dtype))

    @staticmethod
    def backward(ctx, grad_grad):
        (result,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad_grad, result), None


# W. J. Cody's rational approximations of erf and erfc (Math. Comp. 23, 1969, the
# ``calerf`` routine of SPECFUN), accurate to double precision. NumPy has no erf, and
# a Python loop over ``math.erf`` would be far too slow.
_ERF_SMALL_NUMERATOR = (1.85777706184603153e-1, 3.16112374387056560e0, 1.13864154151050156e2,
                        3.77485237685302021e2, 3.20937758913846947e3)
_ERF_SMALL_DENOMINATOR = (1.0, 2.36012909523441209e1, 2.44024637934444173e2, 1.28261652607737228e3,
                          2.84423683343917062e3)
_ERFC_MIDDLE_NUMERATOR = (2.15311535474403846e-8, 5.64188496988670089e-1, 8.88314979438837594e0,
                          6.61191906371416295e1, 2.98635138197400131e2, 8.81952221241769090e2,
                          1.71204761263407058e3, 2.05107837782607147e3, 1.23033935479799725e3)
_ERFC_MIDDLE_DENOMINATOR = (1.0, 1.57449261107098347e1, 1.17693950891312499e2, 5.37181101862009858e2,
                            1.62138957456669019e3, 3.29079923573345963e3, 4.36261909014324716e3,
                            3.43936767414372164e3, 1.23033935480374942e3)
_ERFC_LARGE_NUMERATOR = (1.63153871373020978e-2, 3.05326634961232344e-1, 3.60344899949804439e-1,
                         1.25781726111229246e-1, 1.60837851487422766e-2, 6.58749161529837803e-4)
_ERFC_LARGE_DENOMINATOR = (1.0, 2.56852019228982242e0, 1.87295284992346047e0, 5.27905102951428412e-1,
                           6.05183413124413191e-2, 2.33520497626869185e-3)


def _polynomial(coefficients, z):
    """``c0 * z**n + c1 * z**(n-1) + ... + cn`` by Horner's rule."""
    result = coefficients[0]
    for coefficient in coefficients[1:]:
        result = result * z + coefficient
    return result


@_quiet  # every branch is evaluated on every element; the ones not selected may divide by zero
def _erf(xp, x):
    """erf in three ranges of ``|x|``: a rational function of ``x**2`` near 0, and ``1 - erfc`` beyond,
    with ``erfc(t) = e ** -t**2 * R(t)`` up to 4 and an asymptotic form in ``1 / t**2`` above."""
    magnitude = xp.abs(x.astype(np.float64, copy=False))
    square = magnitude * magnitude
    small = magnitude * _polynomial(_ERF_SMALL_NUMERATOR, square) / _polynomial(_ERF_SMALL_DENOMINATOR, square)
    middle = _polynomial(_ERFC_MIDDLE_NUMERATOR, magnitude) / _polynomial(_ERFC_MIDDLE_DENOMINATOR, magnitude)
    inverse_square = 1 / square
    large = (1 / math.sqrt(math.pi) - inverse_square * _polynomial(_ERFC_LARGE_NUMERATOR, inverse_square)
             / _polynomial(_ERFC_LARGE_DENOMINATOR, inverse_square)) / magnitude
    erfc = xp.exp(-square) * xp.where(magnitude <= 4.0, middle, large)
    result = xp.where(magnitude <= 0.46875, small, 1 - erfc)
    return xp.copysign(result, x).astype(x.dtype)


class Erf(Op):
    """``y = erf x = 2 / sqrt(pi) * integral_0^x e ** -t**2 dt``;  ``dx = grad * 2 / sqrt(pi) * e ** -x**2``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _erf(array_module(x), x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2.0 / math.sqrt(math.pi) * (-(x * x)).exp() * grad


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-input))``, elementwise."""
    return Sigmoid.apply(_as_floating(input, "sigmoid"))


def relu(input: Tensor) -> Tensor:
    """``max(input, 0)``, elementwise (integers stay integers)."""
    _require_tensor(input, "relu")
    if input._data.dtype == bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    return Relu.apply(input)


def erf(input: Tensor) -> Tensor:
    """The error function, elementwise."""
    return Erf.apply(_as_floating(input, "erf"))


class Erfinv(Op):
    """``y = erf^-1(x)`` on ``[-1, 1]``;  ``dx = grad * sqrt(pi) / 2 * e ** (y ** 2)`` (1 / erf' at ``y``)."""

    @staticmethod
    def forward(ctx, x):
        # SciPy (a minitorch dependency) has the inverse; on a GPU, CuPy's copy of SciPy does
        if array_module(x) is np:
            from scipy.special import erfinv as inverse  # SciPy is slow to import: loaded when this op first runs
        else:
            from cupyx.scipy.special import erfinv as inverse  # optional (the cuda extra): only on a GPU
        result = inverse(x).astype(x.dtype, copy=False)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * (math.sqrt(math.pi) / 2) * (result * result).exp()


def erfinv(input: Tensor) -> Tensor:
    """The inverse error function: ``erfinv(erf(x)) = x``; +-inf at +-1 and NaN outside ``[-1, 1]``."""
    return Erfinv.apply(_as_floating(input, "erfinv"))


def _special_functions(xp):
    """SciPy's special functions (a minitorch dependency) for NumPy arrays; CuPy's copy of them for GPU arrays."""
    if xp is np:
        import scipy.special  # SciPy is slow to import: loaded when this op first runs

        return scipy.special
    import cupyx.scipy.special  # optional (the cuda extra): only on a GPU

    return cupyx.scipy.special


def _special(function_name: str, x, *leading):
    """``scipy.special.<function_name>(*leading, x)`` in ``x``'s dtype (SciPy may compute and answer in double)."""
    xp = array_module(x)
    with np.errstate(all="ignore"):  # poles and overflow give inf or NaN, silently, as in PyTorch
        result = getattr(_special_functions(xp), function_name)(*leading, x)
    return xp.asarray(result).astype(x.dtype, copy=False)


class Erfc(Op):
    """``y = erfc x = 1 - erf x`` (accurate where ``erf x`` is close to 1);
    ``dx = -grad * 2 / sqrt(pi) * e ** -x**2``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _special("erfc", x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return -2.0 / math.sqrt(math.pi) * (-(x * x)).exp() * grad


def erfc(input: Tensor) -> Tensor:
    """The complementary error function ``1 - erf(input)``, elementwise."""
    return Erfc.apply(_as_floating(input, "erfc"))


class Lgamma(Op):
    """``y = log |Gamma(x)|``;  ``dx = grad * digamma(x)``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xp = array_module(x)
        # |Gamma(x)| grows without bound as x -> -inf: C's lgamma (and PyTorch) say +inf there, SciPy says -inf
        return xp.where(x == -math.inf, xp.asarray(math.inf, dtype=x.dtype), _special("gammaln", x))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * digamma(x)


class Digamma(Op):
    """``y = digamma x = d/dx log Gamma(x)``;  ``dx = grad * polygamma(1, x)``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        # PyTorch's value at 0 is -inf (at -0.0, +inf): the limit from the right, where SciPy agrees
        return _special("psi", x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * polygamma(1, x)


class Polygamma(Op):
    """``y = polygamma(n, x)``, the ``n``-th derivative of ``digamma``;  ``dx = grad * polygamma(n + 1, x)``."""

    @staticmethod
    def forward(ctx, x, order):
        ctx.save_for_backward(x)
        ctx.order = order
        if order == 0:
            return _special("psi", x)
        return _special("polygamma", x, array_module(x).asarray(order))  # (CuPy's wants an array)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * polygamma(ctx.order + 1, x), None


def lgamma(input: Tensor) -> Tensor:
    """The logarithm of the absolute value of the gamma function, elementwise (``lgamma(n + 1) = log n!``)."""
    return Lgamma.apply(_as_floating(input, "lgamma"))


def digamma(input: Tensor) -> Tensor:
    """The logarithmic derivative of the gamma function, ``Gamma'(x) / Gamma(x)``, elementwise."""
    return Digamma.apply(_as_floating(input, "digamma"))


def polygamma(n: int, input: Tensor) -> Tensor:
    """The ``n``-th derivative of ``digamma`` (``polygamma(0, x) = digamma(x)``), elementwise.

        >>> import minitorch
        >>> minitorch.polygamma(1, minitorch.tensor([1.0]))  # pi ** 2 / 6
        tensor([1.6449])
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return Polygamma.apply(_as_floating(input, "polygamma"), int(n))


class I0(Op):
    """``y = I0(x)``, the modified Bessel function of the first kind of order 0;  ``dx = grad * I1(x)``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _special("i0", x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * I1.apply(x)


class I1(Op):
    """``y = I1(x)`` (order 1);  ``dx = grad * (I0(x) - y / x)``, which tends to ``grad / 2`` at ``x = 0``.

    Like PyTorch, |x| below the dtype's epsilon takes the limit, and the formula sees ``x = eps``
    there, so that its (unused) value stays finite and its gradient is not NaN.
    """

    node_name = "SpecialI1Backward0"

    @staticmethod
    def forward(ctx, x):
        result = _special("i1", x)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        epsilon = float(np.finfo(x._data.dtype).eps)
        not_tiny = x.abs() > epsilon
        safe_x = where(not_tiny, x, epsilon)
        return grad * where(not_tiny, I0.apply(safe_x) - result / safe_x, 0.5)


def i0(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 0, elementwise."""
    return I0.apply(_as_floating(input, "i0"))


class Sinc(Op):
    """``y = sin(pi x) / (pi x)``, and 1 at ``x = 0``;
    ``dx = grad * (pi x cos(pi x) - sin(pi x)) / (pi x ** 2)``, and 0 at ``x = 0``."""

    @staticmethod
    @_quiet
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xp = array_module(x)
        angle = x * math.pi  # (in x's own precision, as PyTorch computes it)
        return xp.where(x == 0, xp.ones((), dtype=x.dtype), xp.sin(angle) / angle)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        angle = x * math.pi
        square_times_pi = x * x * math.pi
        derivative = grad * (angle * angle.cos() - angle.sin()) / square_times_pi
        return where(square_times_pi == 0, 0.0, derivative)


def sinc(input: Tensor) -> Tensor:
    """The normalized sinc function ``sin(pi x) / (pi x)`` (1 at 0), elementwise."""
    return Sinc.apply(_as_floating(input, "sinc"))


# -- rounding and piecewise functions ------------------------------------------------------
class Abs(Op):
    """``y = |x|``;  ``dx = grad * sign(x)`` (so ``abs'(0) = 0``)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return array_module(x).abs(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sign()


class Sign(Op):
    """``y = -1, 0 or 1`` (0 for NaN, as PyTorch);  ``dx = 0``."""

    @staticmethod
    def forward(ctx, x):
        # PyTorch computes (0 < x) - (x < 0), which gives 0 for NaN where NumPy's sign gives NaN.
        return (x > 0).astype(x.dtype) - (x < 0)

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad)


class Floor(Op):
    """``y = floor(x)``: a step function, so ``dx = 0``."""

    @staticmethod
    def forward(ctx, x):
        return array_module(x).floor(x)

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad)


class Ceil(Op):
    """``y = ceil(x)``: a step function, so ``dx = 0``."""

    @staticmethod
    def forward(ctx, x):
        return array_module(x).ceil(x)

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad)


class Trunc(Op):
    """``y = trunc(x)`` (toward zero): a step function, so ``dx = 0``."""

    @staticmethod
    def forward(ctx, x):
        return array_module(x).trunc(x)

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad)


class Round(Op):
    """``y = round(x * 10**d) / 10**d`` (halves to even): a step function, so ``dx = 0``."""

    @staticmethod
    def forward(ctx, x, decimals):
        xp = array_module(x)
        if decimals == 0:
            return xp.rint(x)
        # PyTorch's formula, with the scale in the tensor's own precision.
        scale = x.dtype.type(10.0 ** builtins.abs(decimals))
        return xp.rint(x * scale) / scale if decimals > 0 else xp.rint(x / scale) * scale

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), None


class RoundDecimals(Round):
    node_name = "RoundBackward1"  # PyTorch's name for round(decimals=...)


class Frac(Op):
    """``y = x - trunc(x)``;  ``dx = grad`` (the jumps have measure zero)."""

    @staticmethod
    def forward(ctx, x):
        return x - array_module(x).trunc(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


def _integer_copy(input: Tensor) -> Tensor:
    """Rounding an integer tensor changes nothing: a fresh copy, as PyTorch returns."""
    return _direct(input._device, input._data.copy)


def abs(input: Tensor) -> Tensor:
    """``|input|``, elementwise (integers stay integers)."""
    _require_tensor(input, "abs")
    if input._data.dtype == bool:
        raise _not_implemented("abs_cpu", input)
    return Abs.apply(input)


absolute = abs


def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 by the sign of each element (bool stays bool)."""
    _require_tensor(input, "sign")
    if input._data.dtype == bool:
        return _integer_copy(input)
    return Sign.apply(input)


class Sgn(Sign):
    """``y = x / |x|`` (0 at 0): for real numbers the same as ``sign``;  ``dx = 0``."""


def sgn(input: Tensor) -> Tensor:
    """``input / |input|`` (0 where ``input`` is 0); for real tensors it equals ``sign``."""
    _require_tensor(input, "sgn")
    if input._data.dtype == bool:
        return _integer_copy(input)
    return Sgn.apply(input)


def signbit(input: Tensor) -> Tensor:
    """True where the sign bit is set: negative numbers and ``-0.0`` (and NaNs carrying a minus sign)."""
    _require_tensor(input, "signbit")
    xp, kind = input._xp, input._data.dtype.kind
    if kind == "f":
        return _direct(input._device, xp.signbit, input._data)
    if kind == "i":
        return _direct(input._device, lambda x: x < 0, input._data)
    return _direct(input._device, lambda x: xp.zeros(x.shape, dtype=bool), input._data)  # bool and unsigned


class Heaviside(Op):
    """``y = 0`` where ``x < 0`` (and NaN), ``values`` where ``x = 0``, ``1`` where ``x > 0``.

    A step function; PyTorch defines no derivative for it, and neither do we.
    """

    node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, x, values):
        xp = array_module(x)
        return xp.where(x == 0, values, x > 0).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The Heaviside step function of ``input``, taking ``values`` where ``input`` is 0 (same dtype, broadcast)."""
    _require_tensor(input, "heaviside")
    _require_tensor(values, "heaviside", "values", 2)
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    check_same_device(input, values)
    check_broadcastable(input, values)
    return Heaviside.apply(input, values)


def _rounding(op, input: Tensor, kernel: str) -> Tensor:
    _require_tensor(input, kernel)
    kind = input._data.dtype.kind
    if kind == "f":
        return op.apply(input)
    if kind == "b":
        raise _not_implemented(f"{kernel}_vml_cpu", input)
    return _integer_copy(input)


def floor(input: Tensor) -> Tensor:
    return _rounding(Floor, input, "floor")


def ceil(input: Tensor) -> Tensor:
    return _rounding(Ceil, input, "ceil")


def trunc(input: Tensor) -> Tensor:
    return _rounding(Trunc, input, "trunc")


fix = trunc


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Round to ``decimals`` decimal places; halves go to the even neighbour (``round(2.5) = 2``)."""
    _require_tensor(input, "round")
    if input._data.dtype.kind == "f":
        return (RoundDecimals if decimals != 0 else Round).apply(input, decimals)
    if decimals != 0 or input._data.dtype == bool:
        raise _not_implemented("round_cpu" if decimals != 0 else "round_vml_cpu", input)
    return _integer_copy(input)


def frac(input: Tensor) -> Tensor:
    """The fractional part ``input - trunc(input)`` (floating tensors only)."""
    _require_tensor(input, "frac")
    if input._data.dtype.kind != "f":
        raise _not_implemented("frac_cpu", input)
    return Frac.apply(input)


class Clamp(Op):
    """``y = min(max(x, low), high)`` with number bounds;  ``dx = grad`` where ``low <= x <= high``, else 0."""

    node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, x, low, high):
        xp = array_module(x)
        ctx.save_for_backward(x, low, high)
        result = x if low is None else xp.maximum(x, low)
        return result if high is None else xp.minimum(result, high)

    @staticmethod
    def backward(ctx, grad):
        x, low, high = ctx.saved_tensors
        needs = ctx.needs_input_grad
        grad_x = grad_low = grad_high = None
        if needs[0]:
            if low is None:
                grad_x = where(x <= high, grad, 0.0)
            elif high is None:
                grad_x = where(x >= low, grad, 0.0)
            else:
                grad_x = where(logical_and(x >= low, x <= high), grad, 0.0)
        # Tensor bounds: each gets the gradient where it is the value that came out. When
        # low > high the result is high everywhere, so only high gets the gradient.
        if needs[1]:
            inside = x < low if high is None else logical_and(x < low, low < high)
            grad_low = where(inside, grad, 0.0)
        if needs[2]:
            outside = x > high if low is None else logical_or(x > high, high < low)
            grad_high = where(outside, grad, 0.0)
        return grad_x, grad_low, grad_high


class ClampTensor(Clamp):
    """``clamp`` with tensor bounds: ``dlow = grad`` where ``x < low``, ``dhigh = grad`` where ``x > high``."""

    node_name = "ClampBackward0"


def clamp(input: Tensor, min=None, max=None) -> Tensor:  # noqa: A002 - PyTorch's argument names
    """Limit every element to ``[min, max]`` (numbers or tensors; either may be None).

        >>> import minitorch
        >>> minitorch.clamp(minitorch.tensor([-2.0, 0.5, 3.0]), min=-1, max=1)
        tensor([-1.0000,  0.5000,  1.0000])
    """
    _require_tensor(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    low = None if min is None else as_operand(min, input)
    high = None if max is None else as_operand(max, input)
    result = _dtype.result_type(*(v for v in (input, low, high) if v is not None))
    bounds = []
    for bound in (low, high):
        if isinstance(bound, Tensor):
            if bound._device is not input._device:
                check_same_device(input, bound)
            broadcast_shapes(input._data.shape, bound._data.shape)
            bound = cast(bound, result)
        bounds.append(bound)
    op = ClampTensor if isinstance(low, Tensor) or isinstance(high, Tensor) else Clamp
    return op.apply(cast(input, result), *bounds)


clip = clamp


def clamp_min(input: Tensor, min) -> Tensor:  # noqa: A002
    return clamp(input, min, None)


def clamp_max(input: Tensor, max) -> Tensor:  # noqa: A002
    return clamp(input, None, max)


class Maximum(Op):
    """``y = max(a, b)``;  the larger input gets ``grad``; on ties each gets ``grad / 2`` (PyTorch's rule)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return array_module(a).maximum(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        shared = where(a == b, grad / 2, grad)
        grad_a = where(a < b, 0.0, shared) if ctx.needs_input_grad[0] else None
        grad_b = where(a > b, 0.0, shared) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Minimum(Op):
    """``y = min(a, b)``;  the smaller input gets ``grad``; on ties each gets ``grad / 2`` (PyTorch's rule)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return array_module(a).minimum(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        shared = where(a == b, grad / 2, grad)
        grad_a = where(a > b, 0.0, shared) if ctx.needs_input_grad[0] else None
        grad_b = where(a < b, 0.0, shared) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise maximum of two tensors (NaN wins, as in PyTorch)."""
    _require_tensor(input, "maximum")
    _require_tensor(other, "maximum", "other", 2)
    return _binary(Maximum, input, other, "maximum")


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise minimum of two tensors (NaN wins, as in PyTorch)."""
    _require_tensor(input, "minimum")
    _require_tensor(other, "minimum", "other", 2)
    return _binary(Minimum, input, other, "minimum")


class Fmax(Op):
    """``y = max(a, b)``, except that a NaN loses to a number;
    ``da = grad`` where ``a >= b`` or ``b`` is NaN, else ``db = grad`` (PyTorch's rule: at ties ``a`` gets it all)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return array_module(a).fmax(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a_wins = logical_or(a >= b, isnan(b))
        grad_a = where(a_wins, grad, 0.0) if ctx.needs_input_grad[0] else None
        grad_b = where(a_wins, 0.0, grad) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Fmin(Op):
    """``y = min(a, b)``, except that a NaN loses to a number;
    ``da = grad`` where ``a <= b`` or ``b`` is NaN, else ``db = grad``."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return array_module(a).fmin(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a_wins = logical_or(a <= b, isnan(b))
        grad_a = where(a_wins, grad, 0.0) if ctx.needs_input_grad[0] else None
        grad_b = where(a_wins, 0.0, grad) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise maximum, ignoring NaN: where one side is NaN the other is taken (NaN only if both are).

        >>> import minitorch
        >>> minitorch.fmax(minitorch.tensor([1.0, float("nan")]), minitorch.tensor([float("nan"), 2.0]))
        tensor([1., 2.])
    """
    _require_tensor(input, "fmax")
    _require_tensor(other, "fmax", "other", 2)
    return _binary(Fmax, input, other, "fmax")


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise minimum, ignoring NaN (see ``fmax``)."""
    _require_tensor(input, "fmin")
    _require_tensor(other, "fmin", "other", 2)
    return _binary(Fmin, input, other, "fmin")


class Nextafter(Op):
    """``y`` = the next floating-point value after ``a`` in the direction of ``b``;
    ``da = grad`` (``y`` differs from ``a`` by one unit in the last place), ``db = 0`` (PyTorch's choice)."""

    @staticmethod
    def forward(ctx, a, b):
        return array_module(a).nextafter(a, b)

    @staticmethod
    def backward(ctx, grad):
        return grad, (_zeros_like(grad) if ctx.needs_input_grad[1] else None)


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next representable floating-point value after ``input`` towards ``other``, elementwise."""
    _require_tensor(input, "nextafter")
    _require_tensor(other, "nextafter", "other", 2)
    a, b, result = _prepare(input, other, "nextafter")
    if not result.is_floating_point:
        raise _not_implemented("nextafter_cpu", a)
    return Nextafter.apply(a, b)


# -- selection and blending -----------------------------------------------------------------
class Where(Op):
    """``y = a`` where ``condition``, else ``b``;  ``da = grad`` where ``condition`` (else 0), ``db`` the rest."""

    @staticmethod
    def forward(ctx, condition, a, b, numpy_dtype):
        ctx.save_for_backward(condition)
        result = array_module(condition).where(condition, a, b)
        return result if result.dtype == numpy_dtype else result.astype(numpy_dtype)

    @staticmethod
    def backward(ctx, grad):
        (condition,) = ctx.saved_tensors
        grad_a = where(condition, grad, 0.0) if ctx.needs_input_grad[1] else None
        grad_b = where(condition, 0.0, grad) if ctx.needs_input_grad[2] else None
        return None, grad_a, grad_b, None


def where(condition: Tensor, input=None, other=None):
    """Elements of ``input`` where ``condition`` is True, else of ``other`` (tensors or numbers, broadcast).

    With only ``condition``, the indices of its True elements (``condition.nonzero(as_tuple=True)``).

        >>> import minitorch
        >>> x = minitorch.tensor([-1.0, 2.0, -3.0])
        >>> minitorch.where(x > 0, x, 0.0)
        tensor([0., 2., 0.])
    """
    _require_tensor(condition, "where", "condition")
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if condition._data.dtype != bool:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition.dtype.type_name}"
        )
    input, other = as_operand(input, condition), as_operand(other, condition)
    result = _dtype.result_type(input, other)
    shapes = [condition._data.shape]
    operands = []
    for operand in (input, other):
        if isinstance(operand, Tensor):
            if operand._device is not condition._device:
                check_same_device(condition, operand)
            shapes.append(operand._data.shape)
            operand = cast(operand, result)
        elif type(operand) is int and result.category == _dtype.INTEGER:
            operand = _fit_integer(operand, result.numpy_dtype)
        operands.append(operand)
    if len(shapes) > 1 and any(shape != shapes[0] for shape in shapes):
        broadcast_shapes(*shapes)
    return Where.apply(condition, operands[0], operands[1], result.numpy_dtype)


class Lerp(Op):
    """``y = start + weight * (end - start)``;
    ``dstart = grad * (1 - weight)``,  ``dend = grad * weight``,  ``dweight = grad * (end - start)``."""

    @staticmethod
    def forward(ctx, start, end, weight):
        ctx.save_for_backward(start, end, weight)
        difference = end - start
        # PyTorch's two-sided formula: exact at weight = 0 (start) and at weight = 1 (end).
        if is_number(weight):
            return start + weight * difference if builtins.abs(weight) < 0.5 else end - difference * (1 - weight)
        xp = array_module(start)
        return xp.where(xp.abs(weight) < 0.5, start + weight * difference, end - difference * (1 - weight))

    @staticmethod
    def backward(ctx, grad):
        start, end, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        grad_start = grad * (1 - weight) if needs[0] else None
        grad_end = grad * weight if needs[1] else None
        grad_weight = grad * (end - start) if needs[2] else None
        return grad_start, grad_end, grad_weight


class LerpTensor(Lerp):
    node_name = "LerpBackward1"  # PyTorch's name when the weight is a tensor


def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    """Linear interpolation ``input + weight * (end - input)``; ``weight`` is a number or a tensor.

    ``end`` (and a ``weight`` tensor with dimensions) must have ``input``'s dtype; a 0-d
    ``weight`` is promoted with the others instead, as in PyTorch.
    """
    _require_tensor(input, "lerp")
    _require_tensor(end, "lerp", "end", 2)
    for name, value in (("end", end), ("weight", weight)):
        if isinstance(value, Tensor) and value._data.dtype != input._data.dtype and (name == "end" or value.ndim):
            expected, got = input.dtype.cpp_name, value.dtype.cpp_name
            raise RuntimeError(f"expected dtype {expected} for `{name}` but got dtype {got}")
    weight = as_operand(weight, input)
    result = _dtype.result_type(input, weight) if isinstance(weight, Tensor) else input.dtype
    if not result.is_floating_point:
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(_messages.not_implemented_for(kernel, result))
    tensors = [t for t in (input, end, weight) if isinstance(t, Tensor)]
    check_same_device(*tensors)
    shapes = [t._data.shape for t in tensors]
    if any(shape != shapes[0] for shape in shapes):
        broadcast_shapes(*shapes)
    if isinstance(weight, Tensor):
        return LerpTensor.apply(cast(input, result), cast(end, result), cast(weight, result))
    return Lerp.apply(input, end, weight)


# -- comparisons and logic (never differentiable: computed directly) --------------------------
def _comparison(operator):
    def compare(input, other) -> Tensor:
        a, b, _, device = _promoted_arrays(input, other, operator.__name__)
        return _direct(device, operator, a, b)

    compare.__name__ = operator.__name__
    return compare


def _eq(a, b):
    return a == b


def _ne(a, b):
    return a != b


def _lt(a, b):
    return a < b


def _le(a, b):
    return a <= b


def _gt(a, b):
    return a > b


def _ge(a, b):
    return a >= b


_eq.__name__, _ne.__name__, _lt.__name__, _le.__name__, _gt.__name__, _ge.__name__ = "eq", "ne", "lt", "le", "gt", "ge"
eq, ne, lt, le, gt, ge = (_comparison(f) for f in (_eq, _ne, _lt, _le, _gt, _ge))
eq.__doc__ = "``input == other`` elementwise, as a bool tensor (numbers allowed on either side)."
ne.__doc__ = "``input != other`` elementwise, as a bool tensor."
lt.__doc__ = "``input < other`` elementwise, as a bool tensor."
le.__doc__ = "``input <= other`` elementwise, as a bool tensor."
gt.__doc__ = "``input > other`` elementwise, as a bool tensor."
ge.__doc__ = "``input >= other`` elementwise, as a bool tensor."
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge


def isnan(input: Tensor) -> Tensor:
    """True where an element is NaN (never for integer tensors)."""
    _require_tensor(input, "isnan")
    if input._data.dtype.kind != "f":
        return _direct(input._device, lambda x: input._xp.zeros(x.shape, dtype=bool), input._data)
    return _direct(input._device, input._xp.isnan, input._data)


def isinf(input: Tensor) -> Tensor:
    """True where an element is +inf or -inf."""
    _require_tensor(input, "isinf")
    if input._data.dtype.kind != "f":
        return _direct(input._device, lambda x: input._xp.zeros(x.shape, dtype=bool), input._data)
    return _direct(input._device, input._xp.isinf, input._data)


def isfinite(input: Tensor) -> Tensor:
    """True where an element is neither infinite nor NaN."""
    _require_tensor(input, "isfinite")
    if input._data.dtype.kind != "f":
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


def _integer_binary(function_name: str):
    """``gcd``/``lcm``: elementwise on integer tensors only (PyTorch has no kernels for floats or bools)."""

    def integer_binary(input: Tensor, other: Tensor) -> Tensor:
        _require_tensor(input, function_name)
        _require_tensor(other, function_name, "other", 2)
        a, b, result, device = _promoted_arrays(input, other, function_name)
        if result.category != _dtype.INTEGER:
            raise NotImplementedError(_messages.not_implemented_for(f"{function_name}_cpu", result))
        return _direct(device, getattr(array_module(a), function_name), a, b)

    integer_binary.__name__ = function_name
    return integer_binary


gcd = _integer_binary("gcd")
gcd.__doc__ = """The greatest common divisor of each pair of integers (never negative; ``gcd(0, 0) = 0``).

        >>> import minitorch
        >>> minitorch.gcd(minitorch.tensor([12, -9, 0]), minitorch.tensor([18, 6, 0]))
        tensor([6, 3, 0])
    """
lcm = _integer_binary("lcm")
lcm.__doc__ = """The least common multiple of each pair of integers (never negative; 0 if either is 0).

    Like PyTorch, it is computed in the integers' own dtype, so a multiple too large for it wraps around.
    """


class NanToNum(Op):
    """``y = x`` with NaN, +inf and -inf replaced by numbers;  ``dx = grad`` where ``x`` is finite, else 0."""

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        xp = array_module(x)
        if ctx.needs_input_grad and ctx.needs_input_grad[0]:
            ctx.save_for_backward(xp.isfinite(x))
        # None means the largest (smallest) finite value of the dtype, as in PyTorch
        return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

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
    if input._data.dtype.kind != "f":  # integers have no NaN or inf: a copy, as PyTorch returns
        return _integer_copy(input)
    return NanToNum.apply(input, 0.0 if nan is None else nan, posinf, neginf)


def nan_to_num_(input: Tensor, nan: float | None = None, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:
    """``nan_to_num`` in place."""
    from .inplace import _inplace  # inplace.py builds on this module, so it is imported on first use

    return _inplace(input, lambda x: nan_to_num(x, nan, posinf, neginf))


def _logical(function_name: str):
    def logical(input: Tensor, other: Tensor) -> Tensor:
        _require_tensor(input, function_name)
        _require_tensor(other, function_name, "other", 2)
        check_same_device(input, other)
        check_broadcastable(input, other)
        return _direct(input._device, getattr(input._xp, function_name), input._data, other._data)

    logical.__name__ = function_name
    logical.__doc__ = f"Elementwise ``{function_name}`` of the truth values (nonzero is True), as a bool tensor."
    return logical


logical_and, logical_or, logical_xor = _logical("logical_and"), _logical("logical_or"), _logical("logical_xor")


def logical_not(input: Tensor) -> Tensor:
    """True where an element is zero (or False), as a bool tensor."""
    _require_tensor(input, "logical_not")
    return _direct(input._device, input._xp.logical_not, input._data)


def _bitwise(function_name: str):
    def bitwise(input, other) -> Tensor:
        a, b, result, device = _promoted_arrays(input, other, function_name)
        if result.is_floating_point:
            raise NotImplementedError(_messages.not_implemented_for(f"{function_name}_cpu", result))
        xp = array_module(b if is_number(a) else a)
        return _direct(device, getattr(xp, function_name), a, b)

    bitwise.__name__ = function_name
    bitwise.__doc__ = f"Elementwise ``{function_name}`` of bool or integer tensors (and Python ints or bools)."
    return bitwise


bitwise_and, bitwise_or, bitwise_xor = _bitwise("bitwise_and"), _bitwise("bitwise_or"), _bitwise("bitwise_xor")


def bitwise_not(input: Tensor) -> Tensor:
    """``~input``: logical not for bool tensors, bit flip for integer tensors."""
    _require_tensor(input, "bitwise_not")
    if input._data.dtype.kind == "f":
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
    if equal_nan and a.dtype.kind == "f":
        close |= xp.isnan(a) & xp.isnan(b)
    if rtol == 0 and atol == 0:
        return close
    if a.dtype.kind != "f":
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
