"""Reductions: ops that combine many elements into fewer (sum, mean, max, var, norm...).

``dim`` may be an int, a tuple of ints, or None (every dimension); ``keepdim=True`` keeps
reduced dimensions with size 1, which is what makes the backward simple: the gradient of a
reduction is spread back over the elements that were combined, by reshaping ``grad`` to
the kept-dims shape and broadcasting it.

Where the derivative is not unique (the maximum of tied values, the 2-norm at zero, the
standard deviation of constant values) the choices are PyTorch's, noted on each op.

Running ("cumulative") ops keep every partial result along ``dim`` (cumsum, cumprod,
logcumsumexp, cummax); ``diff`` and ``trapezoid`` work on neighbouring elements; ``bincount``
and ``histc`` count into bins, without gradients.
"""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from .. import _autocast_state, _dtype, _messages, return_types
from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op
from ..autograd.grad_mode import _GradState
from . import pointwise
from ._reduced_precision import computes_in_float32
from ._util import array_module, cast, normalize_dims, shape_argument, wrap_dim
from .shape import Expand, cat, clone


def _kept_shape(shape, dims) -> tuple:
    """``shape`` with each reduced dimension set to 1 (the shape ``keepdim=True`` gives)."""
    return tuple(1 if axis in dims else extent for axis, extent in enumerate(shape))


def _reduced_shape(shape, dims) -> tuple:
    """``shape`` without the reduced dimensions (the shape ``keepdim=False`` gives)."""
    return tuple(extent for axis, extent in enumerate(shape) if axis not in dims)


def _restore_dims(grad: Tensor, shape, dims, keepdim: bool) -> Tensor:
    """Give a reduced gradient back its size-1 dimensions so it broadcasts against the input.

    A full reduction's 0-d gradient broadcasts as it is (``expand`` adds leading dimensions).
    """
    if keepdim or not dims or grad._data.ndim == 0:
        return grad
    return grad.reshape(_kept_shape(shape, dims))


def _all_dims_if_empty(dim, ndim: int) -> tuple:
    """``dim`` as sorted axes; None and ``()`` both mean every dimension (PyTorch's convention)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    dims = normalize_dims(dim, ndim)
    return dims if ndim else ()  # a 0-d tensor accepts dim 0 or -1, and there is nothing to reduce


def _count(shape, dims) -> int:
    """How many elements are combined into each result element."""
    count = 1
    for axis in dims:
        count *= shape[axis]
    return count


def _constant(array, like: Tensor) -> Tensor:
    """An array computed from the data (a mask, a weight) as a Tensor that no gradient flows through."""
    return Tensor._make(array, like._device)


def _check_single_dim(name: str, dim) -> None:
    """``prod``, ``max``, ``argmax``... take one int ``dim``, as in PyTorch (no tuples)."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")


def _check_nonempty(name: str, x: Tensor, dims, dim_given: bool) -> None:
    """Max-like reductions have no identity, so they refuse to reduce over nothing (PyTorch's errors)."""
    if not dim_given:
        if x._data.size == 0:
            message = f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            if name.startswith("arg"):  # PyTorch's argmax/argmin word it shorter, as an IndexError
                raise IndexError(message)
            raise RuntimeError(message + " Specify the reduction dim with the 'dim' argument.")
        return
    for axis in dims:
        if x._data.ndim and x._data.shape[axis] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")


# -- sum and mean ---------------------------------------------------------------------------
class Sum(Op):
    """``y = sum_i x_i`` over ``dims``;  ``dx_i = grad`` (the gradient is copied to every summed element)."""

    @staticmethod
    def forward(ctx, x, dims, keepdim, numpy_dtype):
        ctx.input_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        result = x.sum(axis=dims, keepdims=keepdim, dtype=numpy_dtype or _dtype.ACCUMULATE_IN.get(x.dtype))
        result = result if numpy_dtype or result.dtype == x.dtype else result.astype(x.dtype)  # bfloat16: round once
        return result if result.ndim or not isinstance(result, np.generic) else np.asarray(result)  # NumPy: a scalar

    @staticmethod
    def backward(ctx, grad):  # a sum over every dimension: its gradient broadcasts as it is
        return Expand.apply(grad, ctx.input_shape), None, None, None  # grad.expand(x.shape)


class SumDim(Sum):
    """``x.sum(dim)``: the same op; PyTorch numbers the overload with ``dim`` separately."""

    node_name = "SumBackward1"

    @staticmethod
    def backward(ctx, grad):
        grad = _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim)  # the summed dimensions back, as 1s
        return Expand.apply(grad, ctx.input_shape), None, None, None  # grad.expand(x.shape): the shapes fit


def _accumulate_dtype(x: Tensor, dtype) -> _dtype.dtype:
    """Sums of integers and bools are int64, as in PyTorch; ``dtype=`` overrides."""
    if dtype is not None:
        return dtype
    return x.dtype if x.is_floating_point() else _dtype.int64


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum of the elements over ``dim`` (all of them by default): ``tensor([[1., 2.], [3., 4.]]).sum(0)`` is
    ``tensor([4., 6.])``. A float sum keeps its dtype; integer and bool sums are int64 unless ``dtype`` says."""
    numpy_dtype = None  # a floating sum keeps its dtype (NumPy's default)
    if dtype is not None or input._data.dtype not in _dtype.FLOATING_NUMPY_DTYPES:
        input, numpy_dtype = _summed_as(input, dtype)  # integers and bools sum as int64; dtype= casts floats first
    if dim is None:
        return Sum.apply(input, tuple(range(input._data.ndim)), keepdim, numpy_dtype)
    return SumDim.apply(input, _all_dims_if_empty(dim, input._data.ndim), keepdim, numpy_dtype)


def _summed_as(input: Tensor, dtype) -> tuple:
    """``(input, the NumPy dtype of its sum)``: int64 for integers and bools unless ``dtype`` says; a floating input
    is cast to a floating ``dtype`` first, so its gradient flows back through the cast (``ToCopyBackward0``)."""
    if dtype is not None and input.is_floating_point() and dtype.is_floating_point and dtype != input.dtype:
        input = input.to(dtype)
    return input, _accumulate_dtype(input, dtype).numpy_dtype


def sum_to_size(x: Tensor, *size) -> Tensor:
    """Sum ``x`` down to ``size`` (the inverse of broadcasting ``size`` up to ``x.shape``)."""
    target = shape_argument(size)
    shape = x._data.shape
    if target == shape:
        return x
    leading = len(shape) - len(target)
    if leading < 0 or builtins.any(t != s and t != 1 for t, s in zip(target, shape[leading:])):
        raise RuntimeError(f"size {list(target)} is not expandable to size {list(shape)}.")
    dims = tuple(range(leading)) + tuple(
        leading + axis for axis, (t, s) in enumerate(zip(target, shape[leading:])) if t == 1 and s != 1
    )
    reduced = sum(x, dims, keepdim=True) if dims else x
    return reduced.reshape(target)


class Mean(Op):
    """``y = (1/n) sum_i x_i`` over ``dims`` (``n`` elements);  ``dx_i = grad / n``."""

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.input_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        ctx.count = _count(x.shape, dims)
        if ctx.count == 0:  # the mean of nothing is NaN (NumPy would also warn)
            xp = array_module(x)
            shape = _kept_shape(x.shape, dims) if keepdim else _reduced_shape(x.shape, dims)
            return xp.full(shape, xp.nan, dtype=x.dtype)
        mean = x.mean(axis=dims, keepdims=keepdim, dtype=_dtype.ACCUMULATE_IN.get(x.dtype))  # bfloat16: in float32
        return array_module(x).asarray(mean, dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        spread = _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim).expand(ctx.input_shape)
        return spread / ctx.count, None, None


class MeanDim(Mean):
    """``x.mean(dim)``: the same op; PyTorch numbers the overload with ``dim`` separately."""

    node_name = "MeanBackward1"


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Average over ``dim``; only floating tensors have a mean (PyTorch refuses to guess a dtype).

        >>> import minitorch
        >>> minitorch.tensor([[1.0, 2.0], [3.0, 4.0]]).mean(1)
        tensor([1.5000, 3.5000])
    """
    if dtype is not None:
        if not dtype.is_floating_point:
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex "
                f"dtype. Got: {dtype.type_name}"
            )
        input = cast(input, dtype)
    elif not input.is_floating_point():
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {input.dtype.type_name}"
        )
    return (Mean if dim is None else MeanDim).apply(input, _all_dims_if_empty(dim, input._data.ndim), keepdim)


