"""The object collectives, ``all_to_all`` and ``monitored_barrier`` in real processes (2 and 4 ranks), against
PyTorch's gloo backend running the same script and against NumPy by hand (scripts/more_collectives.py)."""

from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

from tests.distributed.launch import SCRIPTS, _environment, run_mpiexec
from tests.support import require_torch

WORLD_SIZES = [2, 4]
SCRIPT = "more_collectives.py"


def _read(folder: str, world: int) -> list[dict]:
    return [json.load(open(f"{folder}/rank{rank}.json")) for rank in range(world)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_torch_ranks(world: int, folder: str, phase: str = "collectives") -> None:
    """The script in PyTorch: one process per rank, rendezvous over TCP as torchrun would set it up."""
    require_torch()
    port = _free_port()
    processes = []
    for rank in range(world):
        env = _environment({"RANK": str(rank), "WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1",
                            "MASTER_PORT": str(port), "GLOO_SOCKET_IFNAME": "lo"})
        processes.append(subprocess.Popen([sys.executable, str(SCRIPTS / SCRIPT), "torch", folder, phase], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    outputs = [p.communicate(timeout=180)[0] for p in processes]
    for rank, process in enumerate(processes):
        assert process.returncode == 0, f"PyTorch rank {rank} failed:\n{outputs[rank]}"


@functools.cache
def _results(world: int, library: str, folder: str, phase: str = "collectives") -> list[dict]:
    os.makedirs(folder, exist_ok=True)
    if library == "torch":
        run_torch_ranks(world, folder, phase)
    else:
        run_mpiexec(world, SCRIPT, "minitorch", folder, phase, timeout=180)
    return _read(folder, world)


@pytest.fixture(scope="module", params=WORLD_SIZES, ids=lambda w: f"{w}ranks")
def world(request, tmp_path_factory):
    size = request.param
    ours = _results(size, "minitorch", str(tmp_path_factory.mktemp(f"minitorch{size}")))
    return size, ours


@pytest.fixture(scope="module")
def pytorch_results(world, tmp_path_factory):
    size, _ = world
    return _results(size, "torch", str(tmp_path_factory.mktemp(f"torch{size}")))


def test_object_collectives_by_hand(world):
    size, results = world
    everyone = [{"rank": r, "name": "r" * (r + 1), "values": list(range(3 * r))} for r in range(size)]
    for rank in range(size):
        got = results[rank]
        assert got["all_gather_object"] == repr(everyone)
        assert got["broadcast_object_list"] == repr([("a", 1), {1: "x" * 10}, None])
        assert got["scatter_object_list"] == repr([{"to": rank, "pad": "y" * 7 * rank}])
        expected_gather = [("from", r, "x" * (5 * r)) for r in range(size)] if rank == size - 1 else None
        assert got["gather_object"] == repr(expected_gather)


def test_all_to_all_by_hand(world):
    size, results = world
    for rank in range(size):
        got = results[rank]
        # rank i sent arange(rank + 1 + i) + 100 i + 10 rank to this rank
        expected = [(np.arange(rank + 1 + i) + 100 * i + 10 * rank).tolist() for i in range(size)]
        assert got["all_to_all"] == expected
        sent = [np.arange(size * 2 * 3, dtype=np.float64).reshape(size * 2, 3) + 1000 * i for i in range(size)]
        assert got["all_to_all_single_equal"] == np.concatenate([s[2 * rank:2 * rank + 2] for s in sent]).tolist()
        pieces = []
        for i in range(size):
            rows = [(i + j) % 3 + 1 for j in range(size)]
            sending = np.arange(sum(rows) * 2).reshape(-1, 2) + 1000 * i
            start = sum(rows[:rank])
            pieces.append(sending[start:start + rows[rank]])
        assert got["all_to_all_single_uneven"] == np.concatenate(pieces).tolist()
        assert got["monitored_barrier"] == "passed"


def test_every_result_equals_pytorchs_gloo(world, pytorch_results):
    size, ours = world
    for rank in range(size):
        for name, theirs in pytorch_results[rank].items():
            if isinstance(theirs, str) and theirs.startswith("error:"):  # gloo lacks it (all_to_all of lists)
                continue
            assert ours[rank][name] == theirs, (rank, name)
    compared = [name for name, value in pytorch_results[0].items() if not str(value).startswith("error:")]
    assert len(compared) >= 7, compared  # only the list form of all_to_all may be missing from gloo


@pytest.mark.parametrize("phase,world_size,expected", [
    ("failure_first", 2, "[Rank 0]: Rank 1 failed to pass monitoredBarrier in 1000 ms"),
    ("failure_all", 3, "[Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 1000 ms"),
])
def test_monitored_barrier_names_the_missing_ranks_like_pytorch(tmp_path, phase, world_size, expected):
    ours = _results(world_size, "minitorch", str(tmp_path / "minitorch"), phase)
    theirs = _results(world_size, "torch", str(tmp_path / "torch"), phase)
    assert ours[0]["monitored_barrier"] == expected
    assert theirs[0]["monitored_barrier"] == expected
