"""Loss functions: every ``*_loss`` of ``torch.nn.functional`` and ``cross_entropy``, ``kl_div``...

Each loss computes a per-element loss and then reduces it: ``reduction="none"`` keeps every element,
``"sum"`` adds them and ``"mean"`` averages them (weighted losses divide by the total weight instead).
``size_average`` and ``reduce`` are PyTorch's deprecated spellings.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _arguments
from ..._creation import tensor as _make_tensor, zeros as _zeros
from ..._tensor import Tensor
from ...amp.autocast_mode import autocast_inputs
from ...autograd.grad_mode import is_grad_enabled as _grad_enabled, no_grad as _no_grad
from ...ops import ctc as _ctc_ops, fused_losses, nn_ops, pointwise
from ._utils import _check_expandable, _shape_text, _where
from .activation import log_softmax, logsigmoid
from .distance import pairwise_distance
from .sparse import one_hot

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
    "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss", "ctc_loss",
]


def _legacy_reduction(size_average, reduce) -> str:
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{result}' instead.",
                  stacklevel=3)
    return result


def _reduction_argument(reduction: str, size_average=None, reduce=None) -> str:
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=3)
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _warn_if_sizes_differ(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). This will "
            "likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _weighted_reduce(loss: Tensor, weight: Tensor | None, reduction: str, input: Tensor,
                     mean_by_weight: bool = True) -> Tensor:
    """The reduction of ``loss * weight``; ``mean`` divides by ``sum(weight)`` (MSE, L1) or the count (Huber)."""
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum() if mean_by_weight else weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _check_weighted_reduction(reduction: str, weight) -> str:
    if weight is not None and reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    return reduction if weight is not None else _reduction_argument(reduction)


@_arguments.public
@autocast_inputs("float32")
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mean squared error: ``loss = (x - y)^2``, reduced.

        >>> import minitorch
        >>> minitorch.nn.functional.mse_loss(minitorch.tensor([1.0, 2.0]), minitorch.tensor([0.0, 0.0]))
        tensor(2.5000)
    """
    _warn_if_sizes_differ(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    reduction = _check_weighted_reduction(reduction, weight)
    if weight is None:
        return nn_ops.MseLoss.apply(input, target, reduction)  # one node: grad_fn=<MseLossBackward0>
    difference = input - target
    return _weighted_reduce(difference * difference, weight, reduction, input)


@_arguments.public
@autocast_inputs("float32")
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Mean absolute error: ``loss = |x - y|``, reduced."""
    _warn_if_sizes_differ(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    reduction = _check_weighted_reduction(reduction, weight)
    return _weighted_reduce((input - target).abs(), weight, reduction, input)


@_arguments.public
@autocast_inputs("float32")
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """``loss = 0.5 (x - y)^2 / beta`` where ``|x - y| < beta``, else ``|x - y| - 0.5 beta`` (``beta=0``: L1)."""
    _warn_if_sizes_differ(input, target)
    reduction = _reduction_argument(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:  # PyTorch's l1_loss
        return _reduce((input - target).abs(), reduction)
    return fused_losses.SmoothL1Loss.apply(input, target, reduction, beta)  # one node: SmoothL1LossBackward0


@_arguments.public
@autocast_inputs("float32")
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``loss = 0.5 (x - y)^2`` where ``|x - y| < delta``, else ``delta (|x - y| - 0.5 delta)``.

    Smooth L1 with ``beta = delta``, times ``delta``: quadratic near 0, linear (robust to
    outliers) beyond ``delta``.
    """
    _warn_if_sizes_differ(input, target)
    reduction = _check_weighted_reduction(reduction, weight)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        return fused_losses.HuberLoss.apply(input, target, reduction, delta)  # one node: HuberLossBackward0
    loss = fused_losses.HuberLoss.function(input, target, delta)
    return _weighted_reduce(loss, weight, reduction, input, mean_by_weight=False)


_CLASS_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.uint8))  # PyTorch's Long and Byte


