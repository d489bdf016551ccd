"""``Normal(loc, scale)``: the Gaussian, ``p(x) = exp(-(x - loc)^2 / (2 scale^2)) / (scale sqrt(2 pi))``.

``rsample`` is ``loc + scale * eps`` with ``eps ~ N(0, 1)``: the draw is a differentiable function of
the parameters (the *reparameterisation trick* a VAE trains through).
"""

from __future__ import annotations

import math
import numbers

from .. import _creation, ops
from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Normal"]


class Normal(Distribution):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        numbers_only = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(Size() if numbers_only else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = Size(batch_shape)
        new.loc, new.scale = self.loc.expand(batch_shape), self.scale.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def sample(self, sample_shape=()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _creation.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _creation.empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        """``-(x - loc)^2 / (2 scale^2) - log(scale) - log(sqrt(2 pi))``."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = math.log(self.scale) if isinstance(self.scale, numbers.Number) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ops.pointwise.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value: Tensor) -> Tensor:
        return self.loc + self.scale * ops.pointwise.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        """``1/2 + log(2 pi)/2 + log(scale)``."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
