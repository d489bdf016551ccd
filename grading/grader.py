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

Everything read back from the sandbox is untrusted (:mod:`grading.untrusted`, :mod:`grading.progress`):
a progress file, a status or an answers file that is not what the runner writes scores the whole
submission 0 as "malformed output", and any other failure on one submission scores it 0 as a grader
error; neither ever stops the batch. Feedback on a hidden case names the case and the kind of failure,
nothing that the submission's code could choose to spell an input with.
"""

from __future__ import annotations

import builtins
import csv
import dataclasses
import io
import json
import math
import os
import queue
import re
import signal
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grading import checks, class_summary, registry, sandbox, withhold
from grading.compare import ALLOWED_KINDS, compare
from grading.notebook import Assignment, GradedPart, NotebookError, parse_notebook, plan_submission
from grading.progress import CASE_STATUSES
from grading.submissions import Submission
from grading.untrusted import MalformedOutput, load_json, printable, read_regular, remove_tree, short_text

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
MALFORMED = "malformed output: what came back from the sandbox is not what the grader's runner writes"


def grade_submission(
    submission: Submission,
    assignment: Assignment,
    parts: list[PreparedPart],
    inputs_path: Path,
    settings: Settings,
    slot: int,
    workspace: Path,
) -> Result:
    """The grade of one submission. Nothing it contains or does raises out of here: a failure reading
    what came back from its sandbox scores it 0 ("malformed-output"), a failure of the grader itself
    scores it 0 ("grader-error"); other submissions are never touched."""
    result = Result(submission.student, submission.origin)
    try:
        _grade(submission, assignment, parts, inputs_path, settings, slot, workspace, result)
    except MalformedOutput as error:
        _zero(result, parts, "malformed output")
        result.incidents.append("malformed-output")
        result.notes.append("Not graded: the submission's code tampered with the grader's files (malformed output).")
        result.log.append(f"malformed output: {error}")
    except Exception as error:  # noqa: BLE001 - one submission never stops the batch
        _zero(result, parts, "not graded (grader error)")
        result.incidents.append("grader-error")
        result.notes.append("Not graded: the grader failed on this submission; the instructor was told.")
        result.log.append(f"grader error: {type(error).__name__}: {_short(error)}")
    return result


def _grade(submission, assignment, parts, inputs_path, settings, slot, workspace, result) -> None:
    if submission.problem:
        result.rejected = True
        result.incidents.append("rejected")
        result.notes.append(f"Not graded: {submission.problem}.")
        _zero(result, parts)
        return
    try:
        notebook = parse_notebook(submission.data)
    except NotebookError as error:
        result.incidents.append("invalid-notebook")
        result.notes.append(f"The notebook could not be read: {error}.")
        _zero(result, parts)
        return
    result.notes += [f"Warning: {warning}." for warning in notebook.warnings]
    plan = plan_submission(notebook, assignment)
    for part in plan.deleted:
        result.incidents.append("test-cell-deleted")
        result.notes.append(
            f"Warning: the test cell of {part.exercise} ({part.grade_id}) was deleted, so that part scores 0."
        )
    if plan.earlier:
        result.incidents.append("earlier-release")
        names = ", ".join(part.exercise for part, _ in plan.earlier)
        result.notes.append(
            f"This notebook is an earlier release of {assignment.notebook}: the exercises it has were graded as "
            f"usual; {names} {'is' if len(plan.earlier) == 1 else 'are'} not in it (added or changed since), so "
            f"{'that part scores' if len(plan.earlier) == 1 else 'those parts score'} 0. Download the current "
            "release, copy your answers into it, and ask your instructor whether to submit again."
        )
    for index in plan.skipped_cells:
        result.notes.append(f"Cell {index + 1} is a cell magic (%%...), not Python; it was not run.")
    present = [prepared for prepared in parts if prepared.part in plan.present]
    stages = _Stages(plan.cells, present, _Launcher(inputs_path, settings, slot, workspace), result)
    answers = stages.run()
    earlier = {part.grade_id: why for part, why in plan.earlier}
    for prepared in parts:
        if prepared.part.grade_id in earlier:
            result.parts[prepared.number] = PartResult(
                0.0, prepared.part.points,
                f"not in the release you submitted (an earlier release: {earlier[prepared.part.grade_id]}): 0",
            )  # fmt: skip
        elif prepared.part not in plan.present:
            result.parts[prepared.number] = PartResult(0.0, prepared.part.points, "test cell deleted: 0")
        else:
            part = judge(prepared, answers.get(prepared.number))
            loop = _python_loop(prepared, plan.cells)
            if loop and part.points:
                part = PartResult(0.0, part.max_points, f"failed: {loop}", prepared.exercise.hint)
            why = plan.replaced.get(prepared.part.grade_id)
            if why and part.points < part.max_points:
                part.summary = f"not in the release you submitted (an earlier release: {why}): {part.summary}"
                result.incidents.append("earlier-release")
                result.notes.append(
                    f"The test cell of {prepared.part.exercise} is an earlier release's ({why}): this chapter's "
                    "current release asks for another exercise there. Download the current release, copy your "
                    "answers into it, and ask your instructor whether to submit again."
                )
            result.parts[prepared.number] = part


def _python_loop(prepared: PreparedPart, cells: list[tuple[int, str]]) -> str | None:
    """The exercise's no-loop rule, read from the submission's code (the last cell that defines the function, as
    running the cells in order keeps the last definition); the same reading as the instant check's."""
    if not prepared.exercise.no_python_loop:
        return None
    name = prepared.exercise.function
    defining = [source for _, source in cells if re.search(rf"\bdef\s+{re.escape(name)}\b", source)]
    return checks.python_loop(defining[-1], name) if defining else None


