"""Elementwise ops, one file per family (as PyTorch's documentation groups its pointwise ops).

* ``arithmetic``: ``add``, ``sub``, ``mul``, ``div``, ``floor_divide``, ``remainder``, ``fmod``, ``neg``
* ``powers``: ``pow``, ``square``, ``sqrt``, ``rsqrt``, ``reciprocal``, ``float_power``
* ``exponential``: ``exp``, ``log`` and their variants, ``logaddexp``, ``xlogy``, ``logit``, ``ldexp``, ``frexp``
* ``trigonometric``: ``sin``... and the hyperbolic functions, their inverses, ``atan2``, ``hypot``, ``deg2rad``
* ``activations``: ``sigmoid``, ``relu``
* ``special``: ``erf``, ``erfc``, ``erfinv``, ``lgamma``, ``digamma``, ``polygamma``, ``i0``, ``sinc``
* ``rounding``: ``floor``, ``ceil``, ``round``, ``abs``, ``sign``, ``clamp``, ``maximum``, ``fmax``...
* ``selection``: ``where``, ``lerp``
* ``comparison``: ``eq``, ``lt``..., ``isnan``..., ``logical_*``, ``bitwise_*``, ``isclose``, ``nan_to_num``
* ``_operands``: what they share (checking and promoting operands, results without a graph)

Binary ops broadcast like NumPy and promote dtypes like PyTorch. Each ``Op`` keeps forward (on
arrays) and backward (in Tensor ops) together, with the derivative in its docstring; the backward
formulas are PyTorch's own (its ``derivatives.yaml``), with its conventions where the math has no
derivative (``abs'(0) = 0``, ``relu'(0) = 0``, ``floor`` and friends have gradient 0).

This file only gathers the families' names: ``minitorch.ops.pointwise.mul`` is ``arithmetic.mul``.
"""

from __future__ import annotations

from .arithmetic import (
    Add, Div, DivRounded, DivScalar, FloorDivide, Fmod, FmodTensor, Mul, Neg, Remainder, RemainderTensor, Rsub,
    RsubScalar, Sub, add, div, divide, floor_divide, fmod, mul, multiply, neg, negative, positive, remainder, rsub, sub,
    subtract, true_divide,
)
from .powers import (
    Pow, PowScalar, RPow, Reciprocal, Rsqrt, Sqrt, float_power, pow, reciprocal, rsqrt, sqrt, square,
)
from .exponential import (
    Exp, Exp2, Expm1, Frexp, Log, Log10, Log1p, Log2, Logaddexp, Logaddexp2, Logit, Xlogy, exp, exp2, expm1, frexp,
    ldexp, log, log10, log1p, log2, logaddexp, logaddexp2, logit, xlogy,
)
from .trigonometric import (
    Acos, Acosh, Asin, Asinh, Atan, Atan2, Atanh, Copysign, Cos, Cosh, Deg2Rad, Hypot, Rad2Deg, Sin, Sinh, Tan,
    Tanh, TanhBackward, acos, acosh, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, asin, asinh, atan,
    atan2, atanh, copysign, cos, cosh, deg2rad, hypot, rad2deg, sin, sinh, tan, tanh,
)
from .activations import (
    Relu, Sigmoid, SigmoidBackward, ThresholdBackward, relu, sigmoid,
)
from .special import (
    Digamma, Erf, Erfc, Erfinv, I0, I1, Lgamma, Polygamma, Sinc, digamma, erf, erfc, erfinv, i0, lgamma, polygamma,
    sinc,
)
from .rounding import (
    Abs, Ceil, Clamp, ClampMax, ClampMaxTensor, ClampMin, ClampMinTensor, ClampTensor, Floor, Fmax, Fmin, Frac,
    Heaviside, Maximum, Minimum, Nextafter, Round, RoundDecimals, Sgn, Sign, Trunc, abs, absolute, ceil, clamp,
    clamp_max, clamp_min, clip, fix, floor, fmax, fmin, frac, heaviside, maximum, minimum, nextafter, round, sgn,
    sign, signbit, trunc,
)
from .selection import (
    Lerp, LerpTensor, Where, lerp, where,
)
from .comparison import (
    NanToNum, allclose, bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor,
    eq, equal, gcd, ge, greater, greater_equal, gt, isclose, isfinite, isin, isinf, isnan, isneginf, isposinf,
    isreal, lcm, le, less, less_equal, logical_and, logical_not, logical_or, logical_xor, lt, nan_to_num, ne, not_equal,
)