# -- product ----------------------------------------------------------------------------------
class Prod(Op):
    """``y = prod_i x_i`` over ``dims``;  ``dx_i = grad * prod_{j != i} x_j``.

    Without zeros in ``x``, ``prod_{j != i} x_j = y / x_i``. With zeros that division is
    0/0, so the backward multiplies the other factors directly instead (as PyTorch does).
    """

    @staticmethod
    def forward(ctx, x, dims, keepdim, numpy_dtype):
        ctx.input_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        result = array_module(x).asarray(x.prod(axis=dims, keepdims=keepdim, dtype=numpy_dtype))
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        shape, dims = ctx.input_shape, ctx.dims
        grad = _restore_dims(grad, shape, dims, ctx.keepdim)
        if not bool((x._data == 0).any()):
            return grad * (_restore_dims(result, shape, dims, ctx.keepdim) / x), None, None, None
        if len(dims) == 1 and dims[0] == x.ndim - 1:
            others = product_of_others(x)
        elif len(dims) == 1:  # move the reduced axis last, work along it, move it back
            others = product_of_others(x.transpose(dims[0], -1)).transpose(dims[0], -1)
        else:  # every dimension: the same along the flattened tensor
            others = product_of_others(x.reshape(-1)).reshape(shape)
        return grad * others, None, None, None


class ProductOfOthers(Op):
    """``y_i = prod_{j != i} x_j`` along the last axis (the zero-safe gradient of ``prod``).

    Forward multiplies an exclusive running product from the left by one from the right,
    so no division (and no 0/0) happens. Backward:
    ``dx_k = sum_{i != k} grad_i * prod_{j != i, k} x_j``; the inner products are this same
    op applied to ``n`` copies of ``x`` with ``x_k`` replaced by 1 in copy ``k``, so every
    derivative order stays exact with zeros in ``x``.
    """

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        xp = array_module(x)
        from_left = xp.ones_like(x)
        from_right = xp.ones_like(x)
        if x.shape[-1] > 1:
            from_left[..., 1:] = xp.cumprod(x[..., :-1], axis=-1)
            from_right[..., :-1] = xp.cumprod(x[..., :0:-1], axis=-1)[..., ::-1]
        return from_left * from_right

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        length = x.shape[-1]
        xp = x._xp
        identity = _constant(xp.eye(length, dtype=x._data.dtype), x)
        off_diagonal = _constant(1 - xp.eye(length, dtype=x._data.dtype), x)
        batch = tuple(x.shape[:-1])
        # copy k of x has x_k replaced by 1: shape (..., n, n), row k is copy k
        copies = x.reshape(batch + (1, length)) * off_diagonal + identity
        pairwise = product_of_others(copies)  # [..., k, i] = prod_{j != i, k} x_j  for i != k
        return (pairwise * off_diagonal * grad.reshape(batch + (1, length))).sum(-1)


class ProdDim(Prod):
    """``x.prod(dim)``: the same op; PyTorch numbers the overload with ``dim`` separately."""

    node_name = "ProdBackward1"


def product_of_others(x: Tensor) -> Tensor:
    """``y_i = prod_{j != i} x_j`` along the last dimension."""
    return ProductOfOthers.apply(x)


