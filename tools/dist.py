"""Build the two distributions of the kit: the learner's (``make learner-dist``) and the instructor's part.

``python tools/dist.py learner dist/learner`` writes what a class hands to its learners:

* ``minitorch_kit-<version>-py3-none-any.whl``: ``minitorch``, ``widgets`` and the learner's side of ``grading``
  (the instant ``check``, ``hint`` and ``summary``, the review questions, the learner's own library with ``use``,
  the withholding) with the *public description* of every exercise (:mod:`grading.public`): its public cases and
  the reference's answers to them, computed here, as data. No reference solution, no hidden case, no
  ``grading.exercises``, no batch grader;
* ``notebooks/``: the learner's edition of the course (``notebooks/release``), with no solution and no hidden test;
* ``README.md``: how to install it, and ``kit.json``: what the build put in (and what it left to the grader).

``python tools/dist.py instructor dist/instructor`` writes ``minitorch_kit_instructor-<version>-py3-none-any.whl``:
the answer key (``grading.exercises`` with its held-out data), the batch grader ``minitorch-grade`` and its
sandbox; it installs beside the learner's wheel and requires it.

Which files of ``grading`` are the learner's is decided here (:func:`learner_file`): a file is the instructor's
unless listed, so a new module stays out of the learner's kit until someone decides it belongs there. Every
chapter of ``grading/exercises`` is described, so a new exercise is in the next build. The wheels are built by
pip from a staged copy (no network: ``--no-index --no-build-isolation``); the repository itself is not changed.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import importlib
import inspect
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # this checkout's packages, whatever the environment's install points at

import numpy as np  # noqa: E402

from grading import checks, public, registry  # noqa: E402

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, as pip vendors it (the kit's install has pip)
    from pip._vendor import tomli as tomllib

# The learner's side of grading: what a learner's notebook imports, and what those import. The grader's sandbox
# binds the same files (grading/sandbox.py LEARNER_GRADING_FILES), less its runner; tests/grading/test_learner_dist.py
# checks that the two lists agree.
LEARNER_GRADING = (
    "__init__.py", "checks.py", "compare.py", "registry.py", "devices.py", "withhold.py", "review.py",
    "review_questions/", "library/", "public/",
)  # fmt: skip
SKIPPED = ("__pycache__", ".ipynb_checkpoints", ".pytest_cache")
# What the learner's kit says where its check cannot judge an exercise (the build log says why)
UNCHECKED = (
    "this kit has no judge for it (the instructor's part judges it, and minitorch-grade grades it); what it prints "
    "while it runs is yours to read"
)


def learner_file(relative: str) -> bool:
    """Whether ``grading/<relative>`` belongs to the learner's kit."""
    return any(relative == entry or (entry.endswith("/") and relative.startswith(entry)) for entry in LEARNER_GRADING)


# -- the public description of each chapter -------------------------------------------------------------------
def chapter_names() -> list[str]:
    """Every chapter module of the answer key (``ch00`` ... and ``demo``), whatever exercises it registers."""
    folder = ROOT / "grading" / "exercises"
    return sorted(path.stem for path in folder.glob("*.py") if not path.stem.startswith("_"))


class Unshippable(Exception):
    """A rule (``answer_check``, ``judge``) that cannot be copied into the learner's kit, and why."""


