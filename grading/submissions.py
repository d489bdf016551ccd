"""Finding the submitted notebooks: folders, files, globs and archives, with unsafe entries rejected.

A student's name becomes a file name (their feedback) and a row of ``grades.csv``, so it must be a
plain name: letters, digits and ``. _ @ + -``, starting with a letter or digit, at most 100
characters. Anything else (``../../etc``, a leading dash or ``=``, a newline), a symbolic link, a
hard link or device in an archive, an absolute or ``..`` member path, is rejected with a reason and
listed in ``grades.csv`` under a sanitised name; nothing from it is read or written.

Identity comes from the upload's owner, as the learning platform recorded it, never from a name
inside an archive: a student can put any name in their own zip, including a classmate's.

* ``submissions/alice.ipynb``: the student is the file's stem;
* ``submitted/alice/ch02/ch02.ipynb`` (nbgrader's layout): the student is the first folder;
* ``submissions/alice.zip`` (or ``.tar``, ``.tar.gz``, ``.tgz``): one student's upload; the student
  is the archive's stem, and the notebook inside is the one named after the assignment, or the only
  one. Member names choose the notebook, never the student;
* a bulk export of the platform (``--bulk-archive export.zip``, given by the instructor): holds either
  layout above, and there the folder or file names inside are the students.

The learning platforms name the entries of their bulk exports after the students, with spaces and
accents; those names are read (in a folder given on the command line and in a ``--bulk-archive`` alike)
and turned into plain names that keep the platform's identity, the name *and* its id (two students may
share a name, never an id):

* Moodle: a folder ``Anne Marie Dupont_1234_assignsubmission_file_`` is ``Anne_Marie_Dupont_1234``;
* Canvas: a file ``dupontanne_12345_67890_ch02.ipynb`` (``dupontanne_LATE_12345_67890_ch02.ipynb`` when
  late) is ``dupontanne_12345`` (the login and the user id; the submission id and file name are dropped);
* Gradescope: a folder ``submission_123456/`` beside the export's ``submission_metadata.yml`` is the
  submitter's name there and the submission id, ``Anne_Marie_Dupont_123456``.

Letters with accents stay (``Zoë_Müller_5678``, in Unicode's NFC form); every other character that is not
a letter, digit or ``. _ @ + -`` becomes ``_``, and the result must still be a plain name: a name with a
control or bidirectional character, a path separator, ``..`` or nothing left is rejected as before.

Archives are read member by member into memory, never extracted to disk, and streamed under caps:
members and total size, the compression ratio (a 12 MiB ``.tar.gz`` of 12 GiB of zeros stops after
a few MiB), no encrypted members, no links or special files. Each refusal is a rejected submission,
listed in ``rejected.txt`` with its reason.
"""

from __future__ import annotations

import glob
import gzip
import io
import os
import re
import stat
import tarfile
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grading.notebook import MAX_NOTEBOOK_BYTES, NotebookError, read_bytes

MAX_ARCHIVE_MEMBERS = 10_000
MAX_ARCHIVE_NOTEBOOK_BYTES = 512 * 1024**2  # all notebooks of one archive together, once decompressed
_NAME_CHARACTERS = set("._@+-")


@dataclass
class Submission:
    student: str  # a safe name, or a sanitised one when rejected
    origin: str  # where it came from, for messages
    data: bytes | None = None  # the notebook's bytes, read once
    problem: str | None = None  # why it is rejected (nothing is graded then)


def is_safe_name(name: str) -> bool:
    return (
        0 < len(name) <= 100
        and name[0].isalnum()
        and all(character.isalnum() or character in _NAME_CHARACTERS for character in name)
        and ".." not in name
        and name.isprintable()
    )


_MOODLE = re.compile(r"(?P<name>[^/]+?)_(?P<id>\d+)_assignsubmission_[a-z]+_?")
_CANVAS = re.compile(r"(?P<login>[a-z0-9]+)_(?:late_)?(?P<user>\d+)_(?P<submission>\d+)_(?P<file>.+)", re.IGNORECASE)
_GRADESCOPE = re.compile(r"submission_(?P<id>\d+)")
GRADESCOPE_METADATA = "submission_metadata.yml"


