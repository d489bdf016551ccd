"""In-place ops: ``x.add_(y)``, ``x.zero_()``, ``x[...] = v`` and friends.

An in-place op overwrites ``x``'s memory, so everything that shares it (views, a NumPy
array from ``from_numpy``) sees the change. Autograd needs two precautions:

* **Versions.** Every in-place write bumps ``x``'s version counter. A node that saved ``x``
  for backward remembers the version it saw; if it changed, backward refuses to use the
  stale value and names the culprit.
* **History.** ``x`` gets a new ``grad_fn``. minitorch computes the result out of place
  (with the ordinary, differentiable op, on a snapshot of ``x`` when recording), writes it
  into ``x``'s memory, and hands the result's ``grad_fn`` to ``x``. The graph is then
  exactly the one the out-of-place version would build.

Without recording (an optimizer step under ``no_grad``) no snapshot is taken: the op just
computes and writes, keeping the tensor's identity (an ``nn.Parameter`` stays the same object).

In-place ops on a leaf that requires grad are an error while recording, as in PyTorch.
An in-place op on a *view* while recording (``h[0].mul_(2)``, ``h[:, t] += y``) also rewrites the
history of the view's base: ``ops/copy_slices.py`` explains how.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype, _messages, _sampling
from .._random import generator_or_default
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op
from ..autograd.grad_mode import INPLACE_INFERENCE_TENSOR, InferenceVersionCounter, _GradState
from . import copy_slices, indexing, pointwise
from ._util import as_operand, cast


def _check_allowed(target: Tensor, recording: bool) -> None:
    if recording and target.grad_fn is None and target._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if type(target._version_counter) is InferenceVersionCounter and not _GradState.inference:
        raise RuntimeError(INPLACE_INFERENCE_TENSOR)


def _snapshot(target: Tensor) -> Tensor:
    """A copy of ``target``'s current value that continues its graph (what the out-of-place op may save)."""
    return Tensor._make(
        target._data.copy(), target._device, requires_grad=target._requires_grad,
        grad_fn=target.grad_fn, output_nr=target._output_nr,
    )


def _write(target: Tensor, result: Tensor, recording: bool) -> Tensor:
    """Store ``result`` in ``target``'s memory, bump its version, and adopt the result's history."""
    result = _store(target, result)
    if recording and result._requires_grad:
        target.grad_fn = result.grad_fn
        target._output_nr = result._output_nr
        target._requires_grad = True
    return target


def _store(target: Tensor, result: Tensor) -> Tensor:
    """Write ``result`` into ``target``'s memory and bump its version; ``result`` in ``target``'s dtype."""
    result_dtype = result.dtype
    target_dtype = target.dtype
    if result_dtype is not target_dtype:
        if result_dtype.category > target_dtype.category:
            raise RuntimeError(_messages.cannot_cast(result_dtype, target_dtype))
        result = cast(result, target_dtype)
    if result._data.shape != target._data.shape:
        raise RuntimeError(
            f"output with shape {list(target._data.shape)} doesn't match the broadcast shape {list(result._data.shape)}"
        )
    if not target._data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation."
        )
    target._data[...] = result._data
    target._version_counter[0] += 1
    return result


def _inplace(target: Tensor, compute, *others) -> Tensor:
    """``target`` overwritten with ``compute(target, *others)`` (see the module docstring)."""
    base = target._base
    recording = _GradState.enabled and (
        target._requires_grad
        or any(isinstance(o, Tensor) and o._requires_grad for o in others)
        or (base is not None and base._requires_grad)
    )
    if recording and base is not None:
        positions = copy_slices.view_positions(target)
        if positions is not None:
            return copy_slices.write_through_view(target, positions, compute, others, _store)
    _check_allowed(target, recording)
    source = _snapshot(target) if recording else target
    result = compute(source, *others)
    if recording and target._requires_grad and not result._requires_grad:
        # values without a gradient (a comparison's) replace values that had one: their history ends here
        result = Overwrite.apply(source, result._data.astype(target._data.dtype, copy=False))
    return _write(target, result, recording)


