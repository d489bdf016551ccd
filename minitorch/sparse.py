"""``torch.sparse``: sparse COO tensors times dense ones, and the legacy constructors.

A sparse COO tensor (``minitorch.sparse_coo_tensor``, ``x.to_sparse()``; ``_sparse_coo.py`` says how it is
held) multiplies a dense matrix with ``torch.sparse.mm(A, X)``, also spelled ``torch.spmm(A, X)`` and
``A @ X``: the result is dense and the gradient flows to ``X``, which is what a graph convolution
``A_hat @ (H @ W)`` needs. ``torch.sparse.FloatTensor(indices, values, size)`` is the constructor of older
code (pygcn), deprecated in PyTorch for ``torch.sparse_coo_tensor``.
"""

from __future__ import annotations

from . import _dtype, _sparse_coo
from ._tensor import Tensor
from .ops import linalg as _linalg_ops

__all__ = ["mm", "addmm", "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "check_sparse_tensor_invariants"]


def mm(mat1: Tensor, mat2: Tensor, reduce: str | None = None) -> Tensor:
    """``mat1 @ mat2`` with ``mat1`` sparse: a dense result (the sum over the nonzeros of each row)."""
    return _linalg_ops.mm(mat1, mat2)


def addmm(mat: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1.0, alpha: float = 1.0) -> Tensor:
    """``beta * mat + alpha * (mat1 @ mat2)`` with ``mat1`` sparse."""
    return _linalg_ops.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


FloatTensor = _sparse_coo.legacy_constructor(_dtype.float32)
DoubleTensor = _sparse_coo.legacy_constructor(_dtype.float64)
LongTensor = _sparse_coo.legacy_constructor(_dtype.int64)
IntTensor = _sparse_coo.legacy_constructor(_dtype.int32)


class check_sparse_tensor_invariants:  # noqa: N801 - PyTorch's name
    """A context manager (and switch) for PyTorch's checks of sparse tensors; minitorch always checks."""

    def __init__(self, enable: bool = True):
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    @staticmethod
    def is_enabled() -> bool:
        return True
