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
    """A bulk export names its students inside; a student's upload is named by the upload itself."""
    archive = _zip(tmp_path / "batch.zip", [("erin.ipynb", NOTEBOOK), ("frank/demo/demo.ipynb", NOTEBOOK)])
    found = _by_student(find_submissions([], "demo", bulk_archives=[str(archive)]))
    assert set(found) == {"erin", "frank"} and found["frank"].data == NOTEBOOK
    with tarfile.open(tmp_path / "batch.tar.gz", "w:gz") as handle:
        member = tarfile.TarInfo("gina/demo.ipynb")
        member.size = len(NOTEBOOK)
        handle.addfile(member, io.BytesIO(NOTEBOOK))
    assert set(_by_student(find_submissions([], "demo", bulk_archives=[str(tmp_path / "batch.tar.gz")]))) == {"gina"}
    assert set(_by_student(find_submissions([str(tmp_path / "batch.tar.gz")], "demo"))) == {"batch"}


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
        path = tmp_path / f"t{ord(kind)}.tar"
        with tarfile.open(path, "w") as handle:
            member = tarfile.TarInfo("h/demo.ipynb")
            member.type, member.linkname = kind, "/etc/passwd"
            handle.addfile(member)
        (found,) = find_submissions([str(path)], "demo")
        assert reason in found.problem


def test_unsafe_student_names_in_archives(tmp_path):
    archive = _zip(tmp_path / "names.zip", [("-rf/demo.ipynb", NOTEBOOK), ("ok/demo.ipynb", NOTEBOOK)])
    found = {submission.student: submission.problem for submission in find_submissions([], "demo", [str(archive)])}
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


def test_an_upload_cannot_claim_a_classmates_name(tmp_path):
    """mallory.zip holds a notebook named after a classmate: it is graded as mallory's, and the
    classmate's own notebook is graded as theirs, not rejected as a duplicate."""
    folder = tmp_path / "uploads"
    folder.mkdir()
    (folder / "alice.ipynb").write_bytes(NOTEBOOK)
    _zip(folder / "mallory.zip", [("alice.ipynb", NOTEBOOK.replace(b"[]", b"[ ]")), ("alice/demo/demo.ipynb", b"{}")])
    found = _by_student(find_submissions([str(folder)], "demo"))
    assert set(found) == {"alice", "mallory"}
    assert found["alice"].problem is None and found["alice"].data == NOTEBOOK
    assert found["mallory"].problem is None and found["mallory"].origin.endswith("alice/demo/demo.ipynb")


def test_encrypted_members_are_refused(tmp_path):
    archive = _zip(tmp_path / "olga.zip", [("demo.ipynb", NOTEBOOK)])
    data = bytearray(archive.read_bytes())
    for signature in (b"PK\x03\x04", b"PK\x01\x02"):  # set the "encrypted" flag in both headers
        position = data.find(signature)
        offset = 6 if signature == b"PK\x03\x04" else 8
        data[position + offset] |= 0x1
    archive.write_bytes(bytes(data))
    (found,) = find_submissions([str(archive)], "demo")
    assert found.student == "rejected-olga_zip" and "encrypted member" in found.problem


def test_compression_bombs_stop_while_streaming(tmp_path):
    """A .tar.gz of 256 MiB of zeros (a quarter of a MiB on disk) is refused after a few MiB, whether the
    zeros sit in a member that would be skipped (the ratio stops it) or in a notebook (its size does)."""
    import time

    for member_name, reason in (("padding.bin", "compression bomb"), ("demo.ipynb", "larger than 32 MiB")):
        path = _tar_gz_of_zeros(tmp_path / f"bomb-{member_name[:4]}.tar.gz", member_name, 256)
        assert path.stat().st_size < 1024**2
        started = time.process_time()
        (found,) = find_submissions([str(path)], "demo")
        assert reason in found.problem, found.problem
        assert time.process_time() - started < 1.0  # CPU time: robust on a busy machine


def _tar_gz_of_zeros(path, member_name, mebibytes):
    """A .tar.gz holding one member of zeros, built in milliseconds: the deflate block of one MiB of
    zeros after a full flush (which resets the compressor) is the same every time, so it is
    compressed once and repeated; the gzip trailer's CRC is combined the same way."""
    import struct
    import zlib

    member = tarfile.TarInfo(member_name)
    member.size = mebibytes * 1024**2
    header, zeros = member.tobuf(), bytes(1024**2)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = compressor.compress(header) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    tail = compressor.compress(bytes(2 * tarfile.BLOCKSIZE)) + compressor.flush()
    crc = zlib.crc32(header)
    for _ in range(mebibytes):
        crc = zlib.crc32(zeros, crc)
    crc = zlib.crc32(bytes(2 * tarfile.BLOCKSIZE), crc)
    length = len(header) + member.size + 2 * tarfile.BLOCKSIZE
    gzip_header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    path.write_bytes(gzip_header + head + block * mebibytes + tail + struct.pack("<II", crc, length & 0xFFFFFFFF))
    return path


