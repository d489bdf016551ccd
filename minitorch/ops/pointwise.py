"""Elementwise ops: arithmetic, math functions, comparisons and logic.

Binary ops broadcast like NumPy and promote dtypes like PyTorch (``_util.promote``).
Their backward returns the gradient at the *broadcast* shape; the engine sums it back
to each input's shape, in one place for every op.

Each ``Op`` below keeps forward (on arrays) and backward (on Tensors) together, with the
derivative written in its docstring.
"""

from __future__ import annotations

import builtins

from .. import _dtype
from .._tensor import Tensor
from ..autograd.function import Op
from ._util import as_operand, cast, check_broadcastable, check_same_device, is_number, promote


def _binary(op, a, b, result=None):
    """Prepare two operands (numbers stay numbers) and apply ``op``."""
    like = a if isinstance(a, Tensor) else b
    a, b = as_operand(a, like), as_operand(b, like)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a._device is not b._device:
            check_same_device(a, b)
        if a._data.shape != b._data.shape:
            check_broadcastable(a, b)
    a, b, _ = promote(a, b, result)
    return op.apply(a, b)


# -- arithmetic -------------------------------------------------------------------------
class Add(Op):
    """``y = a + b``;  ``da = grad``,  ``db = grad``."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Sub(Op):
    """``y = a - b``;  ``da = grad``,  ``db = -grad``."""

    @staticmethod
    def forward(ctx, a, b):
        return a - b

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad


class Mul(Op):
    """``y = a * b``;  ``da = grad * b``,  ``db = grad * a``."""

    @staticmethod
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

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a / b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad / b if ctx.needs_input_grad[0] else None
        grad_b = -grad * a / (b * b) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Neg(Op):
    """``y = -x``;  ``dx = -grad``."""

    @staticmethod
    def forward(ctx, x):
        return -x

    @staticmethod
    def backward(ctx, grad):
        return -grad


def add(a, b, *, alpha=1) -> Tensor:
    """``a + alpha * b`` with broadcasting."""
    if alpha != 1:
        b = mul(b, alpha)
    return _binary(Add, a, b)


def sub(a, b, *, alpha=1) -> Tensor:
    """``a - alpha * b`` with broadcasting."""
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead."
        )
    if alpha != 1:
        b = mul(b, alpha)
    return _binary(Sub, a, b)


def mul(a, b) -> Tensor:
    return _binary(Mul, a, b)


def div(a, b, *, rounding_mode=None) -> Tensor:
    """True division (integers become floats); ``rounding_mode`` "floor" or "trunc" rounds the quotient."""
    if rounding_mode == "floor":
        return floor_divide(a, b)
    if rounding_mode == "trunc":
        return trunc(div(a, b)) if _floating_result(a, b) else _integer_trunc_divide(a, b)
    if rounding_mode is not None:
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    result = _dtype.result_type(*(x for x in (a, b)))
    if not result.is_floating_point:
        result = _dtype.get_default_dtype()
    return _binary(Div, a, b, result)


def neg(x: Tensor) -> Tensor:
    if x._data.dtype == bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
            "the `~` or `logical_not()` operator instead."
        )
    return Neg.apply(x)


def _is_bool(value) -> bool:
    return isinstance(value, Tensor) and value._data.dtype == bool


def _floating_result(a, b) -> bool:
    return _dtype.result_type(a, b).is_floating_point