def _zero(result: Result, parts: list[PreparedPart], summary: str = "not graded") -> None:
    for prepared in parts:
        result.parts[prepared.number] = PartResult(0.0, prepared.part.points, summary)


@dataclass
class Answers:
    """What the sandbox returned for one part: per-case statuses and arrays, or why there is none."""

    statuses: list[dict] = field(default_factory=list)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    failure: str | None = None  # the whole part failed: a crash, a time-out, unreadable answers


class _Launcher:
    """The plan writer: one task folder (plan) and one output folder per launch of the runner."""

    def __init__(self, inputs_path: Path, settings: Settings, slot: int, workspace: Path):
        self.inputs_path, self.settings, self.workspace = inputs_path, settings, workspace
        backend = settings.backend
        self.uid = sandbox.job_uid(slot) if backend.switch_user else None
        self.owner = self.uid if self.uid is not None else backend.output_owner()
        self.count = 0

    def plan(self, cells: list[tuple[int, str]], pending: list[PreparedPart]) -> dict:
        limits, backend = self.settings.limits, self.settings.backend
        runner_limits = limits.for_runner()
        runner_limits["cpu_seconds"] += int(extra_seconds(pending, limits))  # the longer calls use CPU time too
        return {
            "cells": [[index, source] for index, source in cells],
            "parts": [
                {
                    "number": prepared.number,
                    "function": prepared.exercise.function,
                    "input_type": prepared.exercise.input_type,
                    "cases": prepared.argument_specs,
                    "withheld": list(prepared.exercise.withheld),  # only while this part's calls run
                    "exercise": prepared.exercise.name,  # names the piece in a withheld call's message
                    "seconds": call_seconds(prepared, limits),  # each call's time limit (the runner's alarm)
                }
                for prepared in pending
            ],
            "limits": runner_limits,
            "uid": self.uid,
            "gid": self.uid,
            "lib": backend.lib_dir,
            "own_pid_namespace": backend.own_pid_namespace,
        }

    def launch(self, plan: dict, deadline: float) -> tuple[sandbox.RunOutcome, Path]:
        """Run the plan once; the output folder (a tmpfs when root) stays mounted until cleanup."""
        self.count += 1
        task_dir, out_dir = self.workspace / f"task{self.count}", self.workspace / f"out{self.count}"
        task_dir.mkdir(mode=0o755)
        out_dir.mkdir(mode=0o700)
        limits = self.settings.limits
        if not sandbox.mount_output_folder(out_dir, limits, self.owner) and self.owner is not None:
            os.chown(out_dir, self.owner, self.owner)
        (task_dir / "plan.json").write_text(json.dumps(plan))
        os.chmod(task_dir / "plan.json", 0o644)
        backend = self.settings.backend
        outcome = sandbox.run(backend, task_dir, out_dir, limits, deadline, plan=plan, inputs=self.inputs_path)
        return outcome, out_dir


