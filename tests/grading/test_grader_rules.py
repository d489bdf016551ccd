"""The batch grader enforces the rules the learner's check enforces, not only the values: a function
leaves its inputs unchanged (unless the exercise's ``mutates_inputs`` says writing into them is the
point), and the answer passes the exercise's ``answer_check`` (a leaf, say). The runner reports what
the values cannot show (changed arguments, the answer's grad_fn names) and the grader judges outside.
"""

from __future__ import annotations

import csv
import dataclasses
import shutil

import nbformat
import numpy as np

import minitorch
from grading import grader, registry
from tests.grading.conftest import TEST_LIMITS, require_bwrap
from tests.grading.fixtures.make_fixtures import LINEAR_SOLUTION, RELU_SOLUTION, notebook

RELU_IN_PLACE = "x[x < 0] = 0\nreturn x * 1"  # right values, but the caller's tensor is changed
LINEAR_ATTACHED = "weight = weight.clone().requires_grad_(True)\nreturn x @ weight.T + bias"  # right values, a graph


def _leaf_rule(answer):
    if isinstance(answer, minitorch.Tensor) and answer.grad_fn is not None:
        return f"the answer is still part of the graph (grad_fn={answer.grad_fn.name()})"
    return None


def _grade(tmp_path, submissions: dict) -> tuple[dict, dict]:
    from grading.cli import main

    source = tmp_path / "source"
    source.mkdir()
    nbformat.write(notebook(edition="source"), source / "demo.ipynb")
    folder = tmp_path / "submitted"
    folder.mkdir()
    for student, document in submissions.items():
        nbformat.write(document, folder / f"{student}.ipynb")
    shutil.copy(source / "demo.ipynb", folder / "reference.ipynb")
    out = tmp_path / "out"
    assert main([str(folder), "--source", str(source), "--out", str(out), "--quiet", *TEST_LIMITS]) == 0
    with open(out / "grades.csv", newline="") as handle:
        totals = {row["student"]: float(row["total"]) for row in csv.DictReader(handle)}
    feedback = {path.stem: path.read_text() for path in (out / "feedback").glob("*.md")}
    return totals, feedback


def test_batch_grader_fails_changed_inputs_and_answer_rules(tmp_path, monkeypatch):
    require_bwrap()
    linear = registry.get("demo.linear")
    monkeypatch.setitem(registry._EXERCISES, "demo.linear", dataclasses.replace(linear, answer_check=_leaf_rule))
    totals, feedback = _grade(
        tmp_path,
        {
            "relu_in_place": notebook(RELU_IN_PLACE, LINEAR_SOLUTION),
            "linear_attached": notebook(RELU_SOLUTION, LINEAR_ATTACHED),
        },
    )
    # relu is worth 1 point, linear 2; the reference keeps all 3
    assert totals == {"reference": 3.0, "relu_in_place": 2.0, "linear_attached": 1.0}
    assert "changed its input (argument 1) in place" in feedback["relu_in_place"]
    assert "hidden case 1: changed an input in place" in feedback["relu_in_place"]  # no position on hidden cases
    assert "still part of the graph (grad_fn=AddBackward0)" in feedback["linear_attached"]
    assert "breaks a rule of this exercise" in feedback["linear_attached"]  # hidden cases: the neutral sentence


def test_mutates_inputs_lets_an_exercise_write_into_its_input(tmp_path, monkeypatch):
    require_bwrap()
    relu = registry.get("demo.relu")
    monkeypatch.setitem(registry._EXERCISES, "demo.relu", dataclasses.replace(relu, mutates_inputs=True))
    totals, _ = _grade(tmp_path, {"relu_in_place": notebook(RELU_IN_PLACE, LINEAR_SOLUTION)})
    assert totals == {"reference": 3.0, "relu_in_place": 3.0}


