"""Helpers shared by the tests: optional pieces that must not skip in CI, and pretend GPUs.

Locally, a test that needs PyTorch (the oracle), Graphviz or Chromium skips with a reason
when the piece is missing. ``.ci/run`` sets ``MINITORCH_CI=1``: there a missing piece is a
failure, so a green CI run really ran the parity tests. Only the GPU may skip in CI.

CI has no GPU, so ``fake_cuda_backend`` stands in ``cuda`` devices backed by host memory (NumPy
computes, transfers copy): the multi-device logic (mixing errors, transfers, where results and
gradients land) runs exactly as it would on GPUs. ``use_fake_cuda`` registers it for a ``with`` block;
the ``fake_cuda`` and ``no_cuda`` fixtures (tests/conftest.py) use it.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os

import numpy as np
import pytest


def in_ci() -> bool:
    return os.environ.get("MINITORCH_CI") == "1"


def require(module_name: str, reason: str):
    """Import ``module_name``, or skip (fail under MINITORCH_CI=1) saying why it is needed."""
    try:
        return importlib.import_module(module_name)
    except ImportError as error:
        message = f"{module_name} is not installed ({reason}): {error}"
        if in_ci():
            pytest.fail(message + " -- MINITORCH_CI=1 requires it")
        pytest.skip(message)


def require_torch():
    """PyTorch, the oracle for parity tests (``pip install torch==2.13.0``)."""
    return require("torch", "PyTorch is the reference the parity tests compare against")



@functools.cache
def is_cpu_build(torch) -> bool:
    """True for PyTorch's CPU-only build, the one minitorch answers like on a machine without a GPU.

    PyPI's default torch wheel is a CUDA build: on a machine without a GPU it still reports cuDNN as
    available and words some errors differently (pinning memory: "Found no NVIDIA driver on your system...",
    where the CPU build says "Cannot access accelerator device when none is available."). With it, the tests
    compare against the CPU build's answers, written out where they are used (taken from torch 2.13.0+cpu).
    """
    return torch.version.cuda is None and torch.version.hip is None


def _fake_backend_class():
    from minitorch import _device  # imported on first use: a broken minitorch fails tests, not pytest

    class FakeCudaBackend(_device.NumpyBackend):
        """``cuda`` devices backed by host memory: NumPy computes, transfers copy (and are counted)."""

        def __init__(self, count: int):
            _device.Backend.__init__(self, "cuda")
            self.count = count
            self.synchronized = []
            self.transfers = 0

        def device_count(self) -> int:
            return self.count

        def to_device(self, array, index: int, blocking: bool = False):
            self.transfers += 1
            return np.array(array, copy=True)

        def to_host(self, array, non_blocking: bool = False) -> np.ndarray:
            return np.array(array, copy=True)

        def synchronize(self, index: int) -> None:
            self.synchronized.append(index)

        def device_name(self, index: int) -> str:
            return f"Fake GPU {index}"

    return FakeCudaBackend


def fake_cuda_backend(count: int = 2):
    """A ``cuda`` backend with ``count`` pretend GPUs (see the module docstring)."""
    return _fake_backend_class()(count)


@contextlib.contextmanager
def use_fake_cuda(count: int = 2):
    """Register a ``fake_cuda_backend(count)`` for the ``with`` block; the real one comes back after."""
    from minitorch import _device, cuda

    backend = fake_cuda_backend(count)
    previous = _device.register_backend("cuda", backend)
    try:
        yield backend
    finally:
        _device.register_backend("cuda", previous)
        cuda._current["index"] = 0