def describe_chapter(chapter: str, references: dict[int, str]) -> tuple[dict, dict, str | None, list[str]]:
    """``(description, arrays, rules source, notes)`` of ``chapter``: see :mod:`grading.public`.

    ``references`` maps ``id(reference)`` to its exercise's name, for every chapter: code that is a reference is
    never copied. ``notes`` say which rule could not be shipped and why."""
    module = importlib.import_module(f"grading.exercises.{chapter}")
    arrays: dict[str, np.ndarray] = {}
    rules: dict[str, str] = {}  # the name of each shipped rule -> the statements it needs
    notes: list[str] = []
    items = []
    for number, entry in enumerate(registry.chapter_exercises(chapter)):
        item = {"name": entry.name}
        for name in public.PLAIN_FIELDS:
            item[name] = getattr(entry, name)
        item["public"] = [
            public.encode_case(case, f"e{number}_c{index}", arrays) for index, case in enumerate(entry.public)
        ]
        unchecked = ""
        for rule in public.RULES:
            function = getattr(entry, rule)
            item[rule] = None
            if function is None:
                continue
            try:
                rules[function.__name__] = rule_statements(module, function, references)
                item[rule] = function.__name__
            except Unshippable as why:
                notes.append(f"{entry.name}: its {rule} is not shipped: {why}")
                if rule == "judge":
                    unchecked = UNCHECKED
                # an answer_check left out would let the kit show green where the grader scores 0: refuse
                else:
                    raise SystemExit(f"{entry.name}: its answer_check cannot ship to learners: {why}") from None
        item["judging_data"] = None
        if entry.judging_data is not None and not unchecked:
            if entry.public_judging_data is None:  # only the instructor's data to measure on: the grader's alone
                notes.append(f"{entry.name}: its judge measures on the instructor's data (judging_data) and no "
                             "public_judging_data is given")  # fmt: skip
                unchecked = UNCHECKED
            else:  # the public data in its place, said with each verdict (its "note")
                data = entry.public_judging_data()
                if not data.get("what") or not data.get("note"):
                    raise SystemExit(f"{entry.name}: public_judging_data must say what it is and give the note the "
                                     "kit's check prints (the grade is measured on other data)")  # fmt: skip
                item["judging_data"] = public.encode_data(data, f"e{number}_j", arrays)
        item["unchecked"] = unchecked
        answers = []
        for index, case in enumerate(entry.public):
            keys = []
            if entry.judge is None:
                for position, array in enumerate(checks.expected_outputs(entry, case)):
                    key = f"e{number}_a{index}_{position}"
                    arrays[key] = np.asarray(array)
                    keys.append(key)
            answers.append(keys)
        item["answers"] = answers
        items.append(item)
    for key, array in arrays.items():
        if array.dtype.hasobject:
            raise SystemExit(f"{chapter}: array {key} holds Python objects; the kit stores numbers only")
    description = {"format": public.FORMAT, "chapter": chapter, "exercises": items, "rules": bool(rules)}
    source = rules_module(chapter, module, rules) if rules else None
    return description, arrays, source, notes


def _top_level(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    """Each name the module's top level binds -> the statements that bind it (definitions, assignments, imports)."""
    bound: dict[str, list[ast.stmt]] = {}
    for statement in tree.body:
        names: list[str] = []
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [statement.name]
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names = [node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)]
        elif isinstance(statement, ast.Import):
            names = [alias.asname or alias.name.split(".")[0] for alias in statement.names]
        elif isinstance(statement, ast.ImportFrom):
            names = [alias.asname or alias.name for alias in statement.names]
        for name in names:
            bound.setdefault(name, []).append(statement)
    return bound


def rule_statements(module, function, references: dict[int, str]) -> list[ast.stmt]:
    """The top-level statements of ``module`` that ``function`` needs: its own definition and, transitively, the
    helpers, constants and imports it names. Refused (:class:`Unshippable`) when one of them is an exercise's
    reference, reads ``__file__`` (the answer key's own files), or when the rule is not a top-level function."""
    name = getattr(function, "__name__", "")
    if getattr(module, name, None) is not function or not inspect.isfunction(function):
        raise Unshippable(f"{name or function!r} is not a top-level function of {module.__name__}")
    source = inspect.getsource(module)
    bound = _top_level(ast.parse(source))
    needed: dict[int, ast.stmt] = {}
    problems: list[str] = []  # every one, so that a chapter's author fixes them in one go
    pending = [name]
    seen = set()
    while pending:
        current = pending.pop()
        if current in seen or current not in bound:
            continue
        seen.add(current)
        value = getattr(module, current, None)
        if id(value) in references:
            problems.append(f"it needs {current}, the reference of {references[id(value)]}")
        for statement in bound[current]:
            needed[statement.lineno] = statement
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                continue
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and node.id == "__file__":
                    problems.append(f"it needs {current}, which reads the answer key's own files (__file__)")
                if isinstance(node, ast.Name) and not hasattr(builtins, node.id):
                    pending.append(node.id)
    for statement in needed.values():
        if isinstance(statement, ast.ImportFrom) and (statement.module or "").startswith("grading.exercises"):
            problems.append(f"it imports from {statement.module}, the answer key")
    if problems:
        raise Unshippable("; ".join(dict.fromkeys(problems)))
    return [needed[line] for line in sorted(needed)]