def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product of the elements (of one dimension ``dim``, or of all).

        >>> import minitorch
        >>> minitorch.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(1)
        tensor([ 2., 12.])
    """
    _check_single_dim("prod", dim)
    if _autocast_state.casts_inputs() and dtype is None:  # on PyTorch's lists (float32)
        (input,) = _autocast_state.cast_inputs("float32", ("cpu", "cuda"), input)
    if dtype is not None and input.is_floating_point() and dtype.is_floating_point:
        input = cast(input, dtype)
    dims = tuple(range(input._data.ndim)) if dim is None else (wrap_dim(dim, input._data.ndim),)
    if input._data.ndim == 0:
        dims = ()
    return (Prod if dim is None else ProdDim).apply(input, dims, keepdim, _accumulate_dtype(input, dtype).numpy_dtype)


# -- max, min, amax, amin, argmax, argmin -------------------------------------------------------
class Amax(Op):
    """``y = max_i x_i`` over ``dims``;  ``dx_i = grad / m`` for each of the ``m`` elements equal to ``y``, else 0.

    Tied maxima share the gradient evenly (PyTorch's choice): the weights are a constant
    mask divided by the number of ties, computed in forward only when a gradient is needed.
    ``extreme`` is "max" or "min": the subclasses below differ only in their node's name.
    """

    @staticmethod
    def forward(ctx, x, dims, keepdim, extreme):
        ctx.input_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        xp = array_module(x)
        kept = getattr(xp, extreme)(x, axis=dims, keepdims=True)
        if ctx.needs_input_grad and ctx.needs_input_grad[0]:
            is_extreme = (x == kept).astype(x.dtype)
            with np.errstate(invalid="ignore"):  # a NaN maximum equals nothing: 0 / 0, NaN as in PyTorch
                ctx.save_for_backward(is_extreme / is_extreme.sum(axis=dims, keepdims=True))
        return xp.asarray(kept if keepdim else kept.reshape(_reduced_shape(x.shape, dims)))

    @staticmethod
    def backward(ctx, grad):
        (weights,) = ctx.saved_tensors
        return _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim) * weights, None, None, None


class Amin(Amax):
    """``y = min_i x_i`` over ``dims``;  ``dx_i = grad / m`` for each of the ``m`` elements equal to ``y``, else 0."""


class MaxAll(Amax):
    """``x.max()``: the largest element; tied maxima share the gradient evenly."""

    node_name = "MaxBackward1"


class MinAll(Amax):
    """``x.min()``: the smallest element; tied minima share the gradient evenly."""

    node_name = "MinBackward1"


class MaxDim(Op):
    """``values = max over dim``, ``indices = where it is``;  ``dx = grad`` at the index returned, 0 elsewhere.

    The gradient goes to exactly the element whose index is returned (PyTorch's choice for
    ``max(dim)``), through a constant one-hot mask along ``dim``.
    """

    node_name = "MaxBackward0"

    @staticmethod
    def forward(ctx, x, axis, keepdim, find_index):
        ctx.input_shape, ctx.axis, ctx.keepdim = x.shape, axis, keepdim
        xp = array_module(x)
        indices = xp.expand_dims(getattr(xp, find_index)(x, axis=axis), axis)
        values = xp.take_along_axis(x, indices, axis=axis)
        if ctx.needs_input_grad and ctx.needs_input_grad[0]:
            positions = xp.arange(x.shape[axis]).reshape((-1,) + (1,) * (x.ndim - 1 - axis))
            ctx.save_for_backward((positions == indices).astype(x.dtype))
        if not keepdim:
            values, indices = values.squeeze(axis), indices.squeeze(axis)
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (one_hot,) = ctx.saved_tensors
        return _restore_dims(grad_values, ctx.input_shape, (ctx.axis,), ctx.keepdim) * one_hot, None, None, None


class MinDim(MaxDim):
    """``values = min over dim``, ``indices = where it is``;  ``dx = grad`` at the index returned, 0 elsewhere."""

    node_name = "MinBackward0"


def _max_or_min(name: str, x: Tensor, dim, keepdim: bool):
    if isinstance(dim, Tensor):  # torch.max(a, b) is the elementwise maximum
        return pointwise.maximum(x, dim) if name == "max" else pointwise.minimum(x, dim)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (keepdim=bool)")
        _check_nonempty(name, x, (), dim_given=False)
        return (MaxAll if name == "max" else MinAll).apply(x, tuple(range(x._data.ndim)), False, name)
    _check_single_dim(name, dim)
    axis = wrap_dim(dim, x._data.ndim)
    _check_nonempty(name, x, (axis,), dim_given=True)
    op, find_index = (MaxDim, "argmax") if name == "max" else (MinDim, "argmin")
    if x._data.ndim == 0:  # a 0-d tensor is its own maximum, at index 0
        values, indices = op.apply(x.reshape(1), 0, keepdim, find_index)
        values, indices = values.reshape(()), indices.reshape(())
    else:
        values, indices = op.apply(x, axis, keepdim, find_index)
    result = return_types.max if name == "max" else return_types.min
    return result(values, indices)


def max(input: Tensor, dim=None, keepdim: bool = False):
    """The largest element; with ``dim``, a ``(values, indices)`` named tuple; with a tensor, ``maximum``.

        >>> import minitorch
        >>> minitorch.tensor([[1.0, 5.0], [3.0, 2.0]]).max(1).indices
        tensor([1, 0])
    """
    return _max_or_min("max", input, dim, keepdim)


def min(input: Tensor, dim=None, keepdim: bool = False):
    """The smallest element; with ``dim``, a ``(values, indices)`` named tuple; with a tensor, ``minimum``."""
    return _max_or_min("min", input, dim, keepdim)


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """Largest values over ``dim`` (an int or a tuple; all by default); ties share the gradient evenly."""
    dims = _all_dims_if_empty(dim, input._data.ndim)
    _check_nonempty("amax", input, dims, dim_given=not (dim is None or dim == ()))
    return Amax.apply(input, dims, keepdim, "max")


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """Smallest values over ``dim`` (an int or a tuple; all by default); ties share the gradient evenly."""
    dims = _all_dims_if_empty(dim, input._data.ndim)
    _check_nonempty("amin", input, dims, dim_given=not (dim is None or dim == ()))
    return Amin.apply(input, dims, keepdim, "min")


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False):
    """``(min, max)`` over one dimension ``dim`` (all elements by default) as a named tuple; like ``amin`` and
    ``amax``, tied extremes share the gradient evenly.

        >>> import minitorch
        >>> minitorch.tensor([[1.0, -2.0], [3.0, 0.5]]).aminmax(dim=1)
        minitorch.return_types.aminmax(
        min=tensor([-2.0000,  0.5000]),
        max=tensor([1., 3.]))
    """
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
            )
        dims = tuple(range(input._data.ndim))
    else:
        dims = _all_dims_if_empty(dim, input._data.ndim)
        if input._data.ndim and input._data.shape[dims[0]] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    return return_types.aminmax(
        AminmaxMin.apply(input, dims, keepdim, "min"), AminmaxMax.apply(input, dims, keepdim, "max")
    )


class AminmaxMin(Amin):
    node_name = "AminmaxBackward0"  # PyTorch's one node for both results; here each result has its own


class AminmaxMax(Amax):
    node_name = "AminmaxBackward0"


def _arg_extreme(name: str, x: Tensor, dim, keepdim: bool) -> Tensor:
    """Index of the extreme element (int64, never differentiable); over the flattened tensor when ``dim`` is None."""
    _check_single_dim(name, dim)
    if x._data.dtype == bool:
        raise RuntimeError(f"{name}(): does not support bool input")
    xp = x._xp
    find = getattr(xp, name)
    if dim is None:
        _check_nonempty(name, x, (), dim_given=False)
        index = find(x._data.reshape(-1))
        if keepdim:
            index = index.reshape((1,) * x._data.ndim)
    else:
        axis = wrap_dim(dim, x._data.ndim)
        _check_nonempty(name, x, (axis,), dim_given=True)
        data = x._data if x._data.ndim else x._data.reshape(1)
        index = find(data, axis=axis, keepdims=keepdim and x._data.ndim > 0)
        if x._data.ndim == 0:
            index = index.reshape(())
    return Tensor._make(xp.asarray(index, dtype=xp.int64), x._device)


def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (first one on ties), over ``dim`` or the flattened tensor."""
    return _arg_extreme("argmax", input, dim, keepdim)


def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (first one on ties), over ``dim`` or the flattened tensor."""
    return _arg_extreme("argmin", input, dim, keepdim)


# -- variance and standard deviation ------------------------------------------------------------
def _degrees_of_freedom(name: str, shape, dims, correction) -> float:
    """``n - correction``, clamped at 0 with PyTorch's warning (the result is then inf or NaN)."""
    freedom = _count(shape, dims) - correction
    if freedom <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
            "(input numel divided by output numel).",
            UserWarning,
            stacklevel=4,
        )
        return 0
    return freedom


def _centered(x: Tensor, dims) -> Tensor:
    """``x - mean(x)`` in Tensor ops, so backward formulas that use it can be differentiated again."""
    return x - mean(x, dims, keepdim=True)


class Var(Op):
    """``y = sum_i (x_i - mean)^2 / (n - correction)``;  ``dx_i = grad * 2 (x_i - mean) / (n - correction)``.

    (The mean's own dependence on ``x`` drops out because the deviations sum to zero.)
    """

    @staticmethod
    @computes_in_float32
    def forward(ctx, x, dims, keepdim, freedom):
        ctx.input_shape, ctx.dims, ctx.keepdim, ctx.freedom = x.shape, dims, keepdim, freedom
        ctx.save_for_backward(x)
        xp = array_module(x)
        deviations = x - x.mean(axis=dims, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):  # freedom 0 gives inf or NaN, as in PyTorch
            return xp.asarray(xp.true_divide((deviations * deviations).sum(axis=dims, keepdims=keepdim), freedom))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        grad = _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim)
        return grad * _centered(x, ctx.dims) * (2.0 / ctx.freedom if ctx.freedom else float("inf")), None, None, None


class Std(Op):
    """``y = sqrt(var(x))``;  ``dx_i = grad * (x_i - mean) / ((n - correction) * y)``, and 0 where ``y = 0``.

    At ``y = 0`` (all values equal) the square root has no derivative; PyTorch defines the
    gradient there as 0, which we follow by dividing by ``y`` only where it is nonzero.
    """

    @staticmethod
    @computes_in_float32
    def forward(ctx, x, dims, keepdim, freedom):
        ctx.input_shape, ctx.dims, ctx.keepdim, ctx.freedom = x.shape, dims, keepdim, freedom
        xp = array_module(x)
        deviations = x - x.mean(axis=dims, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            variance = xp.true_divide((deviations * deviations).sum(axis=dims, keepdims=keepdim), freedom)
        result = xp.asarray(xp.sqrt(variance))
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        grad = _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim)
        result = _restore_dims(result, ctx.input_shape, ctx.dims, ctx.keepdim)
        is_zero = (result._data == 0).astype(result._data.dtype)
        safe_result = result + _constant(is_zero, result)  # 1 where the std is 0; masked out just below
        grad_scale = grad / (safe_result * (ctx.freedom if ctx.freedom else float("inf"))) * _constant(1 - is_zero, x)
        return grad_scale * _centered(x, ctx.dims), None, None, None


