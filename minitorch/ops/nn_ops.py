"""Ops for neural-network layers, where one fused op beats a chain of small ones.

* ``Linear``: ``y = x W^T + b`` in one node (PyTorch's ``addmm``), instead of a
  transpose, a matrix product and an addition. Every MLP runs it, so it is worth it.
* ``Softmax`` and ``LogSoftmax``: numerically stable forwards (subtract the maximum
  before ``exp``) and short backwards written with the saved *output*.
* ``Normalize`` (layer, batch, group and instance norm): mean, variance, scale and shift
  in one pass, with the closed-form backward instead of a dozen small nodes.
* ``Embedding``: a row lookup whose backward adds the gradients of repeated indices
  (one vectorised scatter-add), with ``padding_idx`` and ``scale_grad_by_freq``.
* ``CrossEntropy``: log-softmax and the pick of each target's log-probability in one node,
  for the common case (``(N, C)`` logits, class indices, no weights): every classifier
  runs it once per step.
* ``BinaryCrossEntropy``: PyTorch clamps its logarithms at -100, and its gradient divides
  by ``max(x (1 - x), 1e-12)``, so it stays finite at ``x = 0`` and ``x = 1``.
* ``MseLoss`` and ``BinaryCrossEntropyWithLogits``: a loss and its reduction in one node, as
  PyTorch records them (``grad_fn=<MseLossBackward0>``), with the closed-form gradient.

``minitorch.nn.functional`` calls these; the argument checks and PyTorch's error messages
live there, next to the public functions. ``linear`` (``F.linear``) is the exception: every network runs it,
so it is defined here beside its op, with its checks where its plain path ends (``_linear_otherwise``).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _autocast_state, _dtype, _messages
from .._shapes import check_expandable
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op
from ..autograd.grad_mode import _GradState
from ..overrides import handle_torch_function, has_torch_function
from . import linalg
from ._reduced_precision import cascade_sum, computes_in_float32
from ._util import array_module, wrap_dim
from .indexing import AccumulateAt

_FLOAT32 = np.dtype(np.float32)
_REDUCED = frozenset((_dtype.bfloat16.numpy_dtype, _dtype.float16.numpy_dtype))  # PyTorch computes them in float32


class Linear(Op):
    """``y = b + x @ W^T``: ``x`` is ``(..., in)``, ``W`` is ``(out, in)``, ``b`` broadcasts to ``(..., out)``.

    ``dx = grad @ W``;  ``dW = grad^T @ x`` (summed over every batch dimension: both are
    flattened to 2-D first);  ``db = grad`` (the engine sums it down to ``b``'s shape).

    The inputs come in PyTorch's order for ``addmm(b, x, W^T)``, bias first, so that
    ``grad_fn.next_functions[0]`` is the bias's accumulator, as a learner sees in PyTorch.
    """

    node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, bias, input, weight):
        ctx.save_for_backward(input, weight)
        ctx.vector_bias = bias.ndim == 1
        output = input @ weight.T
        output += bias  # output is a fresh array, so adding in place saves a copy
        return output if output.dtype == input.dtype else output.astype(input.dtype)  # bfloat16 @ gives float32

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        if not _GradState.enabled and grad._data.ndim == 2 and grad._data.dtype.kind == "f":  # Speed only (not bf16)
            return _linear_backward_on_arrays(grad, input, weight, ctx.needs_input_grad, ctx.vector_bias)
        needs_bias, needs_input, needs_weight = ctx.needs_input_grad
        grad_input, grad_weight = _linear_backward(grad, input, weight, needs_input, needs_weight)
        # A bias vector gets the sum over the batch; any other bias shape is left to the engine.
        grad_bias = None if not needs_bias else grad.sum(0) if grad.dim() == 2 and ctx.vector_bias else grad
        return grad_bias, grad_input, grad_weight


def _linear_backward(grad, input, weight, needs_input: bool, needs_weight: bool):
    """``dx = grad @ W`` and ``dW = grad^T @ x`` in Tensor operations (differentiable again)."""
    grad_input = grad_weight = None
    if needs_input:
        grad_input = grad.matmul(weight)
    if needs_weight:
        if grad.dim() == 2:  # the common case: no reshapes needed
            grad_weight = grad.t().matmul(input)
        else:
            out_features, in_features = weight.shape
            grad_weight = grad.reshape(-1, out_features).t().matmul(input.reshape(-1, in_features))
    return grad_input, grad_weight


def _linear_backward_on_arrays(grad, input, weight, needs_input_grad, vector_bias: bool):
    """Speed only: ``Linear.backward`` for a 2-D batch when no graph of the gradient is recorded (a plain
    ``backward()``): ``dx = grad @ W``, ``dW = grad^T @ x``, ``db`` the sum over the batch, on the arrays,
    skipping the Tensor ops' dispatch (linear layers are in every network)."""
    needs_bias, needs_input, needs_weight = needs_input_grad
    g, device = grad._data, grad._device
    grad_input = Tensor._make(g @ weight._data, device) if needs_input else None
    grad_weight = Tensor._make(g.T @ input._data, device) if needs_weight else None
    grad_bias = (Tensor._make(g.sum(axis=0), device) if vector_bias else grad) if needs_bias else None
    return grad_bias, grad_input, grad_weight


class LinearNoBias(Op):
    """``y = x @ W^T`` (``Linear`` without a bias): PyTorch's ``mm(x, W^T)``, node ``MmBackward0``.

    ``dx = grad @ W``;  ``dW = grad^T @ x``.
    """

    node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, input, weight):
        ctx.save_for_backward(input, weight)
        output = input @ weight.T
        return output if output.dtype == input.dtype else output.astype(input.dtype)  # bfloat16 @ gives float32

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        if not _GradState.enabled and grad._data.ndim == 2 and grad._data.dtype.kind == "f":  # Speed only (not bf16)
            return _linear_backward_on_arrays(grad, input, weight, (False, *ctx.needs_input_grad), False)[1:]
        needs_input, needs_weight = ctx.needs_input_grad
        return _linear_backward(grad, input, weight, needs_input, needs_weight)


