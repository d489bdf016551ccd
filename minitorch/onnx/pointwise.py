"""ONNX mappings of the elementwise ops (``minitorch/ops/pointwise.py``).

Most are one ONNX operator with the same broadcasting rules (NumPy's): ``Add`` is ``Add``,
``Tanh`` is ``Tanh``. A Python number operand becomes a 0-d constant of the result's dtype;
an operand of another dtype is cast first, as the op promoted it.
"""

from __future__ import annotations

import numpy as np

from ..ops import pointwise as ops
from ._registry import maps
from ._trace import Value
from .errors import UnsupportedOperatorError


def operand(graph, call, index: int, dtype) -> str:
    """Argument ``index`` of ``call`` as an ONNX name of ``dtype`` (a number becomes a constant)."""
    argument = call.args[index]
    if isinstance(argument, Value):
        name = graph.name_of(argument)
        return name if argument.dtype == np.dtype(dtype) else graph.cast(name, dtype)
    return graph.constant(np.asarray(argument, dtype=dtype))


def _result_dtype(call):
    return call.outputs[0].dtype


def _unary(op_type: str):
    def mapping(graph, call):
        return graph.node(op_type, [operand(graph, call, 0, _result_dtype(call))])

    return mapping


def _binary(op_type: str):
    def mapping(graph, call):
        dtype = _result_dtype(call)
        return graph.node(op_type, [operand(graph, call, 0, dtype), operand(graph, call, 1, dtype)])

    return mapping


for _op, _onnx in ((ops.Add, "Add"), (ops.Sub, "Sub"), (ops.Mul, "Mul"), (ops.Div, "Div"), (ops.Pow, "Pow"),
                   (ops.Maximum, "Max"), (ops.Minimum, "Min")):
    maps(_op)(_binary(_onnx))

for _op, _onnx in ((ops.Neg, "Neg"), (ops.Sqrt, "Sqrt"), (ops.Reciprocal, "Reciprocal"), (ops.Exp, "Exp"),
                   (ops.Log, "Log"), (ops.Tanh, "Tanh"), (ops.Sigmoid, "Sigmoid"), (ops.Relu, "Relu"),
                   (ops.Erf, "Erf"), (ops.Abs, "Abs"), (ops.Sin, "Sin"), (ops.Cos, "Cos"), (ops.Sign, "Sign"),
                   (ops.Floor, "Floor"), (ops.Ceil, "Ceil")):
    maps(_op)(_unary(_onnx))


@maps(ops.Rsqrt)
def rsqrt(graph, call):
    """``1 / sqrt(x)``."""
    return graph.node("Reciprocal", [graph.node("Sqrt", [graph.input(call, 0)])])


@maps(ops.Expm1)
def expm1(graph, call):
    """``exp(x) - 1`` (ONNX has no expm1; the difference is rounding near 0)."""
    return graph.node("Sub", [graph.node("Exp", [graph.input(call, 0)]), graph.scalar_like(1, call.outputs[0])])


@maps(ops.Log1p)
def log1p(graph, call):
    return graph.node("Log", [graph.node("Add", [graph.input(call, 0), graph.scalar_like(1, call.outputs[0])])])


@maps(ops.DivScalar)
def div_scalar(graph, call):
    """``x / s`` for a number ``s`` (cross_entropy's mean over class probabilities)."""
    return graph.node("Div", [graph.input(call, 0), graph.scalar_like(call.args[1], call.outputs[0])])


@maps(ops.PowScalar)
def pow_scalar(graph, call):
    """``x ** p``; ``x ** 2`` as ``x * x`` (what runtimes compute fastest, and exactly)."""
    x, exponent = graph.input(call, 0), call.args[1]
    if exponent == 2:
        return graph.node("Mul", [x, x])
    if exponent == 1:
        return graph.node("Identity", [x])
    return graph.node("Pow", [x, graph.scalar_like(exponent, call.outputs[0])])


@maps(ops.RPow)
def rpow(graph, call):
    """``base ** x`` for a number ``base``."""
    dtype = _result_dtype(call)
    return graph.node("Pow", [operand(graph, call, 0, dtype), operand(graph, call, 1, dtype)])