def _var_arguments(name: str, x: Tensor, dim, unbiased, correction):
    """Sort out PyTorch's overloads: ``var(unbiased)``, ``var(dim, unbiased)``, ``var(dim, correction=c)``."""
    if isinstance(dim, builtins.bool):  # x.var(False) means unbiased=False
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both unbiased and correction")
    if not x.is_floating_point():
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = _all_dims_if_empty(dim, x._data.ndim)
    return dims, _degrees_of_freedom(name, x._data.shape, dims, correction)


def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Variance over ``dim``, dividing by ``n - correction`` (``correction=1``, Bessel's, by default).

        >>> import minitorch
        >>> minitorch.tensor([1.0, 2.0, 3.0, 4.0]).var()
        tensor(1.6667)
    """
    dims, freedom = _var_arguments("var", input, dim, unbiased, correction)
    return Var.apply(input, dims, keepdim, freedom)


def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Standard deviation over ``dim``: the square root of ``var`` with the same arguments."""
    dims, freedom = _var_arguments("std", input, dim, unbiased, correction)
    return Std.apply(input, dims, keepdim, freedom)


def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> tuple:
    """``(var(x, ...), mean(x, ...))`` over the same dimensions."""
    if isinstance(dim, builtins.bool):
        dim, unbiased = None, dim
    return var(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)


def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> tuple:
    """``(std(x, ...), mean(x, ...))`` over the same dimensions."""
    if isinstance(dim, builtins.bool):
        dim, unbiased = None, dim
    return std(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)


# -- norms ----------------------------------------------------------------------------------------
class Norm(Op):
    """The vector p-norm ``y = (sum_i |x_i|^p)^(1/p)`` over ``dims``, with its limits:

    * ``p = 2``:   ``y = sqrt(sum x^2)``;   ``dx = grad * x / y`` (0 where ``y = 0``, PyTorch's choice)
    * ``p = 1``:   ``y = sum |x|``;         ``dx = grad * sign(x)``
    * ``p = inf``: ``y = max |x|``;         ``dx = grad * sign(x)`` shared evenly by the tied maxima
      (``-inf``: the same with the minima)
    * ``p = 0``:   ``y`` = number of nonzeros; ``dx = 0``
    * other ``p``: ``dx = grad * sign(x) |x|^(p-1) / y^(p-1)`` (0 where ``y = 0``; for ``p < 1``,
      0 where ``x = 0``)
    """

    node_name = "LinalgVectorNormBackward0"

    @staticmethod
    @computes_in_float32
    def forward(ctx, x, p, dims, keepdim):
        result, weights = _vector_norm(ctx, x, p, dims, keepdim)
        ctx.save_for_backward(x, result, weights)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result, weights = ctx.saved_tensors
        return _vector_norm_backward(ctx, grad, x, result, weights), None, None, None


def _vector_norm(ctx, x, p, dims, keepdim):
    """The p-norm of array ``x`` over ``dims`` (see ``Norm``), and for p = +-inf the share of each tied extreme."""
    ctx.input_shape, ctx.p, ctx.dims, ctx.keepdim = x.shape, p, dims, keepdim
    xp = array_module(x)
    magnitude = xp.abs(x)
    weights = None  # for p = +-inf: how the gradient is shared among the tied extremes
    if p == 2:
        result = xp.sqrt((x * x).sum(axis=dims, keepdims=keepdim))
    elif p == 1:
        result = magnitude.sum(axis=dims, keepdims=keepdim)
    elif p == float("inf") or p == float("-inf"):
        kept = (xp.max if p > 0 else xp.min)(magnitude, axis=dims, keepdims=True)
        is_extreme = (magnitude == kept).astype(x.dtype)
        weights = is_extreme / is_extreme.sum(axis=dims, keepdims=True)
        result = kept if keepdim else kept.reshape(_reduced_shape(x.shape, dims))
    elif p == 0:
        result = (x != 0).sum(axis=dims, keepdims=keepdim).astype(x.dtype)
    else:
        result = (magnitude**p).sum(axis=dims, keepdims=keepdim) ** (1.0 / p)
    return xp.asarray(result), weights


def _vector_norm_backward(ctx, grad, x, result, weights):
    """The gradient of the p-norm with respect to ``x`` (the formulas of ``Norm``), in Tensor operations."""
    p = ctx.p
    grad = _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim)
    if p == 0:
        return grad * 0.0 * x
    if p == 1:
        return grad * x.sign()
    if weights is not None:  # p = +-inf
        return grad * weights * x.sign()
    result = _restore_dims(result, ctx.input_shape, ctx.dims, ctx.keepdim)
    if p < 1:  # |x|^(p-1) is infinite at x = 0, where PyTorch sets the gradient to 0
        x_is_zero = (x._data == 0).astype(x._data.dtype)
        safe_magnitude = x.abs() + _constant(x_is_zero, x)
        scaled = x.sign() * safe_magnitude ** (p - 1) * _constant(1 - x_is_zero, x)
        return scaled * grad * result ** (1 - p)
    norm_is_zero = (result._data == 0).astype(result._data.dtype)
    safe_norm = result + _constant(norm_is_zero, result)
    grad_scale = grad * _constant(1 - norm_is_zero, result)
    if p == 2:
        return x * (grad_scale / safe_norm)
    if p < 2:
        return x.sign() * x.abs() ** (p - 1) * (grad_scale / safe_norm ** (p - 1))
    return x * x.abs() ** (p - 2) * (grad_scale / safe_norm ** (p - 1))


class Dist(Op):
    """``y = ||a - b||_p`` over all elements (``a`` and ``b`` broadcast), in one node as PyTorch records it.

    With ``d = a - b``: ``da = dnorm(d)`` (the p-norm's gradient, see ``Norm``) and ``db = -da``.
    """

    node_name = "DistBackward0"

    @staticmethod
    @computes_in_float32
    def forward(ctx, a, b, p):
        difference = a - b
        result, weights = _vector_norm(ctx, difference, p, tuple(range(difference.ndim)), False)
        ctx.save_for_backward(a, b, result, weights)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result, weights = ctx.saved_tensors
        grad_difference = _vector_norm_backward(ctx, grad, a - b, result, weights)
        return grad_difference, -grad_difference, None


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The vector p-norm of ``input`` over ``dim`` (all elements by default); ``'fro'`` is the 2-norm.

        >>> import minitorch
        >>> minitorch.tensor([3.0, 4.0]).norm()
        tensor(5.)
    """
    if isinstance(p, str):
        if p != "fro":
            if p == "nuc":
                raise RuntimeError("minitorch does not implement the nuclear norm (p='nuc'); use p='fro' or a number")
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
        p = 2
    elif p is None:
        p = 2
    if not input.is_floating_point():
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {input.dtype.type_name}"
        )
    if dtype is not None:
        if dtype.is_floating_point and dtype.itemsize < input.dtype.itemsize:
            raise RuntimeError(
                f"linalg.vector_norm: the dtype of the input ({input.dtype.type_name}) should be convertible "
                f"without narrowing to the specified dtype ({dtype.type_name})"
            )
        input = cast(input, dtype)
    dims = _all_dims_if_empty(dim, input._data.ndim)
    p = builtins.float(p)
    if input._data.size == 0 and (p == float("inf") or p == float("-inf")):
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {'' if p > 0 else '-'}inf norm on an empty tensor because the "
            "operation does not have an identity"
        )
    return Norm.apply(input, p, dims, keepdim)


def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """Each slice along ``dim`` (``x[i]`` for ``dim=0``) rescaled so that its ``p``-norm is at most ``maxnorm``.

    A slice whose norm exceeds ``maxnorm`` is multiplied by ``maxnorm / (norm + 1e-7)`` (PyTorch's small
    constant keeps the division safe); the others are unchanged. The gradient flows through the norm too.

        >>> import minitorch
        >>> minitorch.tensor([[3.0, 4.0], [0.3, 0.4]]).renorm(2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {builtins.float(maxnorm):g}")
    if input._data.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input._data.ndim} dimensions")
    axis = wrap_dim(dim, input._data.ndim)
    # bfloat16, float16: PyTorch computes the norms and factors in float32 and rounds the factors to the input's dtype
    source = cast(input, _dtype.float32) if input.dtype in (_dtype.bfloat16, _dtype.float16) else input
    norms = norm(source, p, tuple(d for d in range(input._data.ndim) if d != axis), keepdim=True)
    factor = pointwise.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return input * cast(factor, input.dtype)