def _plain(text: str) -> str:
    """Spaces and other punctuation as ``_`` (runs of them as one), accents kept: 'Anne Marie' -> 'Anne_Marie'."""
    text = unicodedata.normalize("NFC", text)
    kept = "".join(c if c.isalnum() or c in _NAME_CHARACTERS else "_" for c in text)
    return re.sub(r"_+", "_", kept).strip("_.-")


def platform_student(name: str, gradescope_names: dict[str, str] | None = None) -> str | None:
    """The plain student name that a platform's export entry ``name`` (a folder, or a file's stem) stands for, or
    None when ``name`` is not one of the platforms' patterns. The caller checks the result with is_safe_name."""
    if not name.isprintable() or "/" in name or "\\" in name or name.startswith("."):
        return None  # control or bidirectional characters, paths: never rewritten, refused as they are
    moodle = _MOODLE.fullmatch(name)
    if moodle:
        return f"{_plain(moodle['name'])}_{moodle['id']}"
    gradescope = _GRADESCOPE.fullmatch(name)
    if gradescope and gradescope_names is not None and name in gradescope_names:
        return f"{_plain(gradescope_names[name])}_{gradescope['id']}"
    canvas = _CANVAS.fullmatch(name)
    if canvas:
        return f"{canvas['login']}_{canvas['user']}"
    return None


def gradescope_names(text: str) -> dict[str, str]:
    """``{"submission_123456": "Anne Marie Dupont"}`` from Gradescope's ``submission_metadata.yml``: the first
    submitter's ``:name:`` under each top-level ``submission_<id>:`` key (a group is named after its first
    member). Read with a few patterns, not a YAML library: only these keys are used, and nothing in the file can
    make the reader build objects."""
    names: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        key = re.fullmatch(r"(submission_\d+):\s*", line)
        if key:
            current = key[1]
            continue
        if line[:1] not in (" ", "-", ""):
            current = None  # another top-level key
        named = re.fullmatch(r"\s*-?\s*:name:\s*(.*?)\s*", line)
        if current and named and current not in names:
            value = named[1]
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            names[current] = value
    return names


def _student_name(name: str, gradescope: dict[str, str] | None = None) -> str:
    """A submission's student name: the platform's identity when ``name`` follows a platform's pattern."""
    return platform_student(name, gradescope) or name


def sanitised(name: str) -> str:
    cleaned = "".join(c if (c.isalnum() and c.isascii()) or c in "_-" else "_" for c in name)[:60]
    return "rejected-" + (cleaned or "_")


def find_submissions(
    arguments: list[str], notebook_name: str | None = None, bulk_archives: list[str] = ()
) -> list[Submission]:
    """Every submission named by ``arguments`` (paths, globs, folders, archives) and in the instructor's
    ``bulk_archives``, duplicates rejected."""
    found: list[Submission] = []
    for argument in arguments:
        paths = [argument] if os.path.lexists(argument) else sorted(glob.glob(argument, recursive=True))
        if not paths:
            found.append(Submission(sanitised(Path(argument).name), argument, problem="no such file or folder"))
        for path in paths:
            found.extend(_from_path(Path(path), notebook_name))
    for archive in bulk_archives:
        if not os.path.lexists(archive):
            found.append(Submission(sanitised(Path(archive).name), archive, problem="no such file or folder"))
        else:
            found.extend(_from_bulk_archive(Path(archive), notebook_name))
    seen: dict[str, str] = {}
    for submission in found:
        if submission.problem:
            continue
        if submission.student in seen:
            submission.problem = f"duplicate student name (also in {seen[submission.student]})"
            submission.student = sanitised(submission.student)
        else:
            seen[submission.student] = submission.origin
    return found


def _from_path(path: Path, notebook_name: str | None) -> list[Submission]:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return [_rejected(path.stem, str(path), "a symbolic link; submissions must be real files or folders")]
    if stat.S_ISDIR(info.st_mode):
        return _from_folder(path, notebook_name)
    if _is_archive(path.name):
        return [_from_upload_archive(path, notebook_name)]
    if path.suffix == ".ipynb":
        return [_from_file(path, _student_name(path.stem))]
    return [_rejected(path.name, str(path), "not a notebook (.ipynb) or an archive (.zip, .tar, .tar.gz)")]


