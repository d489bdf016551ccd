"""One rank of a job started by ``minitorch.distributed.run`` (run by ``mpiexec``, by path).

``mpiexec`` starts this small program once per rank; it sets the variables that ``torchrun``
sets (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``) from MPI's, starts the
learner's script as a child process (which inherits MPI's connection to ``mpiexec``), and
records how the child ended in the launcher's run folder: exit code or signal. That record
is how the launcher names the rank that failed. The child is killed if this process dies
(Linux's parent-death signal), and SIGINT/SIGTERM are passed on to it.

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
    child = subprocess.Popen([sys.executable, *command], env=environment, pass_fds=inherited,
                             preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    _write_record(run_dir, f"rank-{rank}.pid", str(child.pid))
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signal_number, lambda number, frame: child.send_signal(number))
    code = child.wait()
    record = {"rank": int(rank), "local_rank": int(environment["LOCAL_RANK"]), "time": time.time(),
              "exit_code": code if code >= 0 else None, "signal": -code if code < 0 else None}
    _write_record(run_dir, f"rank-{rank}.exit", json.dumps(record))
    return code if code >= 0 else 128 - code


def _write_record(run_dir: str, name: str, text: str) -> None:
    """Write a record whole or not at all: the launcher polls the folder and must never read half of one."""
    partial = os.path.join(run_dir, f".{name}.partial")  # a name the launcher does not read
    with open(partial, "w") as file:
        file.write(text)
    os.replace(partial, os.path.join(run_dir, name))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
