"""Instant checks for learners: one line under each exercise, a summary at the end of the chapter.

In a chapter notebook::

    from grading import check, hint, summary

    def relu(x):
        ...                               # the learner's answer

    check("demo.relu", relu)              # the public test cell: runs the public cases

    summary("demo")                       # the last cell: which exercises pass

``check`` reports and never raises, so "Restart Kernel and Run All" runs every cell of a chapter
whatever state its exercises are in: a pass is one line; a failure is one red report of the *first*
failing public case (which case and what it tests, what was wrong, the inputs' shapes and dtypes, the
expected and returned shapes) that ends by pointing at ``hint("chNN.name")``, never quoting a hint step
(a step shown unasked gives away what the learner was about to work out); there is no traceback into
this package and no full input array. A blank exercise (a stub that raises ``NotImplementedError`` or
returns None) says "not implemented yet" and names the function the learner writes: the one whose stub
raised, which is not always the function the check calls (a given wrapper may call it). ``hint(name)``
reveals an exercise's hints one step at a time (the idea, then the formula, then a sketch).

The grade never depends on the visible check. ``check_hidden(name, function, cases)`` is for the
instructor's source notebook only, between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS`` (the
hidden block imports it: ``from grading import check_hidden``), so the learner's edition never sees it.
It runs the public cases *and* the hidden ones, reports which failed without showing the hidden ones,
and raises ``AssertionError`` when any fails: under ``nbgrader autograde`` (which puts the source's test
cells back) that is what scores the cell. The batch grader never runs either check in the learner's
process: it reads the cases from the source notebook and calls the learner's function on them inside a
sandbox. Editing or deleting the visible ``check`` line therefore changes no grade.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import traceback
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grading import registry
from grading.compare import Mismatch, UnsupportedOutput, call_arguments, compare, output_arrays

PASSED, FAILED, NOT_IMPLEMENTED = "passed", "failed", "not implemented yet"
# the learner's kit only: the answer ran, but its judge is the grader's (grading.public says why)
UNCHECKED = "judged by the grader only"
# Test suites that want an exception from a failing visible check (``pytest.raises(AssertionError)``) set
# this to True; a learner's notebook never does, so Run All goes on past every exercise.
raise_on_failure = False
_results: dict[str, str] = {}  # exercise name -> the status of its last check in this kernel


@dataclass
class CaseResult:
    status: str  # PASSED, FAILED or NOT_IMPLEMENTED
    detail: str = ""  # what went wrong, for the learner
    safe_detail: str = ""  # what went wrong, without quoting the case (hidden cases)
    expected: list = field(default_factory=list)
    got: list = field(default_factory=list)
    blank: str = ""  # NOT_IMPLEMENTED: the learner's function whose stub raised (``Module.forward``), if known


@contextmanager
def quiet():
    """No library warnings and no NumPy floating-point warnings: they would land on stderr, where
    nbgrader counts any output as a failed test cell, and they drown the message that matters."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def expected_outputs(exercise: registry.Exercise, case: tuple) -> list[np.ndarray]:
    """The reference's answer on ``case``, as arrays (none for a judged exercise: its judge measures the answer).

    In the learner's kit there is no reference: the answers to the public cases were computed by it when the kit
    was built (:mod:`grading.public`), and only those cases have one."""
    if exercise.judge is not None or exercise.unchecked:
        return []
    if exercise.reference is None:
        return list(_stored_answer(exercise, case))
    with quiet():
        return output_arrays(exercise.reference(*call_arguments(case, exercise.input_type)))[1]


def _stored_answer(exercise: registry.Exercise, case: tuple) -> tuple[np.ndarray, ...]:
    for public, answer in zip(exercise.public, exercise.answers):
        if public is case or _same_case(public, case):
            return answer
    raise LookupError(
        f"{exercise.name}: the learner's kit holds the answers of the public cases only; hidden cases are graded "
        "with the instructor's part (minitorch-kit-instructor) or by minitorch-grade"
    )


