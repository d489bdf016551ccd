"""Instant checks for learners: one line under each exercise, a summary at the end of the chapter.

In a chapter notebook::

    from grading import check, summary

    def relu(x):
        ...                               # the learner's answer

    check("demo.relu", relu)              # the public test cell: runs the public cases

    summary("demo")                       # the last cell: which exercises pass

``check`` prints one line per case (passed, or what was expected and what came back: shape, dtype,
largest difference, the failing input), keeps library warnings quiet, and raises ``AssertionError``
when a case fails, so nbgrader still scores the cell. A blank exercise (a stub that raises
``NotImplementedError`` or returns None) reports "not implemented yet" instead of a traceback.

``check_hidden(name, function, cases)`` is for the instructor's source notebook only, between
``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``: it checks the hidden cases and reports which
failed without showing them. The batch grader never runs it in the learner's process: it reads the
cases from the source notebook and calls the learner's function on them inside a sandbox.
"""

from __future__ import annotations

import inspect
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grading import registry
from grading.compare import Mismatch, UnsupportedOutput, call_arguments, compare, describe, output_arrays

PASSED, FAILED, NOT_IMPLEMENTED = "passed", "failed", "not implemented yet"
_results: dict[str, str] = {}  # exercise name -> the status of its last check in this kernel


@dataclass
class CaseResult:
    status: str  # PASSED, FAILED or NOT_IMPLEMENTED
    detail: str = ""  # what went wrong, for the learner
    safe_detail: str = ""  # what went wrong, without quoting the case (hidden cases)
    expected: list = field(default_factory=list)
    got: list = field(default_factory=list)


@contextmanager
def quiet():
    """No library warnings and no NumPy floating-point warnings: they would land on stderr, where
    nbgrader counts any output as a failed test cell, and they drown the message that matters."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def expected_outputs(exercise: registry.Exercise, case: tuple) -> list[np.ndarray]:
    """The reference's answer on ``case``, as arrays."""
    with quiet():
        return output_arrays(exercise.reference(*call_arguments(case, exercise.input_type)))[1]


def run_case(exercise: registry.Exercise, function, case: tuple) -> CaseResult:
    """Call the learner's ``function`` on one case and compare with the reference."""
    expected = expected_outputs(exercise, case)
    try:
        with quiet():
            result = function(*call_arguments(case, exercise.input_type))
    except NotImplementedError:
        return CaseResult(NOT_IMPLEMENTED, "raises NotImplementedError", "raises NotImplementedError")
    except Exception as error:  # the learner's bug: report it in one line, with the line it came from
        where = _learner_frame(error)
        message = f"raised {type(error).__name__}: {error}{where}"
        return CaseResult(FAILED, message, f"raised {type(error).__name__}")
    if result is None:
        return CaseResult(NOT_IMPLEMENTED, "returned None", "returned None")
    try:
        kinds, got = output_arrays(result)
    except UnsupportedOutput as error:
        return CaseResult(FAILED, str(error), str(error))
    mismatch = type_mismatch(exercise, kinds) or compare(
        expected, got, rtol=exercise.rtol, atol=exercise.atol, check_dtype=exercise.check_dtype
    )
    if mismatch is not None:
        return CaseResult(FAILED, mismatch.detail, mismatch.safe_detail, expected, got)
    return CaseResult(PASSED, expected=expected, got=got)


def type_mismatch(exercise: registry.Exercise, kinds: list[str]) -> Mismatch | None:
    if exercise.output_type == "tensor" and any(kind != "tensor" for kind in kinds):
        returned = ", ".join(kinds)
        detail = f"returned {returned}; this exercise asks for a minitorch Tensor (wrap an array with minitorch.tensor)"
        return Mismatch("type", detail, detail)
    return None


def _learner_frame(error: BaseException) -> str:
    """' (in relu, line 3: return x @ w)': the innermost frame outside minitorch and grading."""
    package_dirs = [str(Path(__file__).resolve().parent)]
    try:
        import minitorch

        package_dirs.append(str(Path(minitorch.__file__).resolve().parent))
    except ImportError:
        pass
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not any(frame.filename.startswith(directory) for directory in package_dirs)
    ]
    if not frames:
        return ""
    frame = frames[-1]
    code = f": {frame.line.strip()}" if frame.line else ""
    return f" (in {frame.name}, line {frame.lineno}{code})"


