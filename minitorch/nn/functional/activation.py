"""Non-linear activation functions: ``relu``, ``gelu``, ``softplus``, the softmax family... and the in-place
forms PyTorch names with a trailing underscore (``F.relu_(x)`` is ``F.relu(x, inplace=True)``).

Those PyTorch computes as one kernel (``gelu``, ``silu``, ``elu``, ``hardtanh``...) are one node each,
with PyTorch's name (``GeluBackward0``): ``minitorch/ops/fused_activations.py`` has their forward and
derivative. The others are written with ordinary tensor operations, so autograd derives their backward.
An unselected ``where`` branch still gets a zero gradient, and zero times infinity is NaN, so ``exp``
in such a branch gets a clamped argument (``exp(min(x, 0))`` in ELU).
"""

from __future__ import annotations

import warnings

import numpy as np

from ... import _arguments, _creation, _dtype, _messages, _sampling
from ..._random import generator_or_default
from ..._shapes import wrap_dim
from ..._tensor import Tensor
from ...amp.autocast_mode import autocast_inputs
from ...ops import fused_activations as fused, nn_ops
from ._utils import _maybe_inplace, _where

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "threshold", "relu", "hardtanh", "relu6", "elu", "selu", "celu", "leaky_relu", "prelu", "rrelu", "threshold_",
    "relu_", "hardtanh_", "elu_", "selu_", "celu_", "leaky_relu_", "rrelu_", "glu", "gelu", "logsigmoid", "hardshrink",
    "tanhshrink", "softsign", "softplus", "softshrink", "tanh", "sigmoid", "hardsigmoid", "silu", "mish", "hardswish",
    "softmax", "softmin", "log_softmax", "gumbel_softmax",
]


@_arguments.public
def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``y = x if x > threshold else value``."""
    op = fused.ThresholdInPlace if inplace else fused.Threshold  # in place: the derivative read off the result
    return _maybe_inplace(input, inplace, lambda x: op.apply(x, threshold, value))


@_arguments.public
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = max(x, 0)``."""
    return input.relu_() if inplace else input.relu()


@_arguments.public
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``y = clamp(x, min_val, max_val)``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(input, inplace, lambda x: fused.Hardtanh.apply(x, min_val, max_val))


@_arguments.public
def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = min(max(x, 0), 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


@_arguments.public
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``y = x if x > 0 else alpha * (exp(x) - 1)``."""

    op = fused.EluInPlace if inplace else fused.Elu  # in place: the derivative read off the result
    return _maybe_inplace(input, inplace, lambda x: op.apply(x, alpha, 1.0, 1.0))


_SELU_ALPHA = 1.6732632423543772848170429916717


_SELU_SCALE = 1.0507009873554804934193349852946


@_arguments.public
def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = scale * elu(x, alpha)`` with the self-normalising constants (alpha ~ 1.6733, scale ~ 1.0507)."""

    op = fused.EluInPlace if inplace else fused.Elu  # in place: the derivative read off the result
    return _maybe_inplace(input, inplace, lambda x: op.apply(x, _SELU_ALPHA, _SELU_SCALE, 1.0))


@_arguments.public
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``y = x if x > 0 else alpha * (exp(x / alpha) - 1)``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")

    op = fused.CeluInPlace if inplace else fused.Celu  # in place: the derivative read off the result
    return _maybe_inplace(input, inplace, lambda x: op.apply(x, alpha, 1.0, 1.0 / alpha))


@_arguments.public
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``y = x if x > 0 else negative_slope * x``."""
    op = fused.LeakyReluInPlace if inplace else fused.LeakyRelu  # in place: the derivative read off the result
    return _maybe_inplace(input, inplace, lambda x: op.apply(x, negative_slope))


@_arguments.public
@autocast_inputs("lower_precision_fp")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``y = x if x > 0 else a * x`` with a learned slope ``a`` per channel (dimension 1), or one shared slope."""
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {channels}."
        )
    # As PyTorch: (C,) or (1,) -> (C, 1, 1, ...) so it lines up with dimension 1 of the input
    slopes = weight.reshape((weight.numel(),) + (1,) * (input.dim() - 2)) if input.dim() >= 2 else weight
    return fused.PreluKernel.apply(input, slopes)


