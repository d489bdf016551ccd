"""The launcher: ``python -m minitorch.distributed.run --nproc-per-node N script.py args...``.

Like PyTorch's ``torchrun``, it starts N copies of the script, one per rank, and sets in
each the variables ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``,
``MASTER_ADDR`` and ``MASTER_PORT`` (127.0.0.1 and a free port, unless already set), and
``OMP_NUM_THREADS=1`` unless set (N processes times several BLAS threads would fight over
the cores). The processes are started by MPI's own launcher, ``mpiexec``, taken from beside
this Python (``pip install mpich`` puts it in the virtual environment's ``bin``), never from
``PATH``; ``init_process_group("mpi")`` then connects them.

Failures end the job: when a rank's script raises or exits with an error, the other ranks
stop (they are told, or they time out), the launcher reports which rank failed and how,
makes sure no process of the job is left, and exits with that rank's exit code::

    minitorch.distributed.run: rank 1 (local rank 1) failed with exit code 1: ValueError: bad batch

An exception raised before ``init_process_group`` is named the same way. If the launcher itself
dies, even by SIGKILL, ``mpiexec`` gets the parent-death signal and each rank's wrapper sees the
launcher gone and ends its rank, so nothing of the job keeps running.

Several machines (not tested here): give the host names, N processes on each; the same
Python environment and script must exist at the same path on every machine, and ``mpiexec``
reaches them by ``ssh`` without a password::

    python -m minitorch.distributed.run --hosts node1,node2 --nproc-per-node 4 train.py

(``mpiexec -n 8 -hosts node1,node2 -ppn 4 python train.py`` is the same job by hand.)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._rank_wrapper import _die_with_parent, process_identity
from .distributed_c10d import RUN_DIR_VARIABLE

_GRACE_SECONDS = 3.0  # after a rank failed: how long the others get to stop by themselves


def find_mpiexec() -> str:
    """``mpiexec`` from this Python's own ``bin`` folder (the virtual environment's or conda's)."""
    candidates = [Path(sys.executable).parent / "mpiexec", Path(sys.prefix) / "bin" / "mpiexec"]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise FileNotFoundError(
        f"mpiexec was not found beside {sys.executable}: install MPI into this environment with "
        "pip install mpi4py mpich (or the 'distributed' extra; conda: conda install -c conda-forge mpi4py mpich)")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _parse(argv):
    parser = argparse.ArgumentParser(
        prog="python -m minitorch.distributed.run",
        description="Start a script in N processes (ranks) through mpiexec, like torchrun.")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1, dest="nproc_per_node",
                        help="processes per machine (default 1)")
    parser.add_argument("--hosts", default=None, help="comma-separated machines to run on (untested here)")
    parser.add_argument("--master-addr", "--master_addr", default=None, dest="master_addr")
    parser.add_argument("--master-port", "--master_port", type=int, default=None, dest="master_port")
    parser.add_argument("-m", "--module", action="store_true", help="run the script argument as a module (python -m)")
    parser.add_argument("script", help="the training script (or module, with -m)")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    return parser.parse_args(argv)


def command_for(args, run_dir: str) -> list[str]:
    """The mpiexec command line: each rank runs ``_rank_wrapper.py``, which runs the script."""
    hosts = [h for h in (args.hosts or "").split(",") if h]
    processes = args.nproc_per_node * max(len(hosts), 1)
    command = [find_mpiexec(), "-n", str(processes)]
    if hosts:
        command += ["-hosts", ",".join(hosts), "-ppn", str(args.nproc_per_node)]
    wrapper = str(Path(__file__).with_name("_rank_wrapper.py"))
    target = ["-m", args.script] if args.module else [args.script]
    return command + [sys.executable, wrapper, run_dir, *target, *args.script_args]


def _records(run_dir: str, suffix: str) -> dict[int, str]:
    found = {}
    for name in os.listdir(run_dir):
        if name.startswith("rank-") and name.endswith(suffix):
            with open(os.path.join(run_dir, name)) as file:
                found[int(name[len("rank-"):-len(suffix)])] = file.read()
    return found


def _errors(run_dir: str) -> list[tuple[float, int, dict]]:
    """Every error a rank recorded (``watchdog.record_error``), as (time, rank, record)."""
    found = []
    for rank, text in _records(run_dir, ".error").items():
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:  # the rank is still writing this line; the next poll reads it whole
                continue
            found.append((record["time"], rank, record))
    return sorted(found, key=lambda item: item[:2])


