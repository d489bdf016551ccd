"""``autocast``: run the ops that gain from low precision in bfloat16, and the ones that lose by it in float32.

Mixed precision on a CPU: matrix products and convolutions are fast and accurate enough in bfloat16
(each product is accumulated in float32 and rounded once), while losses, reductions over many values
and ill-conditioned linear algebra need float32. Inside ``with autocast("cpu"):`` each op on PyTorch's
lists casts its floating inputs first (float64 is left alone) and runs as usual:

* lower precision (``dtype``, bfloat16 by default): ``matmul``, ``mm``, ``bmm``, ``linear``,
  ``conv1d/2d/3d``, ``conv_transpose1d/2d/3d``, ``prelu``, ``scaled_dot_product_attention``,
  ``baddbmm``, ``addmm``, ``addbmm``, ``linalg.vecdot``;
* float32: the losses (``mse_loss``, ``cross_entropy``, ``nll_loss``, ``l1_loss``, ``smooth_l1_loss``,
  ``huber_loss``, ``binary_cross_entropy(_with_logits)``, ``kl_div``, the margin and embedding
  losses), ``linalg.inv/solve/cholesky/qr/svd/eigh/pinv``, ``prod``, ``cdist``, ``trace``, and ``pad`` in
  the ``reflect`` (1-d and 2-d) and ``replicate`` modes (minitorch has no fft functions to list);
* promote (every floating input to the widest dtype among them): ``stack``, ``cat``, ``index_copy``;
* every other op runs in the dtype of its inputs, with the usual promotion.

These are PyTorch's CPU lists (``aten/src/ATen/autocast_mode.cpp``, ``AutocastCPU``), restricted to the ops
minitorch has. ``autocast("cuda")`` (float16 by default, for CuPy arrays) follows PyTorch's CUDA lists
(``autocast_mode.h``), which differ: ``mv``, ``addmv`` and ``einsum`` in lower precision as well; in float32
also ``exp``, ``log`` and their variants, ``pow``, ``reciprocal``, ``rsqrt``, ``tan``, ``sinh``, ``cosh``,
``acos``, ``asin``, ``erfinv``, ``softmax``, ``log_softmax``, ``cumsum``, ``cumprod``, ``logsumexp``, ``dist``,
``layer_norm``, ``group_norm``, ``softplus``; but not the CPU's linear algebra, ``trace`` or padding.

Within a block, the cast of a float32 leaf that requires grad (a layer's weight) to the lower precision is kept
and reused, so a weight used twice is cast once and its gradient flows through one node, as with PyTorch's
cast cache; leaving the outermost block (or ``clear_autocast_cache()``) forgets the casts, and
``autocast(..., cache_enabled=False)`` turns the cache off.
The casts are ordinary differentiable ``to`` calls, so gradients flow back in each
parameter's own dtype; ``backward()`` belongs outside the ``with`` block, as PyTorch recommends.

    >>> import minitorch
    >>> layer = minitorch.nn.Linear(4, 2)
    >>> with minitorch.autocast("cpu"):
    ...     out = layer(minitorch.ones(3, 4))
    ...     loss = minitorch.nn.functional.mse_loss(out, minitorch.zeros(3, 2))
    >>> out.dtype, loss.dtype
    (minitorch.bfloat16, minitorch.float32)

How it reaches the ops: an op with an ``Op`` class (matmul, linear, convolution, the fused losses) is
listed by class, and while any ``autocast`` is active those classes' ``apply`` runs through
``_autocast_apply`` (installed on entering, removed on leaving, as ``compile``'s capture swaps
``Function.apply``), so the plain path pays nothing when autocast is off. An op composed of several
ops (most losses) carries ``@autocast_inputs("float32")`` on its function; one below ``amp`` (``trace``,
``baddbmm``) asks ``_autocast_state.cast_inputs``, which this module fills. Like minitorch's grad mode, the state
is the process's, not each thread's.
"""

from __future__ import annotations

import functools
import warnings

from .. import _dtype
from .._autocast_state import AutocastState as _AutocastState
from .._device import get_backend
from .._tensor import Tensor
from ..autograd.function import Function
from ..ops import conv, linalg, nn_ops, pointwise, reduction

__all__ = ["autocast", "autocast_inputs", "clear_autocast_cache", "get_autocast_dtype", "is_autocast_cache_enabled",
           "is_autocast_enabled", "set_autocast_cache_enabled"]

_SUPPORTED_DTYPES = {"cpu": (_dtype.bfloat16, _dtype.float16), "cuda": (_dtype.bfloat16, _dtype.float16)}

LOWER, FLOAT32, PROMOTE = "lower_precision_fp", "float32", "promote"

