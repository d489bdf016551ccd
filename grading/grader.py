"""Batch grading: every submission's code runs in a sandbox; its answers are judged outside it.

Stage one, inside the sandbox (:mod:`grading._runner`): the submission's code cells run in order in
one fresh Python process (plain ``exec``, see :func:`grading.notebook.python_source`), then each graded
function is called on the cases of its part (public and hidden *inputs*) and the raw answers are
written as ``.npz``. Stage two, here: the answers are read back with ``allow_pickle=False`` and
compared with the reference's answers, which were computed in this process and never entered the
sandbox. Nothing the submission does (monkeypatching ``numpy.testing`` or the check helpers, writing
files, exiting) can reach this comparison.

Scoring follows nbgrader: a part (one autograder test cell) earns its points when every case passes,
public and hidden, and 0 otherwise. The same submission always gets the same score: the inputs come
from fixed seeds, the sandbox runs one BLAS thread, and nothing depends on the order of jobs.

When the process dies or stalls (a crash, ``os._exit``, a loop that swallows the time-out), the
supervisor knows from the progress file which step it was in: a cell is then skipped and a graded
call fails its part, and the runner is started again for what is left, so one broken cell or function
costs only its own part. The total time per submission is bounded.
"""

from __future__ import annotations

import builtins
import csv
import io
import json
import os
import queue
import re
import shutil
import signal
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grading import checks, registry, sandbox
from grading.compare import ALLOWED_KINDS, compare
from grading.notebook import Assignment, GradedPart, NotebookError, parse_notebook, plan_submission, read_bytes
from grading.submissions import Submission

MAX_ANSWER_BYTES = 64 * 1024**2


# -- what the grader knows before any submission runs -------------------------------------------
@dataclass
class PreparedPart:
    number: int
    part: GradedPart
    exercise: registry.Exercise
    cases: list[tuple]  # public cases first, then hidden
    public_count: int
    expected: list[list[np.ndarray]]  # the reference's answer to each case: never enters the sandbox
    argument_specs: list[list]  # per case, per argument: an inputs.npz key, None, or {"scalar": value}


def prepare(assignment: Assignment) -> tuple[list[PreparedPart], dict[str, np.ndarray]]:
    """The parts with their reference answers, and the inputs of every case (for inputs.npz)."""
    parts, inputs = [], {}
    for number, part in enumerate(assignment.parts):
        exercise = registry.get(part.exercise)
        cases = list(exercise.public) + list(part.hidden_cases)
        expected = [checks.expected_outputs(exercise, case) for case in cases]
        specs = []
        for case_number, case in enumerate(cases):
            spec = []
            for argument_number, value in enumerate(case):
                if isinstance(value, np.ndarray):
                    key = f"p{number}_c{case_number}_a{argument_number}"
                    inputs[key] = value
                    spec.append(key)
                else:
                    spec.append(None if value is None else {"scalar": value})
            specs.append(spec)
        parts.append(PreparedPart(number, part, exercise, cases, len(exercise.public), expected, specs))
    return parts, inputs


# -- results --------------------------------------------------------------------------------------
@dataclass
class PartResult:
    points: float
    max_points: float
    summary: str  # one line for the feedback
    hint: str = ""


@dataclass
class Result:
    student: str
    origin: str
    parts: dict[int, PartResult] = field(default_factory=dict)
    incidents: list[str] = field(default_factory=list)  # short codes for grades.csv's status
    notes: list[str] = field(default_factory=list)  # sentences for the feedback
    log: list[str] = field(default_factory=list)  # for the instructor only
    rejected: bool = False

    @property
    def total(self) -> float:
        return sum(part.points for part in self.parts.values())

    @property
    def status(self) -> str:
        return ";".join(dict.fromkeys(self.incidents)) or "ok"


@dataclass
class Settings:
    backend: sandbox.Backend
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    jobs: int = 1
    work_root: Path | None = None
    keep_work: bool = False


# -- grading one submission ------------------------------------------------------------------------
_STEP_REASONS = {
    "timeout": "ran past the time limit ({seconds:g} s) and was stopped",
    "memory": "used more memory than the limit ({memory}) and was stopped",
    "disk": "wrote more than the file limit and was stopped",
    "deadline": "was still running when the submission's time ({total:g} s) ran out",
}


