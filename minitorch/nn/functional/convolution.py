"""Convolution functions: ``conv1d``... ``conv_transpose3d``, ``unfold`` and ``fold``.

Convolution is im2col on strided windows (``ops/conv.py``): the windows of the input become the rows of
one matrix, and the convolution is a matrix product with the weight; ``unfold`` and ``fold`` are that
im2col and its inverse col2im on their own.
"""

from __future__ import annotations

import math

from ... import _arguments, _autocast_state, _messages
from ..._tensor import Tensor
from ...ops import conv as _conv_ops
from ._utils import _batched, _expand_to_tuple, _unbatched

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold",
]


def _check_dtypes(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    if _autocast_state.casts_inputs():
        return  # autocast casts them to one dtype first
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(_messages.expected_scalar_type(input.dtype, weight.dtype))
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"Input type ({input.dtype.cpp_name}) and bias type ({bias.dtype.cpp_name}) should be the same"
        )


def _conv_padding(padding, kernel_size: tuple, stride: tuple, dilation: tuple, dims: int) -> tuple:
    """``(before, after)`` per dimension; ``'same'`` pads ``dilation * (k - 1)`` in all, the odd one after."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * dims
        if padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            totals = [d * (k - 1) for k, d in zip(kernel_size, dilation)]
            return tuple((total // 2, total - total // 2) for total in totals)
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    padding = _expand_to_tuple(padding, dims, "padding")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in padding)


def _size_text(sizes) -> str:
    return " x ".join(str(s) for s in sizes)


def _convolution(input, weight, bias, stride, padding, dilation, groups, dims: int, name: str) -> Tensor:
    """The ``Convolution`` op (im2col and one matrix product, ``ops/conv.py``), after PyTorch's checks."""
    input, was_unbatched = _batched(input, dims, name)
    stride, dilation, pairs = _check_convolution(input, weight, bias, stride, padding, dilation, groups, dims)
    kernel_size = tuple(weight.shape[2:])
    geometry = _conv_ops.make_geometry(list(input.shape)[2:], kernel_size, stride, pairs, dilation, groups)
    return _unbatched(_conv_ops.Convolution.apply(input, weight, bias, geometry), was_unbatched)


def _check_convolution(input, weight, bias, stride, padding, dilation, groups, dims: int) -> tuple:
    """PyTorch's errors for a convolution's arguments; returns ``stride``, ``dilation`` and the padding as
    ``(before, after)`` pairs, one per spatial dimension."""
    if weight.dim() != dims + 2:
        stride = _expand_to_tuple(stride, weight.dim() - 2, "stride")
    stride = _expand_to_tuple(stride, dims, "stride")
    dilation = _expand_to_tuple(dilation, dims, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    weight_shape, input_shape = list(weight.shape), list(input.shape)
    if weight_shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of "
            f"size [{weight_shape}] instead"
        )
    if input_shape[1] != weight_shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {weight_shape}, expected input{input_shape} to have "
            f"{weight_shape[1] * groups} channels, but got {input_shape[1]} channels instead"
        )
    kernel_size = tuple(weight_shape[2:])
    pairs = _conv_padding(padding, kernel_size, stride, dilation, dims)
    padded = [n + before + after for n, (before, after) in zip(input_shape[2:], pairs)]
    dilated_kernel = [d * (k - 1) + 1 for k, d in zip(kernel_size, dilation)]
    if any(k > n for k, n in zip(dilated_kernel, padded)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({_size_text(padded)}). Kernel size: "
            f"({_size_text(dilated_kernel)}). Kernel size can't be greater than actual input size"
        )
    if bias is not None and tuple(bias.shape) != (weight_shape[0],):
        raise RuntimeError(
            f"Given weight of size {weight_shape}, expected bias to be 1-dimensional with {weight_shape[0]} elements, "
            f"but got bias of size {list(bias.shape)} instead"
        )
    _check_dtypes(input, weight, bias)
    return stride, dilation, pairs


