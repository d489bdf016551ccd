"""``OneHotCategorical``: a ``Categorical`` whose draw is a one-hot vector instead of an index.

``OneHotCategoricalStraightThrough`` adds ``rsample``: the one-hot draw in the forward pass, the
probabilities' gradient in the backward pass (``sample + (probs - probs.detach())``).
"""

from __future__ import annotations

from .. import _creation
from .._tensor import Size, Tensor
from ..nn import functional as F
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """A class drawn as a one-hot vector of length ``probs.size(-1)``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = self._categorical.expand(Size(batch_shape))
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(dim=-1), num_classes=probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=()) -> Tensor:
        indices = self._categorical.sample(Size(sample_shape))
        return F.one_hot(indices, self._categorical._num_events).to(self._categorical.probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = _creation.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        return values.expand((n,) + tuple(self.batch_shape) + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A one-hot draw that passes the probabilities' gradient straight through (``rsample``)."""

    has_rsample = True

    def rsample(self, sample_shape=()) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
