"""``minitorch.backends.cudnn``: PyTorch's cuDNN switches, kept as plain settings.

minitorch convolves with im2col and one matrix product (ops/conv.py), on NumPy or CuPy, and
never calls cuDNN: ``is_available()`` is False and ``version()`` is None. ``enabled``,
``benchmark``, ``deterministic`` and ``allow_tf32`` keep what a program sets (with PyTorch's
defaults), so ``torch.backends.cudnn.deterministic = True`` runs unchanged. minitorch's results
never depend on them: its algorithms are deterministic already.
"""

from __future__ import annotations

import contextlib

enabled: bool = True
benchmark: bool = False
benchmark_limit: int = 10
deterministic: bool = False
allow_tf32: bool = True


def is_available() -> bool:
    """Whether cuDNN can be used: never in minitorch, which does not call it."""
    return False


def version():
    """cuDNN's version, or None without cuDNN (always None in minitorch)."""
    return None


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would take ``tensor``: False, as there is no cuDNN."""
    return False


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10, deterministic: bool = False,
          allow_tf32: bool = True):
    """Set the switches for a ``with`` block, then restore them (as ``torch.backends.cudnn.flags``)."""
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    module = globals()
    saved = {name: module[name] for name in names}
    module.update(zip(names, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)))
    try:
        yield
    finally:
        module.update(saved)
