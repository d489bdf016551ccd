"""Finding the submitted notebooks: folders, files, globs and archives, with unsafe entries rejected.

A student's name becomes a file name (their feedback) and a row of ``grades.csv``, so it must be a
plain name: letters, digits and ``. _ @ + -``, starting with a letter or digit, at most 100
characters. Anything else (``../../etc``, a leading dash or ``=``, a newline), a symbolic link, a
hard link or device in an archive, an absolute or ``..`` member path, is rejected with a reason and
listed in ``grades.csv`` under a sanitised name; nothing from it is read or written.

Layouts understood:

* ``submissions/alice.ipynb``: the student is the file's stem;
* ``submitted/alice/ch02/ch02.ipynb`` (nbgrader's layout): the student is the first folder;
* an archive (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``) holding either layout. Archives are read
  member by member into memory; nothing is ever extracted to disk.
"""

from __future__ import annotations

import glob
import os
import stat
import tarfile
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


def sanitised(name: str) -> str:
    cleaned = "".join(c if (c.isalnum() and c.isascii()) or c in "_-" else "_" for c in name)[:60]
    return "rejected-" + (cleaned or "_")


def find_submissions(arguments: list[str], notebook_name: str | None = None) -> list[Submission]:
    """Every submission named by ``arguments`` (paths, globs, folders, archives), duplicates rejected."""
    found: list[Submission] = []
    for argument in arguments:
        paths = [argument] if os.path.lexists(argument) else sorted(glob.glob(argument, recursive=True))
        if not paths:
            found.append(Submission(sanitised(Path(argument).name), argument, problem="no such file or folder"))
        for path in paths:
            found.extend(_from_path(Path(path), notebook_name))
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
        return _from_archive(path, notebook_name)
    if path.suffix == ".ipynb":
        return [_from_file(path, path.stem)]
    return [_rejected(path.name, str(path), "not a notebook (.ipynb) or an archive (.zip, .tar, .tar.gz)")]


def _is_archive(name: str) -> bool:
    return name.endswith((".zip", ".tar", ".tar.gz", ".tgz"))


def _rejected(name: str, origin: str, problem: str) -> Submission:
    return Submission(sanitised(name), origin, problem=problem)


def _from_file(path: Path, student: str) -> Submission:
    if not is_safe_name(student):
        return _rejected(student, str(path), "unsafe student name (use letters, digits and . _ @ + -)")
    try:
        return Submission(student, str(path), data=read_bytes(path))
    except NotebookError as error:
        return _rejected(student, str(path), str(error))


def _from_folder(folder: Path, notebook_name: str | None) -> list[Submission]:
    """Notebooks directly inside (one per student), and student folders (nbgrader's layout)."""
    submissions = []
    for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        path = Path(entry.path)
        if entry.is_symlink():
            submissions.append(_rejected(path.stem, str(path), "a symbolic link; submissions must be real files"))
        elif entry.is_dir(follow_symlinks=False):
            submissions.append(_from_student_folder(path, notebook_name))
        elif entry.name.endswith(".ipynb"):
            submissions.append(_from_file(path, path.stem))
        elif _is_archive(entry.name):
            submissions.extend(_from_archive(path, notebook_name))
    return submissions


def _from_student_folder(folder: Path, notebook_name: str | None) -> Submission:
    student = folder.name
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


def _from_archive(archive: Path, notebook_name: str | None) -> list[Submission]:
    """Read notebooks out of a zip or tar archive; one unsafe member rejects the whole archive."""
    try:
        members = _zip_members(archive) if archive.name.endswith(".zip") else _tar_members(archive)
    except _UnsafeArchive as error:
        return [_rejected(archive.name, str(archive), f"unsafe archive: {error}")]
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError) as error:
        return [_rejected(archive.name, str(archive), f"unreadable archive: {error}")]
    by_student: dict[str, list[tuple[PurePosixPath, bytes]]] = {}
    for name, data in members:
        path = PurePosixPath(name)
        if not path.name.endswith(".ipynb") or any(part.startswith(".") for part in path.parts):
            continue
        student = path.parts[0] if len(path.parts) > 1 else path.stem
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


def _zip_members(archive: Path) -> list[tuple[str, bytes]]:
    members, total = [], 0
    with zipfile.ZipFile(read_and_wrap(archive)) as handle:
        infos = handle.infolist()
        if len(infos) > MAX_ARCHIVE_MEMBERS:
            raise _UnsafeArchive(f"{len(infos)} members")
        for info in infos:
            problem = _member_problem(info.filename)
            if problem:
                raise _UnsafeArchive(problem)
            kind = stat.S_IFMT(info.external_attr >> 16)
            if kind == stat.S_IFLNK:
                raise _UnsafeArchive(f"a symbolic link ({info.filename[:80]!r})")
            if info.is_dir() or not info.filename.endswith(".ipynb"):
                continue
            if kind not in (0, stat.S_IFREG):
                raise _UnsafeArchive(f"a special file ({info.filename[:80]!r})")
            if info.file_size > MAX_NOTEBOOK_BYTES:
                raise _UnsafeArchive(f"{info.filename[:80]!r} is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
            with handle.open(info) as member:
                data = member.read(MAX_NOTEBOOK_BYTES + 1)  # the header may lie about the size
            if len(data) > MAX_NOTEBOOK_BYTES:
                raise _UnsafeArchive(f"{info.filename[:80]!r} is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
            members.append((info.filename, data))
            total = _check_total(total, data)
    return members


def _tar_members(archive: Path) -> list[tuple[str, bytes]]:
    members, total = [], 0
    with tarfile.open(fileobj=read_and_wrap(archive)) as handle:
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
            if not info.name.endswith(".ipynb"):
                continue
            if info.size > MAX_NOTEBOOK_BYTES:
                raise _UnsafeArchive(f"{info.name[:80]!r} is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
            data = handle.extractfile(info).read()
            members.append((info.name, data))
            total = _check_total(total, data)
    return members


def _check_total(total: int, data: bytes) -> int:
    total += len(data)
    if total > MAX_ARCHIVE_NOTEBOOK_BYTES:
        raise _UnsafeArchive(f"its notebooks add up to more than {MAX_ARCHIVE_NOTEBOOK_BYTES >> 20} MiB")
    return total


MAX_ARCHIVE_BYTES = 1024**3


def read_and_wrap(path: Path):
    import io

    try:
        return io.BytesIO(read_bytes(path, limit=MAX_ARCHIVE_BYTES))
    except NotebookError as error:
        raise OSError(str(error)) from None
