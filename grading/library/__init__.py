"""Your own minitorch: the library the chapters' build-its add up to, piece by piece.

Each build-it that rebuilds a piece of minitorch (chapter 1's strided tensor and its kernels, and the
pieces later chapters register) is a **piece** of the learner's own library. A later cell, or a later
chapter, asks for a piece by name::

    from grading.library import use, my_library

    Tensor = use("StridedTensor")       # yours if it passes its public checks, else minitorch's
    my_library("01_tensors")            # the closing cell: which pieces are yours so far

``use(name)`` looks for the learner's piece in two places, in order:

1. the notebook that calls it (the calling cell's globals): the chapter where the piece is built;
2. the learner's saved notebook of that chapter (``../01_tensors/01_tensors.ipynb`` from the folder the
   calling notebook runs in; ``set_course_folder`` names another folder): the cells that define the piece
   (found by their nbgrader ``grade_id``) run in a fresh namespace.

It takes the learner's piece only if that piece passes its exercise's public checks (the checks
``check(...)`` runs, quietly). Otherwise it returns minitorch's equivalent, built from the public
minitorch library (never from the answer key, ``grading/exercises/``), and says so in one line
("your StridedTensor is still blank: using minitorch's"), so "Run All" always completes. In the batch
grader's sandbox no saved notebook is present, and a later chapter's cells then run on minitorch's pieces.
A name that no chapter registers is an error, :class:`UnknownPiece`, that lists the pieces there are (the
capstone catches it for a piece a course may not have yet, the DataLoader, and says so in one line).

Registering a piece is one call (see ``grading/library/tensor.py`` for chapter 1's)::

    piece("tensor_map", chapter="01_tensors", cells=("ch01-kernels-fast",),
          checks={"ch01.kernels_vectorised": "kernels_vectorised_report"}, fallback=minitorch_map)

``cells`` are the solution cells to run, in order, to rebuild the piece from the saved notebook (the
piece's own cell last, the cells it builds on first); ``checks`` maps each exercise that must pass to the
notebook function that exercise checks (a report built on the piece); ``fallback`` is minitorch's
equivalent, with the same interface. Every module of this package is imported on first use, so a new
chapter's pieces go in a module of their own here (``grading/library/engine.py``, say) or beside chapter 1's.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import linecache
import math
import os
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


def _piece_modules() -> list[str]:
    """Every module of this package: each registers its chapter's pieces when imported (on first use)."""
    folder = Path(__file__).parent
    return [f"{__name__}.{path.stem}" for path in sorted(folder.glob("*.py")) if not path.stem.startswith("_")]


YOURS, BLANK, FAILING = "yours", "is still blank", "does not pass its public checks yet"
MISSING, UNCHECKED = "was not found", "cannot be checked here"


@dataclass(frozen=True)
class Piece:
    name: str  # the name the learner's notebook defines ("StridedTensor", "tensor_map")
    chapter: str  # the chapter notebook that builds it ("01_tensors")
    cells: tuple[str, ...]  # grade_ids of the solution cells that define it (and what it builds on)
    checks: Mapping[str, str]  # exercise -> the notebook function its check runs
    fallback: Callable[[], Any]  # returns minitorch's equivalent (called only when needed)


@dataclass
class Found:
    """Where ``use`` found a piece, and what it will hand out."""

    piece: Piece
    status: str  # YOURS, BLANK, FAILING, MISSING or UNCHECKED
    value: Any = None  # the learner's piece when status is YOURS
    detail: str = ""  # the exercise that failed, or where the saved notebook was looked for
    source: str = ""  # "this notebook" or the saved notebook's path
    checked: dict[str, str] = field(default_factory=dict)


_PIECES: dict[str, Piece] = {}
_course_folder: Path | None = None


def piece(name: str, *, chapter: str, cells, checks: Mapping[str, str], fallback: Callable[[], Any]) -> Piece:
    """Register one piece of the learner's library (see the module docstring); returns the entry."""
    if not name.isidentifier():
        raise ValueError(f"a piece is named as the notebook names it, got {name!r}")
    cells = (cells,) if isinstance(cells, str) else tuple(cells)
    entry = Piece(name, chapter, cells, dict(checks), fallback)
    _PIECES[name] = entry
    return entry


def pieces() -> dict[str, Piece]:
    """Every registered piece, in course order."""
    for module in _piece_modules():
        importlib.import_module(module)
    return dict(sorted(_PIECES.items(), key=lambda item: item[1].chapter))