# -- logsumexp and cumsum -----------------------------------------------------------------------
class LogSumExp(Op):
    """``y = log(sum_i exp(x_i))``;  ``dx_i = grad * exp(x_i - y)`` (the softmax of ``x``).

    Computed as ``m + log(sum exp(x - m))`` with ``m = max x``: the largest exponent is 0,
    so nothing overflows. Where ``m`` is infinite, ``m = 0`` is used instead (``x - m``
    would be NaN), which still gives PyTorch's ``+-inf``.
    """

    node_name = "LogsumexpBackward0"

    @staticmethod
    @computes_in_float32
    def forward(ctx, x, dims, keepdim):
        ctx.input_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        xp = array_module(x)
        if x.size:
            shift = xp.max(x, axis=dims, keepdims=True)
            shift = xp.where(xp.isfinite(shift), shift, 0)
        else:
            shift = xp.zeros(_kept_shape(x.shape, dims), dtype=x.dtype)
        with np.errstate(divide="ignore"):  # log(0) = -inf when summing nothing (or only -inf)
            result = xp.log(xp.exp(x - shift).sum(axis=dims, keepdims=True)) + shift
        if not keepdim:
            result = result.reshape(_reduced_shape(x.shape, dims))
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        shape, dims, keepdim = ctx.input_shape, ctx.dims, ctx.keepdim
        softmax = (x - _restore_dims(result, shape, dims, keepdim)).exp()
        return _restore_dims(grad, shape, dims, keepdim) * softmax, None, None


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, computed without overflow; integers become the default float.

        >>> import minitorch
        >>> minitorch.tensor([1000.0, 1000.0]).logsumexp(0)
        tensor(1000.6932)
    """
    if not input.is_floating_point():
        input = cast(input, _dtype.get_default_dtype())
    return LogSumExp.apply(input, _all_dims_if_empty(dim, input._data.ndim), keepdim)


class Cumsum(Op):
    """``y_i = sum_{j <= i} x_j`` along ``dim``;  ``dx_j = sum_{i >= j} grad_i`` (a cumulative sum from the end)."""

    @staticmethod
    @computes_in_float32
    def forward(ctx, x, axis):
        ctx.axis = axis
        xp = array_module(x)
        return xp.cumsum(x, axis=axis)

    @staticmethod
    def backward(ctx, grad):
        return grad.flip(ctx.axis).cumsum(ctx.axis).flip(ctx.axis), None


def cumsum(input: Tensor, dim, *, dtype=None) -> Tensor:
    """Running sums along ``dim``; integers and bools accumulate in int64, as in PyTorch.

        >>> import minitorch
        >>> minitorch.tensor([1.0, 2.0, 3.0]).cumsum(0)
        tensor([1., 3., 6.])
    """
    axis = wrap_dim(dim, input._data.ndim)
    input = cast(input, _accumulate_dtype(input, dtype))
    if input._data.ndim == 0:
        return Cumsum.apply(input.reshape(1), 0).reshape(())
    return Cumsum.apply(input, axis)


def _reverse_cumsum(grad: Tensor, axis: int) -> Tensor:
    """``r_j = sum_{i >= j} grad_i`` along ``axis``: how a running sum's gradient flows back."""
    return grad.flip(axis).cumsum(axis).flip(axis)


def _positions(length: int, axis: int, ndim: int, xp):
    """``0, 1, ..., length - 1`` laid along ``axis`` of an ``ndim``-dimensional array (for broadcasting)."""
    return xp.arange(length).reshape((-1,) + (1,) * (ndim - 1 - axis))


def inclusive_scan(combine, x, axis: int):
    """``y_i = combine(x_0, ..., x_i)`` along ``axis`` for an associative ``combine`` (maximum, logaddexp).

    In log2(n) vectorised steps: after the step with shift ``s``, each ``y_i`` combines the
    last ``2 s`` inputs up to ``i`` (Hillis and Steele's scan). NumPy's ``ufunc.accumulate``
    would do it in one call, but CuPy only has that for add and multiply.
    """
    result = x.copy()
    length = x.shape[axis]
    shift = 1
    while shift < length:
        later = (slice(None),) * axis + (slice(shift, None),)
        earlier = (slice(None),) * axis + (slice(None, length - shift),)
        result[later] = combine(result[later], result[earlier])
        shift *= 2
    return result


def _along_axis_of_0d(op, x: Tensor, axis: int, *rest):
    """Scans (cumsum, cumprod, cummax...) of a 0-d tensor: the op on it as a 1-element vector."""
    if x._data.ndim:
        return op.apply(x, axis, *rest)
    results = op.apply(x.reshape(1), 0, *rest)
    if isinstance(results, tuple):
        return tuple(result.reshape(()) for result in results)
    return results.reshape(())