def rules_module(chapter: str, module, rules: dict[str, list[ast.stmt]]) -> str:
    """The source of ``grading/public/<chapter>_rules.py``: the shipped rules and what they need, in file order."""
    source = inspect.getsource(module)
    lines = source.splitlines()
    statements = {statement.lineno: statement for needed in rules.values() for statement in needed}
    parts = [
        f'"""The rules of {chapter}\'s exercises that are code ({", ".join(sorted(rules))}), copied from the answer\n'
        f"key's grading/exercises/{chapter}.py by tools/dist.py with the helpers they call (no reference, no\n"
        'hidden case). Generated: edit the chapter module, not this file."""\n\nfrom __future__ import annotations\n'
    ]
    for line in sorted(statements):
        statement = statements[line]
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            continue
        decorators = getattr(statement, "decorator_list", [])
        first = min([line, *(decorator.lineno for decorator in decorators)])
        parts.append("\n".join(lines[first - 1 : statement.end_lineno]) + "\n")
    return "\n\n".join(parts)


def write_public(folder: Path) -> dict:
    """Write every chapter's public description into ``folder`` (the staged ``grading/public``); return the
    build's record of it (chapters, exercises, what was left to the grader)."""
    chapters = chapter_names()
    for chapter in chapters:
        registry.chapter_exercises(chapter)
    references = {id(entry.reference): name for name, entry in registry._EXERCISES.items() if entry.reference}
    record = {"chapters": {}, "left_to_the_grader": [], "judged_on_public_data": []}
    for chapter in chapters:
        description, arrays, source, notes = describe_chapter(chapter, references)
        (folder / f"{chapter}.json").write_text(json.dumps(description, indent=1, allow_nan=True) + "\n", "utf-8")
        np.savez_compressed(folder / f"{chapter}.npz", **arrays)
        if source is not None:
            (folder / f"{chapter}_rules.py").write_text(source, encoding="utf-8")
        record["chapters"][chapter] = [item["name"] for item in description["exercises"]]
        record["left_to_the_grader"].extend(notes)
        record["judged_on_public_data"].extend(
            f"{item['name']}: {item['judging_data']['texts']['what']}"
            for item in description["exercises"] if item["judging_data"]
        )  # fmt: skip
    return record


# -- staging and wheels ---------------------------------------------------------------------------------------
def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _copy_tree(source: Path, target: Path, keep=lambda relative: True) -> None:
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source).as_posix()
        if any(part in SKIPPED for part in path.relative_to(source).parts) or path.suffix == ".pyc":
            continue
        if path.is_file() and keep(relative):
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / relative)


def _toml(table: dict) -> str:
    """A small TOML writer for the staged pyproject.toml: strings, lists and nested tables (JSON's quoting is
    TOML's for basic strings)."""
    lines: list[str] = []

    def write(prefix: str, values: dict) -> None:
        plain = {key: value for key, value in values.items() if not isinstance(value, dict)}
        nested = {key: value for key, value in values.items() if isinstance(value, dict)}
        if prefix:
            lines.append(f"\n[{prefix}]")
        for key, value in plain.items():
            lines.append(f"{json.dumps(key)} = {json.dumps(value, ensure_ascii=False)}")
        for key, value in nested.items():
            write(f"{prefix}.{json.dumps(key)}" if prefix else json.dumps(key), value)

    write("", table)
    return "\n".join(lines).lstrip() + "\n"


