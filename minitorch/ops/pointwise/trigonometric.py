"""Trigonometric and hyperbolic functions, their inverses, ``atan2``, ``hypot``, ``copysign`` and the angle
conversions."""

from __future__ import annotations

import math

from ..._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ...autograd.function import Op
from .._reduced_precision import computes_in_float32
from .._util import (
    array_module,
)
from ._operands import (
    _apply_in_layout,
    _as_floating,
    _module,
    _not_implemented,
    _prepare,
    _quiet,
    _require_tensor,
    _zeros_like,
)
from .selection import where


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
    return _apply_in_layout(Copysign, a, b)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of the point ``(other, input)`` in ``(-pi, pi]``: ``atan(input / other)`` with the right quadrant."""
    _require_tensor(input, "atan2")
    _require_tensor(other, "atan2", "other", 2)
    a, b, _ = _prepare(input, other, "atan2", floating=True)
    return _apply_in_layout(Atan2, a, b)


arctan2 = atan2


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input ** 2 + other ** 2)``, elementwise (floating tensors only, as in PyTorch)."""
    _require_tensor(input, "hypot")
    _require_tensor(other, "hypot", "other", 2)
    a, b, result = _prepare(input, other, "hypot")
    if not result.is_floating_point:
        raise _not_implemented("hypot_cpu", a)
    return _apply_in_layout(Hypot, a, b)


# PyTorch's constants for the angle conversions (double precision, applied in the tensor's dtype)
_RADIANS_PER_DEGREE = math.pi / 180
_DEGREES_PER_RADIAN = 180 / math.pi


class Deg2Rad(Op):
    """``y = x * pi / 180``;  ``dx = grad * pi / 180``."""

    @staticmethod
    @computes_in_float32  # bfloat16, float16: the constant in float32, one rounding (as PyTorch)
    def forward(ctx, x):
        return x * _RADIANS_PER_DEGREE

    @staticmethod
    def backward(ctx, grad):
        return grad * _RADIANS_PER_DEGREE


class Rad2Deg(Op):
    """``y = x * 180 / pi``;  ``dx = grad * 180 / pi``."""

    @staticmethod
    @computes_in_float32
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
