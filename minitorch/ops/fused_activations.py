"""Activations that PyTorch computes as one kernel, so its graph shows one node (``GeluBackward0``).

Written as several small ops, ``gelu(x)`` would record a multiplication, an ``erf``, an addition...
and ``print(y)`` would show ``grad_fn=<MulBackward0>`` where PyTorch shows ``grad_fn=<GeluBackward0>``.
Each class here is an ``autograd.Function`` like one a learner writes: ``forward`` computes the
activation in Tensor operations (recording is off inside it), ``backward`` multiplies the incoming
gradient by the derivative, also in Tensor operations, so the gradient can be differentiated again.
The name of each node is PyTorch's (``node_name``).

An in-place form (``leaky_relu_``, ``elu_``, ``celu_``) overwrites its input, so PyTorch's backward reads
the derivative off the result instead, under another node name (``LeakyReluBackward1``): ``_FromResult``
below, with each derivative written in terms of ``y``. (``threshold_`` keeps a copy of its input instead.)

Where the derivative has a kink (``hardtanh`` at its bounds, ``threshold`` at the threshold), the
value at the kink is PyTorch's: 0 at ``hardtanh``'s bounds (``clamp`` would give 1 there).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from ..autograd.function import Function
from .pointwise import where
from .shape import cat, chunk

_SQRT_HALF = 1.0 / math.sqrt(2.0)
_INVERSE_SQRT_TWO_PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_TWO_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_CUBIC = 0.044715
# PyTorch's hardsigmoid backward multiplies by the float constant 1.0f / 6.0f, in every dtype.
_ONE_SIXTH_IN_FLOAT = float(np.float32(1.0) / np.float32(6.0))
_REDUCED = (_dtype.bfloat16, _dtype.float16)


class _Activation(Function):
    """``y = f(x, *settings)``; ``dx = grad * f'(x, *settings)``. A subclass gives ``f`` and ``f'``."""

    @classmethod
    def forward(cls, ctx, x, *settings):
        ctx.save_for_backward(x)
        ctx.settings = settings
        if x.dtype in _REDUCED:  # bfloat16, float16: computed in float32 and rounded once, as PyTorch's kernels do
            return cls.function(x.float(), *settings).to(x.dtype)
        return cls.function(x, *settings)

    @classmethod
    def backward(cls, ctx, grad):
        (x,) = ctx.saved_tensors
        return (grad * cls.derivative(x, *ctx.settings),) + (None,) * len(ctx.settings)


class Gelu(_Activation):
    """``y = x Phi(x)``, ``Phi`` the standard normal CDF;  ``dx = grad * (Phi(x) + x phi(x))``, ``phi`` its density.

    ``approximate="tanh"``: ``Phi(x) ~ (1 + tanh(u)) / 2`` with ``u = sqrt(2 / pi) (x + 0.044715 x^3)``;
    then ``dx = grad * ((1 + t) / 2 + x (1 - t^2) / 2 * du/dx)`` with ``t = tanh(u)``.
    """

    node_name = "GeluBackward0"

    @staticmethod
    def function(x, approximate):
        if approximate == "tanh":
            inner = _SQRT_TWO_OVER_PI * (x + _GELU_CUBIC * x * x * x)
            return 0.5 * x * (1.0 + inner.tanh())
        return x * 0.5 * (1.0 + (x * _SQRT_HALF).erf())

    @staticmethod
    def derivative(x, approximate):
        if approximate == "tanh":
            t = (_SQRT_TWO_OVER_PI * (x + _GELU_CUBIC * x * x * x)).tanh()
            inner_slope = _SQRT_TWO_OVER_PI * (1.0 + 3.0 * _GELU_CUBIC * x * x)
            return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * inner_slope
        cdf = 0.5 * (1.0 + (x * _SQRT_HALF).erf())
        density = (-0.5 * x * x).exp() * _INVERSE_SQRT_TWO_PI
        return cdf + x * density


class Silu(_Activation):
    """``y = x sigmoid(x)``;  ``dx = grad * s (1 + x (1 - s))`` with ``s = sigmoid(x)``."""

    node_name = "SiluBackward0"

    @staticmethod
    def function(x):
        return x * x.sigmoid()

    @staticmethod
    def derivative(x):
        s = x.sigmoid()
        return s * (1.0 + x * (1.0 - s))


class Mish(_Activation):
    """``y = x tanh(softplus(x))``;  ``dx = grad * (t + x (1 - t^2) sigmoid(x))`` with ``t = tanh(softplus(x))``."""

    node_name = "MishBackward0"

    @staticmethod
    def function(x):
        return x * Softplus.function(x, 1.0, 20.0).tanh()

    @staticmethod
    def derivative(x):
        t = Softplus.function(x, 1.0, 20.0).tanh()
        return t + x * (1.0 - t * t) * x.sigmoid()


class Softplus(_Activation):
    """``y = log(1 + exp(beta x)) / beta``, and ``y = x`` where ``beta x > threshold``;
    ``dx = grad * sigmoid(beta x)``, and ``dx = grad`` where ``beta x > threshold``."""

    node_name = "SoftplusBackward0"

    @staticmethod
    def function(x, beta, threshold):
        scaled = x * beta
        # The clamp keeps exp finite in the branch that ``where`` discards.
        smooth = scaled.clamp(max=threshold).exp().log1p()
        return where(scaled > threshold, x, smooth / beta if beta != 1 else smooth)

    @staticmethod
    def derivative(x, beta, threshold):
        scaled = x * beta
        return where(scaled > threshold, 1.0, scaled.sigmoid())


class LogSigmoid(_Activation):
    """``y = log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|))`` (exp never overflows);
    ``dx = grad * sigmoid(-x)``."""

    node_name = "LogSigmoidBackward0"

    @staticmethod
    def function(x):
        return x.clamp(max=0) - (-x.abs()).exp().log1p()

    @staticmethod
    def derivative(x):
        return (-x).sigmoid()


class LeakyRelu(_Activation):
    """``y = x`` where ``x > 0``, else ``slope x``;  ``dx = grad`` where ``x > 0``, else ``grad * slope``."""

    node_name = "LeakyReluBackward0"

    @staticmethod
    def function(x, negative_slope):
        return where(x > 0, x, x * negative_slope)

    @staticmethod
    def derivative(x, negative_slope):
        return (x > 0).to(x.dtype) * (1.0 - negative_slope) + negative_slope


class Elu(_Activation):
    """PyTorch's one ELU for ``elu``, ``selu`` and ``celu``, with ``s`` = scale and ``i`` = input scale:
    ``y = s x`` where ``x > 0``, else ``s alpha (exp(i x) - 1)``;
    ``dx = grad * s`` where ``x > 0``, else ``grad * s alpha i exp(i x)``."""

    node_name = "EluBackward0"

    @staticmethod
    def function(x, alpha, scale, input_scale):
        negative = (x.clamp(max=0) * input_scale).expm1() * (alpha * scale)
        return where(x > 0, x * scale if scale != 1 else x, negative)

    @staticmethod
    def derivative(x, alpha, scale, input_scale):
        negative = (x.clamp(max=0) * input_scale).exp() * (alpha * scale * input_scale)
        return where(x > 0, float(scale), negative)


class Celu(Elu):
    """``y = max(0, x) + min(0, alpha (exp(x / alpha) - 1))``: ELU with input scale ``1 / alpha``;
    ``dx = grad`` where ``x > 0``, else ``grad * exp(x / alpha)``."""

    node_name = "CeluBackward0"


class _FromResult(_Activation):
    """The in-place form: ``y`` is saved instead of ``x`` (which is overwritten); ``dx = grad * f'`` written
    in terms of ``y`` (``derivative_from_result``)."""

    @classmethod
    def forward(cls, ctx, x, *settings):
        ctx.settings = settings
        result = cls.function(x, *settings)
        ctx.save_for_backward(result)
        return result

    @classmethod
    def backward(cls, ctx, grad):
        (result,) = ctx.saved_tensors
        return (grad * cls.derivative_from_result(result, *ctx.settings),) + (None,) * len(ctx.settings)


class LeakyReluInPlace(_FromResult, LeakyRelu):
    """``leaky_relu_``: ``dx = grad`` where ``y > 0``, else ``grad * slope`` (``y > 0`` exactly where ``x > 0``)."""

    node_name = "LeakyReluBackward1"

    @staticmethod
    def derivative_from_result(result, negative_slope):
        return LeakyRelu.derivative(result, negative_slope)


class RreluWithNoise(LeakyRelu):
    """``rrelu`` in eval mode: leaky ReLU with slope ``(lower + upper) / 2``, under PyTorch's name for it."""

    node_name = "RreluWithNoiseBackward0"