# -- cumprod, logcumsumexp, cummax, cummin ----------------------------------------------------------
class Cumprod(Op):
    """``y_i = prod_{j <= i} x_j`` along ``dim``;  ``dx_j = sum_{i >= j} grad_i * y_i / x_j``.

    Without zeros that is a reversed running sum of ``grad * y``, divided by ``x``. With a zero,
    the first one at position ``z`` (PyTorch's algorithm, which never divides by 0):

    * before ``z``: the same formula (``y_i = 0`` from ``z`` on, so only terms before ``z`` count);
    * at ``z``: ``dx_z = y_{z-1} * sum_{i >= z} grad_i * prod_{z < k <= i} x_k`` (another cumprod);
    * after ``z``: 0, since every product that contains ``x_j`` also contains ``x_z = 0``.

    That gradient is exact, but its own derivative is not (the zero after ``z`` hides a
    dependence on ``x_z``). So when a graph of the gradient is recorded (``create_graph=True``)
    and ``x`` has zeros, the backward uses the definition instead, also PyTorch's choice:
    ``n`` copies of ``x``, copy ``j`` with ``x_j`` replaced by 1, whose cumprods give every
    ``prod_{k <= i, k != j} x_k`` at once (``n^2`` memory, differentiable to any order).
    """

    @staticmethod
    @computes_in_float32  # bfloat16, float16: a float32 running product, each value rounded (PyTorch's accumulator)
    @np.errstate(over="ignore", invalid="ignore")  # inf * 0 is NaN and overflow inf, silently as in PyTorch
    def forward(ctx, x, axis):
        ctx.axis = axis
        result = array_module(x).cumprod(x, axis=axis)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        axis = ctx.axis
        if not bool((x._data == 0).any()):
            return _reverse_cumsum(grad * result, axis) / x, None
        if _GradState.enabled:
            return _cumprod_gradient_by_definition(grad, x, axis), None
        xp, data = x._xp, x._data
        positions = _positions(data.shape[axis], axis, data.ndim, xp)
        is_zero = data == 0
        first_zero = xp.where(
            is_zero.any(axis=axis, keepdims=True), xp.argmax(is_zero, axis=axis, keepdims=True), data.shape[axis]
        )
        before = _constant(positions < first_zero, x)
        from_zero = _constant(positions >= first_zero, x)
        after = _constant(positions > first_zero, x)
        x_before = pointwise.where(before, x, 1.0)  # the first zero and what follows replaced by 1: no zeros left
        prefix = cumprod(x_before, axis)  # y before z; at z, y_{z-1}
        grad_before = _reverse_cumsum(grad * pointwise.where(before, prefix, 0.0), axis) / x_before
        products_after = cumprod(pointwise.where(after, x, 1.0), axis)  # prod_{z < k <= i} x_k for i >= z
        tail = (grad * pointwise.where(from_zero, products_after, 0.0)).sum(axis, keepdim=True)
        at_zero = _constant(positions == first_zero, x)
        return pointwise.where(before, grad_before, pointwise.where(at_zero, prefix * tail, 0.0)), None


def _cumprod_gradient_by_definition(grad: Tensor, x: Tensor, axis: int) -> Tensor:
    """``dx_j = sum_{i >= j} grad_i * prod_{k <= i, k != j} x_k``, all in Tensor ops (see ``Cumprod``)."""
    xp = x._xp
    x_last, grad_last = x.movedim(axis, -1), grad.movedim(axis, -1)
    length = x_last.shape[-1]
    identity = _constant(xp.eye(length, dtype=x._data.dtype), x)
    # copies[..., j, :] is x with x_j replaced by 1; its running product at i is prod_{k <= i, k != j} x_k
    copies = x_last.unsqueeze(-2) * (1 - identity) + identity
    from_j_on = _constant(xp.triu(xp.ones((length, length), dtype=x._data.dtype)), x)  # [j, i] = 1 where i >= j
    terms = cumprod(copies, -1) * from_j_on * grad_last.unsqueeze(-2)
    return terms.sum(-1).movedim(-1, axis)


def cumprod(input: Tensor, dim, *, dtype=None) -> Tensor:
    """Running products along ``dim``; integers and bools accumulate in int64, as in PyTorch.

        >>> import minitorch
        >>> minitorch.tensor([1.0, 2.0, 3.0]).cumprod(0)
        tensor([1., 2., 6.])
    """
    axis = wrap_dim(dim, input._data.ndim)
    return _along_axis_of_0d(Cumprod, cast(input, _accumulate_dtype(input, dtype)), axis)


class LogCumSumExp(Op):
    """``y_i = log(sum_{j <= i} e ** x_j)`` along ``dim``;  ``dx_j = sum_{i >= j} grad_i * e ** (x_j - y_i)``.

    Forward combines with ``logaddexp``, which never overflows. Backward, as in PyTorch,
    sends the positive and the negative part of ``grad`` through logarithms:
    ``dx = e ** (x + P) - e ** (x + N)`` with ``P = reversed logcumsumexp(log(grad+) - y)``
    (``N`` likewise for ``-grad``), so no exponential overflows there either.
    """

    node_name = "LogcumsumexpBackward0"

    @staticmethod
    @np.errstate(invalid="ignore")  # -inf - -inf inside logaddexp: NumPy warns, the result (-inf) is right
    def forward(ctx, x, axis):
        result = inclusive_scan(array_module(x).logaddexp, x, axis)
        ctx.axis = axis
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        axis = ctx.axis
        # log|grad| where grad has the sign wanted, else the most negative float (exp of it is 0)
        lowest = float(np.finfo(grad._data.dtype).min)

        def reversed_part(is_part, magnitude):
            log_part = pointwise.where(is_part, pointwise.where(is_part, magnitude, 1.0).log(), lowest)
            return logcumsumexp((log_part - result).flip(axis), axis).flip(axis)

        positive = reversed_part(grad > 0, grad)
        negative = reversed_part(grad < 0, -grad)
        return (x + positive).exp() - (x + negative).exp(), None