def grade_submission(
    submission: Submission,
    assignment: Assignment,
    parts: list[PreparedPart],
    inputs_path: Path,
    settings: Settings,
    slot: int,
    workspace: Path,
) -> Result:
    result = Result(submission.student, submission.origin)
    if submission.problem:
        result.rejected = True
        result.incidents.append("rejected")
        result.notes.append(f"Not graded: {submission.problem}.")
        _zero(result, parts)
        return result
    try:
        notebook = parse_notebook(submission.data)
    except NotebookError as error:
        result.incidents.append("invalid-notebook")
        result.notes.append(f"The notebook could not be read: {error}.")
        _zero(result, parts)
        return result
    result.notes += [f"Warning: {warning}." for warning in notebook.warnings]
    plan = plan_submission(notebook, assignment)
    for part in plan.deleted:
        result.incidents.append("test-cell-deleted")
        result.notes.append(
            f"Warning: the test cell of {part.exercise} ({part.grade_id}) was deleted, so that part scores 0."
        )
    for index in plan.skipped_cells:
        result.notes.append(f"Cell {index + 1} is a cell magic (%%...), not Python; it was not run.")
    present = [prepared for prepared in parts if prepared.part in plan.present]
    answers = _run_stages(plan.cells, present, inputs_path, settings, slot, workspace, result)
    for prepared in parts:
        if prepared.part not in plan.present:
            result.parts[prepared.number] = PartResult(0.0, prepared.part.points, "test cell deleted: 0")
        else:
            result.parts[prepared.number] = judge(prepared, answers.get(prepared.number))
    return result


def _zero(result: Result, parts: list[PreparedPart]) -> None:
    for prepared in parts:
        result.parts[prepared.number] = PartResult(0.0, prepared.part.points, "not graded")


@dataclass
class Answers:
    """What the sandbox returned for one part: per-case statuses and arrays, or why there is none."""

    statuses: list[dict] = field(default_factory=list)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    failure: str | None = None  # the whole part failed: a crash, a time-out, unreadable answers


def _run_stages(cells, present, inputs_path, settings, slot, workspace, result) -> dict[int, Answers]:
    limits, backend = settings.limits, settings.backend
    deadline = time.monotonic() + limits.submission_seconds
    skip_cells: set[int] = set()
    pending = list(present)
    answers: dict[int, Answers] = {}
    uid = sandbox.job_uid(slot) if backend.switch_user else None
    owner = uid if uid is not None else backend.output_owner()
    cell_messages: dict[int, str] = {}
    launch = 0
    while True:
        launch += 1
        task_dir, out_dir = workspace / f"task{launch}", workspace / f"out{launch}"
        task_dir.mkdir(mode=0o755)
        out_dir.mkdir(mode=0o700)
        if owner is not None:
            os.chown(out_dir, owner, owner)
        shutil.copyfile(inputs_path, task_dir / "inputs.npz")
        os.chmod(task_dir / "inputs.npz", 0o644)
        plan = {
            "cells": [[index, source] for index, source in cells if index not in skip_cells],
            "parts": [
                {
                    "number": prepared.number,
                    "function": prepared.exercise.function,
                    "input_type": prepared.exercise.input_type,
                    "cases": prepared.argument_specs,
                }
                for prepared in pending
            ],
            "limits": limits.for_runner(),
            "uid": uid,
            "gid": uid,
            "lib": backend.lib_dir,
            "own_pid_namespace": backend.own_pid_namespace,
        }
        (task_dir / "plan.json").write_text(json.dumps(plan))
        os.chmod(task_dir / "plan.json", 0o644)
        outcome = sandbox.run(backend, task_dir, out_dir, limits, deadline)
        _log_launch(result, launch, outcome)
        events = outcome.events
        ended_parts = {event.get("part") for event in events if event.get("end") == "part"}
        for prepared in list(pending):
            if prepared.number in ended_parts:
                answers[prepared.number] = _read_answers(out_dir, prepared)
                pending.remove(prepared)
        for event in events:
            if event.get("end") == "cell" and isinstance(event.get("cell"), int):
                message = _cell_message(event, limits)
                if message:
                    cell_messages[event["cell"]] = message
                if event.get("status") == "timeout":
                    skip_cells.add(event["cell"])  # do not wait for it again on a restart
        if any(event.get("status") == "timeout" for event in events if "end" in event):
            result.incidents.append("timeout")
        finished = any(event.get("end") == "run" for event in events) and outcome.killed is None
        if finished:
            break
        step = sandbox.current_step(events)
        reason = _death_reason(outcome, limits)
        result.incidents.append(_incident(outcome))
        if step is None or step[0] == "setup":
            if not any(event.get("end") == "setup" for event in events):
                result.incidents.append("sandbox-error")
                result.log.append("the runner did not finish its setup: see its output above")
                reason = "could not be graded: the grading sandbox failed to start (the instructor was told)"
            for prepared in pending:
                answers[prepared.number] = Answers(failure=f"not run: the notebook's process {reason}")
            break
        if step[0] == "cell":
            cell_index = step[1]
            skip_cells.add(cell_index)
            cell_messages[cell_index] = f"Cell {cell_index + 1} {reason}; it was skipped and the rest still ran."
        elif step[0] == "case":
            for prepared in list(pending):
                if prepared.number == step[1]:
                    case_label = _case_label(prepared, step[2])
                    answers[prepared.number] = Answers(failure=f"{case_label}: {prepared.exercise.function} {reason}")
                    pending.remove(prepared)
        if outcome.killed == "deadline" or time.monotonic() > deadline - 0.5 or launch > len(cells) + len(present) + 1:
            for prepared in pending:
                answers[prepared.number] = Answers(
                    failure=f"not run: the submission's time ({limits.submission_seconds:g} s) ran out"
                )
            break
    result.notes += [cell_messages[index] for index in sorted(cell_messages)]
    return answers


