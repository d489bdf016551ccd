"""The nbgrader path withholds as minitorch-grade does: the hidden test cells call ``check_hidden``, which runs
each case with the exercise's pieces withheld (grading/withhold.py), so ``nbgrader autograde`` scores a
linear that reaches minitorch's own linear (or PyTorch) 0, beside an honest classmate who keeps full marks.

nbgrader runs the tests in the learner's own kernel, without a sandbox: the limits of that path are in
grading/nbgrader_hardened_config.py; use minitorch-grade for anything that counts.
"""

from __future__ import annotations

import nbformat

from tests.grading.fixtures.make_fixtures import correct
from tests.grading.test_nbgrader import _nbgrader, nbgrader_course  # noqa: F401 - the module's fixture
from tests.grading.test_withheld_routes import ROUTES, _submission

# routes that act inside the graded function or before it (a cell after the test cell runs after nbgrader's test)
NBGRADER_ROUTES = ("captured_reference", "defining_module_attribute", "importlib_reload", "exec_of_the_source_file",
                   "import_torch", "catches_the_refusal_then_exec")  # fmt: skip


def test_autograde_scores_each_route_around_the_withheld_piece_zero(nbgrader_course):  # noqa: F811
    students = {"honest": correct()} | {name.replace("_", "-"): _submission(ROUTES[name]) for name in NBGRADER_ROUTES}
    for student, document in students.items():
        folder = nbgrader_course / "submitted" / student / "demo"
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(document, folder / "demo.ipynb")
    _nbgrader(nbgrader_course, "autograde", "demo", "--force")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{nbgrader_course}/gradebook.db") as gradebook:
        scores = {student: gradebook.find_submission("demo", student).score for student in students}
    assert scores == {student: 3.0 if student == "honest" else 1.0 for student in students}
    graded = (nbgrader_course / "autograded" / "captured-reference" / "demo" / "demo.ipynb").read_text()
    assert "calls minitorch's own minitorch.nn.functional.linear" in graded
