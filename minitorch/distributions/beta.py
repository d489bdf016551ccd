"""``Beta(concentration1, concentration0)``: a probability ``x`` in [0, 1], density
``x^(a-1) (1-x)^(b-1) / B(a, b)`` with ``a = concentration1``, ``b = concentration0``.

It is the two-class Dirichlet: ``Beta(a, b)`` draws ``x`` where ``Dirichlet([a, b])`` draws ``(x, 1 - x)``,
and its log-density and entropy are the Dirichlet's (as PyTorch computes them).
"""

from __future__ import annotations

import numbers

from .. import _creation
from .._tensor import Size, Tensor
from ..ops import shape as shape_ops
from . import constraints
from .dirichlet import Dirichlet
from .distribution import Distribution
from .gamma import _as_tensor
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(Distribution):
    """The beta distribution; ``concentration1`` (a) weighs 1, ``concentration0`` (b) weighs 0."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None) -> None:
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0, numbers.Number):
            concentrations = _creation.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            concentrations = shape_ops.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(concentrations, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        new._dirichlet = self._dirichlet.expand(Size(batch_shape))
        Distribution.__init__(new, Size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self) -> Tensor:
        result = self._dirichlet.concentration[..., 0]
        return result if isinstance(result, Tensor) else _creation.tensor([result])

    @property
    def concentration0(self) -> Tensor:
        result = self._dirichlet.concentration[..., 1]
        return result if isinstance(result, Tensor) else _creation.tensor([result])

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        """``a b / ((a + b)^2 (a + b + 1))``."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value) -> Tensor:
        value = _as_tensor(value, self.concentration1)
        if self._validate_args:
            self._validate_sample(value)
        both = shape_ops.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(both)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()