def _log_launch(result: Result, launch: int, outcome: sandbox.RunOutcome) -> None:
    result.log.append(
        f"launch {launch}: exit {outcome.returncode}, killed: {outcome.killed}, {outcome.seconds:.2f} s, "
        f"output {outcome.output_total} bytes, peak memory {outcome.peak_memory_bytes / 2**20:.0f} MiB"
    )
    text = outcome.output.decode("utf-8", "backslashreplace")
    if text:
        result.log.append(f"---- output (first {len(outcome.output)} bytes) ----\n{text.rstrip()}")
    if outcome.output_total > len(outcome.output):
        result.log.append(f"---- {outcome.output_total - len(outcome.output)} more bytes of output dropped ----")


def _incident(outcome: sandbox.RunOutcome) -> str:
    if outcome.killed:
        return outcome.killed
    return "crash"


def _death_reason(outcome: sandbox.RunOutcome, limits: sandbox.Limits) -> str:
    if outcome.killed:
        return _STEP_REASONS[outcome.killed].format(
            seconds=limits.step_seconds, memory=f"{limits.memory_bytes / 2**30:g} GiB", total=limits.submission_seconds
        )
    code = outcome.returncode
    if code is not None and (code < 0 or code > 128):
        number = -code if code < 0 else code - 128
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"crashed the process ({name})"
    return f"ended the process (exit status {code})"


def _cell_message(event: dict, limits: sandbox.Limits) -> str | None:
    number = event["cell"] + 1
    status, line = event.get("status"), event.get("line")
    where = f" (line {line})" if isinstance(line, int) and 0 < line < 100_000 else ""
    name = _safe_exception_name(event.get("error"))
    if status == "error":
        return f"Cell {number} raised {name}{where}."
    if status == "exit":
        return f"Cell {number} raised {name}{where}; the rest of the notebook still ran."
    if status == "timeout":
        return f"Cell {number} ran past the time limit ({limits.step_seconds:g} s) and was stopped."
    return None


_BUILTIN_EXCEPTIONS = {
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
}


def _safe_exception_name(name) -> str:
    """A built-in exception's name, or a neutral phrase: the name comes from the sandbox, and a
    custom exception class could be named after hidden inputs."""
    if isinstance(name, str) and name in _BUILTIN_EXCEPTIONS | {"StepTimeout"}:
        return name
    return "an exception"


def _case_label(prepared: PreparedPart, case: int) -> str:
    if not isinstance(case, int) or not 0 <= case < len(prepared.cases):
        return "a case"
    if case < prepared.public_count:
        return f"public case {case + 1}"
    return f"hidden case {case - prepared.public_count + 1}"


# -- reading answers back, defensively ----------------------------------------------------------------
def _read_answers(out_dir: Path, prepared: PreparedPart) -> Answers:
    try:
        statuses = json.loads(read_bytes(out_dir / f"e{prepared.number}.json", limit=1 << 20))
        if not isinstance(statuses, list) or len(statuses) != len(prepared.cases):
            raise ValueError("wrong number of statuses")
        if not all(isinstance(status, dict) for status in statuses):
            raise ValueError("malformed status")
        arrays = load_answers(out_dir / f"e{prepared.number}.npz")
    except (NotebookError, ValueError, RecursionError, OSError, zipfile.BadZipFile) as error:
        return Answers(failure=f"its answers could not be read back ({_short(error)})")
    return Answers(statuses, arrays)