class _Stages:
    """Runs a submission's plan until every part has answers, restarting after a crash or a kill.

    The restart policy: a cell that crashed, hung or broke a limit is skipped on the next launch (its
    note says why); a graded call that did fails its own part; a failure in the runner's setup, or
    the submission's time running out, ends the run. Every launch has a fresh plan with what is left.
    """

    def __init__(self, cells, present: list[PreparedPart], launcher: _Launcher, result: Result):
        self.cells, self.pending, self.launcher, self.result = cells, list(present), launcher, result
        self.limits = launcher.settings.limits
        self.skip_cells: set[int] = set()
        self.answers: dict[int, Answers] = {}
        self.cell_messages: dict[int, str] = {}
        # the submission's time, with what the longer calls of its exercises add (Exercise.seconds)
        self.total_seconds = self.limits.submission_seconds + extra_seconds(self.pending, self.limits)

    def run(self) -> dict[int, Answers]:
        deadline = time.monotonic() + self.total_seconds
        launches = 0
        while True:
            launches += 1
            cells = [(index, source) for index, source in self.cells if index not in self.skip_cells]
            outcome, out_dir = self.launcher.launch(self.launcher.plan(cells, self.pending), deadline)
            _log_launch(self.result, launches, outcome)
            if outcome.killed == "malformed":
                raise MalformedOutput(outcome.malformed or "the progress file")
            self._collect(outcome, out_dir)
            if not self.launcher.settings.keep_work:
                sandbox.unmount_below(out_dir)  # its tmpfs holds memory until then
            if outcome.finished and outcome.killed is None:
                break
            if not self._restart(outcome):
                break
            out_of_time = outcome.killed == "deadline" or time.monotonic() > deadline - 0.5
            if out_of_time or launches > len(self.cells) + len(self.answers) + len(self.pending) + 1:
                self._fail_pending(f"not run: the submission's time ({self.total_seconds:g} s) ran out")
                break
        self.result.notes += [self.cell_messages[index] for index in sorted(self.cell_messages)]
        return self.answers

    def _collect(self, outcome: sandbox.RunOutcome, out_dir: Path) -> None:
        """The event reader's side: answers of the parts that ended, notes for the cells that failed."""
        ended_parts = {event["part"] for event in outcome.events if event.get("end") == "part"}
        for prepared in list(self.pending):
            if prepared.number in ended_parts:
                self.answers[prepared.number] = _read_answers(out_dir, prepared)
                self.pending.remove(prepared)
        for event in outcome.events:
            if event.get("end") == "cell":
                message = _cell_message(event, self.limits)
                if message:
                    self.cell_messages[event["cell"]] = message
                if event["status"] == "timeout":
                    self.skip_cells.add(event["cell"])  # do not wait for it again on a restart
        if any(event.get("status") == "timeout" for event in outcome.events):
            self.result.incidents.append("timeout")

    def _restart(self, outcome: sandbox.RunOutcome) -> bool:
        """Blame the step that was running when the process died; True when a new launch should follow."""
        step = outcome.step
        seconds = self.limits.step_seconds  # the limit of the step that was running: a cell's, or its call's
        if step is not None and step[0] == "case":
            seconds = next((call_seconds(p, self.limits) for p in self.pending if p.number == step[1]), seconds)
        reason = _death_reason(outcome, self.limits, seconds, self.total_seconds)
        self.result.incidents.append(_incident(outcome))
        if step is None or step[0] in ("setup", "inputs"):
            if not any(event.get("end") == "setup" for event in outcome.events):
                self.result.incidents.append("sandbox-error")
                self.result.log.append("the runner did not finish its setup: see its output above")
                reason = "could not be graded: the grading sandbox failed to start (the instructor was told)"
            self._fail_pending(f"not run: the notebook's process {reason}")
            return False
        if step[0] == "cell":
            self.skip_cells.add(step[1])
            self.cell_messages[step[1]] = f"Cell {step[1] + 1} {reason}; it was skipped and the rest still ran."
        elif step[0] == "case":
            for prepared in list(self.pending):
                if prepared.number == step[1]:
                    label = _case_label(prepared, step[2])
                    what = reason if step[2] < prepared.public_count else _hidden_reason(outcome)
                    self.answers[prepared.number] = Answers(failure=f"{label}: {prepared.exercise.function} {what}")
                    self.pending.remove(prepared)
        return True

    def _fail_pending(self, failure: str) -> None:
        for prepared in self.pending:
            self.answers[prepared.number] = Answers(failure=failure)
        self.pending = []


