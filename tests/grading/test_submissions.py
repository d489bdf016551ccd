"""Finding submissions: layouts, globs, duplicates, and unsafe names, links and archives."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile

import pytest

from grading.submissions import find_submissions, is_safe_name

NOTEBOOK = b'{"cells": [], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}'


def _by_student(found):
    return {submission.student: submission for submission in found}


def test_flat_folder_and_nbgrader_layout(tmp_path):
    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / "alice.ipynb").write_bytes(NOTEBOOK)
    (tmp_path / "flat" / "notes.txt").write_text("ignored")
    (tmp_path / "flat" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "flat" / ".ipynb_checkpoints" / "alice-checkpoint.ipynb").write_bytes(NOTEBOOK)
    bob = tmp_path / "flat" / "bob" / "demo"
    bob.mkdir(parents=True)
    (bob / "demo.ipynb").write_bytes(NOTEBOOK)
    (bob / "scratch.ipynb").write_bytes(NOTEBOOK)  # two notebooks: the assignment's name decides
    found = _by_student(find_submissions([str(tmp_path / "flat")], "demo"))
    assert set(found) == {"alice", "bob"}
    assert found["bob"].origin.endswith("bob/demo/demo.ipynb") and found["bob"].data == NOTEBOOK


def test_globs_and_duplicates(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "carol.ipynb").write_bytes(NOTEBOOK)
    found = find_submissions([str(tmp_path / "*" / "*.ipynb")])
    assert [submission.problem for submission in found] == [None, found[1].problem]
    assert "duplicate student name" in found[1].problem
    missing = find_submissions([str(tmp_path / "nothing-*.ipynb")])
    assert missing[0].problem == "no such file or folder"


@pytest.mark.parametrize("name", ["alice", "bob.smith", "d.o+1@uni-x", "José"])
def test_safe_names(name):
    assert is_safe_name(name)


@pytest.mark.parametrize("name", ["", "..", "../x", "-rf", "=cmd()", "a b", "a\nb", ".hidden", "a..b", "x" * 101])
def test_unsafe_names(name):
    assert not is_safe_name(name)


def test_symlinks_are_rejected(tmp_path):
    real = tmp_path / "real.ipynb"
    real.write_bytes(NOTEBOOK)
    folder = tmp_path / "in"
    folder.mkdir()
    os.symlink(real, folder / "linked.ipynb")
    os.symlink(tmp_path, folder / "linkdir")
    student = folder / "dave" / "demo"
    student.mkdir(parents=True)
    os.symlink(real, student / "demo.ipynb")
    found = find_submissions([str(folder)], "demo")
    assert all(submission.problem and "symbolic link" in submission.problem for submission in found)
    assert len(found) == 3
    assert find_submissions([str(folder / "linked.ipynb")])[0].problem.startswith("a symbolic link")


def _zip(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)
    return path


def test_archive_layouts(tmp_path):
    archive = _zip(tmp_path / "batch.zip", [("erin.ipynb", NOTEBOOK), ("frank/demo/demo.ipynb", NOTEBOOK)])
    found = _by_student(find_submissions([str(archive)], "demo"))
    assert set(found) == {"erin", "frank"} and found["frank"].data == NOTEBOOK
    with tarfile.open(tmp_path / "batch.tar.gz", "w:gz") as handle:
        member = tarfile.TarInfo("gina/demo.ipynb")
        member.size = len(NOTEBOOK)
        handle.addfile(member, io.BytesIO(NOTEBOOK))
    assert set(_by_student(find_submissions([str(tmp_path / "batch.tar.gz")], "demo"))) == {"gina"}


@pytest.mark.parametrize(
    "member, reason",
    [
        ("../up.ipynb", "leaves the archive"),
        ("a/../../up.ipynb", "leaves the archive"),
        ("/abs/olute.ipynb", "absolute member path"),
        ("back\\slash.ipynb", "unsafe member name"),
    ],
)
def test_unsafe_zip_members_reject_the_archive(tmp_path, member, reason):
    archive = _zip(tmp_path / "evil.zip", [("fine/demo.ipynb", NOTEBOOK), (member, NOTEBOOK)])
    (found,) = find_submissions([str(archive)], "demo")
    assert found.problem and reason in found.problem and found.data is None


def test_special_tar_members_reject_the_archive(tmp_path):
    for kind, reason in ((tarfile.LNKTYPE, "a link"), (tarfile.SYMTYPE, "a link"), (tarfile.FIFOTYPE, "special")):
        path = tmp_path / f"t{kind!r}.tar"
        with tarfile.open(path, "w") as handle:
            member = tarfile.TarInfo("h/demo.ipynb")
            member.type, member.linkname = kind, "/etc/passwd"
            handle.addfile(member)
        (found,) = find_submissions([str(path)], "demo")
        assert reason in found.problem


def test_unsafe_student_names_in_archives(tmp_path):
    archive = _zip(tmp_path / "names.zip", [("-rf/demo.ipynb", NOTEBOOK), ("ok/demo.ipynb", NOTEBOOK)])
    found = {submission.student: submission.problem for submission in find_submissions([str(archive)], "demo")}
    assert found["ok"] is None
    assert "unsafe student name" in found["rejected--rf"]


def test_oversized_notebooks_are_refused(tmp_path, monkeypatch):
    import grading.notebook
    import grading.submissions

    monkeypatch.setattr(grading.submissions, "MAX_NOTEBOOK_BYTES", 10)
    archive = _zip(tmp_path / "big.zip", [("big/demo.ipynb", NOTEBOOK)])
    assert "larger than" in find_submissions([str(archive)], "demo")[0].problem
    (tmp_path / "huge.ipynb").write_bytes(NOTEBOOK)
    monkeypatch.setattr(grading.notebook.read_bytes, "__defaults__", (10,))
    assert "the limit is" in find_submissions([str(tmp_path / "huge.ipynb")])[0].problem
