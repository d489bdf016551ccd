"""Vision functions: ``pad``, ``interpolate`` (and the ``upsample`` spellings), ``pixel_shuffle``,
``pixel_unshuffle`` and ``channel_shuffle``.

These are made of ordinary tensor ops (index gathers, matrix products, reshapes), so autograd derives
their backward.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _arguments
from ..._creation import linspace as _linspace, ones as _ones
from ..._tensor import Tensor
from ...amp.autocast_mode import autocast_inputs
from ...ops import (
    conv as _conv_ops,
    grid_sample as _grid_sample_ops,
    indexing as _indexing_ops,
    pixel_shuffle as _pixel_shuffle_ops,
    resampling as _resampling_ops,
    shape as shape_ops,
)
from ._antialias import antialias_matrix
from .pooling import _adaptive_avg_pool

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "pad", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "interpolate", "upsample",
    "upsample_nearest", "upsample_bilinear", "affine_grid", "grid_sample",
]


_NON_CONSTANT_PAD_HELP = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def _pad_source_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each output position along one dimension, the input position it copies."""
    positions = np.arange(-before, n + after)
    if mode == "reflect":  # mirror at the edges without repeating them: -1 -> 1, n -> n - 2
        positions = np.abs(positions)
        return np.where(positions > n - 1, 2 * (n - 1) - positions, positions)
    if mode == "replicate":
        return np.clip(positions, 0, n - 1)
    # circular: wrap around the part that negative amounts leave (PyTorch crops first, then wraps)
    crop_before, crop_after = max(-before, 0), max(-after, 0)
    kept = n - crop_before - crop_after
    return (positions - crop_before) % kept + crop_before


@_arguments.public
@autocast_inputs("float32", device_types=("cpu",))
def _float32_under_autocast(input: Tensor) -> Tensor:
    """``input``, cast to float32 inside a CPU autocast block (reflection and replication padding are on its list)."""
    return input


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dimensions: ``pad = (left, right, top, bottom, ...)``, last dimension first.

    ``mode`` is ``'constant'`` (fill with ``value``), ``'reflect'`` (mirror without the
    edge), ``'replicate'`` (repeat the edge) or ``'circular'`` (wrap around). Negative
    amounts crop.

        >>> import minitorch
        >>> x = minitorch.tensor([[1.0, 2.0, 3.0]])
        >>> minitorch.nn.functional.pad(x, (2, 1), mode="reflect").tolist()
        [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    """
    pad = tuple(int(p) for p in pad)
    _check_pad(input, pad, mode)
    if mode in ("reflect", "replicate") and (mode, len(pad) // 2) != ("reflect", 3):
        input = _float32_under_autocast(input)  # on PyTorch's CPU list, except reflection_pad3d
    pairs = _pad_pairs(pad)
    first_dim = input.dim() - len(pairs)
    if mode == "constant":
        return _constant_pad(input, pairs, first_dim, 0.0 if value is None else value)
    # One gather with broadcast index arrays over the padded dimensions; its backward adds
    # each output gradient back at the position it was copied from.
    xp = input._xp
    key = [Ellipsis]
    for d, (n, (before, after)) in enumerate(zip(input.shape[first_dim:], pairs)):
        source = _pad_source_index(n, before, after, mode).reshape((-1,) + (1,) * (len(pairs) - 1 - d))
        key.append(xp.asarray(source))
    op = _indexing_ops.PADDINGS.get((mode, len(pairs)), _indexing_ops.Index)  # PyTorch's node name for the mode
    return op.apply(input, tuple(key))


def _pad_pairs(pad: tuple) -> list:
    """``pad`` lists the last dimension first; ``pairs[d]`` is ``(before, after)`` for the ``d``-th padded dimension."""
    return [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(len(pad) // 2))]


def _check_pad(input: Tensor, pad: tuple, mode: str) -> None:
    """PyTorch's errors for a ``pad`` of odd length or longer than the input has dimensions, and, for the
    modes other than ``'constant'``, for an unknown mode, a rank those modes do not pad and amounts
    that reach past the input (``reflect``) or wrap around it more than once (``circular``)."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    padded_dims = len(pad) // 2
    ndim = input.dim()
    if padded_dims > ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but got padding length "
            f"{len(pad)} and input of dimension {ndim}"
        )
    if mode == "constant":
        return
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if padded_dims not in (1, 2, 3) or ndim not in (padded_dims + 1, padded_dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n{_NON_CONSTANT_PAD_HELP}"
        )
    first_dim = ndim - padded_dims
    for axis, n, (before, after) in zip(range(first_dim, ndim), input.shape[first_dim:], _pad_pairs(pad)):
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: padding "
                f"({before}, {after}) at dimension {axis} of input {list(input.shape)}"
            )
        if mode == "circular" and (before > n or after > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")


def _constant_pad(input: Tensor, pairs, first_dim: int, value) -> Tensor:
    if any(before < 0 or after < 0 for before, after in pairs):  # negative padding crops first
        crop = tuple(slice(max(-before, 0), n - max(-after, 0)) for n, (before, after) in
                     zip(input.shape[first_dim:], pairs))
        input = input[(Ellipsis,) + crop]
        pairs = [(max(before, 0), max(after, 0)) for before, after in pairs]
    if not any(before or after for before, after in pairs):
        return input if input.requires_grad else input.clone()
    return _conv_ops.ConstantPad.apply(input, tuple(pairs), value)


@_arguments.public
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C * r^2, H, W) -> (*, C, H * r, W * r)``: each group of ``r^2`` channels becomes an ``r x r`` block."""
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.dim()} dimension(s)"
        )
    r = upscale_factor
    *leading, channels, height, width = input.shape
    if channels % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={channels} is not divisible by {r * r}"
        )
    return _pixel_shuffle_ops.PixelShuffle.apply(input, r)  # one node (ops/pixel_shuffle.py)


@_arguments.public
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """The inverse of ``pixel_shuffle``: ``(*, C, H * r, W * r) -> (*, C * r^2, H, W)``."""
    if input.dim() < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {input.dim()} "
            "dimension(s)"
        )
    r = downscale_factor
    *leading, channels, height, width = input.shape
    for name, size, axis in (("height", height, -2), ("width", width, -1)):
        if size % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but input.size({axis})={size} "
                f"is not divisible by {r}"
            )
    return _pixel_shuffle_ops.PixelUnshuffle.apply(input, r)


@_arguments.public
def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``(N, g * c, *) -> (N, c * g, *)``: view the channels as a ``g x c`` grid and transpose it (ShuffleNet)."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    batch, channels, *spatial = input.shape
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and {groups} groups."
        )
    return _pixel_shuffle_ops.ChannelShuffle.apply(input, groups)


@_arguments.public
def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """PyTorch's second name for ``channel_shuffle`` (its errors name ``native_channel_shuffle``)."""
    return channel_shuffle(input, groups)