def _same_case(first: tuple, second: tuple) -> bool:
    if len(first) != len(second):
        return False
    for one, other in zip(first, second):
        if isinstance(one, np.ndarray) or isinstance(other, np.ndarray):
            if not (isinstance(one, np.ndarray) and isinstance(other, np.ndarray)) or one.dtype != other.dtype:
                return False
            if not np.array_equal(one, other, equal_nan=one.dtype.kind in "fc"):
                return False
        elif type(one) is not type(other) or one != other:
            return False
    return True


def run_case(exercise: registry.Exercise, function, case: tuple) -> CaseResult:
    """Call the learner's ``function`` on one case and compare with the reference."""
    expected = expected_outputs(exercise, case)  # before the pieces are withheld: the reference uses them
    arguments = call_arguments(case, exercise.input_type)
    guard = _withholding(exercise)
    if guard is not None:  # the batch grader's withheld pieces (grading/withhold.py), applied here alike
        refused = guard.refusal(function) or _replaced(exercise, guard.replaced)
        if refused:
            return CaseResult(FAILED, refused, refused)
        guard.start()
    try:
        outcome = _call_and_read(function, arguments)
    finally:
        if guard is not None:
            guard.stop()
    if guard is not None and guard.hits:
        detail = _withheld_detail(exercise, guard.hits[0])
        return CaseResult(FAILED, detail, detail)
    if isinstance(outcome, CaseResult):
        return outcome
    result, kinds, got = outcome
    # a changed input first: it is usually why the values are wrong too
    problem = None if exercise.mutates_inputs else _changed_input(function, case, arguments)
    if problem:
        return CaseResult(FAILED, problem, problem, expected, got)
    if exercise.unchecked:  # the learner's kit cannot judge it (grading.public): say so, never a verdict
        mismatch = type_mismatch(exercise, kinds)
        if mismatch is not None:
            return CaseResult(FAILED, mismatch.detail, mismatch.detail, expected, got)
        return CaseResult(UNCHECKED, exercise.unchecked, exercise.unchecked, got=got)
    if exercise.judge is not None:
        mismatch = type_mismatch(exercise, kinds)
        problem = mismatch.detail if mismatch is not None else judged(exercise, got, case)
        return CaseResult(FAILED, problem, problem, expected, got) if problem else CaseResult(PASSED, got=got)
    mismatch = type_mismatch(exercise, kinds) or compare(
        expected, got, rtol=exercise.rtol, atol=exercise.atol, check_dtype=exercise.check_dtype,
        at_most=exercise.at_most, texts=exercise.text_outputs,
    )
    if mismatch is not None:
        return CaseResult(
            FAILED, _named(exercise, mismatch.detail), _named(exercise, mismatch.safe_detail), expected, got
        )
    problem = exercise.answer_check(result) if exercise.answer_check is not None else None
    if problem:
        return CaseResult(FAILED, problem, problem, expected, got)
    return CaseResult(PASSED, expected=expected, got=got)


# -- exercises whose cases start processes: all the cases of one check at once ---------------------------------
_case_batches: dict[str, Callable] = {}


def batch_cases(name: str, prepare: Callable) -> None:
    """Before a check runs several cases of exercise ``name``, call ``prepare(exercise, function, cases)``.

    For an exercise whose every case starts processes (chapter 12's ranks, ``grading/library/ddp.py``): ``prepare``
    runs all the cases in one start and remembers the outcomes, so each case's own call below finds its outcome
    instead of starting processes again. The cases are then judged one by one, exactly as without it.
    """
    _case_batches[name] = prepare


def run_cases(exercise: registry.Exercise, function, cases) -> list[CaseResult]:
    """``run_case`` on every case, after the exercise's ``batch_cases`` preparation where it has one."""
    cases = list(cases)
    prepare = _case_batches.get(exercise.name)
    if prepare is not None and len(cases) > 1 and callable(function):
        prepare(exercise, function, cases)
    return [run_case(exercise, function, case) for case in cases]