@_arguments.public
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """1-D convolution (cross-correlation, as in PyTorch) of ``(N, C, L)`` with a ``(O, C / groups, k)`` weight."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@_arguments.public
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """2-D convolution: ``y[n, o] = b[o] + sum over c, i, j of w[o, c, i, j] * x[n, c, y*s + i*d, x*s + j*d]``.

    ``input`` is ``(N, C, H, W)`` (or unbatched ``(C, H, W)``), ``weight`` is
    ``(O, C / groups, kh, kw)``; ``padding`` is an int, a pair, ``'valid'`` or ``'same'``.
    Computed as im2col plus one matrix product (``minitorch/ops/conv.py``).

        >>> import minitorch
        >>> x = minitorch.ones(1, 1, 4, 4)
        >>> minitorch.nn.functional.conv2d(x, minitorch.ones(1, 1, 3, 3)).tolist()
        [[[[9.0, 9.0], [9.0, 9.0]]]]
    """
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@_arguments.public
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """3-D convolution of ``(N, C, D, H, W)`` with a ``(O, C / groups, kd, kh, kw)`` weight."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _convolution_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, dims: int,
                           name: str) -> Tensor:
    """The ``ConvolutionTranspose`` op (the gradient of a convolution, ``ops/conv.py``), after PyTorch's checks.

    Its output is the input of the convolution it transposes, so per spatial dimension its size is
    ``(n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.
    """
    input, was_unbatched = _batched(input, dims, name)
    stride, padding, dilation, output_size = _check_convolution_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, dims
    )
    kernel_size = tuple(weight.shape[2:])
    geometry = _conv_ops.ConvGeometry(kernel_size, stride, tuple((p, p) for p in padding), dilation, groups,
                                      output_size, tuple(input.shape[2:]))
    return _unbatched(_conv_ops.ConvolutionTranspose.apply(input, weight, bias, geometry), was_unbatched)


def _check_convolution_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                                 dims: int) -> tuple:
    """PyTorch's errors for a transposed convolution's arguments; returns ``stride``, ``padding``,
    ``dilation`` (one per spatial dimension) and the output's spatial size."""
    stride = _expand_to_tuple(stride, dims, "stride")
    padding = _expand_to_tuple(padding, dims, "padding")
    output_padding = _expand_to_tuple(output_padding, dims, "output_padding")
    dilation = _expand_to_tuple(dilation, dims, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    weight_shape, input_shape = list(weight.shape), list(input.shape)
    if weight_shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of "
            f"size [{weight_shape}] instead"
        )
    if input_shape[1] != weight_shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {weight_shape}, expected input{input_shape} to have "
            f"{weight_shape[0]} channels, but got {input_shape[1]} channels instead"
        )
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        axes = ("height", "width") if dims == 2 else ("depth", "height", "width")[3 - dims:]
        parts = [f"output_padding_{a}: {op}" for a, op in zip(axes, output_padding)]
        parts += [f"stride_{a}: {s}" for a, s in zip(axes, stride)]
        parts += [f"dilation_{a}: {d}" for a, d in zip(axes, dilation)]
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {' '.join(parts)}")
    kernel_size = tuple(weight_shape[2:])
    output_size = tuple(
        (n - 1) * s - 2 * p + d * (k - 1) + op + 1
        for n, s, p, d, k, op in zip(input_shape[2:], stride, padding, dilation, kernel_size, output_padding)
    )
    if any(n <= 0 for n in output_size):
        raise RuntimeError(
            f"Given input size per channel: ({_size_text(input_shape[2:])}). Calculated output size per channel: "
            f"({_size_text(output_size)}). Output size is too small"
        )
    out_channels = weight_shape[1] * groups
    if bias is not None and tuple(bias.shape) != (out_channels,):
        raise RuntimeError(
            f"Given transposed=1, weight of size {weight_shape}, expected bias to be 1-dimensional with "
            f"{out_channels} elements, but got bias of size {list(bias.shape)} instead"
        )
    _check_dtypes(input, weight, bias)
    return stride, padding, dilation, output_size


