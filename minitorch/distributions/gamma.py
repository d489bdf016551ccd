"""``Gamma(concentration, rate)``: positive values, density ``b^a x^(a-1) e^(-b x) / Gamma(a)``.

Its draws are differentiable (``rsample``) by *implicit reparameterisation*: a draw ``x`` of the
standard gamma with shape ``a`` is the point where its CDF ``F(x; a)`` equals a uniform number ``u``.
Keeping ``u`` fixed while ``a`` moves gives ``dF = 0``, so

    dx/da = -(dF/da) / (dF/dx) = -(dF/da) / density(x; a).

``dF/da`` has no closed form; it is taken here by a central difference of the regularised incomplete
gamma function (``special.gammainc``) in float64, accurate to about 1e-8 relative. PyTorch uses a
series and asymptotic approximations instead, so gradients agree to that accuracy, not to the bit.
The draws come from the default generator's stream through NumPy's gamma sampler (reproducible after
``manual_seed``, but not PyTorch's numbers: its sampler consumes the stream differently).
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import _creation, special
from .._random import numpy_generator
from .._tensor import Size, Tensor
from ..autograd.function import Function
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Gamma", "standard_gamma"]


class _StandardGamma(Function):
    """``x ~ Gamma(a, 1)`` for each element of ``a``;  ``da = grad * dx/da`` (implicit, see the module docstring)."""

    node_name = "StandardGammaBackward0"

    @staticmethod
    def forward(ctx, concentration, generator):
        host = concentration._device.backend.to_host(concentration._data)
        draws = numpy_generator(generator).standard_gamma(host.astype(np.float64))
        # The smallest positive number of the dtype, as PyTorch's sampler clamps: a draw of exactly 0 has no log.
        draws = np.maximum(draws, np.finfo(host.dtype).tiny).astype(host.dtype)
        sample = _creation.tensor(draws, device=concentration.device)
        ctx.save_for_backward(concentration, sample)
        return sample

    @staticmethod
    def backward(ctx, grad):
        concentration, sample = ctx.saved_tensors
        a = concentration.detach().double()
        x = sample.detach().double()
        step = 1e-5 * a.clamp(min=1.0)
        slope_in_a = (special.gammainc(a + step, x) - special.gammainc(a - step, x)) / (2 * step)
        log_density = (a - 1) * x.log() - x - a.lgamma()
        return grad * (-slope_in_a / log_density.exp()).to(grad.dtype), None


def standard_gamma(concentration: Tensor, generator=None) -> Tensor:
    """A draw of ``Gamma(concentration, 1)`` per element, differentiable in ``concentration``."""
    return _StandardGamma.apply(concentration, generator)


class Gamma(Distribution):
    """The gamma distribution with shape ``concentration`` (a) and inverse scale ``rate`` (b)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        numbers_only = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(Size() if numbers_only else self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        new.concentration = self.concentration.expand(Size(batch_shape))
        new.rate = self.rate.expand(Size(batch_shape))
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()) -> Tensor:
        """``x / rate`` with ``x`` a standard gamma draw of shape ``concentration``."""
        shape = self._extended_shape(sample_shape)
        draws = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return draws.clamp(min=float(np.finfo(draws.dtype.numpy_dtype).tiny))

    def log_prob(self, value) -> Tensor:
        """``a log b + (a - 1) log x - b x - lgamma(a)``."""
        value = _as_tensor(value, self.rate)
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration.xlogy(self.rate) + (self.concentration - 1).xlogy(value)
                - self.rate * value - self.concentration.lgamma())

    def entropy(self) -> Tensor:
        """``a - log b + lgamma(a) + (1 - a) digamma(a)``."""
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()

    def cdf(self, value) -> Tensor:
        value = _as_tensor(value, self.rate)
        if self._validate_args:
            self._validate_sample(value)
        return special.gammainc(self.concentration, self.rate * value)


def _as_tensor(value, like: Tensor) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return _creation.tensor(value, dtype=like.dtype, device=like.device)
