"""``Exponential(rate)``: waiting times, density ``rate * exp(-rate x)`` for ``x >= 0``."""

from __future__ import annotations

import numbers

from .. import _creation
from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(Distribution):
    """The exponential distribution; ``rsample`` is ``E / rate`` with ``E`` a standard exponential draw."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(Size() if isinstance(rate, numbers.Number) else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Exponential, _instance)
        new.rate = self.rate.expand(Size(batch_shape))
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return _creation.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return _creation.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_() / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        """``log(rate) - rate x``."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()
