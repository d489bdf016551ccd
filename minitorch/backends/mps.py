"""``minitorch.backends.mps``: Apple's Metal GPUs, which minitorch does not drive (no array module for them)."""

from __future__ import annotations


def is_available() -> bool:
    """Whether an ``mps`` device can be used: never in minitorch."""
    return False


def is_built() -> bool:
    """Whether this build supports ``mps``: minitorch has no Metal backend."""
    return False


def is_macos_or_newer(major: int, minor: int) -> bool:
    return False
