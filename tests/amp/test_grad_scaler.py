"""``minitorch.amp.GradScaler`` against ``torch.amp.GradScaler("cpu")``: the same scales, skipped steps, weights
and state_dicts over a run with overflowing steps, and the same errors and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

torch = require_torch()


def _run(lib, steps: int = 12, growth_interval: int = 3, unscale_first: bool = False):
    """A linear model trained with loss scaling; some steps blow up (inf) so the scaler must skip and back off."""
    weights = lib.nn.Parameter(lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=lib.float32))
    optimizer = lib.optim.SGD([weights], lr=0.05, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**10, growth_factor=2.0, backoff_factor=0.5,
                                growth_interval=growth_interval)
    trace = []
    for step in range(steps):
        x = lib.tensor(np.cos(np.arange(6.0) + step).reshape(3, 2), dtype=lib.float32)
        scale_up = 1e38 if step in (2, 7) else 1.0  # overflows to inf in float32 once scaled
        loss = (weights @ x * scale_up).pow(2).mean()
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        if unscale_first:
            scaler.unscale_(optimizer)
            lib.nn.utils.clip_grad_norm_([weights], 1.0)
        scaler.step(optimizer)
        scaler.update()
        trace.append((scaler.get_scale(), scaler._get_growth_tracker(), weights.detach().numpy().copy()))
    return trace, scaler.state_dict()


@pytest.mark.parametrize("unscale_first", [False, True])
def test_a_run_with_overflows_scales_skips_and_steps_as_pytorch(unscale_first):
    ours, our_state = _run(minitorch, unscale_first=unscale_first)
    theirs, their_state = _run(torch, unscale_first=unscale_first)
    assert [(scale, tracker) for scale, tracker, _ in ours] == [(scale, tracker) for scale, tracker, _ in theirs]
    for (_, _, mine), (_, _, reference) in zip(ours, theirs):
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6)
    assert our_state == their_state
    assert ours[2][0] == ours[1][0] / 2  # the overflowing step backed off


def test_state_dict_round_trip_and_scaling_of_several_outputs():
    for lib in (minitorch, torch):
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0)
        first, second = scaler.scale([lib.ones(2), (lib.ones(1) * 3,)])
        assert first.tolist() == [8.0, 8.0] and second[0].tolist() == [24.0]
        fresh = lib.amp.GradScaler("cpu")
        fresh.load_state_dict({**scaler.state_dict(), "_growth_tracker": 5})
        assert fresh.get_scale() == 8.0 and fresh._get_growth_tracker() == 5
    assert minitorch.amp.GradScaler("cpu", init_scale=8.0).state_dict() == torch.amp.GradScaler(
        "cpu", init_scale=8.0).state_dict()


def _errors(lib):
    outcomes = []
    weight = lib.nn.Parameter(lib.ones(2))
    optimizer = lib.optim.SGD([weight], lr=0.1)
    scaler = lib.amp.GradScaler("cpu")
    for attempt in (lambda: scaler.step(optimizer), lambda: scaler.update()):
        try:
            attempt()
        except Exception as error:  # noqa: BLE001 - compared
            outcomes.append((type(error).__name__, str(error)))
    scaler.scale(weight.sum()).backward()
    scaler.unscale_(optimizer)
    for attempt in (lambda: scaler.unscale_(optimizer), lambda: scaler.step(optimizer, closure=lambda: 0)):
        try:
            attempt()
        except Exception as error:  # noqa: BLE001 - compared
            outcomes.append((type(error).__name__, str(error)))
    scaler.step(optimizer)
    for attempt in (lambda: scaler.step(optimizer), lambda: scaler.unscale_(optimizer),
                    lambda: lib.amp.GradScaler("cpu", growth_factor=0.5),
                    lambda: lib.amp.GradScaler("cpu").load_state_dict({})):
        try:
            attempt()
        except Exception as error:  # noqa: BLE001 - compared
            outcomes.append((type(error).__name__, str(error)))
    return outcomes


def test_misuse_gives_pytorchs_errors():
    assert _errors(minitorch) == _errors(torch)


def test_a_cuda_scaler_without_cuda_disables_itself_with_pytorchs_warnings():
    def made(lib, factory):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = factory(lib)
        return scaler.is_enabled(), scaler.get_scale(), [(w.category.__name__, str(w.message)) for w in caught]

    for factory in (lambda lib: lib.amp.GradScaler(), lambda lib: lib.cuda.amp.GradScaler()):
        assert made(minitorch, factory) == made(torch, factory)
    scaler = minitorch.amp.GradScaler(enabled=False)
    loss = minitorch.ones(1, requires_grad=True).sum()
    assert scaler.scale(loss) is loss and scaler.state_dict() == {}
