"""``minitorch.backends.mkldnn``: oneDNN (formerly MKL-DNN), which minitorch does not use."""

from __future__ import annotations

enabled: bool = True


def is_available() -> bool:
    """Whether oneDNN can be used: never in minitorch (NumPy's BLAS does the matrix products)."""
    return False