def _build_wheel(stage: Path, out: Path) -> Path:
    before = set(out.glob("*.whl"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet",
               "--wheel-dir", str(out), str(stage)]  # fmt: skip
    subprocess.run(command, check=True, cwd=stage)
    (wheel,) = set(out.glob("*.whl")) - before
    return wheel


def stage_learner(stage: Path) -> dict:
    """The learner's package tree in ``stage``; returns the build's record of the public descriptions."""
    project = _project()
    for package in ("minitorch", "widgets"):
        _copy_tree(ROOT / package, stage / package)
    _copy_tree(ROOT / "grading", stage / "grading", learner_file)
    for extra in ("jupyter-config",):
        _copy_tree(ROOT / extra, stage / extra)
    shutil.copy2(ROOT / "README.md", stage / "README.md")
    record = write_public(stage / "grading" / "public")
    meta = project["project"]
    extras = {name: deps for name, deps in meta["optional-dependencies"].items() if name not in ("test", "instructor")}
    setuptools = project["tool"]["setuptools"]
    package_data = {
        name: files for name, files in setuptools["package-data"].items() if not name.startswith("grading.exercises")
    }
    package_data["grading.public"] = ["*.json", "*.npz"]
    data_files = dict(setuptools.get("data-files", {}))
    data_files["share/jupyter/lab/settings"] = ["jupyter-config/lab/overrides.json"]  # what `make lab` installs
    table = {
        "build-system": project["build-system"],
        "project": {
            "name": meta["name"], "version": meta["version"], "description": meta["description"],
            "readme": "README.md", "requires-python": meta["requires-python"], "classifiers": meta["classifiers"],
            "dependencies": meta["dependencies"], "optional-dependencies": extras,
        },
        "tool": {"setuptools": {
            "packages": {"find": {"where": ["."], "include": ["minitorch*", "widgets*", "grading*"]}},
            "package-data": package_data, "data-files": data_files,
        }},
    }  # fmt: skip
    (stage / "pyproject.toml").write_text(_toml(table), encoding="utf-8")
    return record


def stage_instructor(stage: Path) -> None:
    """The instructor's part in ``stage``: every file of ``grading`` that is not the learner's."""
    project = _project()
    _copy_tree(ROOT / "grading", stage / "grading", lambda relative: not learner_file(relative))
    meta = project["project"]
    readme = (
        "# minitorch-kit-instructor\n\nThe instructor's part of the minitorch kit: the answer key (reference "
        "solutions, held-out data; hidden cases stay in the source notebooks) and the batch grader "
        "`minitorch-grade` with its sandbox. It installs beside `minitorch-kit`, the learner's kit.\n"
    )
    (stage / "README.md").write_text(readme, encoding="utf-8")
    packages = sorted(
        {"grading", *(".".join(path.relative_to(stage).parent.parts) for path in stage.glob("grading/**/*.py"))}
    )
    table = {
        "build-system": project["build-system"],
        "project": {
            "name": f"{meta['name']}-instructor", "version": meta["version"], "readme": "README.md",
            "description": "The instructor's part of the minitorch kit: answer key and batch grader (minitorch-grade)",
            "requires-python": meta["requires-python"],
            "dependencies": [f"{meta['name']}=={meta['version']}"],
            "optional-dependencies": {"nbgrader": meta["optional-dependencies"]["instructor"]},
            "scripts": meta["scripts"],
        },
        "tool": {"setuptools": {
            "packages": packages,
            "package-data": {name: files for name, files in project["tool"]["setuptools"]["package-data"].items()
                             if name.startswith("grading.exercises")},
        }},
    }  # fmt: skip
    (stage / "pyproject.toml").write_text(_toml(table), encoding="utf-8")


def _clean(out: Path, names) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for pattern in names:
        for path in out.glob(pattern):
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def build_learner(out: Path) -> dict:
    """``out``: the learner's wheel, the learner's notebooks, README.md and kit.json."""
    meta = _project()["project"]
    _clean(out, ["minitorch_kit-*.whl", "notebooks", "README.md", "kit.json"])
    with tempfile.TemporaryDirectory(prefix="minitorch-learner-") as folder:
        record = stage_learner(Path(folder))
        wheel = _build_wheel(Path(folder), out)
    _copy_tree(ROOT / "notebooks" / "release", out / "notebooks")
    record = {"wheel": wheel.name, "notebooks": "notebooks/", **record}
    (out / "kit.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    (out / "README.md").write_text(
        f"# The minitorch course, learner's kit ({meta['version']})\n\n"
        "Install the kit into a virtual environment and open the course:\n\n"
        "```sh\npython3 -m venv .venv\n"
        f".venv/bin/pip install --find-links . '{meta['name']}[deploy,distributed]'   # the rest: your package index\n"
        ".venv/bin/jupyter lab notebooks\n```\n\n"
        "(`deploy` brings ONNX for chapter 14, `distributed` brings MPI, whose processes chapter 12 starts.)\n\n"
        "Each exercise's `check(...)` runs its public cases; `hint(...)` shows hints step by step. The grade comes "
        "from your instructor's grader, which runs hidden cases as well.\n",
        encoding="utf-8",
    )
    return record


def build_instructor(out: Path) -> Path:
    _clean(out, ["minitorch_kit_instructor-*.whl"])
    with tempfile.TemporaryDirectory(prefix="minitorch-instructor-") as folder:
        stage_instructor(Path(folder))
        return _build_wheel(Path(folder), out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=("learner", "instructor"))
    parser.add_argument("out", type=Path, nargs="?")
    arguments = parser.parse_args(argv)
    out = (arguments.out or ROOT / "dist" / arguments.part).resolve()
    if arguments.part == "learner":
        record = build_learner(out)
        count = sum(len(names) for names in record["chapters"].values())
        print(f"{out}: {record['wheel']}, notebooks/ ({count} exercises described, public cases only)")
        for note in record["left_to_the_grader"]:
            print(f"  left to the grader: {note}")
        for note in record["judged_on_public_data"]:
            print(f"  judged in the kit on public data (the grader: on its own): {note}")
    else:
        print(f"{out}: {build_instructor(out).name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
