"""Reading notebooks defensively, and reading an assignment's graded parts from the source notebook.

A submission is untrusted input: it may be truncated, not JSON, an old format, a notebook from another
kernel, or have its cell ids or nbgrader metadata stripped by some editor. :func:`read_notebook`
turns every such problem into a :class:`NotebookError` with a clear message, or a warning, and never
a traceback. It reads the JSON itself rather than through nbformat, so that nothing in a submission
can make the grader validate, upgrade or execute anything.

The assignment (which parts are graded, their points, their hidden cases) comes only from the
instructor's source notebook: every nbgrader autograder test cell (``grade: true``, ``solution:
false``) is one graded part, and it must check exactly one exercise with ``check(...)``, optionally
followed by ``check_hidden(...)`` between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``.
"""

from __future__ import annotations

import builtins
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MAX_NOTEBOOK_BYTES = 32 * 1024 * 1024
CHECK_CALL = re.compile(r"""\bcheck(?:_hidden)?\s*\(\s*(?:name\s*=\s*)?["']([A-Za-z_][\w.]*)["']""")


class NotebookError(Exception):
    """The file cannot be graded as a notebook; the message says why, in a sentence."""


class AssignmentError(Exception):
    """The source notebook does not describe a gradable assignment (an authoring mistake)."""


@dataclass
class Cell:
    index: int  # position among all cells, from 0
    cell_type: str
    source: str
    nbgrader: dict
    cell_id: str | None = None


@dataclass
class Notebook:
    cells: list[Cell]
    kernel_name: str | None
    warnings: list[str] = field(default_factory=list)

    @property
    def has_nbgrader_metadata(self) -> bool:
        return any(cell.nbgrader for cell in self.cells)


def read_bytes(path: Path, limit: int = MAX_NOTEBOOK_BYTES) -> bytes:
    """The file's bytes, refusing symlinks, non-regular files and files over ``limit``."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if os.path.islink(path):
            raise NotebookError("the file is a symbolic link; submissions must be regular files") from None
        raise NotebookError(f"cannot open the file: {error.strerror}") from None
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise NotebookError("not a regular file")
        if info.st_size > limit:
            raise NotebookError(f"the file is {info.st_size / 2**20:.1f} MiB; the limit is {limit / 2**20:.0f} MiB")
        return handle.read(limit + 1)[:limit]


def read_notebook(path: Path) -> Notebook:
    return parse_notebook(read_bytes(Path(path)))


def parse_notebook(data: bytes) -> Notebook:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise NotebookError(f"not UTF-8 text (byte {error.start})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(
            f"not a notebook: invalid JSON at line {error.lineno}, column {error.colno} ({error.msg})"
        ) from None
    except RecursionError:
        raise NotebookError("not a notebook: the JSON is nested too deeply") from None
    except ValueError:  # an integer of more than 4,300 digits (Python's limit for int(str))
        raise NotebookError("not a notebook: the JSON holds a number too long to read") from None
    if not isinstance(document, dict) or "cells" not in document:
        raise NotebookError("not a notebook: the JSON has no 'cells' list")
    version = document.get("nbformat")
    if version != 4:
        raise NotebookError(f"notebook format {version!r} is not supported; open and save it in Jupyter (format 4)")
    raw_cells = document["cells"]
    if not isinstance(raw_cells, list):
        raise NotebookError("not a notebook: 'cells' is not a list")

    warnings: list[str] = []
    cells: list[Cell] = []
    missing_ids = 0
    for index, raw in enumerate(raw_cells):
        if not isinstance(raw, dict):
            warnings.append(f"cell {index + 1} is not a cell object; it was skipped")
            continue
        cell_type = raw.get("cell_type")
        if cell_type not in ("code", "markdown", "raw"):
            warnings.append(f"cell {index + 1} has an unknown type {str(cell_type)[:20]!r}; it was skipped")
            continue
        source = raw.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            warnings.append(f"cell {index + 1} has a source that is not text; it was skipped")
            continue
        metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
        nbgrader = metadata.get("nbgrader") if isinstance(metadata.get("nbgrader"), dict) else {}
        cell_id = raw.get("id") if isinstance(raw.get("id"), str) else None
        missing_ids += cell_id is None
        cells.append(Cell(index, cell_type, source, nbgrader, cell_id))
    if missing_ids:
        warnings.append(
            f"{missing_ids} cell(s) have no id (a notebook saved by an older Jupyter); "
            "cells are matched by their nbgrader grade_id instead"
        )

    metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    kernelspec = metadata.get("kernelspec") if isinstance(metadata.get("kernelspec"), dict) else {}
    kernel_name = kernelspec.get("name") if isinstance(kernelspec.get("name"), str) else None
    if kernel_name is not None and "python" not in kernel_name.lower():
        warnings.append(f"the notebook's kernel is {kernel_name[:40]!r}, not Python; its code was run as Python 3")
    notebook = Notebook(cells, kernel_name, warnings)
    if cells and not notebook.has_nbgrader_metadata:
        warnings.append(
            "the notebook has no nbgrader metadata (was it re-created or converted?); "
            "test cells were recognised by their check(...) calls"
        )
    return notebook


def python_source(source: str) -> str | None:
    """The cell as plain Python: IPython magics and shell lines become ``pass``; a cell magic is skipped.

    The grader runs cells with Python's ``exec`` in one fresh process, not in a Jupyter kernel: it
    starts faster, needs no ZeroMQ inside the sandbox, and its failures are easier to attribute.
    """
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return None
    converted = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            converted.append(line[: len(line) - len(stripped)] + "pass  # IPython magic or shell line: not run")
        else:
            converted.append(line)
    return "\n".join(converted) + "\n"


# -- the assignment, from the instructor's source notebook -------------------------------------
@dataclass
class GradedPart:
    grade_id: str
    exercise: str
    points: float
    hidden_cases: list[tuple]
    # the grade_ids of the solution cells between the previous test cell and this one: the cells the learner
    # writes this part's answer in (an earlier release of the chapter that lacks them lacked the exercise)
    solution_ids: tuple[str, ...] = ()


@dataclass
class Assignment:
    name: str  # the assignment folder, e.g. "ch02_autograd"
    notebook: str  # the notebook's file name without .ipynb
    parts: list[GradedPart]

    @property
    def max_points(self) -> float:
        return sum(part.points for part in self.parts)


def is_test_cell(cell: Cell) -> bool:
    return cell.cell_type == "code" and bool(cell.nbgrader.get("grade")) and not cell.nbgrader.get("solution")


class _Placeholder:
    """Stands for a learner's name (``relu``) while the grader reads a test cell without running it."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        return self


