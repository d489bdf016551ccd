"""Reading notebooks defensively, reading the assignment from the source, planning a submission."""

from __future__ import annotations

import json

import nbformat
import pytest

from grading.notebook import (
    AssignmentError,
    NotebookError,
    parse_notebook,
    plan_submission,
    python_source,
    read_assignment,
)
from tests.grading.fixtures.make_fixtures import correct, notebook


def _bytes(document) -> bytes:
    return nbformat.writes(document).encode()


@pytest.fixture()
def source(tmp_path):
    path = tmp_path / "demo" / "demo.ipynb"
    path.parent.mkdir()
    nbformat.write(notebook(edition="source"), path)
    return path


@pytest.mark.parametrize(
    "data, message",
    [
        (b'{"cells": [', "invalid JSON at line 1"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (b"[1, 2]", "no 'cells' list"),
        (b'{"cells": [], "nbformat": 3}', "notebook format 3 is not supported"),
        (b'{"cells": {}, "nbformat": 4}', "'cells' is not a list"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_unreadable_notebooks_say_why(data, message):
    with pytest.raises(NotebookError, match=message):
        parse_notebook(data)


def test_odd_cells_are_skipped_with_warnings():
    document = {
        "nbformat": 4,
        "metadata": {"kernelspec": {"name": "ir"}},
        "cells": [
            "not a cell",
            {"cell_type": "heading", "source": "x"},
            {"cell_type": "code", "source": 42},
            {"cell_type": "code", "source": ["a = ", "1"], "metadata": {"nbgrader": "nonsense"}},
        ],
    }
    parsed = parse_notebook(json.dumps(document).encode())
    assert [cell.source for cell in parsed.cells] == ["a = 1"]
    text = " ".join(parsed.warnings)
    for phrase in ("not a cell object", "unknown type 'heading'", "not text", "have no id", "'ir', not Python"):
        assert phrase in text


def test_python_source_turns_magics_into_pass():
    assert (
        python_source("%matplotlib inline\nx = 1\n  !ls")
        == "pass  # IPython magic or shell line: not run\nx = 1\n  pass  # IPython magic or shell line: not run\n"
    )
    assert python_source("%%timeit\nx = 1") is None


def test_read_assignment(source):
    assignment = read_assignment(source.parent)
    assert (assignment.name, assignment.notebook, assignment.max_points) == ("demo", "demo", 3.0)
    relu, linear = assignment.parts
    assert (relu.grade_id, relu.exercise, relu.points, len(relu.hidden_cases)) == ("test_relu", "demo.relu", 1.0, 3)
    assert (linear.exercise, linear.points, len(linear.hidden_cases)) == ("demo.linear", 2.0, 3)
    assert linear.hidden_cases[0][0].shape == (2, 4, 3)


def _with_test_cell(tmp_path, source_text):
    document = notebook(edition="source")
    for cell in document.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "test_relu":
            cell.source = source_text
    path = tmp_path / "bad" / "bad.ipynb"
    path.parent.mkdir(exist_ok=True)
    nbformat.write(document, path)
    return path


@pytest.mark.parametrize(
    "text, message",
    [
        ('check("demo.relu", relu)\ncheck("demo.linear", linear)', "checks 2 exercises"),
        ("print(relu)", "checks 0 exercises"),
        ("assert relu(1) == 1", "could not be read: AssertionError"),
        ('check("demo.nothing", relu)', "no exercise named 'demo.nothing'"),
        ("1 / 0", "could not be read: ZeroDivisionError"),
    ],
)
def test_authoring_mistakes_are_reported(tmp_path, text, message):
    with pytest.raises(AssignmentError, match=message):
        read_assignment(_with_test_cell(tmp_path, text))


def test_a_folder_with_two_notebooks_is_ambiguous(tmp_path, source):
    nbformat.write(notebook(edition="source"), source.parent / "other.ipynb")
    with pytest.raises(AssignmentError, match="holds 2 notebooks"):
        read_assignment(source.parent)


def test_plan_skips_test_cells_and_notices_deleted_ones(source):
    assignment = read_assignment(source)
    plan = plan_submission(parse_notebook(_bytes(correct())), assignment)
    assert [part.grade_id for part in plan.present] == ["test_relu", "test_linear"]
    assert plan.deleted == []
    assert not any("check(" in text for _, text in plan.cells)

    edited = correct()
    for cell in edited.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "test_linear":
            cell.source = "print('I changed the test')"
    plan = plan_submission(parse_notebook(_bytes(edited)), assignment)
    assert len(plan.present) == 2 and not any("I changed" in text for _, text in plan.cells)

    deleted = correct()
    deleted.cells = [c for c in deleted.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "test_relu"]
    plan = plan_submission(parse_notebook(_bytes(deleted)), assignment)
    assert [part.grade_id for part in plan.deleted] == ["test_relu"]


def test_plan_tells_an_earlier_release_from_a_deleted_test_cell(source):
    """Without linear's solution cell and test cell, the notebook is an earlier release (an exercise added since);
    with its test cell checking another exercise, a part is still graded, and marked as replaced."""
    assignment = read_assignment(source)
    assert [part.solution_ids for part in assignment.parts] == [("relu",), ("linear",)]
    earlier = correct()
    earlier.cells = [c for c in earlier.cells if c.metadata.get("nbgrader", {}).get("grade_id") not in ("linear",
                     "test_linear")]  # fmt: skip
    plan = plan_submission(parse_notebook(_bytes(earlier)), assignment)
    assert [part.grade_id for part in plan.present] == ["test_relu"] and plan.deleted == []
    assert [(part.grade_id, why) for part, why in plan.earlier] == [
        ("test_linear", "the notebook has neither its solution cell nor its test cell")
    ]
    replaced = correct()
    for cell in replaced.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "test_relu":
            cell.source = 'check("demo.rectify", rectify)'
    plan = plan_submission(parse_notebook(_bytes(replaced)), assignment)
    assert len(plan.present) == 2 and plan.earlier == [] and plan.deleted == []
    assert plan.replaced == {"test_relu": "its test cell checks demo.rectify, not demo.relu"}


def test_the_capstones_previous_release_is_recognised():
    """Chapter 15's release before its training exercise was judged on the trained model: the training test cell
    checked ch15.validation_loss_after_training under the same grade_id."""
    from pathlib import Path

    chapter = Path(__file__).resolve().parents[2] / "notebooks"
    assignment = read_assignment(chapter / "source" / "15_capstone" / "15_capstone.ipynb")
    document = json.loads((chapter / "release" / "15_capstone" / "15_capstone.ipynb").read_text())
    for cell in document["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "ch15-training-tests":
            cell["source"] = 'check("ch15.validation_loss_after_training", validation_loss_after_training)\n'
    plan = plan_submission(parse_notebook(json.dumps(document).encode()), assignment)
    assert plan.replaced == {
        "ch15-training-tests": "its test cell checks ch15.validation_loss_after_training, not ch15.trained_model"
    }
    assert plan.deleted == [] and plan.earlier == []


def test_plan_without_metadata_recognises_check_calls(source):
    assignment = read_assignment(source)
    stripped = correct()
    for cell in stripped.cells:
        cell.metadata = {}
    plan = plan_submission(parse_notebook(_bytes(stripped)), assignment)
    assert len(plan.present) == 2 and plan.deleted == []
