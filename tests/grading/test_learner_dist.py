"""The learner's kit (``make learner-dist``, tools/dist.py) holds no answer key, and checks as the repository does.

The kit is built into a temporary folder and installed in a fresh virtual environment (no system site-packages):
its runtime dependencies come from this machine's pip configuration (its index or wheel folder, as every install
here), the kit itself only from the built folder (``pip install --no-index --find-links``). Inside, the probe
(tests/grading/learner_dist_probe.py) records what is importable and installed and how the instant check reports
on every exercise; the tests compare that with the repository:

* no ``grading.exercises``, no batch grader, no ``minitorch-grade``, no reference attached to any exercise;
* no line of any reference solution (the registry's references, the instructor's notebook solutions) and no line
  of any hidden test in the installed files or the learner's notebooks;
* for every exercise the same report, word for word, as the repository's check: on a blank stub, a wrong answer,
  the reference, and each chapter's test cells on the instructor's solutions (all pass) and the learner's stubs;
* a learner notebook's check cell runs to a fail and to a pass;
* the instructor's part installs beside the kit and brings the answer key and ``minitorch-grade`` back.

Building and installing take about two minutes here (``-m learner_dist`` selects these tests); the checks on the
build script itself at the end take a second.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import minitorch
from grading import public, registry, sandbox
from tests.grading import learner_dist_probe as probe
from tests.support import in_ci

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "tools" / "dist.py"
TEXT_SUFFIXES = {".py", ".json", ".md", ".txt", ".js", ".css", ".toml", ".cfg", ".ipynb", ".html", ".svg"}


def _environment() -> dict:
    """This process's environment without what would put the repository (or another environment) on the path."""
    return {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _run(command, cwd, what: str, allowed_to_skip: bool = False, timeout: int = 600) -> subprocess.CompletedProcess:
    result = subprocess.run([str(part) for part in command], cwd=cwd, env=_environment(), capture_output=True,
                            text=True, timeout=timeout)  # fmt: skip
    if result.returncode != 0:
        message = f"{what} failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        if allowed_to_skip and not in_ci():
            pytest.skip(message)
        pytest.fail(message)
    return result


@pytest.fixture(scope="module")
def learner_kit(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist") / "learner"
    _run([sys.executable, DIST, "learner", out], ROOT, "tools/dist.py learner")
    return out


def _runtime_requirements(wheel: Path, extras: list[str]) -> list[str]:
    """The wheel's Requires-Dist for a plain install with ``extras``, as pip requirement lines."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        metadata = archive.read(name).decode()
    requirements = []
    for line in metadata.splitlines():
        if line.startswith("Requires-Dist: "):
            requirement, _, marker = line.removeprefix("Requires-Dist: ").partition(";")
            if not marker or any(f'extra == "{extra}"' in marker for extra in extras):
                requirements.append(requirement.strip())
    return requirements


def _readme_extras(kit: Path) -> list[str]:
    """The extras of the install line the kit's README gives a learner (``minitorch-kit[deploy,distributed]``)."""
    match = re.search(r"minitorch-kit\[([a-z,]+)\]", (kit / "README.md").read_text())
    assert match, "the kit's README gives no install line"
    return match.group(1).split(",")


@pytest.fixture(scope="module")
def fresh(learner_kit, tmp_path_factory):
    """A new virtual environment with the learner's kit installed as its README says, and the probe's report from
    inside it (taken before any test installs more)."""
    folder = tmp_path_factory.mktemp("fresh")
    environment = folder / "env"
    _run([sys.executable, "-m", "venv", environment], folder, "python -m venv")
    python = environment / "bin" / "python"
    (wheel,) = learner_kit.glob("minitorch_kit-*.whl")
    extras = _readme_extras(learner_kit)
    assert {"deploy", "distributed"} <= set(extras)  # chapter 14's ONNX, chapter 12's MPI (its check launches ranks)
    (folder / "requirements.txt").write_text("\n".join(_runtime_requirements(wheel, extras)) + "\n")
    pip = [python, "-m", "pip", "install", "--quiet", "--no-compile", "--disable-pip-version-check"]
    _run([*pip, "-r", folder / "requirements.txt"], folder, "installing the kit's dependencies from this machine's "
         "pip configuration", allowed_to_skip=True)  # fmt: skip
    _run([*pip, "--no-index", "--find-links", learner_kit, f"minitorch-kit[{','.join(extras)}]"], folder,
         "installing the kit")  # fmt: skip
    # a guard against a hang, not a time limit: the probe checks every exercise, launches chapter 12's ranks and
    # trains chapter 15's model once (about 5 minutes of CPU; more than 10 minutes on a loaded 2-core machine)
    _run([python, "-I", Path(probe.__file__), ROOT, learner_kit / "notebooks", folder / "report.json"], folder,
         "the probe in the fresh environment", timeout=2400)  # fmt: skip
    report = json.loads((folder / "report.json").read_text())
    judged_outputs = probe.load_outputs(folder / "report.npz")
    return {"python": python, "environment": environment, "report": report, "kit": learner_kit,
            "judged_outputs": judged_outputs}  # fmt: skip


@pytest.mark.learner_dist
def test_the_learner_kit_holds_no_answer_key(fresh):
    report = fresh["report"]
    assert Path(report["grading_file"]).is_relative_to(fresh["environment"])
    assert Path(report["minitorch_file"]).is_relative_to(fresh["environment"])
    importable = report["importable"]
    for name in ("grading.exercises", "grading.grader", "grading.sandbox", "grading.cli", "grading._runner"):
        assert importable[name] is False, f"{name} is importable from the learner's kit"
    for name in ("grading.public", "grading.library", "grading.review", "widgets"):
        assert importable[name] is True, f"{name} is missing from the learner's kit"
    assert importable["torch"] is False and importable["nbgrader"] is False  # nothing of the test tools came along
    assert report["minitorch_grade"] is None
    assert "minitorch-kit-instructor" not in report["distributions"]
    assert report["with_reference"] == []
    installed = [Path(path).relative_to(fresh["environment"]).as_posix() for path in report["installed_files"]]
    assert not [path for path in installed if "/grading/exercises/" in path or "devils_dictionary_g" in path]
    # every chapter of the answer key is described, so a new exercise reaches the kit with the next build
    assert report["chapters"] == sorted(path.stem for path in (ROOT / "grading" / "exercises").glob("[!_]*.py"))


def _secret_lines() -> dict[str, str]:
    """``{line: where}``: the stripped lines of every reference (the registry's, for every exercise) and of every
    solution and hidden test block of the instructor's notebooks that are long enough to be telling and appear
    nowhere public (minitorch, widgets, the learner's side of grading, the learner's notebooks)."""
    secret: dict[str, str] = {}
    for path in sorted((ROOT / "grading" / "exercises").glob("[!_]*.py")):
        for entry in registry.chapter_exercises(path.stem):
            try:
                source = inspect.getsource(entry.reference)
            except (OSError, TypeError):
                continue
            for line in source.splitlines():
                secret.setdefault(line.strip(), f"the reference of {entry.name}")
    for notebook in sorted((ROOT / "notebooks" / "source").glob("*/*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            text = "".join(cell["source"])
            for begin, end, what in (("### BEGIN SOLUTION", "### END SOLUTION", "a solution"),
                                     ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS", "a hidden test")):  # fmt: skip
                for block in text.split(begin)[1:]:
                    for line in block.split(end, 1)[0].splitlines():
                        secret.setdefault(line.strip(), f"{what} of {notebook.parent.name}")
    public_lines = set()
    public_files = [*(ROOT / "minitorch").rglob("*.py"), *(ROOT / "widgets").rglob("*.py")]
    public_files += [path for path in (ROOT / "grading").rglob("*.py") if _learner(path)]
    for path in public_files:
        public_lines.update(line.strip() for line in path.read_text().splitlines())
    for notebook in (ROOT / "notebooks" / "release").rglob("*.ipynb"):
        for cell in json.loads(notebook.read_text())["cells"]:
            public_lines.update(line.strip() for line in "".join(cell["source"]).splitlines())
    names = set(registry._EXERCISES)  # an exercise's name is public (a hidden block names its exercise too)
    return {
        line: where for line, where in secret.items()
        if len(line) >= 24 and line not in public_lines and line.strip("\"'(),") not in names
    }  # fmt: skip


@functools.cache
def _dist():
    """tools/dist.py as a module (tools/ is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("minitorch_kit_dist", DIST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _learner(path: Path) -> bool:
    return _dist().learner_file(path.relative_to(ROOT / "grading").as_posix())


def _text_lines(path: Path) -> set[str]:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(cell["source"]) for cell in cells)
    else:
        text = path.read_text(encoding="utf-8", errors="replace")
    lines = {line.strip() for line in text.splitlines()}
    if path.suffix == ".json":  # texts inside JSON (hints, labels) are lines too
        lines |= {line.strip() for value in _strings(json.loads(text)) for line in value.splitlines()}
    return lines


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.mark.learner_dist
def test_no_solution_and_no_hidden_test_in_what_a_learner_installs(fresh):
    secret = _secret_lines()
    # the search has something to find: the answer key's own files hold these lines
    answer_key = set().union(*(_text_lines(path) for path in (ROOT / "grading" / "exercises").glob("*.py")))
    assert len(secret) > 300 and len(set(secret) & answer_key) > 200
    files = [Path(path) for path in fresh["report"]["installed_files"]]
    files += [path for path in fresh["kit"].rglob("*") if path.is_file() and path.suffix != ".whl"]
    searched = [path for path in files if path.suffix in TEXT_SUFFIXES]
    assert len(searched) > 300  # minitorch, widgets, grading and the notebooks were all searched
    found = {}
    for path in searched:
        for line in _text_lines(path) & set(secret):
            found.setdefault(f"{secret[line]}: {line}", str(path))
    assert not found, "solution or hidden-test lines in the learner's kit:\n" + "\n".join(
        f"  {what}  (in {where})" for what, where in sorted(found.items())
    )
    for notebook in (fresh["kit"] / "notebooks").rglob("*.ipynb"):
        text = notebook.read_text()
        for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "check_hidden", "grading.exercises"):
            assert marker not in text, f"{notebook}: {marker}"


def _without_notes(reports: dict, notes: dict[str, str]) -> dict:
    """The kit's reports with the line each judge on public data adds (its note) taken out, once it was found in
    every report that gives a verdict: the one difference there may be from the repository's words."""
    reports = {name: dict(runs) for name, runs in reports.items()}
    for name, note in notes.items():
        for run, text in reports[name].items():
            if run != "blank":  # a blank stub is not judged: nothing to say about the data
                assert f"\n    ({note})\n" in text, (name, run, text)
                reports[name][run] = text.replace(f"\n    ({note})", "", 1)
    return reports


@pytest.mark.learner_dist
def test_the_kit_checks_every_exercise_as_the_repository_does(fresh):
    report = fresh["report"]
    names = list(report["functions"])
    assert len(names) == sum(len(registry.chapter_exercises(chapter)) for chapter in report["chapters"])
    skip = set(report["unchecked"])
    # The same answers on both sides: each reference as the probe reads it there, from a fresh copy of its chapter
    # module. (The registry's own object can answer differently: chapter 6's reference keeps the reports it made
    # for the check's expected values, so handed back as the answer it returns them without running the withheld
    # loader; a copy has no such memory, on either side.)
    answers = probe.references(ROOT, report["chapters"])
    assert set(answers) == set(names)
    # a judged exercise's reference (a minute of training) ran once, in the kit: its outputs are judged here too
    here = probe.function_reports(names, answers, skip, judged_outputs=dict(fresh["judged_outputs"]))
    notes = {name: registry.get(name).public_judging_data()["note"] for name in report["judging_data"]}
    there = _without_notes(report["functions"], notes)
    for name in skip:  # judged here, said to be the grader's there (the next test): the blank stub's report only
        del here[name]["wrong"], there[name]["wrong"]
    assert there == here
    statuses = [runs["reference"].split("]")[0] for runs in here.values() if "reference" in runs]
    assert "[passed" in statuses and "[failed" in statuses  # references that reach a withheld piece fail alike
    oracles = [runs["oracle"] for runs in here.values() if "oracle" in runs]
    assert sum(report.startswith("[passed]") for report in oracles) >= 0.9 * len(oracles) > 70
    entries = [registry.get(name) for name in names]
    notebook_skip = probe.notebook_skip(entries) | skip
    notebooks = probe.notebook_reports(ROOT / "notebooks" / "source", ROOT / "notebooks" / "release", notebook_skip)
    assert report["notebooks"] == notebooks
    for cell, runs in report["notebooks"].items():
        assert "not implemented yet" in runs["stub"], cell
        if "solution" in runs:
            assert "public cases pass" in runs["solution"] and "FAILED" not in runs["solution"], cell
    checked = [cell for cell, runs in report["notebooks"].items() if "solution" in runs]
    assert len(checked) >= len(report["notebooks"]) - len(notebook_skip) > 80


@pytest.mark.learner_dist
def test_a_judge_on_the_instructor_s_data_judges_in_the_kit_on_public_data_and_says_so(fresh):
    """Chapter 15's trained model is measured by the grader on held-out text; the kit holds none, and judges on the
    chapter's validation split: exactly that split (not a character of the held-out text), said in kit.json and
    in every verdict. The reference's trained parameters pass there; a wrong answer fails."""
    from grading.exercises import ch15

    report = fresh["report"]
    record = json.loads((fresh["kit"] / "kit.json").read_text())
    judged = {name for name, entry in registry._EXERCISES.items() if entry.judging_data is not None}
    assert "ch15.trained_model" in judged
    assert set(report["judging_data"]) == judged
    assert record["judged_on_public_data"] == [f"{name}: {report['judging_data'][name]['what']}" for name in judged]
    for name in judged:
        kit_data, public_data = report["judging_data"][name], registry.get(name).public_judging_data()
        assert probe.judging_data([name])[name] != kit_data  # the repository judges on other data
        ids = public_data["ids"]
        assert kit_data["ids"] == [ids.size, hashlib.sha256(ids.tobytes()).hexdigest()]
        assert kit_data["what"] == public_data["what"] and kit_data["note"] == public_data["note"]
        runs = report["functions"][name]
        assert runs["oracle"].startswith("[passed]") and public_data["note"] in runs["oracle"]
        assert runs["wrong"].startswith("[failed]") and public_data["note"] in runs["wrong"]
    validation, held_out = ch15.validation_data()["ids"], ch15.held_out_data()["ids"]
    assert np.array_equal(validation, ch15.text_ids()[1]) and len(held_out) > 10_000
    window = held_out[:200]  # no stretch of the held-out text is in the kit's judging text
    assert not any(np.array_equal(validation[i : i + 200], window) for i in range(len(validation) - 199))


@pytest.mark.learner_dist
def test_what_the_kit_cannot_judge_is_said_never_passed(fresh):
    """An exercise whose judge cannot ship (it needs the instructor's held-out text, say) runs in the kit and says
    who judges it: never green, and listed in kit.json with the reason."""
    report = fresh["report"]
    record = json.loads((fresh["kit"] / "kit.json").read_text())
    listed = {note.split(":", 1)[0] for note in record["left_to_the_grader"]}
    assert set(report["unchecked"]) == listed
    for name in report["unchecked"]:
        assert registry.get(name).judge is not None  # only a judge may stay behind; an answer_check always ships
        assert "not judged here" in report["functions"][name]["wrong"]
        assert "pass" not in report["functions"][name]["wrong"]


@pytest.mark.learner_dist
def test_a_learner_notebook_check_cell_fails_then_passes(fresh):
    runs = fresh["report"]["learner_notebook"]["runs"]
    assert fresh["report"]["learner_notebook"]["test_cell"].strip() == 'check("ch04.linear_forward", linear_forward)'
    assert runs["stub"].startswith("ch04.linear_forward: not implemented yet. Write linear_forward")
    assert "FAILED: raised RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 2x3)" in (
        runs["not_transposed"]
    )
    assert "public case 1 of 3 (a batch of 4 rows, 3 features in, 2 out) FAILED: wrong values" in runs["forgets_bias"]
    assert runs["right"] == "ch04.linear_forward: all 3 public cases pass\n"
    assert fresh["report"]["learner_notebook"] == probe.learner_notebook(ROOT / "notebooks" / "release")


@pytest.mark.learner_dist
def test_check_hidden_in_the_kit_refuses_for_want_of_answers(fresh):
    assert fresh["report"]["check_hidden"].startswith("LookupError: ch04.linear_forward: the learner's kit holds")
    assert "minitorch-kit-instructor" in fresh["report"]["check_hidden"]


@pytest.mark.learner_dist
def test_the_instructor_part_installs_beside_the_kit(fresh, tmp_path):
    out = tmp_path / "instructor"
    _run([sys.executable, DIST, "instructor", out], ROOT, "tools/dist.py instructor")
    (instructor,) = out.glob("minitorch_kit_instructor-*.whl")
    (learner,) = fresh["kit"].glob("minitorch_kit-*.whl")
    with zipfile.ZipFile(instructor) as archive, zipfile.ZipFile(learner) as kit:
        files = {name for name in archive.namelist() if ".dist-info/" not in name}
        shared = files & {name for name in kit.namelist() if ".dist-info/" not in name}
        entry_points = next(archive.read(n).decode() for n in archive.namelist() if n.endswith("entry_points.txt"))
        metadata = next(archive.read(n).decode() for n in archive.namelist() if n.endswith("METADATA"))
    assert not shared, f"both wheels install {sorted(shared)}"
    assert {"grading/exercises/ch04.py", "grading/grader.py", "grading/sandbox.py", "grading/cli.py"} <= files
    assert "grading/exercises/data/devils_dictionary_g.txt" in files
    assert "minitorch-grade = grading.cli:main" in entry_points
    assert "Requires-Dist: minitorch-kit==" in metadata
    python = fresh["python"]
    _run([python, "-m", "pip", "install", "--quiet", "--no-compile", "--no-index", "--find-links", out,
          "minitorch-kit-instructor"], tmp_path, "installing the instructor's part")  # fmt: skip
    script = "from grading import registry; print(registry.get('ch04.linear_forward').reference is not None)"
    result = _run([python, "-I", "-c", script], tmp_path, "reading the answer key")
    assert result.stdout.strip() == "True"
    result = _run([fresh["environment"] / "bin" / "minitorch-grade", "--help"], tmp_path, "minitorch-grade --help")
    assert "--source" in result.stdout


# -- the build script itself (no environment to build: about a second) ---------------------------------------------
def test_the_learner_side_of_grading_is_what_the_sandbox_binds():
    dist = _dist()

    files = [path.relative_to(ROOT / "grading").as_posix() for path in (ROOT / "grading").rglob("*.py")]
    learner = {path for path in files if dist.learner_file(path)}
    # the learner's kit holds no more of grading than a submission's sandbox sees, and the public descriptions
    assert learner - set(sandbox.LEARNER_GRADING_FILES) == {"public/__init__.py"}
    for instructor in ("grader.py", "sandbox.py", "cli.py", "_runner.py", "exercises/__init__.py", "exercises/ch04.py"):
        assert instructor in files and instructor not in learner


def test_the_public_description_covers_every_field_of_an_exercise():
    fields = {field.name for field in dataclasses.fields(registry.Exercise)}
    described = set(public.PLAIN_FIELDS) | set(public.RULES) | {"name", "public", "answers", "unchecked"}
    described |= set(public.JUDGING)  # judging_data holds public_judging_data's values in the kit
    assert fields - described == {"reference"}  # the one field the learner's kit never holds


@pytest.mark.parametrize("chapter", ["ch04", "ch15", "demo"])
def test_a_public_description_read_back_checks_as_the_answer_key(chapter, tmp_path, monkeypatch):
    """The description the build writes, read back by grading.public, gives the answer key's reports word for word
    (chapter 4 ships a rule as code; chapter 15 ships a judge that measures on public data in the kit). In one
    process, without a wheel: the quick version of the fresh environment's comparison."""
    dist = _dist()
    entries = registry.chapter_exercises(chapter)
    references = {id(entry.reference): entry.name for entry in registry._EXERCISES.values() if entry.reference}
    description, arrays, source, notes = dist.describe_chapter(chapter, references)
    (tmp_path / f"{chapter}.json").write_text(json.dumps(description))
    np.savez(tmp_path / f"{chapter}.npz", **arrays)
    if source is not None:
        (tmp_path / f"{chapter}_rules.py").write_text(source)
    names = [entry.name for entry in entries]
    answers = {entry.name: entry.reference for entry in entries}
    unchecked = {name for name in names if any(note.startswith(f"{name}:") for note in notes)}
    # a judged exercise is handed untrained parameters (no minute of training here): measured, they fail, on the
    # held-out text here and on the validation text in the kit
    judged = {entry.name: [_untrained(entry, case) for case in entry.public] for entry in entries
              if entry.judge is not None}  # fmt: skip
    key = probe.function_reports(names, answers, skip=unchecked, judged_outputs=dict(judged))
    public_data = {entry.name: entry.public_judging_data() for entry in entries if entry.judging_data is not None}
    monkeypatch.setattr(registry, "_EXERCISES", {})  # only the description, as in the kit
    monkeypatch.setattr(public, "FOLDER", tmp_path)
    loaded = public.load(chapter)
    assert [entry.name for entry in loaded] == names and all(entry.reference is None for entry in loaded)
    assert {entry.name for entry in loaded if entry.unchecked} == unchecked
    assert (source is not None) == any(entry.answer_check or entry.judge for entry in loaded)
    kit = probe.function_reports(names, answers, skip=unchecked, judged_outputs=dict(judged))
    for name in unchecked:
        assert "not judged here" in kit[name].pop("wrong")
        key[name].pop("wrong")
    for name, data in public_data.items():
        (entry,) = [entry for entry in loaded if entry.name == name]
        assert entry.public_judging_data is None and _same_data(entry.judging_data(), data)  # only the public data
        ours, theirs = kit.pop(name), key.pop(name)
        assert ours["blank"] == theirs["blank"]
        for run in ("wrong", "oracle"):
            assert ours[run].split("]")[0] == theirs[run].split("]")[0] == "[failed"
            assert f"\n    ({data['note']})\n" in ours[run] and data["note"] not in theirs[run]
        assert f"loss on {data['what']}, measured by the judge" in ours["oracle"]
        assert "loss on the held-out entries G, measured by the judge" in theirs["oracle"]
    assert kit == key


def _untrained(entry, case) -> list[np.ndarray]:
    """The parameters of chapter 15's model as built, untrained (for a judge that loads them)."""
    module = importlib.import_module(f"grading.exercises.{entry.chapter}")
    minitorch.manual_seed(0)
    return [value.numpy().copy() for value in module.CharTransformer(int(case[1])).state_dict().values()]


def _same_data(one: dict, other: dict) -> bool:
    return one.keys() == other.keys() and all(
        np.array_equal(one[key], other[key]) if isinstance(other[key], np.ndarray) else one[key] == other[key]
        for key in other
    )


def _chapter_module(tmp_path, source: str):
    path = tmp_path / "chapter_fixture.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("chapter_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_rule_ships_with_its_helpers_but_never_with_a_reference_or_the_key_s_files(tmp_path):
    dist = _dist()

    module = _chapter_module(tmp_path, (
        "from pathlib import Path\nimport numpy as np\n\nLIMIT = 2.0\nDATA = Path(__file__).parent / 'held_out.txt'\n\n"
        "def _reference(x):\n    return np.tanh(x)\n\n"
        "def _helper(x):\n    return float(np.abs(x).max())\n\n"
        "def clean_rule(answer):\n    return None if _helper(answer) <= LIMIT else 'too large'\n\n"
        "def judge_with_reference(outputs, case):\n    return _reference(outputs[0])\n\n"
        "def judge_with_files(outputs, case):\n    return DATA.read_text()\n"
    ))  # fmt: skip
    references = {id(module._reference): "fixture.tanh"}
    statements = dist.rule_statements(module, module.clean_rule, references)
    source = dist.rules_module("fixture", module, {"clean_rule": statements})
    names = {}
    exec(compile(source, "<rules>", "exec"), names)
    assert names["clean_rule"](names["np"].ones(3)) is None and names["clean_rule"](3 * names["np"].ones(3))
    assert "_reference" not in source and "DATA" not in source
    with pytest.raises(dist.Unshippable, match="_reference, the reference of fixture.tanh"):
        dist.rule_statements(module, module.judge_with_reference, references)
    with pytest.raises(dist.Unshippable, match=r"DATA, which reads the answer key's own files \(__file__\)"):
        dist.rule_statements(module, module.judge_with_files, references)
    with pytest.raises(dist.Unshippable, match="not a top-level function"):
        dist.rule_statements(module, lambda answer: None, references)
