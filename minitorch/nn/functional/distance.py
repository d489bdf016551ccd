"""Distance functions: ``pairwise_distance`` and ``cosine_similarity``.
"""

from __future__ import annotations

from ... import _arguments
from ..._tensor import Tensor

__all__ = [
    "pairwise_distance", "cosine_similarity",
]


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dimension (``eps`` keeps the norm differentiable at 0)."""
    return (x1 - x2 + eps).norm(p, dim=-1, keepdim=keepdim)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``<x1, x2> / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim``."""
    norm1 = x1.norm(2, dim=dim, keepdim=True).clamp(min=eps)
    norm2 = x2.norm(2, dim=dim, keepdim=True).clamp(min=eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


# Every function checks its tensor argument the way PyTorch does (minitorch/_arguments.py).
_arguments.make_public(globals(), __all__)
