"""Chapter 0's exercise checks: the chapter's own solutions pass (public and hidden cases), the blank
stubs of the learner's edition report "not implemented yet", and typical mistakes fail.

The solutions are taken from the instructor's notebook (notebooks/source/00_welcome), the stubs from
the learner's edition (notebooks/release/00_welcome), so an edit to either is tested here.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check
from tests.grading.chapter_notebooks import cells, namespace

CHAPTER = "00_welcome"
EXERCISES = ["squares", "celsius_to_fahrenheit", "sum_mean_max"]


def _cells(edition: str, kind: str) -> list[str]:
    return cells(CHAPTER, edition, kind)


def _namespace(edition: str) -> dict:
    return namespace(CHAPTER, edition)


SOLUTIONS = _namespace("source")


@pytest.mark.parametrize("name", EXERCISES)
def test_solution_passes_public_cases(name, capsys):
    check(f"ch00.{name}", SOLUTIONS[name])
    assert "public cases pass" in capsys.readouterr().out


def test_test_cells_pass_on_the_solutions_hidden_cases_included(capsys):
    test_cells = _cells("source", "grade")
    assert len(test_cells) == len(EXERCISES)
    for source in test_cells:
        assert "### BEGIN HIDDEN TESTS" in source
        exec(source, dict(SOLUTIONS))
    out = capsys.readouterr().out
    assert out.count("hidden cases pass") == len(EXERCISES) and "FAILED" not in out


@pytest.mark.parametrize("name", EXERCISES)
def test_learner_stub_reports_not_implemented(name, capsys):
    stubs = _namespace("release")
    with pytest.raises(AssertionError):
        check(f"ch00.{name}", stubs[name])
    assert "not implemented yet" in capsys.readouterr().out


def one_to_n(n):
    return minitorch.arange(1, n + 1) ** 2


def float_squares(n):
    return minitorch.arange(n).float() ** 2


def forgot_offset(celsius):
    return celsius * 9 / 5


def the_other_way(celsius):
    return (celsius - 32) * 5 / 9


def python_numbers(x):
    return x.sum().item(), x.mean().item(), x.max().item()


def min_not_max(x):
    return x.sum(), x.mean(), x.min()


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("squares", one_to_n),
        ("squares", float_squares),
        ("celsius_to_fahrenheit", forgot_offset),
        ("celsius_to_fahrenheit", the_other_way),
        ("sum_mean_max", python_numbers),
        ("sum_mean_max", min_not_max),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch00.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out