def judged(exercise: registry.Exercise, got: list[np.ndarray], case: tuple) -> str | None:
    """The exercise's judge on the answer's arrays: the same call in the instant check and the batch grader.

    The arrays are the answer as it came back, never the learner's objects, so nothing of the learner's code
    runs while the judge measures it; a judge that cannot read the answer says so instead of raising. The data it
    measures on (``judging_data``) is read first: missing data is the kit's fault, never the answer's, and raises."""
    data = () if exercise.judging_data is None else (exercise.judging_data(),)
    try:
        with quiet():
            return exercise.judge(got, case, *data)
    except Exception as error:  # noqa: BLE001 - an answer the judge cannot use fails; it never stops a check
        return f"the answer could not be measured ({type(error).__name__}: {str(error)[:120]})"


_LOOPS = {
    ast.For: "a for loop", ast.AsyncFor: "a for loop", ast.While: "a while loop",
    ast.ListComp: "a list comprehension", ast.SetComp: "a set comprehension", ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
}  # fmt: skip


def python_loop(source: str, name: str) -> str | None:
    """'get_batch has a for loop (line 3)...' when the last ``def name`` in ``source`` loops in Python (a for or
    while loop, a comprehension, a call of map), else None; None too when the source holds no such def or does not
    parse (nothing to judge). Read from the text, so nothing of the learner's code runs."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return None
    definitions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == name]
    if not definitions:
        return None
    for node in ast.walk(definitions[-1]):
        what = _LOOPS.get(type(node))
        if what is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "map":
            what = "a call of map"
        if what is not None:
            line = node.lineno - definitions[-1].lineno + 1
            return (
                f"{name} has {what} (line {line} of the function): the exercise asks for no Python loop; build all "
                "the positions at once by broadcasting and index with them in one step"
            )
    return None


def _loop_in(exercise: registry.Exercise, function) -> str | None:
    if not exercise.no_python_loop:
        return None
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return None  # no source to read (a built-in, a function made by exec): the grader reads the notebook's
    return python_loop(source, getattr(function, "__name__", exercise.function))


def _withholding(exercise: registry.Exercise):
    """The exercise's withheld pieces as a :class:`grading.withhold.Withholding`, or None when it has none."""
    if not exercise.withheld:
        return None
    from grading.withhold import Withholding

    return Withholding(exercise.name, exercise.withheld)


def _replaced(exercise: registry.Exercise, names: list[str]) -> str | None:
    if not names:
        return None
    return (
        f"{names[0]} was replaced in this kernel, so {exercise.name} cannot be checked with minitorch's own "
        "withheld: restart the kernel and run the cells again, without rebinding minitorch's names"
    )


def _withheld_detail(exercise: registry.Exercise, piece: str) -> str:
    if piece in exercise.withheld:
        return (
            f"calls minitorch's own {piece}, which {exercise.name} asks you to build (the grader withholds it "
            "while this exercise is graded, so such an answer scores 0): write it from smaller operations"
        )
    return f"reached {piece} while {exercise.name} was checked, which the grader does not allow"


def _call_and_read(function, arguments: list):
    """(answer, kinds, arrays) of one call, or the CaseResult that ends the case (an error, no answer)."""
    try:
        with quiet():
            result = function(*arguments)
    except NotImplementedError as error:
        if type(error).__name__ == "WithheldPiece":
            return CaseResult(FAILED, str(error), str(error))  # reported from the guard's hits
        blank = _raising_learner_function(error)
        return CaseResult(NOT_IMPLEMENTED, "raises NotImplementedError", "raises NotImplementedError", blank=blank)
    except Exception as error:  # the learner's bug: report it in one line, with the line it came from
        where = _learner_frame(error)
        message = f"raised {type(error).__name__}: {error}{where}"
        return CaseResult(FAILED, message, f"raised {type(error).__name__}")
    if result is None:
        return CaseResult(NOT_IMPLEMENTED, "returned None", "returned None")
    try:
        kinds, got = output_arrays(result)  # a tensor subclass's numpy() is the learner's code too
    except UnsupportedOutput as error:
        return CaseResult(FAILED, str(error), str(error))
    return result, kinds, got


