"""``minitorch.nn.functional``: the layers as plain functions (``import minitorch.nn.functional as F``).

Each layer's math lives here once; the ``nn.Module`` classes hold the parameters and
settings and call these functions in ``forward``.

Most activations are written with ordinary tensor operations, so autograd derives their
backward by itself. Two habits keep them numerically safe:

* a branch that ``where`` does *not* select still gets a gradient of zero, and zero times
  infinity is NaN; so the argument of ``exp`` in an unselected branch is clamped first
  (``exp(min(x, 0))`` in ELU) to keep it finite;
* softmax and log-softmax subtract the maximum before ``exp`` (in ``ops/nn_ops.py``).

    >>> import minitorch
    >>> import minitorch.nn.functional as F
    >>> F.relu(minitorch.tensor([-1.0, 2.0]))
    tensor([0., 2.])
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _arguments, _dtype
from .._random import numpy_generator
from .._shapes import expand_mismatch, wrap_dim
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled as _grad_enabled, no_grad as _no_grad
from ..ops import inplace as _inplace_ops, nn_ops, pointwise

_SCALAR_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
                 "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _maybe_inplace(input: Tensor, inplace: bool, compute) -> Tensor:
    """``compute(input)``, written back into ``input`` when ``inplace`` (recorded like any in-place op)."""
    if inplace:
        return _inplace_ops._inplace(input, compute)
    return compute(input)


def _where(condition: Tensor, selected, otherwise) -> Tensor:
    return pointwise.where(condition, selected, otherwise)


# -- linear layers ---------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y = input @ weight^T + bias``; ``weight`` is ``(out_features, in_features)``.

        >>> import minitorch
        >>> x = minitorch.ones(2, 3)
        >>> minitorch.nn.functional.linear(x, minitorch.ones(4, 3)).shape
        minitorch.Size([2, 4])
    """
    input_shape, weight_shape = input._data.shape, weight._data.shape
    if not input_shape or not weight_shape:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {len(input_shape)}D and "
            f"{len(weight_shape)}D"
        )
    if len(weight_shape) == 1 and bias is None:  # a vector of weights: the output loses its last dimension
        return input.matmul(weight)
    if len(weight_shape) != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {len(weight_shape)}-D tensor")
    in_features = input_shape[-1]
    out_features, weight_in_features = weight_shape
    if in_features != weight_in_features:
        rows = math.prod(input_shape[:-1])
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{in_features} and {weight_in_features}x{out_features})"
        )
    if input._data.dtype != weight._data.dtype or (bias is not None and bias._data.dtype != input._data.dtype):
        other = weight if input._data.dtype != weight._data.dtype else bias
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_SCALAR_NAMES[input.dtype.name]} != "
            f"{_SCALAR_NAMES[other.dtype.name]}"
        )
    if bias is None:
        return nn_ops.LinearNoBias.apply(input, weight)
    if bias._data.shape != (out_features,):
        _check_expandable(bias._data.shape, input_shape[:-1] + (out_features,))
    return nn_ops.Linear.apply(bias, input, weight)  # PyTorch's addmm order: bias first


def _check_expandable(shape, target) -> None:
    """PyTorch's error when ``shape`` cannot be broadcast (expanded) to ``target``."""
    if len(shape) > len(target):
        raise RuntimeError(
            f"The expanded size of the tensor ({len(target)}) must be greater or equal to the number of dimensions in "
            f"the tensor ({len(shape)})"
        )
    mismatch = expand_mismatch(shape, target)
    if mismatch is not None:
        raise RuntimeError(mismatch)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y_k = input1^T W_k input2 + b_k`` for each output ``k``; ``weight`` is ``(out, in1, in2)``.

    Computed as one matrix product: ``input1 @ W`` (with ``W`` laid out as ``in1 x (out * in2)``)
    gives ``input1^T W_k`` for every ``k`` at once; multiplying by ``input2`` and summing
    over ``in2`` finishes each bilinear form.
    """
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for axis in range(input1.dim() - 1):
        if input1.shape[axis] != input2.shape[axis]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {axis}: got {input1.shape[axis]} and "
                f"{input2.shape[axis]}"
            )
    out_features, in1_features, in2_features = weight.shape
    if input1.shape[-1] != in1_features:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected {in1_features}"
        )
    if input2.shape[-1] != in2_features:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected {in2_features}"
        )
    if bias is not None and bias.numel() != out_features:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but expected {out_features}"
        )
    batch_shape = tuple(input1.shape[:-1])
    left = input1.reshape(-1, in1_features)
    right = input2.reshape(-1, in2_features)
    weight_matrix = weight.permute(1, 0, 2).reshape(in1_features, out_features * in2_features)
    left_times_weight = left.matmul(weight_matrix).reshape(-1, out_features, in2_features)
    output = (left_times_weight * right.unsqueeze(1)).sum(-1)
    if bias is not None:
        output = output + bias
    return output.reshape(batch_shape + (out_features,))


# -- activations ---------------------------------------------------------------------------------
def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``y = x if x > threshold else value``."""
    return _maybe_inplace(input, inplace, lambda x: _where(x > threshold, x, value))


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = max(x, 0)``."""
    return input.relu_() if inplace else input.relu()


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``y = clamp(x, min_val, max_val)``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return input.clamp_(min_val, max_val) if inplace else input.clamp(min_val, max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = min(max(x, 0), 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``y = x if x > 0 else alpha * (exp(x) - 1)``."""

    def compute(x):
        return _where(x > 0, x, alpha * x.clamp(max=0).expm1())

    return _maybe_inplace(input, inplace, compute)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = scale * elu(x, alpha)`` with the self-normalising constants (alpha ~ 1.6733, scale ~ 1.0507)."""

    def compute(x):
        return _SELU_SCALE * _where(x > 0, x, _SELU_ALPHA * x.clamp(max=0).expm1())

    return _maybe_inplace(input, inplace, compute)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``y = x if x > 0 else alpha * (exp(x / alpha) - 1)``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")

    def compute(x):
        return _where(x > 0, x, alpha * (x.clamp(max=0) / alpha).expm1())

    return _maybe_inplace(input, inplace, compute)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``y = x if x > 0 else negative_slope * x``."""
    return _maybe_inplace(input, inplace, lambda x: _where(x > 0, x, x * negative_slope))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``y = x if x > 0 else a * x`` with a learned slope ``a`` per channel (dimension 1), or one shared slope."""
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {channels}."
        )
    if weight.numel() == 1:
        slope = weight.reshape(())
    else:  # (C,) -> (C, 1, 1, ...) so it lines up with dimension 1 of the input
        slope = weight.reshape((channels,) + (1,) * (input.dim() - 2))
    return _where(input > 0, input, slope * input)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False, generator=None) -> Tensor:
    """Leaky ReLU with a random slope ``~ U(lower, upper)`` per element in training, ``(lower + upper) / 2`` in eval."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    # Random numbers are drawn on the host (as everywhere in minitorch), then moved to the input's device.
    drawn = numpy_generator(generator).uniform(lower, upper, size=input.shape).astype(input._data.dtype)
    slopes = Tensor._make(drawn).to(input.device)
    return _maybe_inplace(input, inplace, lambda x: _where(x >= 0, x, x * slopes))


# The in-place activations as functions of their own (PyTorch's names): ``F.relu_(x)`` is ``F.relu(x, inplace=True)``.
def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return globals()["threshold"](input, threshold, value, inplace=True)


def relu_(input: Tensor) -> Tensor:
    return relu(input, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator=None) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True, generator=generator)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: split ``input`` in halves ``a, b`` along ``dim``; ``y = a * sigmoid(b)``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = wrap_dim(dim, input.dim())
    if input.shape[axis] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {input.shape[axis]}")
    first_half, second_half = input.chunk(2, axis)
    return first_half * second_half.sigmoid()


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``y = x * Phi(x)`` with ``Phi`` the standard normal CDF: ``0.5 * (1 + erf(x / sqrt(2)))``.

    ``approximate="tanh"`` uses ``0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))`` for ``Phi``.
    """
    if approximate == "none":
        return input * 0.5 * (1.0 + (input * (1.0 / math.sqrt(2.0))).erf())
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (input + 0.044715 * input * input * input)
        return 0.5 * input * (1.0 + inner.tanh())
    raise RuntimeError("approximate argument must be either none or tanh.")


def logsigmoid(input: Tensor) -> Tensor:
    """``y = log(sigmoid(x)) = -softplus(-x)`` (never ``log`` of a tiny number)."""
    return -softplus(-input)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``y = x if |x| > lambd else 0``."""
    return _where(input.abs() > lambd, input, 0.0)


def tanhshrink(input: Tensor) -> Tensor:
    """``y = x - tanh(x)``."""
    return input - input.tanh()


def softsign(input: Tensor) -> Tensor:
    """``y = x / (1 + |x|)``."""
    return input / (1 + input.abs())


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``y = log(1 + exp(beta * x)) / beta``, and ``y = x`` where ``beta * x > threshold`` (there they agree)."""
    scaled = input * beta
    # The clamp keeps exp finite in the branch that ``where`` discards (see the module docstring).
    smooth = scaled.clamp(max=threshold).exp().log1p()
    return _where(scaled > threshold, input, smooth / beta if beta != 1 else smooth)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``y = x - lambd if x > lambd, x + lambd if x < -lambd, else 0``."""
    if lambd < 0:
        largest = float(np.finfo(input._data.dtype).max) if input.is_floating_point() else float("inf")
        raise RuntimeError(
            f"lambda must be in range [0, {largest:g}] for input dtype {_scalar_name(input)}, but found {lambd:g}"
        )
    return _where(input > lambd, input - lambd, _where(input < -lambd, input + lambd, 0.0))


