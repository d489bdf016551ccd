"""Reading the course's chapter notebooks for the exercise tests: their graded cells and their solutions.

The solutions and the hidden cases come from the instructor's edition (``notebooks/source``), the blank
stubs from the learner's edition (``notebooks/release``), so an edit to either is tested. The graded
cells are nbgrader cells: solution cells (``metadata.nbgrader.solution``) and test cells (``grade``),
each named by its ``grade_id``.
"""

from __future__ import annotations

import json
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
        exec(compile(source, f"<{edition} {chapter} {grade_id}>", "exec"), names)
    return names


@cache
def solutions(chapter: str) -> dict:
    """The instructor's edition's namespace, computed once: copy it before running cells in it."""
    return namespace(chapter, "source")


def checked_exercise(test_cell: str) -> str:
    """The exercise a test cell checks ("ch05.adam_step"): the name its ``check(...)`` call gives."""
    return CHECK_CALL.search(test_cell).group(1)
