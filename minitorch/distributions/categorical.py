"""``Categorical(probs=p)`` or ``Categorical(logits=l)``: one of ``K`` classes, class ``k`` with ``p[k]``.

The probabilities are normalised over the last dimension (``probs / probs.sum(-1)``, or
``logits - logsumexp(logits)``); the other dimensions are the batch. A sample is a class index;
``log_prob(k) = log p[k]``; ``entropy() = -sum p log p``. This is how a policy network samples an
action and how a language model samples its next token.
"""

from __future__ import annotations

import math

from .. import _creation, _type_info
from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from ..ops.shape import broadcast_tensors
from . import constraints
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A draw of one class index out of ``probs.size(-1)``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = tuple(batch_shape) + (self._num_events,)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(param_shape))
                new._param = getattr(new, name)
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return _creation.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        return _creation.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    def sample(self, sample_shape=()) -> Tensor:
        """``multinomial`` of every batch row at once, with replacement, reshaped to ``sample_shape + batch_shape``."""
        sample_shape = Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        with no_grad():
            samples_2d = _creation.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        """``-sum p log p``, with log p clamped at the dtype's lowest finite value (a 0 probability adds 0)."""
        logits = self.logits.clamp(min=_type_info.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = _creation.arange(self._num_events, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
