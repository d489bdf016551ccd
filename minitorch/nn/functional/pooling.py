"""Pooling functions: ``max_pool*``, ``avg_pool*``, their adaptive forms and ``max_unpool*``.

Pooling is a maximum or a mean over strided windows (``ops/pooling.py``, ``ops/average_pooling.py``), one
node each as in PyTorch; adaptive average pooling is a product with an averaging matrix per dimension. The
1-D forms are PyTorch's too: the 2-D op on an input with a length-1 axis inserted, which is removed after
(``SqueezeBackward1`` over ``AvgPool2DBackward0``).
"""

from __future__ import annotations

import math

import numpy as np

from ... import _arguments
from ..._tensor import Tensor
from ...ops import average_pooling as _average_ops, conv as _conv_ops, pooling as _pooling_ops
from ._utils import _batched, _expand_to_tuple, _unbatched

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d",
    "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "max_unpool1d", "max_unpool2d",
]


def _pool_output_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output size; in ceil mode the last window must start inside the input or left padding."""
    span = n + 2 * p - d * (k - 1) - 1
    size = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (size - 1) * s >= n + p:
        size -= 1
    return size


def _pool_geometry(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool, dims: int):
    kernel_size = _expand_to_tuple(kernel_size, dims, "kernel_size")
    stride = kernel_size if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        _expand_to_tuple(stride, dims, "stride")
    padding, dilation = _expand_to_tuple(padding, dims, "padding"), _expand_to_tuple(dilation, dims, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    for p, k, d in zip(padding, kernel_size, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and "
                f"dilation={d}"
            )
    spatial = tuple(input.shape[2:])
    sizes = tuple(_pool_output_size(*args, ceil_mode) for args in zip(spatial, kernel_size, stride, padding, dilation))
    if any(o <= 0 for o in sizes):
        raise RuntimeError(
            f"Given input size: ({'x'.join(map(str, input.shape[1:]))}). Calculated output size: "
            f"({'x'.join(map(str, (input.shape[1],) + sizes))}). Output size is too small"
        )
    # Pad after by whatever the last window needs (ceil mode can reach past the usual padding).
    pairs = tuple(
        (p, max(0, (o - 1) * s + d * (k - 1) + 1 - n - p))
        for n, k, s, p, d, o in zip(spatial, kernel_size, stride, padding, dilation, sizes)
    )
    return _conv_ops.ConvGeometry(kernel_size, stride, pairs, dilation, 1, spatial, sizes)


def _as_2d(function, input, *settings):
    """A 1-D pooling as PyTorch computes it: ``function`` (the 2-D form) on ``input`` with a length-1 axis
    before the last, each window setting ``(1, setting)``; the axis is removed from the results."""
    results = function(input.unsqueeze(-2), *settings)
    return tuple(r.squeeze(-2) for r in results) if isinstance(results, tuple) else results.squeeze(-2)


def _pair_with_1(value, name: str, first=1):
    """A 1-D window setting as the 2-D one: ``(first, value)``."""
    return (first,) + _expand_to_tuple(value, 1, name)


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, dims):
    if dims == 1:
        _batched(input, dims, "max_pool", non_empty_message=True)  # PyTorch's error names the 1-D ranks
        stride = None if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
            _pair_with_1(stride, "stride")
        return _as_2d(_max_pool, input, _pair_with_1(kernel_size, "kernel_size"), stride,
                      _pair_with_1(padding, "padding", 0), _pair_with_1(dilation, "dilation"), ceil_mode,
                      return_indices, 2)
    input, was_unbatched = _batched(input, dims, "max_pool", non_empty_message=True)
    geometry = _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode, dims)
    values, indices = (_pooling_ops.MaxPool3D if dims == 3 else _pooling_ops.MaxPool).apply(input, geometry)
    return _unbatched((values, indices) if return_indices else values, was_unbatched)


@_arguments.public
def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The largest value of each window of ``(N, C, L)``; ``indices`` (if asked) are positions in ``L``."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


@_arguments.public
def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """The largest value of each ``kernel_size`` window (stride defaults to the kernel size).

    Padding counts as ``-inf``. With ``return_indices`` it also gives, for every output,
    the flat index ``row * W + column`` of the winner in its input plane (what
    ``max_unpool2d`` takes).

        >>> import minitorch
        >>> x = minitorch.arange(16.0).reshape(1, 1, 4, 4)
        >>> minitorch.nn.functional.max_pool2d(x, 2).tolist()
        [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


@_arguments.public
def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


@_arguments.public
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 1)


