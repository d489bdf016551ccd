"""Helpers the distributions share: broadcasting parameters, probabilities <-> logits, lazy attributes."""

from __future__ import annotations

import functools
import numbers

from .. import _dtype, _type_info
from .._creation import tensor
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from ..ops.shape import broadcast_tensors

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property"]


def broadcast_all(*values) -> tuple[Tensor, ...]:
    """The parameters as tensors of one shape: numbers take the first tensor's dtype and device."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    options = {"dtype": _dtype.get_default_dtype()}
    for value in values:
        if isinstance(value, Tensor):
            options = {"dtype": value.dtype, "device": value.device}
            break
    return broadcast_tensors(*[v if isinstance(v, Tensor) else tensor(v, **options) for v in values])


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """``sigmoid(logits)`` for one event (log-odds), else ``softmax`` over the last dimension."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept inside ``[eps, 1 - eps]`` (``eps`` of their dtype), so their logarithms stay finite."""
    eps = _type_info.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """``log(p) - log(1 - p)`` for one event, else ``log(p)``, from clamped probabilities."""
    clamped = clamp_probs(probs)
    return clamped.log() - (-clamped).log1p() if is_binary else clamped.log()


class lazy_property:
    """An attribute computed on first use and then stored (``Categorical.probs`` from its ``logits``)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():  # computed with a graph, so gradients flow to the parameter it came from
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