def _first_failure(run_dir: str):
    """The rank that failed first, as (rank, message), or None.

    A rank's own error wins over the errors of ranks that stopped because of it (secondary);
    a rank that ended badly without recording an error (``os._exit``, a signal) is next.
    """
    errors = _errors(run_dir)
    exits = {rank: json.loads(text) for rank, text in _records(run_dir, ".exit").items()}
    primary = [item for item in errors if not item[2]["secondary"]]
    if primary:
        _, rank, record = primary[0]
        return rank, f"rank {rank}{_how(exits.get(rank))}: {record['error']}"
    bad_exits = sorted((record["time"], rank, record) for rank, record in exits.items() if record["exit_code"] != 0)
    if bad_exits:
        _, rank, record = bad_exits[0]
        return rank, (f"rank {rank}{_how(record)}" + (" (it exited without a Python exception: sys.exit or os._exit)"
                                                       if record["exit_code"] is not None else ""))
    if errors:
        _, rank, record = errors[0]
        return rank, f"rank {rank}{_how(exits.get(rank))}: {record['error']}"
    return None


def _how(record: dict | None) -> str:
    if record is None:
        return " failed"
    if record["exit_code"] is not None:
        return f" (local rank {record['local_rank']}) failed with exit code {record['exit_code']}"
    return f" (local rank {record['local_rank']}) was killed by signal {signal.Signals(record['signal']).name}"


def _kill_everything(job: subprocess.Popen, run_dir: str) -> None:
    """No process of the job outlives it: mpiexec's process group, then every rank's script by pid."""
    try:
        os.killpg(job.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for text in _records(run_dir, ".pid").values():
        try:
            os.kill(int(text), signal.SIGKILL)
        except (ProcessLookupError, ValueError, PermissionError):
            pass
    try:
        job.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def run(argv=None) -> int:
    args = _parse(sys.argv[1:] if argv is None else argv)
    if args.nproc_per_node < 1:
        raise SystemExit("--nproc-per-node must be at least 1")
    run_dir = tempfile.mkdtemp(prefix="minitorch-run-")
    environment = dict(os.environ)
    environment[RUN_DIR_VARIABLE] = run_dir
    environment.setdefault("MASTER_ADDR", args.master_addr or "127.0.0.1")
    environment.setdefault("MASTER_PORT", str(args.master_port or _free_port()))
    if args.nproc_per_node > 1:
        environment.setdefault("OMP_NUM_THREADS", "1")
    if os.path.exists(f"/proc/{os.getpid()}/stat"):  # Linux: ranks end by themselves if the launcher dies
        environment["MINITORCH_LAUNCHER"] = process_identity(os.getpid())
    job = subprocess.Popen(command_for(args, run_dir), env=environment, start_new_session=True,
                           preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    interrupted = []

    def forward(number, frame):
        interrupted.append(number)
        try:
            os.killpg(job.pid, number)
        except ProcessLookupError:
            pass

    previous = {number: signal.signal(number, forward) for number in (signal.SIGINT, signal.SIGTERM)}
    failed_at = None
    try:
        while job.poll() is None:
            time.sleep(0.05)
            if failed_at is None and _first_failure(run_dir) is not None:
                failed_at = time.monotonic()
            if failed_at is not None and time.monotonic() - failed_at > _GRACE_SECONDS:
                break  # the other ranks did not stop by themselves: stop them
        failure = _first_failure(run_dir)
        code = job.returncode if job.returncode is not None else 1
        if failure is not None:
            rank, message = failure
            sys.stderr.write(f"minitorch.distributed.run: {message}\n")
            exit_record = _records(run_dir, ".exit").get(rank)
            code = (json.loads(exit_record)["exit_code"] if exit_record else None) or 1
        elif interrupted:
            sys.stderr.write("minitorch.distributed.run: interrupted; the job was stopped\n")
            code = 128 + interrupted[0]
        elif code != 0:
            sys.stderr.write(f"minitorch.distributed.run: mpiexec ended with exit code {code}\n")
        return code
    finally:
        _kill_everything(job, run_dir)
        for number, handler in previous.items():
            signal.signal(number, handler)
        shutil.rmtree(run_dir, ignore_errors=True)


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
