"""``set_printoptions`` against PyTorch: the same tensors print the same under every option and profile."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

torch = require_torch()

ARRAYS = [
    np.array([1.12345, -2.5, 1000.25], dtype=np.float32),
    np.array([1e-5, 3.0, 2.5e6], dtype=np.float64),
    np.array([1.0, 2.0, 300.0]),
    np.arange(30, dtype=np.int64),
    np.linspace(-3, 3, 2400, dtype=np.float32).reshape(4, 20, 30),
    np.arange(12.0).reshape(3, 4) / 7,
    np.array([[1.5, np.nan], [np.inf, -0.0]]),
]
OPTIONS = [
    {}, {"precision": 2}, {"precision": 8}, {"threshold": 5}, {"edgeitems": 1, "threshold": 10},
    {"linewidth": 40}, {"sci_mode": False}, {"sci_mode": True}, {"profile": "short"}, {"profile": "full"},
    {"profile": "short", "precision": 6}, {"edgeitems": 0, "threshold": 3},
]


@pytest.fixture(autouse=True)
def _restore_defaults():
    minitorch.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    yield
    minitorch.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


@pytest.mark.parametrize("options", OPTIONS, ids=lambda options: ",".join(f"{k}={v}" for k, v in options.items()))
def test_tensors_print_as_pytorch_prints_them(options):
    minitorch.set_printoptions(**options)
    torch.set_printoptions(**options)
    for array in ARRAYS:
        ours = repr(minitorch.tensor(array)).replace("minitorch.", "torch.")
        theirs = repr(torch.tensor(array))
        assert ours == theirs, (options, array.shape)


def test_options_last_until_changed_and_sci_mode_resets():
    minitorch.set_printoptions(precision=1)
    assert repr(minitorch.tensor([1.26])) == "tensor([1.3])"
    minitorch.set_printoptions(sci_mode=True)  # precision stays; sci_mode is set by every call
    assert repr(minitorch.tensor([1.26])) == "tensor([1.3e+00])"
    minitorch.set_printoptions(precision=1)
    assert repr(minitorch.tensor([1.26])) == "tensor([1.3])"
