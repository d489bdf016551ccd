"""``minitorch.backends.openmp``: OpenMP threading, which minitorch's Python code does not use."""

from __future__ import annotations


def is_available() -> bool:
    """Whether PyTorch's kernels run OpenMP threads: not minitorch's (NumPy's BLAS has its own threads)."""
    return False
