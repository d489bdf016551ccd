"""ONNX mappings of the reductions (``minitorch/ops/reduction.py``): sum, mean, max, var, logsumexp."""

from __future__ import annotations

import numpy as np

from ..ops import reduction as ops
from ._registry import maps


def _axes(x, dims) -> list:
    rank = len(x.shape)
    if dims is None:
        return list(range(rank))
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    return [int(d) % rank for d in dims] if rank else []


def _reduce(graph, call, op_type: str, dims, keepdim: bool) -> str:
    x = call.args[0]
    name = graph.input(call, 0)
    output = call.outputs[0]
    if x.dtype != output.dtype:  # sum(dtype=...) or an integer sum widened to int64
        name = graph.cast(name, output.dtype)
    axes = _axes(x, dims)
    if not axes:
        return graph.node("Identity", [name])
    return graph.reduce(op_type, name, axes, keepdim)


@maps(ops.Sum, ops.SumDim)
def sum_(graph, call):
    return _reduce(graph, call, "ReduceSum", call.args[1], call.args[2])


@maps(ops.Mean, ops.MeanDim)
def mean(graph, call):
    return _reduce(graph, call, "ReduceMean", call.args[1], call.args[2])


@maps(ops.Amax, ops.Amin, ops.MaxAll, ops.MinAll)
def extreme(graph, call):
    x, dims, keepdim, which = call.args
    return _reduce(graph, call, "ReduceMax" if which == "max" else "ReduceMin", dims, keepdim)


@maps(ops.MaxDim, ops.MinDim)
def extreme_with_index(graph, call):
    """``values, indices = x.max(dim)``: ``ReduceMax`` and ``ArgMax`` (the first index on ties, as NumPy)."""
    x, axis, keepdim, find_index = call.args
    axis = int(axis) % len(x.shape)
    name = graph.input(call, 0)
    values = graph.reduce("ReduceMax" if find_index == "argmax" else "ReduceMin", name, [axis], keepdim)
    indices = graph.node("ArgMax" if find_index == "argmax" else "ArgMin", [name], axis=axis, keepdims=int(keepdim),
                         select_last_index=0)
    return values, indices


@maps(ops.Var)
def var(graph, call):
    """``sum (x - mean)^2 / (n - correction)``."""
    x, dims, keepdim, freedom = call.args
    axes = _axes(x, dims)
    name = graph.input(call, 0)
    centred = graph.node("Sub", [name, graph.reduce("ReduceMean", name, axes, True)])
    squares = graph.reduce("ReduceSum", graph.node("Mul", [centred, centred]), axes, keepdim)
    return graph.node("Div", [squares, graph.constant(np.asarray(freedom, dtype=x.dtype))])


@maps(ops.LogSumExp)
def logsumexp(graph, call):
    """``m + log(sum exp(x - m))`` with ``m`` the maximum (no overflow)."""
    x, dims, keepdim = call.args
    axes = _axes(x, dims)
    name = graph.input(call, 0)
    peak = graph.reduce("ReduceMax", name, axes, True)
    total = graph.reduce("ReduceSum", graph.node("Exp", [graph.node("Sub", [name, peak])]), axes, True)
    result = graph.node("Add", [graph.node("Log", [total]), peak])
    return result if keepdim else graph.squeeze(result, axes)
