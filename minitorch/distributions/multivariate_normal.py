"""``MultivariateNormal(loc, covariance_matrix=S | precision_matrix=P | scale_tril=L)``: a Gaussian over vectors.

Everything is computed from the Cholesky factor ``L`` (``S = L L^T``, lower triangular):

* ``rsample``: ``loc + L eps`` with ``eps ~ N(0, I)``;
* ``log_prob(x) = -(D log(2 pi) + |L^-1 (x - loc)|^2) / 2 - sum(log diag L)``;
* ``entropy() = D (1 + log(2 pi)) / 2 + sum(log diag L)``.
"""

from __future__ import annotations

import math

from .. import _creation, linalg
from .._shapes import broadcast_shapes
from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


class MultivariateNormal(Distribution):
    """A Gaussian with mean vector ``loc`` and one of: covariance, precision, or its lower Cholesky factor."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        (matrix,) = given
        name = "scale_tril" if scale_tril is not None else (
            "covariance_matrix" if covariance_matrix is not None else "precision_matrix")
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = tuple(broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:  # the covariance is the precision's inverse
            self._unbroadcasted_scale_tril = linalg.cholesky(linalg.inv(precision_matrix))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        matrix_shape = tuple(batch_shape) + tuple(self.event_shape) * 2
        new.loc = self.loc.expand(tuple(batch_shape) + tuple(self.event_shape))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(matrix_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        factor = self._unbroadcasted_scale_tril
        return (factor @ factor.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        factor = self._unbroadcasted_scale_tril
        return linalg.inv(factor @ factor.mT).expand(self._matrix_shape())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _creation.empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        # L^-1 (x - loc) from the lower triangle only (what a triangular solve reads)
        whitened = (linalg.inv(self._unbroadcasted_scale_tril.tril()) @ (value - self.loc).unsqueeze(-1)).squeeze(-1)
        mahalanobis = whitened.pow(2).sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self) -> Tensor:
        dims = self._event_shape[0]
        entropy = 0.5 * dims * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return entropy if len(self._batch_shape) == 0 else entropy.expand(self._batch_shape)
