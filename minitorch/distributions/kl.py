"""``kl_divergence(p, q)``: ``KL(p || q) = E_p[log p(x) - log q(x)]``, in closed form for each pair of families.

The closed forms register themselves with ``@register_kl(P, Q)``; ``kl_divergence`` picks the one
for the most specific pair of classes (as PyTorch does), and refuses a pair it has none for.
Where ``q`` gives zero probability to something ``p`` can draw, the divergence is infinite.
"""

from __future__ import annotations

import math

from .. import linalg, ops
from .._tensor import Tensor
from ..nn import functional as F
from .bernoulli import Bernoulli
from .categorical import Categorical
from .exponential import Exponential
from .independent import Independent, _sum_rightmost
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict = {}


def register_kl(type_p, type_q):
    """Decorate ``kl(p, q)`` as the closed form of ``KL(p || q)`` for instances of ``type_p`` and ``type_q``."""

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn

    return decorator


def _lookup(type_p, type_q):
    """The registered form for the closest pair of base classes (each class's distance along its MRO)."""
    matches = [(type_p.__mro__.index(p) + type_q.__mro__.index(q), fn)
               for (p, q), fn in _KL_REGISTRY.items() if issubclass(type_p, p) and issubclass(type_q, q)]
    return min(matches, key=lambda match: match[0])[1] if matches else None


def kl_divergence(p, q) -> Tensor:
    """``KL(p || q)``, batched over the distributions' batch shape."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fn(p, q)


def _infinite_where(mask, value: Tensor) -> Tensor:
    return ops.pointwise.where(mask, math.inf, value)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    """``(var_ratio + ((mu_p - mu_q) / sigma_q)^2 - 1 - log var_ratio) / 2``, ``var_ratio = (sigma_p / sigma_q)^2``."""
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = ops.pointwise.where(p.probs == 0, 0.0, _infinite_where(q.probs == 0, t1))
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = ops.pointwise.where(p.probs == 1, 0.0, _infinite_where(q.probs == 1, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    """``sum_k p_k (log p_k - log q_k)``: 0 where ``p_k = 0``, infinite where ``q_k = 0 < p_k``."""
    t = p.probs * (p.logits - q.logits)
    t = _infinite_where((q.probs == 0).expand_as(t), t)
    t = ops.pointwise.where((p.probs == 0).expand_as(t), 0.0, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    """``log((high_q - low_q) / (high_p - low_p))`` when ``q`` covers ``p``, else infinite."""
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _infinite_where((q.low > p.low).logical_or(q.high < p.high), result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_abs_diff / q.scale + scale_ratio * (-loc_abs_diff / p.scale).exp() - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    """``(tr(S_q^-1 S_p) + |L_q^-1 (mu_q - mu_p)|^2 - D) / 2 + log|L_q| - log|L_p|``."""
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    half_term1 = q._half_log_det() - p._half_log_det()
    inverse_q = linalg.inv(q._unbroadcasted_scale_tril.tril())  # the lower triangles only, as triangular solves read
    term2 = (inverse_q @ p._unbroadcasted_scale_tril.tril()).pow(2).sum((-2, -1))
    term3 = (inverse_q @ (q.loc - p.loc).unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)
    return half_term1 + 0.5 * (term2 + term3 - p.event_shape[0])


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