# Op classes by policy, per device type: PyTorch 2.13's lists (aten/src/ATen/autocast_mode.cpp: ``AutocastCPU``,
# and for CUDA the ``AT_FORALL_*`` lists of autocast_mode.h), restricted to the ops minitorch has. PyTorch's
# "fp32_set_opt_dtype" (softmax, cumsum... asked for their result in float32) gives what "float32" gives here
# (``sum`` is not cast on CUDA yet; ``prod`` casts in its function, as its result dtype is decided before).
# Subclasses not named, such as Mv and Dot on the CPU, run unchanged. Ops composed of others carry
# ``@autocast_inputs`` or ask ``_autocast_state.cast_inputs`` instead.
_PRODUCTS = {
    linalg.MatMul: LOWER, linalg.Mm: LOWER, linalg.Bmm: LOWER, linalg.Addmm: LOWER, linalg.Baddbmm: LOWER,
    nn_ops.Linear: LOWER, nn_ops.LinearNoBias: LOWER,
    conv.Convolution: LOWER, conv.ConvolutionTranspose: LOWER,
}
_OP_POLICIES = {
    "cpu": {
        **_PRODUCTS,
        linalg.Inverse: FLOAT32, linalg.Solve: FLOAT32, linalg.Cholesky: FLOAT32, linalg.Qr: FLOAT32,
        linalg.Svd: FLOAT32, linalg.Eigh: FLOAT32, linalg.Pinv: FLOAT32,
    },
    "cuda": {
        **_PRODUCTS, linalg.Mv: LOWER, linalg.Einsum: LOWER,
        pointwise.Acos: FLOAT32, pointwise.Asin: FLOAT32, pointwise.Cosh: FLOAT32, pointwise.Erfinv: FLOAT32,
        pointwise.Exp: FLOAT32, pointwise.Expm1: FLOAT32, pointwise.Log: FLOAT32, pointwise.Log10: FLOAT32,
        pointwise.Log2: FLOAT32, pointwise.Log1p: FLOAT32, pointwise.Reciprocal: FLOAT32, pointwise.Rsqrt: FLOAT32,
        pointwise.Sinh: FLOAT32, pointwise.Tan: FLOAT32, pointwise.Pow: FLOAT32, pointwise.PowScalar: FLOAT32,
        pointwise.RPow: FLOAT32, reduction.Dist: FLOAT32, reduction.LogSumExp: FLOAT32,
        reduction.Cumsum: FLOAT32, reduction.Cumprod: FLOAT32, nn_ops.Softmax: FLOAT32, nn_ops.LogSoftmax: FLOAT32,
        pointwise.Atan2: PROMOTE,
    },
}
_LISTED = frozenset(_OP_POLICIES["cpu"]) | frozenset(_OP_POLICIES["cuda"])

