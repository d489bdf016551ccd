"""``minitorch.nn.init``: fill a weight tensor in place with a chosen starting distribution.

Good starting weights keep the size of activations (and gradients) about the same from
layer to layer. For a layer that sums ``fan_in`` inputs, weights of variance ``1 / fan_in``
keep the variance of its output equal to that of its input; the *gain* corrects for what
the nonlinearity does to the variance (ReLU halves it, so its gain is ``sqrt(2)``).

* Xavier/Glorot (for tanh and sigmoid nets): variance ``gain^2 * 2 / (fan_in + fan_out)``.
* Kaiming/He (for ReLU nets): variance ``gain^2 / fan`` with ``fan`` = fan_in or fan_out.

Every function works in place, without recording gradients, and returns the tensor; each
accepts ``generator=`` for reproducible draws. The draws are PyTorch's, in PyTorch's order, so
after the same ``manual_seed`` a layer starts with PyTorch's weights (random numbers are drawn
on the host and copied to the tensor's device).

    >>> import minitorch
    >>> weight = minitorch.empty(3, 5)
    >>> minitorch.nn.init.kaiming_uniform_(weight, nonlinearity="relu").shape
    minitorch.Size([3, 5])
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._creation import empty_like, randperm
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops.pointwise import where

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor by which a nonlinearity's output standard deviation should be scaled back up.

    ``linear``/``conv*``/``sigmoid``: 1;  ``tanh``: 5/3;  ``relu``: sqrt(2);
    ``leaky_relu``: sqrt(2 / (1 + negative_slope^2));  ``selu``: 3/4.
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4  # an empirical value (PyTorch's), not derived like the others
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """How many inputs feed each output (fan_in) and how many outputs each input feeds (fan_out).

    A weight is ``(out_features, in_features, *kernel)``: the kernel's size multiplies both.
    """
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _write(tensor: Tensor, values: np.ndarray) -> Tensor:
    """Copy host ``values`` into ``tensor`` (any device, its own dtype), without recording."""
    with no_grad():
        return tensor.copy_(Tensor._make(np.ascontiguousarray(values).reshape(tensor.shape)))


# -- plain distributions ----------------------------------------------------------------------
def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from ``U(a, b)``."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from ``N(mean, std^2)``."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Fill with samples from ``N(mean, std^2)`` restricted to ``[a, b]`` (rejection sampling, vectorised).

    When the interval holds much of the mass (more than 0.3), draw normals and redraw, a whole
    tensor at a time, the entries that fell outside. Otherwise draw uniformly on ``[a, b]``
    and accept each candidate ``x`` when ``log u <= -((x - mean) / std)^2 / 2 - log_peak``
    (``u ~ U[0, 1)``; the density relative to its peak on ``[a, b]``), redrawing the pending
    ones each round. The same draws, in the same order, as PyTorch.
    """

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be "
            "incorrect.",
            stacklevel=2,
        )
    with no_grad():
        mass_inside = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if mass_inside > 0.3:
            low = tensor.new_tensor(a, device="cpu").item()  # the bounds as the tensor's dtype holds them
            high = tensor.new_tensor(b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < low) | (result > high)
                if not outside.any():
                    break
                result = where(outside, empty_like(result).normal_(mean, std, generator=generator), result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))  # where the density is highest inside [a, b]
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates = empty_like(tensor)
        accept_buffer = empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)  # log density relative to the peak
        pending = accept_buffer.uniform_(generator=generator).log_().gt(candidates)
        result = tensor
        while pending.any():
            candidates.uniform_(a, b, generator=generator)
            result = where(pending, candidates, result)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            pending = where(pending, accept_buffer.uniform_(generator=generator).log_().gt(candidates), pending)
        if result is not tensor:
            tensor.copy_(result)
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal): a linear layer that passes inputs through."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight so the convolution passes its input channels through."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_channels_per_group = sizes[0] // groups
    channels = min(out_channels_per_group, sizes[1])
    values = np.zeros(sizes)
    group_index, channel_index = np.meshgrid(np.arange(groups), np.arange(channels), indexing="ij")
    centre = tuple(extent // 2 for extent in sizes[2:])
    values[((group_index * out_channels_per_group + channel_index).ravel(), channel_index.ravel()) + centre] = 1
    return _write(tensor, values)


# -- scaled for the layer's size ----------------------------------------------------------------
def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """``U(-bound, bound)`` with ``bound = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std  # a uniform on [-bound, bound] has standard deviation bound / sqrt(3)
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """``N(0, std^2)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """``U(-bound, bound)`` with ``bound = gain * sqrt(3 / fan)`` (He et al., 2015).

    ``a`` is the negative slope of a leaky ReLU (used for its gain); ``mode="fan_in"``
    preserves the forward pass's variance, ``"fan_out"`` the backward pass's.
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """``N(0, std^2)`` with ``std = gain / sqrt(fan)``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix (Saxe et al., 2013), times ``gain``.

    The QR decomposition of a Gaussian matrix gives an orthogonal ``Q``; multiplying its
    columns by the signs of ``R``'s diagonal makes it uniformly distributed. Dimensions
    after the first are flattened.
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)  # PyTorch's draws
    flattened = flattened.cpu().numpy().astype(np.float64)
    if rows < cols:
        flattened = flattened.T
    q, r = np.linalg.qr(flattened)
    q *= np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _write(tensor, q * gain)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Fill a 2-D tensor with ``N(0, std^2)`` values, then zero a fraction ``sparsity`` of each column."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        # PyTorch draws one permutation per column from the default generator (not ``generator``)
        zero_rows = np.stack([randperm(rows).numpy()[:num_zeros] for _ in range(cols)], axis=1)
        values = tensor.cpu().numpy().copy()
    values[zero_rows, np.arange(cols)] = 0.0
    return _write(tensor, values)


# -- the old names, without the trailing underscore ------------------------------------------------------------
def _deprecated(function):
    """``function`` under its pre-0.4 name (``uniform`` for ``uniform_``), which PyTorch keeps and warns about:
    old code (``init.orthogonal(p)``, ``nn.init.xavier_uniform(w, gain=...)``) still runs, filling in place."""
    new_name = function.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return function(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"{old_name}(...): deprecated; see ``{new_name}``."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