@maps(ops.Clamp, ops.ClampMin, ops.ClampMax)
def clamp(graph, call):
    """``min(max(x, low), high)``; ``Clip`` takes the bounds as inputs."""
    dtype = _result_dtype(call)
    x = operand(graph, call, 0, dtype)
    low = None if call.args[1] is None else operand(graph, call, 1, dtype)
    high = None if call.args[2] is None else operand(graph, call, 2, dtype)
    if all(a is None or not isinstance(a, Value) or a.shape == () for a in call.args[1:3]):
        return graph.node("Clip", [x, low, high])
    result = x if low is None else graph.node("Max", [x, low])
    return result if high is None else graph.node("Min", [result, high])


@maps(ops.Where)
def where(graph, call):
    """``Where(condition, a, b)``; the condition as bool."""
    dtype = _result_dtype(call)
    condition = call.args[0]
    condition_name = graph.name_of(condition) if isinstance(condition, Value) else graph.constant(np.asarray(condition))
    if not isinstance(condition, Value) or condition.dtype != np.bool_:
        condition_name = graph.cast(condition_name, np.bool_)
    return graph.node("Where", [condition_name, operand(graph, call, 1, dtype), operand(graph, call, 2, dtype)])


# -- the comparisons and logical functions (bool results, recorded by name) ----------------------------
_COMPARISONS = {"eq": "Equal", "lt": "Less", "le": "LessOrEqual", "gt": "Greater", "ge": "GreaterOrEqual"}


def _comparison_dtype(call):
    """The dtype both operands are compared in (PyTorch's promotion: a number does not widen a tensor's
    dtype, except a float number against an integer tensor)."""
    tensors = [a.dtype for a in call.args[:2] if isinstance(a, Value)]
    numbers = [a for a in call.args[:2] if not isinstance(a, Value)]
    dtype = np.result_type(*tensors)
    if dtype.kind in "iub" and any(isinstance(number, float) for number in numbers):
        return np.dtype(np.float32)
    return dtype


@maps(*_COMPARISONS)
def compare(graph, call):
    dtype = _comparison_dtype(call)
    return graph.node(_COMPARISONS[call.name], [operand(graph, call, 0, dtype), operand(graph, call, 1, dtype)])


@maps("ne")
def not_equal(graph, call):
    return graph.node("Not", [compare_equal(graph, call)])


def compare_equal(graph, call):
    dtype = _comparison_dtype(call)
    return graph.node("Equal", [operand(graph, call, 0, dtype), operand(graph, call, 1, dtype)])


_LOGICAL = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}


@maps(*_LOGICAL)
def logical(graph, call):
    return graph.node(_LOGICAL[call.name], [operand(graph, call, 0, np.bool_), operand(graph, call, 1, np.bool_)])


@maps("logical_not")
def logical_not(graph, call):
    return graph.node("Not", [operand(graph, call, 0, np.bool_)])


# -- ``~``, ``&``, ``|``, ``^``: logical on bool tensors, bit by bit on integer tensors -------------------------------
_BITWISE = {"bitwise_and": ("And", "BitwiseAnd"), "bitwise_or": ("Or", "BitwiseOr"),
            "bitwise_xor": ("Xor", "BitwiseXor"), "bitwise_not": ("Not", "BitwiseNot")}
BITWISE_OPSET = 18  # ONNX's BitwiseAnd/Or/Xor/Not arrived in opset 18


@maps(*_BITWISE)
def bitwise(graph, call):
    """``~mask``, ``a & b``, ``a | b``, ``a ^ b``: ``Not``/``And``/``Or``/``Xor`` on bool tensors (the masks of
    attention and padding); ``BitwiseNot``/``BitwiseAnd``/... on integer tensors (opset 18 and later)."""
    dtype = _result_dtype(call)
    logical_op, bitwise_op = _BITWISE[call.name]
    count = 1 if call.name == "bitwise_not" else 2
    operands = [operand(graph, call, index, dtype) for index in range(count)]
    if dtype == np.bool_:
        return graph.node(logical_op, operands)
    if graph.opset < BITWISE_OPSET:
        raise UnsupportedOperatorError(
            f"Exporting the operator 'minitorch::{call.name}' on {dtype} tensors to ONNX opset version {graph.opset} "
            f"is not supported: ONNX's {bitwise_op} needs opset {BITWISE_OPSET} or later (called at {call.where}). "
            f"Export with opset_version={BITWISE_OPSET} or later, or use bool tensors."
        )
    return graph.node(bitwise_op, operands)
