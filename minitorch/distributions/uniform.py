"""``Uniform(low, high)``: every value of ``[low, high)`` equally likely, density ``1 / (high - low)``."""

from __future__ import annotations

import math
import numbers

from .. import _creation
from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``; ``rsample`` is ``low + u (high - low)``, ``u ~ U[0, 1)``."""

    has_rsample = True

    @property
    def arg_constraints(self) -> dict:
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None) -> None:
        self.low, self.high = broadcast_all(low, high)
        numbers_only = isinstance(low, numbers.Number) and isinstance(high, numbers.Number)
        super().__init__(Size() if numbers_only else self.low.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Uniform, _instance)
        new.low, new.high = self.low.expand(Size(batch_shape)), self.high.expand(Size(batch_shape))
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return math.nan * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()) -> Tensor:
        rand = _creation.rand(self._extended_shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        """``-log(high - low)`` inside, ``-inf`` outside."""
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).type_as(self.low).mul(self.high.gt(value).type_as(self.low))
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()