_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip", ".tar")


def _is_archive(name: str) -> bool:
    return name.endswith(_ARCHIVE_SUFFIXES)


def _archive_stem(name: str) -> str:
    return next(name[: -len(suffix)] for suffix in _ARCHIVE_SUFFIXES if name.endswith(suffix))


def _rejected(name: str, origin: str, problem: str) -> Submission:
    return Submission(sanitised(name), origin, problem=problem)


def _from_file(path: Path, student: str) -> Submission:
    if not is_safe_name(student):
        return _rejected(student, str(path), "unsafe student name (use letters, digits and . _ @ + -)")
    try:
        return Submission(student, str(path), data=read_bytes(path))
    except NotebookError as error:
        return _rejected(student, str(path), str(error))


def _gradescope_metadata(folder: Path) -> dict[str, str] | None:
    path = folder / GRADESCOPE_METADATA
    if not path.is_file() or path.is_symlink():
        return None
    try:
        return gradescope_names(read_bytes(path, 16 * 1024**2).decode("utf-8", errors="replace"))
    except NotebookError:
        return None


def _from_folder(folder: Path, notebook_name: str | None) -> list[Submission]:
    """Notebooks directly inside (one per student), and student folders (nbgrader's layout, or a platform's)."""
    submissions = []
    gradescope = _gradescope_metadata(folder)
    for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        path = Path(entry.path)
        if entry.is_symlink():
            submissions.append(_rejected(path.stem, str(path), "a symbolic link; submissions must be real files"))
        elif entry.is_dir(follow_symlinks=False):
            submissions.append(_from_student_folder(path, notebook_name, _student_name(entry.name, gradescope)))
        elif entry.name.endswith(".ipynb"):
            submissions.append(_from_file(path, _student_name(path.stem)))
        elif _is_archive(entry.name):
            submissions.append(_from_upload_archive(path, notebook_name))
    return submissions


def _from_student_folder(folder: Path, notebook_name: str | None, student: str | None = None) -> Submission:
    student = student or folder.name
    if not is_safe_name(student):
        return _rejected(student, str(folder), "unsafe student name (use letters, digits and . _ @ + -)")
    notebooks: list[Path] = []
    for root, directories, files in os.walk(folder):  # os.walk does not follow symbolic links
        depth = len(Path(root).relative_to(folder).parts)
        directories[:] = [d for d in sorted(directories) if not d.startswith(".") and depth < 3]
        for name in sorted(files):
            path = Path(root) / name
            if name.endswith(".ipynb"):
                if path.is_symlink():
                    return _rejected(student, str(path), "contains a symbolic link to a notebook")
                notebooks.append(path)
    chosen = _choose(notebooks, notebook_name, lambda path: path.stem)
    if isinstance(chosen, str):
        return _rejected(student, str(folder), chosen)
    return _from_file(chosen, student)


def _choose(candidates, notebook_name, stem_of):
    if notebook_name:
        named = [candidate for candidate in candidates if stem_of(candidate) == notebook_name]
        if len(named) == 1:
            return named[0]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        return "no notebook found"
    return f"{len(candidates)} notebooks and none named {notebook_name}.ipynb"


def _member_problem(name: str) -> str | None:
    if not name or "\x00" in name or "\\" in name:
        return "an unsafe member name"
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith("/"):
        return f"an absolute member path ({name[:80]!r})"
    if ".." in path.parts:
        return f"a member path that leaves the archive ({name[:80]!r})"
    return None


def _archive_members(archive: Path) -> list[tuple[str, bytes]] | Submission:
    """The notebooks of ``archive``, or a rejected Submission saying why it cannot be read safely."""
    try:
        return _zip_members(archive) if archive.name.endswith(".zip") else _tar_members(archive)
    except _UnsafeArchive as error:
        return _rejected(archive.name, str(archive), f"unsafe archive: {error}")
    except NotebookError as error:
        return _rejected(archive.name, str(archive), f"unreadable archive: {error}")
    except Exception as error:  # noqa: BLE001 - zipfile, tarfile, gzip and zlib raise many kinds; none stops the batch
        return _rejected(archive.name, str(archive), f"unreadable archive: {type(error).__name__}: {str(error)[:80]}")