def _scalar_name(tensor: Tensor) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half"}.get(tensor.dtype.name, tensor.dtype.name)


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = clamp(x / 6 + 1/2, 0, 1)``: a piecewise-linear sigmoid."""
    return _maybe_inplace(input, inplace, lambda x: (x / 6 + 0.5).clamp(0.0, 1.0))


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = x * sigmoid(x)`` (also called swish)."""
    return _maybe_inplace(input, inplace, lambda x: x * x.sigmoid())


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = x * tanh(softplus(x))``."""
    return _maybe_inplace(input, inplace, lambda x: x * softplus(x).tanh())


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``y = x * hardsigmoid(x)``: 0 below -3, ``x`` above 3, ``x (x + 3) / 6`` between."""
    return _maybe_inplace(input, inplace, lambda x: x * (x / 6 + 0.5).clamp(0.0, 1.0))


# -- softmax family ---------------------------------------------------------------------------------
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
        raise RuntimeError(f'"{name}_lastdim_kernel_impl" not implemented for \'{_integer_name(input)}\'')
    return input, wrap_dim(dim, input.dim())


def _integer_name(tensor: Tensor) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}.get(
        tensor.dtype.name, tensor.dtype.name
    )


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: _dtype.dtype | None = None) -> Tensor:
    """``y_i = exp(x_i) / sum_j exp(x_j)`` along ``dim``: each slice becomes a probability distribution.

        >>> import minitorch
        >>> minitorch.nn.functional.softmax(minitorch.tensor([0.0, 0.0]), dim=0)
        tensor([0.5000, 0.5000])
    """
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel + 1)
    return nn_ops.softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: _dtype.dtype | None = None) -> Tensor:
    """``softmax(-x)``: the smallest entries get the largest probabilities."""
    input, dim = _softmax_input(input, "softmin", dim, _stacklevel, dtype)
    return nn_ops.Softmax.apply(-input, dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: _dtype.dtype | None = None) -> Tensor:
    """``y_i = x_i - log(sum_j exp(x_j))`` along ``dim``: the log of the softmax, computed without overflow."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel + 1)
    return nn_ops.log_softmax(input, dim, dtype)



# == convolution, pooling, padding, upsampling, fold, pixel/channel shuffle (conv helper's section) ==
# Convolution and pooling are im2col on strided windows (``ops/conv.py``, ``ops/pooling.py``);
# padding, interpolation and the shuffles are made of ordinary tensor ops (index gathers,
# matrix products, reshapes), so autograd derives their backward.
from .._creation import tensor as _make_tensor  # noqa: E402
from ..ops import conv as _conv_ops, indexing as _indexing_ops, pooling as _pooling_ops  # noqa: E402

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half"}


def _expand_to_tuple(value, dims: int, name: str) -> tuple:
    """``3`` -> ``(3, 3)`` for 2 spatial dimensions; a sequence must already have ``dims`` entries."""
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return (int(value[0]),) * dims
        if len(value) != dims:
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {dims} values to match the convolution "
                f"dimensions, but got {name}={list(value)}"
            )
        return tuple(int(v) for v in value)
    return (int(value),) * dims


def _batched(input: Tensor, dims: int, name: str, *, non_empty_message: bool = False) -> tuple:
    """``(input with a batch dimension, whether one was added)``; PyTorch's error for a wrong rank."""
    if input.dim() == dims + 1:
        return input.unsqueeze(0), True
    if input.dim() == dims + 2:
        return input, False
    if non_empty_message:
        raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected for input")
    raise RuntimeError(
        f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}, but got input of size: "
        f"{list(input.shape)}"
    )


def _unbatched(output, was_unbatched: bool):
    if isinstance(output, tuple):
        return tuple(_unbatched(o, was_unbatched) for o in output)
    return output.squeeze(0) if was_unbatched else output


def _check_dtypes(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"expected scalar type {_TYPE_NAMES.get(input.dtype.name, input.dtype.name)} but found "
            f"{_TYPE_NAMES.get(weight.dtype.name, weight.dtype.name)}"
        )
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"Input type ({_SCALAR_NAMES[input.dtype.name]}) and bias type ({_SCALAR_NAMES[bias.dtype.name]}) should "
            "be the same"
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
    """Check the arguments with PyTorch's messages, then run the ``Convolution`` op."""
    input, was_unbatched = _batched(input, dims, name)
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
    geometry = _conv_ops.make_geometry(input_shape[2:], kernel_size, stride, pairs, dilation, groups)
    return _unbatched(_conv_ops.Convolution.apply(input, weight, bias, geometry), was_unbatched)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """1-D convolution (cross-correlation, as in PyTorch) of ``(N, C, L)`` with a ``(O, C / groups, k)`` weight."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


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


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """3-D convolution of ``(N, C, D, H, W)`` with a ``(O, C / groups, kd, kh, kw)`` weight."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _convolution_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, dims: int,
                           name: str) -> Tensor:
    input, was_unbatched = _batched(input, dims, name)
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
    # The transposed convolution's output is the input of the convolution it transposes.
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
    geometry = _conv_ops.ConvGeometry(kernel_size, stride, tuple((p, p) for p in padding), dilation, groups,
                                      output_size, tuple(input_shape[2:]))
    return _unbatched(_conv_ops.ConvolutionTranspose.apply(input, weight, bias, geometry), was_unbatched)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The transpose (adjoint) of ``conv1d``; ``weight`` is ``(C_in, C_out / groups, k)``."""
    return _convolution_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                                  "conv_transpose1d")


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


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The transpose of ``conv3d``; ``weight`` is ``(C_in, C_out / groups, kd, kh, kw)``."""
    return _convolution_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                                  "conv_transpose3d")


# -- unfold / fold (im2col and col2im on their own) --------------------------------------------------
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