class _Required:
    """The default of a parameter PyTorch requires, so that ``linear`` checks its arguments in order, as PyTorch's
    parser does: ``linear([1.0])`` names the list given as ``input`` before the missing ``weight``."""

    def __repr__(self) -> str:
        return "<required>"


_REQUIRED = _Required()


def linear(input: Tensor, weight: Tensor = _REQUIRED, bias: Tensor | None = None) -> Tensor:
    """``y = input @ weight^T + bias``; ``weight`` is ``(out_features, in_features)``.

        >>> import minitorch
        >>> x = minitorch.ones(2, 3)
        >>> minitorch.nn.functional.linear(x, minitorch.ones(4, 3)).shape
        minitorch.Size([2, 4])
    """
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor) and weight._data.ndim == 2
            and input._data.shape[-1:] == weight._data.shape[1:] and input._data.dtype == weight._data.dtype
            and (bias is None or isinstance(bias, Tensor) and bias._data.dtype == input._data.dtype
                 and bias._data.shape == weight._data.shape[:1])):
        return _linear_otherwise(input, weight, bias)  # PyTorch's errors; a vector of weights; fx's Proxy
    if bias is None:
        return LinearNoBias.apply(input, weight)
    return Linear.apply(bias, input, weight)  # PyTorch's addmm order: bias first


def _linear_otherwise(input, weight, bias) -> Tensor:
    """``linear`` for what its plain path does not take: a stand-in for a tensor (fx's ``Proxy``) is handed the
    call; what is no tensor, or a missing weight, gets PyTorch's ``TypeError``, operands that do not fit
    PyTorch's errors; a vector of weights (and no bias) is a matrix-vector product; a bias that broadcasts, or
    dtypes autocast will cast, go to the op."""
    if any(has_torch_function(value) for value in (input, weight, bias)):
        return handle_torch_function(linear, (input, weight, bias), {})
    for position, (name, value) in enumerate((("input", input), ("weight", weight), ("bias", bias)), 1):
        if value is _REQUIRED:
            raise TypeError('linear() missing 1 required positional arguments: "weight"')  # (PyTorch's words)
        if not isinstance(value, Tensor) and not (name == "bias" and value is None):
            raise TypeError(_messages.must_be_tensor("linear", value, name, position))
    _check_linear(input, weight, bias)
    if weight._data.ndim == 1:  # the output loses its last dimension
        return linalg.matmul(input, weight)
    return LinearNoBias.apply(input, weight) if bias is None else Linear.apply(bias, input, weight)


