"""Lowerings: each pointwise op as one NumPy line, with its derivative as NumPy lines.

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

from dataclasses import dataclass

from ..ops.nn_ops import Linear
from ..ops.pointwise.activations import Relu, Sigmoid
from ..ops.pointwise.arithmetic import Add, Div, Mul, Neg, Sub
from ..ops.pointwise.exponential import Exp, Log
from ..ops.pointwise.powers import PowScalar, Sqrt
from ..ops.pointwise.trigonometric import Tanh


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
