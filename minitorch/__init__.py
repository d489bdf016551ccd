"""minitorch: a readable implementation of PyTorch's core, on NumPy (and CuPy on a GPU).

Code written against minitorch runs on PyTorch and back: ``import minitorch as torch``.
This file is the public face only; each name comes from the module that implements it and is bound
here once: imported as it is, or as ``name = _public(module.name)`` where the torch namespace checks a
tensor argument, takes ``out=`` or NumPy's argument names (``_public``, below; minitorch/_arguments.py).
"""

from __future__ import annotations

import math as _math

from . import _arguments, _creation, _dtype
from ._allocator import keep_freed_memory as _keep_freed_memory

_keep_freed_memory()  # Speed only: large arrays reuse freed pages instead of faulting in fresh ones (_allocator.py)
from ._device import device, get_default_device, set_default_device
from . import _meta  # registers the meta device: tensors with a shape and no data
from ._memory_format import (  # memory formats (channels_last...) and layouts
    channels_last, channels_last_3d, contiguous_format, layout, memory_format, preserve_format, strided,
)
from . import storage  # torch.storage: UntypedStorage, TypedStorage
from .storage import TypedStorage, UntypedStorage
from ._threads import get_num_threads, set_num_threads
from ._tensor_str import set_printoptions
from ._type_info import finfo, iinfo
from ._dtype import (
    bfloat16, bool, double, float, float16, float32, float64, get_default_dtype, half, int, int8, int16, int32, int64,
    long, set_default_dtype, short, uint8,
)
from ._dtype import dtype
from ._random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from ._tensor import Size, Tensor


def _public(function, name: str | None = None):
    """``function`` as the torch namespace offers it (minitorch/_arguments.py): its tensor argument checked,
    ``out=`` where PyTorch takes one (``_arguments.TAKES_OUT``), NumPy's argument names accepted. ``name`` is
    the public name where it differs from the function's own (``absolute`` for ``abs``)."""
    name = name or function.__name__
    return _arguments.public(
        function, takes_out=name in _arguments.TAKES_OUT, name=name, numpy_aliases=_arguments.NUMPY_ALIASES
    )


from ._tensor_type import (
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
    ShortTensor,
)
from ._creation import as_tensor, asarray, from_numpy, tensor
from ._number_operands import accepts_two_numbers as _accepts_two_numbers  # torch.add(5, 5)
from . import _conjugation  # conj and its relatives: real tensors are their own conjugate
arange = _public(_creation.arange)
bernoulli = _public(_creation.bernoulli)
binomial = _public(_creation.binomial)
empty = _public(_creation.empty)
empty_like = _public(_creation.empty_like)
empty_strided = _public(_creation.empty_strided)
frombuffer = _creation.frombuffer
eye = _public(_creation.eye)
full = _public(_creation.full)
full_like = _public(_creation.full_like)
linspace = _public(_creation.linspace)
logspace = _public(_creation.logspace)
multinomial = _public(_creation.multinomial)
normal = _public(_creation.normal)
poisson = _public(_creation.poisson)
ones = _public(_creation.ones)
ones_like = _public(_creation.ones_like)
rand = _public(_creation.rand)
rand_like = _public(_creation.rand_like)
randint = _public(_creation.randint)
randint_like = _public(_creation.randint_like)
randn = _public(_creation.randn)
randn_like = _public(_creation.randn_like)
randperm = _public(_creation.randperm)
zeros = _public(_creation.zeros)
zeros_like = _public(_creation.zeros_like)
from . import accelerator, autograd, backends, cuda
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from .autograd.anomaly_mode import is_anomaly_enabled  # torch.is_anomaly_enabled, beside torch.autograd's
from .ops import conversion, indexing, inplace, pointwise, reduction
from .ops import linalg as _linalg_ops, nn_ops as _nn_ops, shape as _shape_ops, sorting as _sorting_ops
from .ops import memory_format as _memory_format_ops
from . import _inplace_functions

__version__ = "0.1.0"

# The constants torch exports (torch.inf is math.inf; torch.newaxis is None, for indexing as in NumPy).
inf, nan, pi, e = _math.inf, _math.nan, _math.pi, _math.e
newaxis = None


def is_tensor(obj) -> builtins_bool:
    return isinstance(obj, Tensor)


@_public
def is_floating_point(input: Tensor) -> builtins_bool:
    return input.is_floating_point()