@_arguments.public
def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False, generator=None) -> Tensor:
    """Leaky ReLU with a random slope ``~ U(lower, upper)`` per element in training, ``(lower + upper) / 2`` in eval."""
    if not training:  # PyTorch's rrelu_with_noise, with the mean slope
        op = fused.RreluWithNoiseInPlace if inplace else fused.RreluWithNoise
        return _maybe_inplace(input, inplace, lambda x: op.apply(x, (lower + upper) / 2))
    # As PyTorch's CPU kernel: one slope per entry <= 0, in order, drawn on the host.
    host = input._device.backend.to_host(input._data)
    negative = host <= 0
    drawn = np.ones(host.shape, dtype=host.dtype)
    count = int(negative.sum())
    drawn[negative] = _sampling.rrelu_slopes(generator_or_default(generator), count, host.dtype, lower, upper)
    slopes = Tensor._make(drawn).to(input.device)
    return _maybe_inplace(input, inplace, lambda x: _where(x >= 0, x, x * slopes))


# The in-place activations as functions of their own (PyTorch's names): ``F.relu_(x)`` is ``F.relu(x, inplace=True)``.
@_arguments.public
def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return globals()["threshold"](input, threshold, value, inplace=True)


@_arguments.public
def relu_(input: Tensor) -> Tensor:
    return relu(input, inplace=True)


@_arguments.public
def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


@_arguments.public
def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


@_arguments.public
def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


@_arguments.public
def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


@_arguments.public
def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


@_arguments.public
def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator=None) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True, generator=generator)


@_arguments.public
def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: split ``input`` in halves ``a, b`` along ``dim``; ``y = a * sigmoid(b)``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = wrap_dim(dim, input.dim())
    if input.shape[axis] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {input.shape[axis]}")
    return fused.Glu.apply(input, axis)


# The 16-bit floats: a composite activation computes them in float32 (PyTorch's "opmath type") and rounds the
# result once, as PyTorch's fused kernels do, rather than after each of its steps.
_HALF_PRECISION = (_dtype.float16, _dtype.bfloat16)


@_arguments.public
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``y = x * Phi(x)`` with ``Phi`` the standard normal CDF: ``0.5 * (1 + erf(x / sqrt(2)))``.

    ``approximate="tanh"`` uses ``0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))`` for ``Phi``.
    """
    if input.dtype in _HALF_PRECISION:  # PyTorch's kernel computes in float32 and rounds once
        return gelu(input.float(), approximate).to(input.dtype)
    if approximate in ("none", "tanh"):
        return fused.Gelu.apply(input, approximate)
    raise RuntimeError("approximate argument must be either none or tanh.")


@_arguments.public
def logsigmoid(input: Tensor) -> Tensor:
    """``y = log(sigmoid(x)) = -softplus(-x)`` (never ``log`` of a tiny number)."""
    return fused.LogSigmoid.apply(input)


@_arguments.public
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``y = x if |x| > lambd else 0``."""
    return fused.Hardshrink.apply(input, lambd)


@_arguments.public
def tanhshrink(input: Tensor) -> Tensor:
    """``y = x - tanh(x)``."""
    return input - input.tanh()


@_arguments.public
def softsign(input: Tensor) -> Tensor:
    """``y = x / (1 + |x|)``."""
    return input / (1 + input.abs())


