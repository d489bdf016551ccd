"""The grader under attack (issue 18): each hostile submission is graded in a batch of two, with
``--jobs 2``, next to an honest classmate who must keep full marks.

Each runs the real command line in a subprocess with a test-level time-out, so a hang fails the test
instead of stalling the suite, and a crash shows as a non-zero exit. After each batch: no process
under a sandbox's uid, no mount and no file left in the work folder, no control group left behind.
File names state the expected score, as in the main fixture suite (tests/grading/fixtures).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grading.registry import randn
from tests.grading.conftest import TEST_LIMITS, read_grades, require_bwrap
from tests.grading.fixtures.make_fixtures import SECRET, attacks, correct

REPOSITORY = Path(__file__).resolve().parents[2]
ATTACKS = attacks()
HONEST = "s3__correct"

# what the instructor's view (grades.csv status, the log) or the student's feedback must say
EXPECTED = {
    "s0__calls_reference_solution": {"feedback": ["raised ModuleNotFoundError"]},
    "s0__calls_minitorchs_own_pieces": {
        "feedback": ["calls minitorch.relu, which this exercise asks you to build (withheld while it is graded)"]
    },
    "s3__memfd_3gb": {"peak_memory_mib": 1024},
    "s3__tmpfs_in_user_namespace": {"log": ["user namespace refused: Operation not permitted"]},
    "s3__fallocate_1gb": {"log": ["fallocate: -1"]},
    "s3__write_dev_shm_and_unlistable_folder": {"log": ["refused /dev/hoard Read-only file system"]},
    "s3__cpu_spinners": {"status": ["timeout"]},
    "s0__fifo_progress": {"status": ["malformed-output"], "feedback": ["malformed output"]},
    "s0__forged_events_with_correct_functions": {"status": ["malformed-output"]},
    "s0__unhashable_statuses": {"status": ["malformed-output"]},
    "s0__npz_header_overflow": {"status": ["malformed-output"]},
    "s0__huge_number_in_json": {"status": ["invalid-notebook"], "feedback": ["number too long"]},
    "s1__exit_status_spells_hidden_input": {"feedback": ["hidden case 1: linear crashed or ended the process"]},
    "s1__exception_spells_hidden_input": {"feedback": ["hidden case 1: raised an exception"]},
    "s3__reads_inputs_in_a_cell": {"feedback": ["raised FileNotFoundError"]},
    "s3__terminal_escapes": {"log": ["\\x1b]0;owned\\x07"]},
}
NEVER_IN_FEEDBACK = ["exit status", "SIGSEGV", "KeyError", "IndexError", "ZeroDivisionError", "LookupError"]


def _sandbox_processes(grader_pid: int) -> list[str]:
    """Processes under the uids of this grader's sandboxes (other graders may run on this machine)."""
    first = 200_000 + (grader_pid % 50_000) * 64  # grading.sandbox.job_uid
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status") as handle:
                    uid = int(next(line for line in handle if line.startswith("Uid:")).split()[1])
            except (OSError, StopIteration):
                continue
            if first <= uid < first + 64:
                found.append(entry)
    return found


def _cgroups_of(pid: int) -> list[str]:
    leftovers = []
    for root, folders, _ in os.walk("/sys/fs/cgroup"):
        leftovers += [os.path.join(root, name) for name in folders if name.startswith(f"minitorch-grade-{pid}-")]
        folders[:] = [name for name in folders if not name.startswith("minitorch-grade")]
    return leftovers


def grade_pair(tmp_path: Path, course: dict, name: str, *extra: str) -> tuple[dict, Path, int]:
    """Grade the attack ``name`` and the honest classmate in one batch; returns (grades, out, grader pid)."""
    require_bwrap()
    folder, work, out = tmp_path / "submitted", tmp_path / "work", tmp_path / "grades"
    for path in (folder, work):
        path.mkdir()
    (folder / f"{HONEST}.ipynb").write_text(nbformat.writes(correct()))
    document = ATTACKS[name]
    data = document if isinstance(document, bytes) else nbformat.writes(document).encode()
    (folder / f"{name}.ipynb").write_bytes(data)
    command = [sys.executable, "-m", "grading", str(folder), "--source", str(course["source"]), "--out", str(out)]
    command += ["--jobs", "2", "--quiet", "--gradescope", "--work-dir", str(work), *TEST_LIMITS, *extra]
    environment = dict(os.environ, PYTHONPATH=str(REPOSITORY), MINITORCH_TEST_SECRET=SECRET)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        stdout, stderr = process.communicate(timeout=150)  # the grader never hangs
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"the grader hung on {name}")
    assert process.returncode == 0, stderr  # and never crashes
    # nothing left behind: processes, mounts, files, control groups
    assert _sandbox_processes(process.pid) == []
    assert not any(str(work) in line for line in Path("/proc/self/mountinfo").read_text().splitlines())
    assert list(work.iterdir()) == []
    assert _cgroups_of(process.pid) == []
    return read_grades(out / "grades.csv"), out, process.pid


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_scores_as_named_and_the_classmate_keeps_full_marks(tmp_path, course, name):
    grades, out, _ = grade_pair(tmp_path, course, name)
    expected = float(name.split("__")[0][1:])
    feedback = (out / "feedback" / f"{name}.md").read_text()
    log = (out / "logs" / f"{name}.log").read_text()
    assert float(grades[name]["total"]) == expected, f"{grades[name]['status']}\n{feedback}\n{log[-3000:]}"
    assert float(grades[HONEST]["total"]) == 3 and grades[HONEST]["status"] == "ok", grades[HONEST]
    for phrase in EXPECTED.get(name, {}).get("status", []):
        assert phrase in grades[name]["status"].split(";"), (grades[name]["status"], log[-3000:])
    if "peak_memory_mib" in EXPECTED.get(name, {}):  # stopped by the memory limit or by the step's time
        peaks = [int(match) for match in re.findall(r"peak memory (\d+) MiB", log)]
        assert peaks and max(peaks) <= EXPECTED[name]["peak_memory_mib"], log[-3000:]
    for phrase in EXPECTED.get(name, {}).get("feedback", []):
        assert phrase in feedback, (phrase, feedback)
    for phrase in EXPECTED.get(name, {}).get("log", []):
        assert phrase in log, (phrase, log[-3000:])
    hidden_values = [f"{value:.2f}" for value in randn(2, 4, 3, seed=201).ravel()[:6]]
    hidden_values += [f"{value:.2f}" for value in randn(5, 7, seed=101).ravel()[:6]]
    for text in (feedback, (out / "gradescope" / name / "results.json").read_text()):
        for forbidden in (SECRET, "check_hidden", *hidden_values, *NEVER_IN_FEEDBACK):
            assert forbidden not in text, (forbidden, text)
    for path in out.rglob("*"):
        if path.is_file():
            assert "\x1b" not in path.read_text(errors="replace"), path  # no escape reaches a terminal


def test_a_relative_work_dir(tmp_path, course, monkeypatch):
    """--work-dir given relative to the current folder: the sandbox binds absolute paths."""
    require_bwrap()
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "submitted"
    folder.mkdir()
    (folder / f"{HONEST}.ipynb").write_text(nbformat.writes(correct()))
    (tmp_path / "scratch").mkdir()
    from grading.cli import main

    arguments = [str(folder), "--source", str(course["source"]), "--out", "grades", "--work-dir", "scratch"]
    assert main([*arguments, "--quiet", *TEST_LIMITS]) == 0
    assert read_grades(tmp_path / "grades" / "grades.csv")[HONEST]["status"] == "ok"
    assert list((tmp_path / "scratch").iterdir()) == []
