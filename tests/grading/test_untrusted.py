"""Reading what comes out of a sandbox: files that are not files, JSON that is not the runner's,
progress events out of order, folders too deep to delete by recursion, escape sequences; and the
control-group layouts (v1 and v2) on a stand-in folder tree."""

from __future__ import annotations

import os
import threading

import pytest

from grading import cgroups
from grading.progress import EventSequence, ProgressReader
from grading.untrusted import MalformedOutput, load_json, printable, read_regular, remove_tree

PLAN = {"cells": [[0, "a"], [2, "b"]], "parts": [{"number": 0, "cases": [[], [], []]}, {"number": 1, "cases": [[]]}]}
HONEST = [
    {"begin": "setup"},
    {"end": "setup"},
    {"begin": "cell", "cell": 0},
    {"end": "cell", "cell": 0, "status": "ok", "error": None, "line": None},
    {"begin": "cell", "cell": 2},
    {"end": "cell", "cell": 2, "status": "error", "error": "ValueError", "line": 3},
    {"begin": "inputs"},
    {"end": "inputs"},
    {"begin": "case", "part": 0, "case": 0},
    {"end": "case", "part": 0, "case": 0, "status": "ok"},
    {"begin": "case", "part": 0, "case": 2},  # case 1 skipped: allowed
    {"end": "case", "part": 0, "case": 2, "status": "timeout"},
    {"end": "part", "part": 0},
    {"end": "part", "part": 1},  # a missing function: no case events
    {"end": "run"},
]


def test_read_regular_refuses_fifos_links_folders_and_large_files(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "big").write_bytes(b"x" * 101)
    (tmp_path / "ok").write_bytes(b"fine")
    os.symlink(tmp_path / "ok", tmp_path / "link")
    (tmp_path / "folder").mkdir()
    assert read_regular(tmp_path / "ok", 100) == b"fine"
    result = {}
    reader = threading.Thread(target=lambda: result.update(fifo=_error(read_regular, tmp_path / "fifo", 100)))
    reader.start()
    reader.join(timeout=5)
    assert not reader.is_alive(), "opening a FIFO blocked"
    assert "not a regular file" in result["fifo"]
    for name, message in (
        ("big", "larger than"),
        ("link", "cannot be opened"),
        ("folder", "not a regular"),
        ("no", "missing"),
    ):
        assert message in _error(read_regular, tmp_path / name, 100)


def _error(function, *arguments) -> str:
    with pytest.raises(MalformedOutput) as caught:
        function(*arguments)
    return str(caught.value)


@pytest.mark.parametrize(
    "text", ["9" * 5000, "[" * 100_000, '{"a": NaN}', '{"a": 1e999999}', "1" + "0" * 19, b"\xff\xfe"]
)
def test_load_json_bounds_numbers_and_depth(text):
    with pytest.raises(MalformedOutput):
        load_json(text)


def test_load_json_reads_the_runners_json():
    assert load_json(b'[{"status": "ok", "kinds": ["tensor"], "n": -12, "x": 1.5}]')[0]["n"] == -12


def test_the_honest_event_sequence_is_accepted():
    sequence = EventSequence(PLAN)
    assert all(sequence.accept(event) for event in HONEST)
    assert sequence.phase == "done"


@pytest.mark.parametrize(
    "position, forged",
    [
        (2, {"begin": "cell", "cell": 2}),  # a cell out of order
        (2, {"begin": "cell", "cell": -7}),
        (2, {"begin": "cell", "cell": 10**30}),
        (3, {"end": "cell", "cell": 0, "status": "ok", "error": None, "line": 10**9}),
        (3, {"end": "cell", "cell": 0, "status": ["ok"], "error": None, "line": None}),
        (3, {"end": "cell", "cell": 0, "status": "ok", "error": "E" * 500, "line": None}),
        (8, {"begin": "case", "part": [0], "case": 0}),
        (8, {"begin": "case", "part": 0, "case": 3}),  # past the last case
        (8, {"end": "part", "part": 1}),  # part 0 first
        (9, {"end": "case", "part": 0, "case": 0, "status": "ok", "score": 3}),
        (10, {"begin": "case", "part": 0, "case": 0}),  # a case again
        (14, {"end": "run", "score": 100}),
        (6, {"end": "run"}),
        (0, "not a dict"),
    ],
)
def test_a_forged_event_marks_the_stream_malformed(tmp_path, position, forged):
    import json

    lines = [json.dumps(event) for event in HONEST[:position]] + [json.dumps(forged)]
    (tmp_path / "progress.jsonl").write_text("\n".join(lines) + "\n")
    reader = ProgressReader(tmp_path / "progress.jsonl", PLAN)
    reader.finish()
    assert reader.malformed and len(reader.events) == position


