"""``minitorch.special``: special functions, under the names ``torch.special`` gives them.

Most are other names for functions minitorch already has (``expit`` is ``sigmoid``, ``gammaln`` is
``lgamma``, ``psi`` is ``digamma``). The rest are new here, three kinds:

* **Differentiable ops** computed by SciPy (a minitorch dependency; CuPy's copy of SciPy on a GPU),
  each with its derivative beside it: ``erfcx``, ``ndtri``, ``log_ndtr``, ``i0e``, ``i1``, ``i1e``,
  ``entr``, ``xlog1py``, and ``zeta`` / ``gammainc`` / ``gammaincc`` (differentiable in their second
  argument only, as in PyTorch; asking for the first one's gradient raises PyTorch's error).
* **Compositions** of differentiable ops: ``ndtr`` (the normal CDF) and ``multigammaln``.
* **Values without gradients**, as PyTorch gives them: the Bessel functions, ``airy_ai`` and the
  orthogonal polynomials (Chebyshev, Hermite, Laguerre, Legendre), whose results do not require grad.

    >>> import minitorch
    >>> x = minitorch.tensor([-1.0, 0.0, 2.0])
    >>> minitorch.special.ndtr(x)
    tensor([0.1587, 0.5000, 0.9772])
    >>> minitorch.special.expit(x)
    tensor([0.2689, 0.5000, 0.8808])
"""

from __future__ import annotations

import math

import numpy as np

from . import _creation, _dtype, ops
from ._tensor import Tensor
from .autograd.function import Op
from .ops._util import array_module
from .ops.pointwise._operands import _apply_in_layout

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc",
    "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
    "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l", "legendre_polynomial_p", "log1p",
    "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1",
    "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc",
    "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
]

# -- other names for functions minitorch has --------------------------------------------------------------
digamma = psi = ops.pointwise.digamma
erf, erfc, erfinv = ops.pointwise.erf, ops.pointwise.erfc, ops.pointwise.erfinv
exp2, expm1, log1p = ops.pointwise.exp2, ops.pointwise.expm1, ops.pointwise.log1p
expit = ops.pointwise.sigmoid
gammaln = ops.pointwise.lgamma
i0, logit, polygamma, round, sinc, xlogy = (  # noqa: A001 - torch.special.round is PyTorch's name
    ops.pointwise.i0, ops.pointwise.logit, ops.pointwise.polygamma, ops.pointwise.round, ops.pointwise.sinc,
    ops.pointwise.xlogy,
)
logsumexp = ops.reduction.logsumexp


def softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (``torch.special.softmax``)."""
    return input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """``x - logsumexp(x)`` along ``dim`` (``torch.special.log_softmax``)."""
    return input.log_softmax(dim, dtype=dtype)


# -- SciPy's functions, on the tensor's device ---------------------------------------------------------------
def _scipy_special(array):
    if array_module(array) is np:
        import scipy.special  # SciPy is slow to import: loaded when a special function first runs

        return scipy.special
    import cupyx.scipy.special  # optional (the cuda extra): only on a GPU

    return cupyx.scipy.special


def _floating(x: Tensor, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    return x if x.is_floating_point() else x.to(_dtype.get_default_dtype())


def _pair(x, other, name: str) -> tuple[Tensor, Tensor]:
    """Two operands as tensors of one floating dtype, broadcast together (a number becomes a tensor)."""
    if not isinstance(x, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"special_{name}(): expected at least one Tensor argument")
    like = x if isinstance(x, Tensor) else other
    x = x if isinstance(x, Tensor) else _creation.tensor(x, dtype=like.dtype, device=like.device)
    other = other if isinstance(other, Tensor) else _creation.tensor(other, dtype=x.dtype, device=x.device)
    dtype = _dtype.promote_types(x.dtype, other.dtype)
    if not dtype.is_floating_point:
        dtype = _dtype.get_default_dtype()
    return x.to(dtype), other.to(dtype)


# -- differentiable ops ---------------------------------------------------------------------------------------
class SpecialErfcx(Op):
    """``y = exp(x^2) erfc(x)`` (no overflow for large x);  ``dx = grad * (2 x y - 2 / sqrt(pi))``."""

    @staticmethod
    def forward(ctx, x):
        result = _scipy_special(x).erfcx(x).astype(x.dtype, copy=False)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (2 * x * y - 2 / math.sqrt(math.pi))


class SpecialNdtri(Op):
    """``y = ndtri(p)``, the normal quantile (``ndtr(y) = p``);  ``dp = grad * sqrt(2 pi) * exp(y^2 / 2)``."""

    @staticmethod
    def forward(ctx, p):
        result = _scipy_special(p).ndtri(p).astype(p.dtype, copy=False)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * math.sqrt(2 * math.pi) * (y * y / 2).exp()


class SpecialLogNdtr(Op):
    """``y = log(ndtr(x))``, accurate far into the left tail;  ``dx = grad * exp(-x^2 / 2 - y) / sqrt(2 pi)``."""

    @staticmethod
    def forward(ctx, x):
        result = _scipy_special(x).log_ndtr(x).astype(x.dtype, copy=False)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (-(x * x) / 2 - y).exp() / math.sqrt(2 * math.pi)


class SpecialI0E(Op):
    """``y = exp(-|x|) I0(x)``;  ``dx = grad * (i1e(x) - sign(x) y)``."""

    @staticmethod
    def forward(ctx, x):
        result = _scipy_special(x).i0e(x).astype(x.dtype, copy=False)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (i1e(x) - x.sign() * y)


class SpecialI1(Op):
    """``y = I1(x)``, the modified Bessel function of order 1;  ``dx = grad * (I0(x) - y / x)`` (``grad / 2`` at 0)."""

    @staticmethod
    def forward(ctx, x):
        result = _scipy_special(x).i1(x).astype(x.dtype, copy=False)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * ops.pointwise.where(x == 0, 0.5, ops.pointwise.i0(x) - y / x)


class SpecialI1E(Op):
    """``y = exp(-|x|) I1(x)``;  ``dx = grad * (i0e(x) - y (sign(x) + 1 / x))`` (``grad / 2`` at 0)."""

    @staticmethod
    def forward(ctx, x):
        result = _scipy_special(x).i1e(x).astype(x.dtype, copy=False)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * ops.pointwise.where(x == 0, 0.5, i0e(x) - y * (x.sign() + 1 / x))


class SpecialEntr(Op):
    """``y = -x log(x)`` for ``x > 0``, ``0`` at 0, ``-inf`` below;  ``dx = grad * -(1 + log(x))``."""

    @staticmethod
    def forward(ctx, x):
        xp = array_module(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            result = xp.where(x > 0, -x * xp.log(xp.where(x > 0, x, 1)), xp.where(x == 0, 0, -xp.inf))
            result = xp.where(xp.isnan(x), x, result).astype(x.dtype, copy=False)
        ctx.save_for_backward(x)
        return result

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * -(1 + x.log())


class SpecialXlog1Py(Op):
    """``y = x log(1 + other)``, 0 where ``x = 0`` (unless ``other`` is NaN);
    ``dx = grad * log1p(other)`` (0 where ``x = 0`` and ``other <= -1``),  ``dother = grad * x / (1 + other)``."""

    @staticmethod
    def forward(ctx, x, other):
        xp = array_module(x)
        ctx.save_for_backward(x, other)
        with np.errstate(divide="ignore", invalid="ignore"):
            result = xp.where((x == 0) & ~xp.isnan(other), 0, x * xp.log1p(other))
        return result.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, other = ctx.saved_tensors
        grad_x = grad_other = None
        if ctx.needs_input_grad[0]:
            grad_x = ops.pointwise.where((x == 0).logical_and(other <= -1), 0.0, grad * other.log1p())
        if ctx.needs_input_grad[1]:
            grad_other = grad * x / (1 + other)
        return grad_x, grad_other


def _not_implemented(name: str):
    raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


class SpecialZeta(Op):
    """``y = zeta(x, q) = sum_k (k + q)^-x``, Hurwitz's zeta;  ``dq = grad * -x * zeta(x + 1, q)`` (no ``dx``)."""

    @staticmethod
    def forward(ctx, x, q):
        ctx.save_for_backward(x, q)
        return _scipy_special(x).zeta(x, q).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            _not_implemented("zeta")
        return None, grad * -x * zeta(x + 1, q)


