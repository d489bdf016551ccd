"""ONNX mappings of the shape ops (``minitorch/ops/shape.py``): reshape, permute, cat, split...

A reshape's target comes from the recorded output shape, not from the arguments: a size read
with ``x.size(0)`` in ``forward`` was a plain number while recording, and only the recorded
shapes (``GraphBuilder.shape_of``) know that it follows the dynamic batch axis.
"""

from __future__ import annotations

import numpy as np

from ..ops import shape as ops
from ._registry import maps

INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


@maps(ops.Reshape, ops.View, size_aware=True)
def reshape(graph, call):
    return graph.node("Reshape", [graph.input(call, 0), graph.shape_of(call.outputs[0])])


@maps(ops.Expand, size_aware=True)
def expand(graph, call):
    return graph.node("Expand", [graph.input(call, 0), graph.shape_of(call.outputs[0])])


@maps(ops.Squeeze, ops.SqueezeDim, ops.SqueezeDims)
def squeeze(graph, call):
    axes = list(call.args[1])
    return graph.squeeze(graph.input(call, 0), axes) if axes else graph.node("Identity", [graph.input(call, 0)])


@maps(ops.Unsqueeze)
def unsqueeze(graph, call):
    return graph.unsqueeze(graph.input(call, 0), [int(call.args[1])])


@maps(ops.Permute)
def permute(graph, call):
    rank = len(call.args[0].shape)
    return graph.node("Transpose", [graph.input(call, 0)], perm=[int(d) % rank for d in call.args[1]])


@maps(ops.Transpose, ops.T)
def transpose(graph, call):
    x = call.args[0]
    rank = len(x.shape)
    if len(call.args) < 3:  # .t() of a matrix
        first, second = 0, rank - 1
    else:
        first, second = int(call.args[1]) % rank, int(call.args[2]) % rank
    perm = list(range(rank))
    perm[first], perm[second] = perm[second], perm[first]
    return graph.node("Transpose", [graph.input(call, 0)], perm=perm)


@maps(ops.Cat)
def cat(graph, call):
    dim, tensors = call.args[0], call.args[1:]
    rank = len(call.outputs[0].shape)
    names = [graph.name_of(t) for t in tensors if t.shape != (0,)]  # PyTorch skips empty 1-D tensors in cat
    return graph.node("Concat", names, axis=int(dim) % rank)


@maps(ops.Stack)
def stack(graph, call):
    dim, tensors = call.args[0], call.args[1:]
    axis = int(dim) % len(call.outputs[0].shape)
    return graph.node("Concat", [graph.unsqueeze(graph.name_of(t), [axis]) for t in tensors], axis=axis)


@maps(ops.Split, ops.SplitWithSizes)
def split(graph, call):
    x, sizes, dim = call.args
    axis = int(dim) % len(x.shape)
    return tuple(graph.node("Split", [graph.input(call, 0), graph.int64s(list(sizes))], outputs=len(sizes),
                            axis=axis)) if len(sizes) > 1 else graph.node("Identity", [graph.input(call, 0)])


@maps(ops.Unbind)
def unbind(graph, call):
    x, dim = call.args
    axis = int(dim) % len(x.shape)
    name = graph.input(call, 0)
    return tuple(graph.node("Gather", [name, graph.constant(np.asarray(i, dtype=np.int64))], axis=axis)
                 for i in range(x.shape[axis]))


@maps(ops.Clone, ops.Contiguous)
def identity(graph, call):
    return graph.node("Identity", [graph.input(call, 0)])


@maps(ops.Flip)
def flip(graph, call):
    x, dims = call.args
    axes = [int(d) % len(x.shape) for d in dims]
    count = len(axes)
    return graph.node("Slice", [graph.input(call, 0), graph.int64s([-1] * count), graph.int64s([INT64_MIN] * count),
                                graph.int64s(axes), graph.int64s([-1] * count)])


@maps(ops.Repeat)
def repeat(graph, call):
    x, repeats = call.args
    repeats = list(repeats)
    name = graph.input(call, 0)
    if len(repeats) > len(x.shape):  # leading new dimensions, as in PyTorch
        name = graph.unsqueeze(name, list(range(len(repeats) - len(x.shape))))
    return graph.node("Tile", [name, graph.int64s(repeats)])
