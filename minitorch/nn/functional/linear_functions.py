"""Linear functions: ``linear`` (``x W^T + b``) and ``bilinear`` (``x1^T A x2 + b``).
"""

from __future__ import annotations

import math

from ... import _arguments, _autocast_state, _messages
from ..._tensor import Tensor
from ...ops import nn_ops
from ._utils import _check_expandable

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "linear", "bilinear",
]


@_arguments.public
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y = input @ weight^T + bias``; ``weight`` is ``(out_features, in_features)``.

        >>> import minitorch
        >>> x = minitorch.ones(2, 3)
        >>> minitorch.nn.functional.linear(x, minitorch.ones(4, 3)).shape
        minitorch.Size([2, 4])
    """
    if not (isinstance(input, Tensor) and weight._data.ndim == 2 and input._data.shape[-1:] == weight._data.shape[1:]
            and input._data.dtype == weight._data.dtype and (bias is None or bias._data.dtype == input._data.dtype
                                                             and bias._data.shape == weight._data.shape[:1])):
        _check_linear(input, weight, bias)  # PyTorch's errors for operands linear cannot take
        if weight._data.ndim == 1:  # a vector of weights (and no bias): the output loses its last dimension
            return input.matmul(weight)
    if bias is None:
        return nn_ops.LinearNoBias.apply(input, weight)
    return nn_ops.Linear.apply(bias, input, weight)  # PyTorch's addmm order: bias first


def _check_linear(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's errors for operands ``linear`` cannot take: ranks, sizes, dtypes, a bias that does not broadcast."""
    if not isinstance(input, Tensor):
        raise _arguments.must_be_tensor("linear", input, "input", 1)
    input_shape, weight_shape = input._data.shape, weight._data.shape
    if not input_shape or not weight_shape:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {len(input_shape)}D and "
            f"{len(weight_shape)}D"
        )
    if len(weight_shape) == 1 and bias is None:
        return  # a matrix-vector product: matmul checks it
    if len(weight_shape) != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {len(weight_shape)}-D tensor")
    in_features = input_shape[-1]
    out_features, weight_in_features = weight_shape
    if in_features != weight_in_features:
        rows = math.prod(input_shape[:-1])
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{in_features} and {weight_in_features}x{out_features})"
        )
    mixed = input._data.dtype != weight._data.dtype or (bias is not None and bias._data.dtype != input._data.dtype)
    if mixed and not _autocast_state.casts_inputs():  # (autocast casts them to one dtype first)
        other = weight if input._data.dtype != weight._data.dtype else bias
        raise RuntimeError(_messages.m1_m2_dtypes(input.dtype, other.dtype))
    if bias is not None and bias._data.shape != (out_features,):
        _check_expandable(bias._data.shape, input_shape[:-1] + (out_features,))


@_arguments.public
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y_k = input1^T W_k input2 + b_k`` for each output ``k``; ``weight`` is ``(out, in1, in2)``.

    Computed as one matrix product: ``input1 @ W`` (with ``W`` laid out as ``in1 x (out * in2)``)
    gives ``input1^T W_k`` for every ``k`` at once; multiplying by ``input2`` and summing
    over ``in2`` finishes each bilinear form.
    """
    _check_bilinear(input1, input2, weight, bias)
    out_features, in1_features, in2_features = weight.shape
    batch_shape = tuple(input1.shape[:-1])
    left = input1.reshape(-1, in1_features)
    right = input2.reshape(-1, in2_features)
    weight_matrix = weight.permute(1, 0, 2).reshape(in1_features, out_features * in2_features)
    left_times_weight = left.matmul(weight_matrix).reshape(-1, out_features, in2_features)
    output = (left_times_weight * right.unsqueeze(1)).sum(-1)
    if bias is not None:
        output = output + bias
    return output.reshape(batch_shape + (out_features,))


def _check_bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's errors for inputs, weight and bias whose sizes do not fit together."""
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
