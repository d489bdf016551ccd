"""Write a chapter notebook from Python: the course's authoring helper.

Each chapter has a small script ``notebooks/tools/chapters/NN_topic.py`` that lists its cells
with the functions below and calls ``write``; running it regenerates
``notebooks/source/NN_topic/NN_topic.ipynb`` (the instructor's edition, in nbgrader's format).
Keeping chapters as scripts makes them easy to review and diff; the notebooks are what a learner
opens and what nbgrader reads. ``python notebooks/tools/build.py`` runs every chapter script.

Cells:

* ``md(text)``: a markdown cell (explanations);
* ``code(source)``: an ordinary code cell the learner runs;
* ``solution(source, cell_id)``: an exercise cell; the instructor's solution sits between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION`` and becomes a stub in the learner's edition;
* ``tests(source, cell_id, points)``: a locked, graded test cell (one ``check(...)`` line, plus
  an optional hidden part between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]  # the course folder (notebooks/)


def _clean(source: str) -> str:
    return textwrap.dedent(source).strip("\n")


def _nbgrader(cell_id: str, *, grade: bool, solution: bool, locked: bool, points: int | None = None) -> dict:
    metadata = {"grade": grade, "grade_id": cell_id, "locked": locked, "schema_version": 3, "solution": solution,
                "task": False}
    if points is not None:
        metadata["points"] = points
    return metadata


_counter = {"n": 0}


def _next_id(prefix: str) -> str:
    _counter["n"] += 1
    return f"{prefix}-{_counter['n']:03d}"


def md(text: str):
    cell = nbformat.v4.new_markdown_cell(_clean(text))
    cell.id = _next_id("md")
    return cell


def code(source: str):
    cell = nbformat.v4.new_code_cell(_clean(source))
    cell.id = _next_id("code")
    return cell


def solution(source: str, cell_id: str):
    """An exercise: the learner's edition keeps what is outside the solution markers."""
    cell = nbformat.v4.new_code_cell(_clean(source))
    cell.id = cell_id
    cell.metadata["nbgrader"] = _nbgrader(cell_id, grade=False, solution=True, locked=False)
    return cell


def tests(source: str, cell_id: str, points: int = 1):
    """A locked test cell worth ``points``."""
    cell = nbformat.v4.new_code_cell(_clean(source))
    cell.id = cell_id
    cell.metadata["nbgrader"] = _nbgrader(cell_id, grade=True, solution=False, locked=True, points=points)
    return cell


def write(name: str, cells: list) -> Path:
    """Write ``notebooks/source/<name>/<name>.ipynb`` (no outputs) and return its path."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = cells
    notebook.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    nbformat.validate(notebook)
    path = ROOT / "source" / name / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    _counter["n"] = 0
    return path
