"""What tests/grading/test_learner_dist.py reads from a fresh environment that holds only the learner's kit.

Run there as ``python -I learner_dist_probe.py REPOSITORY NOTEBOOKS OUT.json``, it writes what can be imported and
where it lives, the installed files, and the instant check's report on every exercise: on a blank stub, a wrong
answer and the exercise's reference (:func:`function_reports`), and on each chapter's solutions and stubs run
through its test cells (:func:`notebook_reports`), plus a learner notebook's check cell run to a pass and a fail.
The test runs the same two functions in the repository, so both sides follow one procedure.

The answers come from the repository, which is only read: each reference is taken out of its chapter module and
each solution out of the instructor's notebook, then handed to the kit's ``check``. Nothing here imports the tests
package, and in the fresh environment the repository's ``grading`` is not on the path.
"""

from __future__ import annotations

import contextlib
import io
import json
import linecache
import math
import sys
from pathlib import Path

import numpy as np

import minitorch


def _report(run, *arguments) -> str:
    """What ``run(*arguments)`` prints, and the status it returns (a check's), as one text."""
    from grading import checks

    checks._hints_shown.clear()  # the hint pointer depends on the hints shown so far
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        status = run(*arguments)
    return f"[{status}] {output.getvalue()}" if status is not None else output.getvalue()


def references(repository: Path, chapters: list[str]) -> dict:
    """``{exercise: reference}`` read from the repository's chapter modules without registering anything."""
    from grading import registry

    collected = {}

    def collect(name, *, reference, **_):
        collected[name] = reference

    real = registry.exercise
    registry.exercise = collect
    try:
        for chapter in chapters:
            path = repository / "grading" / "exercises" / f"{chapter}.py"
            names = {"__name__": f"answer_key_{chapter}", "__file__": str(path)}
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), names)
    finally:
        registry.exercise = real
    return collected


def _blank(*arguments):
    raise NotImplementedError()


def _wrong(*arguments):
    return minitorch.full((1, 1), 1.0e9)


def reference_outputs(entry, reference) -> list[list[np.ndarray]]:
    """The reference's answer to each public case, as arrays, computed outside the check (no piece withheld)."""
    from grading.checks import quiet
    from grading.compare import call_arguments, output_arrays

    computed = []
    with contextlib.redirect_stdout(io.StringIO()), quiet():
        for case in entry.public:
            computed.append(output_arrays(reference(*call_arguments(case, entry.input_type)))[1])
    return computed


def _oracle(entry, computed: list[list[np.ndarray]]):
    """An answer that returns, for each public case, the reference's answer computed beforehand (outside the check,
    so no piece is withheld then): right wherever the stored answers are, whatever the exercise withholds."""

    def same(argument, value) -> bool:
        if not isinstance(value, np.ndarray):
            return type(argument) is type(value) and argument == value
        array = np.asarray(argument.detach().numpy() if isinstance(argument, minitorch.Tensor) else argument)
        return array.dtype == value.dtype and np.array_equal(array, value, equal_nan=value.dtype.kind in "fc")

    def oracle(*arguments):
        for case, arrays in zip(entry.public, computed):
            if len(case) == len(arguments) and all(same(a, v) for a, v in zip(arguments, case)):
                tensors = [minitorch.tensor(array) for array in arrays]
                return tensors[0] if len(tensors) == 1 else tuple(tensors)
        raise ValueError("not a public case")

    return oracle


def function_reports(names: list[str], answers: dict, skip: set, judged_outputs: dict | None = None) -> dict:
    """The check's report on each exercise for a blank stub, a wrong answer, its reference (``answers``) and the
    reference's answers handed back (:func:`_oracle`); neither of the last two for the exercises in ``skip`` (the
    kit cannot judge them: they would only run).

    A judged exercise (chapter 15's trained model: its reference trains for a minute) gets the oracle only: its
    reference runs once, outside the check, and ``judged_outputs`` keeps what it returned (``{name: outputs per
    case}``); where ``judged_outputs`` already holds them (the kit's run, handed to the repository's side), they
    are used instead, so both sides judge the same trained parameters and the training runs once."""
    from grading import checks, registry

    reports = {}
    for name in names:
        reports[name] = {
            "blank": _report(checks.check, name, _blank),
            "wrong": _report(checks.check, name, _wrong),
        }
        if name in skip:
            continue
        entry = registry.get(name)
        if entry.judge is None:
            reports[name]["reference"] = _report(checks.check, name, answers[name])
            oracle = _oracle(entry, reference_outputs(entry, answers[name]))
            reports[name]["oracle"] = _report(checks.check, name, oracle)
            continue
        store = judged_outputs if judged_outputs is not None else {}
        if name not in store:
            store[name] = reference_outputs(entry, answers[name])
        reports[name]["oracle"] = _report(checks.check, name, _oracle(entry, store[name]))
    return reports


