"""Chapter 0's exercise checks reject the typical mistakes: squares from 1 or as floats, Fahrenheit
without the offset or converted the other way, Python numbers or the minimum instead of the maximum.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check


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
