"""Adam's "Speed only" update on the arrays (``minitorch/optim/_adam_arrays.py``) against the loop a reader reads.

``foreach=False`` runs ``Adam.step``'s loop of tensor ops for every parameter; the default runs a plain update on
the arrays. Both must give the same parameters, the same state and the same versions, bit for bit, for every
option; where the update is not plain (a graph to record, a half-precision parameter, a state in another dtype,
a capture that follows every write) the array path must leave everything to the loop.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch
from minitorch import optim
from minitorch.ops import inplace
from minitorch.optim._adam_arrays import adam_on_arrays

OPTIONS = [
    dict(zip(("amsgrad", "maximize", "weight_decay", "betas"), values))
    for values in itertools.product((False, True), (False, True), (0, 0.1), ((0.9, 0.999), (0.3, 0.9)))
]


def _train(optimizer_class, foreach, dtype, options, steps=6):
    """Two parameters, six steps of fresh random gradients (the same ones for either path)."""
    generator = minitorch.Generator().manual_seed(0)
    params = [minitorch.randn(5, 3, dtype=dtype, generator=generator).requires_grad_(),
              minitorch.randn(4, dtype=dtype, generator=generator).requires_grad_()]
    optimizer = optimizer_class(params, lr=0.05, foreach=foreach, **options)
    for _ in range(steps):
        for param in params:
            param.grad = minitorch.randn(*param.shape, dtype=dtype, generator=generator)
        optimizer.step()
    return params, optimizer


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64], ids=str)
@pytest.mark.parametrize("optimizer_class", [optim.Adam, optim.AdamW], ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("options", OPTIONS, ids=lambda options: "-".join(f"{k}={v}" for k, v in options.items()))
def test_the_array_path_gives_the_loops_numbers_bit_for_bit(optimizer_class, dtype, options):
    by_loop, loop_optimizer = _train(optimizer_class, False, dtype, options)
    on_arrays, array_optimizer = _train(optimizer_class, None, dtype, options)
    for looped, arrayed in zip(by_loop, on_arrays):
        np.testing.assert_array_equal(arrayed.detach().numpy(), looped.detach().numpy())
        assert arrayed._version == looped._version
        loop_state, array_state = loop_optimizer.state[looped], array_optimizer.state[arrayed]
        assert loop_state.keys() == array_state.keys()
        for name in loop_state:
            np.testing.assert_array_equal(array_state[name].numpy(), loop_state[name].numpy(), err_msg=name)
            assert array_state[name]._version == loop_state[name]._version, name
            assert array_state[name].dtype == loop_state[name].dtype, name


def _one_param_state(dtype=minitorch.float32):
    param = minitorch.randn(3, 2, dtype=dtype).requires_grad_()
    param.grad = minitorch.randn(3, 2, dtype=dtype)
    optimizer = optim.AdamW([param], foreach=False)
    optimizer.step()  # the loop fills the state
    param.grad = minitorch.randn(3, 2, dtype=dtype)
    return param, optimizer.state[param], optimizer.param_groups[0]


def _unchanged(param, state, group):
    before = param.detach().clone(), {name: value.clone() for name, value in state.items()}, param._version
    with minitorch.no_grad():
        assert adam_on_arrays(param, state, group) is False
    assert minitorch.equal(param.detach(), before[0]) and param._version == before[2]
    assert all(minitorch.equal(state[name], value) for name, value in before[1].items())


def test_an_update_that_is_not_plain_is_left_to_the_loop(monkeypatch):
    param, state, group = _one_param_state()
    with minitorch.enable_grad():  # differentiable=True: the update is recorded
        assert adam_on_arrays(param, state, group) is False
    _unchanged(*_one_param_state(minitorch.bfloat16))  # computed in float32 and rounded once by the ops
    _unchanged(*_one_param_state(minitorch.float16))
    param, state, group = _one_param_state()
    state["exp_avg"] = state["exp_avg"].double()  # a state loaded in another dtype: the ops promote
    _unchanged(param, state, group)
    monkeypatch.setattr(inplace, "_alike_without_graph", lambda target, other: False)  # compile's capture
    _unchanged(*_one_param_state())


def test_a_plain_update_runs_on_the_arrays():
    param, state, group = _one_param_state()
    with minitorch.no_grad():
        assert adam_on_arrays(param, state, group) is True
    assert state["step"].item() == 2
