"""The visible check never decides a grade: a learner's edition runs all the way through (every check
only reports), while ``nbgrader autograde`` (which puts the source's test cells back, hidden blocks
included) and ``minitorch-grade`` (which never runs test cells) still score blank, wrong and
check-dodging submissions 0 for the parts they did not solve.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from tests.grading.conftest import TEST_LIMITS, require_bwrap
from tests.grading.fixtures.make_fixtures import notebook
from tests.support import require

REPOSITORY = Path(__file__).resolve().parents[2]
LINEAR_SOLUTION = "return x @ weight.T + bias"


def _submissions() -> dict[str, nbformat.NotebookNode]:
    blank = notebook()  # the learner's edition: two stubs
    wrong_relu = notebook("return x", LINEAR_SOLUTION)
    # a wrong relu whose visible check was edited into a pass line
    edited = notebook("return x", LINEAR_SOLUTION)
    for cell in edited.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "test_relu":
            cell.source = 'print("demo.relu: all 2 public cases pass")'
    # a wrong relu with the check helpers disabled before any test cell runs
    disabled = notebook(
        "return x", LINEAR_SOLUTION,
        before_relu="import grading, grading.checks\ngrading.check = grading.checks.check = lambda *a, **k: None",
    )  # fmt: skip
    return {"blank": blank, "wrong_relu": wrong_relu, "edited_check": edited, "disabled_check": disabled}


# blank: 0; relu wrong, linear right: 2 of 3 whatever was done to relu's visible check
EXPECTED = {"blank": 0.0, "wrong_relu": 2.0, "edited_check": 2.0, "disabled_check": 2.0}


def _nbgrader(course: Path, *arguments: str) -> None:
    environment = dict(os.environ, PYTHONPATH=str(REPOSITORY))
    command = [sys.executable, "-m", "nbgrader", *arguments]
    result = subprocess.run(command, cwd=course, capture_output=True, text=True, env=environment, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_blank_learner_edition_runs_all_without_an_error():
    nbclient = require("nbclient", "executes the notebook as Run All does")
    document = notebook()
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(REPOSITORY)
    try:
        nbclient.NotebookClient(document, timeout=120, kernel_name="python3", allow_errors=False).execute()
    finally:
        if previous is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = previous
    text = "".join(
        output.get("text", "") for cell in document.cells if cell.cell_type == "code" for output in cell.outputs
    )
    assert "demo.relu: not implemented yet" in text and "demo.linear: not implemented yet" in text
    assert "0 of 2 exercises pass" in text


def test_nbgrader_autograde_scores_by_the_hidden_block(tmp_path):
    require("nbgrader", "the instructor extra: generates the learner's edition and autogrades")
    course = tmp_path / "course"
    (course / "source" / "demo").mkdir(parents=True)
    nbformat.write(notebook(edition="source"), course / "source" / "demo" / "demo.ipynb")
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"load_subconfig({str(REPOSITORY / 'notebooks' / 'nbgrader_config.py')!r})\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{course}/gradebook.db'\n"
    )
    _nbgrader(course, "generate_assignment", "demo", "--force")
    for student, document in _submissions().items():
        folder = course / "submitted" / student / "demo"
        folder.mkdir(parents=True)
        nbformat.write(document, folder / "demo.ipynb")
    _nbgrader(course, "autograde", "demo", "--force")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        scores = {student: gradebook.find_submission("demo", student).score for student in EXPECTED}
    assert scores == EXPECTED


def test_minitorch_grade_scores_by_its_own_calls(tmp_path):
    require_bwrap()
    from grading.cli import main

    source = tmp_path / "source"
    source.mkdir()
    nbformat.write(notebook(edition="source"), source / "demo.ipynb")
    folder = tmp_path / "submitted"
    folder.mkdir()
    for student, document in _submissions().items():
        nbformat.write(document, folder / f"{student}.ipynb")
    shutil.copy(source / "demo.ipynb", folder / "reference.ipynb")
    assert main([str(folder), "--source", str(source), "--out", str(tmp_path / "out"), "--quiet", *TEST_LIMITS]) == 0
    with open(tmp_path / "out" / "grades.csv", newline="") as handle:
        totals = {row["student"]: float(row["total"]) for row in csv.DictReader(handle)}
    assert totals == EXPECTED | {"reference": 3.0}
