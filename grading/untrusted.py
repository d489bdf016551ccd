"""Reading what comes out of a sandbox, where the submission may have put anything.

The sandbox's output folder is writable by the submission's code, so every file in it may have been
replaced: by a FIFO (opening it for reading would wait forever), a symbolic link, a folder, a file of
gigabytes, JSON with a 5,000-digit number or nested 100,000 deep, a folder 2,500 levels deep. The
helpers here turn each of those into a :class:`MalformedOutput` (or, for cleanup, into nothing at
all), never into a hang or a crash of the grader:

* :func:`read_regular` opens with ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO opens at once instead of
  blocking), ``fstat``-s the open file and refuses anything but a regular file, and reads at most
  ``limit`` bytes;
* :func:`load_json` parses with bounded integers and floats, and no NaN or infinity;
* :func:`remove_tree` deletes a folder of any depth without recursion and without long paths;
* :func:`printable` escapes control characters (terminal escape sequences) before text is printed
  or written to a log.
"""

from __future__ import annotations

import json
import os
import re
import stat
import uuid
from pathlib import Path


class MalformedOutput(Exception):
    """A file written inside the sandbox is not what the runner writes; the submission scores 0."""


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``), refusing links, FIFOs, devices, folders."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise MalformedOutput(f"{Path(path).name} is missing") from None
    except OSError as error:
        raise MalformedOutput(f"{Path(path).name} cannot be opened ({error.strerror})") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise MalformedOutput(f"{Path(path).name} is not a regular file")
        if info.st_size > limit:
            raise MalformedOutput(f"{Path(path).name} is larger than {limit} bytes")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise MalformedOutput(f"{Path(path).name} is larger than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 18:
        raise ValueError("an integer with more than 18 digits")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > 40:
        raise ValueError("a number written with more than 40 characters")
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError("a number too large for a float")
    return value


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def load_json(data: bytes | str):
    """JSON with every integer within 18 digits, floats finite and within 40 characters, no NaN/Infinity."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return json.loads(text, parse_int=_bounded_int, parse_float=_bounded_float, parse_constant=_no_constant)
    except (ValueError, RecursionError, UnicodeDecodeError) as error:
        raise MalformedOutput(f"invalid JSON ({type(error).__name__})") from None


def bounded_int(value, low: int, high: int) -> bool:
    """True for a plain int (not a bool) with ``low <= value <= high``."""
    return type(value) is int and low <= value <= high


def short_text(value, length: int = 100) -> bool:
    return type(value) is str and len(value) <= length


# -- cleanup --------------------------------------------------------------------------------------
def remove_tree(root: Path) -> None:
    """Delete ``root`` and everything under it, whatever its depth, permissions or names.

    No recursion and no long paths: each folder found is first moved up to sit directly inside
    ``root`` (a rename within one file system), then emptied through a descriptor, so a folder
    2,500 levels deep costs a loop of 2,500 turns, never a deep stack or a path over PATH_MAX.
    Folders without read or search permission are opened up first (the grader owns them, or is root).
    Errors are ignored: cleanup must never stop a batch.
    """
    try:
        info = os.lstat(root)
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        try:
            os.unlink(root)
        except OSError:
            pass
        return
    try:
        root_descriptor = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        _open_up(root)
        try:
            root_descriptor = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return
    moved: list[str] = []
    pending: list[str | None] = [None]  # None is root itself; names are folders moved up into root
    try:
        while pending:
            name = pending.pop()
            if name is not None:
                _open_up(name, root_descriptor)
                try:
                    folder = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=root_descriptor)
                except OSError:
                    continue
            else:
                folder = os.dup(root_descriptor)
            try:
                for entry in _entries(folder):
                    if entry.is_dir(follow_symlinks=False):
                        new_name = f".removing-{uuid.uuid4().hex}"
                        try:
                            os.rename(entry.name, new_name, src_dir_fd=folder, dst_dir_fd=root_descriptor)
                        except OSError:
                            continue
                        moved.append(new_name)
                        pending.append(new_name)
                    else:
                        try:
                            os.unlink(entry.name, dir_fd=folder)
                        except OSError:
                            pass
            finally:
                os.close(folder)
        for name in moved:
            try:
                os.rmdir(name, dir_fd=root_descriptor)
            except OSError:
                pass
    finally:
        os.close(root_descriptor)
    try:
        os.rmdir(root)
    except OSError:
        pass


def _entries(descriptor: int) -> list[os.DirEntry]:
    try:
        with os.scandir(descriptor) as entries:
            return list(entries)
    except OSError:
        return []


def _open_up(path, dir_fd: int | None = None) -> None:
    try:
        os.chmod(path, 0o700, dir_fd=dir_fd)  # a folder renamed by us: never a link
    except OSError:
        pass


# -- text for terminals and logs ------------------------------------------------------------------
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with control characters (escape sequences, carriage returns, bidirectional overrides)
    written as ``\\xNN`` / ``\\uNNNN`` escapes; newlines and tabs stay."""
    return _CONTROL.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)
