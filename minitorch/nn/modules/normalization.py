"""Normalization over the features of each sample: ``LayerNorm``, ``GroupNorm``, ``LocalResponseNorm``.

Unlike batch norm, these use statistics of each sample alone, so they behave the same in
training and eval mode and work with a batch of one.

    >>> import minitorch
    >>> norm = minitorch.nn.LayerNorm(4)
    >>> norm
    LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
    >>> norm(minitorch.randn(2, 4)).shape
    minitorch.Size([2, 4])
"""

from __future__ import annotations

import numbers

from ... import _creation
from ..._tensor import Tensor
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "LocalResponseNorm"]


class LayerNorm(Module):
    """``y = (x - mean) / sqrt(var + eps) * weight + bias`` over the last ``len(normalized_shape)`` dimensions.

    ``weight`` (ones) and ``bias`` (zeros) have shape ``normalized_shape`` and act elementwise;
    ``elementwise_affine=False`` leaves both out, ``bias=False`` only the bias.
    """

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(_creation.empty(self.normalized_shape, **factory_kwargs))
            if bias:
                self.bias = Parameter(_creation.empty(self.normalized_shape, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """``y = x / sqrt(mean(x ** 2) + eps) * weight`` over the last ``len(normalized_shape)`` dimensions
    (``F.rms_norm``); ``weight`` (ones) has shape ``normalized_shape``; ``eps=None`` is the dtype's epsilon."""

    def __init__(self, normalized_shape, eps: float | None = None, elementwise_affine: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(_creation.empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    """Split the ``num_channels`` channels into ``num_groups`` groups and normalise each group of each sample.

    ``num_groups=1`` normalises all channels together (like ``LayerNorm`` over ``(C, H, W)``
    but with per-channel affine parameters); ``num_groups=num_channels`` is instance norm.
    ``weight`` (ones) and ``bias`` (zeros) are per channel.
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.weight = Parameter(_creation.empty(num_channels, **factory_kwargs))
            if bias:
                self.bias = Parameter(_creation.empty(num_channels, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class LocalResponseNorm(Module):
    """Divide each value by a power of the summed squares of its neighbours across channels (AlexNet's norm).

    ``y[:, c] = x[:, c] / (k + alpha / size * sum_{c' near c} x[:, c']^2)^beta``.
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
