"""``use_deterministic_algorithms`` and its questions, ``_assert``, and ``normal``'s default std, against PyTorch."""

from __future__ import annotations

import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    torch = require_torch()
    yield torch
    torch.use_deterministic_algorithms(False)
    minitorch.use_deterministic_algorithms(False)


@pytest.mark.parametrize("mode, warn_only", [(True, False), (True, True), (False, False), (False, True)])
def test_the_switch_reports_what_was_set(torch, mode, warn_only):
    for library in (torch, minitorch):
        library.use_deterministic_algorithms(mode, warn_only=warn_only)
    assert minitorch.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()
    assert (minitorch.is_deterministic_algorithms_warn_only_enabled()
            == torch.is_deterministic_algorithms_warn_only_enabled())
    assert minitorch.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()


@pytest.mark.parametrize("debug_mode", [0, 1, 2, "default", "warn", "error"])
def test_debug_mode_spellings(torch, debug_mode):
    for library in (torch, minitorch):
        library.set_deterministic_debug_mode(debug_mode)
    assert minitorch.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
    assert minitorch.are_deterministic_algorithms_enabled() == torch.are_deterministic_algorithms_enabled()


def test_bad_arguments_are_refused_like_pytorch(torch):
    for call in (lambda lib: lib.use_deterministic_algorithms(1),
                 lambda lib: lib.set_deterministic_debug_mode("loud"),
                 lambda lib: lib.set_deterministic_debug_mode(3)):
        with pytest.raises(Exception) as theirs:
            call(torch)
        with pytest.raises(type(theirs.value)):
            call(minitorch)


def test_assert_passes_and_fails_like_pytorch(torch):
    torch._assert(True, "fine")
    minitorch._assert(True, "fine")
    minitorch._assert(minitorch.tensor(True), "a one-element tensor counts as its truth")
    with pytest.raises(AssertionError, match="height 3 differs"):
        torch._assert(False, "height 3 differs")
    with pytest.raises(AssertionError, match="height 3 differs"):
        minitorch._assert(False, "height 3 differs")


@pytest.mark.parametrize("shape", [(3,), (2, 17)])
def test_normal_of_a_mean_tensor_has_unit_std_by_default(torch, shape):
    torch.manual_seed(5)
    minitorch.manual_seed(5)
    theirs = torch.normal(torch.arange(float(shape[-1])).expand(*shape))
    ours = minitorch.normal(minitorch.arange(float(shape[-1])).expand(*shape))
    assert ours.tolist() == theirs.tolist()
