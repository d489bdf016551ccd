"""Shared fixtures for the grader's tests: the fixture course, a 127.0.0.1 server, one graded batch.

The whole fixture suite is graded once per test session (``graded_batch``), in parallel with
``--jobs 2`` and short limits, and the tests read its grades.csv, feedback and logs.
"""

from __future__ import annotations

import csv
import os
import shutil
import socket
import threading
from pathlib import Path

import pytest

from tests.grading.fixtures.make_fixtures import SECRET, write_course
from tests.support import in_ci

# Short limits keep the suite fast; every fixture is built to hit its limit well inside them.
TEST_LIMITS = ["--step-timeout", "3", "--submission-timeout", "40", "--memory-mb", "1024", "--processes", "32"]


def require_bwrap() -> str:
    """bubblewrap, the sandbox; .ci/run installs it, so in CI its absence fails instead of skipping."""
    path = shutil.which("bwrap")
    if path is None:
        message = "bubblewrap (bwrap) is not installed (apt-get install -y bubblewrap): the grader's sandbox"
        if in_ci():
            pytest.fail(message + " -- MINITORCH_CI=1 requires it")
        pytest.skip(message)
    return path


class Server(threading.Thread):
    """A TCP server on 127.0.0.1 that records every connection: sandboxed code must never reach it."""

    def __init__(self):
        super().__init__(daemon=True)
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.port = self.socket.getsockname()[1]
        self.connections: list[bytes] = []

    def run(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(1)
                try:
                    self.connections.append(connection.recv(100))
                except OSError:
                    self.connections.append(b"")

    def close(self):
        self.socket.close()


@pytest.fixture(scope="session")
def server():
    running = Server()
    running.start()
    yield running
    running.close()


@pytest.fixture(scope="session")
def course(tmp_path_factory, server) -> dict:
    root = tmp_path_factory.mktemp("grading-course")
    out = root / "grades"
    return write_course(root, port=server.port, secret_paths=[str(out)]) | {"root": root, "out": out}


def read_grades(path: Path) -> dict[str, dict[str, str]]:
    with open(path, newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="session")
def graded_batch(course) -> dict:
    """Grade every fixture submission (and the archive) once, with --jobs 2, in this process."""
    require_bwrap()
    from grading.cli import main

    previous = os.environ.get("MINITORCH_TEST_SECRET")
    os.environ["MINITORCH_TEST_SECRET"] = SECRET  # in the grader's environment, never in the sandbox's
    try:
        status = main(
            [
                str(course["submissions"]),
                "--bulk-archive", str(course["archive"]),
                "--source", str(course["source"]),
                "--out", str(course["out"]),
                "--jobs", "2",
                "--gradescope",
                "--quiet",
                *TEST_LIMITS,
            ]
        )  # fmt: skip
    finally:
        if previous is None:
            os.environ.pop("MINITORCH_TEST_SECRET", None)
        else:
            os.environ["MINITORCH_TEST_SECRET"] = previous
    assert status == 0
    return {"grades": read_grades(course["out"] / "grades.csv"), "out": course["out"]}


@pytest.fixture(autouse=True)
def visible_checks_raise_in_the_mistake_tests(request, monkeypatch):
    """The per-chapter mistake tests (test_chNN_exercises.py) expect ``pytest.raises(AssertionError)``
    from a failing ``check``; in a notebook it only reports (grading.checks.raise_on_failure)."""
    module = request.module.__name__.rsplit(".", 1)[-1]
    if module.startswith("test_ch") and module.endswith("_exercises") and module[7:9].isdigit():
        from grading import checks

        monkeypatch.setattr(checks, "raise_on_failure", True)