def _check_linear(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's errors for operands ``linear`` cannot take: ranks, sizes, dtypes, a bias that does not broadcast."""
    input_shape, weight_shape = input._data.shape, weight._data.shape
    if not input_shape or not weight_shape:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {len(input_shape)}D and "
            f"{len(weight_shape)}D"
        )
    if len(weight_shape) == 1 and bias is None:
        return  # a matrix-vector product: matmul checks it
    if len(weight_shape) != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {len(weight_shape)}-D tensor")
    in_features = input_shape[-1]
    out_features, weight_in_features = weight_shape
    if in_features != weight_in_features:
        rows = math.prod(input_shape[:-1])
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{in_features} and {weight_in_features}x{out_features})"
        )
    mixed = input._data.dtype != weight._data.dtype or (bias is not None and bias._data.dtype != input._data.dtype)
    if mixed and not _autocast_state.casts_inputs():  # (autocast casts them to one dtype first)
        other = weight if input._data.dtype != weight._data.dtype else bias
        raise RuntimeError(_messages.m1_m2_dtypes(_dtype.from_numpy_dtype(input._data.dtype),
                                                  _dtype.from_numpy_dtype(other._data.dtype)))
    if bias is not None and bias._data.shape != (out_features,):
        check_expandable(bias._data.shape, input_shape[:-1] + (out_features,))


def _reduction_axis(x, dim: int):
    """The axis to reduce over; a 0-d array has none (NumPy wants ``None`` there)."""
    return dim if x.ndim else None


class Softmax(Op):
    """``y_i = exp(x_i - m) / sum_j exp(x_j - m)`` along ``dim``, with ``m = max_j x_j``.

    Subtracting the maximum changes nothing mathematically but keeps ``exp`` from
    overflowing. ``dx = y * (grad - sum_j(grad_j * y_j))``.
    """

    @staticmethod
    @computes_in_float32
    def forward(ctx, x, dim):
        ctx.dim = dim
        xp = array_module(x)
        axis = _reduction_axis(x, dim)
        if x.size == 0:  # nothing to normalise (and max() of nothing is an error)
            output = x.copy()
            ctx.save_for_backward(output)
            return output
        exponentials = xp.exp(x - x.max(axis=axis, keepdims=True))
        output = exponentials / exponentials.sum(axis=axis, keepdims=True)
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad):
        (output,) = ctx.saved_tensors
        return output * (grad - (grad * output).sum(ctx.dim, keepdim=True)), None


class LogSoftmax(Op):
    """``y_i = x_i - m - log(sum_j exp(x_j - m))`` along ``dim``, with ``m = max_j x_j`` (log-sum-exp trick).

    ``dx = grad - exp(y) * sum_j grad_j`` (``exp(y)`` is the softmax).
    """

    @staticmethod
    def forward(ctx, x, dim):
        if x.dtype in _REDUCED and x.size and _reduction_axis(x, dim) == x.ndim - 1:
            ctx.dim = dim
            output = _log_softmax_last_dim_rounded(array_module(x), x)
            ctx.save_for_backward(output.astype(_FLOAT32))  # backward in float32 from the rounded output
            return output
        return LogSoftmax.forward_in_float32(ctx, x, dim)

    @staticmethod
    @computes_in_float32
    def forward_in_float32(ctx, x, dim):
        ctx.dim = dim
        xp = array_module(x)
        axis = _reduction_axis(x, dim)
        if x.size == 0:
            output = x.copy()
            ctx.save_for_backward(output)
            return output
        shifted = x - x.max(axis=axis, keepdims=True)
        output = shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad):
        (output,) = ctx.saved_tensors
        return grad - output.exp() * grad.sum(ctx.dim, keepdim=True), None


