"""Chapter 1's exercise checks: the chapter's own solutions pass (public and hidden cases), the blank
stubs of the learner's edition report "not implemented yet", and typical mistakes fail.

The solutions are taken from the instructor's notebook (notebooks/source/01_tensors), the stubs from
the learner's edition (notebooks/release/01_tensors), so an edit to either is tested here.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check
from tests.grading.chapter_notebooks import cells, namespace

CHAPTER = "01_tensors"
EXERCISES = ["pairwise_distances", "masked_mean", "standardize_columns", "one_hot"]


def _cells(edition: str, kind: str) -> list[str]:
    return cells(CHAPTER, edition, kind)


def _namespace(edition: str) -> dict:
    return namespace(CHAPTER, edition)


SOLUTIONS = _namespace("source")


@pytest.mark.parametrize("name", EXERCISES)
def test_solution_passes_public_cases(name, capsys):
    check(f"ch01.{name}", SOLUTIONS[name])
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
        check(f"ch01.{name}", stubs[name])
    assert "not implemented yet" in capsys.readouterr().out


def forgot_square_root(a, b):
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(dim=-1)


def transposed_distances(a, b):
    return ((a[None, :, :] - b[:, None, :]) ** 2).sum(dim=-1).sqrt()  # shape (m, n), not (n, m)


def divided_by_columns(x, mask):
    return (x * mask).sum(dim=1) / x.shape[1]


def one_mean_for_all(x, mask):
    return x[mask].mean()


def population_std(x):
    return (x - x.mean(dim=0)) / x.std(dim=0, correction=0)


def standardized_rows(x):
    return (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True)


def not_centred(x):
    return x / x.std(dim=0)


def integer_one_hot(labels, num_classes):
    return minitorch.nn.functional.one_hot(labels, num_classes)


def transposed_one_hot(labels, num_classes):
    return (minitorch.arange(num_classes)[:, None] == labels[None, :]).float()


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("pairwise_distances", forgot_square_root),
        ("pairwise_distances", transposed_distances),
        ("masked_mean", divided_by_columns),
        ("masked_mean", one_mean_for_all),
        ("standardize_columns", population_std),
        ("standardize_columns", standardized_rows),
        ("standardize_columns", not_centred),
        ("one_hot", integer_one_hot),
        ("one_hot", transposed_one_hot),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch01.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out