class _TestCellNames(dict):
    def __missing__(self, key):
        if hasattr(builtins, key):
            return getattr(builtins, key)
        return _Placeholder(key)


def read_assignment(source: Path) -> Assignment:
    """The graded parts of the instructor's source notebook ``source`` (or the one notebook in a folder)."""
    source = Path(source)
    if source.is_dir():
        notebooks = sorted(path for path in source.glob("*.ipynb") if not path.name.startswith("."))
        if len(notebooks) != 1:
            raise AssignmentError(f"{source} holds {len(notebooks)} notebooks; name the one to grade")
        source = notebooks[0]
    try:
        notebook = read_notebook(source)
    except NotebookError as error:
        raise AssignmentError(f"{source}: {error}") from None

    from grading import checks, registry  # the checks' collector reads the test cells

    parts: list[GradedPart] = []
    solution_ids: list[str] = []
    for cell in notebook.cells:
        grade_id = cell.nbgrader.get("grade_id")
        if cell.cell_type == "code" and cell.nbgrader.get("solution") and isinstance(grade_id, str):
            solution_ids.append(grade_id)
        if not is_test_cell(cell):
            continue
        grade_id = cell.nbgrader.get("grade_id")
        if not isinstance(grade_id, str) or not grade_id:
            raise AssignmentError(f"{source}: test cell {cell.index + 1} has no nbgrader grade_id")
        points = cell.nbgrader.get("points", 0)
        if not isinstance(points, (int, float)) or points < 0:
            raise AssignmentError(f"{source}: test cell {grade_id} has invalid points {points!r}")
        names = {"__name__": "__grading_test_cell__", "np": np, "numpy": np}
        names.update(check=checks.check, check_hidden=checks.check_hidden, randn=registry.randn)
        with checks.collecting() as collected:
            try:
                code = compile(cell.source, f"<test cell {grade_id}>", "exec")
                exec(code, {"__builtins__": builtins}, _TestCellNames(names))
            except Exception as error:
                raise AssignmentError(
                    f"{source}: test cell {grade_id} could not be read: {type(error).__name__}: {error} "
                    '(graded test cells call check("<exercise>", function), and check_hidden(...) in hidden tests)'
                ) from None
        exercises = set(collected.checked) | {name for name, _ in collected.hidden}
        if len(exercises) != 1:
            raise AssignmentError(
                f"{source}: test cell {grade_id} checks {len(exercises)} exercises ({', '.join(sorted(exercises))}); "
                "each graded test cell calls check(...) for exactly one exercise"
            )
        (name,) = exercises
        try:
            registry.get(name)
        except KeyError as error:
            raise AssignmentError(f"{source}: test cell {grade_id}: {error.args[0]}") from None
        hidden = [case for exercise_name, cases in collected.hidden for case in cases]
        parts.append(GradedPart(grade_id, name, float(points), hidden, tuple(solution_ids)))
        solution_ids = []
    if not parts:
        raise AssignmentError(f"{source}: no graded test cells (nbgrader metadata grade: true, points > 0)")
    return Assignment(source.parent.name, source.stem, parts)


