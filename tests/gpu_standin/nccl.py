"""A recording NCCL for the CuPy stand-in: ``cupy.cuda.nccl`` (groups) and ``cupyx.distributed.NCCLBackend``.

Ranks are threads of one process, meeting in a ``World`` keyed by the rendezvous address (as CuPy's ranks meet
at ``MASTER_ADDR:MASTER_PORT``). The communicator has the methods and signatures of CuPy 14's ``NCCLBackend``
that minitorch calls, moves the stand-in arrays' bytes between the threads, and records every call. It keeps
the NCCL rule that matters for ``all_to_all``: outside a group (``groupStart``/``groupEnd``), a send waits until
its peer posts the matching receive, so two ranks that both send first wait for each other forever (here: until
``DEADLOCK_SECONDS``, then an error). Inside a group, all sends and receives start together.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import types

import numpy as np

from . import _current_device

DEADLOCK_SECONDS = 5.0
_worlds: dict[tuple, World] = {}
_worlds_lock = threading.Lock()
_local = threading.local()  # this thread's open NCCL group: depth and the operations queued in it


class World:
    """The ranks of one job: mailboxes between them, a barrier, and the calls every rank made."""

    def __init__(self, size: int):
        self.size = size
        self.mailboxes = {(a, b): queue.Queue() for a in range(size) for b in range(size)}
        self.taken = {(a, b): queue.Queue() for a in range(size) for b in range(size)}
        self.barrier = threading.Barrier(size, timeout=DEADLOCK_SECONDS)
        self.joined = threading.Barrier(size, timeout=DEADLOCK_SECONDS)  # the rendezvous: every rank or none
        self.calls: list[tuple] = []
        self.shared: dict = {}


def world(host: str, port: int, size: int) -> World:
    with _worlds_lock:
        return _worlds.setdefault((host, port, size), World(size))


class _Comm:
    """``NCCLBackend._comm`` (CuPy's ``NcclCommunicator``): the calls minitorch makes on it directly."""

    def __init__(self, backend):
        self.backend = backend
        self.aborted = False

    def abort(self):
        self.aborted = True
        self.backend.world.calls.append((self.backend.rank, "abort"))


class NCCLBackend:
    """``cupyx.distributed.NCCLBackend(n_devices, rank, host, port, use_mpi)`` over threads."""

    def __init__(self, n_devices, rank, host="127.0.0.1", port=13333, use_mpi=False):
        self.world, self.rank, self.size = world(host, port, n_devices), rank, n_devices
        self.device = _current_device[0]  # NCCL binds the device current in the calling thread
        self.world.calls.append((rank, "init", self.device))
        self.world.joined.wait()  # CuPy's TCP rendezvous and ncclCommInitRank wait for every rank
        self._comm = _Comm(self)

    def _record(self, *call):
        self.world.calls.append((self.rank, *call, getattr(_local, "depth", 0) > 0))

    # -- point to point ---------------------------------------------------------------------------
    def send(self, array, peer, stream=None):
        self._record("send", peer, array.size)
        operation = ("send", array._host.copy(), peer)
        if getattr(_local, "depth", 0):
            _local.queued.append((self, operation))
        else:
            self._run(operation, grouped=False)

    def recv(self, out_array, peer, stream=None):
        self._record("recv", peer, out_array.size)
        operation = ("recv", out_array, peer)
        if getattr(_local, "depth", 0):
            _local.queued.append((self, operation))
        else:
            self._run(operation, grouped=False)

    def _run(self, operation, grouped: bool):
        kind, payload, peer = operation
        if kind == "send":
            self.world.mailboxes[(self.rank, peer)].put((payload, grouped))
            if not grouped:  # an ungrouped send returns once the peer has received it
                self._wait(self.world.taken[(self.rank, peer)], f"rank {self.rank} send to {peer}")
        else:
            data, sent_grouped = self._wait(self.world.mailboxes[(peer, self.rank)],
                                            f"rank {self.rank} recv from {peer}")
            payload._host[...] = data.reshape(payload.shape)
            if not sent_grouped:
                self.world.taken[(peer, self.rank)].put(True)

    @staticmethod
    def _wait(box: queue.Queue, what: str):
        try:
            return box.get(timeout=DEADLOCK_SECONDS)
        except queue.Empty:
            raise RuntimeError(f"deadlock: {what} waited {DEADLOCK_SECONDS} s for its peer") from None

    # -- collectives ---------------------------------------------------------------------------------
    def all_reduce(self, in_array, out_array, op="sum", stream=None):
        self._record("all_reduce", op, in_array.size)
        pieces = self._exchange(in_array._host.copy())
        combine = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max}[op]
        out_array._host[...] = combine(np.stack(pieces), axis=0)

    def broadcast(self, in_out_array, root=0, stream=None):
        self._record("broadcast", root, in_out_array.size)
        pieces = self._exchange(in_out_array._host.copy())
        in_out_array._host[...] = pieces[root]

    def all_gather(self, in_array, out_array, count, stream=None):
        self._record("all_gather", count)
        pieces = self._exchange(in_array._host.reshape(-1)[:count].copy())
        out_array._host.reshape(-1)[...] = np.concatenate(pieces)

    def barrier(self):
        self._record("barrier")
        self.world.barrier.wait()

    def _exchange(self, piece) -> list:
        """Every rank's ``piece``, in rank order (a barrier before and after, as a collective's rendezvous)."""
        self.world.barrier.wait()
        self.world.shared[self.rank] = piece
        self.world.barrier.wait()
        pieces = [self.world.shared[rank] for rank in range(self.size)]
        self.world.barrier.wait()
        return pieces

    def stop(self):
        pass


def groupStart():  # noqa: N802 - CuPy's name
    _local.depth = getattr(_local, "depth", 0) + 1
    if _local.depth == 1:
        _local.queued = []


def groupEnd():  # noqa: N802 - CuPy's name
    _local.depth -= 1
    if _local.depth:
        return
    queued, _local.queued = _local.queued, []
    for backend, operation in queued:  # every send starts first, then the receives complete
        if operation[0] == "send":
            backend._run(operation, grouped=True)
    for backend, operation in queued:
        if operation[0] == "recv":
            backend._run(operation, grouped=True)


nccl = types.ModuleType("cupy.cuda.nccl")
nccl.groupStart, nccl.groupEnd = groupStart, groupEnd
distributed = types.ModuleType("cupyx.distributed")
distributed.NCCLBackend = NCCLBackend


@contextlib.contextmanager
def installed():
    """``from cupy.cuda import nccl`` and ``from cupyx.distributed import NCCLBackend`` give these (with the stand-in
    installed); yields a function that returns the ``World`` of a rendezvous address."""
    saved = {name: sys.modules.get(name) for name in ("cupy.cuda.nccl", "cupyx.distributed")}
    sys.modules["cupy.cuda.nccl"], sys.modules["cupyx.distributed"] = nccl, distributed
    try:
        yield world
    finally:
        with _worlds_lock:
            _worlds.clear()
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