def _log_softmax_last_dim_rounded(xp, x):
    """PyTorch's bfloat16 and float16 kernel along the last dimension: float32 throughout, except that the sum of
    the exponentials and its log pass through a buffer of ``x``'s dtype (each rounded), then the result is rounded.
    (Along another dimension PyTorch's kernel keeps them in float32, as ``forward_in_float32`` does.)"""
    wide = x.astype(_FLOAT32)
    shifted = wide - wide.max(axis=-1, keepdims=True)
    total = xp.exp(shifted).sum(axis=-1, keepdims=True).astype(x.dtype).astype(_FLOAT32)
    return (shifted - xp.log(total).astype(x.dtype).astype(_FLOAT32)).astype(x.dtype)


def softmax(input, dim: int, dtype=None):
    """``input.softmax(dim)``: ``nn.functional.softmax`` and ``Tensor.softmax`` both end here."""
    return _apply_softmax(Softmax, "softmax", input, dim, dtype)


def log_softmax(input, dim: int, dtype=None):
    """``input.log_softmax(dim)``: ``nn.functional.log_softmax`` and ``Tensor.log_softmax`` both end here."""
    return _apply_softmax(LogSoftmax, "log_softmax", input, dim, dtype)


def _apply_softmax(op, name: str, input, dim: int, dtype):
    if dtype is not None:
        input = input.to(dtype)
    elif not input.is_floating_point():
        raise RuntimeError(_messages.not_implemented_for(f"{name}_lastdim_kernel_impl", input.dtype))
    return op.apply(input, wrap_dim(dim, input.dim()))


class Normalize(Op):
    """Normalise ``x`` over ``axes`` with its own statistics, then scale and shift.

    ``mean = mean_axes(x)``, ``var = mean_axes((x - mean)^2)`` (biased: divided by ``M``, the
    number of elements averaged), ``rstd = 1 / sqrt(var + eps)``;
    ``xhat = (x - mean) * rstd``,  ``y = xhat * w + b`` (``w``, ``b`` broadcast against ``x``;
    either may be None).

    Backward, with ``g = grad * w`` (the gradient reaching ``xhat``)::

        dx = rstd * (g - mean_axes(g) - xhat * mean_axes(g * xhat))
        dw = grad * xhat,   db = grad       (the engine sums both down to w's and b's shapes)

    The two subtracted means are the paths through ``mean`` and ``rstd``: shifting every
    element of a group equally, or scaling it, leaves ``xhat`` unchanged.
    With ``return_stats`` the forward also returns ``mean`` and ``var`` (kept dimensions, no
    gradient): batch norm updates its running statistics from them.
    """

    node_name = "NativeLayerNormBackward0"

    @staticmethod
    @computes_in_float32
    def forward(ctx, x, weight, bias, axes, eps, return_stats):
        xp = array_module(x)
        ctx.axes, ctx.eps = axes, eps
        mean = x.mean(axis=axes, keepdims=True)
        normalized = x - mean
        var = (normalized * normalized).mean(axis=axes, keepdims=True)
        rstd = 1.0 / xp.sqrt(var + eps)
        normalized *= rstd
        # The output must be a fresh array: ``normalized`` is kept for backward, and the
        # caller may change the output in place (``relu_``).
        if weight is not None:
            output = normalized * weight
            if bias is not None:
                output += bias
        elif bias is not None:
            output = normalized + bias
        else:
            output = normalized.copy()
        ctx.save_for_backward(x, weight, normalized, rstd)
        if return_stats:
            ctx.mark_non_differentiable(mean, var)
            return output, mean, var
        return output

    @staticmethod
    def backward(ctx, grad, *unused_stat_grads):
        x, weight, normalized, rstd = ctx.saved_tensors
        axes = ctx.axes
        if _GradState.enabled:
            # create_graph=True: the saved statistics are constants, so recompute them from x
            # with Tensor ops; then this backward is itself differentiable in x (double backward).
            mean = x.mean(axes, keepdim=True)
            centered = x - mean
            rstd = ((centered * centered).mean(axes, keepdim=True) + ctx.eps).rsqrt()
            normalized = centered * rstd
        grad_x = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_normalized = grad * weight if weight is not None else grad
            grad_x = rstd * (
                grad_normalized
                - grad_normalized.mean(axes, keepdim=True)
                - normalized * (grad_normalized * normalized).mean(axes, keepdim=True)
            )
        if weight is not None and ctx.needs_input_grad[1]:
            grad_weight = grad * normalized
        if ctx.needs_input_grad[2]:
            grad_bias = grad
        return grad_x, grad_weight, grad_bias, None, None, None


