"""Op-table entries for ``minitorch/ops/pointwise.py``.

Inputs are kept inside each function's domain (``low``/``high``) and away from the points
where it has a kink or a jump (``away_from``), so finite differences are valid there.
Entries whose results are integers or bools are compared exactly.
"""

import math

from tests.ops.op_table import Arg, OpInfo, S

BINARY_SHAPES = [S((3, 4), (3, 4)), S((2, 3, 1), (3, 4)), S((), (2, 3)), S((4,), ())]
UNARY_SHAPES = [S((3, 4)), S(()), S((2, 0, 3))]


def unary(shape=(3, 4), **options):
    """One-input samples of several shapes (2-D, 0-d, size-0) with the same value options."""
    return [(Arg(shape, **options),), (Arg((), **options),), (Arg((2, 1, 3), **options),)]


def binary(first=None, second=None):
    """Two-input samples over the standard broadcasting shapes; ``first``/``second`` are Arg options."""
    first, second = first or {}, second or {}
    return [(Arg(a.shape, **first), Arg(b.shape, **second)) for a, b in BINARY_SHAPES]


INTEGERS = [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0]
HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]
NONZERO = {"away_from": (0.0,), "margin": 0.4}  # divisors: |b| >= 0.45
NO_GRAD = {"grad": False}
SMALL_INTS = {"kind": "int", "low": -5, "high": 6}
ZERO_ONE = {"kind": "int", "low": 0, "high": 2}
BITS = {"kind": "int", "low": 0, "high": 16}
SPECIAL_VALUES = (Arg((4,), values=[1.0, math.nan, math.inf, -math.inf], grad=False),)

