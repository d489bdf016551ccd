"""Distance functions: ``pairwise_distance`` and ``cosine_similarity``.
"""

from __future__ import annotations

from ... import _arguments
from ..._tensor import Tensor

# Each function below is decorated with ``_arguments.public``: its tensor argument is checked the way PyTorch
# does, before the function runs (minitorch/_arguments.py).
__all__ = [
    "pairwise_distance", "cosine_similarity",
]


@_arguments.public
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dimension (``eps`` keeps the norm differentiable at 0)."""
    return (x1 - x2 + eps).norm(p, dim=-1, keepdim=keepdim)


@_arguments.public
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``<x1, x2> / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim``."""
    norm1 = x1.norm(2, dim=dim, keepdim=True).clamp(min=eps)
    norm2 = x2.norm(2, dim=dim, keepdim=True).clamp(min=eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)