def test_rebuilt_answer_feeds_chapter_4s_leaf_rule():
    """ch04.sgd_step's answer_check sees what it would see in the notebook: the grad_fn's recorded name."""
    sgd_step = registry.get("ch04.sgd_step")
    arrays = [np.ones((2, 3), np.float32), np.zeros(2, np.float32), np.asarray(0.5, np.float32)]
    status = {"graph": ["SubBackward0", None, None], "tuple": True}
    answer = grader.rebuilt_answer(["tensor", "tensor", "tensor"], arrays, status)
    assert isinstance(answer, tuple) and answer[1].grad_fn is None
    assert "new_weight is still part of the graph (grad_fn=SubBackward0)" in sgd_step.answer_check(answer)
    leaves = grader.rebuilt_answer(["tensor", "tensor", "tensor"], arrays, status | {"graph": [None] * 3})
    assert sgd_step.answer_check(leaves) is None
    single = grader.rebuilt_answer(["ndarray"], [np.ones(3)], {"graph": [None], "tuple": False})
    assert isinstance(single, np.ndarray)


def test_status_fields_are_checked():
    ok = {"status": "ok", "kinds": ["tensor"], "changed": [], "graph": [None], "tuple": False}
    assert grader._valid_status(ok)
    assert not grader._valid_status(ok | {"changed": [-1]})
    assert not grader._valid_status(ok | {"changed": ["0"]})
    assert not grader._valid_status(ok | {"graph": ["not an identifier"]})
    assert not grader._valid_status(ok | {"graph": [None, None]})
    assert not grader._valid_status(ok | {"tuple": 1})
    assert not grader._valid_status({"status": "ok", "kinds": ["tensor"]})


def _relu_after_waiting(seconds: float) -> str:
    """A correct relu whose first call waits ``seconds`` (a long training run, say); the later calls are quick."""
    return f"import time\nif not getattr(time, 'waited', False):\n    time.waited = True\n    time.sleep({seconds})\n" \
        + RELU_SOLUTION


SWALLOWS_THE_ALARM = (  # the runner's alarm is an exception: this call catches it and sleeps on
    "import time\nwhile True:\n    try:\n        time.sleep(100)\n    except BaseException:\n        pass"
)


def test_an_exercise_that_needs_longer_calls_gets_its_own_limit(tmp_path, monkeypatch):
    """Exercise.seconds: a call may take that long (8 s here) where the grader's per-call limit is 3 s. A correct
    answer that takes 4.5 s keeps its points; one past 8 s fails, and the supervisor, which stops a call that
    ignores the runner's alarm, allows the same 8 s and names them."""
    require_bwrap()
    relu = registry.get("demo.relu")
    monkeypatch.setitem(registry._EXERCISES, "demo.relu", dataclasses.replace(relu, seconds=8.0))
    totals, feedback = _grade(
        tmp_path,
        {
            "in_its_time": notebook(_relu_after_waiting(4.5), LINEAR_SOLUTION),
            "past_its_time": notebook(_relu_after_waiting(12), LINEAR_SOLUTION),
            "ignores_the_alarm": notebook(SWALLOWS_THE_ALARM, LINEAR_SOLUTION),
        },
    )
    # relu is worth 1 point, linear 2: past its time, relu alone fails
    assert totals == {"reference": 3.0, "in_its_time": 3.0, "past_its_time": 2.0, "ignores_the_alarm": 2.0}
    assert "public case 1: ran past the time limit" in feedback["past_its_time"]
    assert "relu ran past the time limit (8 s) and was stopped" in feedback["ignores_the_alarm"]


def test_the_capstones_training_may_take_longer_than_a_call():
    """The capstone's graded call trains the model (about 20 s on a quiet 2-core machine, 30 s the default limit):
    its exercise allows more, so that a busy machine does not fail a correct answer."""
    import grading.exercises.ch15  # noqa: F401 - registers the chapter's exercises

    assert registry.get("ch15.trained_model").seconds >= 4 * 20
