"""minitorch: a readable implementation of PyTorch's core, on NumPy (and CuPy on a GPU).

Code written against minitorch runs on PyTorch and back: ``import minitorch as torch``.
This file is the public face only; each name comes from the module that implements it.
"""

from __future__ import annotations

from . import _dtype
from ._device import device, get_default_device, set_default_device
from ._dtype import (
    bool, double, float, float16, float32, float64, get_default_dtype, half, int, int8, int16, int32, int64,
    long, promote_types, set_default_dtype, short, uint8,
)
from ._dtype import dtype
from ._random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from ._tensor import Size, Tensor
from ._tensor_type import (
    BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor,
)
from ._creation import (
    arange, as_tensor, asarray, bernoulli, empty, empty_like, eye, from_numpy, full, full_like, linspace, logspace,
    multinomial, normal, ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like, randperm, tensor,
    zeros, zeros_like,
)
from . import accelerator, autograd, backends, cuda
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from .ops import conversion, indexing, inplace, pointwise, reduction
from .ops import shape as _shape_ops

__version__ = "0.1.0"


def is_tensor(obj) -> builtins_bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> builtins_bool:
    return input.is_floating_point()


def numel(input: Tensor) -> builtins_int:
    return input.numel()


def result_type(tensor1, tensor2) -> dtype:
    return _dtype.result_type(tensor1, tensor2)


def can_cast(from_: dtype, to: dtype) -> builtins_bool:
    """Whether an in-place op may write a ``from_`` result into a ``to`` tensor (no float->int, no ->bool)."""
    return from_.category <= to.category


import builtins as _builtins

builtins_bool, builtins_int = _builtins.bool, _builtins.int

# One block per module of ops/, each name where the module defines it.
# --- pointwise (ops/pointwise.py) ---
from .ops.pointwise import (  # noqa: A004 - PyTorch's names shadow abs, pow and round here
    abs, absolute, acos, acosh, add, allclose, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, asin, asinh,
    atan, atan2, atanh, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, ceil, clamp, clamp_max, clamp_min, clip,
    copysign, cos, cosh, deg2rad, digamma, div, divide, eq, equal, erf, erfc, erfinv, exp, exp2, expm1, fix,
    float_power, floor, floor_divide, fmax, fmin, fmod, frac, frexp, gcd, ge, greater, greater_equal, gt, heaviside,
    hypot, i0, isclose, isfinite, isin, isinf, isnan, isneginf, isposinf, isreal, lcm, ldexp, le, lerp, less,
    less_equal, lgamma, log, log10, log1p, log2, logaddexp, logaddexp2, logical_and, logical_not, logical_or,
    logical_xor, logit, lt, maximum, minimum, mul, multiply, nan_to_num, ne, neg, negative, nextafter, not_equal,
    polygamma, positive, pow, rad2deg, reciprocal, relu, remainder, round, rsqrt, rsub, sgn, sigmoid, sign, signbit,
    sin, sinc, sinh, sqrt, square, sub, subtract, tan, tanh, true_divide, trunc, where, xlogy,
)

# --- reductions (ops/reduction.py) ---
from .ops.reduction import (
    all, amax, amin, aminmax, any, argmax, argmin, argwhere, bincount, count_nonzero, cummax, cummin, cumprod, cumsum,
    cumulative_trapezoid, diff, histc, histogram, logcumsumexp, logsumexp, max, mean, min, nanmean, nansum, norm, prod,
    renorm, std, std_mean, sum, trapezoid, trapz, var, var_mean,
)

# --- softmax (ops/nn_ops.py) ---
from .ops.nn_ops import log_softmax, softmax

# --- linear algebra (ops/linalg.py) ---
from .ops.linalg import (
    addbmm, addcdiv, addcmul, addmm, addmv, baddbmm, bmm, cdist, cholesky, corrcoef, cov, cross, det, diag, diag_embed,
    diagflat, diagonal, diagonal_scatter, dist, dot, einsum, inner, inverse, kron, logdet, matmul, matrix_exp,
    matrix_power, mm, mv, outer, pdist, pinverse, qr, slogdet, svd, tensordot, trace, vander, vdot,
)

# --- shapes (ops/shape.py) ---
from .ops.shape import (
    atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes, broadcast_tensors, broadcast_to, cartesian_prod,
    cat, chunk, clone, column_stack, combinations, concat, concatenate, dsplit, dstack, expand, flatten, flip, fliplr,
    flipud, hsplit, hstack, meshgrid, movedim, narrow, narrow_copy, permute, ravel, repeat_interleave, reshape, roll,
    rot90, select, split, squeeze, stack, swapaxes, swapdims, t, tensor_split, tile, transpose, unbind, unflatten,
    unsqueeze, view, vsplit, vstack,
)

# --- sorting (ops/sorting.py) ---
from .ops.sorting import (
    argsort, bucketize, kthvalue, median, mode, msort, nanmedian, nanquantile, quantile, searchsorted, sort, topk,
    unique, unique_consecutive, unravel_index,
)

# --- indexing (ops/indexing.py) ---
from .ops.indexing import (
    gather, index_add, index_copy, index_fill, index_put, index_select, masked_fill, masked_scatter, masked_select,
    nonzero, scatter, scatter_add, scatter_reduce, select_scatter, slice_scatter, take, take_along_dim, tril,
    tril_indices, triu, triu_indices,
)

moveaxis = movedim

# The namespaces torch.return_types, torch.linalg and torch.functional.
from . import return_types
from . import linalg  # minitorch/linalg.py, not ops/linalg.py
from . import functional  # re-exports; its members are made the public functions below


# minitorch.relu_(x), minitorch.exp_(x)...: the in-place methods as functions (_inplace_functions.py)
from ._inplace_functions import (  # noqa: A004 - PyTorch's names
    abs_, acos_, acosh_, addmv_, arccos_, arccosh_, arcsin_, arcsinh_, arctan_, arctanh_, asin_, asinh_, atan_,
    atanh_, ceil_, clamp_, clamp_max_, clamp_min_, clip_, cos_, cosh_, deg2rad_, detach_, erf_, erfc_, exp2_, exp_,
    expm1_, fill_, fix_, floor_, frac_, gcd_, i0_, index_put_, lcm_, ldexp_, log10_, log1p_, log2_, log_, logit_,
    nan_to_num_, neg_, negative_, rad2deg_, reciprocal_, relu_, round_, rsqrt_, sigmoid_, sin_, sinc_, sinh_,
    sqrt_, square_, tan_, tanh_, trunc_, xlogy_, zero_,
)

from . import optim
from . import distributed  # process groups and collectives (mpi4py is imported only when used)
from . import nn
from .serialization import load, save
from . import utils
from ._dlpack import from_dlpack
from . import vision
from . import onnx  # export to ONNX (needs the `onnx` package only when export runs)
from . import func
from .nn.functional import celu, celu_, rrelu_, selu, selu_, threshold, threshold_  # torch.selu...

# Every public function checks its tensor argument and takes ``out=`` where PyTorch does (_arguments.py).
from . import _arguments

_arguments.make_public(
    globals(), [_name for _name in list(globals()) if not _name.startswith("_")], takes_out=_arguments.TAKES_OUT,
    numpy_aliases=_arguments.NUMPY_ALIASES,
)
# torch.functional's members are the very objects of the torch namespace (torch.norm is torch.functional.norm).
for _name in functional.__all__:
    setattr(functional, _name, globals()[_name])