@_arguments.public
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The transpose (adjoint) of ``conv1d``; ``weight`` is ``(C_in, C_out / groups, k)``."""
    return _convolution_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                                  "conv_transpose1d")


@_arguments.public
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The transpose of ``conv2d`` (sometimes called deconvolution): each input pixel adds a weighted kernel.

    ``weight`` is ``(C_in, C_out / groups, kh, kw)``; the output size is
    ``(n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``. It is
    exactly the gradient of ``conv2d`` with respect to its input (col2im).

        >>> import minitorch
        >>> x = minitorch.ones(1, 1, 2, 2)
        >>> minitorch.nn.functional.conv_transpose2d(x, minitorch.ones(1, 1, 2, 2)).tolist()
        [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    """
    return _convolution_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                                  "conv_transpose2d")


@_arguments.public
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The transpose of ``conv3d``; ``weight`` is ``(C_in, C_out / groups, kd, kh, kw)``."""
    return _convolution_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                                  "conv_transpose3d")


@_arguments.public
def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Every sliding window of ``(N, C, H, W)`` as a column: ``(N, C * kh * kw, L)``, ``L`` windows.

        >>> import minitorch
        >>> minitorch.nn.functional.unfold(minitorch.ones(1, 2, 3, 3), 2).shape
        minitorch.Size([1, 8, 4])
    """
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    input, was_unbatched = _batched(input, 2, "unfold")
    kernel_size, dilation = _expand_to_tuple(kernel_size, 2, "kernel_size"), _expand_to_tuple(dilation, 2, "dilation")
    padding, stride = _expand_to_tuple(padding, 2, "padding"), _expand_to_tuple(stride, 2, "stride")
    geometry = _conv_ops.make_geometry(input.shape[2:], kernel_size, stride, [(p, p) for p in padding], dilation)
    if any(o <= 0 for o in geometry.output_size):
        raise RuntimeError(
            f"Given input with spatial size ({', '.join(map(str, input.shape[2:]))}), kernel_size={kernel_size}, "
            f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding blocks as "
            f"({', '.join(map(str, geometry.output_size))}), but its components must be at least one."
        )
    return _unbatched(_conv_ops.Unfold.apply(input, geometry), was_unbatched)


@_arguments.public
def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """The adjoint of ``unfold``: add each column ``(C * kh * kw)`` back into its window of a ``(N, C, H, W)`` image.

    Where windows overlap the values add up, so ``fold(unfold(x))`` multiplies each pixel
    by the number of windows that cover it.
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions "
            f"for input, but got: {list(input.shape)}"
        )
    input, was_unbatched = (input.unsqueeze(0), True) if input.dim() == 2 else (input, False)
    output_size = _expand_to_tuple(output_size, 2, "output_size")
    kernel_size, dilation = _expand_to_tuple(kernel_size, 2, "kernel_size"), _expand_to_tuple(dilation, 2, "dilation")
    padding, stride = _expand_to_tuple(padding, 2, "padding"), _expand_to_tuple(stride, 2, "stride")
    kernel_numel = math.prod(kernel_size)
    if input.shape[1] % kernel_numel:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={input.shape[1]} and kernel_size={kernel_size}."
        )
    geometry = _conv_ops.make_geometry(output_size, kernel_size, stride, [(p, p) for p in padding], dilation)
    blocks = math.prod(geometry.output_size)
    if input.shape[2] != blocks:
        counts = " * ".join(str(o) for o in geometry.output_size)
        raise RuntimeError(
            f"Given output_size={output_size}, kernel_size={kernel_size}, dilation={dilation}, padding={padding}, "
            f"stride={stride}, expected size of input's dimension 2 to match the calculated number of sliding blocks "
            f"{counts} = {blocks}, but got input.size(2)={input.shape[2]}."
        )
    return _unbatched(_conv_ops.Fold.apply(input, geometry), was_unbatched)
