"""Downloading and unpacking dataset files safely.

The rule: a file appears under its final name only once it is complete and verified.

* ``download_url`` streams into a temporary file next to the target (``.name.xxxx.part``),
  showing a tqdm progress bar, then checks the length and the checksum, and only then
  renames it into place (``os.replace`` is atomic on one file system). A dropped
  connection, a wrong checksum or Ctrl-C leaves no half-written file behind.
* ``extract_archive`` unpacks ``.gz`` and ``.tar(.gz)`` files the same way: into a
  temporary name or folder first, then renamed. Tar members that would land outside the
  target folder (``../``, absolute paths, links) are refused.
* Errors say which URL failed and where to put the file by hand.
"""

from __future__ import annotations

import gzip
import hashlib
import http.client
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request

__all__ = [
    "calculate_md5", "check_integrity", "download_url", "extract_archive", "download_and_extract_archive",
    "verify_str_arg", "DownloadError",
]

USER_AGENT = "minitorch-vision"
_CHUNK = 1024 * 1024


class DownloadError(RuntimeError):
    """A download failed (network error, incomplete transfer or checksum mismatch); nothing was written."""


def calculate_md5(fpath: str | os.PathLike, chunk_size: int = _CHUNK) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as file:
        for chunk in iter(lambda: file.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _calculate_sha256(fpath: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(fpath, "rb") as file:
        for chunk in iter(lambda: file.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _checksum_matches(fpath, md5: str | None = None, sha256: str | None = None) -> bool:
    if md5 is not None and calculate_md5(fpath) != md5:
        return False
    return sha256 is None or _calculate_sha256(fpath) == sha256


def check_integrity(fpath: str | os.PathLike, md5: str | None = None) -> bool:
    """Whether the file exists and (when ``md5`` is given) has that MD5 digest."""
    if not os.path.isfile(fpath):
        return False
    return md5 is None or calculate_md5(fpath) == md5


def _by_hand(url: str, path: str, md5: str | None, sha256: str | None) -> str:
    checksum = f" (md5 {md5})" if md5 else f" (sha256 {sha256})" if sha256 else ""
    return f"To install it by hand, download {url} yourself and save it as {path}{checksum}."


def download_url(url: str, root: str | os.PathLike, filename: str | None = None, md5: str | None = None,
                 sha256: str | None = None, progress: bool = True, timeout: float = 60.0) -> str:
    """Download ``url`` to ``root/filename`` and verify it; returns the path. Skips an intact existing file."""
    root = os.path.expanduser(os.fspath(root))
    filename = filename or os.path.basename(url)
    path = os.path.join(root, filename)
    os.makedirs(root, exist_ok=True)
    if os.path.isfile(path) and _checksum_matches(path, md5, sha256):
        return path
    descriptor, temporary = tempfile.mkstemp(prefix=f".{filename}.", suffix=".part", dir=root)
    try:
        with os.fdopen(descriptor, "wb") as target:
            _stream(url, target, progress, timeout)
        if not _checksum_matches(temporary, md5, sha256):
            expected = f"md5 {md5}" if md5 else f"sha256 {sha256}"
            found = f"md5 {calculate_md5(temporary)}" if md5 else f"sha256 {_calculate_sha256(temporary)}"
            raise DownloadError(
                f"The file downloaded from {url} is corrupt: expected {expected}, got {found}. Nothing was saved. "
                + _by_hand(url, path, md5, sha256)
            )
        os.replace(temporary, path)
    except DownloadError:
        raise
    except (OSError, http.client.HTTPException, ValueError) as error:  # URLError is an OSError
        raise DownloadError(
            f"Downloading {url} failed ({type(error).__name__}: {error}). Nothing was saved. "
            + _by_hand(url, path, md5, sha256)
        ) from error
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return path


def _stream(url: str, target, progress: bool, timeout: float) -> None:
    """Copy the response body into ``target`` chunk by chunk, checking it is as long as announced."""
    from tqdm.auto import tqdm  # tqdm.auto loads the notebook widgets: only when a download shows progress

    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        length = response.headers.get("Content-Length")
        total = int(length) if length is not None else None
        received = 0
        with tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=os.path.basename(url),
                  disable=not progress, leave=False) as bar:
            while True:
                chunk = response.read(_CHUNK)
                if not chunk:
                    break
                target.write(chunk)
                received += len(chunk)
                bar.update(len(chunk))
    if total is not None and received != total:
        raise OSError(f"the connection closed after {received} of {total} bytes")


def _extract_gzip(source: str, destination: str) -> None:
    directory = os.path.dirname(destination) or "."
    descriptor, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(destination)}.", suffix=".part",
                                             dir=directory)
    try:
        with os.fdopen(descriptor, "wb") as target, gzip.open(source, "rb") as compressed:
            shutil.copyfileobj(compressed, target, _CHUNK)
        os.replace(temporary, destination)
    except (OSError, EOFError) as error:
        raise RuntimeError(f"{source} is not a valid gzip file (corrupt or truncated?): {error}") from error
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def _extract_tar(source: str, destination: str) -> list[str]:
    """Unpack into a temporary folder inside ``destination``, then move each top-level entry into place."""
    os.makedirs(destination, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".extract-", dir=destination)
    try:
        try:
            with tarfile.open(source, "r:*") as archive:
                for member in archive.getmembers():
                    if not (member.isfile() or member.isdir()):
                        raise RuntimeError(f"{source} holds {member.name!r}, which is not a plain file or folder")
                    parts = member.name.replace("\\", "/").split("/")
                    if member.name.startswith("/") or ".." in parts:
                        raise tarfile.TarError(f"member {member.name!r} would be written outside the target folder")
                if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12 / 3.11.4: the standard library checks too
                    archive.extractall(staging, filter="data")
                else:
                    archive.extractall(staging)
        except (tarfile.TarError, OSError, EOFError) as error:
            raise RuntimeError(f"{source} is not a valid tar archive (corrupt or truncated?): {error}") from error
        moved = []
        for entry in sorted(os.listdir(staging)):
            final = os.path.join(destination, entry)
            if os.path.isdir(final) and os.path.isdir(os.path.join(staging, entry)):
                shutil.rmtree(final)
            os.replace(os.path.join(staging, entry), final)
            moved.append(final)
        return moved
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def extract_archive(from_path: str, to_path: str | None = None, remove_finished: bool = False) -> str:
    """Unpack a ``.gz``, ``.tar``, ``.tar.gz`` or ``.tgz`` file; returns the folder (or file) it wrote."""
    to_path = to_path if to_path is not None else os.path.dirname(from_path)
    name = os.path.basename(from_path)
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        _extract_tar(from_path, to_path)
        result = to_path
    elif name.endswith(".gz"):
        result = os.path.join(to_path, name[: -len(".gz")])
        os.makedirs(to_path, exist_ok=True)
        _extract_gzip(from_path, result)
    else:
        raise RuntimeError(f"Archive type of {from_path} is not supported: use .gz, .tar, .tar.gz or .tgz")
    if remove_finished:
        os.remove(from_path)
    return result


def download_and_extract_archive(url: str, download_root: str, extract_root: str | None = None,
                                 filename: str | None = None, md5: str | None = None, sha256: str | None = None,
                                 remove_finished: bool = False, progress: bool = True) -> None:
    """``download_url`` (verified) then ``extract_archive``."""
    extract_root = extract_root or download_root
    archive = download_url(url, download_root, filename, md5=md5, sha256=sha256, progress=progress)
    extract_archive(archive, extract_root, remove_finished)


def verify_str_arg(value, arg: str | None = None, valid_values=None, custom_msg: str | None = None) -> str:
    """``value`` if it is a string among ``valid_values``; otherwise a ValueError naming the argument."""
    if not isinstance(value, str):
        raise ValueError(f"Expected type str{f' for argument {arg}' if arg else ''}, but got type {type(value)}.")
    if valid_values is None or value in valid_values:
        return value
    message = custom_msg or (
        f"Unknown value '{value}' for argument {arg}. Valid values are {{{', '.join(repr(v) for v in valid_values)}}}."
    )
    raise ValueError(message)
