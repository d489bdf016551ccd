"""Normalization functions: ``batch_norm``, ``instance_norm``, ``layer_norm``, ``group_norm``, ``rms_norm``,
``local_response_norm`` and ``normalize``: subtract a mean, divide by a standard deviation over the
dimensions each one names, then scale and shift.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _arguments, _dtype
from ..._shapes import wrap_dim
from ..._tensor import Tensor
from ...amp.autocast_mode import autocast_inputs
from ...autograd.grad_mode import no_grad
from ...ops import nn_ops, pointwise, shape as shape_ops
from ._utils import _shape_text

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "rms_norm", "normalize", "layer_norm", "batch_norm", "instance_norm", "group_norm", "local_response_norm",
]


def _check_parameter_dtype(input: Tensor, *parameters) -> None:
    for parameter in parameters:
        if parameter is not None and parameter._data.dtype != input._data.dtype:
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of {input.dtype.type_name}")


@_arguments.public
def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """Root-mean-square normalisation over the last ``len(normalized_shape)`` dimensions, then ``* weight``.

    ``y = x / sqrt(mean(x ** 2) + eps) * weight``: LayerNorm without subtracting the mean and
    without a bias (Zhang and Sennrich, 2019), as in most recent language models. ``eps=None``
    uses the machine epsilon of ``input``'s dtype, as PyTorch does. Composed of differentiable
    ops, so its backward is theirs.

        >>> import minitorch
        >>> y = minitorch.nn.functional.rms_norm(minitorch.tensor([[3.0, 4.0]]), [2])
        >>> [round(v, 4) for v in y[0].tolist()]
        [0.8485, 1.1314]
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(extent) for extent in normalized_shape)
    count = len(normalized_shape)
    if input.dim() < count or tuple(input.shape[input.dim() - count:]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={_shape_text(normalized_shape)}, expected input with shape "
            f"[*{_shape_text(normalized_shape)[1:-1]}], but got input of size{_shape_text(input.shape)}"  # sic
        )
    # float16 and bfloat16 are normalised in float32 (PyTorch's "opmath type"), then rounded back
    computed = input.float() if input.dtype in (_dtype.float16, _dtype.bfloat16) else input
    if eps is None:
        eps = float(np.finfo(computed._data.dtype).eps)
    dims = tuple(range(input.dim() - count, input.dim()))
    result = computed * (computed * computed).mean(dims, keepdim=True).add(eps).rsqrt()
    return (result * weight if weight is not None else result).to(input.dtype)


