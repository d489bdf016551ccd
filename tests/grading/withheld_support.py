"""Withheld pieces in one exercise at a time, as the batch grader's runner withholds them.

``run_with_withheld`` runs a chapter's reference solution of one exercise, and a shortcut ``cheat``
through the withheld pieces, in a fresh interpreter with the pieces withheld (``grading/withhold.py``, as
the runner applies it): the solution must still match the expected answers (computed before, outside, as the
grader does) and the shortcut must raise. ``withheld_names_missing`` lists names that do not exist
(a misspelt piece would withhold nothing).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

from grading.registry import chapter_exercises

REPOSITORY = Path(__file__).resolve().parents[2]

_SCRIPT = r"""
import sys
import numpy as np
import minitorch
import minitorch.nn.functional as F
from grading.withhold import Withholding
from grading.checks import expected_outputs
from grading.compare import call_arguments, output_arrays
from grading.registry import get
from tests.grading.chapter_notebooks import solutions

exercise = get(sys.argv[1])
expected = [expected_outputs(exercise, case) for case in exercise.public]  # as the grader does, outside the sandbox
solution = solutions(sys.argv[2])[exercise.function]
namespace = {"minitorch": minitorch, "F": F, "nn": minitorch.nn}
exec(sys.argv[3], namespace)
guard = Withholding(exercise.name, exercise.withheld)  # as _runner.py does in the sandbox, per graded call
for case, want in zip(exercise.public, expected):
    with guard.active():
        got = output_arrays(solution(*call_arguments(case, exercise.input_type)))[1]
    assert not guard.hits, f"the solution reached {guard.hits}"
    for have, reference in zip(got, want):
        np.testing.assert_allclose(have, reference, rtol=exercise.rtol, atol=exercise.atol)
with guard.active():
    try:
        namespace["cheat"](*call_arguments(exercise.public[0], exercise.input_type))
    except NotImplementedError as error:
        print("withheld:", error)
"""


def run_with_withheld(name: str, chapter: str, cheat: str) -> str:
    """Exercise ``name``'s solution from ``chapter`` ("06_data") and ``cheat`` (source defining ``cheat``,
    which takes the public case's arguments) with the exercise's pieces withheld; returns what it printed."""
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT, name, chapter, cheat], cwd=REPOSITORY, capture_output=True, text=True,
        timeout=300, env={**os.environ, "PYTHONPATH": str(REPOSITORY)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def withheld_names_missing(chapter: str) -> list[str]:
    """``"exercise: name"`` for each withheld name of ``chapter`` ("ch06") that does not exist."""
    missing = []
    for exercise in chapter_exercises(chapter):
        for name in exercise.withheld:
            module_name, _, attribute = name.rpartition(".")
            try:
                owner = importlib.import_module(module_name)
            except ImportError:
                parent, _, child = module_name.rpartition(".")
                owner = getattr(importlib.import_module(parent), child)
            if not hasattr(owner, attribute):
                missing.append(f"{exercise.name}: {name}")
    return missing