@_public
def is_inference(input: Tensor) -> builtins_bool:
    return input.is_inference()


@_public
def numel(input: Tensor) -> builtins_int:
    return input.numel()


def result_type(tensor1, tensor2) -> dtype:
    return _dtype.result_type(tensor1, tensor2)


@_public  # a tensor where a dtype goes: PyTorch's TypeError
def can_cast(from_: dtype, to: dtype) -> builtins_bool:
    """Whether an in-place op may write a ``from_`` result into a ``to`` tensor (no float->int, no ->bool)."""
    return from_.category <= to.category


promote_types = _public(_dtype.promote_types)


import builtins as _builtins

builtins_bool, builtins_int = _builtins.bool, _builtins.int

# One block per module of ops/, each name where the module defines it.
# --- pointwise (ops/pointwise/) ---
abs = _public(pointwise.abs)
absolute = _public(pointwise.absolute, "absolute")
acos = _public(pointwise.acos)
acosh = _public(pointwise.acosh)
add = _public(_accepts_two_numbers(pointwise.add))
allclose = _public(pointwise.allclose)
arccos = _public(pointwise.arccos, "arccos")
arccosh = _public(pointwise.arccosh, "arccosh")
arcsin = _public(pointwise.arcsin, "arcsin")
arcsinh = _public(pointwise.arcsinh, "arcsinh")
arctan = _public(pointwise.arctan, "arctan")
arctan2 = _public(pointwise.arctan2, "arctan2")
arctanh = _public(pointwise.arctanh, "arctanh")
asin = _public(pointwise.asin)
asinh = _public(pointwise.asinh)
atan = _public(pointwise.atan)
atan2 = _public(pointwise.atan2)
atanh = _public(pointwise.atanh)
bitwise_and = _public(pointwise.bitwise_and)
bitwise_left_shift = _public(pointwise.bitwise_left_shift)
bitwise_right_shift = _public(pointwise.bitwise_right_shift)
bitwise_not = _public(pointwise.bitwise_not)
bitwise_or = _public(pointwise.bitwise_or)
bitwise_xor = _public(pointwise.bitwise_xor)
ceil = _public(pointwise.ceil)
clamp = _public(pointwise.clamp)
clamp_max = _public(pointwise.clamp_max)
clamp_min = _public(pointwise.clamp_min)
clip = _public(pointwise.clip, "clip")
copysign = _public(pointwise.copysign)
cos = _public(pointwise.cos)
cosh = _public(pointwise.cosh)
deg2rad = _public(pointwise.deg2rad)
digamma = _public(pointwise.digamma)
div = _public(_accepts_two_numbers(pointwise.div))
divide = _public(_accepts_two_numbers(pointwise.divide), "divide")
eq = _public(pointwise.eq)
equal = _public(pointwise.equal)
erf = _public(pointwise.erf)
erfc = _public(pointwise.erfc)
erfinv = _public(pointwise.erfinv)
exp = _public(pointwise.exp)
exp2 = _public(pointwise.exp2)
expm1 = _public(pointwise.expm1)
fix = _public(pointwise.fix, "fix")
float_power = _public(pointwise.float_power)
floor = _public(pointwise.floor)
floor_divide = _public(_accepts_two_numbers(pointwise.floor_divide))
fmax = _public(pointwise.fmax)
fmin = _public(pointwise.fmin)
fmod = _public(pointwise.fmod)
frac = _public(pointwise.frac)
frexp = _public(pointwise.frexp)
gcd = _public(pointwise.gcd)
ge = _public(pointwise.ge)
greater = _public(pointwise.greater, "greater")
greater_equal = _public(pointwise.greater_equal, "greater_equal")
gt = _public(pointwise.gt)
heaviside = _public(pointwise.heaviside)
hypot = _public(pointwise.hypot)
i0 = _public(pointwise.i0)
isclose = _public(pointwise.isclose)
isfinite = _public(pointwise.isfinite)
isin = _public(pointwise.isin)
isinf = _public(pointwise.isinf)
isnan = _public(pointwise.isnan)
isneginf = _public(pointwise.isneginf)
isposinf = _public(pointwise.isposinf)
isreal = _public(pointwise.isreal)
lcm = _public(pointwise.lcm)
ldexp = _public(pointwise.ldexp)
le = _public(pointwise.le)
lerp = _public(pointwise.lerp)
less = _public(pointwise.less, "less")
less_equal = _public(pointwise.less_equal, "less_equal")
lgamma = _public(pointwise.lgamma)
log = _public(pointwise.log)
log10 = _public(pointwise.log10)
log1p = _public(pointwise.log1p)
log2 = _public(pointwise.log2)
logaddexp = _public(pointwise.logaddexp)
logaddexp2 = _public(pointwise.logaddexp2)
logical_and = _public(pointwise.logical_and)
logical_not = _public(pointwise.logical_not)
logical_or = _public(pointwise.logical_or)
logical_xor = _public(pointwise.logical_xor)
logit = _public(pointwise.logit)
lt = _public(pointwise.lt)
maximum = _public(pointwise.maximum)
minimum = _public(pointwise.minimum)
mul = _public(_accepts_two_numbers(pointwise.mul))
multiply = _public(_accepts_two_numbers(pointwise.multiply), "multiply")
nan_to_num = _public(pointwise.nan_to_num)
ne = _public(pointwise.ne)
neg = _public(pointwise.neg)
negative = _public(pointwise.negative, "negative")
nextafter = _public(pointwise.nextafter)
not_equal = _public(pointwise.not_equal, "not_equal")
polygamma = _public(pointwise.polygamma)
positive = _public(pointwise.positive)
pow = _public(pointwise.pow)
rad2deg = _public(pointwise.rad2deg)
reciprocal = _public(pointwise.reciprocal)
relu = _public(pointwise.relu)
remainder = _public(pointwise.remainder)
round = _public(pointwise.round)
rsqrt = _public(pointwise.rsqrt)
rsub = _public(pointwise.rsub)
sgn = _public(pointwise.sgn)
sigmoid = _public(pointwise.sigmoid)
sign = _public(pointwise.sign)
signbit = _public(pointwise.signbit)
sin = _public(pointwise.sin)
sinc = _public(pointwise.sinc)
sinh = _public(pointwise.sinh)
sqrt = _public(pointwise.sqrt)
square = _public(pointwise.square)
sub = _public(_accepts_two_numbers(pointwise.sub))
subtract = _public(_accepts_two_numbers(pointwise.subtract), "subtract")
tan = _public(pointwise.tan)
tanh = _public(pointwise.tanh)
true_divide = _public(_accepts_two_numbers(pointwise.true_divide), "true_divide")
trunc = _public(pointwise.trunc)
where = _public(pointwise.where)
xlogy = _public(pointwise.xlogy)

