"""Linear functions: ``linear`` (``x W^T + b``) and ``bilinear`` (``x1^T A x2 + b``).

``linear`` is defined in ``ops/nn_ops.py``, beside the op it records (``Linear``, PyTorch's ``addmm``): every
network runs it, and a reader follows it there in one file. It checks its own arguments where its plain path
ends (``_linear_otherwise``), so it needs no ``_arguments.public`` wrapper.
"""

from __future__ import annotations

from ... import _arguments
from ..._tensor import Tensor
from ...ops.nn_ops import linear  # noqa: F401  (F.linear: defined beside its op)

# ``bilinear`` is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch does
# (minitorch/_arguments.py).
__all__ = [
    "linear", "bilinear",
]


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
