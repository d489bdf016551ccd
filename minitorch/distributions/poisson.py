"""``Poisson(rate)``: counts ``k = 0, 1, 2, ...`` with probability ``rate^k e^(-rate) / k!``."""

from __future__ import annotations

import numbers

from .. import _creation
from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .gamma import _as_tensor
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(Distribution):
    """The Poisson distribution; counts are not differentiable, so it has ``sample`` but no ``rsample``.

    Draws come from ``minitorch.poisson`` (reproducible after ``manual_seed``, though not PyTorch's numbers).
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(Size() if isinstance(rate, numbers.Number) else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        new.rate = self.rate.expand(Size(batch_shape))
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape=()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _creation.poisson(self.rate.expand(shape))

    def log_prob(self, value) -> Tensor:
        """``k log(rate) - rate - lgamma(k + 1)`` (``0 log 0 = 0``: a rate of 0 gives count 0 probability 1)."""
        value = _as_tensor(value, self.rate)
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()
