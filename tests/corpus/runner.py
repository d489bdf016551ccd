"""Run corpus programs under one library: import it once, then fork a fresh process per program.

    python tests/corpus/runner.py {pytorch|minitorch} OUT.json PROGRAM.py [PROGRAM.py ...]

Importing PyTorch takes seconds, far longer than most corpus programs run, so this runner pays
for the import once and forks: each program runs in a child that starts from the state right
after the import (nothing any other program did), in its own empty folder, with its stdout and
stderr captured to files. The result, ``{program: {"returncode", "stdout", "stderr"}}``, is written
to OUT.json. For ``minitorch``, the corpus shim (``tests/corpus/shim/sitecustomize.py``) must be
first on ``PYTHONPATH``: it is imported at start-up and maps ``torch`` to ``minitorch``.

``CORPUS_JOBS`` children run at once (default 1); ``CORPUS_TIMEOUT_S`` (default 120) ends a
child that runs too long.
"""

from __future__ import annotations

import json
import os
import runpy
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path


def _child(program: Path, folder: str, stdout_path: str, stderr_path: str) -> None:
    """In the forked child: run ``program`` as ``__main__`` and exit with its status."""
    os.chdir(folder)
    for stream_number, path in ((1, stdout_path), (2, stderr_path)):
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(descriptor, stream_number)
        os.close(descriptor)
    status = 0
    sys.argv = [str(program)]
    sys.path[0:0] = [str(program.parent)]
    try:
        runpy.run_path(str(program), run_name="__main__")
    except SystemExit as exit_request:
        status = exit_request.code if isinstance(exit_request.code, int) else (0 if exit_request.code is None else 1)
    except BaseException:  # noqa: BLE001 - any failure of the program is its result, reported in full
        traceback.print_exc()
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(status)


def run_all(programs: list[Path], jobs: int, timeout_s: float) -> dict[str, dict]:
    results: dict[str, dict] = {}
    pending = list(programs)
    running: dict[int, tuple[Path, float, tempfile.TemporaryDirectory, str, str]] = {}
    while pending or running:
        while pending and len(running) < jobs:
            program = pending.pop(0)
            folder = tempfile.TemporaryDirectory(prefix=f"corpus-{program.stem}-")
            stdout_path = os.path.join(folder.name, ".stdout")
            stderr_path = os.path.join(folder.name, ".stderr")
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(program, folder.name, stdout_path, stderr_path)
            running[pid] = (program, time.monotonic(), folder, stdout_path, stderr_path)
        time.sleep(0.01)
        for pid, (program, started, folder, stdout_path, stderr_path) in list(running.items()):
            finished, wait_status = os.waitpid(pid, os.WNOHANG)
            timed_out = False
            if finished == 0:
                if time.monotonic() - started < timeout_s:
                    continue
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                timed_out, wait_status = True, None
            with open(stdout_path, encoding="utf-8", errors="replace") as stdout_file:
                stdout = stdout_file.read()
            with open(stderr_path, encoding="utf-8", errors="replace") as stderr_file:
                stderr = stderr_file.read()
            if timed_out:
                returncode, stderr = -9, stderr + f"\ntimed out after {timeout_s} s"
            else:
                returncode = os.waitstatus_to_exitcode(wait_status)
            results[program.stem] = {
                "returncode": returncode, "stdout": stdout, "stderr": stderr,
                "seconds": round(time.monotonic() - started, 3),
            }
            folder.cleanup()
            del running[pid]
    return results


def _warm_up(torch) -> None:
    """Run PyTorch's first-call set-up (kernel registration, autograd engine) once, before forking.

    Without it every child pays that set-up again: seconds per program on a busy 2-core machine.
    """
    layer = torch.nn.Linear(4, 3)
    loss = torch.nn.functional.cross_entropy(layer(torch.ones(2, 4)), torch.tensor([0, 1]))
    loss.backward()
    torch.optim.SGD(layer.parameters(), lr=0.1).step()
    torch.nn.functional.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)).sum().item()


def main(arguments: list[str]) -> None:
    library, out_path, *programs = arguments
    if library == "pytorch":
        import torch

        torch.set_num_threads(1)  # several programs run side by side; one thread each
        _warm_up(torch)
    elif library == "minitorch":
        if "sitecustomize" not in sys.modules or not any(
            type(finder).__name__ == "TorchAliasFinder" for finder in sys.meta_path
        ):
            raise SystemExit("runner: the corpus shim is not on PYTHONPATH (tests/corpus/shim first)")
        import torch  # noqa: F401 - minitorch, through the shim
    else:
        raise SystemExit(f"runner: unknown library {library!r} (pytorch or minitorch)")
    import numpy  # noqa: F401 - most programs use it; import once here, not in every child

    paths = [Path(program).resolve() for program in programs]
    if any("sklearn" in path.read_text() for path in paths):
        import sklearn.datasets  # noqa: F401 - the bundled digits stand in for MNIST; its import takes seconds
    jobs = int(os.environ.get("CORPUS_JOBS", "1"))
    timeout_s = float(os.environ.get("CORPUS_TIMEOUT_S", "120"))
    results = run_all(paths, jobs, timeout_s)
    Path(out_path).write_text(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1:])
