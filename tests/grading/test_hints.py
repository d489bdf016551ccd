"""No hint, exercise docstring or check message gives the solution away.

For every exercise of every chapter, the code lines of the instructor's solution (between
``### BEGIN SOLUTION`` and ``### END SOLUTION``) must not appear in the exercise's hints (every step)
nor in the learner's edition of its exercise cell (its docstrings and comments). Lines too short to
give anything away (``return x``, ``else:``) are skipped.
"""

from __future__ import annotations

import re

import pytest

from grading.registry import chapter_exercises
from tests.grading.chapter_notebooks import CHAPTERS, graded_cells

MIN_LENGTH = 16  # shorter lines ("return out", "loss.backward()") give away no more than the prose does
# idioms the chapters teach in their prose, not an exercise's answer
TRIVIAL = re.compile(
    r"^(return \w+|\w+ = \w+|pass|else:|try:|\)|\]|\}|[\w.]+\.backward\(\)|[\w.]+\.zero_\(\)|with [\w.]+\(\):)$"
)


def _normal(text: str) -> str:
    return re.sub(r"\s+", "", text)


def solution_lines(source: str) -> list[str]:
    lines = []
    for region in re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", source, flags=re.S):
        for line in region.splitlines():
            code = line.split("#", 1)[0].strip()
            if len(code) >= MIN_LENGTH and not TRIVIAL.match(code):
                lines.append(code)
    return lines


def _exercises():
    for chapter in CHAPTERS:
        solutions = graded_cells(chapter, "source", "solution")
        released = graded_cells(chapter, "release", "solution")
        for grade_id, source in solutions.items():
            yield pytest.param(chapter, grade_id, source, released.get(grade_id, ""), id=f"{chapter}-{grade_id}")


@pytest.mark.parametrize("chapter, grade_id, source, released", list(_exercises()))
def test_the_learners_exercise_cell_does_not_contain_its_solution(chapter, grade_id, source, released):
    leaked = [line for line in solution_lines(source) if _normal(line) in _normal(released)]
    assert not leaked, f"{chapter} {grade_id}: the learner's edition shows solution lines {leaked}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_hint_contains_a_solution_line(chapter):
    lines = [line for source in graded_cells(chapter, "source", "solution").values() for line in solution_lines(source)]
    leaks = {}
    for exercise in chapter_exercises("ch" + chapter.split("_", 1)[0]):
        hints = _normal(" ".join((exercise.hint, *exercise.hints)))
        found = [line for line in lines if _normal(line) in hints]
        if found:
            leaks[exercise.name] = found
    assert not leaks, f"hints that contain solution lines: {leaks}"


def test_the_scan_finds_a_leak():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    return x @ weight.T + bias\n    ### END SOLUTION\n"
    assert solution_lines(source) == ["return x @ weight.T + bias"]
    assert _normal("return x @ weight.T + bias") in _normal("Hint: return x@weight.T+bias, and done")
