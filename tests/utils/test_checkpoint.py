"""``minitorch.utils.checkpoint`` against ``torch.utils.checkpoint``: the same values and gradients, the block
run again in backward, forward's random draws replayed, PyTorch's warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _both(torch, build):
    return build(minitorch), build(torch)


def _close(mine, theirs):
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_checkpoint_gives_the_gradients_of_the_plain_block_and_runs_it_again(torch, use_reentrant):
    def build(lib):
        from importlib import import_module  # torch.utils.checkpoint or minitorch.utils.checkpoint, per library

        checkpoint = import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
        calls = []

        def block(x, y):
            calls.append(1)
            return (x.sin() * y).tanh() @ y.exp()

        lib.manual_seed(0)
        x = lib.randn(3, 4, requires_grad=True)
        y = lib.randn(4, requires_grad=True)
        out = checkpoint(block, x, y, use_reentrant=use_reentrant)
        out.sum().backward()
        return out.tolist(), x.grad.tolist(), y.grad.tolist(), len(calls)

    mine, theirs = _both(torch, build)
    _close(mine[:3], theirs[:3])
    assert mine[3] == theirs[3] == 2  # once in forward, once in backward


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_dropout_inside_draws_the_same_mask_when_recomputed(torch, use_reentrant):
    def build(lib):
        from importlib import import_module  # torch.utils.checkpoint or minitorch.utils.checkpoint, per library

        checkpoint = import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
        lib.manual_seed(3)
        x = lib.randn(6, 5, requires_grad=True)
        out = checkpoint(lambda t: lib.nn.functional.dropout(t, 0.5, training=True) * t, x,
                         use_reentrant=use_reentrant)
        out.sum().backward()
        after = lib.rand(2)  # the stream continues where forward left it: backward's replay is forked
        return out.tolist(), x.grad.tolist(), after.tolist()

    mine, theirs = _both(torch, build)
    _close(mine, theirs)
    # the gradient is 2 * x * mask / (1 - p): zero exactly where forward dropped
    assert (np.asarray(mine[1]) == 0).tolist() == (np.asarray(mine[0]) == 0).tolist()


def test_non_reentrant_works_with_autograd_grad_and_a_second_backward(torch):
    def build(lib):
        from importlib import import_module  # torch.utils.checkpoint or minitorch.utils.checkpoint, per library

        checkpoint = import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        out = checkpoint(lambda t: (t.exp() * t.cos()).sum(), x, use_reentrant=False)
        (first,) = lib.autograd.grad(out, x, retain_graph=True)
        (second,) = lib.autograd.grad(out, x)
        return first.tolist(), second.tolist()

    mine, theirs = _both(torch, build)
    _close(mine, theirs)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_checkpoint_sequential(torch, use_reentrant):
    def build(lib):
        from importlib import import_module  # torch.utils.checkpoint or minitorch.utils.checkpoint, per library

        checkpoint_sequential = import_module(f"{lib.__name__}.utils.checkpoint").checkpoint_sequential
        lib.manual_seed(0)
        nn = lib.nn
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
        x = lib.randn(3, 4, requires_grad=True)
        out = checkpoint_sequential(model, 2, x, use_reentrant=use_reentrant)
        out.sum().backward()
        return out.tolist(), x.grad.tolist(), model[0].weight.grad.tolist()

    mine, theirs = _both(torch, build)
    _close(mine, theirs)


def test_warnings_and_errors_in_pytorchs_words(torch):
    def build(lib):
        from importlib import import_module  # torch.utils.checkpoint or minitorch.utils.checkpoint, per library

        module = import_module(f"{lib.__name__}.utils.checkpoint")
        x = lib.ones(2, requires_grad=True)
        seen = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module.checkpoint(lambda t: t * 2, x)
            module.checkpoint(lambda t: t * 2, lib.ones(2), use_reentrant=True)
        seen.extend(str(w.message) for w in caught)
        for attempt in (lambda: module.checkpoint(lambda t: t, x, use_reentrant=True, extra=1),
                        lambda: module.checkpoint(lambda t: t, x, use_reentrant=True, debug=True)):
            try:
                attempt()
            except ValueError as error:
                seen.append(str(error))
        return seen

    mine, theirs = _both(torch, build)
    assert mine == theirs and len(mine) == 4
