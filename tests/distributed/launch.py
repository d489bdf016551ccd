"""Run a script in several real processes, as a learner would: ``mpiexec`` or the launcher, from this Python's ``bin``.

CI runs with a system-only ``PATH``: ``mpiexec`` is taken from beside ``sys.executable`` (where
``pip install mpich`` puts it), never from ``PATH``. Every run has a hard timeout, and
``leftover_processes`` finds any process of a run still alive afterwards (checked by the fault
tests: no rank may outlive its job).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import in_ci, require

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).resolve().parent / "scripts"


def mpiexec_path() -> str:
    require("mpi4py", "minitorch.distributed's MPI backend (pip install mpi4py mpich)")
    path = Path(sys.executable).parent / "mpiexec"
    if not path.exists():
        message = f"mpiexec is not beside {sys.executable} (pip install mpich)"
        if in_ci():
            pytest.fail(message + " -- MINITORCH_CI=1 requires it")
        pytest.skip(message)
    return str(path)


def _environment(extra=None) -> dict:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(SCRIPTS)] + (
        [environment["PYTHONPATH"]] if environment.get("PYTHONPATH") else []))
    environment.setdefault("OMP_NUM_THREADS", "1")
    environment.update(extra or {})
    return environment


def run_mpiexec(processes: int, script: str, *args, timeout: float = 120, env=None) -> subprocess.CompletedProcess:
    """``mpiexec -n processes python scripts/script args...``; fails the test with the output if it fails."""
    command = [mpiexec_path(), "-n", str(processes), sys.executable, str(SCRIPTS / script), *map(str, args)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=_environment(env), cwd=ROOT)
    assert result.returncode == 0, f"{command} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result


def run_launcher(processes: int, script: str, *args, timeout: float = 120, env=None) -> subprocess.CompletedProcess:
    """``python -m minitorch.distributed.run --nproc-per-node processes scripts/script args...`` (not checked)."""
    mpiexec_path()
    command = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", str(processes),
               str(SCRIPTS / script), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=_environment(env), cwd=ROOT)


def leftover_processes(marker: str) -> list[str]:
    """Command lines of live processes that mention ``marker`` (a run's unique folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = next((line for line in (entry / "status").read_text().splitlines() if line.startswith("State:")),
                         "")
        except OSError:
            continue
        if marker in command and "zombie" not in state:
            found.append(f"{entry.name}: {command}")
    return found