# -- pooling -------------------------------------------------------------------------------------------
def _pool_output_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output size; in ceil mode the last window must start inside the input or left padding."""
    span = n + 2 * p - d * (k - 1) - 1
    size = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (size - 1) * s >= n + p:
        size -= 1
    return size


def _pool_geometry(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool, dims: int):
    kernel_size = _expand_to_tuple(kernel_size, dims, "kernel_size")
    stride = kernel_size if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        _expand_to_tuple(stride, dims, "stride")
    padding, dilation = _expand_to_tuple(padding, dims, "padding"), _expand_to_tuple(dilation, dims, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    for p, k, d in zip(padding, kernel_size, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and "
                f"dilation={d}"
            )
    spatial = tuple(input.shape[2:])
    sizes = tuple(_pool_output_size(*args, ceil_mode) for args in zip(spatial, kernel_size, stride, padding, dilation))
    if any(o <= 0 for o in sizes):
        raise RuntimeError(
            f"Given input size: ({'x'.join(map(str, input.shape[1:]))}). Calculated output size: "
            f"({'x'.join(map(str, (input.shape[1],) + sizes))}). Output size is too small"
        )
    # Pad after by whatever the last window needs (ceil mode can reach past the usual padding).
    pairs = tuple(
        (p, max(0, (o - 1) * s + d * (k - 1) + 1 - n - p))
        for n, k, s, p, d, o in zip(spatial, kernel_size, stride, padding, dilation, sizes)
    )
    return _conv_ops.ConvGeometry(kernel_size, stride, pairs, dilation, 1, spatial, sizes)


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, dims):
    input, was_unbatched = _batched(input, dims, "max_pool", non_empty_message=True)
    geometry = _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode, dims)
    values, indices = _pooling_ops.MaxPool.apply(input, geometry)
    return _unbatched((values, indices) if return_indices else values, was_unbatched)


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The largest value of each window of ``(N, C, L)``; ``indices`` (if asked) are positions in ``L``."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The largest value of each ``kernel_size`` window (stride defaults to the kernel size).

    Padding counts as ``-inf``. With ``return_indices`` it also gives, for every output,
    the flat index ``row * W + column`` of the winner in its input plane (what
    ``max_unpool2d`` takes).

        >>> import minitorch
        >>> x = minitorch.arange(16.0).reshape(1, 1, 4, 4)
        >>> minitorch.nn.functional.max_pool2d(x, 2).tolist()
        [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 1)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 2)


def _pool_divisor(geometry, padding, count_include_pad: bool) -> np.ndarray:
    """How many elements each average divides by: the window clipped to the padded input, or to the input."""
    counts = []
    for n, k, s, p, o in zip(geometry.input_size, geometry.kernel_size, geometry.stride, padding,
                             geometry.output_size):
        starts = np.arange(o) * s - p
        ends = np.minimum(starts + k, n + p)
        if count_include_pad:
            counts.append(ends - starts)
        else:
            counts.append(np.minimum(ends, n) - np.maximum(starts, 0))
    divisor = counts[0]
    for count in counts[1:]:
        divisor = np.multiply.outer(divisor, count)
    return divisor


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dims):
    input, was_unbatched = _batched(input, dims, "avg_pool", non_empty_message=True)
    geometry = _pool_geometry(input, kernel_size, stride, padding, 1, ceil_mode, dims)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    batch, channels = input.shape[:2]
    # Unfold (zero-padded windows as columns) then sum each window: its backward is fold (col2im).
    columns = _conv_ops.Unfold.apply(input, geometry)
    sums = columns.reshape(batch, channels, -1, columns.shape[-1]).sum(2).reshape(
        (batch, channels) + geometry.output_size)
    if divisor_override is not None:
        return _unbatched(sums / divisor_override, was_unbatched)
    divisor = _pool_divisor(geometry, [before for before, _ in geometry.padding], count_include_pad)
    divisor_tensor = _make_tensor(divisor.astype(input._data.dtype), device=input.device)
    return _unbatched(sums / divisor_tensor, was_unbatched)


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window of ``(N, C, L)``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window; zero padding counts in the mean unless ``count_include_pad=False``.

        >>> import minitorch
        >>> x = minitorch.arange(16.0).reshape(1, 1, 4, 4)
        >>> minitorch.nn.functional.avg_pool2d(x, 2).tolist()
        [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


def _adaptive_output_size(input: Tensor, output_size, dims: int) -> tuple:
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * dims
    if len(sizes) != dims:
        raise RuntimeError(f"adaptive pooling: output_size must be {dims}, but got {len(sizes)}")
    return tuple(n if o is None else int(o) for n, o in zip(input.shape[-dims:], sizes))


def _adaptive_input(input: Tensor, dims: int, name: str) -> tuple:
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got {list(input.shape)}")
    return (input.unsqueeze(0), True) if input.dim() == dims + 1 else (input, False)


def _averaging_matrix(n: int, o: int, dtype, device) -> Tensor:
    """``(o, n)`` matrix whose row ``i`` averages window ``[floor(i n / o), ceil((i + 1) n / o))``."""
    rows = np.arange(o)
    starts, ends = (rows * n) // o, -((-(rows + 1) * n) // o)
    columns = np.arange(n)
    inside = (columns[None, :] >= starts[:, None]) & (columns[None, :] < ends[:, None])
    return _make_tensor((inside / (ends - starts)[:, None]).astype(dtype), device=device)


def _adaptive_avg_pool(input, output_size, dims: int, name: str) -> Tensor:
    input, was_unbatched = _adaptive_input(input, dims, name)
    sizes = _adaptive_output_size(input, output_size, dims)
    # Averaging windows along one dimension is a matrix product, so pooling is one product per dimension:
    # in 2-D, y = A_h @ x @ A_w^T. Autograd gives the backward (the transposed matrices).
    output = input
    for axis, o in zip(range(2, 2 + dims), sizes):
        matrix = _averaging_matrix(input.shape[axis], o, input._data.dtype, input.device)
        output = output.transpose(axis, -1).matmul(matrix.t()).transpose(axis, -1)
    return _unbatched(output, was_unbatched)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg_pool(input, output_size, 1, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average pooling to a fixed output size: window ``i`` spans ``[floor(i n / o), ceil((i + 1) n / o))``.

        >>> import minitorch
        >>> x = minitorch.arange(16.0).reshape(1, 1, 4, 4)
        >>> minitorch.nn.functional.adaptive_avg_pool2d(x, 1).tolist()
        [[[[7.5]]]]
    """
    return _adaptive_avg_pool(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg_pool(input, output_size, 3, "adaptive_avg_pool3d")


def _adaptive_max_pool(input, output_size, return_indices: bool, dims: int, name: str):
    input, was_unbatched = _adaptive_input(input, dims, name)
    sizes = _adaptive_output_size(input, output_size, dims)
    if any(n == 0 for n in input.shape[2:]) or any(o <= 0 for o in sizes):
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions and a positive "
                           f"output size, but input has sizes {list(input.shape)} and output size {list(sizes)}")
    values, indices = _pooling_ops.AdaptiveMaxPool.apply(input, sizes)
    return _unbatched((values, indices) if return_indices else values, was_unbatched)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    return _adaptive_max_pool(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling to a fixed output size (windows as in ``adaptive_avg_pool2d``)."""
    return _adaptive_max_pool(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, dims: int) -> Tensor:
    input, was_unbatched = _batched(input, dims, "max_unpool", non_empty_message=True)
    if was_unbatched:
        indices = indices.unsqueeze(0)
    kernel_size = _expand_to_tuple(kernel_size, dims, "kernel_size")
    stride = kernel_size if stride is None else _expand_to_tuple(stride, dims, "stride")
    padding = _expand_to_tuple(padding, dims, "padding")
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(input.shape[2:], stride, padding, kernel_size))
    if output_size is None:
        sizes = default
    else:
        sizes = tuple(int(s) for s in output_size)[-dims:]
        for d, (size, usual, s) in enumerate(zip(sizes, default, stride)):
            if not usual - s < size < usual + s:
                raise ValueError(f'invalid output_size "{tuple(sizes)}" (dim {d} must be between {usual - s} and '
                                 f'{usual + s})')
    if indices.dtype.name != "int64" or tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError("elements in indices should be type int64 but got: " + str(indices.dtype)
                           if indices.dtype.name != "int64" else
                           f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    plane = math.prod(sizes)
    index_data = indices._data
    if index_data.size and (int(index_data.min()) < 0 or int(index_data.max()) >= plane):
        bad = int(index_data.max()) if int(index_data.max()) >= plane else int(index_data.min())
        raise RuntimeError(
            f"Found an invalid max index: {bad} (output volumes are of size {'x'.join(map(str, sizes))})"
        )
    return _unbatched(_pooling_ops.ScatterIntoPlanes.apply(input, indices, sizes, False), was_unbatched)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of ``max_pool2d``: each value goes back to the index it came from, zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


# -- padding ------------------------------------------------------------------------------------------
_NON_CONSTANT_PAD_HELP = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def _pad_source_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each output position along one dimension, the input position it copies."""
    positions = np.arange(-before, n + after)
    if mode == "reflect":  # mirror at the edges without repeating them: -1 -> 1, n -> n - 2
        positions = np.abs(positions)
        return np.where(positions > n - 1, 2 * (n - 1) - positions, positions)
    if mode == "replicate":
        return np.clip(positions, 0, n - 1)
    # circular: wrap around the part that negative amounts leave (PyTorch crops first, then wraps)
    crop_before, crop_after = max(-before, 0), max(-after, 0)
    kept = n - crop_before - crop_after
    return (positions - crop_before) % kept + crop_before


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dimensions: ``pad = (left, right, top, bottom, ...)``, last dimension first.

    ``mode`` is ``'constant'`` (fill with ``value``), ``'reflect'`` (mirror without the
    edge), ``'replicate'`` (repeat the edge) or ``'circular'`` (wrap around). Negative
    amounts crop.

        >>> import minitorch
        >>> x = minitorch.tensor([[1.0, 2.0, 3.0]])
        >>> minitorch.nn.functional.pad(x, (2, 1), mode="reflect").tolist()
        [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    padded_dims = len(pad) // 2
    ndim = input.dim()
    if padded_dims > ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but got padding length "
            f"{len(pad)} and input of dimension {ndim}"
        )
    # pad lists the last dimension first; pairs[d] is (before, after) for dimension ndim - padded_dims + d.
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(padded_dims))]
    first_dim = ndim - padded_dims
    if mode == "constant":
        return _constant_pad(input, pairs, first_dim, 0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if padded_dims not in (1, 2, 3) or ndim not in (padded_dims + 1, padded_dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n{_NON_CONSTANT_PAD_HELP}"
        )
    sizes = input.shape[first_dim:]
    for axis, n, (before, after) in zip(range(first_dim, ndim), sizes, pairs):
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: padding "
                f"({before}, {after}) at dimension {axis} of input {list(input.shape)}"
            )
        if mode == "circular" and (before > n or after > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
    # One gather with broadcast index arrays over the padded dimensions; its backward adds
    # each output gradient back at the position it was copied from.
    xp = input._xp
    key = [Ellipsis]
    for d, (n, (before, after)) in enumerate(zip(sizes, pairs)):
        source = _pad_source_index(n, before, after, mode).reshape((-1,) + (1,) * (padded_dims - 1 - d))
        key.append(xp.asarray(source))
    return _indexing_ops.Index.apply(input, tuple(key))


def _constant_pad(input: Tensor, pairs, first_dim: int, value) -> Tensor:
    if any(before < 0 or after < 0 for before, after in pairs):  # negative padding crops first
        crop = tuple(slice(max(-before, 0), n - max(-after, 0)) for n, (before, after) in
                     zip(input.shape[first_dim:], pairs))
        input = input[(Ellipsis,) + crop]
        pairs = [(max(before, 0), max(after, 0)) for before, after in pairs]
    if not any(before or after for before, after in pairs):
        return input if input.requires_grad else input.clone()
    return _conv_ops.ConstantPad.apply(input, tuple(pairs), value)


# -- pixel shuffle, channel shuffle ----------------------------------------------------------------
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C * r^2, H, W) -> (*, C, H * r, W * r)``: each group of ``r^2`` channels becomes an ``r x r`` block."""
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.dim()} dimension(s)"
        )
    r = upscale_factor
    *leading, channels, height, width = input.shape
    if channels % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={channels} is not divisible by {r * r}"
        )
    k = len(leading)
    blocks = input.reshape(*leading, channels // (r * r), r, r, height, width)
    # (C, r_row, r_col, H, W) -> (C, H, r_row, W, r_col): row offsets sit next to rows, column offsets next to columns.
    shuffled = blocks.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return shuffled.reshape(*leading, channels // (r * r), height * r, width * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """The inverse of ``pixel_shuffle``: ``(*, C, H * r, W * r) -> (*, C * r^2, H, W)``."""
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {input.dim()} "
            "dimension(s)"
        )
    r = downscale_factor
    *leading, channels, height, width = input.shape
    for name, size, axis in (("height", height, -2), ("width", width, -1)):
        if size % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but input.size({axis})={size} "
                f"is not divisible by {r}"
            )
    k = len(leading)
    blocks = input.reshape(*leading, channels, height // r, r, width // r, r)
    shuffled = blocks.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return shuffled.reshape(*leading, channels * r * r, height // r, width // r)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``(N, g * c, *) -> (N, c * g, *)``: view the channels as a ``g x c`` grid and transpose it (ShuffleNet)."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    batch, channels, *spatial = input.shape
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and {groups} groups."
        )
    grid = input.reshape(batch, groups, channels // groups, *spatial)
    return grid.transpose(1, 2).reshape(batch, channels, *spatial)


native_channel_shuffle = channel_shuffle


# -- interpolation --------------------------------------------------------------------------------------
_INTERPOLATION_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3}


def _source_index_nearest(n: int, o: int, scale: float, exact: bool) -> np.ndarray:
    """PyTorch's nearest source index, computed in float32 as PyTorch does so the same pixels are picked."""
    if o == n:
        return np.arange(o)
    positions = np.arange(o, dtype=np.float32) + (np.float32(0.5) if exact else np.float32(0.0))
    return np.minimum(np.floor(positions * np.float32(scale)).astype(np.int64), n - 1)