_INTERPOLATION_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3}


def _source_index_nearest(n: int, o: int, scale: float, exact: bool) -> np.ndarray:
    """PyTorch's nearest source index, computed in float32 as PyTorch does so the same pixels are picked."""
    if o == n:
        return np.arange(o)
    positions = np.arange(o, dtype=np.float32) + (np.float32(0.5) if exact else np.float32(0.0))
    return np.minimum(np.floor(positions * np.float32(scale)).astype(np.int64), n - 1)


def _interpolation_matrix(n: int, o: int, scale: float, align_corners: bool, cubic: bool) -> np.ndarray:
    """``(o, n)`` matrix ``A`` with ``output = A @ input`` along one dimension (linear or cubic weights)."""
    rows = np.arange(o)
    if align_corners:
        source = rows * ((n - 1) / (o - 1) if o > 1 else 0.0)
    else:
        source = (rows + 0.5) * scale - 0.5
        if not cubic:
            source = np.maximum(source, 0.0)  # PyTorch clamps for linear modes (not for cubic)
    floor = np.floor(source).astype(np.int64)
    fraction = source - floor
    matrix = np.zeros((o, n))
    if cubic:  # cubic convolution with A = -0.75 over the 4 neighbours floor - 1 .. floor + 2
        a = -0.75
        distances = [fraction + 1, fraction, 1 - fraction, 2 - fraction]
        for tap, t in enumerate(distances):
            near = ((a + 2) * t - (a + 3)) * t * t + 1
            far = ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
            weight = near if tap in (1, 2) else far
            np.add.at(matrix, (rows, np.clip(floor - 1 + tap, 0, n - 1)), weight)
        return matrix
    upper = np.minimum(floor + 1, n - 1)
    np.add.at(matrix, (rows, np.minimum(floor, n - 1)), 1 - fraction)
    np.add.at(matrix, (rows, upper), fraction)
    return matrix