def _log_launch(result: Result, launch: int, outcome: sandbox.RunOutcome) -> None:
    result.log.append(
        f"launch {launch}: exit {outcome.returncode}, killed: {outcome.killed}, {outcome.seconds:.2f} s, "
        f"output {outcome.output_total} bytes, peak memory {outcome.peak_memory_bytes / 2**20:.0f} MiB "
        f"({outcome.limits_by})"
    )
    text = printable(outcome.output.decode("utf-8", "backslashreplace"))
    if text:
        result.log.append(f"---- output (first {len(outcome.output)} bytes) ----\n{text.rstrip()}")
    if outcome.output_total > len(outcome.output):
        result.log.append(f"---- {outcome.output_total - len(outcome.output)} more bytes of output dropped ----")


def _incident(outcome: sandbox.RunOutcome) -> str:
    if outcome.killed:
        return outcome.killed
    return "crash"


def call_seconds(prepared: PreparedPart, limits: sandbox.Limits) -> float:
    """How long one graded call of this part may take: the grader's step limit, or the exercise's own if longer."""
    return max(limits.step_seconds, prepared.exercise.seconds)


def extra_seconds(parts: list[PreparedPart], limits: sandbox.Limits) -> float:
    """The time the parts' longer calls add to the submission's: the difference, for each of their cases."""
    return sum((call_seconds(part, limits) - limits.step_seconds) * len(part.argument_specs) for part in parts)