def _interpolation_matrix(n: int, o: int, scale: float, align_corners: bool, cubic: bool) -> np.ndarray:
    """``(o, n)`` matrix ``A`` with ``output = A @ input`` along one dimension (linear or cubic weights)."""
    rows = np.arange(o)
    if align_corners:
        source = rows * ((n - 1) / (o - 1) if o > 1 else 0.0)
    else:
        source = (rows + 0.5) * scale - 0.5
        if not cubic:
            source = np.maximum(source, 0.0)  # PyTorch clamps for linear modes (not for cubic)
    floor = np.floor(source).astype(np.int64)
    fraction = source - floor
    matrix = np.zeros((o, n))
    if cubic:  # cubic convolution with A = -0.75 over the 4 neighbours floor - 1 .. floor + 2
        a = -0.75
        distances = [fraction + 1, fraction, 1 - fraction, 2 - fraction]
        for tap, t in enumerate(distances):
            near = ((a + 2) * t - (a + 3)) * t * t + 1
            far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
            weight = near if tap in (1, 2) else far
            np.add.at(matrix, (rows, np.clip(floor - 1 + tap, 0, n - 1)), weight)
        return matrix
    upper = np.minimum(floor + 1, n - 1)
    np.add.at(matrix, (rows, np.minimum(floor, n - 1)), 1 - fraction)
    np.add.at(matrix, (rows, upper), fraction)
    return matrix


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resize the spatial dimensions of a 3-D, 4-D or 5-D input (``Upsample``'s functional form).

    ``nearest`` copies the pixel at ``floor(i * in / out)``; ``(bi/tri)linear`` and
    ``bicubic`` weight the neighbours. Every mode here is separable, so each spatial
    dimension is resized by one small matrix product (``A @ x`` along that dimension),
    and autograd gives the backward (``A^T @ grad``). ``area`` is adaptive average pooling.

        >>> import minitorch
        >>> x = minitorch.tensor([[[1.0, 2.0]]])
        >>> minitorch.nn.functional.interpolate(x, scale_factor=2).tolist()
        [[[1.0, 1.0, 2.0, 2.0]]]
        >>> minitorch.nn.functional.interpolate(x, size=3, mode="linear", align_corners=True).tolist()
        [[[1.0, 1.5, 2.0]]]
    """
    modes = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
    dims = input.dim() - 2
    if mode not in modes or dims not in (1, 2, 3):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: nearest | "
            f"linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                "trilinear"
            )
    elif align_corners is None:
        align_corners = False
    required = _INTERPOLATION_DIMS.get(mode, 2 if mode == "bicubic" else dims)
    if required != dims:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {required + 2}D input")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = tuple(input.shape[2:])
    if size is not None:
        sizes = tuple(int(s) for s in size) if isinstance(size, (tuple, list)) else (int(size),) * dims
        if len(sizes) != dims:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {list(spatial)} and output size of {list(sizes)}. Please provide input tensor in "
                "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
            )
        scales = [n / o for n, o in zip(spatial, sizes)]
    elif scale_factor is not None:
        factors = tuple(scale_factor) if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * dims
        if len(factors) != dims:
            raise ValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {list(spatial)} and scale_factor of shape {list(factors)}. Please provide input tensor "
                "in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
            )
        sizes = tuple(int(math.floor(n * f)) for n, f in zip(spatial, factors))
        # PyTorch maps coordinates with the given factor unless asked to recompute it from the sizes.
        scales = [n / o if recompute_scale_factor else 1.0 / f for n, o, f in zip(spatial, sizes, factors)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if mode == "area":
        return _adaptive_avg_pool(input, sizes, dims, "adaptive_avg_pool")
    output = input
    xp = input._xp
    for axis, n, o, scale in zip(range(2, 2 + dims), spatial, sizes, scales):
        if mode in ("nearest", "nearest-exact"):
            source = _source_index_nearest(n, o, scale, mode == "nearest-exact")
            key = (slice(None),) * axis + (xp.asarray(source),)
            output = _indexing_ops.Index.apply(output, key)
        else:
            matrix = _interpolation_matrix(n, o, scale, align_corners, mode == "bicubic")
            matrix_tensor = _make_tensor(matrix.astype(input._data.dtype), device=input.device)
            output = output.transpose(axis, -1).matmul(matrix_tensor.t()).transpose(axis, -1)
    return output


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    """Deprecated alias of ``interpolate`` (kept by PyTorch for old code)."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- spatial transformers: affine grids and sampling at arbitrary points --------------------------
from .._creation import linspace as _linspace, ones as _ones  # noqa: E402
from ..ops import grid_sample as _grid_sample_ops  # noqa: E402

_ALIGN_CORNERS_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)


def _normalized_positions(steps: int, align_corners: bool, like: Tensor) -> Tensor:
    """Pixel positions in [-1, 1]: the pixel centres, the outer ones at +-1 (True) or half a pixel in (False)."""
    if steps <= 1:
        return _linspace(0.0, 0.0, 1, dtype=like.dtype, device=like.device)
    positions = _linspace(-1.0, 1.0, steps, dtype=like.dtype, device=like.device)
    return positions if align_corners else positions * (steps - 1) / steps  # PyTorch's two roundings


