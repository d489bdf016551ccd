"""Ops for neural-network layers, where one fused op beats a chain of small ones.

* ``Linear``: ``y = x W^T + b`` in one node (PyTorch's ``addmm``), instead of a
  transpose, a matrix product and an addition. Every MLP runs it, so it is worth it.
* ``Softmax`` and ``LogSoftmax``: numerically stable forwards (subtract the maximum
  before ``exp``) and short backwards written with the saved *output*.

``minitorch.nn.functional`` calls these; the argument checks and PyTorch's error messages
live there, next to the public functions.
"""

from __future__ import annotations

from ..autograd.function import Op
from ._util import array_module


class Linear(Op):
    """``y = x @ W^T + b``: ``x`` is ``(..., in)``, ``W`` is ``(out, in)``, ``b`` broadcasts to ``(..., out)``.

    ``dx = grad @ W``;  ``dW = grad^T @ x`` (summed over every batch dimension: both are
    flattened to 2-D first);  ``db = grad`` (the engine sums it down to ``b``'s shape).
    ``bias`` may be None (then it gets no gradient).
    """

    node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, input, weight, bias):
        ctx.save_for_backward(input, weight)
        ctx.vector_bias = bias is not None and bias.ndim == 1
        output = input @ weight.T
        if bias is not None:
            output += bias  # output is a fresh array, so adding in place saves a copy
        return output

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        batch_2d = grad.dim() == 2  # the common case: no reshapes needed
        if ctx.needs_input_grad[0]:
            grad_input = grad.matmul(weight)
        if ctx.needs_input_grad[1]:
            if batch_2d:
                grad_weight = grad.t().matmul(input)
            else:
                out_features, in_features = weight.shape
                grad_weight = grad.reshape(-1, out_features).t().matmul(input.reshape(-1, in_features))
        if ctx.needs_input_grad[2]:
            # A bias vector gets the sum over the batch; any other bias shape is left to the engine.
            grad_bias = grad.sum(0) if batch_2d and ctx.vector_bias else grad
        return grad_input, grad_weight, grad_bias


class LinearNoBias(Linear):
    """``y = x @ W^T`` (``Linear`` without a bias): PyTorch names its node ``MmBackward0``."""

    node_name = "MmBackward0"


def _reduction_axis(x, dim: int):
    """The axis to reduce over; a 0-d array has none (NumPy wants ``None`` there)."""
    return dim if x.ndim else None


class Softmax(Op):
    """``y_i = exp(x_i - m) / sum_j exp(x_j - m)`` along ``dim``, with ``m = max_j x_j``.

    Subtracting the maximum changes nothing mathematically but keeps ``exp`` from
    overflowing. ``dx = y * (grad - sum_j(grad_j * y_j))``.
    """

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        xp = array_module(x)
        axis = _reduction_axis(x, dim)
        if x.size == 0:  # nothing to normalise (and max() of nothing is an error)
            output = x.copy()
            ctx.save_for_backward(output)
            return output
        exponentials = xp.exp(x - x.max(axis=axis, keepdims=True))
        output = exponentials / exponentials.sum(axis=axis, keepdims=True)
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad):
        (output,) = ctx.saved_tensors
        return output * (grad - (grad * output).sum(ctx.dim, keepdim=True)), None


class LogSoftmax(Op):
    """``y_i = x_i - m - log(sum_j exp(x_j - m))`` along ``dim``, with ``m = max_j x_j`` (log-sum-exp trick).

    ``dx = grad - exp(y) * sum_j grad_j`` (``exp(y)`` is the softmax).
    """

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        xp = array_module(x)
        axis = _reduction_axis(x, dim)
        if x.size == 0:
            output = x.copy()
            ctx.save_for_backward(output)
            return output
        shifted = x - x.max(axis=axis, keepdims=True)
        output = shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad):
        (output,) = ctx.saved_tensors
        return grad - output.exp() * grad.sum(ctx.dim, keepdim=True), None