OPS = [
    # -- arithmetic ------------------------------------------------------------------------
    OpInfo("add", lambda lib, a, b: a + b, BINARY_SHAPES, elementwise=2),
    OpInfo("add_alpha", lambda lib, a, b: lib.add(a, b, alpha=2.5), BINARY_SHAPES[:2]),
    OpInfo("add_scalar", lambda lib, a: 3.5 + a, [S((3, 4)), S(())], elementwise=1),
    OpInfo("add_int", lambda lib, a, b: a + b, [(Arg((3, 4), **SMALL_INTS), Arg((4,), **SMALL_INTS))], elementwise=2),
    OpInfo("add_int_float", lambda lib, a, b: a + b, [(Arg((3, 4), **SMALL_INTS), Arg((3, 4)))], elementwise=2),
    OpInfo("sub", lambda lib, a, b: a - b, BINARY_SHAPES, elementwise=2),
    OpInfo("sub_alpha", lambda lib, a, b: lib.sub(a, b, alpha=-0.5), BINARY_SHAPES[:2]),
    OpInfo("rsub_scalar", lambda lib, a: 2 - a, [S((3, 4))]),
    OpInfo("rsub", lambda lib, a, b: lib.rsub(a, b), BINARY_SHAPES[:2]),
    OpInfo("mul", lambda lib, a, b: a * b, BINARY_SHAPES, elementwise=2),
    OpInfo("mul_scalar", lambda lib, a: a * 1.5, [S((3, 4))]),
    OpInfo("div", lambda lib, a, b: a / b, binary(second=NONZERO), elementwise=2),
    OpInfo("rdiv_scalar", lambda lib, a: 2.0 / a, [(Arg((3, 4), low=0.5, high=2.0),)]),
    OpInfo("div_int", lambda lib, a, b: a / b, [(Arg((3, 4), **SMALL_INTS), Arg((4,), kind="int", low=1, high=4))]),
    OpInfo("div_floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), binary(second=NONZERO), elementwise=2),
    OpInfo("div_trunc", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"), binary(second=NONZERO), elementwise=2),
    OpInfo("div_trunc_int", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
           [(Arg((3, 4), kind="int", low=-20, high=20), Arg((4,), kind="int", values=[-3, -1, 2, 5]))]),
    OpInfo("div_floor_int_scalar", lambda lib, a: lib.div(a, -3, rounding_mode="floor"),
           [(Arg((3, 4), **SMALL_INTS),)]),
    # PyTorch has no derivative for floor_divide: inputs do not require grad.
    OpInfo("floor_divide", lambda lib, a, b: a // b,
           [(Arg((3, 4), **NO_GRAD), Arg((4,), **NO_GRAD, **NONZERO)),
            (Arg((3, 4), **NO_GRAD), Arg((), **NO_GRAD, **NONZERO))]),
    OpInfo("floor_divide_int", lambda lib, a, b: lib.floor_divide(a, b),
           [(Arg((3, 4), kind="int", low=-20, high=20), Arg((4,), kind="int", values=[-3, -1, 2, 5]))]),
    OpInfo("rfloor_divide_int", lambda lib, a: 7 // a, [(Arg((4,), kind="int", values=[-3, -1, 2, 5]),)]),
    OpInfo("remainder", lambda lib, a, b: a % b, binary(second=NONZERO), elementwise=2),
    OpInfo("remainder_scalar", lambda lib, a: a % 1.5, unary()),
    OpInfo("rremainder_scalar", lambda lib, a: 2.5 % a, [(Arg((3, 4), grad=False, **NONZERO),)]),
    OpInfo("remainder_int", lambda lib, a, b: lib.remainder(a, b),
           [(Arg((3, 4), kind="int", low=-20, high=20), Arg((4,), kind="int", values=[-3, -1, 2, 5]))]),
    OpInfo("fmod", lambda lib, a, b: lib.fmod(a, b), binary(second=NONZERO), elementwise=2),
    OpInfo("fmod_scalar", lambda lib, a: lib.fmod(a, -1.5), unary()),
    OpInfo("fmod_int", lambda lib, a, b: lib.fmod(a, b),
           [(Arg((3, 4), kind="int", low=-20, high=20), Arg((4,), kind="int", values=[-3, -1, 2, 5]))]),
    OpInfo("neg", lambda lib, a: -a, [S((3, 4)), S(())], elementwise=1),
    OpInfo("neg_int", lambda lib, a: lib.neg(a), [(Arg((3, 4), **SMALL_INTS),)]),
    # -- powers and roots ----------------------------------------------------------------------
    OpInfo("pow", lambda lib, a, b: a**b, binary(first={"low": 0.5, "high": 2.0}), elementwise=2),
    OpInfo("pow_scalar", lambda lib, a: a**3, unary(), elementwise=1),
    OpInfo("pow_scalar_fraction", lambda lib, a: lib.pow(a, 2.5), unary(low=0.2, high=2.0), elementwise=1),
    OpInfo("pow_scalar_negative", lambda lib, a: a**-1.5, unary(low=0.5, high=2.0)),
    OpInfo("pow_scalar_zero", lambda lib, a: a**0, unary()),
    OpInfo("rpow_scalar", lambda lib, a: 2.5**a, unary(), elementwise=1),
    OpInfo("rpow_zero_base", lambda lib, a: lib.pow(0.0, a), [(Arg((4,), values=[0.5, 1.0, 2.0, 3.0]),)]),
    # At base 0 the gradient with respect to the exponent is 0 by PyTorch's convention (0 ** b is
    # flat for b > 0). The second derivative meets 0 * log(0) = NaN in PyTorch's formula too.
    OpInfo("pow_zero_base", lambda lib, a, b: a**b,
           [(Arg((4,), values=[0.0, 1.5, 0.0, 2.0]), Arg((4,), values=[2.0, 1.5, 3.0, 0.5]))], gradgradcheck=False),
    OpInfo("pow_int", lambda lib, a, b: a**b,
           [(Arg((3, 4), kind="int", low=-3, high=4), Arg((4,), kind="int", values=[-2, 0, 1, 3]))]),
    OpInfo("pow_int_scalar", lambda lib, a: a**2, [(Arg((3, 4), **SMALL_INTS),)]),
    OpInfo("rpow_int", lambda lib, a: 2**a, [(Arg((3, 4), kind="int", low=-2, high=6),)]),
    OpInfo("square", lambda lib, a: lib.square(a), unary(), elementwise=1),
    OpInfo("square_bool", lambda lib, a: lib.square(a), [(Arg((3, 4), kind="bool"),)]),
    OpInfo("sqrt", lambda lib, a: lib.sqrt(a), unary(low=0.1, high=3.0), elementwise=1),
    OpInfo("rsqrt", lambda lib, a: a.rsqrt(), unary(low=0.2, high=3.0), elementwise=1),
    OpInfo("reciprocal", lambda lib, a: lib.reciprocal(a), unary(away_from=(0.0,), margin=0.3), elementwise=1),
    OpInfo("reciprocal_int", lambda lib, a: lib.reciprocal(a), [(Arg((4,), kind="int", values=[-3, -1, 2, 5]),)]),
    # -- exponentials and logarithms --------------------------------------------------------------
    OpInfo("exp", lambda lib, a: lib.exp(a), unary(), elementwise=1),
    OpInfo("exp_int", lambda lib, a: lib.exp(a), [(Arg((3, 4), **SMALL_INTS),)]),
    OpInfo("exp2", lambda lib, a: lib.exp2(a), unary(), elementwise=1),
    OpInfo("expm1", lambda lib, a: lib.expm1(a), unary(low=-1.0, high=1.0), elementwise=1),
    OpInfo("log", lambda lib, a: lib.log(a), unary(low=0.1, high=3.0), elementwise=1),
    OpInfo("log2", lambda lib, a: lib.log2(a), unary(low=0.1, high=3.0), elementwise=1),
    OpInfo("log10", lambda lib, a: a.log10(), unary(low=0.1, high=3.0), elementwise=1),
    OpInfo("log1p", lambda lib, a: lib.log1p(a), unary(low=-0.8, high=2.0), elementwise=1),
    # -- trigonometry ------------------------------------------------------------------------
    OpInfo("sin", lambda lib, a: lib.sin(a), unary(), elementwise=1),
    OpInfo("cos", lambda lib, a: lib.cos(a), unary(), elementwise=1),
    OpInfo("tan", lambda lib, a: lib.tan(a), unary(low=-1.2, high=1.2), elementwise=1),
    OpInfo("asin", lambda lib, a: lib.asin(a), unary(low=-0.9, high=0.9), elementwise=1),
    OpInfo("acos", lambda lib, a: lib.acos(a), unary(low=-0.9, high=0.9), elementwise=1),
    OpInfo("atan", lambda lib, a: lib.atan(a), unary(), elementwise=1),
    OpInfo("sinh", lambda lib, a: lib.sinh(a), unary(), elementwise=1),
    OpInfo("cosh", lambda lib, a: lib.cosh(a), unary(), elementwise=1),
    OpInfo("tanh", lambda lib, a: lib.tanh(a), unary(), elementwise=1),
    OpInfo("atan2", lambda lib, a, b: lib.atan2(a, b), binary(first=NONZERO), elementwise=2),
    OpInfo("hypot", lambda lib, a, b: lib.hypot(a, b), binary(first=NONZERO), elementwise=2),
    # -- activations -------------------------------------------------------------------------
    OpInfo("sigmoid", lambda lib, a: lib.sigmoid(a), unary(low=-5.0, high=5.0), elementwise=1),
    OpInfo("sigmoid_extreme", lambda lib, a: lib.sigmoid(a), [(Arg((5,), values=[-800.0, -30.0, 0.0, 30.0, 800.0]),)]),
    OpInfo("relu", lambda lib, a: lib.relu(a), unary(away_from=(0.0,)), elementwise=1),
    OpInfo("relu_int", lambda lib, a: a.relu(), [(Arg((3, 4), **SMALL_INTS),)]),
    OpInfo("erf", lambda lib, a: lib.erf(a), unary(low=-3.0, high=3.0), elementwise=1),
    # Every range of the rational approximation: |x| < 0.46875, up to 4, beyond 4, and the edges.
    OpInfo("erf_ranges", lambda lib, a: lib.erf(a),
           [(Arg((13,), values=[-6.0, -4.5, -4.0, -2.5, -0.46875, -0.3, 0.0, 1e-3, 0.46, 0.5, 1.0, 3.9, 5.0]),)]),
    # -- rounding and piecewise ----------------------------------------------------------------
    OpInfo("abs", lambda lib, a: lib.abs(a), unary(away_from=(0.0,)), elementwise=1),
    OpInfo("abs_zero", lambda lib, a: abs(a), [(Arg((3,), values=[0.0, -1.0, 2.0]),)], gradcheck=False),
    OpInfo("abs_int", lambda lib, a: lib.abs(a), [(Arg((3, 4), **SMALL_INTS),)]),
    OpInfo("sign", lambda lib, a: lib.sign(a), unary(away_from=(0.0,)), elementwise=1),
    OpInfo("sign_special", lambda lib, a: lib.sign(a),
           [(Arg((4,), values=[0.0, -0.0, math.nan, -math.inf], **NO_GRAD),)]),
    OpInfo("sign_int", lambda lib, a: lib.sign(a), [(Arg((3, 4), **SMALL_INTS),)]),
    OpInfo("floor", lambda lib, a: lib.floor(a), unary(low=-3.0, high=3.0, away_from=INTEGERS), elementwise=1),
    OpInfo("ceil", lambda lib, a: lib.ceil(a), unary(low=-3.0, high=3.0, away_from=INTEGERS), elementwise=1),
    OpInfo("trunc", lambda lib, a: lib.trunc(a), unary(low=-3.0, high=3.0, away_from=INTEGERS), elementwise=1),
    OpInfo("round", lambda lib, a: lib.round(a), unary(low=-3.0, high=3.0, away_from=HALVES), elementwise=1),
    OpInfo("round_halves", lambda lib, a: lib.round(a), [(Arg((6,), values=HALVES, grad=False),)]),
    OpInfo("round_decimals", lambda lib, a: lib.round(a, decimals=2), unary(low=-3.0, high=3.0)),
    OpInfo("round_negative_decimals", lambda lib, a: a.round(decimals=-1), unary(low=-60.0, high=60.0)),
    OpInfo("floor_int", lambda lib, a: lib.floor(a), [(Arg((3, 4), **SMALL_INTS),)]),
    OpInfo("frac", lambda lib, a: lib.frac(a), unary(low=-3.0, high=3.0, away_from=INTEGERS), elementwise=1),
    OpInfo("clamp", lambda lib, a: lib.clamp(a, -0.5, 0.5), unary(away_from=(-0.5, 0.5)), elementwise=1),
    OpInfo("clamp_min", lambda lib, a: lib.clamp(a, min=-0.5), unary(away_from=(-0.5,))),
    OpInfo("clamp_max", lambda lib, a: a.clamp(max=0.25), unary(away_from=(0.25,))),
    OpInfo("clamp_crossed", lambda lib, a: lib.clamp(a, min=1.0, max=-1.0), unary()),
    OpInfo("clip", lambda lib, a: lib.clip(a, 0.0, 1.0), unary(away_from=(0.0, 1.0))),
    OpInfo("clamp_int", lambda lib, a: lib.clamp(a, -1, 3), [(Arg((3, 4), **SMALL_INTS),)]),
    OpInfo("clamp_int_float_bound", lambda lib, a: lib.clamp(a, min=-1.5), [(Arg((3, 4), **SMALL_INTS),)]),
    OpInfo("clamp_tensors", lambda lib, a, low, high: lib.clamp(a, low, high),
           [(Arg((3, 4)), Arg((3, 4), low=-1.5, high=-0.5), Arg((4,), low=0.5, high=1.5)),
            (Arg((2, 3)), Arg((), low=-1.5, high=-0.5), Arg((2, 1), low=0.5, high=1.5))]),
    OpInfo("clamp_tensors_crossed", lambda lib, a, low, high: lib.clamp(a, low, high),
           [(Arg((3, 4)), Arg((3, 4), low=0.5, high=1.5), Arg((4,), low=-1.5, high=-0.5))]),
    # No hypothesis shapes for tensor bounds: PyTorch's own backward fails when the bounds are larger than the input.
    OpInfo("clamp_tensor_min", lambda lib, a, low: lib.clamp(a, min=low), [S((3, 4), (4,))]),
    OpInfo("clamp_tensor_max", lambda lib, a, high: lib.clamp(a, max=high), [S((3, 4), (3, 1))]),
    OpInfo("maximum", lambda lib, a, b: lib.maximum(a, b), BINARY_SHAPES, elementwise=2),
    OpInfo("minimum", lambda lib, a, b: lib.minimum(a, b), BINARY_SHAPES, elementwise=2),
    # On ties each input gets half of the gradient, which is also what central differences measure.
    # (The gradient itself jumps at a tie, so there is no second derivative to check there.)
    OpInfo("maximum_ties", lambda lib, a, b: lib.maximum(a, b),
           [(Arg((4,), values=[1.0, -0.5, 2.0, 0.0]), Arg((4,), values=[1.0, 0.5, 2.0, -1.0]))], gradgradcheck=False),
    OpInfo("minimum_ties", lambda lib, a, b: a.minimum(b),
           [(Arg((4,), values=[1.0, -0.5, 2.0, 0.0]), Arg((4,), values=[1.0, 0.5, 2.0, -1.0]))], gradgradcheck=False),
    OpInfo("maximum_int", lambda lib, a, b: lib.maximum(a, b), [(Arg((3, 4), **SMALL_INTS), Arg((4,), **SMALL_INTS))]),
    # PyTorch's conventions exactly at the kinks (parity only: finite differences are meaningless there).
    OpInfo("relu_at_zero", lambda lib, a: lib.relu(a), [(Arg((3,), values=[0.0, -1.0, 2.0]),)], gradcheck=False),
    OpInfo("clamp_at_bounds", lambda lib, a: lib.clamp(a, -0.5, 0.5), [(Arg((4,), values=[-0.5, 0.5, 0.0, 1.0]),)],
           gradcheck=False),
    OpInfo("clamp_tensors_at_bounds", lambda lib, a, low, high: lib.clamp(a, low, high),
           [(Arg((4,), values=[0.0, 1.0, -1.0, 3.0]), Arg((4,), values=[0.0, 0.0, -2.0, 3.0]),
             Arg((4,), values=[1.0, 1.0, -1.0, 3.0]))], gradcheck=False),
    OpInfo("sqrt_at_zero", lambda lib, a: lib.sqrt(a), [(Arg((2,), values=[0.0, 4.0]),)], gradcheck=False),
    OpInfo("pow_scalar_at_zero", lambda lib, a: a**2 + a**0.5 + a**-1.0, [(Arg((2,), values=[0.0, 4.0]),)],
           gradcheck=False),
    # -- selection and blending ----------------------------------------------------------------
    # The condition is made from a float input (x > 0), so hypothesis can give it any shape.
    OpInfo("where", lambda lib, x, a, b: lib.where(x > 0, a, b),
           [(Arg((3, 4), **NO_GRAD), Arg((3, 4)), Arg((3, 4))), (Arg((3, 1), **NO_GRAD), Arg((4,)), Arg(())),
            (Arg((), **NO_GRAD), Arg((2, 3)), Arg((3,)))], elementwise=3),
    OpInfo("where_bool_condition", lambda lib, c, a, b: lib.where(c, a, b),
           [(Arg((3, 4), kind="bool"), Arg((3, 4)), Arg((4,)))]),
    OpInfo("where_scalar_other", lambda lib, x, a: lib.where(x > 0, a, 0.0), [(Arg((3, 4), **NO_GRAD), Arg((4,)))],
           elementwise=2),
    OpInfo("where_scalar_input", lambda lib, x, b: lib.where(x > 0, 1.5, b), [(Arg((3, 4), **NO_GRAD), Arg((3, 4)))],
           elementwise=2),
    OpInfo("where_method", lambda lib, c, a, b: a.where(c, b), [(Arg((3, 4), kind="bool"), Arg((3, 4)), Arg((4,)))]),
    OpInfo("where_scalars", lambda lib, c: lib.where(c, 1, 2.5), [(Arg((3, 4), kind="bool"),)]),
    OpInfo("where_int", lambda lib, c, a: lib.where(c, a, -1), [(Arg((3, 4), kind="bool"), Arg((3, 4), **SMALL_INTS))]),
    OpInfo("lerp", lambda lib, a, b: lib.lerp(a, b, 0.3), BINARY_SHAPES, elementwise=2),
    OpInfo("lerp_high_weight", lambda lib, a, b: a.lerp(b, 0.8), BINARY_SHAPES[:2]),
    OpInfo("lerp_tensor_weight", lambda lib, a, b, w: lib.lerp(a, b, w),
           [(Arg((3, 4)), Arg((3, 4)), Arg((3, 4), low=-0.5, high=1.5)), (Arg((2, 1)), Arg((3,)), Arg(()))],
           elementwise=3),
    # -- comparisons and logic ---------------------------------------------------------------
    # Floats (with a 0-d tensor), then small integers: those make ties, so == and <= really get tested.
    *[
        OpInfo(name, fn, [(Arg((3, 4), **NO_GRAD), Arg((), **NO_GRAD)),
                          (Arg((3, 4), kind="int", low=0, high=3), Arg((4,), kind="int", low=0, high=3))],
               elementwise=2)
        for name, fn in [
            ("eq", lambda lib, a, b: a == b), ("ne", lambda lib, a, b: a != b), ("lt", lambda lib, a, b: a < b),
            ("le", lambda lib, a, b: lib.le(a, b)), ("gt", lambda lib, a, b: lib.gt(a, b)),
            ("ge", lambda lib, a, b: a.ge(b)),
        ]
    ],
    OpInfo("eq_int_float", lambda lib, a, b: lib.eq(a, b.float() / 2),
           [(Arg((3, 4), kind="int", low=0, high=3), Arg((3, 4), kind="int", low=0, high=6))]),
    OpInfo("lt_scalar", lambda lib, a: a < 0.5, [S((3, 4), grad=False)]),
    OpInfo("gt_scalar_left", lambda lib, a: 0.5 > a, [S((3, 4), grad=False)]),
    OpInfo("le_int_float_scalar", lambda lib, a: a <= 1.5, [(Arg((3, 4), **SMALL_INTS),)]),
    OpInfo("ne_requires_grad", lambda lib, a, b: a != b, [S((3, 4), (3, 4))]),
    OpInfo("isnan", lambda lib, a: lib.isnan(a), [SPECIAL_VALUES]),
    OpInfo("isinf", lambda lib, a: lib.isinf(a), [SPECIAL_VALUES]),
    OpInfo("isfinite", lambda lib, a: a.isfinite(), [SPECIAL_VALUES]),
    OpInfo("isnan_int", lambda lib, a: lib.isnan(a), [(Arg((3,), **SMALL_INTS),)]),
    OpInfo("isfinite_int", lambda lib, a: lib.isfinite(a), [(Arg((3,), **SMALL_INTS),)]),
    OpInfo("logical_not", lambda lib, a: lib.logical_not(a), [(Arg((3, 4), **ZERO_ONE),), (Arg((3,), kind="bool"),)]),
    OpInfo("logical_and", lambda lib, a, b: lib.logical_and(a, b), [(Arg((3, 4), **ZERO_ONE), Arg((4,), kind="bool"))]),
    OpInfo("logical_and_floats", lambda lib, a, b: lib.logical_and(a > 0, b.relu()), [S((3, 4), (4,), grad=False)],
           elementwise=2),
    OpInfo("logical_or", lambda lib, a, b: lib.logical_or(a > 0, b < 0), [S((3, 4), (3, 1), grad=False)],
           elementwise=2),
    OpInfo("logical_xor", lambda lib, a, b: a.logical_xor(b), [(Arg((3, 4), kind="bool"), Arg((3, 4), **ZERO_ONE))]),
    OpInfo("bitwise_and", lambda lib, a, b: a & b, [(Arg((3, 4), **BITS), Arg((4,), kind="int", low=-8, high=8))]),
    OpInfo("bitwise_or", lambda lib, a, b: lib.bitwise_or(a, b), [(Arg((3, 4), kind="bool"), Arg((4,), kind="bool"))]),
    OpInfo("bitwise_xor", lambda lib, a, b: a ^ b, [(Arg((3, 4), **BITS), Arg((3, 4), kind="bool"))]),
    OpInfo("bitwise_and_scalar", lambda lib, a: a & 6, [(Arg((3, 4), kind="int", low=0, high=16),)]),
    OpInfo("bitwise_or_bool_scalar", lambda lib, a: a | True, [(Arg((3, 4), kind="bool"),)]),
    OpInfo("bitwise_not", lambda lib, a: ~a, [(Arg((3, 4), kind="int", low=-8, high=8),), (Arg((3,), kind="bool"),)]),
    OpInfo("isclose", lambda lib, a, b: lib.isclose(a, b, rtol=0.2, atol=0.1), [S((3, 4), (3, 4), grad=False)]),
    OpInfo("isclose_equal_nan", lambda lib, a, b: lib.isclose(a, b, equal_nan=True),
           [(Arg((4,), values=[1.0, math.nan, math.inf, 2.0], **NO_GRAD),
             Arg((4,), values=[1.0, math.nan, math.inf, 2.1], **NO_GRAD))]),
    OpInfo("isclose_int", lambda lib, a, b: lib.isclose(a, b, rtol=0.0, atol=1.0),
           [(Arg((3, 4), **SMALL_INTS), Arg((3, 4), **SMALL_INTS))]),
    OpInfo("allclose",
           lambda lib, a, b: lib.tensor([lib.allclose(a, b), lib.allclose(a, a + 1e-9), a.allclose(b, atol=10.0)],
                                        device=a.device),
           [S((3, 4), (3, 4), grad=False)]),
    OpInfo("equal", lambda lib, a, b: lib.tensor([lib.equal(a, b), lib.equal(a, a * 1), a.equal(a.double())],
                                                 device=a.device),
           [S((3, 4), (3, 4), grad=False)]),
    # -- logaddexp, xlogy, logit, erfinv, angles, signs, nan_to_num ---------------------------------
    OpInfo("logaddexp", lambda lib, a, b: lib.logaddexp(a, b), BINARY_SHAPES, elementwise=2),
    OpInfo("logaddexp_large", lambda lib, a, b: a.logaddexp(b),
           [(Arg((3,), values=[1000.0, -1000.0, 5.0]), Arg((3,), values=[999.0, -1001.0, -700.0]))]),
    OpInfo("logaddexp_int_float", lambda lib, a, b: lib.logaddexp(a, b), [(Arg((3, 4), **SMALL_INTS), Arg((4,)))]),
    OpInfo("logaddexp_infinities", lambda lib, a, b: lib.logaddexp(a, b),
           [(Arg((3,), values=[math.inf, -math.inf, math.inf], **NO_GRAD),
             Arg((3,), values=[math.inf, -math.inf, -math.inf], **NO_GRAD))]),
    OpInfo("logaddexp2", lambda lib, a, b: lib.logaddexp2(a, b), BINARY_SHAPES, elementwise=2),
    OpInfo("logaddexp2_large", lambda lib, a, b: a.logaddexp2(b),
           [(Arg((3,), values=[1000.0, -1000.0, 5.0]), Arg((3,), values=[999.0, -1001.0, -700.0]))]),
    OpInfo("xlogy", lambda lib, a, b: lib.xlogy(a, b), binary(second={"low": 0.1, "high": 3.0}), elementwise=2),
    OpInfo("xlogy_zeros", lambda lib, a, b: lib.xlogy(a, b),
           [(Arg((5,), values=[0.0, 0.0, 0.0, 1.5, -2.0]), Arg((5,), values=[0.0, math.nan, math.inf, 0.5, 2.0]))],
           gradcheck=False),
    OpInfo("xlogy_zero_x", lambda lib, a, b: a.xlogy(b),
           [(Arg((3,), values=[0.0, 0.0, 1.0]), Arg((3,), values=[0.5, 2.0, 3.0]))]),
    OpInfo("xlogy_scalar_other", lambda lib, a: lib.xlogy(a, 2.5), unary()),
    OpInfo("xlogy_scalar_input", lambda lib, b: lib.xlogy(1.5, b), unary(low=0.1, high=3.0)),
    OpInfo("xlogy_int", lambda lib, a, b: lib.xlogy(a, b),
           [(Arg((3, 4), **SMALL_INTS), Arg((4,), kind="int", low=0, high=4))]),
    OpInfo("logit", lambda lib, a: lib.logit(a), unary(low=0.05, high=0.95), elementwise=1, domain=(0.05, 0.95)),
    OpInfo("logit_eps", lambda lib, a: a.logit(eps=0.2), unary(low=-0.5, high=1.5, away_from=(0.2, 0.8))),
    OpInfo("logit_outside", lambda lib, a: lib.logit(a), [(Arg((4,), values=[-0.5, 0.0, 1.0, 1.5]),)], gradcheck=False),
    OpInfo("logit_negative_eps", lambda lib, a: lib.logit(a, -0.1), [(Arg((3,), values=[0.0, 0.3, 1.0]),)],
           gradcheck=False),
    OpInfo("logit_int", lambda lib, a: lib.logit(a), [(Arg((3,), kind="int", values=[0, 1, 2]),)]),
    OpInfo("erfinv", lambda lib, a: lib.erfinv(a), unary(low=-0.95, high=0.95), elementwise=1, domain=(-0.95, 0.95)),
    OpInfo("erfinv_edges", lambda lib, a: a.erfinv(), [(Arg((5,), values=[-1.0, 1.0, 2.0, -1e-300, 0.0], **NO_GRAD),)]),
    OpInfo("erfinv_int", lambda lib, a: lib.erfinv(a), [(Arg((3,), kind="int", values=[-1, 0, 1]),)]),
    OpInfo("deg2rad", lambda lib, a: lib.deg2rad(a), unary(low=-360.0, high=360.0), elementwise=1),
    OpInfo("rad2deg", lambda lib, a: a.rad2deg(), unary(), elementwise=1),
    OpInfo("deg2rad_int", lambda lib, a: lib.deg2rad(a), [(Arg((3, 4), **SMALL_INTS),), (Arg((3,), kind="bool"),)]),
    OpInfo("rad2deg_int", lambda lib, a: lib.rad2deg(a), [(Arg((3, 4), **SMALL_INTS),)]),
    # "+ a": PyTorch's gradient of sgn alone is a ZeroTensor, which refuses .numpy()
    OpInfo("sgn", lambda lib, a: lib.sgn(a) + a, unary(away_from=(0.0,)), elementwise=1),
    OpInfo("sgn_int_bool", lambda lib, a: a.sgn(), [(Arg((3, 4), **SMALL_INTS),), (Arg((3,), kind="bool"),)]),
    OpInfo("signbit", lambda lib, a: lib.signbit(a),
           [(Arg((6,), values=[-0.0, 0.0, -1.5, 2.0, -math.inf, math.nan], **NO_GRAD),), (Arg((3, 4), **SMALL_INTS),),
            (Arg((3,), kind="bool"),), S((3, 4))]),
    OpInfo("heaviside", lambda lib, a, b: lib.heaviside(a, b),
           [(Arg((6,), values=[-1.0, 0.0, 2.0, -0.0, math.nan, math.inf], **NO_GRAD), Arg((), values=0.5, **NO_GRAD)),
            (Arg((3, 4), kind="int", low=-1, high=2), Arg((4,), kind="int", low=5, high=9)),
            (Arg((3,), kind="bool"), Arg((3,), kind="bool"))]),
    OpInfo("nan_to_num", lambda lib, a: lib.nan_to_num(a), unary(), elementwise=1),
    OpInfo("nan_to_num_special", lambda lib, a: a.nan_to_num(),
           [(Arg((5,), values=[1.0, math.nan, math.inf, -math.inf, -2.0]),)]),
    OpInfo("nan_to_num_values", lambda lib, a: lib.nan_to_num(a, nan=1.5, posinf=2.0, neginf=-3.0),
           [(Arg((5,), values=[1.0, math.nan, math.inf, -math.inf, -2.0]),)]),
    OpInfo("nan_to_num_int", lambda lib, a: lib.nan_to_num(a, 1.0),
           [(Arg((3, 4), **SMALL_INTS),), (Arg((3,), kind="bool"),)]),
    OpInfo("nan_to_num_", lambda lib, a: (a * 1).nan_to_num_(posinf=9.0),
           [(Arg((5,), values=[1.0, math.nan, math.inf, -math.inf, -2.0]),)]),
    OpInfo("nan_to_num_top_level_", lambda lib, a: lib.nan_to_num_(a.clone(), nan=-1.0),
           [(Arg((4,), values=[1.0, math.nan, math.inf, 0.5]),)]),
]
