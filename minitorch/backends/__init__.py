"""``minitorch.backends``: the switches PyTorch keeps for its compute libraries.

PyTorch calls vendor libraries (cuDNN for convolutions on NVIDIA GPUs, Metal on Apple's
GPUs, oneDNN on CPUs) and lets a program tune them: ``torch.backends.cudnn.benchmark = True``
asks cuDNN to time its algorithms and keep the fastest. minitorch computes everything with
NumPy or CuPy itself, so the switches exist for the same code to run, and the ``is_available``
questions answer honestly for minitorch: no cuDNN, no Metal, no oneDNN.

    >>> import minitorch
    >>> minitorch.backends.mps.is_available()
    False
    >>> minitorch.backends.cudnn.benchmark = True   # accepted; minitorch has no algorithms to choose between
"""

from __future__ import annotations

from . import cpu, cuda, cudnn, mkldnn, mps, openmp

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp"]
