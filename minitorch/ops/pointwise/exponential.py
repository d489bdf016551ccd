"""Exponentials and logarithms: ``exp``, ``log`` and their variants, ``logaddexp``, ``xlogy``, ``logit``,
``ldexp``, ``frexp``."""

from __future__ import annotations

import math

from ... import _dtype, return_types
from ..._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ...autograd.function import Op
from .._util import (
    array_module,
    cast,
    is_number,
)
from ._operands import _apply_in_layout, _as_floating, _module, _not_implemented, _prepare, _quiet, _require_tensor
from .arithmetic import mul
from .comparison import logical_and, logical_or
from .selection import where


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
    return _apply_in_layout(Logaddexp, *_floating_pair(input, other, "logaddexp"))


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2 ** input + 2 ** other)``, computed without overflow."""
    return _apply_in_layout(Logaddexp2, *_floating_pair(input, other, "logaddexp2"))


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
    return _apply_in_layout(Xlogy, a, b)


class Logit(Op):
    """``y = log(z / (1 - z))`` with ``z = clamp(x, eps, 1 - eps)`` (``z = x`` without ``eps``);
    ``dx = grad / (x (1 - x))`` inside ``[eps, 1 - eps]`` and 0 outside (without ``eps``: NaN outside ``[0, 1]``)."""

    @staticmethod
    @_quiet
    def forward(ctx, x, eps):
        ctx.save_for_backward(x)
        ctx.eps = eps
        xp = array_module(x)
        # In x's own dtype, each step rounded, bfloat16 and float16 included: PyTorch's kernel is written in the
        # tensor's scalar type, its eps and 1 - eps too
        if eps is not None:
            low = x.dtype.type(eps)
            x = xp.clip(x, low, x.dtype.type(x.dtype.type(1) - low)).astype(x.dtype, copy=False)
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
    power = pow(2.0, other if _dtype.is_floating(other._data.dtype) else cast(other, result))
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
    if not _dtype.is_floating(input._data.dtype):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return return_types.frexp(*Frexp.apply(input))