class SpecialGammainc(Op):
    """``y = P(a, x)``, the regularised lower incomplete gamma function;
    ``dx = grad * exp((a - 1) log(x) - x - lgamma(a))`` (no ``da``, as in PyTorch)."""

    upper = False

    @classmethod
    def forward(cls, ctx, a, x):
        ctx.save_for_backward(a, x)
        special = _scipy_special(a)
        return (special.gammaincc if cls.upper else special.gammainc)(a, x).astype(a.dtype, copy=False)

    @classmethod
    def backward(cls, ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            _not_implemented("igammac: input" if cls.upper else "igamma: input")
        density = ((a - 1) * x.log() - x - a.lgamma()).exp()
        return None, grad * (-density if cls.upper else density)


class SpecialGammaincc(SpecialGammainc):
    """``y = Q(a, x) = 1 - P(a, x)``;  ``dx = -grad * exp((a - 1) log(x) - x - lgamma(a))`` (no ``da``)."""

    upper = True


# -- the public functions ---------------------------------------------------------------------------------
def erfcx(input: Tensor) -> Tensor:
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    return SpecialErfcx.apply(_floating(input, "erfcx"))


def ndtri(input: Tensor) -> Tensor:
    """The quantile of the standard normal distribution: the ``x`` with ``ndtr(x) = p``."""
    return SpecialNdtri.apply(_floating(input, "ndtri"))


def log_ndtr(input: Tensor) -> Tensor:
    """``log(ndtr(x))``, computed without underflow for very negative ``x``."""
    return SpecialLogNdtr.apply(_floating(input, "log_ndtr"))


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2`` (PyTorch builds it from erf, so does this)."""
    return (1 + ops.pointwise.erf(_floating(input, "ndtr") * math.sqrt(0.5))) * 0.5


def i0e(input: Tensor) -> Tensor:
    """``exp(-|x|) I0(x)``: the modified Bessel function of order 0, scaled not to overflow."""
    return SpecialI0E.apply(_floating(input, "i0e"))


def i1(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind, order 1."""
    return SpecialI1.apply(_floating(input, "i1"))


def i1e(input: Tensor) -> Tensor:
    """``exp(-|x|) I1(x)``."""
    return SpecialI1E.apply(_floating(input, "i1e"))


def entr(input: Tensor) -> Tensor:
    """The entropy term ``-x log(x)`` elementwise (0 at 0, ``-inf`` for negative ``x``)."""
    return SpecialEntr.apply(_floating(input, "entr"))


def xlog1py(input, other) -> Tensor:
    """``x * log1p(other)``, and 0 where ``x`` is 0."""
    return _apply_in_layout(SpecialXlog1Py, *_pair(input, other, "xlog1py"))


def zeta(input, other) -> Tensor:
    """Hurwitz's zeta function ``sum_{k >= 0} (k + other)^-input`` (Riemann's for ``other = 1``)."""
    return SpecialZeta.apply(*_pair(input, other, "zeta"))


def gammainc(input, other) -> Tensor:
    """The regularised lower incomplete gamma function ``P(a, x)``."""
    return SpecialGammainc.apply(*_pair(input, other, "gammainc"))


def gammaincc(input, other) -> Tensor:
    """The regularised upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return SpecialGammaincc.apply(*_pair(input, other, "gammaincc"))


def multigammaln(input: Tensor, p: int) -> Tensor:
    """The log of the multivariate gamma function: ``p(p-1)/4 log(pi) + sum_{j<p} lgamma(a - j/2)``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    a = _floating(input, "multigammaln")  # at or below (p - 1) / 2 a term is lgamma of a pole: inf, as PyTorch gives
    total = ops.pointwise.lgamma(a)
    for j in range(1, p):
        total = total + ops.pointwise.lgamma(a - j / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)


# -- values without gradients -----------------------------------------------------------------------------
def _values(input: Tensor, compute, name: str) -> Tensor:
    """``compute(array)`` as a new tensor that does not require grad (PyTorch defines no derivative here)."""
    x = _floating(input, name)
    return Tensor._make(compute(x._data).astype(x._data.dtype, copy=False), x._device)


def bessel_j0(input: Tensor) -> Tensor:
    """The Bessel function of the first kind, order 0."""
    return _values(input, lambda a: _scipy_special(a).j0(a), "bessel_j0")


def bessel_j1(input: Tensor) -> Tensor:
    """The Bessel function of the first kind, order 1."""
    return _values(input, lambda a: _scipy_special(a).j1(a), "bessel_j1")


def bessel_y0(input: Tensor) -> Tensor:
    """The Bessel function of the second kind, order 0."""
    return _values(input, lambda a: _scipy_special(a).y0(a), "bessel_y0")


def bessel_y1(input: Tensor) -> Tensor:
    """The Bessel function of the second kind, order 1."""
    return _values(input, lambda a: _scipy_special(a).y1(a), "bessel_y1")


def modified_bessel_i0(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind, order 0."""
    return _values(input, lambda a: _scipy_special(a).i0(a), "modified_bessel_i0")


def modified_bessel_i1(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind, order 1."""
    return _values(input, lambda a: _scipy_special(a).i1(a), "modified_bessel_i1")


def modified_bessel_k0(input: Tensor) -> Tensor:
    """The modified Bessel function of the second kind, order 0."""
    return _values(input, lambda a: _scipy_special(a).k0(a), "modified_bessel_k0")


def modified_bessel_k1(input: Tensor) -> Tensor:
    """The modified Bessel function of the second kind, order 1."""
    return _values(input, lambda a: _scipy_special(a).k1(a), "modified_bessel_k1")


def scaled_modified_bessel_k0(input: Tensor) -> Tensor:
    """``exp(x) K0(x)``."""
    return _values(input, lambda a: _scipy_special(a).k0e(a), "scaled_modified_bessel_k0")


def scaled_modified_bessel_k1(input: Tensor) -> Tensor:
    """``exp(x) K1(x)``."""
    return _values(input, lambda a: _scipy_special(a).k1e(a), "scaled_modified_bessel_k1")


def spherical_bessel_j0(input: Tensor) -> Tensor:
    """The spherical Bessel function of the first kind, order 0: ``sin(x) / x`` (1 at 0)."""
    return _values(input, lambda a: _scipy_special(a).spherical_jn(0, a), "spherical_bessel_j0")


def airy_ai(input: Tensor) -> Tensor:
    """The Airy function ``Ai(x)``."""
    return _values(input, lambda a: _scipy_special(a).airy(a)[0], "airy_ai")


# -- orthogonal polynomials: p_n(x) by their three-term recurrences, for every (x, n) pair at once ----------
def _polynomial(input, n, name: str, first, second, step) -> Tensor:
    """``p_n(x)`` from ``p_0 = first(x)``, ``p_1 = second(x)``, ``p_{k+1} = step(k, x, p_k, p_{k-1})``;
    0 for negative ``n`` (as PyTorch)."""
    x = _floating(input, name) if isinstance(input, Tensor) else _creation.tensor(float(input))
    degrees = n._data if isinstance(n, Tensor) else np.asarray(n)
    values, degrees = np.broadcast_arrays(x._device.backend.to_host(x._data), np.asarray(degrees))
    degrees = degrees.astype(np.int64)
    with np.errstate(all="ignore"):
        previous, current = first(values), second(values)
        result = np.where(degrees == 0, previous, np.where(degrees >= 1, current, 0.0))
        for k in range(1, int(degrees.max(initial=0))):  # a loop over degrees, never over elements
            previous, current = current, step(k, values, current, previous)
            result = np.where(degrees == k + 1, current, result)
    result = np.where(degrees < 0, 0.0, result).astype(x._data.dtype)
    return Tensor._make(x._device.backend.to_device(result, x._device.index or 0) if x.device.type != "cpu"
                        else result, x._device)


def chebyshev_polynomial_t(input, n) -> Tensor:
    """Chebyshev polynomials of the first kind: ``T_0 = 1, T_1 = x, T_{k+1} = 2x T_k - T_{k-1}``."""
    return _polynomial(input, n, "chebyshev_polynomial_t", np.ones_like, lambda x: x,
                       lambda k, x, p, q: 2 * x * p - q)


def chebyshev_polynomial_u(input, n) -> Tensor:
    """Chebyshev polynomials of the second kind: ``U_0 = 1, U_1 = 2x``, the same recurrence."""
    return _polynomial(input, n, "chebyshev_polynomial_u", np.ones_like, lambda x: 2 * x,
                       lambda k, x, p, q: 2 * x * p - q)


def chebyshev_polynomial_v(input, n) -> Tensor:
    """Chebyshev polynomials of the third kind: ``V_0 = 1, V_1 = 2x - 1``, the same recurrence."""
    return _polynomial(input, n, "chebyshev_polynomial_v", np.ones_like, lambda x: 2 * x - 1,
                       lambda k, x, p, q: 2 * x * p - q)


def chebyshev_polynomial_w(input, n) -> Tensor:
    """Chebyshev polynomials of the fourth kind: ``W_0 = 1, W_1 = 2x + 1``, the same recurrence."""
    return _polynomial(input, n, "chebyshev_polynomial_w", np.ones_like, lambda x: 2 * x + 1,
                       lambda k, x, p, q: 2 * x * p - q)


def shifted_chebyshev_polynomial_t(input, n) -> Tensor:
    """``T_n(2x - 1)``: the Chebyshev polynomials of the first kind moved onto ``[0, 1]``."""
    return chebyshev_polynomial_t(2 * _floating(input, "shifted_chebyshev_polynomial_t") - 1, n)


def shifted_chebyshev_polynomial_u(input, n) -> Tensor:
    """``U_n(2x - 1)``."""
    return chebyshev_polynomial_u(2 * _floating(input, "shifted_chebyshev_polynomial_u") - 1, n)


def shifted_chebyshev_polynomial_v(input, n) -> Tensor:
    """``V_n(2x - 1)``."""
    return chebyshev_polynomial_v(2 * _floating(input, "shifted_chebyshev_polynomial_v") - 1, n)


def shifted_chebyshev_polynomial_w(input, n) -> Tensor:
    """``W_n(2x - 1)``."""
    return chebyshev_polynomial_w(2 * _floating(input, "shifted_chebyshev_polynomial_w") - 1, n)


def hermite_polynomial_h(input, n) -> Tensor:
    """Physicists' Hermite polynomials: ``H_0 = 1, H_1 = 2x, H_{k+1} = 2x H_k - 2k H_{k-1}``."""
    return _polynomial(input, n, "hermite_polynomial_h", np.ones_like, lambda x: 2 * x,
                       lambda k, x, p, q: 2 * x * p - 2 * k * q)


def hermite_polynomial_he(input, n) -> Tensor:
    """Probabilists' Hermite polynomials: ``He_0 = 1, He_1 = x, He_{k+1} = x He_k - k He_{k-1}``."""
    return _polynomial(input, n, "hermite_polynomial_he", np.ones_like, lambda x: x,
                       lambda k, x, p, q: x * p - k * q)


def laguerre_polynomial_l(input, n) -> Tensor:
    """Laguerre polynomials: ``L_0 = 1, L_1 = 1 - x, (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}``."""
    return _polynomial(input, n, "laguerre_polynomial_l", np.ones_like, lambda x: 1 - x,
                       lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1))


def legendre_polynomial_p(input, n) -> Tensor:
    """Legendre polynomials: ``P_0 = 1, P_1 = x, (k+1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}``."""
    return _polynomial(input, n, "legendre_polynomial_p", np.ones_like, lambda x: x,
                       lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1))