# -- arithmetic ---------------------------------------------------------------------------
def add_(target: Tensor, other, *, alpha=1) -> Tensor:
    """``target += alpha * other``; an optimizer's update is ``param.add_(grad, alpha=-lr)``.

    With no graph to record and ``other`` just like ``target`` (an optimizer's step under ``no_grad``), the update
    is the arithmetic on the arrays, written into ``target``'s memory, as PyTorch's kernel does. Otherwise it is
    the out-of-place ``add`` written back (``_inplace``: dtype promotion, broadcasting, the graph).
    """
    if _alike_without_graph(target, other) and type(alpha) in (int, float):
        target._data += other._data * alpha
        target._version_counter[0] += 1
        return target
    return _inplace(target, lambda x, y: pointwise.add(x, y, alpha=alpha), other)


# The dtypes an update may compute on the arrays: float16 and bfloat16 would round twice (alpha * other, then the
# sum) where PyTorch computes in float32 and rounds once, so they take the out-of-place ``add``
_UPDATED_ON_ARRAYS = frozenset((_dtype.float32.numpy_dtype, _dtype.float64.numpy_dtype))


def _alike_without_graph(target: Tensor, other) -> bool:
    """Whether ``target`` can be updated with ``other`` on the arrays alone: grad mode is off (no graph to record),
    and ``other`` is a tensor of ``target``'s floating dtype, shape and device (no dtype to promote, no shape to
    broadcast, no error to raise). ONNX's tracer and compile's capture say False while they follow ``_store``."""
    return (
        not _GradState.enabled and isinstance(other, Tensor)
        and other._data.dtype == target._data.dtype and target._data.dtype in _UPDATED_ON_ARRAYS  # float32, float64
        and other._data.shape == target._data.shape and other._device is target._device
        and target._data.flags.writeable and type(target._version_counter) is list  # not an inference tensor
    )


def sub_(target: Tensor, other, *, alpha=1) -> Tensor:
    return _inplace(target, lambda x, y: pointwise.sub(x, y, alpha=alpha), other)


def mul_(target: Tensor, other) -> Tensor:
    return _inplace(target, pointwise.mul, other)


def div_(target: Tensor, other, *, rounding_mode=None) -> Tensor:
    return _inplace(target, lambda x, y: pointwise.div(x, y, rounding_mode=rounding_mode), other)


def pow_(target: Tensor, exponent) -> Tensor:
    return _inplace(target, pointwise.pow, exponent)


def neg_(target: Tensor) -> Tensor:
    return _inplace(target, pointwise.neg)


def exp_(target: Tensor) -> Tensor:
    return _inplace(target, pointwise.exp)


def sqrt_(target: Tensor) -> Tensor:
    return _inplace(target, pointwise.sqrt)


def abs_(target: Tensor) -> Tensor:
    return _inplace(target, pointwise.abs)


def relu_(target: Tensor) -> Tensor:
    return _inplace(target, pointwise.relu)


def sigmoid_(target: Tensor) -> Tensor:
    return _inplace(target, pointwise.sigmoid)


def tanh_(target: Tensor) -> Tensor:
    return _inplace(target, pointwise.tanh)


def clamp_(target: Tensor, min=None, max=None) -> Tensor:
    return _inplace(target, lambda x: pointwise.clamp(x, min, max))


def addcmul_(target: Tensor, tensor1, tensor2, *, value=1) -> Tensor:
    """``target += value * tensor1 * tensor2`` (Adam's second-moment update uses it)."""
    return _inplace(target, lambda x, a, b: pointwise.add(x, pointwise.mul(a, b), alpha=value), tensor1, tensor2)


def addcdiv_(target: Tensor, tensor1, tensor2, *, value=1) -> Tensor:
    """``target += value * tensor1 / tensor2`` (Adam's parameter update uses it)."""
    return _inplace(target, lambda x, a, b: pointwise.add(x, pointwise.div(a, b), alpha=value), tensor1, tensor2)


def lerp_(target: Tensor, end, weight) -> Tensor:
    return _inplace(target, lambda x, e, w: pointwise.lerp(x, e, w), end, weight)


