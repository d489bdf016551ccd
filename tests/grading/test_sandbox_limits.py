"""Limits that only the kernel can count, tested by really allocating: memfds, a tmpfs in a new user
namespace, fallocate, /dev and /dev/shm, processes, and 31 CPU spinners next to a neighbour.

These run the real runner in bubblewrap (tests/grading/test_sandbox.py's ``run_cells``). The memory
and CPU tests need control groups (root with cgroup v1 here and in CI, or a delegated v2 group); they
skip, with the reason, where the grader falls back to per-process limits.
"""

from __future__ import annotations

import statistics
import threading
import time

import pytest

from grading import sandbox
from tests.grading.fixtures.make_fixtures import FALLOCATE_1GB, MEMFD_3GB, USERNS_TMPFS, WRITE_EVERYWHERE
from tests.grading.test_sandbox import _printed, run_cells
from tests.support import in_ci


def require_cgroups():
    support = sandbox.cgroup_support()
    if support.version is None:
        message = f"control groups are not available to the grader here: {support.reason}"
        if in_ci():
            pytest.fail(message + " -- CI runs as root with cgroups")
        pytest.skip(message)
    return support


def test_memory_in_memfds_counts(tmp_path):
    """3 GiB written into memfds (no process's resident memory) against a 512 MiB limit."""
    require_cgroups()
    outcome = run_cells(tmp_path, [MEMFD_3GB], memory_bytes=512 * 1024**2, step_seconds=60)
    assert outcome.killed == "memory", _printed(outcome)
    assert outcome.peak_memory_bytes <= 512 * 1024**2
    assert outcome.limits_by.startswith("cgroup")


def test_memory_in_tmp_counts(tmp_path):
    """/tmp is a tmpfs; its pages count against the group's memory even below the tmpfs's own size."""
    require_cgroups()
    cell = "for n in range(7):\n    with open(f'/tmp/x{n}', 'wb') as f:\n        f.write(b'x' * 60 * 1024**2)"
    outcome = run_cells(tmp_path, [cell], memory_bytes=256 * 1024**2, tmp_bytes=1024**3, step_seconds=60)
    assert outcome.killed == "memory", _printed(outcome)
    assert outcome.peak_memory_bytes <= 256 * 1024**2


def test_no_user_namespace_inside(tmp_path):
    outcome = run_cells(tmp_path, [USERNS_TMPFS])
    assert "user namespace refused: Operation not permitted" in _printed(outcome)
    assert outcome.killed is None


def test_fallocate_counts_against_the_disk_limit(tmp_path):
    """fallocate(KEEP_SIZE) reserves blocks without changing the file's size: the output folder's
    tmpfs refuses it (root), or the supervisor, which counts blocks, stops the sandbox."""
    outcome = run_cells(tmp_path, [FALLOCATE_1GB], disk_bytes=256 * 1024**2)
    text = _printed(outcome)
    assert "fallocate: -1" in text or outcome.killed == "disk", text  # ENOSPC or EFBIG


def test_dev_is_read_only_and_writable_places_are_small(tmp_path):
    outcome = run_cells(tmp_path, [WRITE_EVERYWHERE], disk_bytes=128 * 1024**2, tmp_bytes=32 * 1024**2)
    text = _printed(outcome)
    assert "refused /dev/hoard Read-only file system" in text
    assert "refused /dev/shm/hoard No space left on device" in text
    assert "wrote 512 MiB" not in text
    assert outcome.killed in (None, "disk")


def test_processes_are_bounded_by_the_group(tmp_path):
    """pids.max holds even for code that survives its fork errors; no child outlives the sandbox."""
    require_cgroups()
    cell = """
import os, time
started = 0
for _ in range(100):
    try:
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        started += 1
    except OSError:
        pass
print("children started:", started)
"""
    outcome = run_cells(tmp_path, [cell], processes=8)
    started = int(_printed(outcome).split("children started:")[1].split()[0])
    assert started <= 7


NEIGHBOUR = """
import time
started = time.perf_counter()
total = 0
for number in range(3_000_000):
    total += number
print("neighbour took", time.perf_counter() - started)
"""

SPINNERS = """
import os, time
for _ in range(31):
    if os.fork() == 0:
        os.setsid()  # a session each: the kernel's autogroup would otherwise share the CPU by session
        while True:
            pass
open("/sandbox/out/spinning", "w").close()  # the test waits for this before it starts the neighbour
while not os.path.exists("/sandbox/task/stop"):  # and puts this in the (read-only) task folder after it
    time.sleep(0.05)
"""


def _spin(folder):
    """Start a sandbox with 31 spinners in a thread; return it once they spin (``_stop`` ends them)."""
    spinner = threading.Thread(
        target=run_cells, args=(folder, [SPINNERS]), kwargs={"cpus": 1.0, "step_seconds": 20, "processes": 64}
    )
    spinner.start()
    stop = time.monotonic() + 60
    while not (folder / "out" / "spinning").exists():
        assert time.monotonic() < stop and spinner.is_alive(), "the spinners never started"
        time.sleep(0.05)
    return spinner


def _stop(folder, spinner) -> None:
    (folder / "task" / "stop").touch()
    spinner.join()


def _neighbour_seconds(tmp_path, label: str) -> float:
    outcome = run_cells(tmp_path / label, [NEIGHBOUR], cpus=1.0)
    return float(_printed(outcome).split("neighbour took")[1].split()[0])


@pytest.mark.serial  # it compares wall-clock times: make test runs it alone, after the parallel part
def test_cpu_spinners_do_not_slow_the_neighbour(tmp_path):
    """31 spinning processes in one sandbox; the neighbour's loop, in another, keeps within 2x of its
    time alone. Both sandboxes get the share --jobs 2 gives on this machine (one core each). On a busy
    machine the times are noisy: each is the median of three runs, alone and beside the spinners,
    measured alternately so that both see the same background load."""
    require_cgroups()
    alone, beside = [], []
    for round_number in range(3):
        alone.append(_neighbour_seconds(tmp_path, f"alone{round_number}"))
        spinner = _spin(tmp_path / f"spin{round_number}")
        beside.append(_neighbour_seconds(tmp_path, f"beside{round_number}"))
        _stop(tmp_path / f"spin{round_number}", spinner)
    assert statistics.median(beside) < 2 * statistics.median(alone), (alone, beside)
