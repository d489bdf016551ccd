"""Powers and roots: ``pow``, ``square``, ``sqrt``, ``rsqrt``, ``reciprocal``, ``float_power``."""

from __future__ import annotations

import math

from ... import _dtype
from ..._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ...autograd.function import Op
from .._reduced_precision import computes_in_float32
from .._util import (
    array_module,
    as_operand,
    cast,
    is_number,
)
from ._operands import (
    _apply_in_layout,
    _as_floating,
    _direct,
    _not_implemented,
    _prepare,
    _promote,
    _quiet,
    _require_tensor,
    _zeros_like,
)
from .comparison import logical_and
from .exponential import log
from .selection import where


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


_BFLOAT16 = _dtype.bfloat16.numpy_dtype
_SIXTEEN_BIT = frozenset((_BFLOAT16, _dtype.float16.numpy_dtype))


def _power_in_16_bits(x, exponent):
    """``x ** exponent`` for a bfloat16 or float16 ``x`` as PyTorch's kernel writes the powers it special-cases:
    ``1 / sqrt(x)`` in float32, and for bfloat16 ``x * x * x`` and ``1 / (x * x)`` in bfloat16 itself (each step
    rounded; float16 computes them in float32). Any other exponent is one ``pow`` in float32, rounded once, as
    NumPy's ``x ** exponent`` does."""
    if exponent == -0.5 or x.dtype != _BFLOAT16:
        wide = x.astype(_dtype.float32.numpy_dtype)
        return (1 / array_module(x).sqrt(wide) if exponent == -0.5 else wide**exponent).astype(x.dtype)
    return x * x * x if exponent == 3 else 1 / (x * x)


class PowScalar(Op):
    """``y = x ** p`` for a number ``p``;  ``dx = grad * p * x ** (p - 1)`` (0 when ``p = 0``)."""

    node_name = "PowBackward0"

    @staticmethod
    @_quiet
    def forward(ctx, x, exponent):
        ctx.save_for_backward(x)
        ctx.exponent = exponent
        if x.dtype in _SIXTEEN_BIT and exponent in (3, -2, -0.5):
            return _power_in_16_bits(x, exponent)
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
    argument_names = ("self", "exponent")  # grad_fn._saved_exponent, as PyTorch names it

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
        if result.ndim > 1:  # PyTorch allocates pow(number, tensor)'s result row-major
            result = xp.ascontiguousarray(result)
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
    return _apply_in_layout(Pow, a, b)


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
    @computes_in_float32
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


def sqrt(input: Tensor) -> Tensor:
    return Sqrt.apply(_as_floating(input, "sqrt"))


def rsqrt(input: Tensor) -> Tensor:
    return Rsqrt.apply(_as_floating(input, "rsqrt"))


def reciprocal(input: Tensor) -> Tensor:
    return Reciprocal.apply(_as_floating(input, "reciprocal"))