def _death_reason(outcome: sandbox.RunOutcome, limits: sandbox.Limits, seconds: float, total: float) -> str:
    if outcome.killed:
        return _STEP_REASONS[outcome.killed].format(
            seconds=seconds, memory=f"{limits.memory_bytes / 2**30:g} GiB", total=total
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


def _hidden_reason(outcome: sandbox.RunOutcome) -> str:
    """The kind of failure only: an exit status or a signal chosen by the code could spell a hidden input."""
    if outcome.killed == "timeout":
        return "ran past the time limit"
    if outcome.killed == "memory":
        return "used more memory than the limit"
    if outcome.killed in ("disk", "deadline"):
        return "was stopped by a limit"
    return "crashed or ended the process"


def _cell_message(event: dict, limits: sandbox.Limits) -> str | None:
    """A note on a cell that failed. The cells run before the cases' inputs reach the sandbox, so
    nothing here can depend on a hidden input."""
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
_STATUS_FIELDS = {
    "ok": {"status", "kinds", "changed", "graph", "tuple"},
    "error": {"status", "error"},
    "none": {"status", "why"},
    "unsupported": {"status", "why"},
    "withheld": {"status", "piece"},  # the call reached a withheld piece (grading/withhold.py)
}
_OUTPUT_KINDS = ("tensor", "ndarray", "number")


def _valid_status(status, count_limit: int = 64) -> bool:
    """One entry of e<k>.json, as the runner writes it: every field of the right type and size."""
    if not isinstance(status, dict) or not isinstance(status.get("status"), str):
        return False
    code = status["status"]
    if code not in CASE_STATUSES + ("missing", "skipped"):
        return False
    if set(status) != _STATUS_FIELDS.get(code, {"status"}):
        return False
    if code == "ok":
        kinds, changed, graph = status["kinds"], status["changed"], status["graph"]
        return (
            isinstance(kinds, list) and 0 < len(kinds) <= count_limit and all(k in _OUTPUT_KINDS for k in kinds)
            and isinstance(changed, list) and len(changed) <= count_limit
            and all(type(position) is int and 0 <= position < count_limit for position in changed)
            and isinstance(graph, list) and len(graph) == len(kinds)
            and all(name is None or (short_text(name, 60) and name.isidentifier()) for name in graph)
            and isinstance(status["tuple"], bool)
        )  # fmt: skip
    if code == "error":
        return short_text(status["error"])
    if code in ("none", "unsupported"):
        return short_text(status["why"], 200)
    if code == "withheld":
        return short_text(status["piece"], 200)
    return True


def _read_answers(out_dir: Path, prepared: PreparedPart) -> Answers:
    """The statuses and arrays of one part. A file the runner did not write (missing after an honest
    failure to save) fails the part; one that is there but malformed raises MalformedOutput."""
    json_path, npz_path = out_dir / f"e{prepared.number}.json", out_dir / f"e{prepared.number}.npz"
    if not os.path.lexists(json_path) or not os.path.lexists(npz_path):
        return Answers(failure="its answers could not be saved (were they larger than the file limit?)")
    statuses = load_json(read_regular(json_path, 1 << 20))
    if not isinstance(statuses, list) or len(statuses) != len(prepared.cases):
        raise MalformedOutput(f"e{prepared.number}.json: wrong number of statuses")
    if not all(_valid_status(status) for status in statuses):
        raise MalformedOutput(f"e{prepared.number}.json: a status the runner does not write")
    try:
        arrays = load_answers(npz_path)
    except (ValueError, OverflowError, zipfile.BadZipFile, EOFError, KeyError) as error:
        raise MalformedOutput(f"e{prepared.number}.npz: {_short(error)}") from None
    return Answers(statuses, arrays)


def _short(error: BaseException) -> str:
    return printable(re.sub(r"\s+", " ", str(error))[:120]) or type(error).__name__


_ANSWER_KEY = re.compile(r"c(\d{1,6})_(\d{1,3})\.npy")
MAX_ANSWER_DIMENSIONS = 32


def load_answers(path: Path, limit: int = MAX_ANSWER_BYTES) -> dict[str, np.ndarray]:
    """The arrays of an answers file, refusing pickles, links, odd names and headers that lie.

    The file was written inside the sandbox, so it is untrusted: it is read like every file from
    there (:func:`grading.untrusted.read_regular`), each member's ``.npy`` header is checked (numeric
    dtype, at most 32 dimensions, a size that matches the bytes actually there, computed without
    overflow) before NumPy reads it, and NumPy reads it with ``allow_pickle=False``.
    """
    try:
        data = read_regular(path, limit)
    except MalformedOutput as error:
        raise ValueError(str(error)) from None
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        if len(infos) > 10_000 or sum(info.file_size for info in infos) > limit:
            raise ValueError("too many or too large members")
        for info in infos:
            match = _ANSWER_KEY.fullmatch(info.filename)
            if not match or info.flag_bits & 0x1:
                raise ValueError(f"unexpected member {printable(info.filename[:40])!r}")
            member = archive.read(info)
            handle = io.BytesIO(member)
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle, max_header_size=10_000)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle, max_header_size=10_000)
            else:
                raise ValueError(f"unsupported .npy version {version}")
            if dtype.hasobject or dtype.kind not in ALLOWED_KINDS or dtype.fields is not None:
                raise ValueError(f"answers must be numeric arrays, not {dtype}")
            if len(shape) > MAX_ANSWER_DIMENSIONS or not all(type(n) is int and 0 <= n <= limit for n in shape):
                raise ValueError("an array header with an impossible shape")
            count = math.prod(shape)  # exact: Python integers, no overflow
            if count * dtype.itemsize != len(member) - handle.tell():
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
        public = case < prepared.public_count
        # the rules the learner's check enforces too, in its order: inputs left unchanged (unless writing into
        # them is the exercise), the values, then the answer's own properties (answer_check: a leaf, say)
        if status["changed"] and not prepared.exercise.mutates_inputs:
            which = f"its input (argument {status['changed'][0] + 1})" if public else "an input"
            return (
                f"changed {which} in place (its values differ after the call); work on a copy (x.clone()) or build "
                "new tensors, and leave the caller's tensors as they were"
            )
        if prepared.exercise.judge is not None:
            # measured here, by the grader, on data that never entered the sandbox; the sentence holds numbers
            # the grader computed (a loss, a count), never anything the submission's code chose
            mismatch = checks.type_mismatch(prepared.exercise, kinds)
            if mismatch is not None:
                return mismatch.detail if public else _HIDDEN_MISMATCH[mismatch.kind]
            return checks.judged(prepared.exercise, got, prepared.cases[case])
        mismatch = checks.type_mismatch(prepared.exercise, kinds) or compare(
            expected,
            got,
            rtol=prepared.exercise.rtol,
            atol=prepared.exercise.atol,
            check_dtype=prepared.exercise.check_dtype,
            at_most=prepared.exercise.at_most,
        )
        if mismatch is not None:
            # public cases may quote values (the learner has them); hidden ones name the kind of failure only
            return mismatch.detail if public else _HIDDEN_MISMATCH[mismatch.kind]
        return _answer_rule(prepared.exercise, kinds, got, status, public)
    if code == "withheld":
        # which piece, on public cases only, and only a piece the exercise names (the text came from the sandbox)
        piece = status.get("piece")
        known = piece in prepared.exercise.withheld or withhold.is_label(piece)
        named = piece if case < prepared.public_count and known else "a withheld piece"
        return f"calls {named}, which this exercise asks you to build (withheld while it is graded)"
    if code == "error":
        if case >= prepared.public_count:
            return "raised an exception"  # which one could be chosen to spell a hidden input
        return f"raised {_safe_exception_name(status.get('error'))}"
    return {
        "not_implemented": "not implemented yet (raises NotImplementedError)",
        "none": "returned None",
        "unsupported": "returned something that is not a tensor or an array",
        "timeout": "ran past the time limit",
        "skipped": "not run after an earlier case ran past the time limit",
        "missing": f"no function named {prepared.exercise.function}",
        "exit": "called sys.exit() or raised KeyboardInterrupt",
        "too_large": "returned an answer larger than the file limit",
    }.get(code, "no answer came back")


