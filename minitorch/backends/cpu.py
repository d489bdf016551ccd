"""``minitorch.backends.cpu``: what the CPU offers; NumPy chooses its own vector instructions."""

from __future__ import annotations


def get_cpu_capability() -> str:
    """The instruction set PyTorch's kernels were picked for; minitorch leaves that to NumPy (``"DEFAULT"``)."""
    return "DEFAULT"
