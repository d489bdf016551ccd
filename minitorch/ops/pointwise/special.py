"""Special functions: ``erf``, ``erfc``, ``erfinv``, ``lgamma``, ``digamma``, ``polygamma``, ``i0``, ``sinc``.

SciPy (a minitorch dependency) computes most of them; ``erf`` (GELU's) is written out with Cody's
rational approximations, below.
"""

from __future__ import annotations

import math

import numpy as np

from ..._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ...autograd.function import Op
from .._reduced_precision import computes_in_float32
from .._util import (
    array_module,
)
from ._operands import _as_floating, _quiet
from .selection import where

# -- special functions ------------------------------------------------------------------
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
    @computes_in_float32
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