# --- reductions (ops/reduction.py) ---
all = _public(reduction.all)
amax = _public(reduction.amax)
amin = _public(reduction.amin)
aminmax = _public(reduction.aminmax)
any = _public(reduction.any)
argmax = _public(reduction.argmax)
argmin = _public(reduction.argmin)
argwhere = _public(reduction.argwhere)
bincount = _public(reduction.bincount)
count_nonzero = _public(reduction.count_nonzero)
cummax = _public(reduction.cummax)
cummin = _public(reduction.cummin)
cumprod = _public(reduction.cumprod)
cumsum = _public(reduction.cumsum)
cumulative_trapezoid = _public(reduction.cumulative_trapezoid)
diff = _public(reduction.diff)
histc = _public(reduction.histc)
histogram = _public(reduction.histogram)
logcumsumexp = _public(reduction.logcumsumexp)
logsumexp = _public(reduction.logsumexp)
max = _public(reduction.max)
mean = _public(reduction.mean)
min = _public(reduction.min)
nanmean = _public(reduction.nanmean)
nansum = _public(reduction.nansum)
norm = _public(reduction.norm)
prod = _public(reduction.prod)
renorm = _public(reduction.renorm)
std = _public(reduction.std)
std_mean = _public(reduction.std_mean)
sum = _public(reduction.sum)
trapezoid = _public(reduction.trapezoid)
trapz = _public(reduction.trapz)
var = _public(reduction.var)
var_mean = _public(reduction.var_mean)

# --- softmax (ops/nn_ops.py) ---
log_softmax = _public(_nn_ops.log_softmax)
softmax = _public(_nn_ops.softmax)