def _short(error: BaseException) -> str:
    return re.sub(r"\s+", " ", str(error))[:120] or type(error).__name__


_ANSWER_KEY = re.compile(r"c(\d{1,6})_(\d{1,3})\.npy")


def load_answers(path: Path, limit: int = MAX_ANSWER_BYTES) -> dict[str, np.ndarray]:
    """The arrays of an answers file, refusing pickles, links, odd names and headers that lie.

    The file was written inside the sandbox, so it is untrusted: it is read with ``O_NOFOLLOW``, each
    member's ``.npy`` header is checked (numeric dtype, size that matches the bytes actually there)
    before NumPy reads it, and NumPy reads it with ``allow_pickle=False``.
    """
    data = read_bytes(path, limit=limit)
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        if len(infos) > 10_000 or sum(info.file_size for info in infos) > limit:
            raise ValueError("too many or too large members")
        for info in infos:
            match = _ANSWER_KEY.fullmatch(info.filename)
            if not match:
                raise ValueError(f"unexpected member {info.filename[:40]!r}")
            member = archive.read(info)
            handle = io.BytesIO(member)
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
            else:
                raise ValueError(f"unsupported .npy version {version}")
            if dtype.hasobject or dtype.kind not in ALLOWED_KINDS or dtype.fields is not None:
                raise ValueError(f"answers must be numeric arrays, not {dtype}")
            count = int(np.prod(shape, dtype=np.int64)) if shape else 1
            if count < 0 or count * dtype.itemsize != len(member) - handle.tell():
                raise ValueError("an array header does not match its data")
            arrays[info.filename[: -len(".npy")]] = np.lib.format.read_array(io.BytesIO(member), allow_pickle=False)
    return arrays


# -- stage two: judging the answers -------------------------------------------------------------------
def judge(prepared: PreparedPart, answers: Answers | None) -> PartResult:
    exercise, points = prepared.exercise, prepared.part.points
    hint = exercise.hint
    if answers is None:
        return PartResult(0.0, points, "not run", hint)
    if answers.failure:
        return PartResult(0.0, points, answers.failure, hint)
    statuses = [status.get("status") for status in answers.statuses]
    if statuses and all(status in ("not_implemented", "none") for status in statuses):
        return PartResult(0.0, points, "not implemented yet", hint)
    if statuses and all(status == "missing" for status in statuses):
        return PartResult(0.0, points, f"no function named {exercise.function} was defined", hint)
    failures = []
    for case, (status, expected) in enumerate(zip(answers.statuses, prepared.expected)):
        problem = _case_problem(prepared, case, status, expected, answers.arrays)
        if problem:
            failures.append(f"{_case_label(prepared, case)}: {problem}")
    total = len(prepared.cases)
    if not failures:
        return PartResult(points, points, f"passed all {total} cases")
    listed = "; ".join(failures[:3]) + ("; ..." if len(failures) > 3 else "")
    return PartResult(0.0, points, f"failed {len(failures)} of {total} cases: {listed}", hint)


def _case_problem(prepared, case, status, expected, arrays) -> str | None:
    code = status.get("status")
    if code == "ok":
        kinds = status.get("kinds")
        if not isinstance(kinds, list) or not 0 < len(kinds) <= 64 or not all(isinstance(k, str) for k in kinds):
            return "no answer came back"
        got = [arrays.get(f"c{case}_{position}") for position in range(len(kinds))]
        if any(array is None for array in got):
            return "no answer came back"
        mismatch = checks.type_mismatch(prepared.exercise, kinds) or compare(
            expected,
            got,
            rtol=prepared.exercise.rtol,
            atol=prepared.exercise.atol,
            check_dtype=prepared.exercise.check_dtype,
        )
        if mismatch is None:
            return None
        # public cases may quote values (the learner has them); hidden ones never do
        return mismatch.detail if case < prepared.public_count else mismatch.safe_detail
    if code == "error":
        return f"raised {_safe_exception_name(status.get('error'))}"
    return {
        "not_implemented": "not implemented yet (raises NotImplementedError)",
        "none": "returned None",
        "unsupported": "returned something that is not a tensor or an array",
        "timeout": "ran past the time limit",
        "skipped": "not run after an earlier case ran past the time limit",
        "missing": f"no function named {prepared.exercise.function}",
        "exit": "called sys.exit() or raised KeyboardInterrupt",
    }.get(code, "no answer came back")


