"""Pictures of batches (``torchvision.utils``): ``make_grid`` and ``save_image``.

    >>> import minitorch
    >>> from minitorch.vision.utils import make_grid
    >>> make_grid(minitorch.zeros(10, 1, 8, 8), nrow=5).shape   # 2 rows of 5, 2-pixel borders
    minitorch.Size([3, 22, 52])

The grid is built with tensor operations (pad every image on its top and left, lay the padded
images out as rows and columns with one reshape, then close the right and bottom borders), so
gradients flow back into the images as in torchvision.
"""

from __future__ import annotations

import math
import pathlib
from typing import BinaryIO

import numpy as np
from PIL import Image

from .. import _creation, ops
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn import functional as F

__all__ = ["make_grid", "save_image"]


def _as_batch_of_rgb(tensor) -> Tensor:
    """Any of torchvision's accepted layouts (list, ``HxW``, ``CxHxW``, ``BxCxHxW``) as ``B x C x H x W``."""
    if isinstance(tensor, (list, tuple)):
        tensor = ops.shape.stack(list(tensor), dim=0)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    if tensor.dim() == 2:  # a single grayscale image
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:  # a single image
        if tensor.size(0) == 1:
            tensor = ops.shape.cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 4 and tensor.size(1) == 1:  # a batch of grayscale images becomes RGB
        tensor = ops.shape.cat((tensor, tensor, tensor), 1)
    return tensor


def _normalize(tensor: Tensor, value_range, scale_each: bool) -> Tensor:
    """Clamp to ``value_range`` (default: the tensor's own min and max) and map it to [0, 1]."""
    if value_range is not None and not isinstance(value_range, tuple):
        raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")
    if scale_each:
        return ops.shape.stack([_normalize(image, value_range, False) for image in tensor], dim=0)
    low, high = value_range if value_range is not None else (float(tensor.min()), float(tensor.max()))
    return (tensor.clamp(min=low, max=high) - low) / max(high - low, 1e-5)


def make_grid(tensor, nrow: int = 8, padding: int = 2, normalize: bool = False, value_range=None,
              scale_each: bool = False, pad_value: float = 0.0) -> Tensor:
    """Lay a batch of images out as one image: ``nrow`` images per row, ``padding`` pixels between them.

    With ``B`` images of ``H x W``: ``cols = min(nrow, B)``, ``rows = ceil(B / cols)``, and the grid
    is ``C x (rows * (H + padding) + padding) x (cols * (W + padding) + padding)``, filled with
    ``pad_value`` wherever no image lies. One image comes back unchanged (after ``normalize``).
    """
    tensor = _as_batch_of_rgb(tensor)
    if normalize:
        tensor = _normalize(tensor, value_range, scale_each)
    if tensor.size(0) == 1:
        return tensor.squeeze(0)
    count, channels, height, width = tensor.shape
    columns = min(nrow, count)
    rows = math.ceil(count / columns)
    missing = rows * columns - count  # empty places at the end of the last row
    if missing:
        filler = _creation.full((missing, channels, height, width), pad_value, dtype=tensor.dtype, device=tensor.device)
        tensor = ops.shape.cat((tensor, filler), 0)
    # Each image gets its top and left border; then (rows, cols, C, H+p, W+p) -> (C, rows*(H+p), cols*(W+p)).
    framed = F.pad(tensor, (padding, 0, padding, 0), value=pad_value)
    framed = framed.reshape(rows, columns, channels, height + padding, width + padding)
    grid = framed.permute(2, 0, 3, 1, 4).reshape(channels, rows * (height + padding), columns * (width + padding))
    return F.pad(grid, (0, padding, 0, padding), value=pad_value)  # the right and bottom borders


def save_image(tensor, fp: str | pathlib.Path | BinaryIO, format: str | None = None, **kwargs) -> None:
    """Save a tensor (or a batch, through ``make_grid(**kwargs)``) as an image file; values in [0, 1]."""
    with no_grad():
        grid = make_grid(tensor, **kwargs)
        # Round to the nearest of 256 levels, as torchvision does: x * 255 + 0.5, clamped, truncated.
        pixels = (grid * 255 + 0.5).clamp(0, 255).permute(1, 2, 0).cpu().numpy().astype(np.uint8)
    Image.fromarray(pixels).save(fp, format=format)
