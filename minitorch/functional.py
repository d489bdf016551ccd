"""The ``torch.functional`` namespace: functions PyTorch defines in Python in ``torch/functional.py``.

PyTorch re-exports each of these at the top level, and so does minitorch, so ``torch.einsum`` is the
usual spelling; code that imports the module itself (``import torch.functional as F``, seen in PyTorch's
own introductory tutorials) finds the same functions here (the same objects). Each one is implemented
once, in ``ops``.
PyTorch's signal-processing and low-rank members (``stft``, ``istft``, ``lu``, ``pca_lowrank``,
``svd_lowrank``, ``chain_matmul``) are not part of minitorch.
"""

from __future__ import annotations

# The torch namespace's own objects (torch.norm is torch.functional.norm, with its out= and argument checks):
# minitorch/__init__.py has bound them when it imports this module.
from . import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    cdist,
    einsum,
    meshgrid,
    norm,
    split,
    tensordot,
    unique,
    unique_consecutive,
    unravel_index,
)

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
    "cartesian_prod", "cdist", "einsum", "meshgrid", "norm", "split", "tensordot", "unique", "unique_consecutive",
    "unravel_index",
]