def float_power_(target: Tensor, exponent) -> Tensor:
    """``float_power`` in place; ``target`` must already be float64, the dtype of the result."""
    if target._data.dtype != np.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {target.dtype.type_name} but the operation's result requires "
            "dtype Double"
        )
    return _inplace(target, lambda x, *rest: pointwise.float_power(x, *rest), exponent)


def nan_to_num_(target: Tensor, nan: float | None = None, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:
    """``nan_to_num`` in place."""
    return _inplace(target, lambda x: pointwise.nan_to_num(x, nan, posinf, neginf))


# -- overwriting with new values --------------------------------------------------------------
class Overwrite(Op):
    """``y = new values`` (nothing of ``x`` survives);  ``dx = 0``."""

    node_name = "FillBackward0"

    @staticmethod
    def forward(ctx, x, new_values):
        return new_values

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, None


class ZeroOverwrite(Overwrite):
    node_name = "ZeroBackward0"


class RandomOverwrite(Overwrite):
    node_name = "RandomBackward0"


class Copy(Op):
    """``y = src`` broadcast to ``x``'s shape;  ``dx = 0``, ``dsrc = grad`` (summed back by the engine)."""

    node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, x, src):
        xp = np if isinstance(x, np.ndarray) else __import__("cupy")
        return xp.broadcast_to(src.astype(x.dtype, copy=False), x.shape).copy()

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, grad


def _overwrite(target: Tensor, array, op=Overwrite) -> Tensor:
    array = array.astype(target._data.dtype, copy=False)
    if target._device.type != "cpu" and isinstance(array, np.ndarray):
        array = target._device.backend.to_device(array, target._device.index)
    return _inplace(target, lambda x: op.apply(x, array))


def zero_(target: Tensor) -> Tensor:
    return _overwrite(target, target._xp.zeros_like(target._data), ZeroOverwrite)


def fill_(target: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions."
            )
        return copy_(target, value)
    return _overwrite(target, target._xp.full_like(target._data, value))


def copy_(target: Tensor, src) -> Tensor:
    """Copy ``src`` (broadcast, converted to ``target``'s dtype, moved from any device) into ``target``."""
    src = as_operand(src, target)
    if not isinstance(src, Tensor):
        return fill_(target, src)
    if src._device != target._device:
        src = src.to(target._device)
    try:
        np.broadcast_shapes(src._data.shape, target._data.shape)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({target._data.shape[-1] if target._data.ndim else 1}) must match the size of "
            f"tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at non-singleton dimension "
            f"{max(target._data.ndim, 1) - 1}"
        ) from None
    if np.broadcast_shapes(src._data.shape, target._data.shape) != target._data.shape:
        raise RuntimeError(
            f"output with shape {list(target._data.shape)} doesn't match the broadcast shape "
            f"{list(np.broadcast_shapes(src._data.shape, target._data.shape))}"
        )
    return _inplace(target, lambda x, s: Copy.apply(x, s), src)


def masked_fill_(target: Tensor, mask, value) -> Tensor:
    return _inplace(target, lambda x, v: indexing.masked_fill(x, mask, v), value)


def scatter_(target: Tensor, dim, index, src=None, *, value=None, reduce=None) -> Tensor:
    return _inplace(target, lambda x, s: indexing.scatter(x, dim, index, s, value=value, reduce=reduce), src)


def index_fill_(target: Tensor, dim: int, index, value) -> Tensor:
    """Fill the slices ``index`` along ``dim`` with ``value``."""
    return _inplace(target, lambda x, v: indexing.index_fill(x, dim, index, v), value)


def index_add_(target: Tensor, dim: int, index, source, *, alpha=1) -> Tensor:
    """Add ``alpha * source[..., i, ...]`` to slice ``index[i]`` along ``dim``."""
    return _inplace(target, lambda x, s: indexing.index_add(x, dim, index, s, alpha=alpha), source)


