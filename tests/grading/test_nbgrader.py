"""The nbgrader side: the course config and the hardened config load, generate_assignment makes a learner's
edition that scores 0 (and the source 100%), and ``nbgrader autograde`` with the hardened config keeps
a stderr warning from costing marks and puts a deleted test cell back.

nbgrader is the ``instructor`` extra; these tests need it (and fail without it under MINITORCH_CI=1).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from tests.grading.conftest import TEST_LIMITS, require_bwrap
from tests.grading.fixtures.make_fixtures import RELU_SOLUTION, SECRET, correct, notebook
from tests.support import require

REPOSITORY = Path(__file__).resolve().parents[2]
HARDENED = REPOSITORY / "grading" / "nbgrader_hardened_config.py"


def test_hardened_config_sets_real_nbgrader_options():
    require("nbgrader", "the instructor extra: generates the learner's edition")
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import Execute, IgnorePattern, LimitOutput, OverwriteCells

    config = PyFileConfigLoader(HARDENED.name, path=str(HARDENED.parent)).load_config()
    classes = {"Execute": Execute, "IgnorePattern": IgnorePattern, "LimitOutput": LimitOutput}
    classes |= {"OverwriteCells": OverwriteCells, "CourseDirectory": CourseDirectory}
    for class_name, settings in config.items():
        traits = classes[class_name].class_traits(config=True)
        for name in settings:
            assert name in traits, f"{class_name}.{name} is not an nbgrader option"
    assert config.Execute.timeout == 60 and config.OverwriteCells.add_missing_cells is True
    assert config.IgnorePattern.enabled is True
    timeout_func = config.Execute.timeout_func
    assert timeout_func(nbformat.v4.new_code_cell("x = 1")) == 60
    assert timeout_func(nbformat.v4.new_code_cell('check("ch15.trained_model", trained_parameters)')) > 60


def test_a_cell_that_runs_a_long_exercise_gets_its_seconds_on_top():
    """Chapter 15 trains its model in the graded check (and once before it, in a plain cell): those two cells get
    ``trained_model``'s own seconds on top of the 60 every other cell has."""
    from grading import registry
    from grading.nbgrader_time import CELL_SECONDS, cell_timeouts

    cell_timeout = cell_timeouts()
    seconds = registry.get("ch15.trained_model").seconds
    assert CELL_SECONDS == 60 and seconds >= 80
    chapter = nbformat.read(next((REPOSITORY / "notebooks" / "source" / "15_capstone").glob("*.ipynb")), 4)
    limits = {index: cell_timeout(cell) for index, cell in enumerate(chapter.cells)}
    graded = next(i for i, cell in enumerate(chapter.cells)
                  if cell.metadata.get("nbgrader", {}).get("grade_id") == "ch15-training-tests")
    training = next(i for i, cell in enumerate(chapter.cells) if "= trained_model(train_ids" in cell.source)
    assert limits[graded] == CELL_SECONDS + 2 * seconds  # check(...) and check_hidden(...)
    assert limits[training] == CELL_SECONDS + seconds
    longer = {index for index, limit in limits.items() if limit > CELL_SECONDS}
    definition = next(i for i, cell in enumerate(chapter.cells) if "def trained_model(" in cell.source)
    assert longer <= {graded, training, definition}, [chapter.cells[i].source[:80] for i in longer]
    assert cell_timeout(nbformat.v4.new_markdown_cell("trained_model(1)")) == CELL_SECONDS
    assert cell_timeout(nbformat.v4.new_code_cell("while True:\n    pass")) == CELL_SECONDS
    assert cell_timeout(nbformat.v4.new_code_cell("model.trained_model_count(3)")) == CELL_SECONDS
    assert cell_timeouts(120)(chapter.cells[graded]) == 120 + 2 * seconds  # another time per cell