@dataclass
class Plan:
    """What to run for one submission: the cells (index, Python source) and the parts whose test cell is there."""

    cells: list[tuple[int, str]]
    present: list[GradedPart]
    deleted: list[GradedPart]
    skipped_cells: list[int]  # cell magics, not Python
    # parts that the release the learner worked on did not have, with why: the submission is an earlier release
    # of the chapter (an exercise added since); not in deleted, not in present
    earlier: list[tuple[GradedPart, str]] = field(default_factory=list)
    # present parts whose test cell checks another exercise (one replaced since, in an earlier release), with why:
    # still graded as usual (an edited test cell changes no grade); a failure there says it may be an earlier release
    replaced: dict[str, str] = field(default_factory=dict)


def plan_submission(notebook: Notebook, assignment: Assignment) -> Plan:
    """Which of the submission's cells run in the sandbox, and which graded parts it still has.

    A test cell is recognised by its grade_id and never run: the grader calls the graded functions
    itself, so an edited test cell changes nothing. A test cell that is gone scores 0 for its part.
    An earlier release of the chapter is told apart from a deleted test cell: a part whose solution and
    test cells are both absent (an exercise added since) is listed in ``earlier``; a part whose test cell
    checks another exercise (one replaced since) is graded as usual and listed in ``replaced``, so that
    its failure can say why. The parts the notebook has are graded as usual.
    In a notebook without any nbgrader metadata, a cell calling ``check("<exercise>", ...)`` counts as
    that exercise's test cell.
    """
    by_grade_id = {part.grade_id: part for part in assignment.parts}
    present: set[str] = set()
    earlier: dict[str, str] = {}
    replaced: dict[str, str] = {}
    solutions_here = {
        cell.nbgrader["grade_id"]
        for cell in notebook.cells
        if cell.nbgrader.get("solution") and isinstance(cell.nbgrader.get("grade_id"), str)
    }
    cells: list[tuple[int, str]] = []
    skipped: list[int] = []
    match_by_content = not notebook.has_nbgrader_metadata
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        grade_id = cell.nbgrader.get("grade_id")
        if isinstance(grade_id, str) and grade_id in by_grade_id and not cell.nbgrader.get("solution"):
            present.add(grade_id)
            checked = set(CHECK_CALL.findall(cell.source))
            exercise = by_grade_id[grade_id].exercise
            if checked and exercise not in checked:
                # the test cell of an earlier release, which checked another exercise under this grade_id
                replaced[grade_id] = f"its test cell checks {', '.join(sorted(checked))}, not {exercise}"
            continue
        if match_by_content:
            named = set(CHECK_CALL.findall(cell.source))
            matched = [part.grade_id for part in assignment.parts if part.exercise in named]
            if matched:
                present.update(matched)
                continue
        source = python_source(cell.source)
        if source is None:
            skipped.append(cell.index)
        elif source.strip():
            cells.append((cell.index, source))
    missing = [part for part in assignment.parts if part.grade_id not in present]
    if notebook.has_nbgrader_metadata:
        # gone with every cell the learner would have written it in: the release had no such exercise (a learner
        # who deletes a test cell keeps the solution cell above it)
        for part in missing:
            if part.solution_ids and not solutions_here & set(part.solution_ids):
                earlier[part.grade_id] = "the notebook has neither its solution cell nor its test cell"
    return Plan(
        cells,
        [part for part in assignment.parts if part.grade_id in present],
        [part for part in missing if part.grade_id not in earlier],
        skipped,
        [(part, earlier[part.grade_id]) for part in assignment.parts if part.grade_id in earlier],
        replaced,
    )