class _RecordedNode:
    """Stands for the ``grad_fn`` an answer had in the sandbox: only its name came back."""

    next_functions: tuple = ()

    def __init__(self, name: str):
        self._name = name

    def name(self) -> str:
        return self._name


def rebuilt_answer(kinds: list[str], arrays: list[np.ndarray], status: dict):
    """The answer as the sandbox's function returned it, rebuilt from its arrays and what the runner
    recorded (tensors attached to a graph get a stand-in ``grad_fn`` with the recorded name), for the
    exercise's ``answer_check``."""
    import minitorch

    outputs = []
    for kind, array, graph in zip(kinds, arrays, status["graph"]):
        if kind == "tensor":
            tensor = minitorch.tensor(array)
            if graph is not None:
                tensor.grad_fn = _RecordedNode(graph)
            outputs.append(tensor)
        else:
            outputs.append(array if kind == "ndarray" else array.item())
    return tuple(outputs) if status["tuple"] else outputs[0]


def _answer_rule(exercise: registry.Exercise, kinds, got, status, public: bool) -> str | None:
    """The exercise's ``answer_check`` on the rebuilt answer: its sentence on a public case, a neutral one on a
    hidden case (the recorded grad_fn name is chosen by the submission's code, so it could spell a hidden input)."""
    if exercise.answer_check is None:
        return None
    try:
        with checks.quiet():
            problem = exercise.answer_check(rebuilt_answer(kinds, got, status))
    except Exception:  # noqa: BLE001 - a check that cannot read this answer leaves the verdict to the values
        return None
    if not problem:
        return None
    return problem if public else "the answer breaks a rule of this exercise (the public cases say which)"


_HIDDEN_MISMATCH = {
    "type": "returned the wrong type (this exercise asks for a minitorch Tensor)",
    "count": "wrong number of outputs",
    "shape": "wrong shape",
    "dtype": "wrong dtype",
    "values": "wrong values",
    "above": "above the target",
}


# -- the whole batch ------------------------------------------------------------------------------
def grade_all(
    submissions: list[Submission],
    assignment: Assignment,
    settings: Settings,
    progress=None,
) -> list[Result]:
    parts, inputs = prepare(assignment)
    work_root = None if settings.work_root is None else Path(settings.work_root).resolve()
    root = Path(tempfile.mkdtemp(prefix="minitorch-grade-", dir=work_root))  # absolute: bwrap binds it
    if settings.limits.cpus == 0:
        share = max(1.0, (os.cpu_count() or 1) / max(1, settings.jobs))  # --jobs N share the cores
        settings = dataclasses.replace(settings, limits=dataclasses.replace(settings.limits, cpus=share))
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
                sandbox.unmount_below(workspace)
                if not settings.keep_work:
                    remove_tree(workspace)
                slots.put(slot)
            if progress:
                progress(result)
            return result

        with ThreadPoolExecutor(max_workers=max(1, settings.jobs)) as pool:
            results = list(pool.map(one, enumerate(submissions)))
    finally:
        sandbox.unmount_below(root)
        if not settings.keep_work:
            remove_tree(root)
    return sorted(results, key=lambda result: result.student)


# -- reports ------------------------------------------------------------------------------------------
def _points(value: float) -> str:
    return f"{value:g}"


def write_reports(results: list[Result], assignment: Assignment, out: Path, *, gradescope: bool = False) -> None:
    """grades.csv, feedback/<student>.md, logs/<student>.log, the class summary (summary.csv, failures.csv,
    summary.html: :mod:`grading.class_summary`) and, optionally, Gradescope's results.json."""
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
        (out / "feedback" / f"{result.student}.md").write_text(printable(feedback_text(result, assignment, parts)))
        (out / "logs" / f"{result.student}.log").write_text(
            printable(f"{result.student} ({result.origin})\nstatus: {result.status}\n" + "\n".join(result.log) + "\n")
        )
    class_summary.write(results, assignment, out, parts)
    rejected = [result for result in results if result.rejected]
    if rejected:
        (out / "rejected.txt").write_text(
            "".join(printable(f"{result.origin!r}: {' '.join(result.notes)}") + "\n" for result in rejected)
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
