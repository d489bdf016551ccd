"""Losses that PyTorch computes as one kernel, so its graph shows one node (``HuberLossBackward0``).

``print(loss)`` after ``F.huber_loss(x, y)`` shows ``grad_fn=<HuberLossBackward0>`` in PyTorch: the
elementwise loss and its reduction are one op. Each class here is such a loss as an
``autograd.Function``: ``forward`` computes the elementwise loss in Tensor operations and reduces it,
``backward`` multiplies the incoming gradient by the elementwise derivative (divided by the number of
elements for the mean), also in Tensor operations, so the gradient can be differentiated again. When
``x`` and ``t`` broadcast, the engine sums each gradient back to its input's shape.
"""

from __future__ import annotations

from .. import _dtype
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Function
from ._reduced_precision import cascade_sum
from .pointwise import where

_REDUCED = frozenset((_dtype.bfloat16.numpy_dtype, _dtype.float16.numpy_dtype))


def _reduce(loss, reduction: str):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


class _ElementwiseLoss(Function):
    """``loss = reduce(f(x, t))``;  ``dx = grad * df/dx``, ``dt = grad * df/dt`` (``/ n`` for the mean)."""

    @classmethod
    def forward(cls, ctx, x, target, reduction, *settings):
        if not isinstance(target, Tensor):  # a target PyTorch gives no gradient comes as an array
            target = Tensor._make(target, x._device)
        ctx.save_for_backward(x, target)
        ctx.reduction, ctx.settings = reduction, settings
        loss = cls.function(x, target, *settings)
        ctx.count = loss.numel()
        return _reduce(loss, reduction)

    @classmethod
    def backward(cls, ctx, grad):
        x, target = ctx.saved_tensors
        if ctx.reduction == "mean":
            grad = grad / ctx.count
        slope_x, slope_target = cls.derivatives(x, target, *ctx.settings)
        grad_x = grad * slope_x if ctx.needs_input_grad[0] else None
        grad_target = grad * slope_target if ctx.needs_input_grad[1] and slope_target is not None else None
        return (grad_x, grad_target, None) + (None,) * len(ctx.settings)


class HuberLoss(_ElementwiseLoss):
    """``loss = d^2 / 2`` where ``|d| < delta``, else ``delta (|d| - delta / 2)``, with ``d = x - t``;
    ``dx = grad * clamp(d, -delta, delta)``,  ``dt = -dx``."""

    node_name = "HuberLossBackward0"

    @staticmethod
    def function(x, target, delta):
        distance = (x - target).abs()
        return where(distance < delta, 0.5 * distance * distance, delta * (distance - 0.5 * delta))

    @staticmethod
    def derivatives(x, target, delta):
        slope = (x - target).clamp(-delta, delta)
        return slope, -slope


class SmoothL1Loss(_ElementwiseLoss):
    """``loss = d^2 / (2 beta)`` where ``|d| < beta``, else ``|d| - beta / 2``, with ``d = x - t``;
    ``dx = grad * d / beta`` where ``|d| < beta``, else ``grad * sign(d)``,  ``dt = -dx``."""

    node_name = "SmoothL1LossBackward0"

    @staticmethod
    def function(x, target, beta):
        distance = (x - target).abs()
        return where(distance < beta, 0.5 * distance * distance / beta, distance - 0.5 * beta)

    @staticmethod
    def derivatives(x, target, beta):
        difference = x - target
        slope = where(difference.abs() < beta, difference / beta, difference.sign())
        return slope, -slope


class SoftMarginLoss(_ElementwiseLoss):
    """``loss = log(1 + exp(-t x))``;  ``dx = -grad * t sigmoid(-t x)``; the labels ``t`` get no gradient."""

    node_name = "SoftMarginLossBackward0"

    @staticmethod
    def function(x, target):
        return (-x * target).exp().log1p()

    @staticmethod
    def derivatives(x, target):
        return -target * (-x * target).sigmoid(), None  # PyTorch gives the target no gradient


class NllLoss(Function):
    """``loss_i = -w[y_i] * x[i, y_i]`` (0 where ``y_i`` is ignored), then its sum, its weighted mean
    (divided by the sum of those ``w[y_i]``) or nothing;  ``dx[i, y_i] = -grad * w[y_i]`` (``/ sum w`` for
    the mean), 0 elsewhere. ``x`` holds log-probabilities; the class dimension is 1 (0 for one sample).

    The class weights and labels are arrays (PyTorch gives them no gradient); the gradient is
    ``grad`` times a constant array holding ``-w[y_i] / norm`` at each sample's class.
    """

    node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, class_dim, labels, ignored, class_weights, reduction):
        data, xp = log_probs._data, log_probs._xp
        index = xp.expand_dims(labels, class_dim)
        picked = xp.take_along_axis(data, index, axis=class_dim).squeeze(class_dim)
        weights = xp.ones(labels.shape, dtype=data.dtype) if class_weights is None \
            else class_weights[labels].astype(data.dtype)
        if ignored is not None:
            weights = weights * (~ignored)
        if data.dtype in _REDUCED and reduction != "none" and data.ndim <= 2:
            loss, coefficients = _nll_reduced_in_16_bits(xp, picked, weights, class_weights, reduction)
        elif reduction == "mean":
            total = weights.sum()
            # A mean over nothing (every target ignored) is NaN, yet every gradient is 0.
            coefficients = weights / total if total else weights * 0
            loss = xp.asarray(-(weights * picked).sum() / total if total else xp.nan, dtype=data.dtype)
        else:
            coefficients = weights
            loss = -(weights * picked)
            loss = xp.asarray(loss.sum()) if reduction == "sum" else loss
        placed = xp.zeros(data.shape, dtype=data.dtype)
        xp.put_along_axis(placed, index, -xp.expand_dims(coefficients, class_dim), axis=class_dim)
        ctx.placed, ctx.class_dim, ctx.reduction = placed, class_dim, reduction
        return Tensor._make(loss, log_probs._device)

    @staticmethod
    def backward(ctx, grad):
        if ctx.reduction == "none":
            grad = grad.unsqueeze(ctx.class_dim)
        return grad * Tensor._make(ctx.placed, grad._device), None, None, None, None, None


def _nll_reduced_in_16_bits(xp, picked, weights, class_weights, reduction):
    """PyTorch's bfloat16/float16 kernel: the terms ``-w[y_i] x[i, y_i]`` (and the weights) added up in a cascade of
    16-bit partial sums (``cascade_sum``), the mean divided in the 16-bit dtype; without class weights the total
    weight is the number of samples not ignored. Returns the loss and the gradient's coefficients."""
    dtype = picked.dtype
    total = cascade_sum(xp, -(weights * picked))
    if class_weights is None:
        count = weights.sum(dtype=_dtype.float32.numpy_dtype)  # ones (zeros where ignored): an exact count
        total_weight = xp.asarray(count).astype(dtype)
    else:
        total_weight = cascade_sum(xp, weights)
    if reduction == "sum":
        return total, weights
    if not total_weight:  # every target ignored: NaN, yet every gradient 0
        return xp.asarray(xp.nan, dtype=_dtype.float32.numpy_dtype).astype(dtype), weights * 0
    coefficients = weights / total_weight if total_weight else weights * 0
    return (total / total_weight).astype(dtype), coefficients


class NllLoss2d(NllLoss):
    """``NllLoss`` for ``(N, C, H, W)`` log-probabilities and ``(N, H, W)`` labels: PyTorch's image form."""

    node_name = "NllLoss2DBackward0"