class BatchNormalize(Normalize):
    """``Normalize`` over every axis but the channels (1): batch norm's training-mode forward."""

    node_name = "NativeBatchNormBackward0"


class GroupNormalize(Normalize):
    """``Normalize`` over the elements of each (sample, group): group and instance norm."""

    node_name = "NativeGroupNormBackward0"


class Embedding(Op):
    """``y[...] = weight[indices[...]]``: one row of ``weight`` per index (``y`` is ``indices.shape + (D,)``).

    ``dweight[i] = sum of grad[...] over every position where indices[...] == i``: an index
    that appears twice receives both gradients (a scatter-add, ``AccumulateAt``, whose own
    backward is the lookup again, so double backward works). Rows looked up through
    ``padding_idx`` get no gradient; with ``scale_grad_by_freq`` each gradient is divided by
    how often its index appears in ``indices``.
    """

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq):
        ctx.weight_shape = weight.shape
        ctx.padding_idx, ctx.scale_grad_by_freq = padding_idx, scale_grad_by_freq
        ctx.save_for_backward(indices)
        return weight[indices]

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        flat_indices = indices._data.reshape(-1)
        grad_rows = grad.reshape(-1, ctx.weight_shape[1])
        row_scale = embedding_row_scale(flat_indices, ctx.weight_shape[0], ctx.padding_idx, ctx.scale_grad_by_freq)
        if row_scale is not None:
            grad_rows = grad_rows * Tensor._make(row_scale.astype(grad._data.dtype), grad._device)
        return AccumulateAt.apply(grad_rows, ctx.weight_shape, (flat_indices, Ellipsis), True), None, None, None


def embedding_row_scale(flat_indices, num_embeddings: int, padding_idx, scale_grad_by_freq: bool):
    """A ``(L, 1)`` factor for the gradient of each looked-up row (None when every factor is 1).

    0 where the index is ``padding_idx``; ``1 / count(index)`` with ``scale_grad_by_freq``.
    """
    if padding_idx is None and not scale_grad_by_freq:
        return None
    xp = array_module(flat_indices)
    scale = xp.ones(flat_indices.shape, dtype=xp.float64)
    if scale_grad_by_freq:
        counts = xp.bincount(flat_indices, minlength=num_embeddings)
        scale /= counts[flat_indices]
    if padding_idx is not None:
        scale[flat_indices == padding_idx] = 0.0
    return scale.reshape(-1, 1)


