"""``minitorch.relu_(x)``, ``minitorch.exp_(x)``...: the in-place methods PyTorch also offers as functions.

Each is the method ``input.name_(...)`` (``_tensor.py``), called as a function of the namespace; the
public face (``__init__.py``) gathers them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._tensor import Tensor


def abs_(input: Tensor) -> Tensor:
    """``input.abs_(...)``: ``input`` overwritten in place."""
    return input.abs_()


def acos_(input: Tensor) -> Tensor:
    """``input.acos_(...)``: ``input`` overwritten in place."""
    return input.acos_()


def acosh_(input: Tensor) -> Tensor:
    """``input.acosh_(...)``: ``input`` overwritten in place."""
    return input.acosh_()


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``input.addmv_(...)``: ``input`` overwritten in place."""
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)


def arccos_(input: Tensor) -> Tensor:
    """``input.arccos_(...)``: ``input`` overwritten in place."""
    return input.arccos_()


def arccosh_(input: Tensor) -> Tensor:
    """``input.arccosh_(...)``: ``input`` overwritten in place."""
    return input.arccosh_()


def arcsin_(input: Tensor) -> Tensor:
    """``input.arcsin_(...)``: ``input`` overwritten in place."""
    return input.arcsin_()


def arcsinh_(input: Tensor) -> Tensor:
    """``input.arcsinh_(...)``: ``input`` overwritten in place."""
    return input.arcsinh_()


def arctan_(input: Tensor) -> Tensor:
    """``input.arctan_(...)``: ``input`` overwritten in place."""
    return input.arctan_()


def arctanh_(input: Tensor) -> Tensor:
    """``input.arctanh_(...)``: ``input`` overwritten in place."""
    return input.arctanh_()


def asin_(input: Tensor) -> Tensor:
    """``input.asin_(...)``: ``input`` overwritten in place."""
    return input.asin_()


def asinh_(input: Tensor) -> Tensor:
    """``input.asinh_(...)``: ``input`` overwritten in place."""
    return input.asinh_()


def atan_(input: Tensor) -> Tensor:
    """``input.atan_(...)``: ``input`` overwritten in place."""
    return input.atan_()


def atanh_(input: Tensor) -> Tensor:
    """``input.atanh_(...)``: ``input`` overwritten in place."""
    return input.atanh_()


def ceil_(input: Tensor) -> Tensor:
    """``input.ceil_(...)``: ``input`` overwritten in place."""
    return input.ceil_()


def clamp_(input: Tensor, min=None, max=None) -> Tensor:
    """``input.clamp_(...)``: ``input`` overwritten in place."""
    return input.clamp_(min, max)


def clamp_max_(input: Tensor, max) -> Tensor:
    """``input.clamp_max_(...)``: ``input`` overwritten in place."""
    return input.clamp_max_(max)


def clamp_min_(input: Tensor, min) -> Tensor:
    """``input.clamp_min_(...)``: ``input`` overwritten in place."""
    return input.clamp_min_(min)


def clip_(input: Tensor, min=None, max=None) -> Tensor:
    """``input.clip_(...)``: ``input`` overwritten in place."""
    return input.clip_(min, max)


def cos_(input: Tensor) -> Tensor:
    """``input.cos_(...)``: ``input`` overwritten in place."""
    return input.cos_()


def cosh_(input: Tensor) -> Tensor:
    """``input.cosh_(...)``: ``input`` overwritten in place."""
    return input.cosh_()


def deg2rad_(input: Tensor) -> Tensor:
    """``input.deg2rad_(...)``: ``input`` overwritten in place."""
    return input.deg2rad_()


def detach_(input: Tensor) -> Tensor:
    """``input.detach_(...)``: ``input`` overwritten in place."""
    return input.detach_()


def erf_(input: Tensor) -> Tensor:
    """``input.erf_(...)``: ``input`` overwritten in place."""
    return input.erf_()


def erfc_(input: Tensor) -> Tensor:
    """``input.erfc_(...)``: ``input`` overwritten in place."""
    return input.erfc_()


def exp2_(input: Tensor) -> Tensor:
    """``input.exp2_(...)``: ``input`` overwritten in place."""
    return input.exp2_()


def exp_(input: Tensor) -> Tensor:
    """``input.exp_(...)``: ``input`` overwritten in place."""
    return input.exp_()


def expm1_(input: Tensor) -> Tensor:
    """``input.expm1_(...)``: ``input`` overwritten in place."""
    return input.expm1_()


def fill_(input: Tensor, value) -> Tensor:
    """``input.fill_(...)``: ``input`` overwritten in place."""
    return input.fill_(value)


def fix_(input: Tensor) -> Tensor:
    """``input.fix_(...)``: ``input`` overwritten in place."""
    return input.fix_()


