"""ONNX mappings of the matrix products (``minitorch/ops/linalg.py``): ``MatMul`` follows ``numpy.matmul``'s rules."""

from __future__ import annotations

from ..ops import linalg as ops
from ._registry import maps


@maps(ops.MatMul, ops.Mm, ops.Mv, ops.Dot, ops.Bmm)
def matmul(graph, call):
    return graph.node("MatMul", [graph.input(call, 0), graph.input(call, 1)])


@maps(ops.Einsum)
def einsum(graph, call):
    equation, operands = call.args[0], call.args[1:]
    return graph.node("Einsum", [graph.name_of(operand) for operand in operands], equation=equation.replace(" ", ""))