def save_outputs(outputs: dict, path: Path) -> None:
    """``{name: outputs per case}`` as one ``.npz`` (keys ``name|case|position``)."""
    np.savez(path, **{f"{name}|{case}|{position}": array for name, cases in outputs.items()
                      for case, arrays in enumerate(cases) for position, array in enumerate(arrays)})  # fmt: skip


def load_outputs(path: Path) -> dict:
    """What :func:`save_outputs` wrote."""
    outputs: dict = {}
    with np.load(path, allow_pickle=False) as stored:
        for key in sorted(stored.files, key=lambda key: (key.split("|")[0], *map(int, key.split("|")[1:]))):
            name, case, position = key.split("|")
            cases = outputs.setdefault(name, [])
            while len(cases) <= int(case):
                cases.append([])
            cases[int(case)].append(stored[key])
    return outputs


def judging_data(names: list[str]) -> dict:
    """What each judge with judging data measures on here: its texts, and the length and bytes' hash of its ids."""
    import hashlib

    from grading import registry

    found = {}
    for name in names:
        entry = registry.get(name)
        if entry.judging_data is not None:
            data = entry.judging_data()
            found[name] = {key: value if isinstance(value, str) else
                           [int(np.asarray(value).size), hashlib.sha256(np.asarray(value).tobytes()).hexdigest()]
                           for key, value in data.items()}  # fmt: skip
    return found


def notebook_skip(entries) -> set[str]:
    """The exercises whose test cells run on the stubs only: those the kit cannot judge, and the judged ones (a
    trained model: the solution would train for a minute on each side; :func:`function_reports` judges the
    reference's trained parameters instead, and tests/grading/test_ch15_exercises.py the notebook's)."""
    return {entry.name for entry in entries if entry.unchecked or entry.judge is not None}


def _graded_cells(path: Path, kind: str) -> dict[str, str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = {}
    for cell in cells:
        metadata = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] == "code" and metadata.get(kind) and not (kind == "grade" and metadata.get("solution")):
            found[metadata["grade_id"]] = "".join(cell["source"])
    return found


def _namespace(path: Path) -> dict:
    """The notebook's solution cells run after the imports they rely on (tests/grading/chapter_notebooks.py)."""
    import minitorch.nn as nn
    import minitorch.nn.functional as F
    from grading import check, check_hidden, randn
    from minitorch.vision import models

    names = {"math": math, "np": np, "numpy": np, "minitorch": minitorch, "nn": nn, "F": F, "optim": minitorch.optim,
             "models": models, "check": check, "check_hidden": check_hidden, "randn": randn}  # fmt: skip
    for grade_id, source in _graded_cells(path, "solution").items():
        filename = f"<{path.parent.parent.name} {path.stem} {grade_id}>"
        # in the source cache, as Jupyter keeps a cell's text: chapter 12's check sends a class's cell to other
        # processes (one name per edition, so the solution's class is not sent as the stub's text)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), names)
    return names


def notebook_reports(source: Path, release: Path, skip: set) -> dict:
    """``{chapter/grade_id: {"solution": report, "stub": report}}``: each test cell's visible part (its ``check``
    line) run on the instructor's solutions and the learner's stubs; cells checking an exercise in ``skip`` run on
    the stubs only."""
    reports = {}
    for path in sorted(source.glob("*/*.ipynb")):
        if path.stem != path.parent.name:
            continue
        stub_path = release / path.parent.name / path.name
        solutions, stubs = _namespace(path), _namespace(stub_path)
        stub_cells = _graded_cells(stub_path, "grade")
        for grade_id, cell in _graded_cells(path, "grade").items():
            visible = cell.split("### BEGIN HIDDEN TESTS", 1)[0]
            runs = {"stub": _report(exec, stub_cells[grade_id], dict(stubs))}
            if not any(f'"{name}"' in visible for name in skip):
                runs["solution"] = _report(exec, visible, dict(solutions))
            reports[f"{path.parent.name}/{grade_id}"] = runs
    return reports