@_arguments.public
def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 2)


def _pool_divisor(geometry, padding, count_include_pad: bool) -> np.ndarray:
    """How many elements each average divides by: the window clipped to the padded input, or to the input."""
    counts = []
    for n, k, s, p, o in zip(geometry.input_size, geometry.kernel_size, geometry.stride, padding,
                             geometry.output_size):
        starts = np.arange(o) * s - p
        ends = np.minimum(starts + k, n + p)
        if count_include_pad:
            counts.append(ends - starts)
        else:
            counts.append(np.minimum(ends, n) - np.maximum(starts, 0))
    divisor = counts[0]
    for count in counts[1:]:
        divisor = np.multiply.outer(divisor, count)
    return divisor


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dims):
    if dims == 1:
        _batched(input, dims, "avg_pool", non_empty_message=True)  # PyTorch's error names the 1-D ranks
        stride = None if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
            _pair_with_1(stride, "stride")
        return _as_2d(_avg_pool, input, _pair_with_1(kernel_size, "kernel_size"), stride,
                      _pair_with_1(padding, "padding", 0), ceil_mode, count_include_pad, divisor_override, 2)
    input, was_unbatched = _batched(input, dims, "avg_pool", non_empty_message=True)
    geometry = _pool_geometry(input, kernel_size, stride, padding, 1, ceil_mode, dims)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    divisor = divisor_override if divisor_override is not None else \
        _pool_divisor(geometry, [before for before, _ in geometry.padding], count_include_pad)
    output = (_average_ops.AvgPool3D if dims == 3 else _average_ops.AvgPool).apply(input, geometry, divisor)
    return _unbatched(output, was_unbatched)


@_arguments.public
def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window of ``(N, C, L)``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


