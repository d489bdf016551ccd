"""``minitorch.backends.cuda``: whether CUDA support is there, and PyTorch's CUDA matmul switches.

minitorch's CUDA support is CuPy: it is "built" when CuPy can be imported (``minitorch.cuda``
says whether a GPU is actually there). ``matmul.allow_tf32`` and friends keep what a program
sets, with PyTorch's defaults; CuPy's matrix products follow CuPy's own settings.
"""

from __future__ import annotations

import importlib.util


def is_built() -> bool:
    """Whether CUDA support is installed: the ``cupy`` package is importable."""
    return importlib.util.find_spec("cupy") is not None


class _MatmulSettings:
    """``torch.backends.cuda.matmul``: precision switches for matrix products on the GPU."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulSettings()