# -- the learning platforms' bulk exports: names with spaces and accents, identity from the platform's name -------
MOODLE = [
    ("Anne Marie Dupont_1234_assignsubmission_file_/demo.ipynb", "Anne_Marie_Dupont_1234"),
    ("Zoë Müller_5678_assignsubmission_file_/demo.ipynb", "Zoë_Müller_5678"),
    ("O'Brien, Seán_91_assignsubmission_file_/sub/demo.ipynb", "O_Brien_Seán_91"),
    # two students with the same name: the platform's id keeps them apart
    ("Anne Marie Dupont_4321_assignsubmission_file_/demo.ipynb", "Anne_Marie_Dupont_4321"),
]
CANVAS = [
    ("dupontanne_12345_67890_demo.ipynb", "dupontanne_12345"),
    ("mullerzoe_LATE_23456_78901_demo-1.ipynb", "mullerzoe_23456"),
]


def test_a_moodle_export_in_a_folder_and_in_an_archive(tmp_path):
    folder = tmp_path / "moodle"
    for member, _ in MOODLE:
        path = folder / member
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(NOTEBOOK)
    expected = {student for _, student in MOODLE}
    found = _by_student(find_submissions([str(folder)], "demo"))
    assert set(found) == expected and all(s.problem is None and s.data == NOTEBOOK for s in found.values())
    archive = _zip(tmp_path / "moodle.zip", [(member, NOTEBOOK) for member, _ in MOODLE])
    found = _by_student(find_submissions([], "demo", bulk_archives=[str(archive)]))
    assert set(found) == expected and all(s.problem is None for s in found.values())
    assert found["Zoë_Müller_5678"].origin.endswith("Zoë Müller_5678_assignsubmission_file_/demo.ipynb")


def test_a_moodle_name_in_decomposed_unicode_is_the_same_student():
    """macOS writes 'ë' as 'e' and a combining diaeresis; the name is read in NFC, as typed."""
    from grading.submissions import platform_student

    assert platform_student("Zoe\u0308 Mu\u0308ller_5678_assignsubmission_file_") == "Zoë_Müller_5678"
    assert platform_student("-rf x_4_assignsubmission_file_") == "rf_x_4"  # no leading dash for a command line


def test_a_canvas_export_in_a_folder_and_in_an_archive(tmp_path):
    folder = tmp_path / "canvas"
    folder.mkdir()
    for member, _ in CANVAS:
        (folder / member).write_bytes(NOTEBOOK)
    expected = {student for _, student in CANVAS}
    assert set(_by_student(find_submissions([str(folder)], "demo"))) == expected
    archive = _zip(tmp_path / "canvas.zip", [(member, NOTEBOOK) for member, _ in CANVAS])
    assert set(_by_student(find_submissions([], "demo", bulk_archives=[str(archive)]))) == expected


GRADESCOPE_METADATA = """---
submission_123456:
  :submitters:
  - :name: Anne Marie Dupont
    :sid: '1001'
    :email: anne@example.org
  :created_at: 2026-10-01 10:00:00.000000000 +00:00
  :score: 0.0
submission_234567:
  :submitters:
  - :name: "Zoë Müller"
    :sid: '1002'
  :created_at: 2026-10-01 11:00:00.000000000 +00:00
"""


def test_a_gradescope_export_names_each_submission_after_its_submitter(tmp_path):
    export = tmp_path / "assignment_42_export"
    for folder in ("submission_123456", "submission_234567"):
        (export / folder).mkdir(parents=True)
        (export / folder / "demo.ipynb").write_bytes(NOTEBOOK)
    (export / "submission_metadata.yml").write_text(GRADESCOPE_METADATA)
    expected = {"Anne_Marie_Dupont_123456", "Zoë_Müller_234567"}
    assert set(_by_student(find_submissions([str(export)], "demo"))) == expected
    members = [(f"assignment_42_export/{f}/demo.ipynb", NOTEBOOK) for f in ("submission_123456", "submission_234567")]
    archive = _zip(tmp_path / "gradescope.zip", members + [
        ("assignment_42_export/submission_metadata.yml", GRADESCOPE_METADATA.encode())])  # fmt: skip
    found = _by_student(find_submissions([], "demo", bulk_archives=[str(archive)]))
    assert set(found) == expected and all(s.problem is None for s in found.values())


@pytest.mark.parametrize(
    "folder, reason",
    [
        ("../Anne Dupont_1_assignsubmission_file_", "leaves the archive"),  # path tricks stay refused
        ("Eve\u202eelif_2_assignsubmission_file_", "unsafe student name"),  # a right-to-left override
        ("Eve\nMallory_3_assignsubmission_file_", "unsafe student name"),  # a newline in grades.csv
        ("!!! _4_assignsubmission_file_", "unsafe student name"),  # nothing of a name left
        ("a..b_5_assignsubmission_file_", "unsafe student name"),  # ".." in the name
    ],
)
def test_platform_names_never_pass_a_path_trick_or_a_control_character(tmp_path, folder, reason):
    archive = _zip(tmp_path / "export.zip", [(f"{folder}/demo.ipynb", NOTEBOOK), ("ok/demo.ipynb", NOTEBOOK)])
    found = find_submissions([], "demo", bulk_archives=[str(archive)])
    problems = [submission.problem for submission in found if submission.problem]
    assert problems and reason in problems[0], problems
    assert all(submission.data is None for submission in found if submission.problem)


def test_gradescope_metadata_builds_no_objects_and_ignores_other_keys():
    from grading.submissions import gradescope_names

    text = "submission_1:\n  :submitters:\n  - :name: !!python/object/apply:os.system ['id']\nother:\n  :name: x\n"
    assert gradescope_names(text) == {"submission_1": "!!python/object/apply:os.system ['id']"}
