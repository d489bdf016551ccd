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

from .. import _dtype
from .._random import numpy_generator
from .._tensor import Tensor
from ..ops import inplace as _inplace_ops, nn_ops, pointwise
from ..ops._util import wrap_dim

_SCALAR_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long", "int32": "int",
                 "int16": "short", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


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
        return nn_ops.LinearNoBias.apply(input, weight, None)
    if bias._data.shape != (out_features,):
        _check_expandable(bias._data.shape, input_shape[:-1] + (out_features,))
    return nn_ops.Linear.apply(input, weight, bias)


def _check_expandable(shape, target) -> None:
    """PyTorch's error when ``shape`` cannot be broadcast (expanded) to ``target``."""
    if len(shape) <= len(target):
        offset = len(target) - len(shape)
        for axis, extent in enumerate(shape):
            if extent != 1 and extent != target[offset + axis]:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target[offset + axis]}) must match the existing size "
                    f"({extent}) at non-singleton dimension {offset + axis}.  Target sizes: {list(target)}.  "
                    f"Tensor sizes: {list(shape)}"
                )
        return
    raise RuntimeError(
        f"The expanded size of the tensor ({len(target)}) must be greater or equal to the number of dimensions in "
        f"the tensor ({len(shape)})"
    )


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
          inplace: bool = False) -> Tensor:
    """Leaky ReLU with a random slope ``~ U(lower, upper)`` per element in training, ``(lower + upper) / 2`` in eval."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    # Random numbers are drawn on the host (as everywhere in minitorch), then moved to the input's device.
    drawn = numpy_generator(None).uniform(lower, upper, size=input.shape).astype(input._data.dtype)
    slopes = Tensor._make(drawn).to(input.device)
    return _maybe_inplace(input, inplace, lambda x: _where(x >= 0, x, x * slopes))


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
    input, dim = _softmax_input(input, "softmax", dim, _stacklevel, dtype)
    return nn_ops.Softmax.apply(input, dim)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: _dtype.dtype | None = None) -> Tensor:
    """``softmax(-x)``: the smallest entries get the largest probabilities."""
    input, dim = _softmax_input(input, "softmin", dim, _stacklevel, dtype)
    return nn_ops.Softmax.apply(-input, dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: _dtype.dtype | None = None) -> Tensor:
    """``y_i = x_i - log(sum_j exp(x_j))`` along ``dim``: the log of the softmax, computed without overflow."""
    input, dim = _softmax_input(input, "log_softmax", dim, _stacklevel, dtype)
    return nn_ops.LogSoftmax.apply(input, dim)



# == convolution, pooling, padding, upsampling, fold, pixel/channel shuffle (conv helper's section) ==


# == normalization, dropout, embedding, one_hot, losses (normalization helper's section) ==

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
    """``y = a * (x if kept else -alpha) + a * alpha * p`` with ``alpha = 1.7581`` and ``a = 1 / sqrt((alpha^2 p + 1)(1 - p))``.

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


# == recurrent and attention (sequence helper's section) ==