def _from_upload_archive(archive: Path, notebook_name: str | None) -> Submission:
    """One student's upload: the student is the archive's name, whatever the names inside say."""
    student = _archive_stem(archive.name)
    if not is_safe_name(student):
        return _rejected(student, str(archive), "unsafe student name (use letters, digits and . _ @ + -)")
    members = _archive_members(archive)
    if isinstance(members, Submission):
        return members  # named after the whole archive's name, so alice.zip and alice.tar stay apart
    notebooks = [
        (PurePosixPath(name), data)
        for name, data in members
        if name.endswith(".ipynb") and not any(part.startswith(".") for part in PurePosixPath(name).parts)
    ]
    chosen = _choose(notebooks, notebook_name, lambda item: item[0].stem)
    if isinstance(chosen, str):
        return _rejected(student, str(archive), chosen)
    return Submission(student, f"{archive}:{chosen[0]}", data=chosen[1])


def _from_bulk_archive(archive: Path, notebook_name: str | None) -> list[Submission]:
    """The instructor's export of the platform: its folder (or file) names are the students."""
    members = _archive_members(archive)
    if isinstance(members, Submission):
        return [members]
    by_student: dict[str, list[tuple[PurePosixPath, bytes]]] = {}
    metadata = [data for name, data in members if PurePosixPath(name).name == GRADESCOPE_METADATA]
    gradescope = gradescope_names(metadata[0].decode("utf-8", errors="replace")) if len(metadata) == 1 else None
    for name, data in members:
        path = PurePosixPath(name)
        if any(part.startswith(".") for part in path.parts) or path.name == GRADESCOPE_METADATA:
            continue
        if gradescope is not None and len(path.parts) > 2 and path.parts[0] not in gradescope:
            path = PurePosixPath(*path.parts[1:])  # Gradescope's export: one folder around the submissions
        student = _student_name(path.parts[0] if len(path.parts) > 1 else path.stem, gradescope)
        by_student.setdefault(student, []).append((path, data))
    submissions = []
    for student, notebooks in sorted(by_student.items()):
        origin = f"{archive}:{notebooks[0][0]}"
        if not is_safe_name(student):
            submissions.append(_rejected(student, origin, "unsafe student name (use letters, digits and . _ @ + -)"))
            continue
        chosen = _choose(notebooks, notebook_name, lambda item: item[0].stem)
        if isinstance(chosen, str):
            submissions.append(_rejected(student, origin, chosen))
        else:
            submissions.append(Submission(student, f"{archive}:{chosen[0]}", data=chosen[1]))
    return submissions


class _UnsafeArchive(Exception):
    pass


MAX_ARCHIVE_BYTES = 256 * 1024**2  # the archive file itself
MAX_EXPANDED_BYTES = 512 * 1024**2  # everything decompressed while reading it, notebooks or not
MAX_RATIO = 100  # decompressed / compressed: notebooks compress 3-20x, zip bombs 1000x and more
_RATIO_ALLOWANCE = 1024**2  # the first MiB may expand more (tiny archives, headers)


class _Expansion:
    """Counts compressed bytes in and decompressed bytes out, and stops a bomb while it streams."""

    def __init__(self):
        self.compressed = self.expanded = 0

    def add(self, compressed: int, expanded: int) -> None:
        self.compressed += compressed
        self.expanded += expanded
        if self.expanded > MAX_EXPANDED_BYTES:
            raise _UnsafeArchive(f"it expands to more than {MAX_EXPANDED_BYTES >> 20} MiB")
        if self.expanded > MAX_RATIO * self.compressed + _RATIO_ALLOWANCE:
            raise _UnsafeArchive(f"it expands more than {MAX_RATIO} times (a compression bomb?)")