def _changed_input(function, case: tuple, arguments: list) -> str | None:
    """'changed its input x in place' when an argument's values differ from the case after the call."""
    names = _argument_names(function, len(case))
    for name, original, argument in zip(names, case, arguments):
        if not isinstance(original, np.ndarray):
            continue
        try:
            now = argument if isinstance(argument, np.ndarray) else argument.detach().cpu().numpy()
            unchanged = now.shape == original.shape and bool(
                np.array_equal(now, original, equal_nan=original.dtype.kind in "fc")
            )
        except Exception:  # an argument the learner replaced by something else entirely
            unchanged = False
        if not unchanged:
            return (
                f"changed its input {name} in place (its values differ after the call); work on a copy "
                "(x.clone()) or build new tensors, and leave the caller's tensors as they were"
            )
    return None


def _named(exercise: registry.Exercise, detail: str) -> str:
    """'output 2: wrong values' becomes 'output 2 (bias): wrong values' when the exercise names its outputs."""
    for position, name in enumerate(exercise.outputs, start=1):
        detail = detail.replace(f"output {position}: ", f"output {position} ({name}): ", 1)
    return detail


def type_mismatch(exercise: registry.Exercise, kinds: list[str]) -> Mismatch | None:
    if exercise.output_type == "tensor" and any(kind != "tensor" for kind in kinds):
        returned = ", ".join(kinds)
        detail = f"returned {returned}; this exercise asks for a minitorch Tensor (wrap an array with minitorch.tensor)"
        return Mismatch("type", detail, detail)
    return None


def _package_dirs() -> list[str]:
    package_dirs = [str(Path(__file__).resolve().parent)]
    try:
        import minitorch

        package_dirs.append(str(Path(minitorch.__file__).resolve().parent))
    except ImportError:
        pass
    return package_dirs


def _raising_learner_function(error: BaseException) -> str:
    """The qualified name of the function whose own code raised ``error`` (``SoftmaxCrossEntropy.forward``)
    when that function is the learner's (outside minitorch and grading), else ''.

    The frame that raised, not the function the check called: a given wrapper (the notebook's
    ``causal_softmax_on_two_devices``) calls the learner's ``causal_softmax``, whose stub is what raises.
    A NotImplementedError raised inside minitorch or grading (a piece withheld while grading) names nobody.
    """
    trace = error.__traceback__
    if trace is None:
        return ""
    while trace.tb_next is not None:
        trace = trace.tb_next
    code = trace.tb_frame.f_code
    if any(code.co_filename.startswith(directory) for directory in _package_dirs()):
        return ""
    return getattr(code, "co_qualname", code.co_name).split(".<locals>.")[-1]  # as the learner's cell spells it


