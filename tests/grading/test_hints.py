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


# -- every registered exercise: three steps, none quoting its reference; a failure points at hint() ---------
import ast  # noqa: E402
import importlib  # noqa: E402
import inspect  # noqa: E402
import pkgutil  # noqa: E402
import textwrap  # noqa: E402
import types  # noqa: E402

import grading.exercises  # noqa: E402
from grading import checks, registry  # noqa: E402
from tests.grading.chapter_notebooks import namespace  # noqa: E402


def _registered():
    """Every exercise of every module in grading/exercises (the chapters, the capstone, the demo)."""
    for module in pkgutil.iter_modules(grading.exercises.__path__):
        importlib.import_module(f"grading.exercises.{module.name}")
    return dict(registry._EXERCISES)


EXERCISES = _registered()


def _steps(exercise) -> tuple[str, ...]:
    return tuple(step for step in (*exercise.hints, exercise.hint) if step)


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_every_exercise_has_at_least_three_hint_steps(name):
    hints = EXERCISES[name].hints
    assert len(hints) >= 3 and all(len(step) >= 20 for step in hints), (
        f"{name} has {len(hints)} hint step(s); it needs three: the idea, then the formula, then a sketch "
        "that leaves the work to do"
    )


def _helper_functions(function, module_name: str, seen: set) -> list:
    """``function`` and the functions of the exercise's module that it names, at any depth (the reference's
    own pieces: ``_reference_causal_softmax`` behind a report-building lambda)."""
    if not isinstance(function, types.FunctionType) or function in seen:
        return []
    seen.add(function)
    found = [function]
    codes = [function.__code__]
    while codes:
        code = codes.pop()
        codes.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
        for name in code.co_names:
            value = function.__globals__.get(name)
            if isinstance(value, types.FunctionType) and value.__module__ == module_name:
                found += _helper_functions(value, module_name, seen)
    return found


def _code_lines(function) -> list[str]:
    """The non-trivial code lines of a function's source: no docstring, no comment, no ``def`` line; for a
    lambda, its body (the expression after the colon)."""
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        return []
    docstrings = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a lambda cut out of a longer call: its lines, as they are
        tree = None
    if tree is not None:
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                    and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                docstrings.update(range(body[0].lineno, body[0].end_lineno + 1))
    lines = []
    for number, line in enumerate(source.splitlines(), start=1):
        code = line.split("#", 1)[0].strip().rstrip(",")
        if number in docstrings or code.startswith(("def ", "@")):
            continue
        if "lambda" in code:
            code = code.split("lambda", 1)[1].split(":", 1)[-1].strip().rstrip(",)")
        if len(code) >= MIN_LENGTH and not TRIVIAL.match(code):
            lines.append(code)
    return lines


def reference_lines(exercise) -> list[str]:
    module_name = f"grading.exercises.{exercise.chapter}"
    functions = _helper_functions(exercise.reference, module_name, set())
    return [line for function in functions for line in _code_lines(function)]


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_no_hint_contains_a_line_of_its_reference(name):
    exercise = EXERCISES[name]
    lines = reference_lines(exercise)
    leaks = [(number, line) for number, step in enumerate(_steps(exercise), start=1) for line in lines
             if _normal(line) in _normal(step)]
    assert not leaks, f"{name}: hint steps quote its reference solution: {leaks}"


def test_the_reference_scan_reads_helpers_and_lambdas():
    lines = reference_lines(EXERCISES["ch03.causal_softmax"])  # a lambda around a report around the reference
    assert any("masked_fill(future" in line for line in lines), lines
    assert "minitorch.arange(n)**2" in [_normal(line) for line in reference_lines(EXERCISES["ch00.squares"])]


def _broken(*arguments):
    raise ValueError("a deliberate mistake")


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_a_failure_names_the_case_and_points_to_hint_without_quoting_it(name, capsys, monkeypatch):
    monkeypatch.setattr(checks, "_hints_shown", {})
    monkeypatch.setattr(checks, "_results", {})
    exercise = EXERCISES[name]
    assert checks.check(name, _broken) == "failed"
    out = capsys.readouterr().out
    assert f"{name}: public case 1 of {len(exercise.public)}" in out
    if exercise.labels:
        assert exercise.labels[0] in out  # what the case tests, so the concept is named
    assert f'hint("{name}")' in out
    printed = _normal(out)
    for step in _steps(exercise):
        # no stretch of 40 characters of any step: not the step, not a piece of it
        words = _normal(step)
        assert not any(words[start:start + 40] in printed for start in range(0, max(1, len(words) - 39), 10)), (
            f"{name}: the failure report quotes a hint step: {step[:60]}..."
        )


def test_an_unstable_softmax_is_reported_as_nan_not_as_a_tolerance(capsys, monkeypatch):
    monkeypatch.setattr(checks, "_results", {})

    def naive_cross_entropy(logits, targets):  # exp() of logits in the hundreds overflows float32: inf / inf
        import minitorch

        probabilities = logits.exp() / logits.exp().sum(dim=1, keepdim=True)
        return -probabilities[minitorch.arange(logits.shape[0]), targets].log().mean()

    checks.check("ch05.cross_entropy", naive_cross_entropy)
    out = capsys.readouterr().out
    assert "public case 3 of 3 (logits in the hundreds" in out
    assert "FAILED: got NaN where the reference is finite (expected " in out and "exp() overflowed" in out
    assert "largest difference" not in out


def _stubs(source: str) -> set[str]:
    """Qualified names of the functions in ``source`` whose own body raises NotImplementedError: the learner's."""
    found = set()

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                raises = any(
                    isinstance(statement, ast.Raise) and "NotImplementedError" in ast.unparse(statement)
                    for statement in child.body
                )
                if raises:
                    found.add(prefix + child.name)

    visit(ast.parse(source), "")
    return found


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_not_implemented_names_the_function_the_learner_writes(chapter, capsys, monkeypatch):
    monkeypatch.setattr(checks, "_results", {})
    stubs = set().union(*(_stubs(source) for source in graded_cells(chapter, "release", "solution").values()))
    names = namespace(chapter, "release")
    tested = 0
    for source in graded_cells(chapter, "release", "grade").values():
        for exercise_name, function_name in re.findall(r'\bcheck\("([\w.]+)",\s*(\w+)\)', source):
            assert checks.check(exercise_name, names[function_name]) == "not implemented yet", exercise_name
            written = re.search(r"not implemented yet\. Write (\S+) in the cell above", capsys.readouterr().out)
            assert written and written.group(1) in stubs, (
                f"{exercise_name}: the message names {written and written.group(1)!r}, not one of the learner's "
                f"stubs {sorted(stubs)}"
            )
            tested += 1
    assert tested
