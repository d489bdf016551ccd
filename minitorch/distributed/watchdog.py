"""How a rank notices that another one failed, exited or hangs, instead of waiting forever.

A collective finishes only when every rank of its group has joined it. If one rank raises,
returns early or loops forever, the others would wait in MPI indefinitely. PyTorch bounds
the wait with the ``timeout`` of ``init_process_group``; minitorch does the same, and says
*which* rank is missing. Three mechanisms, on a private MPI communicator (the *control
channel*) that the collectives never use:

* **Failure notices.** When an exception escapes a rank's script, ``sys.excepthook`` (set
  by ``init_process_group``) sends "rank 1 failed: ValueError: ..." to every other rank. A
  rank waiting in a collective reads it and raises ``DistBackendError`` naming rank 1 (and
  sends back an acknowledgement). The failed rank waits briefly for those, then ends its
  process without MPI's collective shutdown, so ``mpiexec`` stops the whole job: no rank
  is left waiting, and none outlives the job.
* **Exit notices.** A rank whose script ends (or calls ``sys.exit``) while its process
  group is still alive tells the others how many collectives it started in each group. A
  rank waiting for collective #5 learns that the exited rank started only 4: it will never
  come, so the wait ends with an error naming it.
* **Status requests.** When a wait reaches the timeout, the rank asks the others where they
  are. A rank waiting somewhere answers (its own collective and count); a rank busy outside
  any collective, stuck, or gone does not. The timeout error lists both.

Waiting itself polls the request (``MPI_Test``) in a loop, and the control channel every 20 ms:
first spinning (low latency for the small messages of a training step, yielding the core now and
then), after a second sleeping a millisecond between polls (a straggler is late anyway). Only one
thread calls MPI at a time.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import time
import traceback

__all__ = ["DistError", "DistBackendError", "DistStoreError", "Watchdog"]

_NOTICE = 7001  # the one tag on the control channel; the payload is a small tuple (pickled by mpi4py)
_ACK_GRACE_SECONDS = 2.0  # how long a failed rank waits for the others to acknowledge its notice
_SPIN_SECONDS = 1.0  # poll without sleeping this long, then sleep between polls
_CHECK_EVERY = 0.02  # seconds between two reads of the control channel while spinning


class DistError(RuntimeError):
    """Raised when an error occurs in the distributed library (PyTorch's class of the same name)."""


class DistBackendError(DistError):
    """A collective could not finish: a rank failed, exited or timed out. ``rank`` names the culprit."""

    def __init__(self, message: str, rank: int | None = None, secondary: bool = False):
        super().__init__(message)
        self.rank = rank
        self.secondary = secondary  # caused by another rank's failure, which has already told everyone


class DistStoreError(DistError):
    """Not every rank joined ``init_process_group`` within the timeout (PyTorch's class of the same name)."""


class Watchdog:
    """The control channel of one job: sends and reads notices, waits for requests with a timeout."""

    def __init__(self, mpi, control_comm, timeout_seconds: float, run_dir: str | None):
        self.mpi = mpi
        self.comm = control_comm
        self.rank = control_comm.Get_rank()
        self.size = control_comm.Get_size()
        self.timeout = timeout_seconds
        self.run_dir = run_dir
        self.failed: dict[int, str] = {}  # rank -> its error, from failure notices
        self.exited: dict[int, dict] = {}  # rank -> {group id: collectives it started}, from exit notices
        self.statuses: dict[int, tuple] = {}  # rank -> (its group counters, where it waits), from status replies
        self.acknowledged: set[int] = set()
        self.issued: dict[int, int] = {}  # group id -> collectives this rank started in it
        self.waiting_in = None  # the description of the collective this rank waits for, if any
        self.active = True
        self._sends = []
        self._previous_excepthook = sys.excepthook
        sys.excepthook = self._excepthook
        atexit.register(self._at_exit)

    # -- the control channel ---------------------------------------------------------
    def _send(self, destination: int, payload: tuple) -> None:
        self._sends.append(self.comm.isend(payload, dest=destination, tag=_NOTICE))

    def _send_to_all(self, payload: tuple) -> None:
        for other in range(self.size):
            if other != self.rank:
                self._send(other, payload)

    def _flush_sends(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while self._sends and time.monotonic() < deadline:
            self._sends = [request for request in self._sends if not request.Test()]
            time.sleep(0.001)

    def read_notices(self) -> None:
        """Read every notice that has arrived; answer status requests."""
        while self.comm.iprobe(source=self.mpi.ANY_SOURCE, tag=_NOTICE):
            kind, sender, payload = self.comm.recv(source=self.mpi.ANY_SOURCE, tag=_NOTICE)
            if kind == "failed":
                self.failed.setdefault(sender, payload)
            elif kind == "exited":
                self.exited[sender] = payload
            elif kind == "status?":
                waiting_in = self.waiting_in() if self.waiting_in is not None else None
                self._send(sender, ("status", self.rank, (dict(self.issued), waiting_in)))
            elif kind == "status":
                self.statuses[sender] = payload
            elif kind == "ack":
                self.acknowledged.add(sender)

    # -- waiting ---------------------------------------------------------------------
    def wait(self, test, describe, group_id: int, sequence: int, members, timeout_seconds=None) -> None:
        """Poll ``test()`` until it says done; raise ``DistBackendError`` naming the rank that keeps it from it.

        ``describe()`` says what is waited for ("all_reduce (collective #3 of group 0, ...)"; made
        only when needed), ``sequence`` is its number in its group (0 for point-to-point),
        ``members`` the global ranks that must join it.
        """
        if test():
            return
        timeout = self.timeout if timeout_seconds is None else timeout_seconds
        start = time.monotonic()
        next_check = start + _CHECK_EVERY
        self.waiting_in = describe
        polls = 0
        try:
            while not test():
                polls += 1
                if polls % 64:
                    continue  # spin, as MPI's own blocking calls do: the other ranks are about to answer
                now = time.monotonic()
                if now >= next_check:
                    self.read_notices()
                    self._raise_if_a_member_is_gone(describe(), group_id, sequence, members)
                    if now - start > timeout:
                        self._raise_timeout(test, describe(), group_id, sequence, members, now - start)
                    next_check = now + _CHECK_EVERY
                if now - start > _SPIN_SECONDS:
                    time.sleep(0.001)
                else:
                    os.sched_yield()  # give the core away now and then: several ranks may share one
        finally:
            self.waiting_in = None

    def _raise_if_a_member_is_gone(self, description, group_id, sequence, members) -> None:
        for rank, error in self.failed.items():
            if rank in members:
                raise DistBackendError(
                    f"rank {rank} failed, so rank {self.rank} stops waiting in {description}.\n"
                    f"rank {rank}'s error: {error}", rank=rank, secondary=True)
        for rank, counters in self.exited.items():
            if rank in members and (sequence == 0 or counters.get(group_id, 0) < sequence):
                started = counters.get(group_id, 0)
                raise DistBackendError(
                    f"rank {rank} exited (its script ended) before joining {description}: it had started "
                    f"{started} collectives in that group; rank {self.rank} stops waiting.", rank=rank)

    def _raise_timeout(self, test, description, group_id, sequence, members, waited) -> None:
        others = [rank for rank in members if rank != self.rank]
        self.statuses = {}
        for rank in others:
            self._send(rank, ("status?", self.rank, None))
        deadline = time.monotonic() + min(2.0, max(self.timeout, 0.1))
        while time.monotonic() < deadline and len(self.statuses) < len(others):
            if test():
                return  # it finished after all
            self.read_notices()
            time.sleep(0.001)
        lines, culprits = [], []
        for rank in others:
            status = self.statuses.get(rank)
            if status is None:
                culprits.append(rank)
                lines.append(f"rank {rank} did not answer (busy outside any collective, stuck, or gone)")
                continue
            counters, waiting_in = status
            if sequence and counters.get(group_id, 0) < sequence:
                culprits.append(rank)
                where = f"waiting in {waiting_in}" if waiting_in else "between collectives"
                lines.append(f"rank {rank} has not reached it: it started {counters.get(group_id, 0)} collectives "
                             f"in this group and is {where}")
        if not culprits:
            lines.append("every other rank has reached it; the transfer itself is slow or stuck")
        raise DistBackendError(
            f"Timed out after {waited:.1f} seconds: rank {self.rank} waited in {description}.\n" + "\n".join(lines),
            rank=culprits[0] if culprits else None)

    # -- ending ----------------------------------------------------------------------
    def _excepthook(self, kind, error, trace) -> None:
        """An exception escaped this rank's script: say so, tell the others, end the whole job."""
        self._previous_excepthook(kind, error, trace)
        secondary = isinstance(error, DistBackendError) and error.secondary
        first_line = "".join(traceback.format_exception_only(kind, error)).strip()
        sys.stderr.write(f"minitorch.distributed: rank {self.rank} failed: {first_line.splitlines()[0]}\n")
        record_error(self.run_dir, self.rank, first_line, secondary)
        if self.active:
            try:
                if secondary:
                    self._send(error.rank, ("ack", self.rank, None))
                    self._flush_sends(1.0)
                else:
                    self._send_to_all(("failed", self.rank, first_line))
                    self._flush_sends(1.0)
                    self._wait_for_acknowledgements()
            except Exception:  # the control channel itself is broken: just end
                pass
        _end_process(1)

    def _wait_for_acknowledgements(self) -> None:
        deadline = time.monotonic() + min(_ACK_GRACE_SECONDS, self.timeout)
        answered = lambda: len(self.acknowledged | set(self.failed) | set(self.exited))  # noqa: E731
        while time.monotonic() < deadline and answered() < self.size - 1:
            self.read_notices()
            time.sleep(0.002)

    def _at_exit(self) -> None:
        """The script ended: if the process group is still alive, tell the others how far this rank got."""
        if self.active:
            try:
                self._send_to_all(("exited", self.rank, dict(self.issued)))
                self._flush_sends(1.0)
            except Exception:
                pass

    def close(self) -> None:
        """The process group is destroyed: no more notices (pending sends are finished or dropped)."""
        if self.active:
            self.active = False
            self._flush_sends(0.5)
            if sys.excepthook is self._excepthook:
                sys.excepthook = self._previous_excepthook


for _error_class in (DistError, DistBackendError, DistStoreError):
    _error_class.__module__ = "minitorch.distributed"  # tracebacks name them where users import them from


def record_error(run_dir: str | None, rank, text: str, secondary: bool = False) -> None:
    """Leave the error for the launcher (``run.py``), which names the rank that failed first with it.

    ``secondary``: this rank stopped because another one failed (that one is the cause).
    """
    if run_dir:
        try:
            with open(os.path.join(run_dir, f"rank-{rank}.error"), "a") as file:
                file.write(json.dumps({"time": time.time(), "error": text, "secondary": secondary}) + "\n")
        except OSError:
            pass


def _end_process(code: int) -> None:
    """End now, without MPI's collective shutdown (which would wait for every other rank)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)
