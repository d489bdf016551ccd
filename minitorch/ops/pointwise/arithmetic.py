"""Arithmetic: ``+``, ``-``, ``*``, ``/``, ``//``, ``%`` and negation.

Each ``Op`` keeps forward (on arrays) and backward (in Tensor ops) side by side, the derivative in its
docstring; the function after it checks and prepares the operands and calls ``Op.apply``. Backward
returns the gradient at the *broadcast* shape; the engine sums it back to each input's shape.
"""

from __future__ import annotations

from ... import _dtype, _messages
from ..._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ...autograd.function import Op
from .._reduced_precision import computes_in_float32
from .._util import (
    is_number,
)
from ._operands import (
    _apply_in_layout,
    _bool_operand,
    _check_integer_divisor,
    _module,
    _prepare,
    _quiet,
    _require_tensor,
    _zeros_like,
)
from .opmath import AddScaled, DivByNumber, MulByNumber, SubScaled, is_reduced


# -- the two operands of a binary op -----------------------------------------------------------
def _binary(op, a, b, function: str = "add", result=None):
    """``op`` on two operands, promoted (``_prepare``) unless alike: one dtype, shape, layout (or one all broadcast)."""
    if result is not None or not (isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.dtype == b._data.dtype
                                  and a._data.shape == b._data.shape and (a._data.strides == b._data.strides or not
                                          (any(a._data.strides) and any(b._data.strides)))):
        return _binary_prepared(op, a, b, function, result)
    return op.apply(a, b)


def _binary_prepared(op, a, b, function: str, result=None):
    """``op`` applied to two operands after ``_prepare``; a bfloat16 or float16 tensor with a number on its right
    runs ``op``'s form that keeps the number in float32, where PyTorch's kernel does (``opmath.py``)."""
    if op in _WITH_A_NUMBER:
        b = _value_of_a_scalar_operand(a, b)
    a, b, result = _prepare(a, b, function, result)
    if op in _WITH_A_NUMBER and is_reduced(result) and is_number(b) and isinstance(a, Tensor):
        op = _WITH_A_NUMBER[op]
    return _apply_in_layout(op, a, b)


def _value_of_a_scalar_operand(a, b):
    """``b`` as a number when it is a 0-d floating tensor of a wider dtype than the bfloat16 or float16 result (and
    needs no gradient): PyTorch's kernel reads such a scalar operand's own value, not its rounded copy."""
    if (isinstance(b, Tensor) and isinstance(a, Tensor) and b._data.ndim == 0 and a._data.ndim
            and not b._requires_grad and b._data.dtype != a._data.dtype and _dtype.is_floating(b._data.dtype)
            and is_reduced(_dtype.from_numpy_dtype(a._data.dtype)) and b._device is a._device
            and _dtype.result_type(a, b).numpy_dtype == a._data.dtype):  # the result is a's dtype: bfloat16 or float16
        return float(b._data)
    return b


# -- arithmetic -------------------------------------------------------------------------
class Add(Op):
    """``y = a + b``;  ``da = grad``,  ``db = grad``."""

    wraps_numbers = True  # c + 1 lists the 1 as an input: (None, 0) in next_functions

    @staticmethod
    def forward(ctx, a, b):  # not @_quiet: Speed only (_operands.py)
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Sub(Op):
    """``y = a - b``;  ``da = grad``,  ``db = -grad``."""

    wraps_numbers = True  # c + 1 lists the 1 as an input: (None, 0) in next_functions

    @staticmethod
    def forward(ctx, a, b):  # not @_quiet: Speed only (_operands.py)
        return a - b

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad


class Mul(Op):
    """``y = a * b``;  ``da = grad * b``,  ``db = grad * a``."""

    wraps_numbers = True  # c + 1 lists the 1 as an input: (None, 0) in next_functions
    saved_for_input = (0, 1)  # b is kept for a's gradient, a for b's (saved-tensor hooks pack only those needed)

    @staticmethod
    def forward(ctx, a, b):  # not @_quiet: Speed only (_operands.py)
        ctx.save_for_backward(b, a)  # PyTorch's order (what saved-tensor hooks see)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
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