def index_copy_(target: Tensor, dim: int, index, source) -> Tensor:
    """Overwrite slice ``index[i]`` along ``dim`` with ``source[..., i, ...]``."""
    return _inplace(target, lambda x, s: indexing.index_copy(x, dim, index, s), source)


def masked_scatter_(target: Tensor, mask, source) -> Tensor:
    """Overwrite the elements where ``mask`` is True with ``source``'s first elements, in order."""
    return _inplace(target, lambda x, s: indexing.masked_scatter(x, mask, s), source)


# -- random fills (initialisation) ----------------------------------------------------------------
# The numbers are PyTorch's CPU kernels' (minitorch/_sampling.py), drawn on the host in the order
# PyTorch's kernels visit the tensor: memory order (a transposed view is filled as its storage is).
def _random_fill(target: Tensor, kernel: str | None, draw, generator) -> Tensor:
    """Overwrite ``target`` with ``draw(generator, shape, numpy dtype)`` (values laid out in memory order).

    ``kernel``: the name of PyTorch's floating-point-only kernel, for its error on other dtypes (None: any dtype).
    """
    if kernel is not None and not target.is_floating_point():
        raise NotImplementedError(_messages.not_implemented_for(kernel, target.dtype))
    if target._device.type == "meta":
        return target  # no data to fill, and (as PyTorch) no random numbers drawn
    strides = target.stride()
    order = sorted(range(target.dim()), key=lambda axis: -abs(strides[axis]))  # slowest-moving axis first
    drawn = draw(generator_or_default(generator), tuple(target.shape[axis] for axis in order),
                 target.dtype.numpy_dtype)
    values = np.transpose(np.asarray(drawn), np.argsort(order)) if order else np.asarray(drawn)
    return _overwrite(target, values, RandomOverwrite)


def uniform_(target: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples from ``U[a, b)``."""
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    return _random_fill(target, "check_uniform_bounds",
                        lambda g, shape, dtype: _sampling.uniform(g, shape, dtype, a, b), generator)


def normal_(target: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples from ``N(mean, std^2)``."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    contiguous = target.is_contiguous()
    return _random_fill(
        target, "normal_kernel_cpu", lambda g, shape, dtype: _sampling.normal(g, shape, dtype, mean, std, contiguous),
        generator
    )


def bernoulli_(target: Tensor, p: float = 0.5, *, generator=None) -> Tensor:
    """Fill with 1 with probability ``p`` (a float, or a tensor of probabilities broadcast to ``target``), else 0."""
    if isinstance(p, Tensor):
        probabilities = np.broadcast_to(p._device.backend.to_host(p._data), tuple(target.shape))

        def draw(g, shape, dtype):
            return _sampling.bernoulli_tensor(g, np.ascontiguousarray(probabilities), dtype)

        values = draw(generator_or_default(generator), None, target.dtype.numpy_dtype)
        return _overwrite(target, values, RandomOverwrite)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _random_fill(target, None, lambda g, shape, dtype: _sampling.bernoulli_scalar(g, shape, dtype, p),
                        generator)


def random_(target: Tensor, low: int = 0, high: int | None = None, *, generator=None) -> Tensor:
    """Fill with integers from ``[low, high)``.

    ``random_(high)`` means ``[0, high)``; ``random_()`` the dtype's range (``[0, 2^mantissa]`` for floats).
    """
    if high is None and low != 0:
        low, high = 0, low
    if high is None:
        def draw(g, shape, dtype):
            return _sampling.random_full_range(g, shape, dtype)
    else:
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")

        def draw(g, shape, dtype):
            return _sampling.random_from_to(g, shape, dtype, low, high)

    return _random_fill(target, None, draw, generator)


def exponential_(target: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples from the exponential distribution with rate ``lambd``."""
    if not target.is_floating_point():
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {target.dtype.type_name}")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return _random_fill(target, None, lambda g, shape, dtype: _sampling.exponential(g, shape, dtype, lambd),
                        generator)