def learner_notebook(notebooks: Path) -> dict:
    """Chapter 4's first check cell, as the learner's notebook has it, after its set-up cell and four answers."""
    cells = json.loads((notebooks / "04_networks" / "04_networks.ipynb").read_text(encoding="utf-8"))["cells"]
    code = [("".join(cell["source"]), cell.get("metadata", {}).get("nbgrader", {})) for cell in cells
            if cell["cell_type"] == "code"]  # fmt: skip
    setup = next(source for source, _ in code if "from grading import" in source)
    stub = next(source for source, nbgrader in code if nbgrader.get("grade_id") == "ch04-linear-forward")
    test_cell = next(source for source, nbgrader in code if nbgrader.get("grade_id") == "ch04-linear-forward-tests")
    attempts = {
        "stub": stub,
        "not_transposed": "def linear_forward(x, weight, bias):\n    return x @ weight + bias\n",
        "forgets_bias": "def linear_forward(x, weight, bias):\n    return x @ weight.T\n",
        "right": "def linear_forward(x, weight, bias):\n    return (x.unsqueeze(-2) * weight).sum(-1) + bias\n",
    }
    names = {"__name__": "__main__"}
    exec(compile(setup, "<set-up cell>", "exec"), names)
    runs = {}
    for attempt, source in attempts.items():
        exec(compile(source, "<solution cell>", "exec"), names)
        runs[attempt] = _report(exec, compile(test_cell, "<test cell>", "exec"), names)
    return {"test_cell": test_cell, "runs": runs}


def main(repository: Path, notebooks: Path, out: Path) -> None:
    import importlib.metadata
    import importlib.util
    import shutil

    for folder in sys.path:  # python -I: no working folder, no PYTHONPATH; the repository must not be reachable
        assert not folder or not Path(folder).resolve().is_relative_to(repository), folder
    import grading
    from grading import checks, public, registry

    report: dict = {"grading_file": grading.__file__, "minitorch_file": minitorch.__file__}
    report["importable"] = {
        name: importlib.util.find_spec(name) is not None
        for name in ("grading.exercises", "grading.grader", "grading.sandbox", "grading.cli", "grading._runner",
                     "grading.public", "grading.library", "grading.review", "widgets", "torch", "nbgrader")
    }  # fmt: skip
    report["minitorch_grade"] = shutil.which("minitorch-grade", path=str(Path(sys.executable).parent))
    report["distributions"] = sorted({dist.metadata["Name"] for dist in importlib.metadata.distributions()})
    kit = importlib.metadata.distribution("minitorch-kit")
    report["installed_files"] = sorted(str(kit.locate_file(file)) for file in kit.files)
    report["chapters"] = public.chapters()

    entries = [entry for chapter in report["chapters"] for entry in registry.chapter_exercises(chapter)]
    report["with_reference"] = [entry.name for entry in entries if entry.reference is not None]
    report["unchecked"] = {entry.name: entry.unchecked for entry in entries if entry.unchecked}
    names = [entry.name for entry in entries]
    skip = set(report["unchecked"])
    judged_outputs: dict = {}
    report["functions"] = function_reports(names, references(repository, report["chapters"]), skip, judged_outputs)
    save_outputs(judged_outputs, out.with_suffix(".npz"))
    report["judging_data"] = judging_data(names)
    report["notebooks"] = notebook_reports(repository / "notebooks" / "source", notebooks, notebook_skip(entries))
    report["learner_notebook"] = learner_notebook(notebooks)

    # a hidden case has no answer in the kit: check_hidden says where hidden cases are graded, and passes nothing
    hidden = (np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), np.ones(4, np.float32))
    try:
        checks.check_hidden("ch04.linear_forward", lambda x, weight, bias: x @ weight.T + bias, [hidden])
        report["check_hidden"] = "returned"
    except Exception as error:  # noqa: BLE001 - the test reads the error
        report["check_hidden"] = f"{type(error).__name__}: {error}"
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve(), Path(sys.argv[3]))