def set_course_folder(folder) -> None:
    """Read saved chapter notebooks from ``folder`` (which holds ``01_tensors/01_tensors.ipynb``, ...)."""
    global _course_folder
    _course_folder = Path(folder) if folder is not None else None


class UnknownPiece(LookupError):
    """``use`` or ``find`` of a name no chapter registers as a piece (a typo, or a piece whose chapter is not in
    this copy of the course yet): the error names the pieces there are."""


def use(name: str, namespace: dict | None = None, *, quiet: bool = False):
    """The learner's piece ``name`` if it passes its public checks, else minitorch's (said in one line).

    ``namespace`` is where the calling notebook's names live (by default the calling cell's globals). A name that
    is no registered piece raises :class:`UnknownPiece`.
    """
    if namespace is None:
        namespace = inspect.currentframe().f_back.f_globals
    found = find(name, namespace)
    if found.status == YOURS:
        if not quiet:
            print(f"using your {name} ({found.source})")
        return found.value
    if not quiet:
        print(f"your {name} {_why(found)}: using minitorch's")
    return found.piece.fallback()


def _why(found: Found) -> str:
    """'still blank', or the status with what it concerns: 'was not found (no saved ...)'."""
    return f"{found.status} ({found.detail})" if found.detail else found.status


def find(name: str, namespace: dict | None = None) -> Found:
    """Where the learner's ``name`` is and whether it passes: this notebook first, then the saved chapter."""
    registered = pieces()
    if name not in registered:
        raise UnknownPiece(
            f"no piece named {name!r} in your library: the pieces the chapters register are {', '.join(registered)}"
        )
    entry = registered[name]
    if namespace is not None and name in namespace and all(function in namespace for function in entry.checks.values()):
        return _judge_here(entry, namespace)
    path = _saved_notebook(entry.chapter)
    if path is None:
        return Found(entry, MISSING, detail=f"no saved {entry.chapter}/{entry.chapter}.ipynb next to this chapter")
    key = (name, str(path), path.stat().st_mtime_ns)
    if key not in _saved_judgements:  # a saved notebook's piece is judged once per version of the file
        _saved_judgements[key] = _judge_saved(entry, path)
    return _saved_judgements[key]


def _judge_here(entry: Piece, namespace: dict) -> Found:
    """Judge the piece in the calling notebook, or take the verdict remembered for the same notebook text.

    In Jupyter the namespace holds ``In``, the text of every cell run so far in this kernel: a verdict is remembered
    under a hash of all of it (and of the checker's version), so running the chapter again unchanged does not check
    the piece again (chapter 12's buckets start processes), while any change to any cell run before is a new key.
    Without ``In`` (a script, a test) the piece is always judged.
    """
    history = namespace.get("In")
    key = None
    if isinstance(history, list) and history and all(isinstance(text, str) for text in history):
        key = _verdict_key(entry, {"this notebook": "\0".join(history)})
    store = _course_root() / VERDICTS_FILE
    remembered = _read_verdicts(store).get(key) if key is not None else None
    if remembered is not None and remembered.get("status") in (YOURS, BLANK, FAILING):
        value = namespace[entry.name] if remembered["status"] == YOURS else None
        return Found(entry, remembered["status"], value, detail=remembered.get("detail", ""), source="this notebook",
                     checked=dict(remembered.get("checked", {})))  # fmt: skip
    found = _judge(entry, namespace, "this notebook")
    if key is not None and found.status in (YOURS, BLANK, FAILING):
        _write_verdict(store, key, {"piece": entry.name, "status": found.status, "detail": found.detail,
                                    "checked": found.checked})  # fmt: skip
    return found


def _course_root() -> Path:
    """The folder that holds the chapters' folders (where the remembered verdicts are kept)."""
    if _course_folder is not None:
        return _course_folder
    if os.environ.get("MINITORCH_COURSE_FOLDER"):
        return Path(os.environ["MINITORCH_COURSE_FOLDER"])
    return Path.cwd().parent


