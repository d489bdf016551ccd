"""The sandbox on its own: limits that hold, nothing of the host visible, a clear refusal without one.

Each test runs a few cells through the real runner in bubblewrap with small limits (the process
limit is checked with a cap of 6 before any fixture fork bomb runs with 32).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from grading import sandbox
from tests.grading.conftest import require_bwrap
from tests.grading.fixtures.make_fixtures import SECRET

REPOSITORY = Path(__file__).resolve().parents[2]


def run_cells(tmp_path: Path, cells: list[str], **limit_options) -> sandbox.RunOutcome:
    """Run ``cells`` through the runner in a bubblewrap sandbox (no graded parts)."""
    require_bwrap()
    backend = sandbox.Bubblewrap()
    limits = sandbox.Limits(**{"step_seconds": 5.0, "submission_seconds": 30.0, **limit_options})
    task, out = tmp_path / "task", tmp_path / "out"
    tmp_path.mkdir(parents=True, exist_ok=True)
    task.mkdir(mode=0o755)
    out.mkdir(mode=0o700)
    uid = sandbox.job_uid(63) if backend.switch_user else None
    if not sandbox.mount_output_folder(out, limits, uid) and uid is not None:  # as the grader does
        os.chown(out, uid, uid)
    np.savez(task / "inputs.npz")
    plan = {
        "cells": [[index, source] for index, source in enumerate(cells)],
        "parts": [],
        "limits": limits.for_runner(),
        "uid": uid,
        "gid": uid,
        "lib": backend.lib_dir,
        "own_pid_namespace": True,
    }
    (task / "plan.json").write_text(json.dumps(plan))
    for path in (task / "plan.json", task / "inputs.npz"):
        path.chmod(0o644)
    try:
        return sandbox.run(backend, task, out, limits, time.monotonic() + limits.submission_seconds)
    finally:
        sandbox.unmount_below(out)


def _printed(outcome: sandbox.RunOutcome) -> str:
    return outcome.output.decode("utf-8", "replace")


def test_process_limit_holds_with_a_small_cap(tmp_path):
    cell = """
import os, time
count = 0
try:
    for _ in range(50):
        if os.fork() == 0:
            time.sleep(3)
            os._exit(0)
        count += 1
except OSError as error:
    print("fork refused:", type(error).__name__)
print("children started:", count)
"""
    outcome = run_cells(tmp_path, [cell], processes=6)
    text = _printed(outcome)
    assert "fork refused: BlockingIOError" in text
    started = int(text.split("children started:")[1].split()[0])
    assert started <= 5  # the runner itself counts as one of the 6
    assert outcome.killed is None and outcome.seconds < 10  # leftover children were killed after the cell


def test_memory_is_bounded_per_process_and_in_total(tmp_path):
    big = "try:\n    block = bytearray(6 * 1024**3)\nexcept MemoryError:\n    print('6 GB refused')"
    many = """
import os, time
for _ in range(4):
    if os.fork() == 0:
        block = bytearray(200 * 1024 * 1024)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(20)
        os._exit(0)
time.sleep(20)
"""
    outcome = run_cells(tmp_path, [big, many], memory_bytes=600 * 1024**2, step_seconds=25)
    assert "6 GB refused" in _printed(outcome)
    assert outcome.killed == "memory"
    assert outcome.seconds < 15


def test_no_network_even_to_localhost(tmp_path, server):
    cell = f"""
import socket
for host, port in (("127.0.0.1", {server.port}), ("1.1.1.1", 53)):
    try:
        socket.create_connection((host, port), timeout=2).close()
        print("reached", host)
    except OSError as error:
        print("unreachable", host, type(error).__name__)
"""
    text = _printed(run_cells(tmp_path, [cell]))
    assert (
        "unreachable 127.0.0.1" in text
        and "unreachable 1.1.1.1" in text
        and "reached" not in text.replace("unreachable", "")
    )
    assert server.connections == []


def test_what_the_code_can_see_and_touch(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_TEST_SECRET", SECRET)
    cell = f"""
