"""The fixture suite, graded once with --jobs 2: every submission scores what its file name states.

Each name is ``s<score>__<what it does>``; see tests/grading/fixtures/make_fixtures.py for the code of
each one (infinite loops, crashes, fork bombs, 6 GB allocations, reading secrets, forging outputs...).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from grading import class_summary
from grading.registry import randn
from tests.grading.conftest import TEST_LIMITS, read_grades
from tests.grading.fixtures.make_fixtures import SECRET, submissions

NAMES = sorted(submissions(port=9, secret_paths=[]))
REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", NAMES)
def test_fixture_scores_as_named(graded_batch, name):
    row = graded_batch["grades"][name]
    expected = float(name.split("__")[0][1:])
    feedback = (graded_batch["out"] / "feedback" / f"{name}.md").read_text()
    assert float(row["total"]) == expected, f"{name}: status {row['status']}\n{feedback}"
    assert float(row["demo.relu"]) + float(row["demo.linear"]) == float(row["total"])


def test_archive_in_nbgrader_layout(graded_batch, course):
    for student, expected in course["expected_archive"].items():
        assert float(graded_batch["grades"][student]["total"]) == expected


def test_unsafe_entries_are_rejected_and_never_graded(graded_batch, course):
    grades, out = graded_batch["grades"], graded_batch["out"]
    rejected = {student: row for student, row in grades.items() if row["status"] == "rejected"}
    report = (out / "rejected.txt").read_text()
    for origin, reason in course["rejected"].items():
        assert reason in report, (origin, report)
    assert len(rejected) == len(course["rejected"])
    for student, row in rejected.items():
        assert student.startswith("rejected-") and float(row["total"]) == 0
        assert re.fullmatch(r"[A-Za-z0-9_-]+", student)
        assert not (out / "feedback" / f"{student}.md").exists()
    # nothing escaped the output folder or the archive's folder
    assert not (course["root"] / "escape").exists() and not (course["root"] / "outside.ipynb").exists()
    assert {path.name for path in out.iterdir()} <= {
        "grades.csv", "feedback", "logs", "gradescope", "rejected.txt", "summary.csv", "failures.csv", "summary.html",
    }  # fmt: skip


@pytest.mark.parametrize(
    "name, status, phrases",
    [
        ("s2__crash_os_exit_in_function", "crash", ["relu", "ended the process (exit status 3)"]),
        ("s1__crash_segfault_in_function", "crash", ["linear", "SIGSEGV"]),
        ("s0__crash_sigkill_in_both", "crash", ["SIGKILL"]),
        ("s3__crash_top_level_segfault", "crash", ["SIGSEGV", "skipped and the rest still ran"]),
        ("s2__loop_in_function", "timeout", ["ran past the time limit"]),
        ("s1__loop_in_function_swallows_timeout", "timeout", ["ran past the time limit"]),
        ("s3__loop_top_level", "timeout", ["ran past the time limit (3 s)"]),
        ("s3__loop_top_level_swallows_timeout", "timeout", ["ran past the time limit"]),
        ("s1__deleted_linear_test_cell", "test-cell-deleted", ["test cell of demo.linear (test_linear) was deleted"]),
        ("s1__earlier_release_without_linear", "earlier-release", [
            "earlier release of demo", "demo.linear is not in it", "relu: 1 / 1: passed",
            "demo.linear: 0 / 2: not in the release you submitted"]),
        ("s2__earlier_release_relu_replaced", "earlier-release", [
            "its test cell checks demo.rectify, not demo.relu", "demo.linear: 2 / 2: passed",
            "no function named relu"]),
        ("s0__invalid_json", "invalid-notebook", ["invalid JSON at line"]),
        ("s0__binary_garbage", "invalid-notebook", ["not UTF-8"]),
        ("s0__not_a_notebook", "invalid-notebook", ["no 'cells' list"]),
        ("s3__missing_cell_ids", "ok", ["have no id"]),
        ("s3__no_nbgrader_metadata", "ok", ["no nbgrader metadata"]),
        ("s3__wrong_kernel_name", "ok", ["'julia-1.9', not Python"]),
        ("s3__sys_exit_top_level", "ok", ["raised SystemExit"]),
        ("s3__keyboard_interrupt_top_level", "ok", ["raised KeyboardInterrupt"]),
        ("s3__input_top_level", "ok", ["raised EOFError"]),
        ("s3__memory_6gb_top_level", "ok", ["raised MemoryError"]),
        ("s2__memory_6gb_in_function", "ok", ["raised MemoryError"]),
        ("s3__fork_bomb", "ok", ["raised BlockingIOError"]),
        ("s0__blank_release", "ok", ["not implemented yet"]),
        ("s2__returns_none", "ok", ["not implemented yet"]),
        ("s2__relu_returns_ndarray", "ok", ["asks for a minitorch Tensor"]),
        ("s1__partial_linear_flattens", "ok", ["hidden case 1: wrong shape", "Hint:"]),
    ],
)
def test_status_and_reason(graded_batch, name, status, phrases):
    row = graded_batch["grades"][name]
    feedback = (graded_batch["out"] / "feedback" / f"{name}.md").read_text()
    assert status in row["status"].split(";") or row["status"] == status, (row["status"], feedback)
    for phrase in phrases:
        assert phrase in feedback, (phrase, feedback)


def test_correct_submissions_have_clean_status(graded_batch):
    for name in ("s3__correct", "s3__source_notebook", "s3__warnings_on_stderr", "s3__edited_test_cells"):
        assert graded_batch["grades"][name]["status"] == "ok"


def test_hidden_tests_never_reach_feedback(graded_batch):
    """Neither the hidden tests' source nor their inputs appear in any student-facing file."""
    hidden_values = [f"{value:.4f}" for value in randn(5, 7, seed=101).ravel()[:5]]
    hidden_values += [f"{value:.4f}" for value in randn(2, 4, 3, seed=201).ravel()[:5]]
    student_facing = list((graded_batch["out"] / "feedback").glob("*.md"))
    student_facing += list((graded_batch["out"] / "gradescope").glob("*/results.json"))
    assert len(student_facing) > 40
    for path in student_facing:
        text = path.read_text()
        for forbidden in (SECRET, "check_hidden", "BEGIN HIDDEN", "seed=10", "seed=20", *hidden_values):
            assert forbidden not in text, (forbidden, path.name)