def _judge_saved(entry: Piece, path: Path) -> Found:
    """Judge the saved notebook's piece, or take the verdict remembered for the same cells and the same checker.

    A verdict is remembered on disk (:data:`VERDICTS_FILE`, beside the saved chapters) under a hash of the exact
    text of the piece's cells and of the checker's version (:func:`_checker_version`), so a piece checked in one
    chapter is not checked again in every later chapter (chapter 6's DataLoader and chapter 12's buckets start
    processes to be checked). A changed cell, or a changed checker, is a new key: judged again for real. The file
    is the learner's own view only: the graders (nbgrader's hidden cases, ``minitorch-grade``) never read it.
    """
    sources = _saved_sources(path, entry.cells)
    key = _verdict_key(entry, sources) if sources is not None else None
    store = path.parent.parent / VERDICTS_FILE
    remembered = _read_verdicts(store).get(key) if key is not None else None
    if remembered is not None and remembered.get("status") in (BLANK, FAILING):
        return Found(entry, remembered["status"], detail=remembered.get("detail", ""), source=str(path),
                     checked=dict(remembered.get("checked", {})))  # fmt: skip
    names = _run_saved_cells(path, entry.cells)
    if remembered is not None and remembered.get("status") == YOURS and entry.name in names:
        # the cells still run, for the piece itself; only its checks are skipped
        return Found(entry, YOURS, names[entry.name], source=str(path), checked=dict(remembered.get("checked", {})))
    found = _judge(entry, names, str(path)) if entry.name in names else Found(entry, BLANK, source=str(path))
    if key is not None and found.status in (YOURS, BLANK, FAILING):
        _write_verdict(store, key, {"piece": entry.name, "status": found.status, "detail": found.detail,
                                    "checked": found.checked})  # fmt: skip
    return found


VERDICTS_FILE = ".my_library_verdicts.json"
_checker_versions: dict[tuple, str] = {}


def _checker_version(entry: Piece) -> str | None:
    """A hash of everything the piece's verdict depends on besides its cells: the check machinery, this package
    (its reports and processes), the exercises' cases and tolerances and the files of their references and judges,
    and minitorch's version. None where the exercises are not available (nothing is remembered then)."""
    import minitorch
    from grading import checks, registry

    here = Path(__file__).parent
    files = {Path(checks.__file__), Path(registry.__file__), *here.glob("*.py")}
    cases = []
    for exercise_name in entry.checks:
        try:
            exercise = registry.get(exercise_name)
        except KeyError:
            return None
        # the files that define its reference and judge (the answer key, or the kit's rules), and its cases as data
        for function in (exercise.reference, exercise.judge, exercise.answer_check):
            try:
                files.add(Path(inspect.getsourcefile(function)))
            except TypeError:  # None, or a builtin
                continue
        try:  # arrays pickle to the same bytes in every kernel (a repr would abridge them)
            data = pickle.dumps((exercise.name, exercise.public, exercise.answers, exercise.rtol, exercise.atol,
                                 exercise.check_dtype), protocol=4)  # fmt: skip
        except (pickle.PicklingError, TypeError, AttributeError):
            return None
        cases.append(hashlib.sha256(data).hexdigest())
    stamp = (*sorted((str(path), path.stat().st_mtime_ns) for path in files if path.is_file()), *cases)
    if stamp not in _checker_versions:
        digest = hashlib.sha256(getattr(minitorch, "__version__", "").encode())
        digest.update("".join(cases).encode())
        for path, _ in stamp[: len(stamp) - len(cases)]:
            digest.update(path.encode() + b"\0" + Path(path).read_bytes() + b"\0")
        _checker_versions[stamp] = digest.hexdigest()
    return _checker_versions[stamp]


def _verdict_key(entry: Piece, sources: dict[str, str]) -> str | None:
    """The key a verdict is remembered under: the piece, the exact text of its cells, the checker's version."""
    version = _checker_version(entry)
    if version is None:
        return None
    text = json.dumps([entry.name, sorted(entry.checks.items()), sorted(sources.items()), version])
    return hashlib.sha256(text.encode()).hexdigest()


def _read_verdicts(store: Path) -> dict:
    try:
        verdicts = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return verdicts if isinstance(verdicts, dict) else {}