import os, json
report = {{
    "root": sorted(os.listdir("/")),
    "uid": os.getuid(),
    "cwd": os.getcwd(),
    "environment": sorted(os.environ),
    "processes": sorted(p for p in os.listdir("/proc") if p.isdigit()),
    "repository": os.path.exists({str(REPOSITORY)!r}),
    "tests": os.path.exists({str(REPOSITORY / "tests")!r}),
    "capabilities": [line.split()[1] for line in open("/proc/self/status") if line.startswith("CapEff")][0],
}}
writable = {{}}
for path in ("/usr/x", "/sandbox/task/x", "/sandbox/lib/grading/x", "/tmp/x", "/home/student/x", "/x"):
    try:
        open(path, "w").close()
        writable[path] = True
    except OSError:
        writable[path] = False
report["writable"] = writable
print("REPORT" + json.dumps(report))
"""
    text = _printed(run_cells(tmp_path, [cell]))
    report = json.loads(text.split("REPORT", 1)[1].splitlines()[0])
    # Python and its packages are bound at their own paths, so their top folders (wherever this
    # checkout's .venv lives) are visible; nothing else of the host's root is.
    python_tops = {Path(path).parts[1] for path in sandbox.python_paths()}
    system = {"bin", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "proc", "sandbox", "sbin", "tmp", "usr"}
    assert set(report["root"]) <= system | python_tops
    assert report["repository"] is False or REPOSITORY.parts[1] in report["root"]
    assert report["tests"] is False
    assert report["uid"] != 0 and int(report["capabilities"], 16) == 0
    assert report["cwd"] == "/home/student"
    assert "MINITORCH_TEST_SECRET" not in report["environment"]
    assert len(report["processes"]) <= 3  # bwrap's init, the runner, and nothing of the host
    assert report["writable"] == {
        "/usr/x": False,
        "/sandbox/task/x": False,
        "/sandbox/lib/grading/x": False,
        "/tmp/x": True,
        "/home/student/x": True,
        "/x": False,
    }


def test_stored_output_is_capped_and_the_rest_drained(tmp_path):
    outcome = run_cells(tmp_path, ['print("y" * 20_000_000)'], output_bytes=1000)
    assert len(outcome.output) == 1000 and outcome.output_total > 20_000_000
    assert outcome.killed is None


def test_a_cell_that_ignores_its_time_limit_is_killed(tmp_path):
    swallow = "import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except BaseException:\n        pass"
    outcome = run_cells(tmp_path, [swallow], step_seconds=1.0)
    assert outcome.killed == "timeout"
    assert outcome.step == ("cell", 0)
    assert outcome.seconds < 12  # 1 s, the 2 s grace, and the sandbox's start on a busy machine


def test_sandbox_runs_an_empty_submission_after_a_warm_start(tmp_path, capsys):
    """Starting a sandbox, Python, NumPy and minitorch, and running a one-line notebook ends cleanly.

    The time it takes is printed (``-s``), never asserted: speed is measured by benchmarks, and a
    shared CI machine's load decides a wall-clock bound more than the sandbox does."""
    run_cells(tmp_path / "warm", [])  # the first start pays for the disk cache
    started = time.monotonic()
    outcome = run_cells(tmp_path / "timed", ["x = 1"])
    elapsed = time.monotonic() - started
    assert outcome.killed is None and outcome.returncode == 0
    with capsys.disabled():
        print(f"\none empty submission in the sandbox: {elapsed:.2f} s")


