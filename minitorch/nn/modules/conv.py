"""Convolution layers: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``.

The math lives in ``minitorch.nn.functional`` (``F.conv2d``...), itself im2col plus one
matrix product (``minitorch/ops/conv.py``). A layer holds the weight, the bias and the
settings, pads the input first when ``padding_mode`` is not ``'zeros'``, and starts its
parameters as PyTorch does: ``kaiming_uniform_(a=sqrt(5))`` for the weight, i.e.
``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` with ``fan_in = in_channels / groups * prod(kernel_size)``,
and the same bound for the bias.

    >>> import minitorch
    >>> layer = minitorch.nn.Conv2d(3, 8, 3, padding=1)
    >>> layer
    Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
    >>> layer(minitorch.ones(2, 3, 5, 5)).shape
    minitorch.Size([2, 8, 5, 5])
"""

from __future__ import annotations

import math

from ... import _creation
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F, init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d", "LazyConv2d",
    "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
]


def _ntuple(value, dims: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * dims


class _ConvNd(Module):
    """What every convolution layer shares: checks, parameters, initialisation and ``repr``."""

    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        dims = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size, stride, dilation = _ntuple(kernel_size, dims), _ntuple(stride, dims), _ntuple(dilation, dims)
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, dims)
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_padding_modes}, but got padding_mode='{padding_mode}'"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.transposed, self.output_padding = transposed, _ntuple(output_padding, dims)
        self.groups, self.padding_mode = groups, padding_mode
        # F.pad's order (last dimension first), for padding modes other than zeros.
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * dims
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(dims - 1, -1, -1)):
                    total = d * (k - 1)
                    self._reversed_padding_repeated_twice[2 * i] = total // 2
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - total // 2
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(padding) for _ in range(2)]
        if transposed:
            weight_shape = (in_channels, out_channels // groups) + kernel_size
        else:
            weight_shape = (out_channels, in_channels // groups) + kernel_size
        self.weight = Parameter(_creation.empty(weight_shape, **factory_kwargs))
        if bias:
            self.bias = Parameter(_creation.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # kaiming_uniform_ with a = sqrt(5) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in)), PyTorch's default.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class _Conv(_ConvNd):
    _functional = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0, groups, bias,
                         padding_mode, device, dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        convolve = type(self)._functional
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return convolve(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return convolve(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution over ``(N, C_in, L)`` (or ``(C_in, L)``); weight ``(C_out, C_in / groups, k)``."""

    _dims = 1
    _functional = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution over ``(N, C_in, H, W)`` (or ``(C_in, H, W)``); weight ``(C_out, C_in / groups, kh, kw)``.

    ``padding`` is an int, a pair, ``'valid'`` or ``'same'``; ``padding_mode`` is
    ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. ``groups = C_in`` makes a
    depthwise convolution (each channel with its own filters).
    """

    _dims = 2
    _functional = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-D convolution over ``(N, C_in, D, H, W)``; weight ``(C_out, C_in / groups, kd, kh, kw)``."""

    _dims = 3
    _functional = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _functional = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, True, output_padding,
                         groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input: Tensor, output_size) -> tuple:
        """The ``output_padding`` that makes the output ``output_size`` (several sizes are possible when stride > 1)."""
        if output_size is None:
            return self.output_padding
        dims = self._dims
        non_spatial = 2 if input.dim() == dims + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != dims:
            raise ValueError(
                f"ConvTranspose{dims}D: for {input.dim()}D input, output_size must have {dims} or "
                f"{non_spatial + dims} elements (got {len(output_size)})"
            )
        min_sizes = [
            (input.shape[d + non_spatial] - 1) * self.stride[d] - 2 * self.padding[d]
            + self.dilation[d] * (self.kernel_size[d] - 1) + 1
            for d in range(dims)
        ]
        max_sizes = [low + s - 1 for low, s in zip(min_sizes, self.stride)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from {min_sizes} to "
                    f"{max_sizes} (for an input of {input.shape[non_spatial:]})"
                )
        return tuple(size - low for size, low in zip(output_size, min_sizes))

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        output_padding = self._output_padding(input, output_size)
        return type(self)._functional(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                      self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """The transpose of ``Conv1d``; weight ``(C_in, C_out / groups, k)``."""

    _dims = 1
    _functional = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """The transpose of ``Conv2d`` (upsampling by ``stride``); weight ``(C_in, C_out / groups, kh, kw)``.

    Output size per dimension: ``(n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``;
    ``forward(input, output_size=...)`` picks ``output_padding`` for you.
    """

    _dims = 2
    _functional = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    _dims = 3
    _functional = staticmethod(F.conv_transpose3d)


# -- lazy convolutions: in_channels read from the first input ----------------------------------------------


class _LazyConvNd(LazyModuleMixin):
    """A convolution whose ``in_channels`` is the first input's channel dimension (dim 1, or 0 unbatched)."""

    def __init__(self, out_channels: int, *settings, bias: bool = True, device=None, dtype=None, **options) -> None:
        # The eager layer with no channels and no bias (either would be replaced at once), then lazy parameters.
        super().__init__(0, 0, *settings, bias=False, device=device, dtype=dtype, **options)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        if not self.has_uninitialized_params():
            return
        with no_grad():
            self.in_channels = self._in_channels_of(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _in_channels_of(self, input: Tensor) -> int:
        unbatched, batched = self._dims + 1, self._dims + 2
        if input.dim() not in (unbatched, batched):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {batched}D (batched) input to {type(self).__name__}, but "
                f"got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == batched else input.shape[0]


class _LazyConv(_LazyConvNd):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias=bias,
                         padding_mode=padding_mode, device=device, dtype=dtype)


class _LazyConvTranspose(_LazyConvNd):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(out_channels, kernel_size, stride, padding, output_padding, groups, bias=bias,
                         dilation=dilation, padding_mode=padding_mode, device=device, dtype=dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """A ``Conv1d`` whose ``in_channels`` comes from the first input; it becomes a ``Conv1d`` then."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` comes from the first input; it becomes a ``Conv2d`` then."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """A ``Conv3d`` whose ``in_channels`` comes from the first input; it becomes a ``Conv3d`` then."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A ``ConvTranspose1d`` whose ``in_channels`` comes from the first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A ``ConvTranspose2d`` whose ``in_channels`` comes from the first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A ``ConvTranspose3d`` whose ``in_channels`` comes from the first input."""

    cls_to_become = ConvTranspose3d
