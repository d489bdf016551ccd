"""The checks every chapter's exercises share, for each chapter found in notebooks/source:

* every graded test cell of the instructor's edition passes on the instructor's solutions, public and
  hidden cases;
* every test cell of the learner's edition reports "not implemented yet" on the blank stubs, without
  raising (Run All goes on), and the learner's edition imports nothing instructor-only;
* every hidden block imports ``check_hidden`` itself, and fails (raises) on the blank stubs, so nbgrader
  scores a blank exercise 0 whatever the visible check does;
* the chapter grades three exercises or more, the ones the registry (grading/exercises) holds for it.

The mistakes each chapter's checks must reject are tested in test_chNN_exercises.py.
"""

from __future__ import annotations

import pytest

from grading.registry import chapter_exercises
from tests.grading.chapter_notebooks import CHAPTERS, COURSE, checked_exercise, graded_cells, namespace, solutions

TEST_CELLS = [
    pytest.param(chapter, grade_id, id=f"{chapter}-{checked_exercise(source)}")
    for chapter in CHAPTERS
    for grade_id, source in graded_cells(chapter, "source", "grade").items()
]


@pytest.mark.parametrize("chapter, grade_id", TEST_CELLS)
def test_instructor_test_cell_passes_on_the_solutions_hidden_cases_included(chapter, grade_id, capsys):
    source = graded_cells(chapter, "source", "grade")[grade_id]
    assert "### BEGIN HIDDEN TESTS" in source
    exec(source, dict(solutions(chapter)))
    out = capsys.readouterr().out
    assert "public cases pass" in out and "hidden cases pass" in out and "FAILED" not in out


@pytest.mark.parametrize("chapter, grade_id", TEST_CELLS)
def test_learner_test_cell_reports_the_stub_not_implemented(chapter, grade_id, capsys):
    source = graded_cells(chapter, "release", "grade")[grade_id]
    exec(source, namespace(chapter, "release"))  # reports, never raises
    assert f"{checked_exercise(source)}: not implemented yet" in capsys.readouterr().out


@pytest.mark.parametrize("chapter, grade_id", TEST_CELLS)
def test_the_hidden_block_imports_check_hidden_and_fails_the_stub(chapter, grade_id, capsys):
    source = graded_cells(chapter, "source", "grade")[grade_id]
    hidden = source.split("### BEGIN HIDDEN TESTS", 1)[1].split("### END HIDDEN TESTS", 1)[0]
    assert "from grading import check_hidden" in hidden, (
        f"{grade_id}: the hidden block must import check_hidden itself (the learner's edition does not)"
    )
    names = {key: value for key, value in namespace(chapter, "release").items() if key != "check_hidden"}
    with pytest.raises(AssertionError, match="cases failed"):
        exec(source, names)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_learner_edition_imports_nothing_instructor_only(chapter):
    text = (COURSE / "release" / chapter / f"{chapter}.ipynb").read_text()
    for forbidden in ("check_hidden", "BEGIN HIDDEN TESTS", "BEGIN SOLUTION", "grading.exercises"):
        assert forbidden not in text, f"the learner's edition of {chapter} contains {forbidden!r}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_chapter_grades_three_or_more_exercises_all_registered(chapter):
    checked = [checked_exercise(source) for source in graded_cells(chapter, "source", "grade").values()]
    registered = [exercise.name for exercise in chapter_exercises("ch" + chapter.split("_", 1)[0])]
    assert len(checked) >= 3
    assert sorted(checked) == sorted(registered)