def test_bubblewrap_binds_only_what_the_runner_needs(tmp_path):
    require_bwrap()
    command = sandbox.Bubblewrap().command(tmp_path / "task", tmp_path / "out", sandbox.Limits(), "job")
    sources = [command[i + 1] for i, option in enumerate(command) if option in ("--ro-bind", "--bind")]
    writable = [command[i + 1] for i, option in enumerate(command) if option == "--bind"]
    assert writable == [str(tmp_path / "out")]
    assert str(REPOSITORY) not in sources and str(REPOSITORY / "tests") not in sources
    assert str(REPOSITORY / "minitorch") in sources and str(REPOSITORY / "grading" / "checks.py") in sources
    # the answer key and the grader itself stay outside: only the learner-side grading files go in
    inside = str(REPOSITORY / "grading") + "/"
    grading_sources = {
        Path(source).relative_to(REPOSITORY / "grading") for source in sources if source.startswith(inside)
    }
    assert str(REPOSITORY / "grading") not in sources
    assert {str(path) for path in grading_sources} == set(sandbox.LEARNER_GRADING_FILES)
    assert not any(path.parent.name == "exercises" and path.name != "__init__.py" for path in grading_sources)
    assert "--unshare-net" in command and "--unshare-pid" in command and "--clearenv" in command
    assert not any(source in ("/", "/root", "/home", "/work", "/tmp") for source in sources)
    # the private /tmp is mounted before Python's folders, so a virtual environment under /tmp stays visible
    assert command.index("/tmp") < command.index(sandbox.python_paths()[0])
    # PyTorch and the test tools get a stand-in over their folders, after the site-packages bind
    import torch

    torch_folder = str(Path(torch.__file__).parent)
    stand_in = command[command.index(torch_folder) - 1]
    assert command[command.index(torch_folder) - 2] == "--ro-bind" and stand_in.endswith("/package")
    assert (Path(stand_in) / "__init__.py").read_text().startswith("raise ImportError(")


def test_refuses_to_run_without_a_sandbox(tmp_path, monkeypatch, capsys, course):
    from grading import cli

    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    arguments = [str(course["submissions"] / "s3__correct.ipynb"), "--source", str(course["source"])]
    assert cli.main([*arguments, "--out", str(tmp_path / "refused")]) == 2
    error = capsys.readouterr().err
    assert "bubblewrap is not installed" in error and "--no-sandbox" in error
    assert not (tmp_path / "refused").exists()


def test_no_sandbox_runs_with_a_warning(tmp_path, capsys, course):
    from grading import cli

    arguments = [str(course["submissions"] / "s3__correct.ipynb"), "--source", str(course["source"])]
    assert cli.main([*arguments, "--out", str(tmp_path / "open"), "--no-sandbox", "--quiet"]) == 0
    error = capsys.readouterr().err
    assert "WARNING" in error and "no isolation" in error and "fork bomb" in error
    assert "s3__correct,1,2,3,ok" in (tmp_path / "open" / "grades.csv").read_text()


def test_docker_command_and_missing_daemon(tmp_path):
    command = sandbox.docker_command(
        "docker", "python:3.11-slim", tmp_path / "t", tmp_path / "o", sandbox.Limits(), "j"
    )
    text = " ".join(command)
    for flag in ("--network none", "--read-only", "--cap-drop ALL", "--pids-limit 32", "no-new-privileges", "--rm"):
        assert flag in text
    assert f"{tmp_path / 't'}:/sandbox/task:ro" in text and f"{tmp_path / 'o'}:/sandbox/out:rw" in text
    fake = tmp_path / "docker"
    fake.write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(sandbox.SandboxUnavailable, match="daemon does not answer"):
        sandbox.Docker("python:3.11-slim", executable=str(fake))


@pytest.mark.parametrize("available", [True, False])
def test_says_once_which_limits_are_in_force(tmp_path, capsys, course, monkeypatch, available):
    from grading import cgroups, cli

    if not available:
        fallback = cgroups.Support(None, reason="a machine without cgroups")
        monkeypatch.setattr(sandbox.Backend, "cgroups", lambda self: fallback)
    arguments = [str(course["submissions"] / "s3__correct.ipynb"), "--source", str(course["source"])]
    assert cli.main([*arguments, "--out", str(tmp_path / "out"), "--no-sandbox", "--quiet"]) == 0
    error = capsys.readouterr().err
    assert error.count("limits per sandbox:") == 1
    if available and sandbox.cgroup_support().version:
        assert f"cgroup {sandbox.cgroup_support().version} (memory, pids, cpu)" in error
    elif not available:
        assert "per-process limits only, no cgroups (a machine without cgroups)" in error
        assert "memfds" in error and "not bounded" in error
    log = (tmp_path / "out" / "logs" / "s3__correct.log").read_text()
    assert "(cgroup v" in log or "(process limits)" in log