def test_nothing_secret_was_reachable(graded_batch, server):
    """The hostile fixtures turn their functions correct if they find a secret or reach the server;
    they score 0, and the 127.0.0.1 server saw no connection."""
    assert float(graded_batch["grades"]["s0__read_secrets"]["total"]) == 0
    assert float(graded_batch["grades"]["s0__network"]["total"]) == 0
    assert server.connections == []


def test_stored_output_is_capped(graded_batch):
    for name in ("s3__output_100mb_one_line", "s3__output_2m_lines"):
        log = (graded_batch["out"] / "logs" / f"{name}.log").read_text()
        assert "more bytes of output dropped" in log
        assert len(log) < 200_000


def test_no_sandbox_process_survives(graded_batch):
    """After the batch, no process runs under any of its sandboxes' uids (fork bombs included). The
    batch ran in this process; other graders on the machine have uids of their own."""
    first = 200_000 + (os.getpid() % 50_000) * 64  # grading.sandbox.job_uid
    leftovers = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                uid = int(next(line for line in handle if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration):
            continue
        if first <= uid < first + 64:
            leftovers.append(entry)
    assert leftovers == []


def test_gradescope_results(graded_batch):
    results = json.loads(
        (graded_batch["out"] / "gradescope" / "s1__partial_linear_flattens" / "results.json").read_text()
    )
    assert results["score"] == 1
    assert [test["name"] for test in results["tests"]] == ["demo.relu", "demo.linear"]
    assert [test["max_score"] for test in results["tests"]] == [1, 2]


# The grader's own peak memory is VmHWM of /proc/self/status, not getrusage's ru_maxrss: Linux keeps
# ru_maxrss across exec, so it would report the (large) pytest process this grader was forked from.
GRADER_WITH_PEAK_MEMORY = """
import re, runpy, sys
sys.argv = ["minitorch-grade", *sys.argv[1:]]
code = 0
try:
    runpy.run_module("grading", run_name="__main__")
except SystemExit as exit:
    code = exit.code
with open("/proc/self/status") as status:
    peak = re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)
print("peak-rss-kib", peak, file=sys.stderr)
sys.exit(code)
"""

REPEATED = [
    "s3__correct",
    "s1__partial_linear_flattens",
    "s2__loop_in_function",
    "s2__crash_os_exit_in_function",
    "s3__output_100mb_one_line",
    "s0__forged_outputs",
]


def test_grading_twice_in_parallel_gives_identical_scores(graded_batch, course, tmp_path):
    """Two more graders, at once, on a subset: same scores as the batch; each grader's own memory stays
    small even while a submission prints 100 MB."""
    files = [str(course["submissions"] / f"{name}.ipynb") for name in REPEATED]
    environment = dict(os.environ, PYTHONPATH=str(REPOSITORY))
    outcomes = {}

    def grade(label, jobs):
        command = [sys.executable, "-c", GRADER_WITH_PEAK_MEMORY, *files, "--source", str(course["source"])]
        command += ["--out", str(tmp_path / label), "--jobs", jobs, "--quiet", *TEST_LIMITS]
        outcomes[label] = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=tmp_path)

    threads = [threading.Thread(target=grade, args=(label, jobs)) for label, jobs in (("one", "1"), ("two", "2"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for label, outcome in outcomes.items():
        assert outcome.returncode == 0, outcome.stderr
        grades = read_grades(tmp_path / label / "grades.csv")
        for name in REPEATED:
            for column in ("demo.relu", "demo.linear", "total"):
                assert grades[name][column] == graded_batch["grades"][name][column], (label, name, column)
        peak_kib = int(re.search(r"peak-rss-kib (\d+)", outcome.stderr).group(1))
        assert peak_kib < 250 * 1024, f"grader {label} peaked at {peak_kib >> 10} MiB"


def test_answers_file_is_loaded_without_pickles(tmp_path):
    from grading.grader import load_answers

    np.savez(tmp_path / "ok.npz", c0_0=np.arange(3.0))
    assert load_answers(tmp_path / "ok.npz")["c0_0"].tolist() == [0.0, 1.0, 2.0]
    np.savez(tmp_path / "pickle.npz", c0_0=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="numeric arrays"):
        load_answers(tmp_path / "pickle.npz")
    np.savez(tmp_path / "names.npz", **{"../escape": np.zeros(1)})
    with pytest.raises(ValueError, match="unexpected member"):
        load_answers(tmp_path / "names.npz")
    os.symlink(tmp_path / "ok.npz", tmp_path / "link.npz")
    with pytest.raises(Exception, match="symbolic link"):
        load_answers(tmp_path / "link.npz")
    # a header that claims far more data than the file holds is refused before NumPy allocates it
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1))
    header["shape"] = (10**12,)
    import io
    import zipfile

    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    buffer.write(np.zeros(1).tobytes())
    with zipfile.ZipFile(tmp_path / "liar.npz", "w") as archive:
        archive.writestr("c0_0.npy", buffer.getvalue())
    with pytest.raises(ValueError, match="impossible shape"):
        load_answers(tmp_path / "liar.npz")
    # dimensions whose product overflows int64 (2**64 wraps to 0, matching an empty data section)
    for shape, message in (((2**25, 2**25, 2**14), "does not match"), ((2**32, 2**32), "impossible shape")):
        header["shape"] = shape
        buffer = io.BytesIO()
        np.lib.format.write_array_header_1_0(buffer, header)
        with zipfile.ZipFile(tmp_path / "overflow.npz", "w") as archive:
            archive.writestr("c0_0.npy", buffer.getvalue())
        with pytest.raises(ValueError, match=message):
            load_answers(tmp_path / "overflow.npz")


def test_earlier_releases_are_never_told_a_test_cell_was_deleted(graded_batch):
    for name in ("s1__earlier_release_without_linear", "s2__earlier_release_relu_replaced"):
        feedback = (graded_batch["out"] / "feedback" / f"{name}.md").read_text()
        assert "deleted" not in feedback, feedback
        assert "test-cell-deleted" not in graded_batch["grades"][name]["status"]


def test_the_class_summary_counts_what_grades_csv_says(graded_batch):
    """summary.csv's means and counts are grades.csv's, computed again here; failures.csv names each student who
    lost points on a part under the kind their feedback gives; summary.html holds everything inline."""
    import csv

    out, grades = graded_batch["out"], graded_batch["grades"]
    with open(out / "summary.csv", newline="") as handle:
        rows = {row["part"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {"demo.relu", "demo.linear", "total"}
    for part, maximum in (("demo.relu", 1.0), ("demo.linear", 2.0), ("total", 3.0)):
        scores = [float(row[part]) for row in grades.values()]
        row = rows[part]
        assert int(row["submissions"]) == len(scores) and float(row["max_points"]) == maximum
        assert math.isclose(float(row["mean"]), sum(scores) / len(scores), abs_tol=5e-4)
        assert int(row["full"]) == sum(score == maximum for score in scores)
        assert int(row["none"]) == sum(score == 0 for score in scores)
        assert sum(int(row[f"scores {10 * i}-{10 * (i + 1)}%"]) for i in range(10)) == len(scores)
    with open(out / "failures.csv", newline="") as handle:
        failures = {(row["part"], row["kind"]): row["students"].split(";") for row in csv.DictReader(handle)}
    failed_linear = {student for student, row in grades.items() if float(row["demo.linear"]) < 2}
    assert {s for (part, _), students in failures.items() if part == "demo.linear" for s in students} == failed_linear
    assert "s1__earlier_release_without_linear" in failures[("demo.linear", "earlier release")]
    assert "s1__deleted_linear_test_cell" in failures[("demo.linear", "test cell deleted")]
    assert "s0__blank_release" in failures[("demo.linear", "not implemented")]
    assert "s2__loop_in_function" in {s for (_, kind), students in failures.items() if kind == "time or memory limit"
                                      for s in students}  # fmt: skip
    assert "s1__partial_linear_flattens" in failures[("demo.linear", "wrong answer")]
    assert sum(int(rows["demo.linear"][kind]) for kind in class_summary.KIND_NAMES) == len(failed_linear)
    page = (out / "summary.html").read_text()
    assert page.count("<svg") == 3 and "<script" not in page and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    assert "s1__earlier_release_without_linear" in page and "<b>not graded</b>" in page  # the rejected entries
