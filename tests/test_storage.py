"""``storage()``, ``untyped_storage()`` and ``storage_offset()`` (minitorch/storage.py) against PyTorch."""

from __future__ import annotations

import re
import warnings

import pytest

import minitorch
from tests.support import require_torch

# Each expression runs on both libraries; its text (library names aside) must be the same.
EXPRESSIONS = [
    "str(c.expand(3, 3).storage())", "str(c.untyped_storage())", "str(lib.zeros(0).untyped_storage())",
    "str(lib.arange(6).view(2, 3).t().storage())", "str(lib.tensor([True, False]).storage())",
    "str(lib.ones(2, dtype=lib.float64).storage())",
    "[type(s).__name__, s.size(), s.nbytes(), len(s), str(s.device), s.element_size()]",
    "[s.data_ptr() == c.data_ptr(), c[1:].untyped_storage().data_ptr() == s.data_ptr(), c[1:].storage_offset(), "
    "c[1:].data_ptr() - c.data_ptr()]",
    "[type(t).__name__, t.size(), len(t), str(t.dtype), t[0], t.tolist(), t.element_size(), t.nbytes(), t.type()]",
    "lib.tensor([1, 2], dtype=lib.int64).untyped_storage().tolist()",
    "[s[0], list(lib.tensor([1.5]).untyped_storage())]",
    "[v.storage_offset(), v.stride(), v.untyped_storage().nbytes(), x.t().storage_offset(), "
    "x[:, 1].storage_offset(), x[2].storage_offset(), x.view(-1)[5:].storage_offset()]",
    "[x.clone().untyped_storage().data_ptr() != x.untyped_storage().data_ptr(), "
    "x.view(-1).untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), "
    "x.t().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()]",
    "[isinstance(s, lib.UntypedStorage), isinstance(t, lib.TypedStorage), "
    "lib.storage.UntypedStorage is lib.UntypedStorage]",
]


def _evaluate(lib, expression):
    c = lib.tensor([10.0, 20.0, 30.0])
    x = lib.arange(12.0).view(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = {"lib": lib, "c": c, "x": x, "v": x[1:, 2:], "s": c.untyped_storage(), "t": c[1:].storage()}
        return re.sub(r"\btorch\.", "minitorch.", str(eval(expression, values)))


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_storage_matches_pytorch(expression):
    torch = require_torch()
    assert _evaluate(minitorch, expression) == _evaluate(torch, expression)


def test_writing_through_a_storage_changes_the_tensors():
    torch = require_torch()
    results = []
    for lib in (minitorch, torch):
        x = lib.arange(12.0).view(3, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x[1:, 2:].storage()[0] = 100.0
        x.untyped_storage()[0] = 0  # the lowest byte of element 0 (1.0 keeps its value: its low bytes are 0)
        x[:, 3].untyped_storage().fill_(0)
        results.append(x.tolist())
    assert results[0] == results[1]


def test_typed_storage_warns_once_as_pytorch():
    minitorch.storage._warned["typed"] = False
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        minitorch.ones(2).storage()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minitorch.ones(2).storage()