def _class_targets(input: Tensor, target: Tensor, ignore_index: int):
    """Check class-index targets as PyTorch's ``nll_loss`` does; returns the class dimension,
    the targets as an int64 array (ignored positions replaced by class 0) and the mask of
    ignored positions (None when there are none)."""
    shape, target_shape = input._data.shape, target._data.shape
    if len(shape) < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {len(shape)})")
    if len(shape) != 1:
        target_batch = target_shape[0] if target_shape else 0
        if shape[0] != target_batch:
            raise ValueError(f"Expected input batch_size ({shape[0]}) to match target batch_size ({target_batch}).")
    if len(shape) <= 2:
        if len(target_shape) > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if len(shape) == 1 and len(target_shape) == 1 and target_shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target_shape[0]}")
    else:
        expected = (shape[0],) + shape[2:]
        if target_shape != expected:
            raise RuntimeError(f"Expected target size {_shape_text(expected)}, got {_shape_text(target_shape)}")
    if target._data.dtype not in _CLASS_INDEX_DTYPES:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.type_name}")
    class_dim = 0 if len(shape) == 1 else 1
    classes = shape[class_dim]
    xp = target._xp
    labels = target._data.astype(xp.int64, copy=False)
    if len(shape) == 1 and labels.ndim == 1:
        labels = labels.reshape(())
    if labels.size == 0:
        return class_dim, labels, None
    # The smallest and largest label settle the common case (nothing ignored, all in range)
    # with two reductions, instead of building masks on every call.
    lowest, highest = int(labels.min()), int(labels.max())
    ignored = None
    if lowest <= ignore_index <= highest:
        ignored = labels == ignore_index
        if bool(ignored.any()):
            labels = xp.where(ignored, 0, labels)
            lowest, highest = int(labels.min()), int(labels.max())
        else:
            ignored = None
    if lowest < 0 or highest >= classes:
        out_of_range = (labels < 0) | (labels >= classes)
        raise IndexError(f"Target {int(labels[out_of_range].reshape(-1)[0])} is out of bounds.")
    return class_dim, labels, ignored


def _class_weights(input: Tensor, weight: Tensor | None, classes: int, prefix: str = "") -> None:
    if weight is not None and (weight.dim() != 1 or weight.numel() != classes):
        raise RuntimeError(
            f"{prefix}weight tensor should be defined either for all {classes} classes or no classes but got weight "
            f"tensor of shape: {_shape_text(weight.shape)}"
        )


def _nll(log_probs: Tensor, class_dim: int, labels, ignored, weight: Tensor | None, reduction: str) -> Tensor:
    """``loss_i = -w[y_i] * log_probs[i, y_i]`` (0 where ignored); ``mean`` divides by the sum of those ``w[y_i]``.

    One node, as in PyTorch (``NllLossBackward0``); the class weights are constants (PyTorch gives
    ``weight`` no gradient).
    """
    class_weights = None if weight is None else weight._data
    if log_probs.dim() <= 2:
        return fused_losses.NllLoss.apply(log_probs, class_dim, labels, ignored, class_weights, reduction)
    if log_probs.dim() == 4:  # images: (N, C, H, W)
        return fused_losses.NllLoss2d.apply(log_probs, class_dim, labels, ignored, class_weights, reduction)
    # Other sizes go through the image form as PyTorch's does: (N, C, d1, ...) viewed as (N, C, 1, d1 * ...).
    batch, classes = log_probs.shape[:2]
    as_image = log_probs.contiguous().view(batch, classes, 1, -1)
    labels = labels.reshape(batch, 1, -1)
    ignored = None if ignored is None else ignored.reshape(batch, 1, -1)
    loss = fused_losses.NllLoss2d.apply(as_image, class_dim, labels, ignored, class_weights, reduction)
    return loss.view((batch,) + tuple(log_probs.shape[2:])) if reduction == "none" else loss


def _nan_without_gradient(loss: Tensor) -> Tensor:
    """A mean over nothing (every target ignored) is NaN, but PyTorch still gives zero gradients: add NaN
    to a sum whose terms all have zero weight, rather than dividing by a zero total weight."""
    return loss + float("nan")


