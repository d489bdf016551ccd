"""Rounding and piecewise functions: ``floor``, ``ceil``, ``trunc``, ``round``, ``frac``, ``abs``, ``sign``,
``heaviside``, ``clamp``, ``maximum``/``minimum``, ``fmax``/``fmin``, ``nextafter``.

Their derivatives are PyTorch's conventions where the math has none: ``abs'(0) = 0``, and ``floor``
and friends have gradient 0.
"""

from __future__ import annotations

import builtins

from ... import _dtype
from ..._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ...autograd.function import Op
from .._reduced_precision import computes_in_float32
from .._util import (
    array_module,
    as_operand,
    broadcast_shapes,
    cast,
    check_broadcastable,
    check_same_device,
)
from ._operands import (
    _apply_in_layout,
    _direct,
    _integer_copy,
    _not_implemented,
    _prepare,
    _require_tensor,
    _zeros_like,
)
from .arithmetic import _binary
from .comparison import isnan, logical_and, logical_or
from .selection import where


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
    @computes_in_float32  # bfloat16, float16: PyTorch scales in float32
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
    if _dtype.is_floating(input._data.dtype):
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
    return _apply_in_layout(Heaviside, input, values)


def _rounding(op, input: Tensor, kernel: str) -> Tensor:
    _require_tensor(input, kernel)
    kind = input._data.dtype.kind
    if _dtype.is_floating(input._data.dtype):
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
    if _dtype.is_floating(input._data.dtype):
        return (RoundDecimals if decimals != 0 else Round).apply(input, decimals)
    if decimals != 0 or input._data.dtype == bool:
        raise _not_implemented("round_cpu" if decimals != 0 else "round_vml_cpu", input)
    return _integer_copy(input)


def frac(input: Tensor) -> Tensor:
    """The fractional part ``input - trunc(input)`` (floating tensors only)."""
    _require_tensor(input, "frac")
    if not _dtype.is_floating(input._data.dtype):
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


class ClampMin(Clamp):
    """``clamp_min(x, low)``: ``clamp`` with a lower bound only, under PyTorch's name for it."""

    node_name = "ClampMinBackward0"


class ClampMinTensor(ClampTensor):
    node_name = "ClampMinBackward1"


class ClampMax(Clamp):
    """``clamp_max(x, high)``: ``clamp`` with an upper bound only, under PyTorch's name for it."""

    node_name = "ClampMaxBackward0"


class ClampMaxTensor(ClampTensor):
    node_name = "ClampMaxBackward1"


def clamp(input: Tensor, min=None, max=None) -> Tensor:  # noqa: A002 - PyTorch's argument names
    """Limit every element to ``[min, max]`` (numbers or tensors; either may be None).

        >>> import minitorch
        >>> minitorch.clamp(minitorch.tensor([-2.0, 0.5, 3.0]), min=-1, max=1)
        tensor([-1.0000,  0.5000,  1.0000])
    """
    _require_tensor(input, "clamp")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return _clamp(input, min, max, (Clamp, ClampTensor))


def _clamp(input: Tensor, min, max, ops) -> Tensor:  # noqa: A002
    """``clamp``'s work, recorded as ``ops[0]`` with number bounds or ``ops[1]`` with a tensor bound."""
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
    op = ops[1] if isinstance(low, Tensor) or isinstance(high, Tensor) else ops[0]
    return _apply_in_layout(op, cast(input, result), *bounds)


clip = clamp


def clamp_min(input: Tensor, min) -> Tensor:  # noqa: A002
    _require_tensor(input, "clamp_min")
    return _clamp(input, min, None, (ClampMin, ClampMinTensor))


def clamp_max(input: Tensor, max) -> Tensor:  # noqa: A002
    _require_tensor(input, "clamp_max")
    return _clamp(input, None, max, (ClampMax, ClampMaxTensor))


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
    return _apply_in_layout(Nextafter, a, b)
