"""The public description of the exercises: what the learner's kit checks with, in place of the answer key.

The learner's kit (``make learner-dist``, see ``tools/dist.py``) ships no ``grading.exercises``: no reference
solution, no hidden case. Its instant ``check`` reads each chapter's exercises from three files that the build
writes here from the registry, so a new exercise is picked up by the next build:

* ``<chapter>.json``: per exercise, every field of :class:`grading.registry.Exercise` that is data (the learner's
  function, the tolerances, the hints, the labels, the pieces withheld while it is checked...), its public cases
  with each array named by a key of the ``.npz``, and the reference's answers to those cases, named alike;
* ``<chapter>.npz``: those arrays (read with ``allow_pickle=False``);
* ``<chapter>_rules.py``, when an exercise has a rule that is code (``answer_check``, ``judge``): the rule's own
  source and the chapter's helpers it calls, copied from the chapter module at build time. The build refuses to
  copy a helper that is an exercise's reference or that reads the answer key's files; such an exercise says
  ``unchecked`` (why its check cannot judge it here), and the batch grader judges it.

A judge that measures on the instructor's data (``judging_data``: chapter 15's held-out text) ships with the
exercise's *public* judging data instead (``public_judging_data``, a validation split, computed at build time: its
arrays in the ``.npz``, its texts in the ``.json``); the kit's check prints the data's note with its verdict, so the
learner knows that the grade is measured on other data.

The answers are the reference's, computed when the kit is built: the same arrays the repository's check computes
on the fly, compared by the same code (:func:`grading.checks.run_case`), so both give the same verdict on the
public cases. Hidden cases have no answer here: ``check_hidden`` needs the instructor's part.

Repository checkouts have only this file: there the answer key is installed and :mod:`grading.registry` reads it.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

from grading import registry

FOLDER = Path(__file__).resolve().parent
FORMAT = 1  # bumped when the layout of the files changes

# Fields of Exercise that are data, copied as they are (tuples become lists in JSON and back)
PLAIN_FIELDS = (
    "function", "input_type", "output_type", "rtol", "atol", "check_dtype", "hint", "withheld", "hints", "labels",
    "outputs", "mutates_inputs", "at_most", "text_outputs", "no_python_loop", "extra", "seconds",
)  # fmt: skip
RULES = ("answer_check", "judge")  # fields of Exercise that are code: shipped in <chapter>_rules.py, or not at all
# Fields of Exercise that are data a judge measures on: judging_data ships as public_judging_data's values, and
# public_judging_data itself (the answer key's function) never ships
JUDGING = ("judging_data", "public_judging_data")


def chapters() -> list[str]:
    """The chapters whose public description ships here."""
    return sorted(path.stem for path in FOLDER.glob("*.json"))


def load(chapter: str) -> list[registry.Exercise]:
    """Register ``chapter``'s exercises from its public description (none when it ships none)."""
    path = FOLDER / f"{chapter}.json"
    if not chapter.isidentifier() or not path.is_file():
        return []
    description = json.loads(path.read_text(encoding="utf-8"))
    if description.get("format") != FORMAT:
        raise RuntimeError(f"{path} is in format {description.get('format')}, this kit reads format {FORMAT}")
    with np.load(FOLDER / f"{chapter}.npz", allow_pickle=False) as stored:
        arrays = {key: stored[key] for key in stored.files}
    rules = _rules(chapter) if description.get("rules") else None
    entries = []
    for item in description["exercises"]:
        fields = {name: _from_json(item[name]) for name in PLAIN_FIELDS}
        for name in RULES:
            fields[name] = getattr(rules, item[name]) if item.get(name) else None
        entry = registry.Exercise(
            item["name"],
            reference=None,
            public=tuple(decode_case(case, arrays) for case in item["public"]),
            answers=tuple(tuple(arrays[key] for key in keys) for keys in item["answers"]),
            unchecked=item.get("unchecked", ""),
            judging_data=_stored_data(item["judging_data"], arrays) if item.get("judging_data") else None,
            **fields,
        )
        entries.append(registry.register(entry))
    return entries


def _rules(chapter: str):
    """``<chapter>_rules.py`` of this folder as the module ``grading.public.<chapter>_rules``."""
    name = f"{__name__}.{chapter}_rules"
    spec = importlib.util.spec_from_file_location(name, FOLDER / f"{chapter}_rules.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # as an import would: tracebacks and pickling find it
    spec.loader.exec_module(module)
    return module


def _stored_data(encoded: dict, arrays: dict[str, np.ndarray]):
    """The stored judging data as a ``judging_data`` function: a fresh dict on each call."""

    def judging_data() -> dict:
        return decode_data(encoded, arrays)

    return judging_data


def _from_json(value):
    return tuple(value) if isinstance(value, list) else value


# -- the encoding, used by the build (tools/dist.py) and read back above -----------------------------------------
def encode_case(case: tuple, prefix: str, arrays: dict[str, np.ndarray]) -> list[dict]:
    """A case as JSON: each array becomes ``{"array": key}`` with the array stored under ``arrays[key]``."""
    encoded = []
    for position, argument in enumerate(case):
        if isinstance(argument, np.ndarray):
            key = f"{prefix}_{position}"
            arrays[key] = argument
            encoded.append({"array": key})
        else:  # a number, a bool or None (registry.validate_case allows nothing else)
            encoded.append({"value": argument})
    return encoded


def decode_case(encoded: list[dict], arrays: dict[str, np.ndarray]) -> tuple:
    return tuple(arrays[item["array"]] if "array" in item else item["value"] for item in encoded)


def encode_data(data: dict, prefix: str, arrays: dict[str, np.ndarray]) -> dict:
    """Judging data as JSON: texts as they are, arrays (numeric) stored under ``arrays[key]``."""
    encoded: dict = {"texts": {}, "arrays": {}}
    for name, value in data.items():
        if isinstance(value, str):
            encoded["texts"][name] = value
        elif isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
            key = f"{prefix}_{name}"
            arrays[key] = value
            encoded["arrays"][name] = key
        else:
            raise TypeError(f"judging data holds texts and numeric arrays, got {name}: {type(value).__name__}")
    return encoded


def decode_data(encoded: dict, arrays: dict[str, np.ndarray]) -> dict:
    return {**encoded["texts"], **{name: arrays[key] for name, key in encoded["arrays"].items()}}