def floor_(input: Tensor) -> Tensor:
    """``input.floor_(...)``: ``input`` overwritten in place."""
    return input.floor_()


def frac_(input: Tensor) -> Tensor:
    """``input.frac_(...)``: ``input`` overwritten in place."""
    return input.frac_()


def gcd_(input: Tensor, other) -> Tensor:
    """``input.gcd_(...)``: ``input`` overwritten in place."""
    return input.gcd_(other)


def i0_(input: Tensor) -> Tensor:
    """``input.i0_(...)``: ``input`` overwritten in place."""
    return input.i0_()


def index_put_(input: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """``input.index_put_(...)``: ``input`` overwritten in place."""
    return input.index_put_(indices, values, accumulate)


def lcm_(input: Tensor, other) -> Tensor:
    """``input.lcm_(...)``: ``input`` overwritten in place."""
    return input.lcm_(other)


def ldexp_(input: Tensor, other) -> Tensor:
    """``input.ldexp_(...)``: ``input`` overwritten in place."""
    return input.ldexp_(other)


def log10_(input: Tensor) -> Tensor:
    """``input.log10_(...)``: ``input`` overwritten in place."""
    return input.log10_()


def log1p_(input: Tensor) -> Tensor:
    """``input.log1p_(...)``: ``input`` overwritten in place."""
    return input.log1p_()


def log2_(input: Tensor) -> Tensor:
    """``input.log2_(...)``: ``input`` overwritten in place."""
    return input.log2_()


def log_(input: Tensor) -> Tensor:
    """``input.log_(...)``: ``input`` overwritten in place."""
    return input.log_()


def logit_(input: Tensor, eps=None) -> Tensor:
    """``input.logit_(...)``: ``input`` overwritten in place."""
    return input.logit_(eps)


def nan_to_num_(input: Tensor, nan=None, posinf=None, neginf=None) -> Tensor:
    """``input.nan_to_num_(...)``: ``input`` overwritten in place."""
    return input.nan_to_num_(nan, posinf, neginf)


def neg_(input: Tensor) -> Tensor:
    """``input.neg_(...)``: ``input`` overwritten in place."""
    return input.neg_()


def negative_(input: Tensor) -> Tensor:
    """``input.negative_(...)``: ``input`` overwritten in place."""
    return input.negative_()


def rad2deg_(input: Tensor) -> Tensor:
    """``input.rad2deg_(...)``: ``input`` overwritten in place."""
    return input.rad2deg_()


def reciprocal_(input: Tensor) -> Tensor:
    """``input.reciprocal_(...)``: ``input`` overwritten in place."""
    return input.reciprocal_()


def relu_(input: Tensor) -> Tensor:
    """``input.relu_(...)``: ``input`` overwritten in place."""
    return input.relu_()


def round_(input: Tensor, *, decimals: int = 0) -> Tensor:
    """``input.round_(...)``: ``input`` overwritten in place."""
    return input.round_(decimals=decimals)


def rsqrt_(input: Tensor) -> Tensor:
    """``input.rsqrt_(...)``: ``input`` overwritten in place."""
    return input.rsqrt_()


def sigmoid_(input: Tensor) -> Tensor:
    """``input.sigmoid_(...)``: ``input`` overwritten in place."""
    return input.sigmoid_()


def sin_(input: Tensor) -> Tensor:
    """``input.sin_(...)``: ``input`` overwritten in place."""
    return input.sin_()


def sinc_(input: Tensor) -> Tensor:
    """``input.sinc_(...)``: ``input`` overwritten in place."""
    return input.sinc_()


def sinh_(input: Tensor) -> Tensor:
    """``input.sinh_(...)``: ``input`` overwritten in place."""
    return input.sinh_()


def sqrt_(input: Tensor) -> Tensor:
    """``input.sqrt_(...)``: ``input`` overwritten in place."""
    return input.sqrt_()


def square_(input: Tensor) -> Tensor:
    """``input.square_(...)``: ``input`` overwritten in place."""
    return input.square_()


def tan_(input: Tensor) -> Tensor:
    """``input.tan_(...)``: ``input`` overwritten in place."""
    return input.tan_()


def tanh_(input: Tensor) -> Tensor:
    """``input.tanh_(...)``: ``input`` overwritten in place."""
    return input.tanh_()


def trunc_(input: Tensor) -> Tensor:
    """``input.trunc_(...)``: ``input`` overwritten in place."""
    return input.trunc_()


def xlogy_(input: Tensor, other) -> Tensor:
    """``input.xlogy_(...)``: ``input`` overwritten in place."""
    return input.xlogy_(other)


def zero_(input: Tensor) -> Tensor:
    """``input.zero_(...)``: ``input`` overwritten in place."""
    return input.zero_()
