"""DistributedDataParallel in real processes: the same training as one process on the global batch.

scripts/train.py trains the course's MLP (float64, SGD) with DDP and DistributedSampler on 2 and 4
ranks, three ways (shuffled, ordered, and with ``no_sync`` gradient accumulation). Each must give,
on every rank, the parameters that ONE process gets by training on the global batch of each step
(the union of the ranks' batches, which the ranks record): the mean loss over the global batch has
as gradient the average of the ranks' mean-loss gradients when the ranks' batches have equal
sizes (48 samples divide evenly here). Only the order of additions differs, so the parameters
agree to about 1e-15; the bound asserted is 1e-10.

The same script, with ``import torch`` and backend "gloo" instead, runs on PyTorch and gives the
same parameters. And the order of events in the first backward shows the buckets' all-reduces
launching while gradients are still being computed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.utils.data.distributed import DistributedSampler
from tests.distributed.launch import run_launcher, run_mpiexec
from tests.distributed.scripts.training_cases import (
    CLASSES,
    EPOCHS,
    FEATURES,
    HIDDEN,
    LEARNING_RATE,
    LOCAL_BATCH,
    SAMPLES,
    data_arrays,
    start_weights,
)
from tests.support import require_torch

RUNS = ["shuffled", "ordered", "accumulated"]
NAMES = ["0.weight", "0.bias", "2.weight", "2.bias"]


_runs: dict[int, dict] = {}  # world size -> results: one launch per world size for the whole module


def _trained(world: int, tmp_path_factory) -> dict:
    if world not in _runs:
        folder = tmp_path_factory.mktemp(f"ddp{world}")
        run_mpiexec(world, "train.py", "minitorch", "mpi", folder, timeout=240)
        _runs[world] = {(run, rank): dict(np.load(folder / f"{run}-rank{rank}.npz"))
                        for run in RUNS for rank in range(world)}
    return _runs[world]


@pytest.fixture(scope="module", params=[2, 4], ids=lambda w: f"{w}ranks")
def trained(request, tmp_path_factory):
    return request.param, _trained(request.param, tmp_path_factory)


def one_process_training(global_batches: list[list[int]]) -> dict:
    """The reference: plain minitorch in this process, one SGD step per global batch."""
    features, labels = data_arrays()
    features, labels = minitorch.tensor(features), minitorch.tensor(labels)
    network = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES)).double()
    with minitorch.no_grad():
        for parameter, value in zip(network.parameters(), start_weights()):
            parameter.copy_(minitorch.tensor(value))
    optimizer = minitorch.optim.SGD(network.parameters(), lr=LEARNING_RATE)
    for batch in global_batches:
        rows = minitorch.tensor(batch)
        optimizer.zero_grad()
        nn.functional.cross_entropy(network(features[rows]), labels[rows]).backward()
        optimizer.step()
    return {name: p.detach().numpy() for name, p in network.named_parameters()}


@pytest.mark.parametrize("run", RUNS)
def test_ddp_equals_one_process_on_the_global_batch(trained, run):
    world, results = trained
    steps = len(results[(run, 0)]["seen"])
    assert steps == EPOCHS * SAMPLES // (world * LOCAL_BATCH)
    global_batches = [sum((results[(run, rank)]["seen"][step].tolist() for rank in range(world)), [])
                      for step in range(steps)]
    reference = one_process_training(global_batches)
    for rank in range(world):
        for name in NAMES:
            np.testing.assert_allclose(results[(run, rank)][name], reference[name], rtol=0, atol=1e-10,
                                       err_msg=f"{run}, rank {rank}, {name}")
            # every rank applies the same averaged gradients: the copies stay bit-identical
            np.testing.assert_array_equal(results[(run, rank)][name], results[(run, 0)][name])
    # and the training moved the weights: the check is not vacuous
    assert np.abs(reference["0.weight"] - start_weights()[0]).max() > 1e-3


def test_distributed_sampler_shares(trained):
    world, results = trained
    per_epoch = SAMPLES // (world * LOCAL_BATCH)
    for run in ["shuffled", "ordered"]:
        epochs = []
        for epoch in range(EPOCHS):
            shares = [results[(run, r)]["seen"][epoch * per_epoch:(epoch + 1) * per_epoch].reshape(-1).tolist()
                      for r in range(world)]
            everything = sorted(sum(shares, []))
            assert everything == list(range(SAMPLES)), "each sample exactly once per epoch, over all ranks"
            for rank, share in enumerate(shares):  # the same as the sampler computed in this process
                sampler = DistributedSampler(range(SAMPLES), num_replicas=world, rank=rank,
                                             shuffle=run == "shuffled", seed=7)
                sampler.set_epoch(epoch)
                assert share == list(sampler)
            epochs.append(shares)
        if run == "shuffled":
            assert epochs[0] != epochs[1], "set_epoch gives a new shuffle"
        else:
            assert epochs[0] == epochs[1]


def test_buckets_launch_during_backward(trained):
    world, results = trained
    log = results[("ordered", 0)]["log"].tolist()
    hooks = [i for i, event in enumerate(log) if event.startswith("hook:")]
    reduces = [i for i, event in enumerate(log) if event.startswith("all_reduce:")]
    assert [log[i] for i in reduces] == [f"all_reduce:{b}" for b in range(len(reduces))], "buckets go in order"
    assert len(reduces) >= 2 and len(hooks) == 4
    assert reduces[0] < hooks[-1], f"an all-reduce starts before backward has produced every gradient: {log}"
    # the last layer's gradients come first, and so do its buckets; within a layer the bias is ready
    # before the weight, as in PyTorch (Linear records addmm(bias, x, W^T), the bias's edge first)
    assert [log[i] for i in hooks] == ["hook:2.bias", "hook:2.weight", "hook:0.bias", "hook:0.weight"]


def test_state_dict_keys_are_prefixed(trained):
    _, results = trained
    assert results[("ordered", 0)]["keys"].tolist() == [f"module.{name}" for name in NAMES]


def test_the_same_script_on_pytorch_with_gloo_gives_the_same_parameters(tmp_path, tmp_path_factory):
    """On 2 ranks only: PyTorch's start-up in every process is slow."""
    require_torch()
    results = _trained(2, tmp_path_factory)
    result = run_launcher(2, "train.py", "torch", "gloo", tmp_path, "ordered", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    for rank in range(2):
        torch_run = np.load(tmp_path / f"ordered-rank{rank}.npz")
        np.testing.assert_array_equal(torch_run["seen"], results[("ordered", rank)]["seen"])
        for name in NAMES:
            np.testing.assert_allclose(torch_run[name], results[("ordered", rank)][name], rtol=0, atol=1e-12)
        assert torch_run["keys"].tolist() == results[("ordered", rank)]["keys"].tolist()


@pytest.fixture(scope="module")
def features(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ddp-features")
    run_mpiexec(2, "ddp_features.py", folder, timeout=180)
    return [dict(np.load(folder / f"features-rank{rank}.npz")) for rank in range(2)]


def test_find_unused_parameters(features):
    """A layer used on rank 0 only: both ranks get rank 0's gradient / 2; a layer no rank uses keeps grad None."""
    x0 = features[0]["x"]
    rank0_only = np.tile(x0.sum(axis=0), (2, 1)) / 2  # d(sum of outputs)/d(weight) = column sums of x, averaged
    for rank in range(2):
        np.testing.assert_allclose(features[rank]["rank0_only_grad"], rank0_only, rtol=1e-12)
        shared = np.tile((features[0]["x"].sum(axis=0) + features[1]["x"].sum(axis=0)) / 2, (2, 1))
        np.testing.assert_allclose(features[rank]["shared_grad"], shared, rtol=1e-12)
        assert bool(features[rank]["never_grad_is_none"])


def test_an_unused_parameter_without_find_unused_is_pytorchs_error(features):
    message = str(features[0]["unfinished_error"])
    assert message.startswith("Expected to have finished reduction in the prior iteration before starting a new "
                              "one.")
    assert "Parameter indices which did not receive grad for rank 0: 4 5" in message
    assert "never.weight, never.bias" in message
    assert "for rank 1: 2 3 4 5" in str(features[1]["unfinished_error"])


def test_parameters_and_buffers_come_from_rank_0(features):
    np.testing.assert_array_equal(features[0]["weight"], features[1]["weight"])
    for rank in range(2):
        np.testing.assert_array_equal(features[rank]["running_mean_after_construction"], np.ones(4))
        # each rank set 10 * (rank + 1); the forward started from rank 0's 10, then moved 10% toward its batch mean
        assert np.all(np.abs(features[rank]["running_mean_after_forward"] - 9.0) < 0.5)


# -- the bucket assignment: PyTorch's compute_bucket_assignment_by_size ------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_buckets_are_pytorchs_assignment_in_reverse_registration_order(seed):
    """DDP's buckets against ``torch.distributed._compute_bucket_assignment_by_size`` (the function PyTorch's
    Reducer rebuilds its buckets with, in the order the gradients arrived: here, reverse registration order),
    with PyTorch's two limits (the small first bucket, then the cap); mixed float32/float64 in two seeds."""
    torch = require_torch()
    from types import SimpleNamespace

    import torch.distributed as torch_dist

    from minitorch.nn.parallel import DistributedDataParallel

    rng = np.random.default_rng(seed)
    count = int(rng.integers(3, 14))
    sizes = rng.integers(1, 400, size=count).tolist()
    kinds = ["float64" if seed >= 4 and rng.random() < 0.4 else "float32" for _ in range(count)]
    first_cap, cap = int(rng.integers(1, 1200)), int(rng.integers(200, 3000))
    ours = [minitorch.zeros(size, dtype=getattr(minitorch, kind)) for size, kind in zip(sizes, kinds)]
    theirs = [torch.zeros(size, dtype=getattr(torch, kind)) for size, kind in zip(sizes, kinds)]
    settings = SimpleNamespace(first_bucket_bytes_cap=first_cap, bucket_bytes_cap=cap)
    buckets = DistributedDataParallel._make_buckets(settings, ours)
    position = {id(p): index for index, p in enumerate(ours)}
    got = [[position[id(p)] for p in bucket.parameters] for bucket in buckets]
    # as the Reducer's rebuild calls it: the tensors in the order their gradients arrive, with their indices
    expected, _ = torch_dist._compute_bucket_assignment_by_size(
        theirs[::-1], [first_cap, cap], [False] * count, list(reversed(range(count))))
    assert got == [list(bucket) for bucket in expected], (sizes, kinds, first_cap, cap)