def cauchy_(target: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples from the Cauchy distribution ``1 / (pi * sigma * (1 + ((x - median) / sigma)^2))``."""
    if not target.is_floating_point():
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {target.dtype.cpp_name}")  # PyTorch's C++ name here
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _random_fill(target, None, lambda g, shape, dtype: _sampling.cauchy(g, shape, dtype, median, sigma),
                        generator)


def log_normal_(target: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    """Fill with ``exp(N(mean, std^2))``: ``mean`` and ``std`` are those of the underlying normal, not of the values."""
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _random_fill(target, "log_normal_cpu",
                        lambda g, shape, dtype: _sampling.log_normal(g, shape, dtype, mean, std), generator)


def geometric_(target: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill with ``k >= 1``, the trial of the first success, ``P(k) = (1 - p)^(k - 1) p`` (any dtype but bool)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if target.dtype.numpy_dtype == np.bool_:
        raise NotImplementedError(_messages.not_implemented_for("geometric_cpu", target.dtype))
    return _random_fill(target, None, lambda g, shape, dtype: _sampling.geometric(g, shape, dtype, p), generator)


# -- the other in-place forms: ``x.name_(...)`` is ``x.name(...)`` written back into ``x`` ---------------
# PyTorch has an in-place twin for most pointwise ops (and a few others). Each is a one-line method in
# _tensor.py, ``def log_(self): return inplace.in_place(self, Tensor.log)``, so versions, the leaf rule and
# writes through views behave as above. The table lists them for tests/ops/test_inplace_forms.py, which
# checks each against PyTorch.
IN_PLACE_FORMS = (
    "absolute_", "acos_", "asin_", "atan_", "arctan2_", "atan2_", "ceil_", "cos_", "cosh_", "deg2rad_", "erf_",
    "erfinv_", "exp2_", "expm1_", "floor_", "frac_", "log_", "log10_", "log1p_", "log2_", "logit_", "negative_",
    "rad2deg_", "reciprocal_", "round_", "rsqrt_", "sgn_", "sign_", "sin_", "sinh_", "square_", "tan_", "trunc_",
    "clamp_max_", "clamp_min_", "divide_", "true_divide_", "floor_divide_", "fmod_", "remainder_", "hypot_",
    "multiply_", "subtract_", "xlogy_", "heaviside_", "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "logical_and_",
    "logical_or_", "logical_xor_", "logical_not_", "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_not_",
    "cumsum_", "cumprod_", "tril_", "triu_", "scatter_add_", "addmm_", "addmv_", "addbmm_", "baddbmm_", "index_put_",
    "scatter_reduce_", "erfc_", "lgamma_", "digamma_", "polygamma_", "i0_", "sinc_", "nextafter_", "ldexp_", "gcd_",
    "lcm_", "renorm_",
    "arccos_", "arcsin_", "arctan_", "fix_",
    "asinh_", "acosh_", "atanh_", "arcsinh_", "arccosh_", "arctanh_", "copysign_",
)  # fmt: skip


def in_place(target: Tensor, out_of_place, *args, **options) -> Tensor:
    """``target`` overwritten with ``out_of_place(target, *args, **options)``: ``x.log_()`` is ``x.log()`` written
    back into ``x`` (its version goes up by one). ``out_of_place`` is a Tensor method (``Tensor.log``)."""
    return _inplace(target, lambda x, *rest: out_of_place(x, *rest, **options), *args)


# -- in-place shape changes: ``x.unsqueeze_(0)`` gives ``x`` itself a new shape ---------------------------------
# ``x`` takes the out-of-place view's array (the same memory) and, while recording, its history, as if
# ``x = x.unsqueeze(0)`` had rebound the name; like every in-place op it bumps the version (PyTorch does too).
def in_place_view(target: Tensor, out_of_place, *args, **options) -> Tensor:
    """``target`` reshaped in place like ``out_of_place(target, *args, **options)`` (``Tensor.unsqueeze``...)."""
    recording = _GradState.enabled and target._requires_grad
    _check_allowed(target, recording)
    result = out_of_place(target, *args, **options)
    target._data = result._data
    target._version_counter[0] += 1
    if recording:
        target.grad_fn, target._output_nr = result.grad_fn, result._output_nr
    return target
