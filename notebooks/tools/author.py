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

import re
import textwrap
from pathlib import Path

import nbformat
import optional_datasets

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


def review_section(name: str) -> list:
    """The "Review questions" cells of chapter ``name`` (``03_devices``), or none when the chapter has no
    ``grading/review_questions/chNN.py``. The questions stay out of the chapter scripts: they are data."""
    chapter = f"ch{name[:2]}"
    if not (ROOT.parent / "grading" / "review_questions" / f"{chapter}.py").exists():
        return []
    return [
        md(
            f"""
            ## Review questions

            A few questions to check your understanding of this chapter, with the answer explained as soon as you
            pick one. They are **not graded** (nbgrader and the batch grader ignore them); answer, then read the
            explanation, right or wrong. Without widgets (a plain Python session), the cell prints the questions;
            answer one with `answer("{chapter}.q1", "b")` (a letter, or a number where a number is asked).
            """
        ),
        code(
            f"""
            from grading.review import answer, review  # noqa: F401 (answer("{chapter}.q1", ...) checks one answer)

            review("{chapter}")
            """
        ),
    ]


def _with_review(name: str, cells: list) -> list:
    """``cells`` with the optional real-dataset section (:mod:`optional_datasets`) and the review section
    inserted before the closing summary (the last markdown "## Summary" heading; a cell with text above the
    heading is split there), or at the end when there is none."""
    section = optional_datasets.section(name, md, code) + review_section(name)
    if not section:
        return cells
    for index in range(len(cells) - 1, -1, -1):
        cell = cells[index]
        if cell.cell_type != "markdown":
            continue
        heading = re.search(r"^## Summary\b", cell.source, re.MULTILINE)
        if heading is None:
            continue
        if heading.start() == 0:
            return cells[:index] + section + cells[index:]
        summary = md(cell.source[heading.start() :])
        cell.source = cell.source[: heading.start()].rstrip("\n")
        return cells[: index + 1] + section + [summary] + cells[index + 1 :]
    return cells + section


def write(name: str, cells: list) -> Path:
    """Write ``notebooks/source/<name>/<name>.ipynb`` (no outputs) and return its path; the chapter's review
    questions (:func:`review_section`) are added before its closing summary."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = _with_review(name, cells)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    nbformat.validate(notebook)
    path = ROOT / "source" / name / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    _counter["n"] = 0
    return path
