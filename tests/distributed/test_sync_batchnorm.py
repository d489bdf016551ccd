"""``nn.SyncBatchNorm`` across real processes equals ``BatchNorm2d`` on the whole batch, in PyTorch and in minitorch.

scripts/sync_batchnorm.py: 2 and 3 ranks with uneven shares of one batch, two training steps. Checked against
PyTorch's BatchNorm2d run in one process on the whole batch: outputs, input gradients, the weight's and bias's
gradients (summed over the ranks, as DistributedDataParallel's average times the world size), running statistics.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.distributed.launch import run_mpiexec
from tests.support import require_torch


def _whole_batch_reference(world: int):
    torch = require_torch()
    sizes = [r + 2 for r in range(world)]
    batch = np.random.default_rng(7).normal(2.0, 3.0, size=(sum(sizes), 3, 4, 5))
    norm = torch.nn.BatchNorm2d(3)
    with torch.no_grad():
        norm.weight.copy_(torch.tensor([0.5, 1.5, -2.0]))
        norm.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    expected = {}
    for step in range(2):
        x = torch.tensor(batch * (step + 1), dtype=torch.float32, requires_grad=True)
        y = norm(x)
        (y * torch.tensor(np.cos(np.arange(batch.size)).reshape(batch.shape), dtype=torch.float32)).sum().backward()
        expected[f"y{step}"], expected[f"dx{step}"] = y.detach().numpy(), x.grad.numpy()
        expected[f"dw{step}"], expected[f"db{step}"] = norm.weight.grad.numpy().copy(), norm.bias.grad.numpy().copy()
        norm.weight.grad = norm.bias.grad = None
    expected["running_mean"], expected["running_var"] = norm.running_mean.numpy(), norm.running_var.numpy()
    return sizes, expected


@pytest.mark.parametrize("world", [2, 3])
def test_sync_batchnorm_equals_batchnorm_on_the_whole_batch(world, tmp_path):
    run_mpiexec(world, "sync_batchnorm.py", str(tmp_path), timeout=180)
    ranks = [dict(np.load(tmp_path / f"rank{r}.npz")) for r in range(world)]
    sizes, expected = _whole_batch_reference(world)
    for rank, got in enumerate(ranks):
        assert str(got["type"]) == "SyncBatchNorm"  # convert_sync_batchnorm replaced the BatchNorm2d
        rows = slice(sum(sizes[:rank]), sum(sizes[:rank + 1]))
        for step in range(2):
            np.testing.assert_allclose(got[f"y{step}"], expected[f"y{step}"][rows], rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(got[f"dx{step}"], expected[f"dx{step}"][rows], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got["running_mean"], expected["running_mean"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got["running_var"], expected["running_var"], rtol=1e-5, atol=1e-6)
        assert int(got["num_batches_tracked"]) == 2
    for step in range(2):  # each rank's parameter gradient is its share; together they are the whole batch's
        for name in ("dw", "db"):
            total = sum(got[f"{name}{step}"] for got in ranks)
            np.testing.assert_allclose(total, expected[f"{name}{step}"], rtol=1e-4, atol=1e-4)


def test_without_a_process_group_it_is_batchnorm():
    torch = require_torch()
    x = np.random.default_rng(0).normal(size=(4, 3, 5)).astype(np.float32)
    ours, theirs = minitorch.nn.SyncBatchNorm(3), torch.nn.SyncBatchNorm(3)
    np.testing.assert_allclose(ours(minitorch.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6, atol=1e-6)
    assert repr(ours) == repr(theirs)


def test_bad_inputs_in_pytorchs_words():
    torch = require_torch()
    for make in (lambda lib: lib.zeros(3), lambda lib: lib.zeros(2, 0, 4)):
        messages = []
        for lib in (torch, minitorch):
            with pytest.raises(ValueError) as caught:
                lib.nn.SyncBatchNorm(3)(make(lib))
            messages.append(str(caught.value))
        assert messages[0] == messages[1]


def test_convert_sync_batchnorm_shares_parameters_and_buffers_like_pytorch():
    torch = require_torch()
    converted = {}
    for lib in (torch, minitorch):
        model = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.BatchNorm2d(2),
                                  lib.nn.Sequential(lib.nn.BatchNorm1d(4, affine=False)))
        model.eval()
        old_weight, old_mean = model[1].weight, model[1].running_mean
        new = lib.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        assert new[1].weight is old_weight and new[1].running_mean is old_mean
        assert not new[1].training and new[2][0].weight is None
        converted[lib.__name__] = [type(m).__name__ for m in new.modules()]
    assert converted["minitorch"] == converted["torch"]