class DivScalar(Op):
    """``y = a / s`` for a number ``s`` that is no input of the graph;  ``da = grad / s``.

    PyTorch's ``div.Scalar``: Python's ``t / 2`` wraps the 2 as a tensor (``DivBackward0``), but PyTorch's own
    C++ code divides by a plain number, which leaves ``DivBackward1`` (cross_entropy's mean over probabilities).
    """

    node_name = "DivBackward1"

    @staticmethod
    @_quiet
    def forward(ctx, a, divisor):
        ctx.divisor = divisor
        return a / divisor

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx.divisor, None


# The forms ``_binary_prepared`` picks for a bfloat16 or float16 tensor with a number (PyTorch's opmath kernels)
_WITH_A_NUMBER = {Mul: MulByNumber, Div: DivByNumber}


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
    @computes_in_float32  # bfloat16 and float16: a number divisor stays float32, as in PyTorch's kernel
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


def _scaled(b, alpha, a):
    """``alpha * b`` for ``add``/``sub``; a float alpha is refused for integer results, as in PyTorch."""
    if isinstance(alpha, float) and not _dtype.result_type(a, b).is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return b * alpha if is_number(b) else mul(b, alpha)


def _add_scaled(op, a, b, alpha, function: str):
    """``a + alpha * b`` (``op`` is ``AddScaled``) or ``a - alpha * b`` (``SubScaled``) for a bfloat16 or float16
    result: computed in float32 and rounded once, as PyTorch's kernel does (``opmath.py``)."""
    a, b, result = _prepare(a, b, function)
    return op.apply(a, b, (alpha, result.numpy_dtype))


def add(input, other, *, alpha=1) -> Tensor:
    """``input + alpha * other`` with broadcasting and type promotion.

        >>> import minitorch
        >>> minitorch.add(minitorch.tensor([1, 2]), 0.5)
        tensor([1.5000, 2.5000])
    """
    if alpha != 1:
        if is_reduced(_dtype.result_type(input, other)) and isinstance(input, Tensor):
            return _add_scaled(AddScaled, input, other, alpha, "add")
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
        if op is Sub and is_reduced(_dtype.result_type(input, other)) and isinstance(input, Tensor):
            return _add_scaled(SubScaled, input, other, alpha, "sub")
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
    return _apply_in_layout(DivRounded, a, b, rounding_mode)


def _floating_operands(a, b) -> bool:
    """Both operands already floating tensors of one dtype (the common case: no promotion needed)."""
    return (
        isinstance(a, Tensor) and isinstance(b, Tensor) and a._data.dtype == b._data.dtype
        and a._data.dtype in _dtype.FLOATING_NUMPY_DTYPES
    )


def _true_divide(a, b) -> Tensor:
    a, b, result = _prepare(a, _value_of_a_scalar_operand(a, b), "div", floating=True)
    if is_reduced(result) and is_number(b) and isinstance(a, Tensor):
        return DivByNumber.apply(a, b)  # the number kept in float32, as PyTorch's kernel does (opmath.py)
    return _apply_in_layout(Div, a, b)


divide = true_divide = div


def _refuse_bool(result, kernel: str) -> None:
    if result.category == _dtype.BOOL:
        raise NotImplementedError(_messages.not_implemented_for(kernel, _dtype.bool))


def floor_divide(input, other) -> Tensor:
    """``input // other``: the quotient rounded down (Python's ``//``); integer division by zero is an error."""
    a, b, result = _prepare(input, other, "floor_divide")
    _refuse_bool(result, "div_floor_cpu")
    return _apply_in_layout(FloorDivide, a, b, "floor")


class RemainderTensor(Remainder):
    node_name = "RemainderBackward1"  # PyTorch's name when both operands are tensors


class FmodTensor(Fmod):
    node_name = "FmodBackward1"


def remainder(input, other) -> Tensor:
    """``input % other`` with the sign of ``other`` (Python's ``%``)."""
    a, b, result = _prepare(input, other, "remainder")
    _refuse_bool(result, "remainder_cpu")
    return _apply_in_layout(RemainderTensor if isinstance(a, Tensor) and isinstance(b, Tensor) else Remainder, a, b)


def fmod(input, other) -> Tensor:
    """The remainder of ``input / other`` with the sign of ``input`` (C's ``fmod``)."""
    a, b, result = _prepare(input, other, "fmod")
    _refuse_bool(result, "fmod_cpu")
    return _apply_in_layout(FmodTensor if isinstance(a, Tensor) and isinstance(b, Tensor) else Fmod, a, b)


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
