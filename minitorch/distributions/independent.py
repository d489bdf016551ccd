"""``Independent(base, n)``: treat the last ``n`` batch dimensions of ``base`` as one event.

``Normal(loc, scale)`` with ``loc`` of shape ``(B, D)`` is ``B * D`` one-dimensional Gaussians;
``Independent(Normal(loc, scale), 1)`` is ``B`` diagonal Gaussians over ``D`` dimensions: its
``log_prob`` sums the ``D`` log-densities of a vector (as a VAE's likelihood does).
"""

from __future__ import annotations

from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution

__all__ = ["Independent"]


def _sum_rightmost(value: Tensor, dims: int) -> Tensor:
    if dims == 0:
        return value
    return value.reshape(tuple(value.shape[:-dims]) + (-1,)).sum(-1)


class Independent(Distribution):
    """``base_distribution`` with ``reinterpreted_batch_ndims`` of its batch dimensions moved into the event."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims: int, validate_args=None) -> None:
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual "
                f"{reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}"
            )
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[: len(shape) - event_dim], shape[len(shape) - event_dim:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        kept = tuple(self.event_shape[: self.reinterpreted_batch_ndims])  # the base's dims that are our events
        new.base_dist = self.base_dist.expand(tuple(batch_shape) + kept)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:
        return False if self.reinterpreted_batch_ndims > 0 else self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def sample(self, sample_shape=()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