# --- linear algebra (ops/linalg.py) ---
cdist = _public(_linalg_ops.cdist)
einsum = _public(_linalg_ops.einsum)
vander = _public(_linalg_ops.vander)
addbmm = _public(_linalg_ops.addbmm)
addcdiv = _public(_linalg_ops.addcdiv)
addcmul = _public(_linalg_ops.addcmul)
addmm = _public(_linalg_ops.addmm)
addmv = _public(_linalg_ops.addmv)
baddbmm = _public(_linalg_ops.baddbmm)
bmm = _public(_linalg_ops.bmm)
cholesky = _public(_linalg_ops.cholesky)
corrcoef = _public(_linalg_ops.corrcoef)
cov = _public(_linalg_ops.cov)
cross = _public(_linalg_ops.cross)
det = _public(_linalg_ops.det)
diag = _public(_linalg_ops.diag)
diag_embed = _public(_linalg_ops.diag_embed)
diagflat = _public(_linalg_ops.diagflat)
diagonal = _public(_linalg_ops.diagonal)
diagonal_scatter = _public(_linalg_ops.diagonal_scatter)
dist = _public(_linalg_ops.dist)
dot = _public(_linalg_ops.dot)
inner = _public(_linalg_ops.inner)
inverse = _public(_linalg_ops.inverse)
kron = _public(_linalg_ops.kron)
logdet = _public(_linalg_ops.logdet)
matmul = _public(_linalg_ops.matmul)
matrix_exp = _public(_linalg_ops.matrix_exp)
matrix_power = _public(_linalg_ops.matrix_power)
mm = _public(_linalg_ops.mm)
mv = _public(_linalg_ops.mv)
outer = _public(_linalg_ops.outer)
pdist = _public(_linalg_ops.pdist)
pinverse = _public(_linalg_ops.pinverse)
qr = _public(_linalg_ops.qr)
slogdet = _public(_linalg_ops.slogdet)
svd = _public(_linalg_ops.svd)
tensordot = _public(_linalg_ops.tensordot)
trace = _public(_linalg_ops.trace)
vdot = _public(_linalg_ops.vdot)

# --- shapes (ops/shape.py) ---
from .ops.shape import broadcast_shapes, expand, view
atleast_1d = _public(_shape_ops.atleast_1d)
atleast_2d = _public(_shape_ops.atleast_2d)
atleast_3d = _public(_shape_ops.atleast_3d)
block_diag = _public(_shape_ops.block_diag)
broadcast_tensors = _public(_shape_ops.broadcast_tensors)
cartesian_prod = _public(_shape_ops.cartesian_prod)
meshgrid = _public(_shape_ops.meshgrid)
broadcast_to = _public(_shape_ops.broadcast_to)
cat = _public(_shape_ops.cat)
chunk = _public(_shape_ops.chunk)
clone = _public(_memory_format_ops.clone)  # torch.clone(x, memory_format=...): ops/memory_format.py
column_stack = _public(_shape_ops.column_stack)
combinations = _public(_shape_ops.combinations)
concat = _public(_shape_ops.concat, "concat")
concatenate = _public(_shape_ops.concatenate, "concatenate")
dsplit = _public(_shape_ops.dsplit)
dstack = _public(_shape_ops.dstack)
flatten = _public(_shape_ops.flatten)
flip = _public(_shape_ops.flip)
fliplr = _public(_shape_ops.fliplr)
flipud = _public(_shape_ops.flipud)
hsplit = _public(_shape_ops.hsplit)
hstack = _public(_shape_ops.hstack)
movedim = _public(_shape_ops.movedim)
narrow = _public(_shape_ops.narrow)
narrow_copy = _public(_shape_ops.narrow_copy)
permute = _public(_shape_ops.permute)
ravel = _public(_shape_ops.ravel)
repeat_interleave = _public(_shape_ops.repeat_interleave)
reshape = _public(_shape_ops.reshape)
roll = _public(_shape_ops.roll)
rot90 = _public(_shape_ops.rot90)
select = _public(_shape_ops.select)
split = _public(_shape_ops.split)
squeeze = _public(_shape_ops.squeeze)
stack = _public(_shape_ops.stack)
swapaxes = _public(_shape_ops.swapaxes)
swapdims = _public(_shape_ops.swapdims, "swapdims")
t = _public(_shape_ops.t)
tensor_split = _public(_shape_ops.tensor_split)
tile = _public(_shape_ops.tile)
transpose = _public(_shape_ops.transpose)
unbind = _public(_shape_ops.unbind)
unflatten = _public(_shape_ops.unflatten)
unsqueeze = _public(_shape_ops.unsqueeze)
vsplit = _public(_shape_ops.vsplit)
vstack = _public(_shape_ops.vstack)