def affine_grid(theta: Tensor, size: list[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid of an affine map: ``grid[n, h, w] = theta[n] @ (x_w, y_h, 1)``.

    ``theta`` is ``(N, 2, 3)`` for an image ``size = (N, C, H, W)`` (``(N, 3, 4)`` for a volume
    ``(N, C, D, H, W)``); ``x_w`` and ``y_h`` are the normalised positions of the output pixels
    (see ``grid_sample``). The result, ``(N, H, W, 2)``, feeds ``grid_sample``. It is a matrix
    product of a constant grid with ``theta``, so ``dtheta[n] = sum_hw grad[n, h, w]^T (x_w, y_h, 1)``.

        >>> import minitorch
        >>> identity = minitorch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> minitorch.nn.functional.affine_grid(identity, [1, 1, 2, 2], align_corners=True)
        tensor([[[[-1., -1.],
                  [ 1., -1.]],
        <BLANKLINE>
                 [[-1.,  1.],
                  [ 1.,  1.]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
            f"Got size {size}."
        )
    if align_corners and min(spatial_size) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. This "
            "is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    # The base grid, (prod(spatial), k + 1): each output pixel's (x, y[, z], 1), x varying fastest.
    axes = [_normalized_positions(steps, align_corners, theta) for steps in reversed(spatial_size)]  # x, y[, z]
    mesh = shape_ops.meshgrid(*reversed(axes), indexing="ij")  # (z,) y, x order: the layout of the output
    columns = [coordinate.reshape(-1) for coordinate in reversed(mesh)]  # x, y[, z]
    base = shape_ops.stack(columns + [_ones(columns[0].shape[0], dtype=theta.dtype, device=theta.device)], 1)
    grid = base.matmul(theta.transpose(1, 2))  # (N, prod(spatial), k)
    return grid.reshape(size[0], *spatial_size, len(spatial_size))


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``out[n, :, h, w]`` = ``input[n]`` sampled at the point ``grid[n, h, w] = (x, y)`` (in [-1, 1]).

    ``input`` is ``(N, C, H, W)`` and ``grid`` ``(N, H_out, W_out, 2)``; the result is
    ``(N, C, H_out, W_out)``. ``mode`` is ``"bilinear"`` or ``"nearest"``; ``padding_mode``
    ``"zeros"``, ``"border"`` or ``"reflection"``. The formulas and both gradients are in
    ``minitorch/ops/grid_sample.py``.

        >>> import minitorch
        >>> image = minitorch.tensor([[[[0.0, 10.0]]]])
        >>> halfway = minitorch.tensor([[[[0.0, 0.0]]]])
        >>> minitorch.nn.functional.grid_sample(image, halfway, align_corners=True)
        tensor([[[[5.]]]])
    """
    if mode not in _grid_sample_ops.MODES:
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _grid_sample_ops.PADDING_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: "
            f"'{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if input.device != grid.device:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to be on same device, but input is on {input.device} and "
            f"grid is on {grid.device}"
        )
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got grid with "
            f"sizes {list(grid.shape)}"
        )
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(input)} but found {_scalar_name(grid)}")
    if input.dim() != 4 or mode == "bicubic":
        raise NotImplementedError(
            "minitorch's grid_sample samples 4-D inputs (N, C, H, W) in 'bilinear' or 'nearest' mode; 5-D volumes "
            "and 'bicubic' are not implemented"
        )
    return _grid_sample_ops.GridSample2d.apply(input, grid, mode, padding_mode, align_corners)


# == normalization, dropout, embedding, one_hot, losses (normalization helper's section) ==
from ..ops import shape as shape_ops  # noqa: E402

# -- dropout -------------------------------------------------------------------------------------
# A random mask is drawn on the host from minitorch's default generator (so ``manual_seed``
# repeats it; the numbers differ from PyTorch's), moved to the input's device, and applied
# with one multiplication: the gradient is then the same mask times the same scale.


def _check_dropout_probability(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input: Tensor, mask_shape: tuple, p: float):
    """A 0/1 array of ``mask_shape`` in ``input``'s dtype: each entry is 1 (kept) with probability ``1 - p``."""
    keep = numpy_generator(None).random(mask_shape) >= p
    return keep.astype(input._data.dtype)


def _on_device(array, like: Tensor) -> Tensor:
    """A host array as a constant tensor on ``like``'s device."""
    if like._device.type != "cpu":
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
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {_integer_name(input).capitalize()}"
        )
    mask = _keep_mask(input, input.shape if mask_shape is None else mask_shape, p)
    if p < 1.0:
        mask *= mask.dtype.type(1.0 / (1.0 - p))
    scaled_mask = _on_device(mask, input)
    return _maybe_inplace(input, inplace, lambda x: x * scaled_mask)


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


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: keeps the mean and variance of its input (see ``_alpha_dropout``)."""
    return _alpha_dropout(input, p, training, inplace, None)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (dimension 1)."""
    _check_dropout_probability(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    return _alpha_dropout(input, p, training, inplace, _feature_mask_shape(input))


# -- normalization -------------------------------------------------------------------------------
def _shape_text(shape) -> str:
    return "[" + ", ".join(str(int(extent)) for extent in shape) + "]"


def _check_parameter_dtype(input: Tensor, *parameters) -> None:
    for parameter in parameters:
        if parameter is not None and parameter._data.dtype != input._data.dtype:
            raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of {_scalar_name(input)}")


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
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    dims = tuple(range(input.dim() - count, input.dim()))
    result = input * (input * input).mean(dims, keepdim=True).add(eps).rsqrt()
    return result * weight if weight is not None else result


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
    from ..autograd.grad_mode import no_grad

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


# -- embeddings ----------------------------------------------------------------------------------
def _type_name(tensor: Tensor) -> str:
    """PyTorch's name of a tensor type (``FloatTensor``, ``LongTensor``...)."""
    return _scalar_name(tensor) + "Tensor" if tensor.is_floating_point() else _integer_name(tensor) + "Tensor"


def _wrap_padding_idx(padding_idx, num_embeddings: int, label: str = "Padding_idx"):
    """``padding_idx`` as a row number in ``[0, num_embeddings)`` (negative counts from the end), or None."""
    if padding_idx is None:
        return None
    if padding_idx > 0 and padding_idx >= num_embeddings:
        raise AssertionError(f"{label} must be within num_embeddings")
    if padding_idx < 0:
        if padding_idx < -num_embeddings:
            raise AssertionError(f"{label} must be within num_embeddings")
        padding_idx = num_embeddings + padding_idx
    return padding_idx


def _embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescale (in place, outside the graph) each looked-up row whose ``norm_type``-norm exceeds ``max_norm``.

    As PyTorch: ``row *= max_norm / (norm + 1e-7)``, each distinct row once.
    """
    from ..autograd.grad_mode import no_grad

    rows = indices._xp.unique(indices._data)
    with no_grad():
        selected = weight[rows]
        norms = selected.norm(p=norm_type, dim=1, keepdim=True)
        scale = pointwise.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = selected * scale


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Look up one row of ``weight`` per index: ``y[...] = weight[input[...]]`` (``y`` is ``input.shape + (D,)``).

    ``padding_idx``: that row receives no gradient. ``max_norm``: rows about to be looked up
    are first rescaled in place to norm at most ``max_norm``. ``scale_grad_by_freq``: each
    row's gradient is divided by how often it appears in ``input``.

        >>> import minitorch
        >>> table = minitorch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
        >>> minitorch.nn.functional.embedding(minitorch.tensor([2, 1, 2]), table)
        tensor([[3., 4.],
                [1., 2.],
                [3., 4.]])
    """
    padding_idx = _wrap_padding_idx(padding_idx, weight.shape[0])
    if input.is_floating_point() or input.dtype.name not in ("int64", "int32"):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            f"minitorch.{_type_name(input)} instead (while checking arguments for embedding)"
        )
    if input.numel() and (int(input._data.min()) < 0 or int(input._data.max()) >= weight.shape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return nn_ops.Embedding.apply(weight, input, padding_idx, scale_grad_by_freq)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sum, average or take the maximum of the embeddings of each *bag* of indices, without building the rows.

    Bags are the rows of a 2-D ``input``, or, for a 1-D ``input``, the slices that start at
    each entry of ``offsets`` (``include_last_offset``: the last offset marks the end instead
    of starting a bag). Entries equal to ``padding_idx`` are left out of their bag; an empty
    bag gives zeros. ``per_sample_weights`` (mode ``"sum"`` only) scales each looked-up row.

    Computed as one ``embedding`` lookup followed by a scatter-add of the rows into their
    bags (``sum``/``mean``), or a gather of each bag's maximal rows (``max``).

        >>> import minitorch
        >>> table = minitorch.tensor([[1.0, 1.0], [2.0, 4.0], [3.0, 0.0]])
        >>> minitorch.nn.functional.embedding_bag(minitorch.tensor([0, 1, 2]), table, minitorch.tensor([0, 2]))
        tensor([[1.5000, 2.5000],
                [3.0000, 0.0000]])
    """
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must have the "
            f"same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    xp = input._xp
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                f"sequences. However, found offsets of type "
                f"{_CLASS_OF_TENSOR if isinstance(offsets, Tensor) else type(offsets)}"
            )
        bags, bag_length = input.shape
        bag_of_entry = xp.repeat(xp.arange(bags), bag_length)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        bags, bag_of_entry = _bags_from_offsets(offsets, input.shape[0], include_last_offset)
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if input.numel():
        low, high = int(input._data.min()), int(input._data.max())
        if low < 0 or high >= weight.shape[0]:
            position = int(xp.argmax((input._data < 0) | (input._data >= weight.shape[0])))
            raise RuntimeError(
                f"Index {position} of input takes value {int(input._data[position])} which is not in the valid range "
                f"[0, {weight.shape[0]})"
            )
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    padding_idx = _wrap_padding_idx(padding_idx, weight.shape[0], "padding_idx")
    if padding_idx is not None:  # padding entries belong to no bag
        bag_of_entry = xp.where(input._data == padding_idx, -1, bag_of_entry)
    rows = nn_ops.Embedding.apply(weight, input, padding_idx, scale_grad_by_freq)
    embedding_dim = weight.shape[1]
    if mode == "max":
        best_rows, non_empty = nn_ops.segment_argmax(rows._data, bag_of_entry, bags)
        picked = rows.gather(0, Tensor._make(best_rows, rows._device))
        return picked * Tensor._make(non_empty.astype(rows._data.dtype), rows._device)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    member = bag_of_entry >= 0
    if not bool(member.all()):
        rows, bag_of_entry = rows[Tensor._make(member, rows._device)], bag_of_entry[member]
    sums = _scatter_rows(rows, bag_of_entry, bags, embedding_dim)
    if mode == "sum":
        return sums
    counts = xp.bincount(bag_of_entry, minlength=bags).astype(rows._data.dtype)
    return sums / Tensor._make(xp.maximum(counts, 1)[:, None], rows._device)


_CLASS_OF_TENSOR = "<class 'minitorch.Tensor'>"  # how PyTorch prints its class (rather than its defining module)


def _scatter_rows(rows: Tensor, bag_of_entry, bags: int, embedding_dim: int) -> Tensor:
    """``sums[b] = sum of rows[l] with bag_of_entry[l] == b`` (differentiable: the backward reads ``grad[bag]``)."""
    from ..ops.indexing import AccumulateAt

    return AccumulateAt.apply(rows, (bags, embedding_dim), (bag_of_entry, Ellipsis), True)


def _bags_from_offsets(offsets: Tensor, length: int, include_last_offset: bool):
    """The number of bags and, for each of the ``length`` entries, the bag it belongs to."""
    xp = offsets._xp
    starts = offsets._data.astype(xp.int64)
    if starts.size and int(starts[0]) != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
            f"However, got {int(starts[0])}"
        )
    if starts.size and int(starts[-1]) > length:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {length} but got offsets[-1] of {int(starts[-1])}"
        )
    if starts.size > 1 and bool((starts[1:] < starts[:-1]).any()):
        raise RuntimeError("offsets must be non-decreasing")
    bags = max(starts.size - 1, 0) if include_last_offset else starts.size
    # Entry l belongs to the last bag starting at or before l; entries past the last offset
    # (include_last_offset) belong to none.
    bag_of_entry = xp.searchsorted(starts, xp.arange(length), side="right") - 1
    if include_last_offset:
        bag_of_entry = xp.where(bag_of_entry >= bags, -1, bag_of_entry)
    return bags, bag_of_entry


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``y[..., c] = 1 if tensor[...] == c else 0`` (int64); ``num_classes=-1`` uses ``tensor.max() + 1``.

        >>> import minitorch
        >>> minitorch.nn.functional.one_hot(minitorch.tensor([0, 2]))
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    if not isinstance(tensor, Tensor):
        raise _arguments.must_be_tensor("one_hot", tensor)
    if tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    xp = tensor._xp
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size:
        if int(data.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(data.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    encoded = (data[..., None] == xp.arange(num_classes)).astype(xp.int64)
    return Tensor._make(encoded, tensor._device)


# -- losses ----------------------------------------------------------------------------------
# Each loss computes a per-element loss and then reduces it: ``reduction="none"`` keeps every
# element, ``"sum"`` adds them and ``"mean"`` averages them (weighted losses divide by the total
# weight instead). ``size_average`` and ``reduce`` are PyTorch's deprecated spellings.


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


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Mean absolute error: ``loss = |x - y|``, reduced."""
    _warn_if_sizes_differ(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    reduction = _check_weighted_reduction(reduction, weight)
    return _weighted_reduce((input - target).abs(), weight, reduction, input)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """``loss = 0.5 (x - y)^2 / beta`` where ``|x - y| < beta``, else ``|x - y| - 0.5 beta`` (``beta=0``: L1)."""
    _warn_if_sizes_differ(input, target)
    reduction = _reduction_argument(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    distance = (input - target).abs()
    if beta == 0.0:
        return _reduce(distance, reduction)
    loss = _where(distance < beta, 0.5 * distance * distance / beta, distance - 0.5 * beta)
    return _reduce(loss, reduction)


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
    distance = (input - target).abs()
    loss = _where(distance < delta, 0.5 * distance * distance, delta * (distance - 0.5 * delta))
    return _weighted_reduce(loss, weight, reduction, input, mean_by_weight=False)


def _type_label(tensor: Tensor) -> str:
    return _scalar_name(tensor) if tensor.is_floating_point() else _integer_name(tensor)


def _class_targets(input: Tensor, target: Tensor, ignore_index: int):
    """Check class-index targets as PyTorch's ``nll_loss`` does; returns the class dimension,
    the targets as an int64 array (ignored positions replaced by class 0) and the mask of
    ignored positions (None when there are none)."""
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() != 1:
        target_batch = target.shape[0] if target.dim() else 0
        if input.shape[0] != target_batch:
            raise ValueError(
                f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target_batch})."
            )
    if input.dim() <= 2:
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if input.dim() == 1 and target.dim() == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    else:
        expected = (input.shape[0],) + tuple(input.shape[2:])
        if tuple(target.shape) != expected:
            raise RuntimeError(f"Expected target size {_shape_text(expected)}, got {_shape_text(target.shape)}")
    if target.dtype.name not in ("int64", "uint8"):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_label(target)}")
    class_dim = 0 if input.dim() == 1 else 1
    classes = input.shape[class_dim]
    xp = target._xp
    labels = target._data.astype(xp.int64, copy=False)
    if input.dim() == 1 and labels.ndim == 1:
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

    The pick is a ``gather`` (its backward puts the gradient back at ``y_i``); the per-element
    weights are constants (PyTorch gives ``weight`` no gradient).
    """
    index = Tensor._make(labels[None] if class_dim == 0 else labels[:, None], log_probs._device)
    picked = log_probs.gather(class_dim, index).squeeze(class_dim)
    element_weights = None
    if weight is not None:
        element_weights = weight._data[labels]
    if ignored is not None:
        kept = (~ignored).astype(log_probs._data.dtype)
        element_weights = kept if element_weights is None else element_weights * kept
    if element_weights is None:
        return _reduce(-picked, reduction)
    element_weights = element_weights.astype(log_probs._data.dtype)
    if reduction == "mean":
        total_weight = element_weights.sum()
        if total_weight:
            element_weights = element_weights / total_weight
        loss = (-picked * Tensor._make(element_weights, log_probs._device)).sum()
        return loss if total_weight else _nan_without_gradient(loss)
    return _reduce(-picked * Tensor._make(element_weights, log_probs._device), reduction)


def _nan_without_gradient(loss: Tensor) -> Tensor:
    """A mean over nothing (every target ignored) is NaN, but PyTorch still gives zero gradients: add NaN
    to a sum whose terms all have zero weight, rather than dividing by a zero total weight."""
    return loss + float("nan")


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
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    class_dim = 0 if input.dim() == 1 else 1
    classes = input.shape[class_dim]
    if tuple(input.shape) == tuple(target.shape):
        return _cross_entropy_with_probabilities(input, target, weight, class_dim, ignore_index, reduction,
                                                 label_smoothing)
    class_dim, labels, ignored = _class_targets(input, target, ignore_index)
    _class_weights(input, weight, classes)
    if input.dim() == 2 and weight is None and ignored is None and label_smoothing == 0.0 and labels.size:
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
            f"Expected floating point type for target with class probabilities, got {_type_label(target)}"
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
    return -products.sum() / (input.numel() // classes)


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
    loss = nn_ops.BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        _check_expandable(tuple(weight.shape), tuple(target.shape))
        loss = loss * weight
    return _reduce(loss, reduction)


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
    loss = _where(target == 1, 1 - cosine, 0.0) + _where(target == -1, (cosine - margin).clamp(min=0), 0.0)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """``loss = max(0, -y (x1 - x2) + margin)``: ``y = 1`` asks for ``x1 > x2`` by ``margin``, ``y = -1`` for less."""
    reduction = _reduction_argument(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """``loss = x`` where ``y = 1``, ``max(0, margin - x)`` where ``y = -1`` (``x`` usually a distance)."""
    reduction = _reduction_argument(reduction, size_average, reduce)
    below_margin = _where(target != 1, (margin - input).clamp(min=0), 0.0)
    return _reduce(below_margin + _where(target != -1, input, 0.0), reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """``loss = log(1 + exp(-y x))``: the logistic loss for labels ``y`` in ``{-1, 1}``."""
    reduction = _reduction_argument(reduction, size_average, reduce)
    return _reduce((-input * target).exp().log1p(), reduction)


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


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dimension (``eps`` keeps the norm differentiable at 0)."""
    return (x1 - x2 + eps).norm(p, dim=-1, keepdim=keepdim)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``<x1, x2> / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim``."""
    norm1 = x1.norm(2, dim=dim, keepdim=True).clamp(min=eps)
    norm2 = x2.norm(2, dim=dim, keepdim=True).clamp(min=eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


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
    return _reduce((margin + positive_distance - negative_distance).clamp(min=0), reduction)


from ..ops import ctc as _ctc_ops  # noqa: E402


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Connectionist temporal classification: ``-log`` of the total probability of every alignment of
    ``log_probs`` that reads as the target (``ops/ctc.py`` explains the dynamic programme).

    ``log_probs`` is ``(T, N, C)`` (or unbatched ``(T, C)``), log-softmax outputs with class ``blank``
    as the blank; ``targets`` is ``(N, S)`` padded or 1-D with the targets concatenated;
    ``input_lengths`` and ``target_lengths`` give each sequence's length (``(N,)``). ``"mean"``
    divides each loss by its target length, then averages over the batch. ``zero_infinity`` turns
    the infinite loss of an impossible target (longer than its input allows) into 0, gradient too.

    One difference from PyTorch: the gradient with respect to ``log_probs`` is the true one,
    ``-posterior``; PyTorch returns ``exp(log_probs) - posterior``, which is the same once it has
    gone back through the ``log_softmax`` that made ``log_probs``.
    """
    reduction = _reduction_argument(reduction)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs, targets = log_probs.unsqueeze(1), targets.unsqueeze(0)
    steps, batch, classes = log_probs.shape
    xp = log_probs._xp
    inputs = _lengths(input_lengths, xp, log_probs, batch, "input_lengths")
    lengths = _lengths(target_lengths, xp, log_probs, batch, "target_lengths")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    for name, values, low, high in (("input_lengths", inputs, 0, steps), ("target_lengths", lengths, 0, None)):
        if values.size and int(values.min()) < low:
            raise RuntimeError(f"Expected {name} to have value at least {low}, but got value {int(values.min())} "
                               "(while checking arguments for ctc_loss_allocate_outputs)")  # fmt: skip
        if high is not None and values.size and int(values.max()) > high:
            raise RuntimeError(f"Expected {name} to have value at most {high}, but got value {int(values.max())} "
                               "(while checking arguments for ctc_loss_allocate_outputs)")  # fmt: skip
    label_array = targets._data.astype(np.int64)
    longest = int(lengths.max()) if lengths.size else 0
    if label_array.ndim == 1 and not unbatched:  # concatenated targets: cut them into padded rows
        if label_array.shape[0] != int(lengths.sum()):
            raise RuntimeError(f"Expected tensor to have size {int(lengths.sum())} at dimension 0, but got size "
                               f"{label_array.shape[0]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")  # fmt: skip
        starts = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(lengths)[:-1]])
        positions = xp.minimum(starts[:, None] + xp.arange(longest)[None, :], max(label_array.shape[0] - 1, 0))
        label_array = label_array[positions] if label_array.shape[0] else xp.zeros((batch, longest), xp.int64)
    elif label_array.shape[1] < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                           f"{label_array.shape[1]} for argument #2 'targets' (while checking arguments for "
                           "ctc_loss_allocate_outputs)")  # fmt: skip
    label_array = xp.where(xp.arange(label_array.shape[1])[None, :] < lengths[:, None], label_array, blank)
    outside = label_array[(label_array < 0) | (label_array >= classes)]
    if outside.size:
        raise RuntimeError(f"ctc_loss: target labels must lie in [0, {classes - 1}] (log_probs has {classes} classes), "
                           f"but got a label {int(outside[0])}")  # fmt: skip
    losses = _ctc_ops.CTCLoss.apply(log_probs, label_array, inputs, lengths, blank, zero_infinity)
    if unbatched:
        losses = losses.squeeze(0)
    if reduction == "mean":
        divisors = Tensor._make(xp.maximum(lengths, 1).astype(losses._data.dtype), log_probs._device)
        return (losses / (divisors.squeeze(0) if unbatched else divisors)).mean()
    return _reduce(losses, reduction)


def _lengths(values, xp, like: Tensor, batch: int, name: str):
    """Sequence lengths (a tensor, list, tuple or int) as an int64 array of the batch's size."""
    array = values._data if isinstance(values, Tensor) else np.asarray(values)
    array = xp.asarray(array).astype(xp.int64).reshape(-1)
    if array.shape[0] != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return array


# == recurrent and attention (sequence helper's section) ==
#
# Recurrent layers. The input-to-hidden product ``x W_ih^T + b_ih`` does not depend on the
# previous step, so it is computed for the whole sequence in one matrix product; only ``h W_hh^T``
# stays inside the loop over time. An LSTM or GRU layer direction runs that loop inside one fused
# op (``ops/recurrent.py``: forward in order, backpropagation through time in reverse); a plain RNN
# (and an LSTM with a projection) loops here, a step of ordinary ops at a time.
from .._creation import zeros as _zeros, zeros_like as _zeros_like  # noqa: E402
from ..ops import recurrent as _recurrent_ops  # noqa: E402
from ..ops.shape import cat as _cat, stack as _stack  # noqa: E402


def _rnn_step(input_gates: Tensor, hidden: Tensor, weight_hh: Tensor, nonlinearity: str) -> Tensor:
    """``h = tanh(input_gates + h_prev W_hh^T)`` (or ``relu``): the Elman RNN step."""
    pre_activation = linear(hidden, weight_hh, input_gates)  # one node: h W_hh^T plus the input part
    return pre_activation.tanh() if nonlinearity == "tanh" else pre_activation.relu()


def _lstm_step(input_gates: Tensor, hidden: Tensor, cell: Tensor, weight_hh: Tensor,
               weight_hr: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One LSTM step (gates ``i, f, g, o``; see ``ops/recurrent.py``); ``weight_hr`` projects ``h`` (``proj_size``)."""
    hidden, cell = _recurrent_ops.LSTMCell.apply(input_gates, hidden, cell, weight_hh)
    if weight_hr is not None:
        hidden = linear(hidden, weight_hr)
    return hidden, cell


def _gru_step(input_gates: Tensor, hidden: Tensor, weight_hh: Tensor, bias_hh: Tensor | None) -> Tensor:
    """One GRU step (gates ``r, z, n``; see ``ops/recurrent.py``)."""
    return _recurrent_ops.GRUCell.apply(input_gates, hidden, weight_hh, bias_hh)


def _input_bias(mode: str, bias_ih: Tensor | None, bias_hh: Tensor | None) -> Tensor | None:
    """The bias added to ``x W_ih^T``: both biases for RNN and LSTM (they are simply summed), ``b_ih`` for GRU.

    A GRU's ``b_hh`` cannot move: its ``n`` gate multiplies ``h W_hn^T + b_hn`` by the reset gate.
    """
    if bias_ih is None or mode == "GRU":
        return bias_ih
    return bias_ih + bias_hh


def _check_cell_arguments(input: Tensor, hiddens, input_size: int, hidden_size: int) -> None:
    """PyTorch's checks (and words) for one step of a cell."""
    if input.shape[1] != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {input_size}")
    for number, hidden in enumerate(hiddens):
        if input.shape[0] != hidden.shape[0]:
            raise RuntimeError(
                f"Input batch size {input.shape[0]} doesn't match hidden{number} batch size {hidden.shape[0]}"
            )
        if hidden.shape[1] != hidden_size:
            raise RuntimeError(
                f"hidden{number} has inconsistent hidden_size: got {hidden.shape[1]}, expected {hidden_size}"
            )


def _rnn_cell(input: Tensor, hx: Tensor, weight_ih: Tensor, weight_hh: Tensor, bias_ih: Tensor | None,
              bias_hh: Tensor | None, nonlinearity: str) -> Tensor:
    """``nn.RNNCell``'s math (PyTorch's ``torch.rnn_tanh_cell`` / ``rnn_relu_cell``) on a 2-D batch."""
    _check_cell_arguments(input, (hx,), weight_ih.shape[1], weight_hh.shape[1])
    input_gates = linear(input, weight_ih, _input_bias("RNN", bias_ih, bias_hh))
    return _rnn_step(input_gates, hx, weight_hh, nonlinearity)


def _lstm_cell(input: Tensor, hx: tuple, weight_ih: Tensor, weight_hh: Tensor, bias_ih: Tensor | None,
               bias_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    """``nn.LSTMCell``'s math (PyTorch's ``torch.lstm_cell``) on a 2-D batch; returns ``(h, c)``."""
    _check_cell_arguments(input, hx, weight_ih.shape[1], weight_hh.shape[1])
    input_gates = linear(input, weight_ih, _input_bias("LSTM", bias_ih, bias_hh))
    return _lstm_step(input_gates, hx[0], hx[1], weight_hh)


def _gru_cell(input: Tensor, hx: Tensor, weight_ih: Tensor, weight_hh: Tensor, bias_ih: Tensor | None,
              bias_hh: Tensor | None) -> Tensor:
    """``nn.GRUCell``'s math (PyTorch's ``torch.gru_cell``) on a 2-D batch."""
    _check_cell_arguments(input, (hx,), weight_ih.shape[1], weight_hh.shape[1])
    input_gates = linear(input, weight_ih, bias_ih)
    return _gru_step(input_gates, hx, weight_hh, bias_hh)


def _run_direction(mode: str, input: Tensor, weights: list, has_biases: bool, hidden: Tensor, cell: Tensor | None,
                   reverse: bool):
    """One layer in one direction over a ``(time, batch, features)`` input.

    Returns the hidden state at every time step, stacked in input order (so a reverse
    direction's output at time ``t`` has seen the inputs ``t .. end``), and the final states.
    """
    weight_ih, weight_hh = weights[0], weights[1]
    bias_ih, bias_hh = (weights[2], weights[3]) if has_biases else (None, None)
    weight_hr = weights[-1] if mode == "LSTM" and len(weights) in (3, 5) else None
    # Every time step's input part in one matrix product: (time * batch, features) -> (time, batch, gates).
    steps, batch = input.shape[0], input.shape[1]
    flat_input = input.reshape(steps * batch, input.shape[2])
    input_gates = linear(flat_input, weight_ih, _input_bias(mode, bias_ih, bias_hh)).reshape(steps, batch, -1)
    # LSTM and GRU: the loop over time runs inside one fused node (ops/recurrent.py).
    if mode == "LSTM" and weight_hr is None:
        return _recurrent_ops.LSTMSequence.apply(input_gates, hidden, cell, weight_hh, reverse)
    if mode == "GRU":
        output, hidden = _recurrent_ops.GRUSequence.apply(input_gates, hidden, weight_hh, bias_hh, reverse)
        return output, hidden, None
    # RNN (and an LSTM with a projection): a step at a time, one small graph per step.
    input_gates = input_gates.unbind(0)
    outputs = [None] * steps
    for time in (range(steps - 1, -1, -1) if reverse else range(steps)):
        if mode == "LSTM":
            hidden, cell = _lstm_step(input_gates[time], hidden, cell, weight_hh, weight_hr)
        else:
            hidden = _rnn_step(input_gates[time], hidden, weight_hh, "tanh" if mode == "RNN_TANH" else "relu")
        outputs[time] = hidden
    return _stack(outputs, 0), hidden, cell


def _run_direction_packed(mode: str, input: Tensor, weights: list, has_biases: bool, hidden: Tensor,
                          cell: Tensor | None, reverse: bool, batch_sizes: list[int]):
    """``_run_direction`` over a packed batch, given padded ``(time, batch, features)`` with the longest
    sequence first; ``batch_sizes[t]`` sequences are still running at step ``t``.

    The steps split into stretches over which the same sequences run; each stretch is one ordinary
    ``_run_direction`` call on just those rows. Forward in time, a sequence's final state is taken when
    its last stretch ends; in reverse, a sequence joins (from its initial state) at its own last step.
    Padding is never read, and the output is 0 there (what ``pad_packed_sequence`` shows).
    """
    batch = input.shape[1]
    stretches = []  # (first step, end step, rows running)
    for time, rows in enumerate(batch_sizes):
        if stretches and stretches[-1][2] == rows:
            stretches[-1][1] = time + 1
        else:
            stretches.append([time, time + 1, rows])
    outputs, final_hidden, final_cell = [], [], []
    state_hidden, state_cell = hidden, cell
    if reverse:
        stretches.reverse()
        state_hidden = hidden[:stretches[0][2]]
        state_cell = None if cell is None else cell[:stretches[0][2]]
    for position, (start, stop, rows) in enumerate(stretches):
        if reverse and state_hidden.shape[0] < rows:  # sequences that end here start their reverse pass
            state_hidden = _cat([state_hidden, hidden[state_hidden.shape[0]:rows]], 0)
            if cell is not None:
                state_cell = _cat([state_cell, cell[state_cell.shape[0]:rows]], 0)
        output, state_hidden, state_cell = _run_direction(
            mode, input[start:stop, :rows], weights, has_biases, state_hidden[:rows],
            None if state_cell is None else state_cell[:rows], reverse,
        )  # fmt: skip
        if rows < batch:
            output = _cat([output, _zeros(stop - start, batch - rows, output.shape[2], dtype=output.dtype,
                                          device=output.device)], 1)  # fmt: skip
        outputs.append(output)
        if not reverse:  # the rows that stop running after this stretch are finished
            following = stretches[position + 1][2] if position + 1 < len(stretches) else 0
            final_hidden.insert(0, state_hidden[following:])
            if state_cell is not None:
                final_cell.insert(0, state_cell[following:])
    if reverse:
        outputs.reverse()
        final_hidden, final_cell = [state_hidden], [state_cell] if state_cell is not None else []
    output = outputs[0] if len(outputs) == 1 else _cat(outputs, 0)
    last_hidden = final_hidden[0] if len(final_hidden) == 1 else _cat(final_hidden, 0)
    last_cell = None if not final_cell else final_cell[0] if len(final_cell) == 1 else _cat(final_cell, 0)
    return output, last_hidden, last_cell


def _recurrent(mode: str, input: Tensor, hx, weights: list, has_biases: bool, num_layers: int, dropout_p: float,
               train: bool, bidirectional: bool, batch_first: bool, batch_sizes: list[int] | None = None):
    """A stacked, optionally bidirectional RNN/LSTM/GRU over a 3-D input (PyTorch's ``torch.lstm`` and kin).

    ``mode`` is ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``; ``hx`` is ``h0`` (or
    ``(h0, c0)`` for an LSTM), each ``(num_layers * num_directions, batch, hidden)``;
    ``weights`` is the flat list of parameters in PyTorch's order, per layer and direction
    ``w_ih, w_hh[, b_ih, b_hh][, w_hr]``. Layer ``k + 1`` reads the outputs of layer ``k``
    (both directions side by side), with dropout between layers when training.
    Returns ``(output, h_n)`` or, for an LSTM, ``(output, h_n, c_n)``. With ``batch_sizes`` the input
    is a packed batch laid out padded (``nn.utils.rnn``), longest sequence first.
    """
    num_directions = 2 if bidirectional else 1
    per_direction = len(weights) // (num_layers * num_directions)
    if batch_first:
        input = input.transpose(0, 1)
    if input.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    if mode == "LSTM":
        initial_hidden, initial_cell = hx[0].unbind(0), hx[1].unbind(0)
    else:
        initial_hidden, initial_cell = hx.unbind(0), None
    final_hidden, final_cell = [], []
    layer_input = input
    for layer in range(num_layers):
        direction_outputs = []
        for direction in range(num_directions):
            index = layer * num_directions + direction
            arguments = (
                mode, layer_input, weights[index * per_direction:(index + 1) * per_direction], has_biases,
                initial_hidden[index], initial_cell[index] if initial_cell is not None else None, direction == 1,
            )  # fmt: skip
            if batch_sizes is None:
                output, hidden, cell = _run_direction(*arguments)
            else:
                output, hidden, cell = _run_direction_packed(*arguments, batch_sizes)
            direction_outputs.append(output)
            final_hidden.append(hidden)
            final_cell.append(cell)
        layer_input = direction_outputs[0] if num_directions == 1 else _cat(direction_outputs, 2)
        if dropout_p > 0 and train and layer < num_layers - 1:
            layer_input = dropout(layer_input, dropout_p, True)
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    if mode == "LSTM":
        return output, _stack(final_hidden, 0), _stack(final_cell, 0)
    return output, _stack(final_hidden, 0)


# -- attention --------------------------------------------------------------------------------------
def _causal_mask(target_length: int, source_length: int, device) -> Tensor:
    """``True`` where query ``i`` may look at key ``j``: ``j <= i`` (the lower triangle)."""
    allowed = np.tril(np.ones((target_length, source_length), dtype=bool))
    return Tensor._make(allowed).to(device)


def _softmax_rows_may_be_masked(scores: Tensor) -> Tensor:
    """Softmax over the last dimension that gives 0, not NaN, in a row whose scores are all ``-inf``.

    Such a row (a query that may look at nothing) has no distribution; PyTorch's
    ``scaled_dot_product_attention`` returns zeros there. The row is zeroed before the
    softmax too, so no NaN appears on the way back either.
    """
    fully_masked = (scores == float("-inf")).all(-1, keepdim=True)
    if not fully_masked.any():
        return softmax(scores, dim=-1)
    return _where(fully_masked, 0.0, softmax(_where(fully_masked, 0.0, scores), dim=-1))


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(Q K^T * scale + mask) V``: each query takes a weighted average of the values.

    Shapes ``(..., L, E)`` for the query, ``(..., S, E)`` for the key and ``(..., S, Ev)``
    for the value; ``scale`` defaults to ``1 / sqrt(E)``, which keeps the scores' variance
    near 1 so the softmax does not saturate. ``attn_mask`` broadcasts to ``(..., L, S)``:
    a bool mask says which keys a query *may* attend to (``True`` = take part), a float
    mask is added to the scores (``-inf`` excludes). ``is_causal`` lets query ``i`` see
    keys ``0..i`` only. ``dropout_p`` drops attention weights (always: there is no
    ``training`` flag here). With ``enable_gqa``, each key/value head serves a group of
    query heads (dimension -3).

        >>> import minitorch
        >>> q = minitorch.ones(1, 2, 4)
        >>> minitorch.nn.functional.scaled_dot_product_attention(q, q, q).shape
        minitorch.Size([1, 2, 4])
    """
    target_length, source_length = query.shape[-2], key.shape[-2]
    scale_factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if attn_mask is not None and attn_mask.dtype != _dtype.bool and not attn_mask.is_floating_point():
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
            f"{_SCALAR_NAMES_LONG.get(attn_mask.dtype.name, attn_mask.dtype.name)} and  query.dtype: "
            f"{_SCALAR_NAMES_LONG.get(query.dtype.name, query.dtype.name)} instead."
        )
    if enable_gqa and key.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        key, value = (_repeat_heads(t, query.shape[-3] // key.shape[-3]) for t in (key, value))
    scores = query.matmul(key.transpose(-2, -1)) * scale_factor
    if is_causal:
        attn_mask = _causal_mask(target_length, source_length, query.device)
    if attn_mask is not None:
        if attn_mask.dtype == _dtype.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
        weights = _softmax_rows_may_be_masked(scores)
    else:
        weights = softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    output = weights.matmul(value)
    if output.dim() == 4 and not query.is_contiguous():
        # For a query that is not contiguous (heads split off a projection, then transposed), PyTorch's
        # CPU kernel writes the (N, H, L, E) result as (N, L, H, E) in memory and returns it transposed;
        # code written against it merges the heads with ``y.transpose(1, 2).view(N, L, H * E)``, which
        # needs exactly that layout.
        output = output.transpose(1, 2).contiguous().transpose(1, 2)
    return output


_SCALAR_NAMES_LONG = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
                      "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char"}


def _repeat_heads(tensor: Tensor, repeats: int) -> Tensor:
    """Repeat each head (dimension -3) ``repeats`` times in place: ``h0 h0 h1 h1`` (``repeat_interleave``)."""
    shape = tuple(tensor.shape)
    expanded = tensor.unsqueeze(-3).expand(*shape[:-2], repeats, *shape[-2:])
    return expanded.reshape(*shape[:-3], shape[-3] * repeats, *shape[-2:])


def _none_or_dtype(input: Tensor | None):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True) -> Tensor | None:
    """Turn a bool mask (``True`` = masked out) into the float mask that is added to scores: ``0`` or ``-inf``."""
    if mask is None:
        return None
    if mask.dtype != _dtype.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
            stacklevel=3,
        )
    if not mask.is_floating_point():
        mask = _zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                     attn_mask: Tensor | None, num_heads: int) -> bool:
    """Whether the call is batched (3-D query) or not (2-D), with PyTorch's complaints about the other shapes."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                    f"{attn_mask.dim()}-D tensor instead"
                )
            expected_shape = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected_shape:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected_shape} but got {attn_mask.shape}")
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
    )


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None = None) -> list:
    """Query, key and value projections with one stacked ``(3E, E)`` weight: ``[W_q; W_k; W_v]``.

    Self-attention (``q is k is v``) does all three in one matrix product and splits the result.
    """
    embed_dim = q.shape[-1]
    if k is v and q is k:
        projected = linear(q, w, b).unflatten(-1, (3, embed_dim))
        return list(projected.unbind(-2))
    if k is v:
        w_q, w_kv = w.split([embed_dim, embed_dim * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed_dim, embed_dim * 2])
        key_value = linear(k, w_kv, b_kv).unflatten(-1, (2, embed_dim))
        return [linear(q, w_q, b_q), *key_value.unbind(-2)]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return [linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)]


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor, b_q: Tensor | None = None,
                   b_k: Tensor | None = None, b_v: Tensor | None = None) -> tuple:
    """Query, key and value projections with separate weights (when key/value sizes differ from the query's)."""
    query_size, key_size, value_size = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, weight, expected in (("query", w_q, (query_size, query_size)), ("key", w_k, (query_size, key_size)),
                                   ("value", w_v, (query_size, value_size))):
        if tuple(weight.shape) != expected:
            raise AssertionError(f"expecting {name} weights shape of {expected}, but got {weight.shape}")
    for name, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and tuple(bias.shape) != (query_size,):
            raise AssertionError(f"expecting {name} bias shape of {(query_size,)}, but got {bias.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _append_zero_column(mask: Tensor) -> Tensor:
    """One more key position that nothing masks (for ``bias_k``/``bias_v`` and ``add_zero_attn``)."""
    return _cat([mask, _zeros(*mask.shape[:-1], 1, dtype=mask.dtype, device=mask.device)], -1)


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
    add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
    training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention on ``(L, N, E)`` query and ``(S, N, E_k)``, ``(S, N, E_v)`` key/value (or unbatched 2-D).

    1. Project: ``Q = query W_q^T + b_q``, likewise ``K`` and ``V`` (one stacked weight, or three).
    2. Split the ``E`` features into ``num_heads`` heads of ``E / num_heads``; each head attends
       on its own: ``softmax(Q_h K_h^T / sqrt(E / num_heads) + mask) V_h``.
    3. Put the heads side by side again and project with ``out_proj``.

    Masks: ``attn_mask`` is ``(L, S)`` or ``(N * num_heads, L, S)``; ``key_padding_mask`` is
    ``(N, S)``, ``True`` marking padding keys. A bool mask masks *out* where ``True``; a float
    mask is added to the scores. Returns the output and, if ``need_weights``, the attention
    weights ``(N, L, S)`` averaged over heads (or ``(N, num_heads, L, S)``).
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:  # give everything a batch of one, and take it off again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target_length, batch_size, embed_dim = query.shape
    source_length = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the masks are merged below; the hint no longer describes them
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}"
            )
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # 1. Projections.
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if weight is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (target_length, source_length):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(target_length, source_length)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            expected = (batch_size * num_heads, target_length, source_length)
            if tuple(attn_mask.shape) != expected:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {expected}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    # Optional extra key/value positions: learned biases, then a row of zeros.
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _cat([k, bias_k.repeat(1, batch_size, 1)])
        v = _cat([v, bias_v.repeat(1, batch_size, 1)])
        if attn_mask is not None:
            attn_mask = _append_zero_column(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _append_zero_column(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # 2. Heads: (length, batch, embed) -> (batch * heads, length, head_dim).
    q = q.reshape(target_length, batch_size * num_heads, head_dim).transpose(0, 1)
    k = _static_or_split(k, static_k, batch_size * num_heads, head_dim, "static_k")
    v = _static_or_split(v, static_v, batch_size * num_heads, head_dim, "static_v")
    if add_zero_attn:
        zero_row = _zeros(batch_size * num_heads, 1, head_dim, dtype=k.dtype, device=k.device)
        k, v = _cat([k, zero_row], 1), _cat([v, zero_row], 1)
        if attn_mask is not None:
            attn_mask = _append_zero_column(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _append_zero_column(key_padding_mask)
    source_length = k.shape[1]

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != batch_size:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {batch_size}, but got {key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != source_length:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {source_length}, but got {key_padding_mask.shape[1]}"
            )
        # One row per (batch, head) pair, matching the layout of q, k and v.
        key_padding_mask = (key_padding_mask.reshape(batch_size, 1, 1, source_length)
                            .expand(-1, num_heads, -1, -1).reshape(batch_size * num_heads, 1, source_length))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:  # the attention weights are wanted: write the attention out step by step
        scores = (q * math.sqrt(1.0 / head_dim)).matmul(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        attn_output = weights.matmul(v)
        attn_output = attn_output.transpose(0, 1).reshape(target_length * batch_size, embed_dim)
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.reshape(target_length, batch_size, attn_output.shape[1])
        weights = weights.reshape(batch_size, num_heads, target_length, source_length)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            attn_output, weights = attn_output.squeeze(1), weights.squeeze(0)
        return attn_output, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(batch_size, num_heads, -1, source_length)
    q = q.reshape(batch_size, num_heads, target_length, head_dim)
    k = k.reshape(batch_size, num_heads, source_length, head_dim)
    v = v.reshape(batch_size, num_heads, source_length, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    # 3. Heads side by side again, then the output projection.
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(batch_size * target_length, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.reshape(target_length, batch_size, attn_output.shape[1])
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None


def _static_or_split(projected: Tensor, static: Tensor | None, rows: int, head_dim: int, name: str) -> Tensor:
    """``(S, batch, embed) -> (batch * heads, S, head_dim)``, or a precomputed ``static_k``/``static_v``."""
    if static is None:
        return projected.reshape(projected.shape[0], rows, head_dim).transpose(0, 1)
    if static.shape[0] != rows:
        raise AssertionError(f"expecting {name}.size(0) of {rows}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static


# Every function checks its tensor argument the way PyTorch does (minitorch/_arguments.py).
_arguments.make_public(globals(), [_name for _name in list(globals()) if not _name.startswith("_")])