def _argument_names(function, count: int) -> list[str]:
    try:
        names = [
            parameter.name
            for parameter in inspect.signature(function).parameters.values()
            if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"argument {i + 1}" for i in range(count)]


# -- the collector: the batch grader reads test cells without running any check -----------------
class _Collected:
    def __init__(self):
        self.checked: list[str] = []
        self.hidden: list[tuple[str, list[tuple]]] = []


_collector: _Collected | None = None


@contextmanager
def collecting():
    """While active, ``check`` and ``check_hidden`` record their exercise names and cases and return."""
    global _collector
    previous, _collector = _collector, _Collected()
    try:
        yield _collector
    finally:
        _collector = previous


# -- the learner's helpers ------------------------------------------------------------------
def check(name: str, function) -> None:
    """Run the public cases of exercise ``name`` on ``function``; raise AssertionError if any fails."""
    if _collector is not None:
        _collector.checked.append(name)
        return
    exercise = registry.get(name)
    if not callable(function):
        _results[name] = FAILED
        print(f"{name}: expected the function {exercise.function}, got {type(function).__name__}")
        raise AssertionError(f"{name}: {exercise.function} is not a function") from None
    results = [run_case(exercise, function, case) for case in exercise.public]
    status = _overall(results)
    _results[name] = status
    if status == NOT_IMPLEMENTED:
        print(
            f"{name}: not implemented yet. Write {exercise.function} in the cell above, run that cell, "
            "then run this one again."
        )
        raise AssertionError(f"{name}: not implemented yet") from None
    names = _argument_names(function, max((len(case) for case in exercise.public), default=0))
    total = len(results)
    for number, (case, result) in enumerate(zip(exercise.public, results), start=1):
        if result.status == PASSED:
            print(f"{name}: public case {number} of {total} passed")
            continue
        print(f"{name}: public case {number} of {total} FAILED: {result.detail}")
        for argument_name, value in zip(names, case):
            text = describe(value).replace("\n", "\n      ")
            print(f"    input {argument_name} = {text}")
        for label, arrays in (("expected", result.expected), ("got     ", result.got)):
            if arrays:
                shapes = ", ".join(f"shape {tuple(array.shape)}, dtype {array.dtype}" for array in arrays)
                print(f"    {label}: {shapes}")
    failed = sum(result.status != PASSED for result in results)
    if failed:
        if exercise.hint:
            print(f"    hint: {exercise.hint}")
        raise AssertionError(f"{name}: {failed} of {total} public cases failed") from None
    print(f"{name}: all {total} public cases pass")


def check_hidden(name: str, function, cases) -> None:
    """Hidden cases (instructor's source notebook only): report pass/fail without showing the cases."""
    cases = [registry.validate_case(case, f"hidden case {index + 1} of {name}") for index, case in enumerate(cases)]
    if _collector is not None:
        _collector.hidden.append((name, cases))
        return
    exercise = registry.get(name)
    if not callable(function):
        raise AssertionError(f"{name}: {exercise.function} is not a function") from None
    results = [run_case(exercise, function, case) for case in cases]
    failed = [(number, result) for number, result in enumerate(results, start=1) if result.status != PASSED]
    for number, result in failed:
        print(f"{name}: hidden case {number} of {len(cases)} FAILED: {result.safe_detail}")
    if failed:
        _results[name] = FAILED
        raise AssertionError(f"{name}: {len(failed)} of {len(cases)} hidden cases failed") from None
    print(f"{name}: all {len(cases)} hidden cases pass")


def _overall(results: list[CaseResult]) -> str:
    if results and all(result.status == NOT_IMPLEMENTED for result in results):
        return NOT_IMPLEMENTED
    return PASSED if all(result.status == PASSED for result in results) else FAILED


def summary(chapter: str | None = None) -> dict[str, str]:
    """Print which exercises pass (of ``chapter``, or of every chapter checked so far); return the table."""
    chapters = [chapter] if chapter else sorted({name.split(".", 1)[0] for name in _results})
    table: dict[str, str] = {}
    for name in chapters:
        for exercise in registry.chapter_exercises(name):
            table[exercise.name] = _results.get(exercise.name, "not checked yet")
    if not table:
        print("No exercises checked yet: run the check cells first.")
        return table
    width = max(len(name) for name in table)
    for name, status in table.items():
        print(f"  {name.ljust(width)}  {status}")
    passing = sum(status == PASSED for status in table.values())
    print(f"{passing} of {len(table)} exercises pass")
    return table
