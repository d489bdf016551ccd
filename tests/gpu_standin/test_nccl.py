"""The NCCL backend on the CuPy stand-in with a recording NCCL communicator (``tests/gpu_standin/nccl.py``).

Without a GPU these check the structure: collectives queue on the stream and do not block the host, the group's
timeout ends a collective that never finishes (instead of a hang), and uneven ``all_to_all`` is a grouped
send/receive per peer. Ranks are threads; a stalled stream stands for a rank that never joins.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import numpy as np
import pytest

import minitorch
import minitorch.distributed as dist
from minitorch.distributed.backends.nccl import ProcessGroupNCCL
from minitorch.distributed.watchdog import DistBackendError, DistStoreError
from tests import gpu_standin
from tests.gpu_standin import counts, installed, nccl as fake_nccl


@pytest.fixture
def standin_nccl(monkeypatch):
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", "29517")
    with installed() as cupy, fake_nccl.installed() as world:
        yield cupy, world
    if dist.is_initialized():
        dist.destroy_process_group()


def _on_ranks(size: int, run) -> list:
    """``run(rank)`` on ``size`` threads (the ranks); their results in rank order, or the first error raised."""
    results, errors = [None] * size, []

    def rank_main(rank):
        try:
            results[rank] = run(rank)
        except Exception as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=rank_main, args=(rank,)) for rank in range(size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def test_uneven_all_to_all_is_a_grouped_send_and_receive_per_peer(standin_nccl):
    cupy, world = standin_nccl
    size = 3
    sizes = np.array([[1, 0, 3], [2, 2, 1], [0, 4, 2]])  # sizes[i, j]: what rank i sends to rank j
    pieces = {(i, j): np.arange(sizes[i, j], dtype=np.float32) + 100 * i + 10 * j
              for i in range(size) for j in range(size)}

    def rank_main(rank):
        group = ProcessGroupNCCL(size, rank, timeout_seconds=5.0)
        sending = cupy.asarray(np.concatenate([pieces[rank, j] for j in range(size)]))
        receiving = cupy.zeros(int(sizes[:, rank].sum()), dtype=np.float32)
        work = group.alltoall(receiving, list(sizes[:, rank]), sending, list(sizes[rank]))
        work.wait()
        group.destroy()
        return receiving.get()

    received = _on_ranks(size, rank_main)
    for rank in range(size):  # rank j receives piece (i, j) from every rank i, in rank order
        np.testing.assert_array_equal(received[rank], np.concatenate([pieces[i, rank] for i in range(size)]))
    point_to_point = [call for call in world("127.0.0.1", 29517, size).calls if call[1] in ("send", "recv")]
    assert point_to_point and all(call[-1] for call in point_to_point)  # every one inside an NCCL group
    assert sorted((rank, peer, count) for rank, kind, peer, count, _ in point_to_point if kind == "send") == sorted(
        (i, j, int(sizes[i, j])) for i in range(size) for j in range(size) if sizes[i, j])


def test_the_recording_nccl_deadlocks_on_ungrouped_sends_as_nccl_does(standin_nccl, monkeypatch):
    """Why all_to_all groups its sends: two ranks that both send first wait for each other."""
    cupy, _ = standin_nccl
    monkeypatch.setattr(fake_nccl, "DEADLOCK_SECONDS", 0.3)

    def rank_main(rank):
        backend = fake_nccl.NCCLBackend(2, rank, "127.0.0.1", 29600)
        backend.send(cupy.ones(2), 1 - rank)
        backend.recv(cupy.zeros(2), 1 - rank)

    with pytest.raises(RuntimeError, match="deadlock"):
        _on_ranks(2, rank_main)


def test_collectives_queue_on_the_stream_and_wait_on_the_device(standin_nccl):
    dist.init_process_group("nccl", rank=0, world_size=1, timeout=timedelta(seconds=5))
    x = minitorch.arange(4.0, device="cuda")
    counts.reset()
    work = dist.all_reduce(x, async_op=True)
    assert work.is_completed() and work.wait() and counts.synchronizations == 0
    np.testing.assert_array_equal(x.cpu().numpy(), [0.0, 1.0, 2.0, 3.0])
    out = [minitorch.zeros(2, device="cuda")]
    dist.all_to_all(out, [minitorch.full((2,), 7.0, device="cuda")])
    np.testing.assert_array_equal(out[0].cpu().numpy(), [7.0, 7.0])


def test_a_collective_that_never_finishes_ends_in_pytorchs_timeout_error(standin_nccl):
    cupy, world = standin_nccl
    dist.init_process_group("nccl", rank=0, world_size=1, timeout=timedelta(seconds=0.3))
    group = dist.distributed_c10d.GroupMember.WORLD._backend
    x = minitorch.ones(4, device="cuda")
    with gpu_standin.stalled(cupy.cuda.Stream.null):  # the NCCL kernel waits for a rank that never comes
        dist.all_reduce(x)  # returns: the host never waits for the GPU here (a wait would raise StandInHang)
        work = dist.all_reduce(x, async_op=True)
        assert not work.is_completed()
        with pytest.raises(DistBackendError, match=r"OpType=ALLREDUCE.*timed out in a blocking wait"):
            work.wait(timeout=timedelta(seconds=0.05))
        deadline = time.monotonic() + 10
        while group.failure is None and time.monotonic() < deadline:
            time.sleep(0.02)  # the watchdog thread looks every 50 ms
    assert group.failure is not None, "the watchdog never noticed the collective past its timeout"
    message = (r"\[Rank 0\] Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=1, OpType=ALLREDUCE, "
               r"NumelIn=4, NumelOut=4, Timeout\(ms\)=300\) ran for \d+ milliseconds before timing out")
    assert (0, "abort") in world("127.0.0.1", 29517, 1).calls  # NCCL's stuck kernels are released
    with pytest.raises(DistBackendError, match=message):
        work.is_completed()
    with pytest.raises(DistBackendError, match=message):
        dist.all_reduce(x)  # the group is unusable after a timeout, as in PyTorch


def test_joining_waits_at_most_the_timeout_for_the_other_ranks(standin_nccl):
    with pytest.raises(DistStoreError, match=r"Timed out after 0.3 seconds waiting for every rank to call "
                                             r"init_process_group \(backend='nccl'.*this is rank 0 of 2\)"):
        dist.init_process_group("nccl", rank=0, world_size=2, timeout=timedelta(seconds=0.3))
    assert not dist.is_initialized()


def test_the_communicator_binds_the_gpu_chosen_with_set_device(standin_nccl):
    """CuPy's current device is per thread, and NCCL binds the current one: the rendezvous thread must use the
    caller's (each rank of a node its own GPU, not GPU 0)."""
    _, world = standin_nccl
    minitorch.cuda.set_device(1)
    try:
        dist.init_process_group("nccl", rank=0, world_size=1, timeout=timedelta(seconds=5))
    finally:
        minitorch.cuda.set_device(0)
    assert (0, "init", 1) in world("127.0.0.1", 29517, 1).calls


def test_a_barrier_blocks_the_host_within_the_timeout(standin_nccl):
    cupy, _ = standin_nccl
    dist.init_process_group("nccl", rank=0, world_size=1, timeout=timedelta(seconds=0.2))
    dist.barrier()  # every rank (the one) is there: it returns
    with gpu_standin.stalled(cupy.cuda.Stream.null):
        # the host's wait and the watchdog reach the same deadline: whichever looks first names the barrier
        with pytest.raises(DistBackendError, match=r"OpType=BARRIER.*ran for \d+ milliseconds before timing out"):
            dist.barrier()