@_arguments.public
@autocast_inputs("float32")
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class ``target`` under log-probabilities ``input``: ``loss_i = -w[y_i] x[i, y_i]``.

    ``input`` is ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)`` (then ``target`` is ``(N, d1, ...)``).
    Targets equal to ``ignore_index`` contribute nothing (not even to the mean's denominator).
    """
    reduction = _reduction_argument(reduction, size_average, reduce)
    class_dim, labels, ignored = _class_targets(input, target, ignore_index)
    _class_weights(input, weight, input.shape[class_dim])
    return _nll(input, class_dim, labels, ignored, weight, reduction)


@_arguments.public
@autocast_inputs("float32")
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)``: the classification loss on raw scores (logits).

    ``target`` holds class indices (``(N,)``, or ``(N, d1, ...)`` for ``(N, C, d1, ...)``
    input), or class probabilities of ``input``'s shape: then
    ``loss_i = -sum_c w_c p_ic log_softmax(x_i)_c`` and ``mean`` divides by the number of
    elements ``N * d1 * ...``. ``label_smoothing = s`` mixes the target with the uniform
    distribution: ``(1 - s) * target + s / C``. Going through ``log_softmax`` (the log-sum-exp
    trick) keeps large logits from overflowing.

        >>> import minitorch
        >>> logits = minitorch.tensor([[2.0, 0.0, 0.0]])
        >>> round(minitorch.nn.functional.cross_entropy(logits, minitorch.tensor([0])).item(), 4)
        0.2395
    """
    reduction = _reduction_argument(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")
    shape = input._data.shape
    if len(shape) < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {len(shape)})")
    class_dim = 0 if len(shape) == 1 else 1
    classes = shape[class_dim]
    if shape == target._data.shape:
        return _cross_entropy_with_probabilities(input, target, weight, class_dim, ignore_index, reduction,
                                                 label_smoothing)
    class_dim, labels, ignored = _class_targets(input, target, ignore_index)
    _class_weights(input, weight, classes)
    if len(shape) == 2 and weight is None and ignored is None and label_smoothing == 0.0 and labels.size:
        return nn_ops.CrossEntropy.apply(input, labels, reduction)  # the common case, fused into one node
    log_probs = log_softmax(input, class_dim)
    loss = _nll(log_probs, class_dim, labels, ignored, weight, reduction)
    if label_smoothing == 0.0:
        return loss
    # The smoothing term: minus the (weighted) sum of every class's log-probability,
    # normalised as the NLL term is (PyTorch's formula).
    if weight is not None:
        weight_view = weight.reshape((classes,) + (1,) * (input.dim() - class_dim - 1))
        smooth = -(log_probs * weight_view).sum(class_dim)
    else:
        smooth = -log_probs.sum(class_dim)
    if ignored is not None:
        smooth = smooth * Tensor._make((~ignored).astype(input._data.dtype), input._device)
    if reduction == "mean":
        if weight is not None:
            kept_weights = weight._data[labels] if ignored is None else weight._data[labels][~ignored]
            denominator = kept_weights.sum()
        else:
            denominator = labels.size if ignored is None else (~ignored).sum()
        smooth = smooth.sum() / float(denominator) if denominator else _nan_without_gradient(smooth.sum())
    else:
        smooth = _reduce(smooth, reduction)
    return (1 - label_smoothing) * loss + smooth * (label_smoothing / classes)


def _cross_entropy_with_probabilities(input: Tensor, target: Tensor, weight: Tensor | None, class_dim: int,
                                      ignore_index: int, reduction: str, label_smoothing: float) -> Tensor:
    if not target.is_floating_point():
        raise RuntimeError(
            f"Expected floating point type for target with class probabilities, got {target.dtype.type_name}"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    classes = input.shape[class_dim]
    _class_weights(input, weight, classes, "cross_entropy: ")
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    products = log_softmax(input, class_dim) * target
    if weight is not None:
        products = products * weight.reshape((classes,) + (1,) * (input.dim() - class_dim - 1))
    if reduction == "none":
        return -products.sum(class_dim)
    if reduction == "sum":
        return -products.sum()
    if input.numel() == 0:
        return -products.sum() * float("nan")
    return pointwise.DivScalar.apply(-products.sum(), input.numel() // classes)  # DivBackward1


@_arguments.public
@autocast_inputs("float32")
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """``loss = -w (y log x + (1 - y) log(1 - x))`` for probabilities ``x`` (logs clamped at -100, as PyTorch).

    Prefer ``binary_cross_entropy_with_logits`` on raw scores: it never takes the log of a
    rounded-off probability.
    """
    reduction = _reduction_argument(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is "
            "deprecated. Please ensure they have the same size."
        )
    if input.numel() and (float(input._data.min()) < 0 or float(input._data.max()) > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is not None:
        _check_expandable(tuple(weight.shape), tuple(target.shape))
    # One node with the reduction inside; the weight is an array, as PyTorch gives it no gradient.
    return nn_ops.BinaryCrossEntropy.apply(input, target, None if weight is None else weight._data, reduction)


@_arguments.public
@autocast_inputs("float32")
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy of ``sigmoid(x)``, computed from the logits ``x`` without ever forming it.

    ``loss = (1 - y) x + (1 + (p - 1) y) softplus(-x)`` (``softplus(-x) = -log sigmoid(x)``,
    evaluated without overflow), times ``weight``; ``pos_weight = p`` weighs the positive
    term ``-y log sigmoid(x)`` (one weight per class, broadcast over the last dimension).
    """
    reduction = _reduction_argument(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    for name, value in (("weight", weight), ("pos_weight", pos_weight)):
        if value is not None and value.requires_grad and _grad_enabled():
            raise RuntimeError(
                f"The function 'binary_cross_entropy_with_logits' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True."
            )
    return nn_ops.BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, reduction)


@_arguments.public
@autocast_inputs("float32")
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence with ``input`` = log-probabilities: ``loss = y (log y - x)`` (0 where ``y = 0``).

    ``log_target=True``: the target is given as ``log y`` too, ``loss = exp(log y) (log y - x)``.
    ``reduction="batchmean"`` divides the sum by the batch size: the true KL divergence per sample.
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
            "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to "
            "behave the same as 'batchmean' in the next major release.",
            stacklevel=2,
        )
    if reduction not in ("batchmean", "none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # y log y is taken as 0 at y = 0; log is only evaluated where y > 0 (see ``_where``).
        positive = target > 0
        loss = target * _where(positive, target, 1.0).log() - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.dim() else total
    return _reduce(loss, reduction)


@_arguments.public
@autocast_inputs("float32")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """``loss = 1 - cos(x1, x2)`` where ``y = 1``, ``max(0, cos(x1, x2) - margin)`` where ``y = -1``.

    ``cos = <x1, x2> / sqrt((|x1|^2 + 1e-12)(|x2|^2 + 1e-12))`` over the last dimension.
    """
    reduction = _reduction_argument(reduction, size_average, reduce)
    target_dim = target.dim()
    if target_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target_dim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(
            f"1D target tensor expects 2D input tensors, but found inputs with sizes {_shape_text(input1.shape)} "
            f"and {_shape_text(input2.shape)}."
        )
    if target_dim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(
            f"0D target tensor expects 1D input tensors, but found inputs with sizes {_shape_text(input1.shape)} "
            f"and {_shape_text(input2.shape)}."
        )
    epsilon = 1e-12
    dot = (input1 * input2).sum(target_dim)
    squared_norms = ((input1 * input1).sum(target_dim) + epsilon) * ((input2 * input2).sum(target_dim) + epsilon)
    cosine = dot / squared_norms.sqrt()
    loss = _where(target == 1, 1 - cosine, 0.0) + _where(target == -1, (cosine - margin).clamp_min(0), 0.0)
    return _reduce(loss, reduction)


@_arguments.public
@autocast_inputs("float32")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """``loss = max(0, -y (x1 - x2) + margin)``: ``y = 1`` asks for ``x1 > x2`` by ``margin``, ``y = -1`` for less."""
    reduction = _reduction_argument(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@_arguments.public
@autocast_inputs("float32")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """``loss = x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1`` (``x`` usually a distance)."""
    reduction = _reduction_argument(reduction, size_average, reduce)
    below_margin = _where(target != 1, (margin - input).clamp_min(0), 0.0)
    return _reduce(below_margin + _where(target != -1, input, 0.0), reduction)


@_arguments.public
@autocast_inputs("float32")
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """``loss = log(1 + exp(-y x))``: the logistic loss for labels ``y`` in ``{-1, 1}``."""
    reduction = _reduction_argument(reduction, size_average, reduce)
    return fused_losses.SoftMarginLoss.apply(input, target._data, reduction)  # labels: no gradient (PyTorch)


@_arguments.public
def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """``loss = -mean_c [y_c log sigmoid(x_c) + (1 - y_c) log sigmoid(-x_c)]`` (times ``weight_c``): one
    binary cross-entropy per class, averaged over the classes of each sample."""
    reduction = _reduction_argument(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


@_arguments.public
@autocast_inputs("float32")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of ``target ~ Poisson(rate)``, without the constant ``log(target!)``:
    ``exp(x) - y x`` when ``input`` is the log-rate (``log_input``), else ``x - y log(x + eps)``.
    ``full=True`` adds Stirling's approximation of ``log(y!)`` where ``y > 1``."""
    reduction = _reduction_argument(reduction, size_average, reduce)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + _where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)


@_arguments.public
def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of ``target ~ N(input, var)``: ``(log max(var, eps) + (x - y)^2 / max(var, eps))
    / 2`` (plus ``log(2 pi) / 2`` with ``full``). ``var`` has ``input``'s shape, or one fewer trailing dimension
    (or a trailing 1) for one variance per sample."""
    if not isinstance(var, Tensor):
        var = _make_tensor(float(var), dtype=input.dtype, device=input.device)
        if var.item() < 0:
            raise ValueError("var has negative entry/entries")
        var = var.expand_as(input)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)  # one variance per sample, shared by its features
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # clamp for stability, as PyTorch: in place on a clone and unrecorded, so the gradient still reaches every
    # entry of var through the clone (as if the clamp were not there)
    var = var.clone()
    with _no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


@_arguments.public
@autocast_inputs("float32")
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss: ``sum_{j != y} max(0, margin - x_y + x_j)^p / C`` per sample (each term
    times ``weight_y``): every wrong class must score ``margin`` below the right one."""
    reduction = _reduction_argument(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    single = input.dim() <= 1
    scores = input.reshape(1, -1) if single else input
    labels = target.reshape(-1)
    classes = scores.shape[1]
    right = scores.gather(1, labels.unsqueeze(1))
    terms = (margin - right + scores).clamp(min=0)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        terms = terms * weight[labels].unsqueeze(1)
    terms = _where(one_hot(labels, classes).bool(), 0.0, terms)  # the right class itself does not count
    loss = terms.sum(dim=1) / classes
    return _reduce(loss.reshape(()) if single and target.dim() == 0 else loss, reduction)


@_arguments.public
@autocast_inputs("float32")
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """The multi-label hinge loss: ``sum_{j in targets} sum_{k not in targets} max(0, 1 - (x_j - x_k)) / C``.

    ``target`` has ``input``'s shape and lists each sample's classes first, ended by ``-1`` (the
    rest is ignored). Every listed class must score 1 above every unlisted one.
    """
    reduction = _reduction_argument(reduction, size_average, reduce)
    single = input.dim() <= 1
    scores = input.reshape(1, -1) if single else input
    labels = target.reshape(scores.shape)
    classes = scores.shape[1]
    listed = (labels >= 0).long().cumprod(dim=1).bool()  # the entries before the first -1
    safe = _where(listed, labels, 0)
    counts = _zeros(scores.shape, dtype=scores.dtype, device=scores.device)
    counts = counts.scatter_add(1, safe, listed.to(scores.dtype))
    is_target = counts > 0
    # pairs (j, k): 1 - x_j + x_k, for listed j (as often as listed) and unlisted k
    pairs = (1 - scores.unsqueeze(2) + scores.unsqueeze(1)).clamp(min=0)
    pairs = pairs * counts.unsqueeze(2) * (~is_target).to(scores.dtype).unsqueeze(1)
    loss = pairs.sum(dim=(1, 2)) / classes
    return _reduce(loss.reshape(()) if single else loss, reduction)


@_arguments.public
@autocast_inputs("float32")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """``loss = max(0, d(a, p) - d(a, n) + margin)`` with ``d`` the ``p``-norm distance (``pairwise_distance``).

    ``swap=True`` uses ``min(d(a, n), d(p, n))`` as the negative distance (the harder negative).
    """
    reduction = _reduction_argument(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: "
            f"anchor {anchor.dim()}D, positive {positive.dim()}D, and negative {negative.dim()}D inputs"
        )
    positive_distance = pairwise_distance(anchor, positive, p, eps)
    negative_distance = pairwise_distance(anchor, negative, p, eps)
    if swap:
        negative_distance = pointwise.minimum(negative_distance, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + positive_distance - negative_distance).clamp_min(0), reduction)


@_arguments.public
@autocast_inputs("float32")
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification: ``-log`` of the total probability of every alignment of
    ``log_probs`` that reads as the target (``ops/ctc.py`` explains the dynamic programme).

    ``log_probs`` is ``(T, N, C)`` (or unbatched ``(T, C)``), log-softmax outputs with class ``blank``
    as the blank; ``targets`` is ``(N, S)`` padded or 1-D with the targets concatenated;
    ``input_lengths`` and ``target_lengths`` give each sequence's length (``(N,)``). ``"mean"``
    divides each loss by its target length, then averages over the batch. ``zero_infinity`` turns
    the infinite loss of an impossible target (longer than its input allows) into 0, gradient too.

    As PyTorch's, the gradient with respect to ``log_probs`` is ``exp(log_probs) - posterior``, not the true
    ``-posterior``: the two agree once the gradient has gone back through the ``log_softmax`` that made
    ``log_probs`` (give ``ctc_loss`` log-probabilities that are not normalised and its gradient is wrong).
    """
    reduction = _reduction_argument(reduction)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs, targets = log_probs.unsqueeze(1), targets.unsqueeze(0)
    inputs, lengths, labels = _check_ctc_loss(log_probs, targets, unbatched, input_lengths, target_lengths, blank)
    xp = log_probs._xp
    longest = int(lengths.max()) if lengths.size else 0
    if labels.ndim == 1 and not unbatched:  # concatenated targets: cut them into padded rows
        starts = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(lengths)[:-1]])
        positions = xp.minimum(starts[:, None] + xp.arange(longest)[None, :], max(labels.shape[0] - 1, 0))
        labels = labels[positions] if labels.shape[0] else xp.zeros((len(lengths), longest), xp.int64)
    labels = xp.where(xp.arange(labels.shape[1])[None, :] < lengths[:, None], labels, blank)
    losses = _ctc_ops.CTCLoss.apply(log_probs, labels, inputs, lengths, blank, zero_infinity)
    if unbatched:
        losses = losses.squeeze(0)
    if reduction == "mean":
        divisors = Tensor._make(xp.maximum(lengths, 1).astype(losses._data.dtype), log_probs._device)
        return (losses / (divisors.squeeze(0) if unbatched else divisors)).mean()
    return _reduce(losses, reduction)


def _check_ctc_loss(log_probs: Tensor, targets: Tensor, unbatched: bool, input_lengths, target_lengths,
                    blank: int) -> tuple:
    """PyTorch's errors for ``ctc_loss``'s arguments; returns the input lengths, the target lengths and
    the targets as int64 arrays.

    In this order: lengths not one per sequence; a ``blank`` outside the classes; an input length
    outside ``[0, T]`` or a negative target length; ``targets`` too short for the lengths (their sum
    when concatenated, their longest when padded); a label, among those the lengths take, outside
    the classes.
    """
    steps, batch, classes = log_probs.shape
    xp = log_probs._xp
    inputs = _lengths(input_lengths, xp, batch, "input_lengths")
    lengths = _lengths(target_lengths, xp, batch, "target_lengths")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    for name, values, low, high in (("input_lengths", inputs, 0, steps), ("target_lengths", lengths, 0, None)):
        if values.size and int(values.min()) < low:
            raise RuntimeError(f"Expected {name} to have value at least {low}, but got value {int(values.min())} "
                               "(while checking arguments for ctc_loss_allocate_outputs)")  # fmt: skip
        if high is not None and values.size and int(values.max()) > high:
            raise RuntimeError(f"Expected {name} to have value at most {high}, but got value {int(values.max())} "
                               "(while checking arguments for ctc_loss_allocate_outputs)")  # fmt: skip
    labels = targets._data.astype(np.int64)
    if labels.ndim == 1 and not unbatched:  # concatenated: every label is used
        if labels.shape[0] != int(lengths.sum()):
            raise RuntimeError(f"Expected tensor to have size {int(lengths.sum())} at dimension 0, but got size "
                               f"{labels.shape[0]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")  # fmt: skip
        used = labels
    else:
        longest = int(lengths.max()) if lengths.size else 0
        if labels.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                               f"{labels.shape[1]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")  # fmt: skip
        used = xp.where(xp.arange(labels.shape[1])[None, :] < lengths[:, None], labels, blank)  # blank is in range
    outside = used[(used < 0) | (used >= classes)]
    if outside.size:
        raise RuntimeError(f"ctc_loss: target labels must lie in [0, {classes - 1}] (log_probs has {classes} classes), "
                           f"but got a label {int(outside[0])}")  # fmt: skip
    return inputs, lengths, labels


def _lengths(values, xp, batch: int, name: str):
    """Sequence lengths (a tensor, list, tuple or int) as an int64 array of the batch's size."""
    array = values._data if isinstance(values, Tensor) else np.asarray(values)
    array = xp.asarray(array).astype(xp.int64).reshape(-1)
    if array.shape[0] != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return array