def segment_argmax(values, segment_ids, num_segments: int):
    """For each segment (bag) and column: the row of ``values`` holding the column's maximum within the segment.

    ``values`` is ``(L, D)``, ``segment_ids`` gives each row's segment (-1: belongs to none).
    Returns ``(num_segments, D)`` row numbers (the first maximal row; 0 for an empty segment)
    and a ``(num_segments, 1)`` mask of the non-empty segments. Vectorised with unbuffered
    ``maximum.at`` and ``minimum.at`` (CuPy: ``scatter_max``/``scatter_min``).
    """
    xp = array_module(values)
    rows, columns = values.shape
    member = segment_ids >= 0
    values, row_numbers, segment_ids = values[member], xp.nonzero(member)[0], segment_ids[member]
    maxima = xp.full((num_segments, columns), -xp.inf, dtype=values.dtype)
    first_row = xp.full((num_segments, columns), rows, dtype=xp.int64)
    column_index = xp.arange(columns)[None, :]
    segment_index = segment_ids[:, None]
    if xp.__name__ == "numpy":
        xp.maximum.at(maxima, (segment_index, column_index), values)
        is_maximum = values == maxima[segment_ids]
        xp.minimum.at(first_row, (segment_index, column_index), xp.where(is_maximum, row_numbers[:, None], rows))
    else:
        import cupyx  # optional (the cuda extra): only on a GPU

        cupyx.scatter_max(maxima, (segment_index, column_index), values)
        is_maximum = values == maxima[segment_ids]
        cupyx.scatter_min(first_row, (segment_index, column_index), xp.where(is_maximum, row_numbers[:, None], rows))
    non_empty = first_row[:, :1] < rows
    return xp.where(first_row < rows, first_row, 0), non_empty


def _clamped_log(xp, values):
    """``max(log(values), -100)``: PyTorch's binary cross-entropy never takes a log below -100."""
    with np.errstate(divide="ignore"):  # log(0) = -inf is expected here, and then clamped
        return xp.maximum(xp.log(values), -100.0)


