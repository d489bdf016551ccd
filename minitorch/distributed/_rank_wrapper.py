"""One rank of a job started by ``minitorch.distributed.run`` (run by ``mpiexec``, by path).

``mpiexec`` starts this small program once per rank; it sets the variables that ``torchrun``
sets (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``) from MPI's, starts the
learner's script as a child process (which inherits MPI's connection to ``mpiexec``), and
records how the child ended in the launcher's run folder: exit code or signal. That record
is how the launcher names the rank that failed. The child is killed if this process dies
(Linux's parent-death signal), and SIGINT/SIGTERM are passed on to it. The child runs the
script through ``_rank_main.py``, which records an exception raised before ``init_process_group``.

The launcher may die however it dies (SIGKILL included, when nothing of it can clean up): this
wrapper checks twice a second that the launcher named in ``MINITORCH_LAUNCHER`` (its pid and
start time, so a reused pid does not fool it) is alive, and ends its rank when it is not.

It imports nothing from minitorch, so it starts in milliseconds.
"""

import json
import os
import signal
import subprocess
import sys
import time


def _die_with_parent() -> None:
    """In the child, before the script starts: be killed when this wrapper dies (Linux only)."""
    try:
        import ctypes  # inside the try: where libc cannot be loaded, the child just runs on

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def main(argv: list[str]) -> int:
    run_dir, command = argv[0], argv[1:]
    rank = os.environ.get("PMI_RANK", "0")
    environment = dict(os.environ)
    environment.update(
        RANK=rank,
        WORLD_SIZE=os.environ.get("PMI_SIZE", "1"),
        LOCAL_RANK=os.environ.get("MPI_LOCALRANKID", rank),
        LOCAL_WORLD_SIZE=os.environ.get("MPI_LOCALNRANKS", os.environ.get("PMI_SIZE", "1")),
    )
    inherited = tuple(int(os.environ[name]) for name in ("PMI_FD",) if os.environ.get(name, "").isdigit())
    rank_main = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_rank_main.py")
    child = subprocess.Popen([sys.executable, rank_main, *command], env=environment, pass_fds=inherited,
                             preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    _write_record(run_dir, f"rank-{rank}.pid", str(child.pid))
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signal_number, lambda number, frame: child.send_signal(number))
    launcher = os.environ.get("MINITORCH_LAUNCHER", "")
    while True:
        try:
            code = child.wait(timeout=0.5)
            break
        except subprocess.TimeoutExpired:
            if launcher and not _alive(launcher):  # the launcher is gone: nobody will collect this job
                child.kill()
                child.wait()
                return 128 + signal.SIGKILL
    record = {"rank": int(rank), "local_rank": int(environment["LOCAL_RANK"]), "time": time.time(),
              "exit_code": code if code >= 0 else None, "signal": -code if code < 0 else None}
    _write_record(run_dir, f"rank-{rank}.exit", json.dumps(record))
    return code if code >= 0 else 128 - code


def process_identity(pid: int) -> str:
    """``pid:start time`` (the 22nd field of /proc/PID/stat): names one process, even after its pid is reused."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return f"{pid}:{fields[19]}"


def _alive(identity: str) -> bool:
    try:
        return process_identity(int(identity.split(":")[0])) == identity
    except (OSError, ValueError, IndexError):
        return False


def _write_record(run_dir: str, name: str, text: str) -> None:
    """Write a record whole or not at all: the launcher polls the folder and must never read half of one."""
    partial = os.path.join(run_dir, f".{name}.partial")  # a name the launcher does not read
    with open(partial, "w") as file:
        file.write(text)
    os.replace(partial, os.path.join(run_dir, name))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