# --- sorting (ops/sorting.py) ---
from .ops.sorting import unravel_index
argsort = _public(_sorting_ops.argsort)
bucketize = _public(_sorting_ops.bucketize)
kthvalue = _public(_sorting_ops.kthvalue)
median = _public(_sorting_ops.median)
mode = _public(_sorting_ops.mode)
msort = _public(_sorting_ops.msort)
nanmedian = _public(_sorting_ops.nanmedian)
nanquantile = _public(_sorting_ops.nanquantile)
quantile = _public(_sorting_ops.quantile)
searchsorted = _public(_sorting_ops.searchsorted)
sort = _public(_sorting_ops.sort)
topk = _public(_sorting_ops.topk)
unique = _public(_sorting_ops.unique)
unique_consecutive = _public(_sorting_ops.unique_consecutive)

# --- indexing (ops/indexing.py) ---
from .ops.indexing import tril_indices, triu_indices
gather = _public(indexing.gather)
index_add = _public(indexing.index_add)
index_copy = _public(indexing.index_copy)
index_fill = _public(indexing.index_fill)
index_put = _public(indexing.index_put)
index_select = _public(indexing.index_select)
masked_fill = _public(indexing.masked_fill)
masked_scatter = _public(indexing.masked_scatter)
masked_select = _public(indexing.masked_select)
nonzero = _public(indexing.nonzero)
scatter = _public(indexing.scatter)
scatter_add = _public(indexing.scatter_add)
scatter_reduce = _public(indexing.scatter_reduce)
select_scatter = _public(indexing.select_scatter)
slice_scatter = _public(indexing.slice_scatter)
take = _public(indexing.take)
take_along_dim = _public(indexing.take_along_dim)
tril = _public(indexing.tril)
triu = _public(indexing.triu)

moveaxis = _public(_shape_ops.movedim, "moveaxis")

# The namespaces torch.return_types, torch.linalg and torch.functional.
from . import return_types
from . import linalg  # minitorch/linalg.py, not ops/linalg.py
from .linalg import chain_matmul  # in the torch namespace, not torch.linalg
cholesky_solve = _public(linalg.cholesky_solve)
conj = _public(_conjugation.conj)
conj_physical = _public(_conjugation.conj_physical)
is_conj = _public(_conjugation.is_conj)
resolve_conj = _public(_conjugation.resolve_conj)
from . import functional  # re-exports the public functions bound above (torch.norm is torch.functional.norm)


# minitorch.relu_(x), minitorch.exp_(x)...: the in-place methods as functions (_inplace_functions.py)
abs_ = _public(_inplace_functions.abs_)
acos_ = _public(_inplace_functions.acos_)
acosh_ = _public(_inplace_functions.acosh_)
addmv_ = _public(_inplace_functions.addmv_)
arccos_ = _public(_inplace_functions.arccos_)
arccosh_ = _public(_inplace_functions.arccosh_)
arcsin_ = _public(_inplace_functions.arcsin_)
arcsinh_ = _public(_inplace_functions.arcsinh_)
arctan_ = _public(_inplace_functions.arctan_)
arctanh_ = _public(_inplace_functions.arctanh_)
asin_ = _public(_inplace_functions.asin_)
asinh_ = _public(_inplace_functions.asinh_)
atan_ = _public(_inplace_functions.atan_)
atanh_ = _public(_inplace_functions.atanh_)
ceil_ = _public(_inplace_functions.ceil_)
clamp_ = _public(_inplace_functions.clamp_)
clamp_max_ = _public(_inplace_functions.clamp_max_)
clamp_min_ = _public(_inplace_functions.clamp_min_)
clip_ = _public(_inplace_functions.clip_)
cos_ = _public(_inplace_functions.cos_)
cosh_ = _public(_inplace_functions.cosh_)
deg2rad_ = _public(_inplace_functions.deg2rad_)
detach_ = _public(_inplace_functions.detach_)
erf_ = _public(_inplace_functions.erf_)
erfc_ = _public(_inplace_functions.erfc_)
exp2_ = _public(_inplace_functions.exp2_)
exp_ = _public(_inplace_functions.exp_)
expm1_ = _public(_inplace_functions.expm1_)
fill_ = _public(_inplace_functions.fill_)
fix_ = _public(_inplace_functions.fix_)
floor_ = _public(_inplace_functions.floor_)
frac_ = _public(_inplace_functions.frac_)
gcd_ = _public(_inplace_functions.gcd_)
i0_ = _public(_inplace_functions.i0_)
index_put_ = _public(_inplace_functions.index_put_)
lcm_ = _public(_inplace_functions.lcm_)
ldexp_ = _public(_inplace_functions.ldexp_)
log10_ = _public(_inplace_functions.log10_)
log1p_ = _public(_inplace_functions.log1p_)
log2_ = _public(_inplace_functions.log2_)
log_ = _public(_inplace_functions.log_)
logit_ = _public(_inplace_functions.logit_)
nan_to_num_ = _public(_inplace_functions.nan_to_num_)
neg_ = _public(_inplace_functions.neg_)
negative_ = _public(_inplace_functions.negative_)
rad2deg_ = _public(_inplace_functions.rad2deg_)
reciprocal_ = _public(_inplace_functions.reciprocal_)
relu_ = _public(_inplace_functions.relu_)
round_ = _public(_inplace_functions.round_)
rsqrt_ = _public(_inplace_functions.rsqrt_)
sigmoid_ = _public(_inplace_functions.sigmoid_)
sin_ = _public(_inplace_functions.sin_)
sinc_ = _public(_inplace_functions.sinc_)
sinh_ = _public(_inplace_functions.sinh_)
sqrt_ = _public(_inplace_functions.sqrt_)
square_ = _public(_inplace_functions.square_)
tan_ = _public(_inplace_functions.tan_)
tanh_ = _public(_inplace_functions.tanh_)
trunc_ = _public(_inplace_functions.trunc_)
xlogy_ = _public(_inplace_functions.xlogy_)
zero_ = _public(_inplace_functions.zero_)