class RreluWithNoiseInPlace(LeakyReluInPlace):
    """``rrelu_`` in eval mode: ``leaky_relu_`` with slope ``(lower + upper) / 2``."""

    node_name = "RreluWithNoiseBackward1"


class EluInPlace(_FromResult, Elu):
    """``elu_``/``selu_``: ``dx = grad * s`` where ``y > 0``, else ``grad * i (y + s alpha)``
    (since ``y = s alpha (exp(i x) - 1)`` there, ``s alpha i exp(i x) = i (y + s alpha)``)."""

    node_name = "EluBackward1"

    @staticmethod
    def derivative_from_result(result, alpha, scale, input_scale):
        return where(result > 0, float(scale), (result + alpha * scale) * input_scale)


class CeluInPlace(EluInPlace):
    """``celu_``: ``elu_`` with input scale ``1 / alpha``."""

    node_name = "CeluBackward1"


class Glu(Function):
    """Gated linear unit: ``a, b`` = the halves of ``x`` along ``dim``;  ``y = a * sigmoid(b)``;
    ``da = grad * sigmoid(b)``,  ``db = grad * a * sigmoid(b) * (1 - sigmoid(b))``;  ``dx = cat(da, db)``."""

    node_name = "GluBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        ctx.save_for_backward(x)
        ctx.dim = dim
        first_half, second_half = chunk(x, 2, dim)
        return first_half * second_half.sigmoid()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        first_half, second_half = chunk(x, 2, ctx.dim)
        gate = second_half.sigmoid()
        return cat([grad * gate, grad * first_half * gate * (1 - gate)], ctx.dim), None