@_arguments.public
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``: each slice scaled to unit ``p``-norm (zero stays zero).

        >>> import minitorch
        >>> minitorch.nn.functional.normalize(minitorch.tensor([[3.0, 4.0]]))
        tensor([[0.6000, 0.8000]])
    """
    denominator = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denominator
    return _arguments.write_out("normalize", pointwise.div(input, denominator), out)


@_arguments.public
@autocast_inputs("float32", device_types=("cuda",))  # on PyTorch's CUDA list
def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dimensions, then ``* weight + bias`` (elementwise).

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with the mean and the biased
    variance taken over those dimensions separately for every leading index (every token
    of every sequence). One ``Normalize`` op (``ops/nn_ops.py``) does it, backward included.

        >>> import minitorch
        >>> y = minitorch.nn.functional.layer_norm(minitorch.tensor([[1.0, 3.0]]), [2])
        >>> [round(v, 3) for v in y[0].tolist()]
        [-1.0, 1.0]
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(int(extent) for extent in normalized_shape)
    if not normalized_shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
            "normalized_shape = []"
        )
    count = len(normalized_shape)
    if tuple(input.shape[-count:]) != normalized_shape or input.dim() < count:
        raise RuntimeError(
            f"Given normalized_shape={_shape_text(normalized_shape)}, expected input with shape "
            f"[*, {_shape_text(normalized_shape)[1:-1]}], but got input of size{_shape_text(input.shape)}"
        )
    for name, parameter in (("weight", weight), ("bias", bias)):
        if parameter is not None and tuple(parameter.shape) != normalized_shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                f"{_shape_text(parameter.shape)} and normalized_shape = {_shape_text(normalized_shape)}"
            )
    _check_parameter_dtype(input, weight, bias)
    axes = tuple(range(input.dim() - count, input.dim()))
    return nn_ops.Normalize.apply(input, weight, bias, axes, eps, False)


def _channel_view(tensor: Tensor | None, ndim: int) -> Tensor | None:
    """A per-channel vector ``(C,)`` reshaped to ``(C, 1, ..., 1)`` so it lines up with dimension 1 of an input."""
    if tensor is None:
        return None
    return tensor.reshape((-1,) + (1,) * (ndim - 2))


def _verify_batch_size(size) -> None:
    values_per_channel = size[0] * math.prod(size[2:])
    if values_per_channel == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size minitorch.Size({list(size)})"
        )


def _check_channel_vectors(channels: int, **vectors) -> None:
    for name, vector in vectors.items():
        if vector is not None and vector.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {vector.numel()}")


def _update_running_stats(running_mean: Tensor, running_var: Tensor, batch_mean: Tensor, batch_var: Tensor,
                          count: int, momentum: float) -> None:
    """``running = (1 - momentum) * running + momentum * batch``, in place and outside the graph.

    The running variance takes the *unbiased* batch variance (``var * n / (n - 1)``), as in
    PyTorch, although the batch itself is normalised with the biased one.
    """
    with no_grad():
        running_mean.mul_(1 - momentum).add_(batch_mean.to(running_mean.dtype), alpha=momentum)
        unbiased_var = batch_var * (count / max(count - 1, 1))
        running_var.mul_(1 - momentum).add_(unbiased_var.to(running_var.dtype), alpha=momentum)


def _normalize_with_statistics(input: Tensor, mean: Tensor, var: Tensor, weight: Tensor | None,
                               bias: Tensor | None, eps: float) -> Tensor:
    """``y = (x - mean) / sqrt(var + eps) * weight + bias`` with fixed per-channel statistics (eval mode).

    Folded into one per-channel ``scale`` and ``shift`` (``y = x * scale + shift``), made of
    ordinary tensor ops, so autograd differentiates it in ``x``, ``weight`` and ``bias``.
    """
    scale = (var + eps).rsqrt()
    if weight is not None:
        scale = scale * weight
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias
    ndim = input.dim()
    return input * _channel_view(scale, ndim) + _channel_view(shift, ndim)


@_arguments.public
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dimension 1) over the batch and every spatial position, then ``* weight + bias``.

    Training: ``y = (x - mean_B) / sqrt(var_B + eps) * weight + bias`` with the batch's mean
    and biased variance per channel (one ``BatchNormalize`` op, closed-form backward), and,
    when given, ``running_mean``/``running_var`` move toward them by ``momentum``
    (``running = (1 - momentum) * running + momentum * batch``, unbiased variance).
    Evaluation: the same formula with the running statistics in place of the batch's.

        >>> import minitorch
        >>> x = minitorch.tensor([[1.0], [3.0]])
        >>> y = minitorch.nn.functional.batch_norm(x, None, None, training=True)
        >>> [round(v, 4) for v in y.flatten().tolist()]
        [-1.0, 1.0]
    """
    if training:
        _verify_batch_size(tuple(input.shape))
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    channels = input.shape[wrap_dim(1, input.dim())]
    _check_channel_vectors(channels, running_mean=running_mean, running_var=running_var, weight=weight, bias=bias)
    _check_parameter_dtype(input, weight, bias)
    if not training:
        if running_mean is None or running_var is None:
            missing = "running_mean" if running_mean is None else "running_var"
            raise RuntimeError(f"{missing} must be defined in evaluation mode")
        return _normalize_with_statistics(input, running_mean, running_var, weight, bias, eps)
    ndim = input.dim()
    axes = (0,) + tuple(range(2, ndim))
    tracking = running_mean is not None and running_var is not None
    result = nn_ops.BatchNormalize.apply(
        input, _channel_view(weight, ndim), _channel_view(bias, ndim), axes, eps, tracking
    )
    if not tracking:
        return result
    output, batch_mean, batch_var = result
    _update_running_stats(running_mean, running_var, batch_mean.reshape(-1), batch_var.reshape(-1),
                          input.numel() // channels, momentum)
    return output


@_arguments.public
def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its spatial positions, then ``* weight + bias`` per channel.

    ``y[n, c] = (x[n, c] - mean) / sqrt(var + eps) * weight[c] + bias[c]``, the statistics taken
    over ``x[n, c]`` alone. Running statistics, when given, move toward the batch average of
    the per-sample ones; ``use_input_stats=False`` normalises with them instead (eval mode).
    """
    if use_input_stats:
        size = tuple(input.shape)
        if math.prod(size[2:]) == 1:
            raise ValueError(
                f"Expected more than 1 spatial element when training, got input size minitorch.Size({list(size)})"
            )
    channels = input.shape[wrap_dim(1, input.dim())]
    _check_channel_vectors(channels, weight=weight, bias=bias)
    for name, vector in (("running_mean", running_mean), ("running_var", running_var)):
        # PyTorch checks these after repeating them once per sample, and its message names the repeated sizes.
        if vector is not None and vector.numel() != channels:
            samples = input.shape[0]
            raise RuntimeError(f"{name} should contain {samples * channels} elements not {samples * vector.numel()}")
    _check_parameter_dtype(input, weight, bias)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        return _normalize_with_statistics(input, running_mean, running_var, weight, bias, eps)
    ndim = input.dim()
    axes = tuple(range(2, ndim))
    tracking = running_mean is not None and running_var is not None
    result = nn_ops.BatchNormalize.apply(
        input, _channel_view(weight, ndim), _channel_view(bias, ndim), axes, eps, tracking
    )
    if not tracking:
        return result
    output, sample_means, sample_vars = result
    _update_running_stats(running_mean, running_var, sample_means.reshape(input.shape[:2]).mean(0),
                          sample_vars.reshape(input.shape[:2]).mean(0), math.prod(input.shape[2:]), momentum)
    return output


@_arguments.public
@autocast_inputs("float32", device_types=("cuda",))  # on PyTorch's CUDA list
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Split the channels into ``num_groups`` groups; normalise each group of each sample; ``* weight + bias``.

    The input ``(N, C, *)`` is viewed as ``(N, G, C / G, S)`` (``S`` the spatial positions),
    normalised over its last two dimensions by one ``Normalize`` op whose per-channel weight
    and bias are viewed as ``(G, C / G, 1)`` to match; then viewed back.
    """
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    batch, channels = input.shape[0], input.shape[1]
    if channels % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{_shape_text(input.shape)} and num_groups={num_groups}"
        )
    _verify_batch_size([batch * channels // num_groups, num_groups] + list(input.shape[2:]))
    for name, vector in (("weight", weight), ("bias", bias)):
        if vector is not None and (vector.dim() != 1 or vector.numel() != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got {name} of "
                f"shape {_shape_text(vector.shape)} and input of shape {_shape_text(input.shape)}"
            )
    _check_parameter_dtype(input, weight, bias)
    group_shape = (num_groups, channels // num_groups, 1)
    grouped = input.reshape(batch, num_groups, channels // num_groups, -1)
    output = nn_ops.GroupNormalize.apply(
        grouped,
        None if weight is None else weight.reshape(group_shape),
        None if bias is None else bias.reshape(group_shape),
        (2, 3), eps, False,
    )
    return output.reshape(input.shape)


@_arguments.public
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``y[:, c] = x[:, c] / (k + alpha / size * sum of x[:, c']^2 over the `size` channels c' around c)^beta``.

    The window covers channels ``c - size // 2`` to ``c + (size - 1) // 2``, with zeros past the
    edges (and always divides by ``size``), as in PyTorch. Summed as ``size`` shifted slices of
    the zero-padded squares: a loop over window offsets, not over elements.
    """
    ndim = input.dim()
    if ndim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {ndim} dimensions)"
        )
    if input.numel() == 0:
        return input
    squares = input * input
    channels = input.shape[1]
    before, after = size // 2, (size - 1) // 2
    pad_shape = lambda count: (input.shape[0], count) + tuple(input.shape[2:])  # noqa: E731
    padded = shape_ops.cat(
        [squares.new_zeros(pad_shape(before)), squares, squares.new_zeros(pad_shape(after))], 1
    )
    window_sum = padded.narrow(1, 0, channels)
    for offset in range(1, size):
        window_sum = window_sum + padded.narrow(1, offset, channels)
    divisor = (window_sum * (alpha / size) + k) ** beta
    return input / divisor
