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
  losses), ``linalg.inv/solve/cholesky/qr/svd/eigh/pinv`` (PyTorch's list also has ``prod``, ``cdist``,
  ``trace``, the fft functions and the reflection and replication paddings: not cast here yet);
* every other op runs in the dtype of its inputs, with the usual promotion (so ``cat`` of a bfloat16
  and a float32 tensor is float32, PyTorch's "promote" policy).

These are PyTorch's CPU lists (``aten/src/ATen/autocast_mode.cpp``, ``AutocastCPU``), restricted to the ops
minitorch has. ``autocast("cuda")`` (float16 by default) uses the same lists; PyTorch's CUDA lists are
longer (they also send ``softmax``, ``exp``, ``log``, ``sum`` and other pointwise ops to float32).
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
ops (most losses) carries ``@autocast_inputs("float32")`` on its function. Like minitorch's grad mode,
the state is the process's, not each thread's; casts are not cached between calls.
"""

from __future__ import annotations

import functools
import warnings

from .. import _dtype
from .._autocast_state import AutocastState as _AutocastState
from .._device import get_backend
from .._tensor import Tensor
from ..autograd.function import Function
from ..ops import conv, linalg, nn_ops

__all__ = ["autocast", "autocast_inputs", "get_autocast_dtype", "is_autocast_enabled"]

_SUPPORTED_DTYPES = {"cpu": (_dtype.bfloat16, _dtype.float16), "cuda": (_dtype.bfloat16, _dtype.float16)}

# Op classes by policy (PyTorch's CPU lists; subclasses not named here, such as Mv and Dot, run unchanged)
_OP_POLICIES = {
    linalg.MatMul: "lower_precision_fp", linalg.Mm: "lower_precision_fp", linalg.Bmm: "lower_precision_fp",
    nn_ops.Linear: "lower_precision_fp", nn_ops.LinearNoBias: "lower_precision_fp",
    conv.Convolution: "lower_precision_fp", conv.ConvolutionTranspose: "lower_precision_fp",
    linalg.Inverse: "float32", linalg.Solve: "float32",
    linalg.Cholesky: "float32", linalg.Qr: "float32", linalg.Svd: "float32", linalg.Eigh: "float32",
    linalg.Pinv: "float32",
}


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
        self._previous = (_AutocastState.enabled[self.device], _AutocastState.dtype[self.device])
        _AutocastState.enabled[self.device] = self._enabled
        _AutocastState.dtype[self.device] = self.fast_dtype
        if _AutocastState.open_blocks == 0:
            for op in _OP_POLICIES:
                op.apply = classmethod(_autocast_apply)
        _AutocastState.open_blocks += 1
        return self

    def __exit__(self, *exception):
        _AutocastState.enabled[self.device], _AutocastState.dtype[self.device] = self._previous
        _AutocastState.open_blocks -= 1
        if _AutocastState.open_blocks == 0:
            for op in _OP_POLICIES:
                del op.apply  # Function.apply again
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def run_under_autocast(*args, **kwargs):
            with self:
                return function(*args, **kwargs)

        return run_under_autocast


def _cuda_available() -> bool:
    return get_backend("cuda").is_available()


# -- casting the inputs ------------------------------------------------------------------------------------------
def _target_dtype(policy: str, device_type: str) -> _dtype.dtype:
    return _AutocastState.dtype[device_type] if policy == "lower_precision_fp" else _dtype.float32


def _cast(value, policy: str):
    """``value`` cast for ``policy`` when it is a floating tensor (not float64) on a device autocast is on for."""
    if not isinstance(value, Tensor) or not value.is_floating_point() or value.dtype is _dtype.float64:
        return value
    device_type = value.device.type
    if not _AutocastState.enabled.get(device_type, False):
        return value
    target = _target_dtype(policy, device_type)
    return value if value.dtype is target else value.to(target)


def _autocast_apply(cls, *args):
    """``Function.apply`` for a listed op class while autocast is active: cast the inputs by its policy first."""
    policy = _OP_POLICIES.get(cls)
    if policy is not None:
        args = tuple(_cast(arg, policy) for arg in args)
    return Function.apply.__func__(cls, *args)


def autocast_inputs(policy: str):
    """Mark a function composed of several ops with an autocast policy: ``"lower_precision_fp"`` or
    ``"float32"``. While autocast is on for its tensors' device, its tensor arguments are cast first."""

    def decorate(function):
        @functools.wraps(function)
        def with_autocast_policy(*args, **kwargs):
            if _AutocastState.open_blocks:
                args = tuple(_cast(arg, policy) for arg in args)
                kwargs = {name: _cast(value, policy) for name, value in kwargs.items()}
            return function(*args, **kwargs)

        return with_autocast_policy

    return decorate
