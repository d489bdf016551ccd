"""``minitorch.random`` (PyTorch's ``torch.random``): ``fork_rng`` and the generator's state, against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
import minitorch.random as mrandom
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def test_the_module_has_pytorchs_public_names(torch):
    theirs = {name for name in vars(torch.random) if not name.startswith("_")} - {
        "contextlib", "warnings", "torch", "TYPE_CHECKING", "thread_safe_generator"}
    assert theirs <= set(dir(mrandom)), theirs - set(dir(mrandom))


@pytest.mark.parametrize("enabled", [True, False])
def test_fork_rng_restores_the_stream_like_pytorch(torch, enabled):
    streams = []
    for lib in (torch, minitorch):
        lib.random.manual_seed(11)
        before = lib.rand(2)
        with lib.random.fork_rng(enabled=enabled):
            inside = lib.randn(5)
            lib.manual_seed(99)  # even a reseed inside is undone on exit
            inside_after_seed = lib.rand(3)
        after = lib.rand(4)
        streams.append([t.numpy() for t in (before, inside, inside_after_seed, after)])
    for ours, theirs in zip(streams[1], streams[0]):
        np.testing.assert_array_equal(ours, theirs)


def test_fork_rng_restores_after_an_exception(torch):
    results = []
    for lib in (torch, minitorch):
        lib.manual_seed(5)
        with pytest.raises(ValueError), lib.random.fork_rng():
            lib.rand(7)
            raise ValueError("inside")
        results.append(lib.rand(3).numpy())
    np.testing.assert_array_equal(results[1], results[0])


def test_fork_rng_saves_and_restores_each_gpu_listed(fake_cuda):
    minitorch.manual_seed(3)
    expected = minitorch.rand(4, device="cuda:1").cpu().numpy()
    minitorch.manual_seed(3)
    with mrandom.fork_rng(devices=[0, 1]):
        minitorch.rand(10, device="cuda:1")
    np.testing.assert_array_equal(minitorch.rand(4, device="cuda:1").cpu().numpy(), expected)
    state = minitorch.cuda.get_rng_state(1)
    assert state.dtype == minitorch.uint8 and tuple(state.shape) == (5056,)
    assert len(minitorch.cuda.get_rng_state_all()) == 2


def test_fork_rng_warns_once_about_every_gpu(fake_cuda, monkeypatch):
    monkeypatch.setattr(mrandom, "_fork_rng_warned_already", False)
    with pytest.warns(UserWarning, match=r"CUDA reports that you have 2 available devices.*devices=\[0\]"):
        with mrandom.fork_rng():
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with mrandom.fork_rng():  # said once per process, as in PyTorch
            pass


def test_fork_rng_refuses_an_unknown_device_type_in_pytorchs_words(torch):
    messages = []
    for lib in (torch, minitorch):
        with pytest.raises(RuntimeError) as caught, lib.random.fork_rng(device_type="xpu_like_nothing"):
            pass
        messages.append(str(caught.value))
    # the same sentence; minitorch lists the device types it knows (cpu, cuda), PyTorch all of its own
    for message in messages:
        assert message.startswith("Expected one of cpu, cuda")
        assert message.endswith("device type at start of device string: xpu_like_nothing")
