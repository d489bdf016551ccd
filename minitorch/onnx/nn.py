"""ONNX mappings of the neural-network ops (``minitorch/ops/nn_ops.py``): linear, softmax, layer norm, embedding.

Batch norm in evaluation mode needs no mapping of its own: minitorch computes it as
``x * scale + shift`` with per-channel constants (``nn.functional.batch_norm``), and the
exporter folds ``scale`` and ``shift`` from the running statistics into two initializers.
Dropout in evaluation mode runs no op at all, so it leaves nothing in the graph.
"""

from __future__ import annotations

import numpy as np

from ..ops import nn_ops as ops
from ._registry import maps
from .errors import UnsupportedOperatorError


@maps(ops.Linear)
def linear(graph, call):
    """``b + x @ W^T`` (arguments in ``addmm`` order: bias, input, weight)."""
    bias, x, weight = call.args[:3]
    return _linear(graph, x, bias, graph.input(call, 1), graph.input(call, 2), graph.input(call, 0))


@maps(ops.LinearNoBias)
def linear_no_bias(graph, call):
    """``x @ W^T``."""
    x = call.args[0]
    return _linear(graph, x, None, graph.input(call, 0), graph.input(call, 1), None)


def _linear(graph, x, bias, x_name, weight_name, bias_name):
    """``x @ W^T + b``: ``Gemm(transB=1)`` for a 2-D input, ``MatMul`` then ``Add`` otherwise."""
    if len(x.shape) == 2 and (bias is None or len(bias.shape) <= 1):
        return graph.node("Gemm", [x_name, weight_name, bias_name], alpha=1.0, beta=1.0, transB=1)
    product = graph.node("MatMul", [x_name, graph.node("Transpose", [weight_name], perm=[1, 0])])
    return product if bias is None else graph.node("Add", [product, bias_name])


@maps(ops.Softmax)
def softmax(graph, call):
    return graph.node("Softmax", [graph.input(call, 0)], axis=int(call.args[1]))


@maps(ops.LogSoftmax)
def log_softmax(graph, call):
    return graph.node("LogSoftmax", [graph.input(call, 0)], axis=int(call.args[1]))


@maps(ops.Normalize)
def normalize(graph, call):
    """Layer norm over the trailing ``axes``: ``LayerNormalization`` (opset 17+), else its formula.

    ``y = (x - mean) / sqrt(var + eps) * w + b`` with the biased variance over ``axes``.
    """
    x, weight, bias, axes, eps, return_stats = call.args
    rank = len(x.shape)
    axes = sorted(axis % rank for axis in axes)
    if return_stats or axes != list(range(rank - len(axes), rank)):
        raise UnsupportedOperatorError(
            f"Exporting 'minitorch::{call.name}' over axes {axes} (batch or group statistics, as in training-mode "
            f"batch norm) is not supported (called at {call.where}); export the model in eval mode"
        )
    x_name = graph.input(call, 0)
    weight_name = graph.input(call, 1) if weight is not None else None
    bias_name = graph.input(call, 2) if bias is not None else None
    # LayerNormalization needs a scale; made of ones here, so only where the normalized sizes are fixed
    static = all(isinstance(dim, int) for dim in graph.dims(x)[axes[0]:])
    if graph.opset >= 17 and (weight_name is not None or static):
        if weight_name is None:
            weight_name = graph.constant(np.ones(x.shape[axes[0]:], dtype=x.dtype))
        return graph.node("LayerNormalization", [x_name, weight_name, bias_name], axis=axes[0], epsilon=float(eps))
    mean = graph.reduce("ReduceMean", x_name, axes, True)
    centred = graph.node("Sub", [x_name, mean])
    variance = graph.reduce("ReduceMean", graph.node("Mul", [centred, centred]), axes, True)
    deviation = graph.node("Sqrt", [graph.node("Add", [variance, graph.scalar_like(eps, x)])])
    result = graph.node("Div", [centred, deviation])
    if weight_name is not None:
        result = graph.node("Mul", [result, weight_name])
    if bias_name is not None:
        result = graph.node("Add", [result, bias_name])
    return result


@maps(ops.Embedding)
def embedding(graph, call):
    """``weight[indices]``: ``Gather`` along the rows (``padding_idx`` only changes the gradient)."""
    return graph.node("Gather", [graph.input(call, 0), graph.input(call, 1)], axis=0)