@_arguments.public
@autocast_inputs("float32", device_types=("cuda",))  # on PyTorch's CUDA list
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``y = log(1 + exp(beta * x)) / beta``, and ``y = x`` where ``beta * x > threshold`` (there they agree)."""
    return fused.Softplus.apply(input, beta, threshold)


@_arguments.public
def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``y = x - lambd if x > lambd, x + lambd if x < -lambd, else 0``."""
    if lambd < 0:
        largest = float(np.finfo(input._data.dtype).max) if input.is_floating_point() else float("inf")
        raise RuntimeError(
            f"lambda must be in range [0, {largest:g}] for input dtype {input.dtype.type_name}, but found {lambd:g}"
        )
    return fused.Softshrink.apply(input, lambd)


@_arguments.public
def tanh(input: Tensor) -> Tensor:
    return input.tanh()


@_arguments.public
def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


@_arguments.public
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = clamp(x / 6 + 1/2, 0, 1)``: a piecewise-linear sigmoid."""
    return _maybe_inplace(input, inplace, fused.Hardsigmoid.apply)


@_arguments.public
def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = x * sigmoid(x)`` (also called swish)."""
    if input.dtype in _HALF_PRECISION and not inplace:  # PyTorch's kernel computes in float32 and rounds once
        return silu(input.float()).to(input.dtype)
    return _maybe_inplace(input, inplace, fused.Silu.apply)


@_arguments.public
def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = x * tanh(softplus(x))``."""
    if input.dtype in _HALF_PRECISION and not inplace:  # PyTorch's kernel computes in float32 and rounds once
        return mish(input.float()).to(input.dtype)
    return _maybe_inplace(input, inplace, fused.Mish.apply)


@_arguments.public
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = x * hardsigmoid(x)``: 0 below -3, ``x`` above 3, ``x (x + 3) / 6`` between."""
    return _maybe_inplace(input, inplace, fused.Hardswish.apply)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """The dimension an old-style call without ``dim`` meant (deprecated, as in PyTorch)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_input(input: Tensor, name: str, dim, stacklevel: int, dtype):
    if dim is None:
        dim = _get_softmax_dim(name, input.dim(), stacklevel + 1)
    if dtype is not None:
        input = input.to(dtype)
    elif not input.is_floating_point():
        raise RuntimeError(_messages.not_implemented_for(f"{name}_lastdim_kernel_impl", input.dtype))
    return input, wrap_dim(dim, input.dim())


@_arguments.public
def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: _dtype.dtype | None = None) -> Tensor:
    """``y_i = exp(x_i) / sum_j exp(x_j)`` along ``dim``: each slice becomes a probability distribution.

        >>> import minitorch
        >>> minitorch.nn.functional.softmax(minitorch.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel + 1)
    return nn_ops.softmax(input, dim, dtype)


@_arguments.public
def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: _dtype.dtype | None = None) -> Tensor:
    """``softmax(-x)``: the smallest entries get the largest probabilities."""
    input, dim = _softmax_input(input, "softmin", dim, _stacklevel, dtype)
    return nn_ops.Softmax.apply(-input, dim)


@_arguments.public
def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: _dtype.dtype | None = None) -> Tensor:
    """``y_i = x_i - log(sum_j exp(x_j))`` along ``dim``: the log of the softmax, computed without overflow."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel + 1)
    return nn_ops.log_softmax(input, dim, dtype)


@_arguments.public
def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A differentiable sample of a categorical distribution: ``softmax((logits + g) / tau)`` with Gumbel noise.

    ``g = -log(E)``, ``E`` a standard exponential draw, is Gumbel(0, 1) noise: the argmax of ``logits + g``
    is a sample of ``Categorical(logits=logits)`` (the Gumbel-max trick), and the softmax at temperature
    ``tau`` is a smooth stand-in for it. With ``hard=True`` the result is the one-hot sample in the forward
    pass and the soft sample's gradient in the backward pass (``y_hard - y_soft.detach() + y_soft``).
    """
    if not isinstance(logits, Tensor):  # PyTorch's message: its first call on logits is empty_like
        raise TypeError(_messages.must_be_tensor("empty_like", logits))
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -_creation.empty_like(logits).exponential_().log()  # ~Gumbel(0, 1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft  # the reparameterisation trick
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft  # straight through
