"""``Dirichlet(concentration)``: probability vectors, density ``prod x_i^(c_i - 1) / B(c)`` on the simplex.

A draw is ``g / sum(g)`` with ``g_i`` independent ``Gamma(c_i, 1)`` draws, so it is differentiable
in ``c`` through the gamma draws' implicit gradients (``gamma.py``).
"""

from __future__ import annotations

from .._tensor import Tensor
from . import constraints
from .distribution import Distribution
from .gamma import _as_tensor, standard_gamma

__all__ = ["Dirichlet"]


class Dirichlet(Distribution):
    """The Dirichlet distribution over the last dimension of ``concentration`` (its event)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args=None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()) -> Tensor:
        """``g / sum(g)``, ``g_i ~ Gamma(c_i, 1)``."""
        draws = standard_gamma(self.concentration.expand(self._extended_shape(sample_shape)))
        return draws / draws.sum(-1, keepdim=True)

    def log_prob(self, value) -> Tensor:
        """``sum (c_i - 1) log x_i + lgamma(sum c) - sum lgamma(c_i)``."""
        value = _as_tensor(value, self.concentration)
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (c - 1).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        shifted = (self.concentration - 1).clamp(min=0.0)
        return shifted / shifted.sum(-1, keepdim=True)

    @property
    def variance(self) -> Tensor:
        """``c_i (t - c_i) / (t^2 (t + 1))`` with ``t = sum c``."""
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self) -> Tensor:
        """``log B(c) + (t - k) digamma(t) - sum (c_i - 1) digamma(c_i)``, with ``t = sum c`` and
        ``log B(c) = sum lgamma(c_i) - lgamma(t)``."""
        c = self.concentration
        k = c.shape[-1]
        total = c.sum(-1)
        return c.lgamma().sum(-1) - total.lgamma() - (k - total) * total.digamma() - ((c - 1.0) * c.digamma()).sum(-1)