class BinaryCrossEntropy(Op):
    """``loss = -w (t * max(log x, -100) + (1 - t) * max(log(1 - x), -100))``, then reduced (``reduction``).

    ``dx = grad * w (x - t) / max(x (1 - x), 1e-12)`` (PyTorch's form, finite at 0 and 1);
    ``dt = grad * w (log(1 - x) - log x)``; both divided by the element count for the mean.
    One node with the reduction, as PyTorch's ``BinaryCrossEntropyBackward0``; ``w`` (the weight, or 1)
    gets no gradient.
    """

    @staticmethod
    def forward(ctx, x, target, weight, reduction):
        xp = array_module(x)
        ctx.save_for_backward(x, target)
        ctx.weight = weight
        loss = -(target * _clamped_log(xp, x) + (1 - target) * _clamped_log(xp, 1 - x))
        if weight is not None:
            loss = loss * weight
        ctx.reduction, ctx.count = reduction, loss.size
        return _reduce_array(xp, loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, target = ctx.saved_tensors
        if ctx.weight is not None:
            grad = grad * Tensor._make(ctx.weight, grad._device)
        if ctx.reduction == "mean":
            grad = grad / ctx.count
        grad_x = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_x = grad * (x - target) / (x * (1 - x)).clamp(min=1e-12)
        if ctx.needs_input_grad[1]:
            grad_target = grad * ((1 - x).log() - x.log())
        return grad_x, grad_target, None, None


def _cross_entropy_backward_on_arrays(ctx, grad, logits, probabilities):
    """``(softmax(x) - onehot(y)) * grad`` on raw arrays, for a plain ``backward()`` (no graph of the
    gradient is recorded, so nothing is lost); the loss ends nearly every training step."""
    difference = probabilities._data.copy()
    difference[logits._xp.arange(difference.shape[0]), ctx.labels] -= 1
    g = grad._data
    if ctx.reduction == "mean":
        difference *= g / difference.shape[0]
    elif ctx.reduction == "sum":
        difference *= g
    else:
        difference *= g[:, None]
    return Tensor._make(difference, grad._device)


class CrossEntropy(Op):
    """``loss_i = logsumexp(x_i) - x_i[y_i]`` for ``(N, C)`` logits and class indices ``y`` (then mean, sum or none).

    ``logsumexp`` subtracts the row maximum first, so large logits never overflow.
    ``dx_i = (softmax(x_i) - onehot(y_i)) * grad_i``, with ``grad_i = grad / N`` for the mean.
    """

    node_name = "NllLossBackward0"  # PyTorch: NllLoss over LogSoftmax; one fused node here, named as the outer one

    @staticmethod
    def forward(ctx, logits, labels, reduction):
        xp = array_module(logits)
        rows = xp.arange(logits.shape[0])
        if logits.dtype in _REDUCED:
            return _cross_entropy_rounded(ctx, xp, logits, labels, reduction)
        shifted = logits - logits.max(axis=1, keepdims=True)
        exponentials = xp.exp(shifted)
        totals = exponentials.sum(axis=1, keepdims=True)
        losses = xp.log(totals[:, 0]) - shifted[rows, labels]
        ctx.labels, ctx.reduction = labels, reduction
        ctx.save_for_backward(logits, exponentials / totals)
        if reduction == "mean":
            return xp.asarray(losses.sum() / losses.shape[0])  # sum()/N: NumPy's mean() costs more on a small batch
        if reduction == "sum":
            return xp.asarray(losses.sum())
        return losses

    @staticmethod
    def backward(ctx, grad):
        logits, probabilities = ctx.saved_tensors
        if not _GradState.enabled:
            if logits._data.dtype in _REDUCED:
                return _cross_entropy_backward_rounded(ctx, grad, logits, probabilities), None, None
            return _cross_entropy_backward_on_arrays(ctx, grad, logits, probabilities), None, None
        # create_graph: recompute the softmax differentiably, so the gradient can be differentiated again
        probabilities = Softmax.apply(logits, 1)
        xp = logits._xp
        one_hot = xp.zeros(logits.shape, dtype=logits._data.dtype)
        one_hot[xp.arange(logits.shape[0]), ctx.labels] = 1
        difference = probabilities - Tensor._make(one_hot, logits._device)
        if ctx.reduction == "mean":
            return difference * (grad / logits.shape[0]), None, None
        if ctx.reduction == "sum":
            return difference * grad, None, None
        return difference * grad.unsqueeze(1), None, None


def _cross_entropy_rounded(ctx, xp, logits, labels, reduction):
    """bfloat16 and float16 logits, as PyTorch computes them: ``nll_loss(log_softmax(x))`` with the log-softmax
    rounded to the logits' dtype (PyTorch's two kernels), the losses added in float32. Saves the log-softmax
    (in the place of the probabilities) for ``_cross_entropy_backward_rounded``."""
    log_probabilities = _log_softmax_last_dim_rounded(xp, logits)
    ctx.labels, ctx.reduction = labels, reduction
    ctx.save_for_backward(logits, log_probabilities)
    losses = -log_probabilities[xp.arange(logits.shape[0]), labels]
    if reduction == "none":
        return losses
    total = cascade_sum(xp, losses)
    if reduction == "mean":
        return (total / logits.dtype.type(losses.shape[0])).astype(logits.dtype)  # divided in the dtype, as PyTorch
    return total


def _cross_entropy_backward_rounded(ctx, grad, logits, log_probabilities):
    """PyTorch's two backward kernels for bfloat16 and float16: ``nll_loss``'s gives ``g = -grad / N`` (for the
    mean, rounded to the dtype) at each row's label, then ``log_softmax``'s ``g - exp(y) * sum(g)`` in float32,
    from the rounded log-softmax ``y``, rounded once."""
    xp, dtype, rows = logits._xp, logits._data.dtype, logits.shape[0]
    g = grad._data.astype(_FLOAT32)
    if ctx.reduction == "mean":
        g = (g / _FLOAT32.type(dtype.type(rows))).astype(dtype).astype(_FLOAT32)
    row_sums = xp.broadcast_to(-g, (rows,))[:, None]  # sum(g) over a row: its one nonzero entry
    difference = -(xp.exp(log_probabilities._data.astype(_FLOAT32)) * row_sums)
    difference[xp.arange(rows), ctx.labels] += row_sums[:, 0]
    return Tensor._make(difference.astype(dtype), grad._device)


def _reduce_array(xp, loss, reduction: str):
    """A loss array reduced as ``reduction`` says: its mean, its sum, or itself. bfloat16 and float16 losses are
    added up in float32 and the result rounded once, as PyTorch does (a 16-bit running sum stops growing: 4096
    squared errors near 2 would give a mean near 1)."""
    if reduction == "none":
        return loss
    wide = _FLOAT32 if loss.dtype in _REDUCED else None
    total = loss.mean(dtype=wide) if reduction == "mean" else loss.sum(dtype=wide)
    return xp.asarray(total).astype(loss.dtype, copy=False)


class MseLoss(Op):
    """``loss = (x - t)^2``, then its mean, sum, or nothing (``reduction``).

    ``dx = 2 (x - t) * grad``, divided by the number of elements for the mean (PyTorch's
    ``norm = 2 / n``); ``dt = -dx``. ``x`` and ``t`` may broadcast; the engine sums each
    gradient back to its input's shape.
    """

    node_name = "MseLossBackward0"

    @staticmethod
    def forward(ctx, x, target, reduction):
        xp = array_module(x)
        difference = x - target
        ctx.save_for_backward(x, target)
        ctx.reduction, ctx.count = reduction, difference.size
        return _reduce_array(xp, difference * difference, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, target = ctx.saved_tensors
        norm = 2.0 / ctx.count if ctx.reduction == "mean" else 2.0
        grad_x = (x - target) * norm * grad  # PyTorch's order: ((x - t) * norm) * grad
        return (grad_x if ctx.needs_input_grad[0] else None), (-grad_x if ctx.needs_input_grad[1] else None), None


def _log_sigmoid_array(xp, x):
    """``log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|))``: exp never overflows."""
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


def _log_sigmoid(x):
    """``log(sigmoid(x))`` in Tensor operations (so a gradient built from it is differentiable again)."""
    return x.clamp(max=0) - (-x.abs()).exp().log1p()


class BinaryCrossEntropyWithLogits(Op):
    """Binary cross-entropy of ``sigmoid(x)`` from the logits ``x``, then reduced (PyTorch's formula)::

        loss = (1 - t) x - (1 + (p - 1) t) log(sigmoid(x))      (p = pos_weight, or 1)
        loss = loss * weight                                    (if a weight is given)

    ``log(sigmoid(x))`` is computed without ever forming ``sigmoid(x)``, so large logits lose nothing.
    With ``n`` the element count for the mean (else 1) and ``w`` the weight (else 1)::

        dx = ((p t + 1 - t) sigmoid(x) - p t) * grad * w / n    (= (sigmoid(x) - t) ... when p = 1)
        dt = (log(sigmoid(-x)) - p log(sigmoid(x))) * grad * w / n   (= -x ... when p = 1)

    ``weight`` and ``pos_weight`` get no gradient (PyTorch refuses them if they require one).
    """

    node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, x, target, weight, pos_weight, reduction):
        xp = array_module(x)
        log_sigmoid = _log_sigmoid_array(xp, x)
        if pos_weight is not None:
            log_sigmoid = log_sigmoid * ((pos_weight - 1) * target + 1)
        loss = (1 - target) * x - log_sigmoid
        if weight is not None:
            loss = loss * weight
        ctx.save_for_backward(x, target, weight, pos_weight)
        ctx.reduction, ctx.count = reduction, loss.size
        return _reduce_array(xp, loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, target, weight, pos_weight = ctx.saved_tensors
        grad_x = grad_target = None
        if ctx.needs_input_grad[0]:
            if pos_weight is not None:
                weighted_target = pos_weight * target
                grad_x = (weighted_target + 1 - target) * x.sigmoid() - weighted_target
            else:
                grad_x = x.sigmoid() - target
            grad_x = BinaryCrossEntropyWithLogits._scaled(ctx, grad_x * grad, weight)
        if ctx.needs_input_grad[1]:
            if pos_weight is not None:
                grad_target = _log_sigmoid(-x) - _log_sigmoid(x) * pos_weight
            else:
                grad_target = -x
            grad_target = BinaryCrossEntropyWithLogits._scaled(ctx, grad_target * grad, weight)
        return grad_x, grad_target, None, None, None

    @staticmethod
    def _scaled(ctx, gradient, weight):
        """Times the weight (if any), divided by the element count for the mean."""
        if weight is not None:
            gradient = gradient * weight
        return gradient / ctx.count if ctx.reduction == "mean" else gradient