class PreluKernel(Function):
    """``y = x`` where ``x > 0``, else ``a x``, with the slopes ``a`` broadcast against ``x``;
    ``dx = grad`` where ``x > 0``, else ``grad * a``;  ``da = grad * x`` where ``x <= 0``, else 0 (summed back to
    ``a``'s shape by the engine, as every broadcast gradient is)."""

    node_name = "PreluKernelBackward0"

    @staticmethod
    def forward(ctx, x, slopes):
        ctx.save_for_backward(x, slopes)
        return where(x > 0, x, slopes * x)

    @staticmethod
    def backward(ctx, grad):
        x, slopes = ctx.saved_tensors
        positive = x > 0
        grad_x = where(positive, grad, grad * slopes) if ctx.needs_input_grad[0] else None
        grad_slopes = where(positive, 0.0, grad * x) if ctx.needs_input_grad[1] else None
        return grad_x, grad_slopes


class Hardtanh(_Activation):
    """``y = clamp(x, low, high)``;  ``dx = grad`` strictly between the bounds, else 0 (0 at the bounds)."""

    node_name = "HardtanhBackward0"

    @staticmethod
    def function(x, low, high):
        return x.clamp(low, high)

    @staticmethod
    def derivative(x, low, high):
        return ((x > low) & (x < high)).to(x.dtype)


class Hardsigmoid(_Activation):
    """``y = clamp(x / 6 + 1/2, 0, 1)``;  ``dx = grad / 6`` where ``-3 < x < 3``, else 0."""

    node_name = "HardsigmoidBackward0"

    @staticmethod
    def function(x):
        return (x / 6 + 0.5).clamp(0.0, 1.0)

    @staticmethod
    def derivative(x):
        return ((x > -3) & (x < 3)).to(x.dtype) * _ONE_SIXTH_IN_FLOAT


class Hardswish(_Activation):
    """``y = x clamp(x / 6 + 1/2, 0, 1)``;  ``dx = 0`` where ``x <= -3``, ``grad (x / 3 + 1/2)`` where
    ``x < 3``, else ``grad`` (PyTorch's values at the two kinks)."""

    node_name = "HardswishBackward0"

    @staticmethod
    def function(x):
        return x * (x / 6 + 0.5).clamp(0.0, 1.0)

    @staticmethod
    def derivative(x):
        return where(x <= -3, 0.0, where(x < 3, x / 3 + 0.5, 1.0))


class Threshold(_Activation):
    """``y = x`` where ``x > threshold``, else ``value``;  ``dx = grad`` where ``x > threshold``, else 0."""

    node_name = "ThresholdBackward0"

    @staticmethod
    def function(x, threshold, value):
        return where(x > threshold, x, value)

    @staticmethod
    def derivative(x, threshold, value):
        return (x > threshold).to(x.dtype)


class ThresholdInPlace(Threshold):
    """``threshold_``: the same derivative, read off a copy of the input PyTorch keeps (``y`` cannot tell
    ``value`` from an input above the threshold), under PyTorch's name for the in-place node."""

    node_name = "ThresholdBackward1"


class Softshrink(_Activation):
    """``y = x - l`` where ``x > l``, ``x + l`` where ``x < -l``, else 0;  ``dx = grad`` where ``|x| > l``, else 0."""

    node_name = "SoftshrinkBackward0"

    @staticmethod
    def function(x, lambd):
        return where(x > lambd, x - lambd, where(x < -lambd, x + lambd, 0.0))

    @staticmethod
    def derivative(x, lambd):
        return (x.abs() > lambd).to(x.dtype)


class Hardshrink(_Activation):
    """``y = x`` where ``|x| > l``, else 0;  ``dx = grad`` where ``|x| > l``, else 0."""

    node_name = "HardshrinkBackward0"

    @staticmethod
    def function(x, lambd):
        return where(x.abs() > lambd, x, 0.0)

    @staticmethod
    def derivative(x, lambd):
        return (x.abs() > lambd).to(x.dtype)