from . import optim
from . import distributed  # process groups and collectives (mpi4py is imported only when used)
from . import nn
from .serialization import load, save
from . import utils
from . import testing  # assert_close
from . import special  # torch.special's names
mvlgamma = _public(special.multigammaln, "mvlgamma")  # torch.mvlgamma is torch.special.multigammaln
from . import amp  # GradScaler, autocast
from .amp import (
    autocast, clear_autocast_cache, get_autocast_dtype, is_autocast_cache_enabled, is_autocast_enabled,
    set_autocast_cache_enabled,
)
from . import random  # torch.random: fork_rng and the default generator's state
from . import profiler  # torch.profiler: profile, record_function, key_averages().table()
from . import distributions  # Normal, Categorical, kl_divergence...
from .cuda import amp as _cuda_amp  # noqa: F401 - minitorch.cuda.amp, the deprecated home of GradScaler
from ._dlpack import from_dlpack
from . import vision
from . import onnx  # export to ONNX (needs the `onnx` package only when export runs)
from . import func
from .func import vmap  # torch.vmap is torch.func.vmap
from . import fx  # graph capture and editing (torch.fx)
from . import jit  # torch.jit's eager-mode names: is_scripting(), ignore, annotate...
from ._dynamo import compile  # noqa: A004 - torch.compile shadows the builtin in its namespace too
from ._deterministic import (  # the reproducibility switch; every minitorch op is deterministic
    _assert, are_deterministic_algorithms_enabled, get_deterministic_debug_mode,
    is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode, use_deterministic_algorithms,
)

# torch.celu, torch.selu, torch.threshold...: functions of nn.functional that the torch namespace has too
celu = _public(nn.functional.celu)
celu_ = _public(nn.functional.celu_)
rrelu_ = _public(nn.functional.rrelu_)
selu = _public(nn.functional.selu)
selu_ = _public(nn.functional.selu_)
threshold = _public(nn.functional.threshold)
threshold_ = _public(nn.functional.threshold_)

# torch._foreach_add_(tensors, others), torch._foreach_lerp_(...)...: one op over a list of tensors (_foreach.py)
from ._foreach import FOREACH as _FOREACH

globals().update(_FOREACH)

# Sparse COO tensors (_sparse_coo.py) and torch.sparse (sparse.py): graph networks' adjacency matrices
from ._sparse_coo import sparse_coo, sparse_coo_tensor
from . import sparse



@_public
def spmm(input: Tensor, mat2: Tensor) -> Tensor:
    """``torch.spmm(sparse, dense)``: the older name of ``torch.sparse.mm`` (``sparse.py``)."""
    return sparse.mm(input, mat2)