def _open_archive(archive: Path):
    """The archive as a binary file, refusing links, non-regular files and files over MAX_ARCHIVE_BYTES."""
    descriptor = os.open(archive, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    handle = os.fdopen(descriptor, "rb")
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        handle.close()
        raise _UnsafeArchive("not a regular file")
    if info.st_size > MAX_ARCHIVE_BYTES:
        handle.close()
        raise _UnsafeArchive(f"the archive is larger than {MAX_ARCHIVE_BYTES >> 20} MiB")
    return handle


def _read_member(stream, name: str, declared: int) -> bytes:
    if declared > MAX_NOTEBOOK_BYTES:
        raise _UnsafeArchive(f"{name[:80]!r} is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
    chunks, total = [], 0
    while total <= MAX_NOTEBOOK_BYTES:  # the header may lie about the size: read in bounded chunks
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > MAX_NOTEBOOK_BYTES:
        raise _UnsafeArchive(f"{name[:80]!r} is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
    return b"".join(chunks)


def _zip_members(archive: Path) -> list[tuple[str, bytes]]:
    members, total = [], 0
    expansion = _Expansion()
    with _open_archive(archive) as raw, zipfile.ZipFile(raw) as handle:
        infos = handle.infolist()
        if len(infos) > MAX_ARCHIVE_MEMBERS:
            raise _UnsafeArchive(f"{len(infos)} members")
        for info in infos:
            problem = _member_problem(info.filename)
            if problem:
                raise _UnsafeArchive(problem)
            if info.flag_bits & 0x1:
                raise _UnsafeArchive(f"an encrypted member ({info.filename[:80]!r})")
            kind = stat.S_IFMT(info.external_attr >> 16)
            if kind == stat.S_IFLNK:
                raise _UnsafeArchive(f"a symbolic link ({info.filename[:80]!r})")
            if info.is_dir() or not info.filename.endswith((".ipynb", GRADESCOPE_METADATA)):
                continue  # a zip's members are read one by one: skipping one costs nothing
            if kind not in (0, stat.S_IFREG):
                raise _UnsafeArchive(f"a special file ({info.filename[:80]!r})")
            with handle.open(info) as member:
                data = _read_member(member, info.filename, info.file_size)
            expansion.add(max(info.compress_size, 1), len(data))
            members.append((info.filename, data))
            total = _check_total(total, data)
    return members


class _CountingReader(io.RawIOBase):
    """A read-only stream over ``stream`` that reports each read to ``count``."""

    def __init__(self, stream, count):
        self.stream, self.count = stream, count

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.stream.read(len(buffer))
        buffer[: len(data)] = data
        self.count(len(data))
        return len(data)


def _tar_members(archive: Path) -> list[tuple[str, bytes]]:
    """A tar archive, plain or gzip-compressed, read as a stream: every decompressed byte counts,
    also those of members that are skipped, so a bomb stops at the caps however it is laid out."""
    members, total = [], 0
    expansion = _Expansion()
    with _open_archive(archive) as raw:
        compressed = raw.peek(2)[:2] == b"\x1f\x8b" if hasattr(raw, "peek") else False
        source = _CountingReader(raw, lambda size: expansion.add(size, 0)) if compressed else raw
        stream = gzip.GzipFile(fileobj=io.BufferedReader(source)) if compressed else raw
        counted = io.BufferedReader(_CountingReader(stream, lambda size: expansion.add(0, size)))
        if not compressed:
            expansion.compressed = MAX_EXPANDED_BYTES  # no compression: only the total cap applies
        with tarfile.open(fileobj=counted, mode="r|") as handle:
            for count, info in enumerate(handle):
                if count >= MAX_ARCHIVE_MEMBERS:
                    raise _UnsafeArchive(f"more than {MAX_ARCHIVE_MEMBERS} members")
                problem = _member_problem(info.name)
                if problem:
                    raise _UnsafeArchive(problem)
                if info.issym() or info.islnk():
                    raise _UnsafeArchive(f"a link ({info.name[:80]!r} -> {info.linkname[:80]!r})")
                if info.isdir():
                    continue
                if not info.isreg():
                    raise _UnsafeArchive(f"a special file ({info.name[:80]!r})")
                if not info.name.endswith((".ipynb", GRADESCOPE_METADATA)):
                    continue
                data = _read_member(handle.extractfile(info), info.name, info.size)
                members.append((info.name, data))
                total = _check_total(total, data)
    return members


def _check_total(total: int, data: bytes) -> int:
    total += len(data)
    if total > MAX_ARCHIVE_NOTEBOOK_BYTES:
        raise _UnsafeArchive(f"its notebooks add up to more than {MAX_ARCHIVE_NOTEBOOK_BYTES >> 20} MiB")
    return total