# Casts of float32 leaves that require grad (a model's weights) to the lower precision, kept while a block is open
# (PyTorch's cast cache: a weight used several times is cast once, and its gradient flows through one node)
_CAST_CACHE: dict = {}
_cache_enabled = [True]


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` (``"cuda"`` when not given, as in PyTorch)."""
    return _AutocastState.enabled[_device_type(device_type or "cuda")]


def get_autocast_dtype(device_type: str) -> _dtype.dtype:
    """The lower-precision dtype autocast uses on ``device_type`` (bfloat16 on the CPU by default)."""
    return _AutocastState.dtype[_device_type(device_type)]


def _device_type(device_type: str) -> str:
    if device_type not in _AutocastState.enabled:
        raise RuntimeError(f"unsupported autocast device_type '{device_type}'")
    return device_type


class autocast:
    """``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a context manager (or a
    decorator) inside which the listed ops cast their inputs (see the module's docstring)."""

    def __init__(self, device_type: str, dtype: _dtype.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _device_type(device_type)
        self.fast_dtype = _AutocastState.dtype[self.device] if dtype is None else dtype
        self._enabled = enabled
        self._cache_enabled = cache_enabled
        if enabled and self.device == "cuda" and not _cuda_available():
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            self._enabled = False
        if self._enabled and self.fast_dtype not in _SUPPORTED_DTYPES[self.device]:
            device = "CPU" if self.device == "cpu" else "CUDA"
            warnings.warn(
                f"In {device} autocast, but the target dtype is not supported. Disabling autocast.\n"
                f"{device} Autocast only supports dtype of "
                + ", ".join(f"torch.{d.name}" for d in _SUPPORTED_DTYPES[self.device]) + " currently.",
                stacklevel=2,
            )
            self._enabled = False

    def __enter__(self):
        self._previous = (_AutocastState.enabled[self.device], _AutocastState.dtype[self.device], _cache_enabled[0])
        _AutocastState.enabled[self.device] = self._enabled
        _AutocastState.dtype[self.device] = self.fast_dtype
        if self._cache_enabled is not None:
            _cache_enabled[0] = self._cache_enabled
        if _AutocastState.open_blocks == 0:
            for op in _LISTED:
                op.apply = classmethod(_autocast_apply)
        _AutocastState.open_blocks += 1
        return self

    def __exit__(self, *exception):
        _AutocastState.enabled[self.device], _AutocastState.dtype[self.device], _cache_enabled[0] = self._previous
        _AutocastState.open_blocks -= 1
        if _AutocastState.open_blocks == 0:
            for op in _LISTED:
                del op.apply  # Function.apply again
            clear_autocast_cache()  # leaving the outermost block, as PyTorch does
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def run_under_autocast(*args, **kwargs):
            with self:
                return function(*args, **kwargs)

        return run_under_autocast


def _cuda_available() -> bool:
    return get_backend("cuda").is_available()


def clear_autocast_cache() -> None:
    """Forget the casts kept in the open blocks (``torch.clear_autocast_cache``; the outermost block's end does it)."""
    _CAST_CACHE.clear()


def is_autocast_cache_enabled() -> bool:
    """Whether casts of weights are kept while a block is open (``autocast(..., cache_enabled=...)`` sets it)."""
    return _cache_enabled[0]


def set_autocast_cache_enabled(enabled: bool) -> None:
    _cache_enabled[0] = enabled


# -- casting the inputs ------------------------------------------------------------------------------------------
def _target_dtype(policy: str, device_type: str) -> _dtype.dtype:
    return _AutocastState.dtype[device_type] if policy == LOWER else _dtype.float32


def _eligible(value) -> bool:
    """A floating tensor, not float64, on a device autocast is on for (PyTorch's ``is_eligible``)."""
    return (isinstance(value, Tensor) and value.is_floating_point() and value.dtype is not _dtype.float64
            and _AutocastState.enabled.get(value.device.type, False))


def _cast(value, policy: str, target: _dtype.dtype | None = None):
    """``value`` cast for ``policy`` (to ``target`` for "promote") when it is eligible; a float32 weight's cast to
    the lower precision is kept (the cast cache) and reused until the outermost block ends."""
    if not _eligible(value):
        return value
    target = target or _target_dtype(policy, value.device.type)
    if value.dtype is target:
        return value
    if not (policy == LOWER and value.dtype is _dtype.float32 and value.requires_grad and value.is_leaf
            and value._base is None and _cache_enabled[0]):
        return value.to(target)
    cached = _CAST_CACHE.get(id(value))
    if cached is None or cached[0] is not value or cached[1].dtype is not target:
        cached = _CAST_CACHE[id(value)] = (value, value.to(target))  # the source kept alive: its id stays its own
    return cached[1]


def _cast_all(values, policy: str) -> tuple:
    """Each value cast for ``policy``; "promote" casts the eligible ones to the widest dtype among them."""
    target = None
    if policy == PROMOTE:
        dtypes = [value.dtype for value in values if _eligible(value)]
        if len(set(dtypes)) < 2:
            return tuple(values)
        target = functools.reduce(_dtype.promote_types, dtypes)
    return tuple(_cast(value, policy, target) for value in values)


def _autocast_apply(cls, *args):
    """``Function.apply`` for a listed op class while autocast is active: cast the inputs by its policy first
    (the policy of the device its first tensor is on)."""
    device = next((arg.device.type for arg in args if isinstance(arg, Tensor)), "cpu")
    policy = _OP_POLICIES.get(device, {}).get(cls)
    if policy is not None and _AutocastState.enabled.get(device, False):
        args = _cast_all(args, policy)
    return Function.apply.__func__(cls, *args)


def _cast_registered(policy: str, device_types: tuple, tensors) -> tuple:
    """``_autocast_state.cast_inputs`` for ops composed below ``amp``: cast where their device is listed."""
    device = next((value.device.type for value in tensors if isinstance(value, Tensor)), "cpu")
    return _cast_all(tensors, policy) if device in device_types else tuple(tensors)


_AutocastState.cast = _cast_registered


def autocast_inputs(policy: str, device_types: tuple = ("cpu", "cuda")):
    """Mark a function composed of several ops with an autocast policy: ``"lower_precision_fp"``, ``"float32"`` or
    ``"promote"``, on the lists of ``device_types``. While autocast is on for its tensors' device, and that device
    type is named, its tensor arguments are cast first."""

    def decorate(function):
        @functools.wraps(function)
        def with_autocast_policy(*args, **kwargs):
            if _AutocastState.open_blocks:
                names = tuple(kwargs)
                cast = _cast_registered(policy, device_types, args + tuple(kwargs[name] for name in names))
                args, kwargs = cast[: len(args)], dict(zip(names, cast[len(args):]))
            return function(*args, **kwargs)

        return with_autocast_policy

    return decorate
