"""bfloat16 and float16 arithmetic with a Python number, computed as PyTorch's CPU kernels compute it.

PyTorch loads bfloat16 and float16 numbers into float32 (the "opmath type" of both), computes there and
rounds only the result. NumPy, given ``x * 0.1`` on a bfloat16 array, first rounds ``0.1`` to bfloat16 and
then rounds the product: two roundings where PyTorch has one. What PyTorch does with the number depends
on the kernel, and these forms follow each:

* ``x * 0.1``, ``x / 0.3`` (and a gradient times a number in backward): the number stays float32,
  ``y = round(float32(x) * float32(0.1))``;
* ``x + 1.7``, ``x - 1.7``: the number is first rounded to ``x``'s dtype (``add`` converts its scalars to
  the tensor's type), then added in float32: the plain op on ml_dtypes' arrays already does that;
* ``add(x, y, alpha=0.3)``, ``sub(x, y, alpha=0.3)``: ``alpha`` (and a number ``y``) rounded to the dtype,
  then ``x + alpha * y`` in float32, rounded once, where ``x + alpha * y`` as two ops would round twice.

    >>> import minitorch
    >>> x = minitorch.tensor([1.0, 3.0], dtype=minitorch.bfloat16)
    >>> (x * 0.1).tolist()  # 0.30078125 if 0.1 were rounded to bfloat16 first
    [0.10009765625, 0.30078125]

Each form carries PyTorch's node name (``MulBackward0``...), so a graph looks the same in every dtype.
``arithmetic.py`` picks them; a float32 or float64 computation never meets them.
"""

from __future__ import annotations

from ... import _dtype
from ...autograd.function import Op
from .._util import is_number
from ._operands import _quiet

_FLOAT32 = _dtype.float32.numpy_dtype
_REDUCED = frozenset((_dtype.bfloat16, _dtype.float16))


def is_reduced(result: _dtype.dtype) -> bool:
    """Whether ``result`` is bfloat16 or float16, the dtypes PyTorch computes in float32."""
    return result in _REDUCED


class MulByNumber(Op):
    """``y = x * c`` for a bfloat16 or float16 ``x`` and a number ``c``, in float32 and rounded once;
    ``dx = grad * c`` (the same form again)."""

    node_name = "MulBackward0"
    wraps_numbers = True  # x * 0.1 lists the 0.1 as an input, as PyTorch does

    @staticmethod
    @_quiet
    def forward(ctx, x, number):
        ctx.number = number
        return (x.astype(_FLOAT32) * number).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.number, None


class DivByNumber(Op):
    """``y = x / c`` for a bfloat16 or float16 ``x`` and a number ``c``, in float32 and rounded once;
    ``dx = grad / c``."""

    node_name = "DivBackward0"
    wraps_numbers = True

    @staticmethod
    @_quiet
    def forward(ctx, x, number):
        ctx.number = number
        return (x.astype(_FLOAT32) / number).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx.number, None


def _in_float32(value, numpy_dtype):
    """An operand of ``AddScaled`` in float32: an array widened, a number rounded to ``numpy_dtype`` first."""
    if is_number(value):
        return float(numpy_dtype.type(value))
    return value.astype(_FLOAT32)


class AddScaled(Op):
    """``y = a + alpha * b`` for bfloat16 or float16 operands, in float32 and rounded once (``alpha`` rounded
    to their dtype first, as PyTorch's ``add`` does);  ``da = grad``,  ``db = grad * alpha``.

    ``settings`` is ``(alpha, numpy_dtype)``: one argument that is not a number, so that only ``a`` and ``b``
    are listed as the node's inputs (PyTorch's ``alpha`` is an attribute, not an input)."""

    node_name = "AddBackward0"
    wraps_numbers = True
    sign = 1

    @classmethod
    @_quiet
    def forward(cls, ctx, a, b, settings):
        alpha, numpy_dtype = settings
        ctx.alpha = cls.sign * alpha
        scale = float(numpy_dtype.type(ctx.alpha))
        return (_in_float32(a, numpy_dtype) + scale * _in_float32(b, numpy_dtype)).astype(numpy_dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad * ctx.alpha if ctx.needs_input_grad[1] else None), None


class SubScaled(AddScaled):
    """``y = a - alpha * b``, in float32 and rounded once;  ``da = grad``,  ``db = -grad * alpha``."""

    node_name = "SubBackward0"
    sign = -1
