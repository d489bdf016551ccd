"""Antialiased resizing weights: ``interpolate(..., antialias=True)`` for ``bilinear`` and ``bicubic``.

Plain bilinear resizing reads the 2 nearest input pixels of each output pixel; shrinking an image
4x then skips 3 pixels out of 4 and aliases. With ``antialias=True`` PyTorch (following Pillow)
stretches the filter by the downscaling factor, so every input pixel under an output pixel
contributes. For output pixel ``i`` along a dimension of ``n`` inputs, with ``scale = n / o``:

    center  = scale * (i + 0.5)
    support = (filter width / 2) * max(scale, 1)            (width 2 for bilinear, 4 for bicubic)
    inputs  j in [int(center - support + 0.5), int(center + support + 0.5)) clipped to [0, n)
    weight  = filter((j - center + 0.5) / max(scale, 1)),  then divided by the weights' sum

with the triangle ``max(0, 1 - |x|)`` for bilinear and Keys' cubic (``a = -0.5``) for bicubic.
The weights form an ``(o, n)`` matrix, applied like the plain modes' (``A @ x`` per dimension).
"""

from __future__ import annotations

import numpy as np


def _triangle(x: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, 1.0 - np.abs(x))


def _cubic(x: np.ndarray, a: float = -0.5) -> np.ndarray:
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def antialias_matrix(n: int, o: int, scale: float, cubic: bool) -> np.ndarray:
    """``(o, n)`` matrix of antialiased weights (``scale``: input pixels per output pixel, as PyTorch computes it)."""
    filter_function, half_width = (_cubic, 2.0) if cubic else (_triangle, 1.0)
    stretch = max(scale, 1.0)
    support = half_width * stretch
    center = scale * (np.arange(o) + 0.5)
    first = np.maximum((center - support + 0.5).astype(np.int64), 0)
    last = np.minimum((center + support + 0.5).astype(np.int64), n)
    columns = np.arange(n)
    inside = (columns[None, :] >= first[:, None]) & (columns[None, :] < last[:, None])
    weights = np.where(inside, filter_function((columns[None, :] - center[:, None] + 0.5) / stretch), 0.0)
    totals = weights.sum(axis=1, keepdims=True)
    return np.divide(weights, totals, out=np.zeros_like(weights), where=totals != 0)
