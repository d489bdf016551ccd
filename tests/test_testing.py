"""``minitorch.testing.assert_close`` against ``torch.testing.assert_close``: the same verdicts, errors and messages."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

torch = require_torch()


def _cases(lib):
    t = lib.tensor
    nan = float("nan")
    return {
        "equal": (t([1.0, 2.0]), t([1.0, 2.0]), {}),
        "within-float32": (t([1.0, 2.0]), t([1.0, 2.0 + 1e-6]), {}),
        "one-mismatch": (t([1.0, 2.0, 3.0]), t([1.0, 2.5, 3.0]), {}),
        "matrix": (t([[1.0, 2.0], [3.0, 4.0]]), t([[1.0, 2.0], [3.5, 0.0]]), {}),
        "float64": (t([1.0, 2.0], dtype=lib.float64), t([1.0, 2.0 + 1e-6], dtype=lib.float64), {}),
        "ints": (t([1, 2]), t([1, 3]), {}),
        "nan": (t([nan, 1.0]), t([nan, 1.0]), {}),
        "nan-equal": (t([nan, 1.0]), t([nan, 1.0]), {"equal_nan": True}),
        "nan-vs-number": (t([1.0, 2.0]), t([nan, 2.0]), {}),
        "tolerances": (t([1.0]), t([1.05]), {"rtol": 0.1, "atol": 0.0}),
        "rtol-alone": (t([1.0]), t([2.0]), {"rtol": 0.1}),
        "atol-alone": (t([1.0]), t([2.0]), {"atol": 0.1}),
        "msg": (t([1.0]), t([2.0]), {"msg": "custom"}),
        "msg-callable": (t([1.0]), t([2.0]), {"msg": lambda text: "wrapped: " + text.splitlines()[0]}),
        "shape": (lib.ones(2), lib.ones(3), {}),
        "dtype": (lib.ones(2), lib.ones(2, dtype=lib.float64), {}),
        "dtype-unchecked": (lib.ones(2), lib.ones(2, dtype=lib.float64), {"check_dtype": False}),
        "stride": (lib.ones(2, 2), lib.ones(2, 2).t().contiguous().t(), {"check_stride": True}),
        "scalar-tensor": (t(1.0), t(1.5), {}),
        "tensor-vs-number": (t(1.0), 1.0, {}),
        "tensor-vs-array": (t([1.0]), np.array([1.0]), {}),
        "arrays": (np.array([1.0]), np.array([1.5]), {}),
        "numbers": (1.0, 1.5, {}),
        "int-numbers": (1, 2, {}),
        "int-vs-float": (1, 1.0, {}),
        "bools": (True, False, {}),
        "nested": ([lib.ones(2), {"a": lib.zeros(1)}], [lib.ones(2), {"a": lib.ones(1)}], {}),
        "lengths": ([1, 2], [1, 2, 3], {}),
        "keys": ({"a": 1}, {"b": 1}, {}),
        "strings": ("a", "a", {}),
    }


def _outcome(lib, name):
    actual, expected, options = _cases(lib)[name]
    try:
        lib.testing.assert_close(actual, expected, **options)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error).replace("minitorch.", "torch.")
    return ("passed",)


@pytest.mark.parametrize("name", list(_cases(minitorch)))
def test_assert_close_says_what_pytorch_says(name):
    assert _outcome(minitorch, name) == _outcome(torch, name)