def test_progress_reader_refuses_a_fifo_a_huge_line_and_a_cut_line(tmp_path):
    os.mkfifo(tmp_path / "progress.jsonl")
    reader = ProgressReader(tmp_path / "progress.jsonl", PLAN)
    reader.read()
    assert "not a regular file" in reader.malformed
    (tmp_path / "long.jsonl").write_text('{"begin": "setup"}\n' + "x" * 10_000)
    reader = ProgressReader(tmp_path / "long.jsonl", PLAN)
    reader.read()
    assert "too long" in reader.malformed and reader.events == [{"begin": "setup"}]
    (tmp_path / "cut.jsonl").write_text('{"begin": "setup"}\n{"end": "se')
    reader = ProgressReader(tmp_path / "cut.jsonl", PLAN)
    assert reader.current() == ("setup",) and reader.malformed is None  # still being written
    reader.finish()
    assert "middle of a line" in reader.malformed


def test_remove_tree_deletes_2500_levels_and_unlistable_folders(tmp_path):
    root = tmp_path / "work"
    root.mkdir()
    descriptor = os.open(root, os.O_RDONLY)
    for _ in range(2500):  # deeper than PATH_MAX allows by path, and than the recursion limit
        os.mkdir("d", dir_fd=descriptor)
        (next_descriptor := os.open("d", os.O_RDONLY, dir_fd=descriptor))
        os.close(descriptor)
        descriptor = next_descriptor
    os.close(descriptor)
    (root / "locked").mkdir()
    (root / "locked" / "file").write_text("x")
    os.chmod(root / "locked", 0)
    os.mkfifo(root / "fifo")
    os.symlink("/etc", root / "link")
    remove_tree(root)
    assert not root.exists()
    assert os.path.exists("/etc/passwd")  # links are removed, never followed


def test_printable_escapes_control_characters():
    text = "ok\tline\n\x1b]0;title\x07\x1b[2J\r\x9b6n\u202eevil"
    shown = printable(text)
    assert "ok\tline\n" in shown and "\x1b" not in shown and "\r" not in shown and "\x9b" not in shown
    assert "\\x1b]0;title\\x07" in shown and "\\u202e" in shown


# -- control groups, on stand-in folder trees ----------------------------------------------------------
def _fake_v2(tmp_path):
    root = tmp_path / "cgroup"
    own = root / "user.slice" / "grader.scope"
    own.mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (own / "cgroup.controllers").write_text("cpu memory pids\n")
    (own / "cgroup.subtree_control").write_text("cpu memory pids\n")
    (tmp_path / "self").write_text("0::/user.slice/grader.scope\n")
    return root, own


def test_cgroup_v2_layout(tmp_path):
    root, own = _fake_v2(tmp_path)
    support = cgroups.detect(root, tmp_path / "self")
    assert support.version == "v2" and support.bases == {name: own for name in cgroups.CONTROLLERS}
    group = support.create(memory_bytes=1 << 30, processes=32, cpus=1.5)
    (folder,) = group.folders
    assert folder.parent == own and group.procs_files == [str(folder / "cgroup.procs")]
    assert (folder / "memory.max").read_text() == str(1 << 30)
    assert (folder / "pids.max").read_text() == "32"
    assert (folder / "cpu.max").read_text() == "150000 100000"
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
    assert group.oom_kills() == 1
    assert "cgroup v2" in support.describe()


def test_cgroup_v2_without_delegation_says_why(tmp_path):
    root, own = _fake_v2(tmp_path)
    (own / "cgroup.controllers").write_text("cpu\n")
    support = cgroups.detect(root, tmp_path / "self")
    assert support.version is None and "memory, pids are not delegated" in support.reason
    assert "systemd-run --user --scope" in support.reason


def test_cgroup_v1_layout(tmp_path):
    root = tmp_path / "cgroup"
    for controller in cgroups.CONTROLLERS:
        (root / controller).mkdir(parents=True)
    (root / "memory" / "jobs" / "mine").mkdir(parents=True)
    (tmp_path / "self").write_text("4:memory:/jobs/mine\n2:pids:/\n1:cpu,cpuacct:/\n0::/\n")
    support = cgroups.detect(root, tmp_path / "self")
    assert support.version == "v1"
    assert support.bases["memory"] == root / "memory" / "jobs" / "mine" and support.bases["cpu"] == root / "cpu"
    group = support.create(memory_bytes=1 << 29, processes=8, cpus=1.0)
    assert (group.by_controller["memory"] / "memory.limit_in_bytes").read_text() == str(1 << 29)
    assert (group.by_controller["pids"] / "pids.max").read_text() == "8"
    assert (group.by_controller["cpu"] / "cpu.cfs_quota_us").read_text() == "100000"
    assert len(group.procs_files) == 3


def test_no_cgroups_at_all(tmp_path):
    support = cgroups.detect(tmp_path, tmp_path / "none")
    assert support.version is None and support.create(1, 1, 1.0) is None and "no cgroups" in support.describe()