# -- the whole batch ------------------------------------------------------------------------------
def grade_all(
    submissions: list[Submission],
    assignment: Assignment,
    settings: Settings,
    progress=None,
) -> list[Result]:
    parts, inputs = prepare(assignment)
    root = Path(tempfile.mkdtemp(prefix="minitorch-grade-", dir=settings.work_root))
    try:
        inputs_path = root / "inputs.npz"
        np.savez(inputs_path, **inputs)
        os.chmod(inputs_path, 0o644)
        slots: queue.Queue[int] = queue.Queue()
        for slot in range(max(1, settings.jobs)):
            slots.put(slot)

        def one(numbered: tuple[int, Submission]) -> Result:
            number, submission = numbered
            slot = slots.get()
            workspace = root / f"s{number}"
            workspace.mkdir(mode=0o700)
            try:
                result = grade_submission(submission, assignment, parts, inputs_path, settings, slot, workspace)
            finally:
                slots.put(slot)
                if not settings.keep_work:
                    shutil.rmtree(workspace, ignore_errors=True)
            if progress:
                progress(result)
            return result

        with ThreadPoolExecutor(max_workers=max(1, settings.jobs)) as pool:
            results = list(pool.map(one, enumerate(submissions)))
    finally:
        if not settings.keep_work:
            shutil.rmtree(root, ignore_errors=True)
    return sorted(results, key=lambda result: result.student)


# -- reports ------------------------------------------------------------------------------------------
def _points(value: float) -> str:
    return f"{value:g}"


def write_reports(results: list[Result], assignment: Assignment, out: Path, *, gradescope: bool = False) -> None:
    """grades.csv, feedback/<student>.md, logs/<student>.log and, optionally, Gradescope's results.json."""
    parts = column_names(assignment)
    out.mkdir(parents=True, exist_ok=True)
    (out / "feedback").mkdir(exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    with open(out / "grades.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", *parts, "total", "status"])
        for result in results:
            scores = [_points(result.parts[number].points) for number in range(len(parts))]
            writer.writerow([result.student, *scores, _points(result.total), result.status])
    for result in results:
        if result.rejected:
            continue
        (out / "feedback" / f"{result.student}.md").write_text(feedback_text(result, assignment, parts))
        (out / "logs" / f"{result.student}.log").write_text(
            f"{result.student} ({result.origin})\nstatus: {result.status}\n" + "\n".join(result.log) + "\n"
        )
    rejected = [result for result in results if result.rejected]
    if rejected:
        (out / "rejected.txt").write_text(
            "".join(f"{result.origin!r}: {' '.join(result.notes)}\n" for result in rejected)
        )
    if gradescope:
        graded = [result for result in results if not result.rejected]
        if len(graded) == 1:
            (out / "results.json").write_text(json.dumps(gradescope_results(graded[0], parts), indent=2))
        else:
            for result in graded:
                folder = out / "gradescope" / result.student
                folder.mkdir(parents=True, exist_ok=True)
                (folder / "results.json").write_text(json.dumps(gradescope_results(result, parts), indent=2))


def column_names(assignment: Assignment) -> list[str]:
    """One column per graded part: the exercise's name, or the grade_id if an exercise is graded twice."""
    names = [part.exercise for part in assignment.parts]
    if len(set(names)) != len(names):
        names = [part.grade_id for part in assignment.parts]
    return names


def feedback_text(result: Result, assignment: Assignment, columns: list[str]) -> str:
    max_total = sum(part.points for part in assignment.parts)
    lines = [
        f"# {assignment.name}: feedback for {result.student}",
        "",
        f"Score: {_points(result.total)} / {_points(max_total)}",
        "",
        "## Exercises",
        "",
    ]
    for number, name in enumerate(columns):
        part = result.parts[number]
        lines.append(f"- {name}: {_points(part.points)} / {_points(part.max_points)}: {part.summary}")
        if part.points < part.max_points and part.hint:
            lines.append(f"  - Hint: {part.hint}")
    if result.notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in result.notes]
    return "\n".join(lines) + "\n"


def gradescope_results(result: Result, columns: list[str]) -> dict:
    tests = []
    for number, name in enumerate(columns):
        part = result.parts[number]
        output = part.summary + (f"\nHint: {part.hint}" if part.points < part.max_points and part.hint else "")
        tests.append({"name": name, "score": part.points, "max_score": part.max_points, "output": output})
    return {
        "score": result.total,
        "output": "\n".join(result.notes),
        "tests": tests,
        "visibility": "visible",
        "stdout_visibility": "hidden",
    }
