"""Lowerings: ops written by the compiler on arrays, forward and backward.

Pointwise ops become NumPy lines that ``fusion.py`` chains into one kernel; ``Linear`` on a
batch of rows and cross-entropy become ``ArrayOp``s (below) that skip eager mode's per-op
bookkeeping; ``Linear`` on a batch of sequences becomes one 2-D matrix product when no
gradient is needed. Each is the math of the op's own ``forward``/``backward``, on arrays.

Pointwise ops: one NumPy line each, with the derivative as NumPy lines.

A fused kernel (``fusion.py``) is written from these templates. ``{0}``, ``{1}`` are the op's
arguments (a kernel input, an earlier step, or a number), ``{out}`` its result, ``{g}`` the
gradient arriving at the result; ``{into}`` is ``, out=buffer`` when the step writes into a
preallocated buffer and empty when it makes a new array. The forward lines are the NumPy calls
the ops' own ``forward`` makes, so a fused kernel computes the same numbers as eager mode;
the derivative lines are the ops' docstrings, on arrays.

    Mul:   y = a * b              da = g * b,   db = g * a
    Relu:  y = max(x, 0)          dx = g where y > 0, else 0
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from .._dtype import is_floating
from .._dynamo.capture import OpCall, array_of, check_indices
from ..ops.nn_ops import CrossEntropy, Linear
from ..ops.pointwise.activations import Relu, Sigmoid
from ..ops.pointwise.arithmetic import Add, Div, Mul, Neg, Sub
from ..ops.pointwise.exponential import Exp, Log
from ..ops.pointwise.powers import PowScalar, Sqrt
from ..ops.pointwise.trigonometric import Tanh
from ..ops.reduction import Mean, MeanDim, Sum, SumDim


@dataclass(frozen=True)
class Pointwise:
    forward: str  # one NumPy call
    derivatives: tuple  # per argument: the gradient contribution (None: no gradient, a setting)
    quiet: bool = False  # the op's forward silences NumPy's overflow warnings (np.errstate)


LOWERINGS = {
    Add: Pointwise("np.add({0}, {1}{into})", ("{g}", "{g}")),
    Sub: Pointwise("np.subtract({0}, {1}{into})", ("{g}", "-{g}")),
    Mul: Pointwise("np.multiply({0}, {1}{into})", ("{g} * {1}", "{g} * {0}")),
    Div: Pointwise("np.divide({0}, {1}{into})", ("{g} / {1}", "-{g} * {0} / ({1} * {1})"), quiet=True),
    Neg: Pointwise("np.negative({0}{into})", ("-{g}",)),
    Exp: Pointwise("np.exp({0}{into})", ("{g} * {out}",)),
    Log: Pointwise("np.log({0}{into})", ("{g} / {0}",)),
    Tanh: Pointwise("np.tanh({0}{into})", ("{g} * (1 - {out} * {out})",)),
    Sigmoid: Pointwise("np.divide(1, 1 + np.exp(-{0}){into})", ("{g} * (1 - {out}) * {out}",), quiet=True),
    Relu: Pointwise("np.maximum({0}, 0{into})", ("np.where({out} > 0, {g}, 0)",)),
    Sqrt: Pointwise("np.sqrt({0}{into})", ("{g} / (2 * {out})",), quiet=True),
    PowScalar: Pointwise("np.power({0}, {1}{into})", ("{g} * ({1} * {0} ** ({1} - 1))", None), quiet=True),
}


def spread(grad, shape: tuple, dims: tuple, keepdim: bool):
    """The gradient of a sum over ``dims``: ``grad`` put back in the summed dimensions and copied along them."""
    return np.broadcast_to(grad if keepdim else np.expand_dims(grad, dims), shape)


def spread_mean(grad, shape: tuple, dims: tuple, keepdim: bool):
    """The gradient of a mean over ``dims``: ``spread`` divided by the number of elements averaged."""
    count = int(np.prod([shape[dim] for dim in dims]))
    return spread(grad, shape, dims, keepdim) / count


# Reductions a fused kernel may end with (``fusion.attach_reductions``): the sum or mean of its last step.
# ``{1}``, ``{2}`` are the reduced dims and keepdim; the derivative copies the gradient back over them.
REDUCTIONS = {
    Sum: Pointwise("np.sum({0}, axis={1}, keepdims={2}{into})", ("spread({g}, {0}.shape, {1}, {2})", None, None,
                                                                  None)),
    SumDim: Pointwise("np.sum({0}, axis={1}, keepdims={2}{into})", ("spread({g}, {0}.shape, {1}, {2})", None,
                                                                     None, None)),
    Mean: Pointwise("np.mean({0}, axis={1}, keepdims={2}{into})", ("spread_mean({g}, {0}.shape, {1}, {2})", None,
                                                                    None)),
    MeanDim: Pointwise("np.mean({0}, axis={1}, keepdims={2}{into})", ("spread_mean({g}, {0}.shape, {1}, {2})",
                                                                       None, None)),
}


def linear_as_one_matrix_product(bias, input, weight):
    """``Linear`` on a ``(..., in)`` input as one 2-D product ``(N, in) @ (in, out)``.

    NumPy's ``@`` on a 3-D input calls BLAS once per batch element; flattening the batch
    dimensions first makes it one call on a taller matrix (what PyTorch's ``addmm`` does).
    """
    rows = input.reshape(-1, input.shape[-1])
    output = rows @ weight.T
    output += bias
    return output.reshape(input.shape[:-1] + (weight.shape[0],))


# Ops computed another way when no gradient is needed (the forward alone runs, on arrays).
INFERENCE_LOWERINGS = {Linear: linear_as_one_matrix_product}


class ArrayOp:
    """An op the compiler writes on arrays, forward and backward: no ``ctx`` node, no Tensor wrapping.

    Eager mode's ``Function.apply`` makes a node, saves tensors and wraps every array in a
    Tensor; a compiled program knows the shapes ahead of time, so for the ops of nearly every
    training step (``Linear`` on a batch of rows, cross-entropy on class labels) it runs the
    same formulas directly: ``forward_saving`` returns the result and what the backward needs,
    ``backward(saved, grad, needs)`` one gradient per argument (None for settings and for the
    arguments ``needs`` says need none, as ``ctx.needs_input_grad`` does in eager mode).
    """

    takes_needs = True

    def __init__(self, name: str):
        self.__name__ = name

    def __call__(self, *arguments):
        return self.forward_saving(*arguments)[0]

    @property
    def backward_source(self) -> str:
        return inspect.getsource(type(self).backward)

    @property
    def code(self) -> str:
        return inspect.getsource(type(self).forward_saving) + inspect.getsource(type(self).backward)


class LinearOnArrays(ArrayOp):
    """``y = x @ W^T + b`` for a batch of rows ``x``;  ``dx = g @ W``,  ``dW = g^T @ x``,  ``db = g`` summed."""

    @staticmethod
    def forward_saving(bias, input, weight):
        output = input @ weight.T
        output += bias
        return output, (input, weight)

    @staticmethod
    def backward(saved, grad, needs):
        input, weight = saved
        needs_bias, needs_input, needs_weight = needs
        return (grad.sum(axis=0) if needs_bias else None, grad @ weight if needs_input else None,
                grad.T @ input if needs_weight else None)


class CrossEntropyOnArrays(ArrayOp):
    """``loss_i = logsumexp(x_i) - x_i[y_i]`` (the row maximum subtracted first), then mean, sum or none;
    ``dx_i = (softmax(x_i) - onehot(y_i)) * grad_i`` (``grad / N`` for the mean)."""

    @staticmethod
    def forward_saving(logits, labels, reduction):
        check_indices(labels, logits.shape[1])  # as eager mode checks: else this call runs eagerly
        rows = np.arange(logits.shape[0])
        shifted = logits - logits.max(axis=1, keepdims=True)
        exponentials = np.exp(shifted)
        totals = exponentials.sum(axis=1, keepdims=True)
        losses = np.log(totals[:, 0]) - shifted[rows, labels]
        saved = (exponentials / totals, labels, reduction)
        if reduction == "mean":
            return np.asarray(losses.sum() / losses.shape[0]), saved
        if reduction == "sum":
            return np.asarray(losses.sum()), saved
        return losses, saved

    @staticmethod
    def backward(saved, grad, needs):
        probabilities, labels, reduction = saved
        difference = probabilities.copy()
        difference[np.arange(difference.shape[0]), labels] -= 1
        if reduction == "mean":
            difference *= grad / difference.shape[0]
        elif reduction == "sum":
            difference *= grad
        else:
            difference *= grad[:, None]
        return difference, None, None


def _is_matrix(argument, ndim: int) -> bool:
    value = argument.meta.get("val") if hasattr(argument, "meta") else None
    return value is not None and len(value) == 2 and isinstance(value[1], np.dtype) and is_floating(value[1]) and \
        len(value[0]) == ndim


def lower_to_arrays(graph_module) -> int:
    """Replace ``Linear`` on a batch of rows and cross-entropy on labels by their ``ArrayOp``s; returns how many."""
    graph = graph_module.graph
    lowered = 0
    for node in list(graph.nodes):
        if node.op != "call_function" or not isinstance(node.target, OpCall) or node.kwargs:
            continue
        args = node.args
        if node.target.op is Linear and len(args) == 3 and _is_matrix(args[0], 1) and _is_matrix(args[1], 2) \
                and _is_matrix(args[2], 2):
            array_op = LinearOnArrays("linear")
        elif node.target.op is CrossEntropy and len(args) == 3 and _is_matrix(args[0], 2) and \
                getattr(args[1], "target", None) is array_of and args[2] in ("mean", "sum", "none"):
            array_op = CrossEntropyOnArrays("cross_entropy")
        else:
            continue
        array_op.grad_enabled = node.target.grad_enabled
        with graph.inserting_before(node):
            replacement = graph.call_function(array_op, args)
        replacement.meta.update(val=node.meta["val"], requires_grad=node.meta.get("requires_grad", True))
        node.replace_all_uses_with(replacement)
        graph.erase_node(node)
        lowered += 1
    graph_module.recompile()
    return lowered
