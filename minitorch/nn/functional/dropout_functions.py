"""Dropout functions: ``dropout``, ``dropout1d``/``2d``/``3d`` (whole channels), ``alpha_dropout`` and
``feature_alpha_dropout`` (for SELU networks).

A random mask is drawn on the host from minitorch's default generator as PyTorch draws it on the CPU
(``bernoulli_(1 - p)``, then divided by ``1 - p``), moved to the input's device, and applied with one
multiplication: the gradient is then the same mask times the same scale.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _arguments, _dtype, _messages, _sampling
from ..._random import default_generator
from ..._tensor import Tensor
from ._utils import _maybe_inplace
from .activation import _SELU_ALPHA, _SELU_SCALE

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
]


def _check_dropout_probability(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input: Tensor, mask_shape: tuple, p: float):
    """A 0/1 array of ``mask_shape`` in ``input``'s dtype, on ``input``'s device: each entry is 1 (kept) with
    probability ``1 - p``.

    On the CPU the draws are PyTorch's, bit for bit (``_sampling.py``). On a GPU they are drawn there, with the
    GPU's own generator seeded from the default generator (so ``manual_seed`` still repeats a run): copying a
    host mask over on every forward would cost more than the layer. PyTorch's GPU numbers differ from its CPU
    numbers too.
    """
    dtype = input.dtype.numpy_dtype
    if input._device.type == "cpu":
        return _sampling.bernoulli_scalar(default_generator, tuple(mask_shape), dtype, 1 - p)
    seed = int(default_generator.random64(1)[0])
    xp = input._xp
    with input._device.backend.use_device(input._device.index or 0):
        uniform = xp.random.default_rng(seed).random(tuple(mask_shape), dtype=np.float64)
        return (uniform < 1 - p).astype(dtype)


def _on_device(array, like: Tensor) -> Tensor:
    """An array as a constant tensor on ``like``'s device (copied over if it is a host array for a GPU)."""
    if like._device.type != "cpu" and isinstance(array, np.ndarray):
        array = like._device.backend.to_device(array, like._device.index)
    return Tensor._make(array, like._device)


def _feature_mask_shape(input: Tensor) -> tuple:
    """One draw per (sample, channel): the mask is broadcast over the remaining (spatial) dimensions."""
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return tuple(input.shape[:2]) + (1,) * (input.dim() - 2)


def _scaled_dropout(input: Tensor, p: float, training: bool, inplace: bool, mask_shape) -> Tensor:
    """``y = x * mask / (1 - p)``: dropped entries become 0, kept ones are scaled so the expectation stays ``x``."""
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if not input.is_floating_point():
        raise RuntimeError(_messages.cannot_cast(_dtype.float32, input.dtype))
    if p == 1.0:  # everything dropped: PyTorch draws nothing
        mask = input._xp.zeros((1,) * input.dim(), dtype=input.dtype.numpy_dtype)
    else:
        mask = _keep_mask(input, input.shape if mask_shape is None else mask_shape, p)
        mask /= mask.dtype.type(1.0 - p)  # as PyTorch (noise.div_(1 - p)); times 1/(1-p) could round differently
    scaled_mask = _on_device(mask, input)
    return _maybe_inplace(input, inplace, lambda x: x * scaled_mask)


@_arguments.public
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (identity when not training).

        >>> import minitorch
        >>> _ = minitorch.manual_seed(0)
        >>> y = minitorch.nn.functional.dropout(minitorch.ones(1000), p=0.2)
        >>> sorted(set(y.tolist()))
        [0.0, 1.25]
    """
    _check_dropout_probability(p)
    return _scaled_dropout(input, p, training, inplace, None)


@_arguments.public
def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of an ``(N, C, L)`` or ``(C, L)`` input with probability ``p``; scale the rest."""
    _check_dropout_probability(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs)."
        )
    if input.dim() == 2:  # no batch dimension: one draw per channel
        return _scaled_dropout(input, p, training, inplace, (input.shape[0], 1))
    return _scaled_dropout(input, p, training, inplace, _feature_mask_shape(input))


@_arguments.public
def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (dimension 1) of an ``(N, C, H, W)`` input with probability ``p``; scale the rest.

    As in PyTorch, a 3-D input is read as ``(N, C, L)`` (with a warning), not as ``(C, H, W)``.
    """
    _check_dropout_probability(p)
    if input.dim() not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout instead. "
            "Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a "
            "channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.dim() == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _scaled_dropout(input, p, training, inplace, _feature_mask_shape(input))


@_arguments.public
def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with probability ``p``."""
    _check_dropout_probability(p)
    if input.dim() not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout instead. "
            "Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial dimensions, a "
            "channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if input.dim() == 4:
        return _scaled_dropout(input, p, training, inplace, (input.shape[0], 1, 1, 1))
    return _scaled_dropout(input, p, training, inplace, _feature_mask_shape(input))


# SELU's fixed point: alpha dropout sets dropped units to SELU's negative saturation value
# ``-scale * alpha`` (not 0) and then fixes mean 0 and variance 1 with an affine map.
_ALPHA_DROPOUT_VALUE = _SELU_ALPHA * _SELU_SCALE  # 1.7580993408473766


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, mask_shape) -> Tensor:
    """``y = a * (x if kept else -alpha) + a * alpha * p``, ``alpha = 1.7581``, ``a = 1/sqrt((alpha^2 p + 1)(1 - p))``.

    Dropped entries take SELU's negative saturation value ``-alpha`` instead of 0, and ``a``
    and the shift restore mean 0 and variance 1 (PyTorch's formula). Computed as
    ``x * (a * keep) + shift``, so the gradient is ``a * keep``.
    """
    _check_dropout_probability(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return _maybe_inplace(input, inplace, lambda x: x * 0.0)
    keep = _keep_mask(input, input.shape if mask_shape is None else mask_shape, p)
    alpha = _ALPHA_DROPOUT_VALUE
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    shift = _on_device((keep - 1) * (alpha * a) + alpha * a * p, input)
    scale = _on_device(keep * a, input)
    return _maybe_inplace(input, inplace, lambda x: x * scale + shift)


@_arguments.public
def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: keeps the mean and variance of its input (see ``_alpha_dropout``)."""
    return _alpha_dropout(input, p, training, inplace, None)


@_arguments.public
def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (dimension 1)."""
    _check_dropout_probability(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    return _alpha_dropout(input, p, training, inplace, _feature_mask_shape(input))