@_arguments.public
def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each window; zero padding counts in the mean unless ``count_include_pad=False``.

        >>> import minitorch
        >>> x = minitorch.arange(16.0).reshape(1, 1, 4, 4)
        >>> minitorch.nn.functional.avg_pool2d(x, 2).tolist()
        [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


@_arguments.public
def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


def _adaptive_output_size(input: Tensor, output_size, dims: int) -> tuple:
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * dims
    if len(sizes) != dims:
        raise RuntimeError(f"adaptive pooling: output_size must be {dims}, but got {len(sizes)}")
    return tuple(n if o is None else int(o) for n, o in zip(input.shape[-dims:], sizes))


def _adaptive_input(input: Tensor, dims: int, name: str) -> tuple:
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got {list(input.shape)}")
    return (input.unsqueeze(0), True) if input.dim() == dims + 1 else (input, False)


def _averaging_matrix(n: int, o: int) -> np.ndarray:
    """``(o, n)`` matrix whose row ``i`` averages window ``[floor(i n / o), ceil((i + 1) n / o))``."""
    rows = np.arange(o)
    starts, ends = (rows * n) // o, -((-(rows + 1) * n) // o)
    columns = np.arange(n)
    inside = (columns[None, :] >= starts[:, None]) & (columns[None, :] < ends[:, None])
    return inside / (ends - starts)[:, None]


def _adaptive_avg_pool(input, output_size, dims: int, name: str) -> Tensor:
    batched, was_unbatched = _adaptive_input(input, dims, name)
    sizes = _adaptive_output_size(batched, output_size, dims)
    if dims == 1:
        return _as_2d(_adaptive_avg_pool, input, (1,) + sizes, 2, "adaptive_avg_pool2d")
    if all(o == 1 for o in sizes):  # one window over each whole plane: PyTorch takes the mean (MeanBackward1)
        return input.mean(tuple(range(-dims, 0)), keepdim=True)
    # Averaging windows along one dimension is a matrix product, so pooling is one product per dimension:
    # in 2-D, y = A_h @ x @ A_w^T (ops/average_pooling.py).
    matrices = tuple(_averaging_matrix(n, o) for n, o in zip(input.shape[-dims:], sizes))
    input = batched
    op = _average_ops.AdaptiveAvgPool3D if dims == 3 else _average_ops.AdaptiveAvgPool
    return _unbatched(op.apply(input, matrices), was_unbatched)


@_arguments.public
def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg_pool(input, output_size, 1, "adaptive_avg_pool1d")


@_arguments.public
def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average pooling to a fixed output size: window ``i`` spans ``[floor(i n / o), ceil((i + 1) n / o))``.

        >>> import minitorch
        >>> x = minitorch.arange(16.0).reshape(1, 1, 4, 4)
        >>> minitorch.nn.functional.adaptive_avg_pool2d(x, 1).tolist()
        [[[[7.5]]]]
    """
    return _adaptive_avg_pool(input, output_size, 2, "adaptive_avg_pool2d")


@_arguments.public
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg_pool(input, output_size, 3, "adaptive_avg_pool3d")


def _adaptive_max_pool(input, output_size, return_indices: bool, dims: int, name: str):
    if dims == 1:
        sizes = _adaptive_output_size(_adaptive_input(input, dims, name)[0], output_size, 1)
        return _as_2d(_adaptive_max_pool, input, (1,) + sizes, return_indices, 2, "adaptive_max_pool2d")
    input, was_unbatched = _adaptive_input(input, dims, name)
    sizes = _adaptive_output_size(input, output_size, dims)
    if any(n == 0 for n in input.shape[2:]) or any(o <= 0 for o in sizes):
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions and a positive "
                           f"output size, but input has sizes {list(input.shape)} and output size {list(sizes)}")
    values, indices = _pooling_ops.AdaptiveMaxPool.apply(input, sizes)
    return _unbatched((values, indices) if return_indices else values, was_unbatched)


@_arguments.public
def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    return _adaptive_max_pool(input, output_size, return_indices, 1, "adaptive_max_pool1d")


@_arguments.public
def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling to a fixed output size (windows as in ``adaptive_avg_pool2d``)."""
    return _adaptive_max_pool(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, dims: int) -> Tensor:
    input, was_unbatched = _batched(input, dims, "max_unpool", non_empty_message=True)
    if was_unbatched:
        indices = indices.unsqueeze(0)
    kernel_size = _expand_to_tuple(kernel_size, dims, "kernel_size")
    stride = kernel_size if stride is None else _expand_to_tuple(stride, dims, "stride")
    padding = _expand_to_tuple(padding, dims, "padding")
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(input.shape[2:], stride, padding, kernel_size))
    if output_size is None:
        sizes = default
    else:
        sizes = tuple(int(s) for s in output_size)[-dims:]
        for d, (size, usual, s) in enumerate(zip(sizes, default, stride)):
            if not usual - s < size < usual + s:
                raise ValueError(f'invalid output_size "{tuple(sizes)}" (dim {d} must be between {usual - s} and '
                                 f'{usual + s})')
    if indices.dtype.name != "int64" or tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError("elements in indices should be type int64 but got: " + str(indices.dtype)
                           if indices.dtype.name != "int64" else
                           f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    plane = math.prod(sizes)
    index_data = indices._data
    if index_data.size and (int(index_data.min()) < 0 or int(index_data.max()) >= plane):
        bad = int(index_data.max()) if int(index_data.max()) >= plane else int(index_data.min())
        raise RuntimeError(
            f"Found an invalid max index: {bad} (output volumes are of size {'x'.join(map(str, sizes))})"
        )
    return _unbatched(_pooling_ops.ScatterIntoPlanes.apply(input, indices, sizes, False), was_unbatched)


@_arguments.public
def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


@_arguments.public
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of ``max_pool2d``: each value goes back to the index it came from, zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)