@_arguments.public
def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resize the spatial dimensions of a 3-D, 4-D or 5-D input (``Upsample``'s functional form).

    ``nearest`` copies the pixel at ``floor(i * in / out)``; ``(bi/tri)linear`` and
    ``bicubic`` weight the neighbours. Every mode here is separable, so each spatial
    dimension is resized by one small matrix product (``A @ x`` along that dimension), one
    node for all of them (``ops/resampling.py``, backward ``A^T @ grad``); nearest picks by index.
    ``area`` is adaptive average pooling.
    ``antialias=True`` (bilinear, bicubic) stretches the filter when shrinking (``_antialias.py``).

        >>> import minitorch
        >>> x = minitorch.tensor([[[1.0, 2.0]]])
        >>> minitorch.nn.functional.interpolate(x, scale_factor=2).tolist()
        [[[1.0, 1.0, 2.0, 2.0]]]
        >>> minitorch.nn.functional.interpolate(x, size=3, mode="linear", align_corners=True).tolist()
        [[[1.0, 1.5, 2.0]]]
    """
    sizes, factors = _check_interpolate(input, size, scale_factor, mode, align_corners)
    if antialias and (mode not in ("bilinear", "bicubic") or input.dim() != 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"
        )
    dims = input.dim() - 2
    spatial = tuple(input.shape[2:])
    if factors is None:
        scales = [n / o for n, o in zip(spatial, sizes)]
    else:
        sizes = tuple(int(math.floor(n * f)) for n, f in zip(spatial, factors))
        # PyTorch maps coordinates with the given factor unless asked to recompute it from the sizes.
        scales = [n / o if recompute_scale_factor else 1.0 / f for n, o, f in zip(spatial, sizes, factors)]
    if mode == "area":
        return _adaptive_avg_pool(input, sizes, dims, "adaptive_avg_pool")
    if mode in ("nearest", "nearest-exact"):
        sources = tuple(_source_index_nearest(n, o, scale, mode == "nearest-exact")
                        for n, o, scale in zip(spatial, sizes, scales))
        return _resampling_ops.RESAMPLERS[mode, dims].apply(input, sources)
    matrices = []
    for n, o, scale in zip(spatial, sizes, scales):  # align_corners=None means False for the modes that interpolate
        if antialias:  # the filter stretched over every input pixel an output pixel covers (_antialias.py)
            aligned_scale = ((n - 1) / (o - 1) if o > 1 else 0.0) if align_corners else scale
            matrices.append(antialias_matrix(n, o, aligned_scale, mode == "bicubic"))
        else:
            matrices.append(_interpolation_matrix(n, o, scale, bool(align_corners), mode == "bicubic"))
    return _resampling_ops.RESAMPLERS[mode + ("-antialias" if antialias else ""), dims].apply(input, tuple(matrices))


def _check_interpolate(input: Tensor, size, scale_factor, mode: str, align_corners: bool | None) -> tuple:
    """PyTorch's errors for ``interpolate``'s arguments; returns the output ``size`` as a tuple and
    ``scale_factor`` as a tuple, one per spatial dimension, the one not given as None.

    In this order: an unknown mode or an input neither 3-, 4- nor 5-D; ``align_corners`` set for a mode
    that does not interpolate between pixels; a rank the mode does not resize; both ``size`` and
    ``scale_factor`` given; a ``size`` or ``scale_factor`` of the wrong length; neither given.
    """
    modes = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
    dims = input.dim() - 2
    if mode not in modes or dims not in (1, 2, 3):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the modes: nearest | "
            f"linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
            "trilinear"
        )
    required = _INTERPOLATION_DIMS.get(mode, 2 if mode == "bicubic" else dims)
    if required != dims:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {required + 2}D input")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = list(input.shape[2:])
    if size is not None:
        sizes = tuple(int(s) for s in size) if isinstance(size, (tuple, list)) else (int(size),) * dims
        if len(sizes) != dims:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {spatial} and output size of {list(sizes)}. Please provide input tensor in "
                "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
            )
        return sizes, None
    if scale_factor is not None:
        factors = tuple(scale_factor) if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * dims
        if len(factors) != dims:
            raise ValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {spatial} and scale_factor of shape {list(factors)}. Please provide input tensor "
                "in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
            )
        return None, factors
    raise ValueError("either size or scale_factor should be defined")


@_arguments.public
def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    """Deprecated alias of ``interpolate`` (kept by PyTorch for old code)."""
    return interpolate(input, size, scale_factor, mode, align_corners)


@_arguments.public
def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="nearest")


@_arguments.public
def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- spatial transformers: affine grids and sampling at arbitrary points --------------------------
_ALIGN_CORNERS_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)


def _normalized_positions(steps: int, align_corners: bool, like: Tensor) -> Tensor:
    """Pixel positions in [-1, 1]: the pixel centres, the outer ones at +-1 (True) or half a pixel in (False)."""
    if steps <= 1:
        return _linspace(0.0, 0.0, 1, dtype=like.dtype, device=like.device)
    positions = _linspace(-1.0, 1.0, steps, dtype=like.dtype, device=like.device)
    return positions if align_corners else positions * (steps - 1) / steps  # PyTorch's two roundings


@_arguments.public
def affine_grid(theta: Tensor, size: list[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid of an affine map: ``grid[n, h, w] = theta[n] @ (x_w, y_h, 1)``.

    ``theta`` is ``(N, 2, 3)`` for an image ``size = (N, C, H, W)`` (``(N, 3, 4)`` for a volume
    ``(N, C, D, H, W)``); ``x_w`` and ``y_h`` are the normalised positions of the output pixels
    (see ``grid_sample``). The result, ``(N, H, W, 2)``, feeds ``grid_sample``. It is a matrix
    product of a constant grid with ``theta``, so ``dtheta[n] = sum_hw grad[n, h, w]^T (x_w, y_h, 1)``.

        >>> import minitorch
        >>> identity = minitorch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> minitorch.nn.functional.affine_grid(identity, [1, 1, 2, 2], align_corners=True)
        tensor([[[[-1., -1.],
                  [ 1., -1.]],
        <BLANKLINE>
                 [[-1.,  1.],
                  [ 1.,  1.]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
            f"Got size {size}."
        )
    if align_corners and min(spatial_size) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. This "
            "is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    # The base grid, (prod(spatial), k + 1): each output pixel's (x, y[, z], 1), x varying fastest.
    axes = [_normalized_positions(steps, align_corners, theta) for steps in reversed(spatial_size)]  # x, y[, z]
    mesh = shape_ops.meshgrid(*reversed(axes), indexing="ij")  # (z,) y, x order: the layout of the output
    columns = [coordinate.reshape(-1) for coordinate in reversed(mesh)]  # x, y[, z]
    base = shape_ops.stack(columns + [_ones(columns[0].shape[0], dtype=theta.dtype, device=theta.device)], 1)
    grid = base.matmul(theta.transpose(1, 2))  # (N, prod(spatial), k)
    return grid.reshape(size[0], *spatial_size, len(spatial_size))


@_arguments.public
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``out[n, :, h, w]`` = ``input[n]`` sampled at the point ``grid[n, h, w] = (x, y)`` (in [-1, 1]).

    ``input`` is ``(N, C, H, W)`` and ``grid`` ``(N, H_out, W_out, 2)``; the result is
    ``(N, C, H_out, W_out)``. ``mode`` is ``"bilinear"`` or ``"nearest"``; ``padding_mode``
    ``"zeros"``, ``"border"`` or ``"reflection"``. The formulas and both gradients are in
    ``minitorch/ops/grid_sample.py``.

        >>> import minitorch
        >>> image = minitorch.tensor([[[[0.0, 10.0]]]])
        >>> halfway = minitorch.tensor([[[[0.0, 0.0]]]])
        >>> minitorch.nn.functional.grid_sample(image, halfway, align_corners=True)
        tensor([[[[5.]]]])
    """
    if mode not in _grid_sample_ops.MODES:
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _grid_sample_ops.PADDING_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: "
            f"'{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if input.device != grid.device:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to be on same device, but input is on {input.device} and "
            f"grid is on {grid.device}"
        )
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got grid with "
            f"sizes {list(grid.shape)}"
        )
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.type_name} but found {grid.dtype.type_name}")
    if input.dim() != 4 or mode == "bicubic":
        raise NotImplementedError(
            "minitorch's grid_sample samples 4-D inputs (N, C, H, W) in 'bilinear' or 'nearest' mode; 5-D volumes "
            "and 'bicubic' are not implemented"
        )
    return _grid_sample_ops.GridSample2d.apply(input, grid, mode, padding_mode, align_corners)
