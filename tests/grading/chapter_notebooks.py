"""Reading the course's chapter notebooks for the exercise tests: their graded cells and their solutions.

The solutions and the hidden cases come from the instructor's edition (``notebooks/source``), the blank
stubs from the learner's edition (``notebooks/release``), so an edit to either is tested. The graded
cells are nbgrader cells: solution cells (``metadata.nbgrader.solution``) and test cells (``grade``),
each named by its ``grade_id``.
"""

from __future__ import annotations

import json
import linecache
import math
from functools import cache
from pathlib import Path

import numpy as np

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from grading import check, check_hidden, randn
from grading.notebook import CHECK_CALL
from minitorch.vision import models

COURSE = Path(__file__).resolve().parents[2] / "notebooks"
CHAPTERS = sorted(path.parent.name for path in (COURSE / "source").glob("*/*.ipynb") if path.stem == path.parent.name)

# The names the notebooks import before their graded cells, as far as those cells use them.
NOTEBOOK_IMPORTS = {
    "math": math,
    "np": np,
    "numpy": np,
    "minitorch": minitorch,
    "nn": nn,
    "F": F,
    "optim": minitorch.optim,
    "models": models,
    "check": check,
    "check_hidden": check_hidden,
    "randn": randn,
}


@cache
def graded_cells(chapter: str, edition: str, kind: str) -> dict[str, str]:
    """``{grade_id: source}`` of the notebook's nbgrader cells of ``kind`` ("solution" or "grade"), in order.

    The dict is cached and shared: read it, don't change it.
    """
    notebook = json.loads((COURSE / edition / chapter / f"{chapter}.ipynb").read_text())
    graded = {}
    for cell in notebook["cells"]:
        metadata = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] == "code" and metadata.get(kind) and not (kind == "grade" and metadata.get("solution")):
            graded[metadata["grade_id"]] = "".join(cell["source"])
    return graded


def namespace(chapter: str, edition: str) -> dict:
    """Run the notebook's solution cells (after the imports they rely on); return what they define."""
    names = dict(NOTEBOOK_IMPORTS)
    for grade_id, source in graded_cells(chapter, edition, "solution").items():
        filename = f"<{edition} {chapter} {grade_id}>"
        # in the source cache, as Jupyter and the batch grader's runner put a cell (chapter 12 sends a cell's text
        # to other processes)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), names)
    return names


@cache
def solutions(chapter: str) -> dict:
    """The instructor's edition's namespace, computed once: copy it before running cells in it."""
    return namespace(chapter, "source")


def checked_exercise(test_cell: str) -> str:
    """The exercise a test cell checks ("ch05.adam_step"): the name its ``check(...)`` call gives."""
    return CHECK_CALL.search(test_cell).group(1)


def grade_with_shortcut(tmp_path, chapter: str, code: str, exercise: str) -> None:
    """minitorch-grade on two submissions of ``chapter``: the instructor's edition, which must score full marks,
    and the same with ``code`` run right after the solution cell of ``exercise`` (a shortcut through the withheld
    pieces), which must lose exactly that exercise, reported as not implemented."""
    import csv
    import shutil
    import textwrap

    import nbformat

    from grading.cli import main
    from grading.notebook import read_assignment
    from tests.grading.conftest import require_bwrap

    require_bwrap()
    source = COURSE / "source" / chapter / f"{chapter}.ipynb"
    folder = tmp_path / "submitted"
    folder.mkdir()
    shutil.copy(source, folder / "reference.ipynb")
    shortcut = nbformat.read(source, as_version=4)
    cell = next(i for i, c in enumerate(shortcut.cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                == graded_cell_of(chapter, exercise))  # fmt: skip
    shortcut.cells.insert(cell + 1, nbformat.v4.new_code_cell(textwrap.dedent(code)))  # right after the learner's cell
    nbformat.write(shortcut, folder / "shortcut.ipynb")
    out = tmp_path / "out"
    assert main([str(folder), "--source", str(source), "--out", str(out), "--jobs", "2", "--quiet"]) == 0
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assignment = read_assignment(source)
    assert float(rows["reference"]["total"]) == assignment.max_points, (out / "feedback" / "reference.md").read_text()
    feedback = (out / "feedback" / "shortcut.md").read_text()
    lost = sum(part.points for part in assignment.parts if part.exercise == exercise)
    assert lost > 0 and float(rows["shortcut"]["total"]) == assignment.max_points - lost, feedback
    line = next(line for line in feedback.splitlines() if line.startswith(f"- {exercise}:"))
    # the feedback names the withheld piece the shortcut called (grading/withhold.py)
    assert "withheld while it is graded" in line, line


def graded_cell_of(chapter: str, exercise: str) -> str:
    """The solution cell whose test cell checks ``exercise``."""
    tests = graded_cells(chapter, "source", "grade")
    test_id = next(cell_id for cell_id, source in tests.items() if checked_exercise(source) == exercise)
    return test_id.removesuffix("-tests")
