"""The NCCL backend: collectives between GPUs, through CuPy's ``cupyx.distributed.NCCLBackend``.

NCCL (NVIDIA's collective library) moves GPU memory directly between cards (NVLink, PCIe,
InfiniBand), which is why PyTorch uses it for every multi-GPU job: one process per GPU,
``init_process_group("nccl")``, tensors on ``cuda:LOCAL_RANK``. Here each collective is
CuPy's call on the tensors' CuPy arrays, queued on the current CUDA stream; the processes
meet through CuPy's own TCP rendezvous at ``MASTER_ADDR:MASTER_PORT`` (the launcher sets both).

Waiting works as in PyTorch's ``ProcessGroupNCCL``:

* the ``Work`` of a collective is a CUDA event recorded right after it. ``is_completed()``
  asks the event and never waits; ``wait()`` makes the current stream wait for it *on the
  device* and returns at once (the host goes on queueing work); ``wait(timeout)`` blocks
  the host, polling, and raises when the timeout passes;
* a watchdog thread polls every collective in flight. One still running after the group's
  ``timeout`` (``init_process_group(timeout=...)``) is an error: the watchdog aborts the NCCL
  communicator (so no kernel or host wait stays stuck on it), says so on stderr in PyTorch's
  words, and every later wait or collective of the group raises that ``DistBackendError``;
* NCCL has no uneven all-to-all: ``all_to_all`` sends and receives each rank's piece inside
  one NCCL group (``groupStart``/``groupEnd``), as PyTorch does, so pieces may differ in size;
* joining is bounded too: CuPy's rendezvous and NCCL's initialisation run in a thread (on the caller's
  device: CuPy's current device is per thread) that ``init_process_group`` waits for within the timeout, then
  raises ``DistStoreError``. ``barrier()`` is an all_reduce of one number whose ``wait()`` blocks the host,
  within the timeout, as PyTorch's does.

UNTESTED ON A GPU: the machines this kit is developed on have none. The code follows CuPy 14's
API (read from the cupy-cuda12x wheel) and is run against the CuPy stand-in of ``tests/gpu_standin``
with a recording NCCL communicator. Without CuPy, or without NCCL in it,
``init_process_group("nccl")`` raises an error that says so. Collectives not listed in
``ProcessGroupNCCL`` (sub-groups among them) raise ``NotImplementedError`` naming the MPI backend.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from ..reduce_op import RedOpType
from ..watchdog import DistBackendError, DistStoreError
from ..work import Work

_POLL_SECONDS = 0.05  # how often the watchdog and a blocking wait ask the events


def is_available() -> bool:
    try:
        from cupy.cuda import nccl  # noqa: F401
        from cupyx.distributed import NCCLBackend  # noqa: F401
    except Exception:
        return False
    return True


def _cupy():
    try:
        import cupy  # optional (the cuda extra): only on a GPU
        from cupy.cuda import nccl  # optional (the cuda extra): only on a GPU
        from cupyx.distributed import NCCLBackend  # optional (the cuda extra): only on a GPU
    except Exception as error:
        raise RuntimeError(
            "backend='nccl' needs CuPy built with NCCL and an NVIDIA GPU (pip install cupy-cuda12x; "
            f"python -m cupyx.tools.install_library --library nccl): {type(error).__name__}: {error}. "
            "On CPUs use backend='mpi'."
        ) from error
    return cupy, nccl, NCCLBackend


_OPS = {RedOpType.SUM: "sum", RedOpType.AVG: "sum", RedOpType.PRODUCT: "prod", RedOpType.MIN: "min",
        RedOpType.MAX: "max"}


class NCCLWork(Work):
    """One collective queued on the GPU, and the event recorded after it on the same stream."""

    def __init__(self, group: ProcessGroupNCCL, op_type: str, numel_in: int, numel_out: int):
        group.sequence += 1
        self.sequence = group.sequence
        super().__init__(f"WorkNCCL(SeqNum={self.sequence}, OpType={op_type}, NumelIn={numel_in}, "
                         f"NumelOut={numel_out}, Timeout(ms)={int(group.timeout * 1000)})")
        self.group = group
        self.event = group.cupy.cuda.Event(disable_timing=True)
        self.event.record()  # on the current stream, where CuPy has just queued the collective
        self.started = time.monotonic()
        self.host_waits = False  # True for a barrier: wait() returns once every rank has reached it
        group.watch(self)

    def is_completed(self) -> bool:
        """Has the collective finished on the GPU? Asks the event; never waits."""
        self.group.raise_if_failed()
        if not self.event.done:
            return False
        if not self._completed:
            self._complete()
        return True

    def _test(self) -> bool:
        return self.event.done

    def _block(self, timeout_seconds) -> None:
        self.group.raise_if_failed()
        if timeout_seconds is None and self.host_waits:
            timeout_seconds = self.group.timeout  # a barrier: the host waits, within the group's timeout
        if timeout_seconds is None:
            # PyTorch's wait(): the current stream waits for the collective on the device; the host goes on
            self.group.cupy.cuda.get_current_stream().wait_event(self.event)
            return
        deadline = time.monotonic() + timeout_seconds
        while not self.event.done:  # wait(timeout): the host polls, within the timeout
            self.group.raise_if_failed()
            if time.monotonic() > deadline:
                raise DistBackendError(
                    f"[Rank {self.group.rank()}] {self.description} timed out in a blocking wait: it ran for "
                    f"{int((time.monotonic() - self.started) * 1000)} milliseconds before timing out.",
                    rank=self.group.rank())
            time.sleep(min(_POLL_SECONDS, timeout_seconds))


class ProcessGroupNCCL:
    """Every rank of the job, one GPU each; the arrays are CuPy arrays (a cuda tensor's ``_data``)."""

    backend_name = "nccl"
    group_id = 0

    def __init__(self, world_size: int, rank: int, timeout_seconds: float):
        self.cupy, self.nccl, NCCLBackend = _cupy()
        if self.cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("backend='nccl' needs a GPU, and CUDA reports none; on CPUs use backend='mpi'")
        host = os.environ.get("MASTER_ADDR", "127.0.0.1")
        port = int(os.environ.get("MASTER_PORT", "13333"))
        self.communicator = self._rendezvous(NCCLBackend, world_size, rank, host, port, timeout_seconds)
        self.ranks = list(range(world_size))
        self._rank, self._size = rank, world_size
        self.timeout = timeout_seconds
        self.sequence = 0
        self.failure = None  # the watchdog's DistBackendError, raised by every later wait and collective
        self._in_flight: list[NCCLWork] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._watchdog = None

    def _rendezvous(self, NCCLBackend, world_size, rank, host, port, timeout_seconds):  # noqa: N803
        """CuPy's communicator, made within the timeout: CuPy's TCP rendezvous and NCCL's own initialisation wait
        for every rank, forever if one never comes, so they run in a thread that the caller waits for."""
        device = self.cupy.cuda.runtime.getDevice()  # the caller's, chosen by set_device(local_rank)
        made, failed = [], []

        def build():
            try:
                with self.cupy.cuda.Device(device):  # CuPy's current device is per thread: NCCL binds this one
                    made.append(NCCLBackend(world_size, rank, host=host, port=port))
            except Exception as error:  # handed to the caller below
                failed.append(error)

        thread = threading.Thread(target=build, name=f"nccl-rendezvous-rank{rank}", daemon=True)
        thread.start()
        thread.join(timeout_seconds)
        if failed:
            raise failed[0]
        if not made:
            raise DistStoreError(
                f"Timed out after {timeout_seconds:.1f} seconds waiting for every rank to call init_process_group "
                f"(backend='nccl', rendezvous at {host}:{port}; this is rank {rank} of {world_size})")
        return made[0]

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    # -- the watchdog ---------------------------------------------------------------------------
    def watch(self, work: NCCLWork) -> None:
        with self._lock:
            self._in_flight.append(work)
            if self._watchdog is None:
                self._watchdog = threading.Thread(target=self._watch, name=f"nccl-watchdog-rank{self._rank}",
                                                  daemon=True)
                self._watchdog.start()

    def _watch(self) -> None:
        while not self._stop.wait(min(_POLL_SECONDS, max(self.timeout / 4, 0.001))):
            with self._lock:
                self._in_flight = [work for work in self._in_flight if not work.event.done]
                late = [work for work in self._in_flight if time.monotonic() - work.started > self.timeout]
            if late:
                self._fail(late[0])
                return

    def _fail(self, work: NCCLWork) -> None:
        ran = int((time.monotonic() - work.started) * 1000)
        failure = DistBackendError(
            f"[Rank {self._rank}] Watchdog caught collective operation timeout: {work.description} ran for {ran} "
            "milliseconds before timing out.", rank=None)
        sys.stderr.write(f"minitorch.distributed: {failure}\n")
        self.abort()
        self.failure = failure  # published once the communicator is aborted: whoever sees it may rely on that

    def raise_if_failed(self) -> None:
        if self.failure is not None:
            raise self.failure

    def abort(self) -> None:
        """ncclCommAbort: the collectives stuck on this communicator end, so nothing waits on them forever."""
        communicator = getattr(self.communicator, "_comm", None)
        if communicator is not None:
            communicator.abort()

    # -- the collectives ------------------------------------------------------------------------
    @staticmethod
    def _op(op: RedOpType) -> str:
        if op not in _OPS:
            raise RuntimeError(f"backend='nccl' here supports SUM, AVG, PRODUCT, MIN and MAX, not {op.name}")
        return _OPS[op]

    def _queue(self, op_type: str, numel_in: int, numel_out: int, call) -> NCCLWork:
        self.raise_if_failed()
        call()
        return NCCLWork(self, op_type, numel_in, numel_out)

    def allreduce(self, array, op):
        return self._queue("ALLREDUCE", array.size, array.size,
                           lambda: self.communicator.all_reduce(array, array, self._op(op)))

    def reduce(self, array, root, op):
        return self._queue("REDUCE", array.size, array.size,
                           lambda: self.communicator.reduce(array, array, root, self._op(op)))

    def reduce_scatter(self, output, array, op):
        return self._queue("_REDUCE_SCATTER_BASE", array.size, output.size,
                           lambda: self.communicator.reduce_scatter(array, output, output.size, self._op(op)))

    def broadcast(self, array, root):
        return self._queue("BROADCAST", array.size, array.size, lambda: self.communicator.broadcast(array, root))

    def allgather(self, output, array):
        return self._queue("_ALLGATHER_BASE", array.size, output.size,
                           lambda: self.communicator.all_gather(array, output, array.size))

    def gather(self, output, array, root):
        return self._queue("GATHER", array.size, 0 if output is None else output.size,
                           lambda: self.communicator.gather(array, output, root))

    def scatter(self, output, array, root):
        return self._queue("SCATTER", 0 if array is None else array.size, output.size,
                           lambda: self.communicator.scatter(array, output, root))

    def send(self, array, destination, tag):
        return self._queue("SEND", array.size, array.size, lambda: self.communicator.send(array, destination))

    def recv(self, array, source, tag):
        if source is None:
            raise NotImplementedError("backend='nccl' receives from a named rank only (src=...); MPI has any-source")
        return self._queue("RECV", array.size, array.size, lambda: self.communicator.recv(array, source))

    def alltoall(self, output, output_counts, array, input_counts):
        """Rank i's piece j goes to rank j: a send and a receive per peer in one NCCL group, so pieces may differ
        in size (NCCL has no all-to-all call of its own; PyTorch builds ``all_to_all`` the same way)."""
        def exchange():
            sent = received = 0
            self.nccl.groupStart()  # inside a group NCCL starts every send and receive together: no deadlock
            try:
                for peer in range(self._size):
                    if input_counts[peer]:
                        self.communicator.send(array[sent:sent + input_counts[peer]], peer)
                    if output_counts[peer]:
                        self.communicator.recv(output[received:received + output_counts[peer]], peer)
                    sent, received = sent + input_counts[peer], received + output_counts[peer]
            finally:
                self.nccl.groupEnd()

        return self._queue("ALLTOALL", array.size, output.size, exchange)

    def barrier(self):
        """An all_reduce of one number that the host waits for, within the timeout (PyTorch's NCCL barrier;
        CuPy's own barrier meets through its TCP store, with no timeout)."""
        token = self.cupy.zeros(1, dtype=self.cupy.float32)
        work = self._queue("BARRIER", 1, 1, lambda: self.communicator.all_reduce(token, token, "sum"))
        work.host_waits = True
        return work

    def new_subgroup(self, ranks, group_id):
        raise NotImplementedError("new_group is not implemented for backend='nccl' in minitorch; use backend='mpi'")

    def destroy(self) -> None:
        self._stop.set()
        if self._watchdog is not None:
            self._watchdog.join()
        self.communicator = None


def world_group(world_size: int, rank: int, timeout_seconds: float) -> ProcessGroupNCCL:
    return ProcessGroupNCCL(world_size, rank, timeout_seconds)
