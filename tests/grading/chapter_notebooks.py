"""Reading a chapter's notebooks for the exercise tests: its graded cells and its solutions.

The solutions come from the instructor's edition (``notebooks/source``), the blank stubs from the
learner's edition (``notebooks/release``), so an edit to either is tested.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import minitorch
from grading import check, check_hidden, randn

COURSE = Path(__file__).resolve().parents[2] / "notebooks"


def cells(chapter: str, edition: str, kind: str) -> list[str]:
    """The source of the notebook's nbgrader cells of ``kind`` ("solution" or "grade"), in order."""
    notebook = json.loads((COURSE / edition / chapter / f"{chapter}.ipynb").read_text())
    return [
        "".join(cell["source"])
        for cell in notebook["cells"]
        if cell["cell_type"] == "code" and cell.get("metadata", {}).get("nbgrader", {}).get(kind)
        and not (kind == "grade" and cell["metadata"]["nbgrader"].get("solution"))
    ]


def namespace(chapter: str, edition: str) -> dict:
    """Run the notebook's solution cells (after the imports they rely on); return what they define."""
    names = {"np": np, "numpy": np, "minitorch": minitorch, "check": check, "check_hidden": check_hidden,
             "randn": randn}
    for source in cells(chapter, edition, "solution"):
        exec(source, names)
    return names