def _write_verdict(store: Path, key: str, verdict: dict) -> None:
    """Add one verdict (a course folder that cannot be written to just remembers nothing)."""
    verdicts = _read_verdicts(store)
    verdicts[key] = verdict
    partial = store.with_name(f"{store.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(json.dumps(verdicts, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(partial, store)  # whole or not at all: two kernels may write at once
    except OSError:
        partial.unlink(missing_ok=True)


_saved_judgements: dict[tuple, Found] = {}


def _judge(entry: Piece, names: dict, source: str) -> Found:
    from grading import checks, registry  # the checks the learner's check(...) runs

    statuses = {}
    for exercise_name, function_name in entry.checks.items():
        try:
            exercise = registry.get(exercise_name)
        except KeyError:  # no public checks here (the batch grader's sandbox): the piece cannot be vouched for
            return Found(entry, UNCHECKED, detail=f"no public checks of {exercise_name}", source=source)
        function = names.get(function_name)
        if not callable(function):
            statuses[exercise_name] = checks.NOT_IMPLEMENTED
            continue
        with _silenced():
            results = checks.run_cases(exercise, function, exercise.public)
        statuses[exercise_name] = checks._overall(results)
    if all(status == checks.PASSED for status in statuses.values()):
        return Found(entry, YOURS, names[entry.name], source=source, checked=statuses)
    if all(status == checks.NOT_IMPLEMENTED for status in statuses.values()):
        return Found(entry, BLANK, source=source, checked=statuses)
    failing = ", ".join(name for name, status in statuses.items() if status != checks.PASSED)
    return Found(entry, FAILING, detail=failing, source=source, checked=statuses)


class _silenced:
    """No output from the learner's code while it is judged: ``use`` says one line, not their prints."""

    def __enter__(self):
        import contextlib
        import io

        self._redirect = contextlib.redirect_stdout(io.StringIO())
        self._redirect.__enter__()

    def __exit__(self, *exc):
        self._redirect.__exit__(*exc)
        return False


def _saved_notebook(chapter: str) -> Path | None:
    folders = [_course_folder] if _course_folder is not None else []
    if os.environ.get("MINITORCH_COURSE_FOLDER"):
        folders.append(Path(os.environ["MINITORCH_COURSE_FOLDER"]))
    folders += [Path.cwd().parent, Path.cwd()]
    for folder in folders:
        path = folder / chapter / f"{chapter}.ipynb"
        if path.is_file():
            return path
    return None


_saved_runs: dict[tuple, dict] = {}


def _run_saved_cells(path: Path, cell_ids: tuple[str, ...]) -> dict:
    """Run the saved notebook's solution cells ``cell_ids`` (in that order) in a fresh namespace.

    A cell that raises stops nothing: what it defined before the error stays, and the piece is judged
    by its checks. Runs are remembered per file version, so asking for several pieces runs each cell once.
    """
    stamp = path.stat().st_mtime_ns
    key = (str(path), stamp, cell_ids)
    if key in _saved_runs:
        return _saved_runs[key]
    sources = _saved_sources(path, cell_ids)
    if sources is None:
        return {}
    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F

    # the names every chapter imports in its first cell, which its solution cells may use
    names = {"__name__": "__saved_chapter__", "np": np, "numpy": np, "math": math, "minitorch": minitorch, "nn": nn,
             "F": F, "optim": minitorch.optim}  # fmt: skip
    for cell_id in cell_ids:
        if cell_id not in sources:
            continue
        filename = f"<{path.name} {cell_id}>"
        # in the source cache, as Jupyter keeps a cell's text: chapter 12's piece sends it to other processes
        linecache.cache[filename] = (len(sources[cell_id]), None, sources[cell_id].splitlines(True), filename)
        try:
            with _silenced():
                exec(compile(sources[cell_id], filename, "exec"), names)
        except Exception:  # noqa: BLE001 - a broken cell means the piece is not the learner's yet
            continue
    _saved_runs[key] = names
    return names


def _saved_sources(path: Path, cell_ids: tuple[str, ...]) -> dict[str, str] | None:
    """The text of the saved notebook's code cells ``cell_ids`` (by nbgrader grade_id); None if it cannot be read."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return None
    sources = {}
    for cell in cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("cell_type") == "code" and grade_id in cell_ids:
            source = cell.get("source", "")
            sources[grade_id] = "".join(source) if isinstance(source, list) else source
    return sources


def my_library(chapter: str, namespace: dict | None = None) -> dict[str, str]:
    """Print which pieces of the learner's library are theirs so far (up to ``chapter``); return the table."""
    if namespace is None:
        namespace = inspect.currentframe().f_back.f_globals
    table = _Table()
    lines = []
    registered = pieces()
    width = max((len(name) for name in registered), default=0)
    for name, entry in registered.items():
        if entry.chapter > chapter:
            table[name] = f"comes in chapter {int(entry.chapter[:2])}"
        else:
            found = find(name, namespace if entry.chapter == chapter else None)
            table[name] = YOURS if found.status == YOURS else f"minitorch's: yours {_why(found)}"
        lines.append(f"  {name.ljust(width)}  {table[name]}")
    yours = sum(status == YOURS for status in table.values())
    built = sum(not status.startswith("comes in") for status in table.values())
    lines.append(f"{yours} of the {built} pieces built so far are yours")
    print("Your minitorch:\n" + "\n".join(lines))
    return table


class _Table(dict):
    """``{piece: status}``; printed by my_library, so a cell ending with the call shows nothing more."""

    def _ipython_display_(self):
        pass
