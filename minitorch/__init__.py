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


import builtins as _builtins  # noqa: E402

builtins_bool, builtins_int = _builtins.bool, _builtins.int

# --- pointwise exports (ops/pointwise.py) ---
from .ops.pointwise import (  # noqa: E402, A004 - PyTorch's names shadow abs, pow and round here
    abs, absolute, acos, add, allclose, arccos, arcsin, arctan, arctan2, asin, atan, atan2, bitwise_and, bitwise_not,
    bitwise_or, bitwise_xor, ceil, clamp, clamp_max, clamp_min, clip, cos, cosh, div, divide, eq, equal, erf, exp,
    exp2, expm1, fix, floor, floor_divide, fmod, frac, ge, greater, greater_equal, gt, hypot, isclose, isfinite, isinf,
    isnan, le, lerp, less, less_equal, log, log1p, log2, log10, logical_and, logical_not, logical_or, logical_xor, lt,
    maximum, minimum, mul, multiply, ne, neg, negative, not_equal, pow, reciprocal, relu, remainder, round, rsqrt, rsub,
    sigmoid, sign, sin, sinh, sqrt, square, sub, subtract, tan, tanh, true_divide, trunc, where,
)
from .ops.pointwise import (  # noqa: E402
    deg2rad, erfinv, heaviside, logaddexp, logaddexp2, logit, nan_to_num, rad2deg, sgn, signbit, xlogy,
)
from .ops.pointwise import (  # noqa: E402
    digamma, erfc, float_power, fmax, fmin, frexp, gcd, i0, isin, isneginf, isposinf, isreal, lcm, ldexp, lgamma,
    nextafter, polygamma, positive, sinc,
)
from .ops.pointwise import acosh, arccosh, arcsinh, arctanh, asinh, atanh, copysign  # noqa: E402

# --- reduction exports (ops/reduction.py) ---
from .ops.reduction import (  # noqa: E402
    all, amax, amin, any, argmax, argmin, cumsum, logsumexp, max, mean, min, norm, prod, std, std_mean, sum, var,
    var_mean,
)
from .ops.reduction import (  # noqa: E402
    bincount, count_nonzero, cummax, cummin, cumprod, diff, histc, logcumsumexp, nanmean, nansum, trapezoid,
)
from .ops.reduction import aminmax, argwhere, cumulative_trapezoid, histogram, renorm, trapz  # noqa: E402
from .ops.nn_ops import log_softmax, softmax  # noqa: E402
from . import return_types  # noqa: E402

# --- linalg exports (ops/linalg.py) ---
from .ops.linalg import bmm, dot, einsum, matmul, mm, mv, outer  # noqa: E402
from .ops.linalg import (  # noqa: E402
    addbmm, addcdiv, addcmul, addmm, addmv, baddbmm, cdist, cross, det, diag, diag_embed, diagonal, diagonal_scatter,
    dist, inner, inverse, kron, logdet, slogdet, trace,
)
from .ops.linalg import corrcoef, cov, vander  # noqa: E402
from .ops.linalg import (  # noqa: E402
    cholesky, diagflat, matrix_exp, matrix_power, pdist, pinverse, qr, svd, tensordot, vdot,
)
from . import linalg  # noqa: E402 - the torch.linalg namespace (minitorch/linalg.py), not ops/linalg.py
from . import functional  # noqa: E402 - the torch.functional namespace (re-exports)

# --- shape exports (ops/shape.py) ---
from .ops.shape import broadcast_shapes, broadcast_tensors  # noqa: E402
from .ops.shape import (  # noqa: E402
    broadcast_to, cat, chunk, clone, concat, concatenate, expand, flatten, flip, hstack, movedim, narrow, permute,
    reshape, roll, split, squeeze, stack, t, tile, transpose, unbind, unflatten, unsqueeze, view, vstack,
)
from .ops.shape import (  # noqa: E402
    atleast_1d, atleast_2d, atleast_3d, block_diag, cartesian_prod, fliplr, flipud, meshgrid, repeat_interleave,
    rot90, select, tensor_split,
)
from .ops.shape import column_stack, combinations, dsplit, dstack, hsplit, narrow_copy, ravel, vsplit  # noqa: E402
from .ops.shape import swapaxes, swapdims  # noqa: E402

moveaxis = movedim

# --- indexing exports (ops/indexing.py) ---
from .ops.sorting import argsort, sort, topk  # noqa: E402
from .ops.sorting import (  # noqa: E402
    bucketize, kthvalue, median, mode, msort, nanmedian, nanquantile, quantile, searchsorted, unique,
    unique_consecutive,
)
from .ops.sorting import unravel_index  # noqa: E402
from .ops.indexing import tril, triu  # noqa: E402
from .ops.indexing import (  # noqa: E402
    index_add, index_copy, masked_scatter, select_scatter, slice_scatter, take_along_dim, tril_indices, triu_indices,
)
from .ops.indexing import (  # noqa: E402
    gather, index_select, masked_fill, masked_select, nonzero, scatter, scatter_add, take,
)
from .ops.indexing import index_fill, index_put, scatter_reduce  # noqa: E402

for _name in inplace.MODULE_FUNCTIONS:  # minitorch.relu_(x), minitorch.exp_(x)... (ops/inplace.py)
    globals()[_name] = inplace.module_function(_name)

from . import optim  # noqa: E402
from . import distributed  # noqa: E402 - process groups and collectives (mpi4py is imported only when used)
from . import nn  # noqa: E402
from .serialization import load, save  # noqa: E402
from . import utils  # noqa: E402
from ._dlpack import from_dlpack  # noqa: E402
from . import vision  # noqa: E402
from . import onnx  # noqa: E402 - export to ONNX (needs the `onnx` package only when export runs)
from . import func  # noqa: E402
from .nn.functional import celu, celu_, rrelu_, selu, selu_, threshold, threshold_  # noqa: E402 - torch.selu...

# Every public function checks its tensor argument and takes ``out=`` where PyTorch does (_arguments.py).
from . import _arguments  # noqa: E402

_arguments.make_public(
    globals(), [_name for _name in list(globals()) if not _name.startswith("_")], takes_out=_arguments.TAKES_OUT,
    numpy_aliases=_arguments.NUMPY_ALIASES,
)
_arguments.accept_numpy_aliases(Tensor)
# torch.functional's members are the very objects of the torch namespace (torch.norm is torch.functional.norm).
for _name in functional.__all__:
    setattr(functional, _name, globals()[_name])
