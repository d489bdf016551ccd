"""Helpers shared by the tests: optional pieces that must not skip in CI.

Locally, a test that needs PyTorch (the oracle), Graphviz or Chromium skips with a reason
when the piece is missing. ``.ci/run`` sets ``MINITORCH_CI=1``: there a missing piece is a
failure, so a green CI run really ran the parity tests. Only the GPU may skip in CI.
"""

from __future__ import annotations

import importlib
import os

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
