"""Chapter 1's exercise checks reject the typical mistakes: distances without the square root or
transposed, a masked mean over every column or one mean for all rows, columns standardized with the
population spread, by row or not centred, one-hot codes as integers or transposed.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check


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