def _learner_frame(error: BaseException) -> str:
    """' (in relu, line 3: return x @ w)': the innermost frame outside minitorch and grading."""
    package_dirs = _package_dirs()
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
_RED, _GREEN, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[0m"


def _in_kernel() -> bool:
    """True in a Jupyter kernel, where ANSI colours are shown; plain text everywhere else (logs, tests)."""
    stream = type(sys.stdout)
    return stream.__module__.startswith("ipykernel")


def _say(text: str, colour: str = "") -> None:
    if colour and _in_kernel():
        text = "\n".join(f"{colour}{line}{_RESET}" for line in text.splitlines())
    print(text)


def _brief(value) -> str:
    """An argument as its shape and dtype (arrays) or its value (numbers): never a whole array."""
    if isinstance(value, np.ndarray):
        return f"array of shape {tuple(value.shape)}, dtype {value.dtype}"
    return repr(value)


def _hint_steps(exercise: registry.Exercise) -> tuple[str, ...]:
    return exercise.hints or ((exercise.hint,) if exercise.hint else ())


def check(name: str, function) -> str:
    """Run the public cases of exercise ``name`` on ``function`` and report; never raises.

    Returns the status ("passed", "failed" or "not implemented yet"); a cell that ends with the call
    shows nothing more than the report (the status is a ``str`` subclass that displays as nothing).
    """
    if _collector is not None:
        _collector.checked.append(name)
        return _Status("")
    exercise = registry.get(name)
    if not callable(function):
        _results[name] = FAILED
        _say(f"{name}: FAILED: expected the function {exercise.function}, got {type(function).__name__}", _RED)
        return _raise_or(_Status(FAILED), f"{name}: {exercise.function} is not a function")
    results = run_cases(exercise, function, exercise.public)
    loop = _loop_in(exercise, function)
    if loop and any(result.status == PASSED for result in results):
        results = [CaseResult(FAILED, loop, loop) if result.status == PASSED else result for result in results]
    status = _overall(results)
    _results[name] = status
    total = len(results)
    if status == NOT_IMPLEMENTED:
        blank = next((result.blank for result in results if result.blank), exercise.function)
        print(f"{name}: not implemented yet. Write {blank} in the cell above, run that cell, then run this one again.")
        return _raise_or(_Status(status), f"{name}: not implemented yet")
    note = _judging_note(exercise)
    if status == PASSED:
        _say(f"{name}: all {total} public cases pass" + (f"\n    ({note})" if note else ""), _GREEN)
        return _Status(status)
    if status == UNCHECKED:
        reason = next(result.detail for result in results if result.status == UNCHECKED)
        print(f"{name}: ran on the {total} public case{'s' if total > 1 else ''}, not judged here: {reason}")
        return _Status(status)
    failing = [(number, result) for number, result in enumerate(results, start=1) if result.status != PASSED]
    number, result = failing[0]
    case = exercise.public[number - 1]
    label = f" ({exercise.labels[number - 1]})" if number - 1 < len(exercise.labels) else ""
    lines = [f"{name}: public case {number} of {total}{label} FAILED: {result.detail}"]
    for argument_name, value in zip(_argument_names(function, len(case)), case):
        lines.append(f"    input {argument_name} = {_brief(value)}")
    for caption, arrays in (("expected", result.expected), ("got     ", result.got)):
        if arrays:
            shapes = ", ".join(f"shape {tuple(array.shape)}, dtype {array.dtype}" for array in arrays)
            lines.append(f"    {caption}: {shapes}")
    if len(failing) > 1:
        more = len(failing) - 1
        lines.append(f"    ({more} more public case{'s fail' if more > 1 else ' fails'} too; fix this one first)")
    if note:
        lines.append(f"    ({note})")
    lines.extend(_hint_pointer(name, exercise))
    _say("\n".join(lines), _RED)
    return _raise_or(_Status(status), f"{name}: {len(failing)} of {total} public cases failed")


def _judging_note(exercise: registry.Exercise) -> str:
    """What the check says about the data its judge measured on: the learner's kit judges a trained model on public
    data (a validation split) where the grader measures on held-out text (registry ``judging_data``)."""
    if exercise.judge is None or exercise.judging_data is None or exercise.unchecked:
        return ""
    return exercise.judging_data().get("note", "")


def _hint_pointer(name: str, exercise: registry.Exercise) -> list[str]:
    """Where help is, never the help itself: a step printed unasked would do the learner's thinking."""
    steps = _hint_steps(exercise)
    if not steps:
        return []
    shown = _hints_shown.get(name, 0)
    if shown >= len(steps):
        return [f'    stuck? hint("{name}", 1) to hint("{name}", {len(steps)}) show the {len(steps)} hint steps again']
    return [
        f'    stuck? hint("{name}") shows hint step {shown + 1} of {len(steps)} (the idea, then the formula, then a '
        "sketch); call it again for the next step"
    ]


def _raise_or(status: str, message: str) -> str:
    if raise_on_failure:
        raise AssertionError(message) from None
    return status


class _Status(str):
    """A check's status: compares like the string, and shows nothing when it ends a notebook cell."""

    def _ipython_display_(self):
        pass


_hints_shown: dict[str, int] = {}


def hint(name: str, step: int | None = None) -> None:
    """Show the next hint step of exercise ``name`` (or step ``step``, from 1): the idea, the formula, code."""
    steps = _hint_steps(registry.get(name))
    if not steps:
        print(f"{name} has no hints.")
        return
    if step is None:
        step = min(_hints_shown.get(name, 0) + 1, len(steps))
    step = max(1, min(int(step), len(steps)))
    _hints_shown[name] = step
    after = f' Run hint("{name}") again for step {step + 1}.' if step < len(steps) else ""
    print(f"{name}, hint {step} of {len(steps)}: {steps[step - 1]}{after}")


def check_hidden(name: str, function, cases) -> None:
    """The grading check (instructor's source notebook only): the public and the hidden cases.

    Reports which failed without showing the hidden cases, and raises ``AssertionError`` when any case
    fails, so the test cell fails under ``nbgrader autograde`` whatever the visible check did.
    """
    cases = [registry.validate_case(case, f"hidden case {index + 1} of {name}") for index, case in enumerate(cases)]
    if _collector is not None:
        _collector.hidden.append((name, cases))
        return
    exercise = registry.get(name)
    if not callable(function):
        _results[name] = FAILED
        raise AssertionError(f"{name}: {exercise.function} is not a function") from None
    results = run_cases(exercise, function, [*exercise.public, *cases])
    public, hidden = results[: len(exercise.public)], results[len(exercise.public) :]
    loop = _loop_in(exercise, function)
    if loop:
        public = [CaseResult(FAILED, loop, loop) if result.status == PASSED else result for result in public]
    failed = 0
    for number, result in enumerate(public, start=1):
        if result.status != PASSED:
            failed += 1
            print(f"{name}: public case {number} of {len(public)} FAILED: {result.safe_detail}")
    for number, result in enumerate(hidden, start=1):
        if result.status != PASSED:
            failed += 1
            print(f"{name}: hidden case {number} of {len(cases)} FAILED: {result.safe_detail}")
    if failed:
        _results[name] = _overall(public + hidden)
        raise AssertionError(f"{name}: {failed} of {len(public) + len(cases)} cases failed") from None
    print(f"{name}: all {len(cases)} hidden cases pass")


def _overall(results: list[CaseResult]) -> str:
    if results and all(result.status == NOT_IMPLEMENTED for result in results):
        return NOT_IMPLEMENTED
    if all(result.status == PASSED for result in results):
        return PASSED
    if all(result.status in (PASSED, UNCHECKED) for result in results):
        return UNCHECKED
    return FAILED


class _Table(dict):
    """``{exercise: status}``; printed once by summary, so a cell ending with the call shows nothing more."""

    def _ipython_display_(self):
        pass


def summary(chapter: str | None = None) -> dict[str, str]:
    """Print which exercises pass (of ``chapter``, or of every chapter checked so far); return the table."""
    chapters = [chapter] if chapter else sorted({name.split(".", 1)[0] for name in _results})
    table: dict[str, str] = _Table()
    for name in chapters:
        for exercise in registry.chapter_exercises(name):
            table[exercise.name] = _results.get(exercise.name, "not checked yet")
    if not table:
        print("No exercises checked yet: run the check cells first.")
        return table
    width = max(len(name) for name in table)
    lines = [f"  {name.ljust(width)}  {status}" for name, status in table.items()]
    passing = sum(status == PASSED for status in table.values())
    lines.append(f"{passing} of {len(table)} exercises pass")
    # one write: a kernel under load may flush the stream between two prints, and the cell would then
    # show two outputs instead of one table
    print("\n".join(lines))
    return table
