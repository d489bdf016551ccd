"""The MPI backend: process groups whose collectives are MPI's, through ``mpi4py``.

MPI (the Message Passing Interface) is the standard library of collectives on clusters;
``pip install mpi4py mpich`` brings one (MPICH) with its launcher ``mpiexec``. Every
collective here is MPI's *non-blocking* form (``Iallreduce``, ``Ibcast``, ...) on the
tensors' NumPy arrays, so ``async_op=True`` is natural: the request is the ``Work``.
Blocking calls are the same request, waited for at once through the watchdog, which
bounds the wait by the timeout and names a missing rank (``watchdog.py``).

Arrays travel as they are when MPI knows their type (float32, float64, integers); as raw
bytes for the operations that only move data (broadcast, gather, ...); reductions of
float16 and bfloat16 go through a float32 copy, and of bool through uint8 (``SUM`` of bools is "any").

MPI itself is started lazily, by ``init_process_group`` (``mpi4py.rc.initialize = False``):
``MPI_Init`` may wait until every process of the job has called it, so a separate small
process (``_join_watchdog.py``) bounds that wait by the timeout.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from ..._dtype import is_floating
from ..reduce_op import RedOpType
from ..watchdog import DistStoreError, Watchdog, record_error
from ..work import Work

_MPI = None
_abandoned = False  # set when a rank gives up waiting for the others: it must not call MPI_Finalize


def mpi_module():
    """``mpi4py.MPI``, imported without starting MPI (or an ImportError saying what to install)."""
    global _MPI
    if _MPI is None:
        try:
            import mpi4py  # optional (the distributed extra): loaded when the MPI backend starts
        except ImportError as error:
            raise ImportError(
                "minitorch.distributed's MPI backend needs mpi4py and an MPI library: pip install mpi4py mpich "
                "(or pip install 'minitorch-kit[distributed]'; conda: conda install -c conda-forge mpi4py mpich)"
            ) from error
        if "mpi4py.MPI" not in sys.modules:
            mpi4py.rc.initialize = False  # init_process_group starts MPI, within its timeout
            mpi4py.rc.finalize = False  # and this module ends it, at exit
        from mpi4py import MPI  # optional (the distributed extra): importing it starts MPI

        _MPI = MPI
    return _MPI


def is_available() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def start_mpi(timeout_seconds: float, run_dir: str | None) -> None:
    """``MPI_Init_thread``, guarded by ``_join_watchdog.py``: at most the timeout for every rank to call it."""
    MPI = mpi_module()
    if MPI.Is_initialized():
        return
    rank = os.environ.get("PMI_RANK", os.environ.get("RANK", "0"))
    world_size = os.environ.get("PMI_SIZE", os.environ.get("WORLD_SIZE", "0"))
    if run_dir:
        open(os.path.join(run_dir, f"rank-{rank}.joining"), "w").close()
    guard = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent.parent / "_join_watchdog.py"), str(os.getpid()),
         str(timeout_seconds), run_dir or "", rank, world_size], stdin=subprocess.PIPE)
    try:
        MPI.Init_thread(MPI.THREAD_SERIALIZED)  # several threads may call MPI, one at a time
    finally:
        guard.stdin.close()
        guard.wait()
    atexit.register(_finalize)


_JOIN_TAG = 7000


def _join(timeout_seconds: float, run_dir: str | None) -> None:
    """Every rank says hello to every other one, without blocking: after the timeout, the silent ones are named.

    MPI may start before all ranks have (MPICH's ``MPI_Init`` does not wait for them), but the
    first blocking collective would then wait forever for a rank that never comes.
    """
    global _abandoned
    world = _MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    others = [r for r in range(size) if r != rank]
    hello = np.ones(1, dtype=np.int8)
    sends = [world.Isend(hello, dest=other, tag=_JOIN_TAG) for other in others]
    inbox = np.zeros(size, dtype=np.int8)
    receives = {other: world.Irecv(inbox[other:other + 1], source=other, tag=_JOIN_TAG) for other in others}
    deadline = time.monotonic() + timeout_seconds
    while receives and time.monotonic() < deadline:
        receives = {other: request for other, request in receives.items() if not request.Test()}
        if receives:
            time.sleep(0.001)
    if receives:
        missing = sorted(receives)
        message = (f"Timed out after {timeout_seconds:.1f} seconds waiting for every rank to call init_process_group: "
                   f"{size - len(missing)}/{size} ranks joined; missing: " + ", ".join(f"rank {r}" for r in missing)
                   + f" (this is rank {rank})")
        record_error(run_dir, rank, f"DistStoreError: {message}")
        _abandoned = True  # MPI_Finalize would wait for the missing rank forever: end without it
        raise DistStoreError(message)
    _MPI.Request.Waitall(sends)


def _finalize() -> None:
    MPI = _MPI
    if not _abandoned and MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized():
        MPI.Finalize()


# -- operations ------------------------------------------------------------------------
def _mpi_op(MPI, op: RedOpType):
    return {
        RedOpType.SUM: MPI.SUM, RedOpType.AVG: MPI.SUM, RedOpType.PRODUCT: MPI.PROD, RedOpType.MIN: MPI.MIN,
        RedOpType.MAX: MPI.MAX, RedOpType.BAND: MPI.BAND, RedOpType.BOR: MPI.BOR, RedOpType.BXOR: MPI.BXOR,
    }[op]


_BOOL_OPS = {RedOpType.SUM: RedOpType.MAX, RedOpType.AVG: RedOpType.MAX, RedOpType.PRODUCT: RedOpType.MIN,
             RedOpType.MIN: RedOpType.MIN, RedOpType.MAX: RedOpType.MAX, RedOpType.BAND: RedOpType.BAND,
             RedOpType.BOR: RedOpType.BOR, RedOpType.BXOR: RedOpType.BXOR}


def _as_bytes(array: np.ndarray) -> np.ndarray:
    """The same memory seen as bytes: what MPI moves when it need not know the type."""
    return array.reshape(-1).view(np.uint8)


class _Reducible:
    """An array in a form MPI can reduce (itself, or a float32/uint8 copy), and how to copy the result back."""

    def __init__(self, array: np.ndarray, op: RedOpType):
        self.array = array
        self.op = op
        if array.dtype == np.float16 or array.dtype.name == "bfloat16":  # MPI has no 16-bit float: via float32
            self.buffer = array.astype(np.float32)
        elif array.dtype == np.bool_:
            self.buffer = array.view(np.uint8)
            self.op = _BOOL_OPS[op]
        else:
            self.buffer = array
        if is_floating(self.buffer.dtype) and op in (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR):
            raise RuntimeError(f"Cannot use ReduceOp.{op.name} with floating point tensors")

    def copy_back(self, result: np.ndarray | None = None) -> None:
        result = self.buffer if result is None else result
        if result is not self.array:
            self.array[...] = result.astype(self.array.dtype, copy=False).reshape(self.array.shape)


class MPIWork(Work):
    """One MPI request (or several), waited for through the job's watchdog."""

    def __init__(self, group, requests, name: str, sequence: int, members, peer=None, finish=None):
        super().__init__(name, finish)
        self.group = group
        self.requests = requests
        self.sequence = sequence
        self.members = members
        self.peer = peer  # point-to-point: the other rank (global), or "any"
        self.status = None

    @property
    def description(self) -> str:  # made only for messages: a training step never formats it
        if self.peer == "any":
            return f"{self._description} from any rank"
        if self.peer is not None:
            return f"{self._description} with rank {self.peer}"
        return f"{self._description} (collective #{self.sequence} of group {self.group.group_id}, ranks " \
               f"{self.group.ranks})"

    def _test(self) -> bool:
        MPI = _MPI
        if self.status is None and len(self.requests) == 1:
            self.status = MPI.Status()
            if self.requests[0].Test(self.status):
                return True
            self.status = None
            return False
        return MPI.Request.Testall(self.requests)

    def _block(self, timeout_seconds) -> None:
        self.group.watchdog.wait(self._test, lambda: self.description, self.group.group_id, self.sequence,
                                 self.members, timeout_seconds)

    def source_rank(self) -> int:
        """For a receive: the global rank the message came from."""
        if self.status is None:
            raise RuntimeError("source_rank() is known once the receive has completed (call wait() first)")
        return self.group.ranks[self.status.Get_source()]


class ProcessGroupMPI:
    """A set of ranks and its MPI communicator; each method starts one collective and returns its ``MPIWork``.

    Arrays are NumPy arrays (a tensor's ``_data``), contiguous, written in place. Ranks given
    to the methods are ranks *in this group* (the caller translates global ranks).
    """

    backend_name = "mpi"

    def __init__(self, comm, ranks: list[int], group_id: int, watchdog: Watchdog):
        self.comm = comm
        self.ranks = ranks  # group rank -> global rank
        self.group_id = group_id
        self.watchdog = watchdog

    def rank(self) -> int:
        return self.comm.Get_rank()

    def size(self) -> int:
        return self.comm.Get_size()

    def _work(self, name: str, requests, finish=None, point_to_point_peer=None) -> MPIWork:
        if point_to_point_peer is None:
            sequence = self.watchdog.issued.get(self.group_id, 0) + 1
            self.watchdog.issued[self.group_id] = sequence
            return MPIWork(self, requests, name, sequence, self.ranks, finish=finish)
        peer = self.ranks[point_to_point_peer]
        return MPIWork(self, requests, name, 0, [peer], peer=peer, finish=finish)

    # -- reductions ------------------------------------------------------------------
    def allreduce(self, array: np.ndarray, op: RedOpType) -> MPIWork:
        reducible = _Reducible(array, op)
        request = self.comm.Iallreduce(_MPI.IN_PLACE, reducible.buffer, _mpi_op(_MPI, reducible.op))
        return self._work("all_reduce", [request], reducible.copy_back)

    def reduce(self, array: np.ndarray, root: int, op: RedOpType) -> MPIWork:
        reducible = _Reducible(array, op)
        on_root = self.rank() == root
        send = _MPI.IN_PLACE if on_root else reducible.buffer
        request = self.comm.Ireduce(send, reducible.buffer if on_root else None, _mpi_op(_MPI, reducible.op), root)
        return self._work("reduce", [request], reducible.copy_back if on_root else None)

    def reduce_scatter(self, output: np.ndarray, array: np.ndarray, op: RedOpType) -> MPIWork:
        reducible = _Reducible(array, op)
        result = np.empty(output.shape, dtype=reducible.buffer.dtype)
        request = self.comm.Ireduce_scatter_block(reducible.buffer, result, _mpi_op(_MPI, reducible.op))

        def finish():
            output[...] = result.astype(output.dtype, copy=False)

        return self._work("reduce_scatter_tensor", [request], finish)

    # -- moving data ---------------------------------------------------------------------
    def broadcast(self, array: np.ndarray, root: int) -> MPIWork:
        return self._work("broadcast", [self.comm.Ibcast(_as_bytes(array), root)])

    def allgather(self, output: np.ndarray, array: np.ndarray) -> MPIWork:
        return self._work("all_gather", [self.comm.Iallgather(_as_bytes(array), _as_bytes(output))])

    def gather(self, output: np.ndarray | None, array: np.ndarray, root: int) -> MPIWork:
        receive = _as_bytes(output) if output is not None else None
        return self._work("gather", [self.comm.Igather(_as_bytes(array), receive, root)])

    def scatter(self, output: np.ndarray, array: np.ndarray | None, root: int) -> MPIWork:
        send = _as_bytes(array) if array is not None else None
        return self._work("scatter", [self.comm.Iscatter(send, _as_bytes(output), root)])

    def alltoall(self, output: np.ndarray, output_counts: list[int], array: np.ndarray,
                 input_counts: list[int]) -> MPIWork:
        """Rank ``i`` sends ``input_counts[j]`` elements of ``array`` to rank ``j`` (in order); ``output`` gets
        ``output_counts[j]`` elements from rank ``j``. Counts are in elements; MPI moves bytes."""
        itemsize = array.dtype.itemsize

        def spec(buffer, counts):
            sizes = np.asarray(counts, dtype=np.int64) * itemsize
            offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
            return [_as_bytes(buffer), (sizes.tolist(), offsets.tolist()), _MPI.BYTE]

        return self._work("all_to_all", [self.comm.Ialltoallv(spec(array, input_counts), spec(output, output_counts))])

    def barrier(self) -> MPIWork:
        return self._work("barrier", [self.comm.Ibarrier()])

    def send(self, array: np.ndarray, destination: int, tag: int) -> MPIWork:
        return self._work("send", [self.comm.Isend(_as_bytes(array), destination, tag)],
                          point_to_point_peer=destination)

    def recv(self, array: np.ndarray, source: int | None, tag: int) -> MPIWork:
        any_source = source is None
        request = self.comm.Irecv(_as_bytes(array), _MPI.ANY_SOURCE if any_source else source,
                                  _MPI.ANY_TAG if tag is None else tag)
        work = self._work("recv", [request], point_to_point_peer=0 if any_source else source)
        if any_source:
            work.members = [r for r in self.ranks if r != self.ranks[self.rank()]]
            work.peer = "any"
        return work

    def new_subgroup(self, ranks: list[int], group_id: int):
        """The group of the given global ranks (collective over this group: every rank calls it)."""
        members = [self.ranks.index(r) for r in ranks]
        # A barrier within the timeout first: Comm.Create itself would wait forever for a missing rank.
        self.barrier().wait()
        comm = self.comm.Create(self.comm.Get_group().Incl(members))
        if comm == _MPI.COMM_NULL:
            return None
        return ProcessGroupMPI(comm, list(ranks), group_id, self.watchdog)

    def destroy(self) -> None:
        if self.comm != _MPI.COMM_NULL and self.comm != _MPI.COMM_WORLD:
            self.comm.Free()


def world_group(timeout_seconds: float, run_dir: str | None):
    """Start MPI (if needed) and return the process group of every rank, with its watchdog."""
    start_mpi(timeout_seconds, run_dir)
    _join(timeout_seconds, run_dir)
    MPI = _MPI
    world = MPI.COMM_WORLD
    watchdog = Watchdog(MPI, world.Dup(), timeout_seconds, run_dir)
    group = ProcessGroupMPI(world.Dup(), list(range(world.Get_size())), 0, watchdog)
    return group