def test_nbclient_stops_a_cell_at_its_own_limit(monkeypatch):
    """The limit reaches the kernel's clock: with 2 s a cell and an exercise of 4 s, a 3 s call of that exercise's
    function runs to its end, and the same sleep in a cell that does not call it is interrupted (nbclient's
    ``timeout`` of 60 s is not what counts once ``timeout_func`` is set)."""
    require("nbgrader", "the instructor extra")
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError

    from grading import nbgrader_time
    from grading.registry import Exercise

    slow = Exercise(name="demo.slow_call", function="slow_call", reference=None, seconds=4)
    monkeypatch.setattr(nbgrader_time, "_slow_exercises", lambda: ((slow, re.compile(r"slow_call\s*\(")),))
    define = "import time\ndef slow_call():\n    time.sleep(3)\n    return 'done'"
    for cells, finishes in (([define, "slow_call()"], True), ([define, "time.sleep(3)"], False)):
        document = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
        client = NotebookClient(document, timeout=60, timeout_func=nbgrader_time.cell_timeouts(2),
                                kernel_name="python3")
        if finishes:
            client.execute()
            assert document.cells[1].outputs[0]["data"]["text/plain"] == "'done'"
        else:
            with pytest.raises(CellTimeoutError):
                client.execute()


def test_course_config_loads_the_hardened_one():
    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPOSITORY / "notebooks")).load_config()
    assert config.CourseDirectory.course_id == "minitorch"
    assert Path(config.CourseDirectory.root) == REPOSITORY / "notebooks"
    assert config.Execute.timeout == 60 and "raise NotImplementedError()" in config.ClearSolutions.code_stub["python"]


def _nbgrader(course: Path, *arguments: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(REPOSITORY))
    command = [sys.executable, "-m", "nbgrader", *arguments]
    result = subprocess.run(command, cwd=course, capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.fixture(scope="module")
def nbgrader_course(tmp_path_factory):
    """A fixture course in nbgrader's layout, using notebooks/nbgrader_config.py, with the release generated."""
    require("nbgrader", "the instructor extra: generates the learner's edition")
    course = tmp_path_factory.mktemp("nbgrader-course")
    (course / "source" / "demo").mkdir(parents=True)
    nbformat.write(notebook(edition="source"), course / "source" / "demo" / "demo.ipynb")
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"load_subconfig({str(REPOSITORY / 'notebooks' / 'nbgrader_config.py')!r})\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{course}/gradebook.db'\n"
    )
    _nbgrader(course, "generate_assignment", "demo", "--force")
    return course


def test_generated_release_has_no_solutions_or_hidden_tests(nbgrader_course):
    release = (nbgrader_course / "release" / "demo" / "demo.ipynb").read_text()
    for forbidden in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "check_hidden", SECRET, RELU_SOLUTION):
        assert forbidden not in release
    assert release.count("raise NotImplementedError()") == 2
    assert 'check(\\"demo.relu\\", relu)' in release


def test_reference_scores_full_marks_and_release_scores_zero(nbgrader_course, tmp_path):
    require_bwrap()
    from grading.cli import main

    folder = tmp_path / "submitted"
    folder.mkdir()
    shutil.copy(nbgrader_course / "source" / "demo" / "demo.ipynb", folder / "reference.ipynb")
    shutil.copy(nbgrader_course / "release" / "demo" / "demo.ipynb", folder / "blank.ipynb")
    source = nbgrader_course / "source" / "demo"
    assert main([str(folder), "--source", str(source), "--out", str(tmp_path / "out"), "--quiet", *TEST_LIMITS]) == 0
    with open(tmp_path / "out" / "grades.csv", newline="") as handle:
        totals = {row["student"]: float(row["total"]) for row in csv.DictReader(handle)}
    assert totals == {"reference": 3.0, "blank": 0.0}


def test_autograde_with_the_hardened_config(nbgrader_course):
    """nbgrader's own path: a warning on stderr costs nothing, a deleted test cell comes back."""
    noisy = notebook(
        'import sys\nprint("RuntimeWarning: overflow encountered", file=sys.stderr)\n' + RELU_SOLUTION,
        "return x @ weight.T + bias",
    )
    deleted = correct()
    deleted.cells = [c for c in deleted.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "test_linear"]
    for student, document in (("noisy", noisy), ("deleter", deleted)):
        folder = nbgrader_course / "submitted" / student / "demo"
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(document, folder / "demo.ipynb")
    _nbgrader(nbgrader_course, "autograde", "demo", "--force")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{nbgrader_course}/gradebook.db") as gradebook:
        scores = {student: gradebook.find_submission("demo", student).score for student in ("noisy", "deleter")}
    assert scores == {"noisy": 3.0, "deleter": 3.0}
    graded = json.loads((nbgrader_course / "autograded" / "deleter" / "demo" / "demo.ipynb").read_text())
    assert any("was missing from the submission" in "".join(cell["source"]) for cell in graded["cells"])
