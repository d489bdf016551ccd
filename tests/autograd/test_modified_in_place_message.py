"""The error for a saved tensor changed in place (``_extensions.raise_modified_in_place``), word for word as
PyTorch writes it: the op named without ``Backward0``, nothing for a leaf, ``AsStrided`` for a view whose base was
written since, and the hint that depends on anomaly mode."""

from __future__ import annotations

import warnings

import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _messages(lib):
    messages = []

    def attempt(loss):
        try:
            loss.sum().backward()
        except RuntimeError as error:
            messages.append(str(error))

    a = lib.tensor([1.0, 2.0], requires_grad=True)
    y = a.sin()
    with lib.no_grad():
        a.add_(1)  # a leaf: no "which is output ..."
    attempt(y)
    e = a.exp()
    e.mul_(2)  # ExpBackward0 saved its output
    attempt(e)
    b = a * 2
    view = b[0:1]
    y = view.sin()
    b.add_(1)  # the view's base written after the view was saved
    attempt(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.set_detect_anomaly(True):
            e = a.tanh()
            e.mul_(2)
            attempt(e)
    return messages


def test_modified_in_place_message_is_pytorchs(torch):
    mine, theirs = _messages(minitorch), _messages(torch)
    assert mine == theirs
    assert len(mine) == 4 and "which is output 0 of Exp," in mine[1]