def logcumsumexp(input: Tensor, dim) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``dim``, computed without overflow or underflow.

        >>> import minitorch
        >>> minitorch.tensor([-1000.0, -1000.0]).logcumsumexp(0)
        tensor([-1000.0000,  -999.3068])
    """
    axis = wrap_dim(dim, input._data.ndim)
    if not input.is_floating_point():
        raise NotImplementedError(_messages.not_implemented_for("logcumsumexp_out_cpu", input.dtype))
    return _along_axis_of_0d(LogCumSumExp, input, axis)


class Cummax(Op):
    """``values_i = max_{j <= i} x_j`` along ``dim``, ``indices_i`` where it is;  ``dx = grad`` added at the indices.

    At ties the index is the *latest* position holding the running maximum (PyTorch's
    choice), and a NaN, once seen, is the maximum from then on. ``extreme`` is "maximum"
    or "minimum"; ``Cummin`` differs only in its node's name.
    """

    @staticmethod
    @computes_in_float32
    @computes_in_float32
    def forward(ctx, x, axis, extreme):
        xp = array_module(x)
        values = inclusive_scan(getattr(xp, extreme), x, axis)
        # Where x equals the running extreme, a new record starts; the index is the latest record so far.
        positions = _positions(x.shape[axis], axis, x.ndim, xp)
        is_record = x == values
        if _dtype.is_floating(x.dtype):
            is_record |= xp.isnan(x)
        indices = inclusive_scan(xp.maximum, xp.where(is_record, positions, 0), axis).astype(xp.int64)
        ctx.mark_non_differentiable(indices)
        ctx.axis, ctx.input_shape, ctx.indices = axis, x.shape, indices
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        zeros = Tensor._make(grad_values._xp.zeros(ctx.input_shape, dtype=grad_values._data.dtype), grad_values._device)
        index = Tensor._make(ctx.indices, grad_values._device)
        return zeros.scatter_add(ctx.axis, index, grad_values), None, None


class Cummin(Cummax):
    """``values_i = min_{j <= i} x_j`` along ``dim``, ``indices_i`` where it is (the latest, at ties)."""


def cummax(input: Tensor, dim):
    """``(values, indices)``: the running maximum along ``dim`` and where each value was found.

        >>> import minitorch
        >>> minitorch.tensor([1.0, 3.0, 2.0]).cummax(0).indices
        tensor([0, 1, 1])
    """
    return return_types.cummax(*_along_axis_of_0d(Cummax, input, wrap_dim(dim, input._data.ndim), "maximum"))


def cummin(input: Tensor, dim):
    """``(values, indices)``: the running minimum along ``dim`` and where each value was found."""
    return return_types.cummin(*_along_axis_of_0d(Cummin, input, wrap_dim(dim, input._data.ndim), "minimum"))


# -- sums that skip NaN, counting, differences, integrals --------------------------------------------
class Nansum(Op):
    """``y = sum_i x_i`` over ``dims``, NaN counted as 0;  ``dx_i = grad`` where ``x_i`` is a number, 0 at NaN.

    The gradient is ``grad`` times a constant 0/1 mask (PyTorch's formula: an infinite ``grad``
    then gives NaN at the NaNs, as ``inf * 0`` does).
    """

    @staticmethod
    def forward(ctx, x, dims, keepdim, numpy_dtype):
        xp = array_module(x)
        ctx.input_shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim
        if ctx.needs_input_grad and ctx.needs_input_grad[0]:
            ctx.save_for_backward((~xp.isnan(x)).astype(x.dtype))
        wide = x.astype(_dtype.ACCUMULATE_IN.get(x.dtype, x.dtype), copy=False)  # NumPy skips NaN in its own floats
        return xp.asarray(xp.nansum(wide, axis=dims, keepdims=keepdim, dtype=numpy_dtype), dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (is_number,) = ctx.saved_tensors
        return _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim) * is_number, None, None, None


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``sum`` with NaN counted as 0.

        >>> import minitorch
        >>> minitorch.tensor([1.0, float("nan"), 3.0]).nansum()
        tensor(4.)
    """
    if not input.is_floating_point():  # no NaN to skip
        return sum(input, dim, keepdim, dtype=dtype)
    if dtype is not None:
        input = cast(input, dtype)
    return Nansum.apply(input, _all_dims_if_empty(dim, input._data.ndim), keepdim, None)


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The mean of the values that are not NaN (NaN where there are none).

        >>> import minitorch
        >>> minitorch.tensor([1.0, float("nan"), 3.0]).nanmean()
        tensor(2.)
    """
    if not input.is_floating_point():
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {input.dtype.type_name}"
        )
    count = sum(pointwise.logical_not(pointwise.isnan(input)), dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """How many elements are not zero, over ``dim`` (an int or a tuple; all by default); int64."""
    dims = _all_dims_if_empty(dim, input._data.ndim)
    xp = input._xp
    return Tensor._make(xp.asarray((input._data != 0).sum(axis=dims), dtype=xp.int64), input._device)


def argwhere(input: Tensor) -> Tensor:
    """The indices of the nonzero elements, one row ``(i, j, ...)`` per element: ``nonzero(x)``."""
    return input.nonzero()


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """The ``n``-th forward difference along ``dim``: ``out_i = x_{i+1} - x_i``, applied ``n`` times.

    ``prepend``/``append`` are joined to ``x`` first; bool tensors use ``xor`` (``!=``) instead of ``-``.

        >>> import minitorch
        >>> minitorch.tensor([1.0, 3.0, 6.0, 10.0]).diff()
        tensor([2., 3., 4.])
    """
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    axis = wrap_dim(dim, input._data.ndim)
    for extra in (prepend, append):
        if extra is None:
            continue
        if extra._data.ndim != input._data.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for other_axis, (size, extra_size) in enumerate(zip(input._data.shape, extra._data.shape)):
            if other_axis != axis and size != extra_size:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of input except along the "
                    f"differencing dimension; input.size({other_axis}) = {size}, but got "
                    f"tensor.size({other_axis}) = {extra_size}"
                )
    if prepend is not None or append is not None:
        input = cat([t for t in (prepend, input, append) if t is not None], axis)
    elif n == 0:  # a copy, never the input itself, as PyTorch's
        return clone(input)
    for _ in range(n):
        length = input._data.shape[axis]
        if length == 0:
            break
        later, earlier = input.narrow(axis, 1, length - 1), input.narrow(axis, 0, length - 1)
        input = pointwise.logical_xor(later, earlier) if input._data.dtype == bool else later - earlier
    return input


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: ``sum_i (x_{i+1} - x_i) (y_{i+1} + y_i) / 2``.

    Samples are ``dx`` apart (1 by default) unless their positions ``x`` are given (a 1-D
    tensor along ``dim``, or one that broadcasts against ``y``).

        >>> import minitorch
        >>> minitorch.trapezoid(minitorch.tensor([1.0, 2.0, 4.0]))
        tensor(4.5000)
    """
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, dx=...)")
    if y._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    axis = wrap_dim(dim, y._data.ndim)
    length = y._data.shape[axis]
    if length == 0:  # no samples: the integral is 0, as in NumPy
        return Tensor._make(y._xp.zeros(_reduced_shape(y._data.shape, (axis,)), dtype=y._data.dtype), y._device)
    if y._data.dtype == bool or (x is not None and x._data.dtype == bool):
        raise RuntimeError("trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    if x is None:
        first, last = y.narrow(axis, 0, 1).squeeze(axis), y.narrow(axis, length - 1, 1).squeeze(axis)
        # the sum counts every sample fully; the two end points only count half
        return (sum(y, axis) - (first + last) * 0.5) * (1 if dx is None else dx)
    if x._data.ndim == 1:
        if x._data.shape[0] != length:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        x = x.reshape(tuple(length if d == axis else 1 for d in range(y._data.ndim)))
    elif x._data.ndim < y._data.ndim:
        x = x.reshape((1,) * (y._data.ndim - x._data.ndim) + tuple(x._data.shape))
    spacing = diff(x, dim=axis)
    heights = y.narrow(axis, 1, length - 1) + y.narrow(axis, 0, length - 1)
    return sum(spacing * heights, axis) / 2.0


def trapz(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """``trapezoid`` under its older name; the spacing ``dx`` can only be given by keyword."""
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(
            f"trapz() received an invalid combination of arguments - got (Tensor, {type(x).__name__}), but expected "
            "(Tensor y, *, float dx = 1, int dim = -1) or (Tensor y, Tensor x, *, int dim = -1)"
        )
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoidal rule along ``dim``: ``out_i = sum_{j <= i} (x_{j+1} - x_j) (y_{j+1} + y_j) / 2``,
    one element fewer than ``y`` along ``dim`` (``x`` and ``dx`` as in ``trapezoid``).

        >>> import minitorch
        >>> minitorch.cumulative_trapezoid(minitorch.tensor([1.0, 2.0, 4.0]))
        tensor([1.5000, 4.5000])
    """
    if x is not None and dx is not None:
        raise TypeError(
            "cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, dx=...)"
        )
    if x is None:
        if y._data.dtype == bool:
            raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is not supported")
        if y._data.ndim == 0:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        axis = wrap_dim(dim, y._data.ndim)
    else:
        axis = wrap_dim(dim, y._data.ndim)
        if y._data.dtype == bool or x._data.dtype == bool:
            raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported")
    length = y._data.shape[axis]
    intervals = builtins.max(length - 1, 0)  # (no samples: no intervals)
    left, right = y.narrow(axis, 0, intervals), y.narrow(axis, length - intervals, intervals)
    if x is None:  # PyTorch's order of operations, so that the rounding agrees too
        return cumsum((1.0 if dx is None else dx) / 2.0 * (left + right), axis)
    if x._data.ndim == 1:
        if x._data.shape[0] != length:
            raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each sample point")
        x = x.reshape(tuple(length if d == axis else 1 for d in range(y._data.ndim)))
    elif x._data.ndim < y._data.ndim:
        x = x.reshape((1,) * (y._data.ndim - x._data.ndim) + tuple(x._data.shape))
    spacing = diff(x, dim=axis)
    return cumsum(spacing * (left + right) / 2.0, axis)


# -- counting into bins (never differentiable) ------------------------------------------------------
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """``out[v]``: how often ``v`` occurs in the 1-D non-negative integer tensor ``x`` (or the sum of its weights).

        >>> import minitorch
        >>> minitorch.bincount(minitorch.tensor([1, 1, 3]))
        tensor([0, 2, 0, 1])
    """
    if input._data.dtype.kind not in "iu":
        raise NotImplementedError(_messages.not_implemented_for("bincount_cpu", input.dtype))
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    xp = input._xp
    if input._data.ndim == 1 and input._data.size == 0:
        return Tensor._make(xp.zeros(minlength, dtype=xp.int64), input._device)
    if input._data.ndim != 1 or bool((input._data < 0).any()):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return Tensor._make(xp.bincount(input._data, minlength=minlength).astype(xp.int64), input._device)
    if weights._data.ndim != 1 or weights._data.shape[0] != input._data.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # float32 weights give float32 sums; any other weights (double, integers, bools) give double
    result_dtype = xp.float32 if weights._data.dtype == xp.float32 else xp.float64
    counts = xp.bincount(input._data, weights=weights._data.astype(xp.float64), minlength=minlength)
    return Tensor._make(counts.astype(result_dtype), input._device)


def histc(input: Tensor, bins: int = 100, min=0, max=0) -> Tensor:  # noqa: A002 - PyTorch's argument names
    """A histogram: counts of ``x`` in ``bins`` equal bins over ``[min, max]`` (the data's range if both are equal).

    Values outside the range are ignored; the last bin includes ``max``.

        >>> import minitorch
        >>> minitorch.histc(minitorch.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
        tensor([0., 2., 1., 0.])
    """
    if not input.is_floating_point():
        raise NotImplementedError(_messages.not_implemented_for("histogram_cpu", input.dtype))
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    xp, data = input._xp, input._data.reshape(-1)
    low, high = data.dtype.type(min), data.dtype.type(max)
    if low == high and data.size:
        low, high = data.min(), data.max()
    if low == high:
        low, high = low - 1, high + 1
    if not (xp.isfinite(low) and xp.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{float(low):g}, {float(high):g}] is not finite")
    if not low < high:
        raise RuntimeError("torch.histc: max must be larger than min")
    # PyTorch's arithmetic, in x's dtype: the bin is the integer part of where x lies, scaled to [0, bins]
    inside = data[(data >= low) & (data <= high)]  # (NaN is never inside)
    which_bin = ((inside - low) * bins / (high - low)).astype(xp.int64)
    which_bin = xp.minimum(which_bin, bins - 1)  # x = max belongs to the last bin
    return Tensor._make(xp.bincount(which_bin, minlength=bins).astype(data.dtype), input._device)


def _linspace_edges(xp, low: float, high: float, bins: int, numpy_dtype):
    """``bins + 1`` evenly spaced edges from ``low`` to ``high`` as PyTorch's ``linspace`` makes them in the dtype:
    from ``low`` upwards for the first half, from ``high`` downwards for the second, so both ends are exact.

    The step is rounded to the dtype; each edge is computed in double and rounded once. That is what
    PyTorch's fused multiply-add gives for float32; in float64 an edge may differ from it in the last bit.
    """
    count = bins + 1
    step = numpy_dtype.type((numpy_dtype.type(high) - numpy_dtype.type(low)) / bins)
    positions = xp.arange(count, dtype=np.float64)
    from_low = numpy_dtype.type(low).astype(np.float64) + np.float64(step) * positions
    from_high = numpy_dtype.type(high).astype(np.float64) - np.float64(step) * (bins - positions)
    return xp.where(positions < count // 2, from_low, from_high).astype(numpy_dtype)


def histogram(input: Tensor, bins=100, *, range=None, weight: Tensor | None = None, density: bool = False):  # noqa: A002
    """``(hist, bin_edges)``: counts (or summed ``weight``) of the elements of ``x`` in bins.

    ``bins`` is a count of equal bins over ``range`` (the data's ``(min, max)`` by default) or a
    1-D tensor of increasing edges. Each bin holds ``left <= v < right``; the last one includes
    its right edge; values outside are ignored. ``density=True`` divides by the total and by
    the bin widths, so the histogram integrates to 1.

        >>> import minitorch
        >>> minitorch.histogram(minitorch.tensor([1.0, 2.0, 1.0, 4.0]), bins=3)
        minitorch.return_types.histogram(
        hist=tensor([2., 1., 1.]),
        bin_edges=tensor([1., 2., 3., 4.]))
    """
    if not input.is_floating_point():
        raise NotImplementedError(_messages.not_implemented_for("histogramdd", input.dtype))
    xp, data = input._xp, input._data.reshape(-1)
    if isinstance(bins, Tensor):
        if bins._data.ndim != 1:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{bins._data.ndim} dimensions in the bins tensor for dimension 0"
            )
        if bins._data.size < 2:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins._data.size - 1} for dimension 0")
        if bins._data.dtype != data.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
                f"dtype {input.dtype.cpp_name} and bins for dimension 0 with dtype "
                f"{bins.dtype.cpp_name}"
            )
    elif bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if weight is not None:
        if weight._data.size != data.size:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
                f"excluding its innermost dimension, but got input with shape {[data.size, 1]} and weight with shape "
                f"{[weight._data.size]}"
            )
        if weight._data.dtype != data.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same "
                f"dtype, but got input({input.dtype.cpp_name}), and "
                f"weight({weight.dtype.cpp_name})"
            )
    if isinstance(bins, Tensor):
        edges = bins._data
    else:
        if range is not None:
            low, high = builtins.float(range[0]), builtins.float(range[1])
        elif data.size:
            low, high = builtins.float(data.min()), builtins.float(data.max())
        else:
            low, high = 0.0, 1.0
        if not (np.isfinite(low) and np.isfinite(high)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{low:g}, {high:g}] is not finite")
        if low > high:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} for dimension 0"
            )
        if low == high:  # one value: a unit-wide range around it
            low, high = low - 0.5, high + 0.5
        edges = _linspace_edges(xp, low, high, builtins.int(bins), data.dtype)
    bin_count = edges.shape[0] - 1
    inside = (data >= edges[0]) & (data <= edges[-1])  # (NaN is never inside)
    # the last edge at or below each value is its bin; a value equal to the last edge joins the last bin
    which_bin = xp.minimum(xp.searchsorted(edges, data[inside], side="right") - 1, bin_count - 1)
    weights = None if weight is None else weight._data.reshape(-1)[inside].astype(np.float64)
    hist = xp.bincount(which_bin, weights=weights, minlength=bin_count).astype(data.dtype)
    if density:
        with np.errstate(invalid="ignore", divide="ignore"):  # an empty histogram has no density: NaN, as in PyTorch
            hist = hist / hist.sum() / xp.diff(edges)
    return return_types.histogram(Tensor._make(hist, input._device), Tensor._make(edges.copy(), input._device))


# -- all and any ----------------------------------------------------------------------------------
def _logical_reduction(name: str, x: Tensor, dim, keepdim: bool) -> Tensor:
    """``all``/``any``: bool results (uint8 stays uint8, as in PyTorch); never differentiable."""
    xp = x._xp
    dims = _all_dims_if_empty(dim, x._data.ndim)
    result = getattr(xp, name)(x._data, axis=dims, keepdims=keepdim)
    if x._data.dtype == xp.uint8:
        result = result.astype(xp.uint8)
    return Tensor._make(xp.asarray(result), x._device)


def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True where every element (over ``dim``) is nonzero."""
    return _logical_reduction("all", input, dim, keepdim)


def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True where at least one element (over ``dim``) is nonzero."""
    return _logical_reduction("any", input, dim, keepdim)
