"""Pinned memory and ``non_blocking`` copies on the CuPy stand-in, which counts copies and the host's waits.

CUDA copies from page-locked (pinned) host memory asynchronously; from ordinary memory it stages the bytes and
the host waits. So ``x.pin_memory().to("cuda", non_blocking=True)`` must queue the copy without a
synchronisation, while the same copy from ordinary memory, or with ``non_blocking=False``, waits.
"""

from __future__ import annotations

import sys
from collections import namedtuple

import numpy as np
import pytest

import minitorch
from minitorch import _device
from tests.gpu_standin import counts, installed
from tests.support import is_cpu_build, require_torch


@pytest.fixture
def standin():
    with installed() as cupy:
        yield cupy


@pytest.fixture
def without_gpu(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    previous = _device.register_backend("cuda", _device.CupyBackend())
    yield
    _device.register_backend("cuda", previous)


def _copy_counts(copy) -> tuple[int, int, int]:
    counts.reset()
    result = copy()
    return result, (counts.host_to_device, counts.device_to_host, counts.synchronizations)


def test_without_a_gpu_pinning_raises_pytorchs_error(without_gpu):
    """Without CuPy, minitorch answers as PyTorch's CPU build does (a CUDA build without a GPU blames the driver)."""
    torch = require_torch()
    cpu_build_message = "Cannot access accelerator device when none is available."
    with pytest.raises(RuntimeError) as mine:
        minitorch.ones(2).pin_memory()
    assert str(mine.value) == cpu_build_message
    if is_cpu_build(torch):
        with pytest.raises(RuntimeError) as theirs:
            torch.ones(2).pin_memory()
        assert str(theirs.value) == cpu_build_message
    assert minitorch.ones(2).is_pinned() is torch.ones(2).is_pinned() is False


def test_pin_memory_copies_into_page_locked_memory_once(standin):
    x = minitorch.arange(6.0, requires_grad=True)
    assert not x.is_pinned()
    pinned = x.pin_memory()
    assert pinned.is_pinned() and pinned[2:].is_pinned()  # a view of pinned memory is pinned
    assert pinned.pin_memory() is pinned
    np.testing.assert_array_equal(pinned.detach().numpy(), x.detach().numpy())
    assert pinned.grad_fn.name() == "PinMemoryBackward0"
    (pinned * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0] * 6)
    made = minitorch.tensor([1.0, 2.0], pin_memory=True, requires_grad=True)
    assert made.is_pinned() and made.is_leaf and made.requires_grad
    with pytest.raises(RuntimeError, match="cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned"):
        minitorch.ones(2, device="cuda").pin_memory()


def test_a_non_blocking_copy_from_pinned_memory_does_not_synchronise(standin):
    pinned, pageable = minitorch.arange(4.0).pin_memory(), minitorch.arange(4.0)
    on_gpu, found = _copy_counts(lambda: pinned.to("cuda", non_blocking=True))
    assert found == (1, 0, 0)
    assert _copy_counts(lambda: pinned.cuda(non_blocking=True))[1] == (1, 0, 0)
    assert _copy_counts(lambda: pinned.to("cuda", minitorch.float32, True))[1] == (1, 0, 0)  # positional
    # the host waits: from ordinary memory (CUDA stages it), or when the copy is asked to block
    assert _copy_counts(lambda: pageable.to("cuda", non_blocking=True))[1] == (1, 0, 1)
    assert _copy_counts(lambda: pinned.to("cuda"))[1] == (1, 0, 1)
    np.testing.assert_array_equal(on_gpu.cpu().numpy(), [0.0, 1.0, 2.0, 3.0])


def test_a_non_blocking_copy_to_the_cpu_lands_in_pinned_memory_without_waiting(standin):
    on_gpu = minitorch.arange(5.0).to("cuda")
    back, found = _copy_counts(lambda: on_gpu.to("cpu", non_blocking=True))
    assert found == (0, 1, 0) and back.is_pinned()  # as in PyTorch: read it after synchronize()
    minitorch.cuda.synchronize()
    np.testing.assert_array_equal(back.numpy(), np.arange(5.0))
    waited, found = _copy_counts(lambda: on_gpu.cpu())
    assert found == (0, 1, 1) and not waited.is_pinned()


Pair = namedtuple("Pair", "image label")


class _Pairs(minitorch.utils.data.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, index):
        return Pair(minitorch.full((2,), float(index)), {"label": minitorch.tensor(index), "name": f"item{index}"})


def test_the_loader_yields_pinned_batches_that_copy_without_waiting(standin):
    loader = minitorch.utils.data.DataLoader(_Pairs(), batch_size=3, pin_memory=True)
    seen = []
    for batch in loader:
        assert isinstance(batch, Pair) and batch.image.is_pinned() and batch.label["label"].is_pinned()
        assert batch.label["name"][0] in ("item0", "item3")  # strings stay as they are
        image, found = _copy_counts(lambda batch=batch: batch.image.to("cuda", non_blocking=True))
        assert found == (1, 0, 0)
        seen.append(image.sum())
    assert [float(total) for total in seen] == [6.0, 24.0]


def test_without_a_gpu_the_loader_warns_and_yields_ordinary_batches(without_gpu):
    loader = minitorch.utils.data.DataLoader(_Pairs(), batch_size=3, pin_memory=True)
    with pytest.warns(UserWarning, match="no accelerator is found"):
        batch = next(iter(loader))
    assert not batch.image.is_pinned()


def test_batches_from_worker_processes_are_pinned_in_the_main_process(standin):
    loader = minitorch.utils.data.DataLoader(_Pairs(), batch_size=3, pin_memory=True, num_workers=2)
    batches = list(loader)
    assert len(batches) == 2 and all(batch.image.is_pinned() for batch in batches)
    np.testing.assert_array_equal(batches[1].image.numpy()[:, 0], [3.0, 4.0, 5.0])
