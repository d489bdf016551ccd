"""The exercise registry: what each graded exercise is called, how it is checked, and its public cases.

An exercise is registered once, in ``grading/exercises/<chapter>.py``, under a name that starts with
its chapter (``"ch02.linear_forward"``). The entry holds

* ``function``: the name of the learner's function in the notebook (``"linear_forward"``);
* ``reference``: a function from minitorch or NumPy that computes the right answer. Expected values
  are always *computed* from it, never written down, so no literal answer ships with the kit;
* ``public``: the public cases, each a tuple of positional arguments (NumPy arrays, numbers or None).
  Arrays become minitorch tensors before the call unless ``input_type="numpy"``.

Hidden cases are not here: they live only in the instructor's source notebook, between
``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``, as a ``check_hidden(...)`` call (see
:mod:`grading.checks`). The learner's edition has them removed, and the batch grader reads them from
the source notebook.

Two homes, one entry. In the repository (and with the instructor's part installed) an exercise comes from
its chapter module in ``grading/exercises/``, the answer key. The learner's kit (``make learner-dist``) has
no answer key: there the same entry is read from its *public description* (:mod:`grading.public`, written
at build time from this registry), which holds the public cases and the reference's answers to them as
data, and no reference; ``reference`` is then None and ``answers`` holds those answers.

Example (the whole of ``grading/exercises/demo.py``)::

    exercise(
        "demo.relu",
        function="relu",
        reference=lambda x: minitorch.relu(x),
        public=[(randn(3, 4, seed=0),)],
        hint="Keep the positive entries and replace the others by 0.",
    )
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Case = tuple  # the positional arguments of one call


@dataclass(frozen=True)
class Exercise:
    name: str
    function: str
    reference: Callable[..., Any] | None  # None in the learner's kit, which has no answer key
    public: tuple[Case, ...] = ()
    input_type: str = "tensor"  # "tensor": arrays are passed as minitorch tensors; "numpy": as arrays
    output_type: str = "tensor"  # "tensor": the answer must be a minitorch Tensor; "any": tensor or array
    rtol: float = 1e-5
    atol: float = 1e-6
    check_dtype: bool = True
    hint: str = ""
    extra: dict = field(default_factory=dict)
    # dotted names of the minitorch pieces the learner rebuilds in this exercise: the batch grader
    # replaces them by a function that raises NotImplementedError while this exercise's calls run
    withheld: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()  # steps revealed one at a time by grading.hint: idea, formula, code sketch
    labels: tuple[str, ...] = ()  # what each public case tests, named in the report when it fails
    outputs: tuple[str, ...] = ()  # names of the answer's outputs, for "output 2 (bias): wrong values"
    answer_check: Callable[[Any], str | None] | None = None  # the raw answer's properties (a leaf, ...)
    mutates_inputs: bool = False  # True only where writing into an input is the point of the exercise
    at_most: bool = False  # the reference gives bounds to reach (a loss), not values to equal
    text_outputs: tuple[int, ...] = ()  # positions (from 1) of outputs holding texts (grading.compare.encode_texts)
    # judge(outputs, case) -> a sentence when the answer fails, else None: the grader measures the answer itself
    # (a trained model's loss on text the learner's code never sees) instead of comparing it with the reference's
    judge: Callable[..., str | None] | None = None
    # judging_data() -> {"what": text, "note": text (optional), array names: arrays}: what the judge measures on,
    # handed to it as judge(outputs, case, data). In the answer key it may read the instructor's own files (held-out
    # text); the learner's kit holds public_judging_data()'s instead, computed when the kit is built (a validation
    # split, never held-out text), and its check prints the data's "note" with each verdict
    judging_data: Callable[[], dict] | None = None
    public_judging_data: Callable[[], dict] | None = None
    # True where the text asks for no Python loop: the function's own code may hold no for, while, comprehension
    # or map (read from its source, outside its run: grading.checks.python_loop)
    no_python_loop: bool = False
    # The learner's kit only (reference None): the reference's answers to the public cases, as arrays, one list per
    # case, computed when the kit was built (grading.public)
    answers: tuple[tuple[np.ndarray, ...], ...] = ()
    # The learner's kit only: why its check cannot judge this exercise ("" when it can), said instead of a verdict
    unchecked: str = ""
    # How long one graded call may take, where the exercise's work is long (a training run): the batch grader allows
    # the larger of this and its per-call limit (--step-timeout), and adds the difference to the submission's time
    seconds: float = 0.0

    @property
    def chapter(self) -> str:
        return self.name.split(".", 1)[0]


_EXERCISES: dict[str, Exercise] = {}


def exercise(
    name: str,
    *,
    function: str,
    reference: Callable[..., Any],
    public: Sequence[Case] = (),
    input_type: str = "tensor",
    output_type: str = "tensor",
    rtol: float = 1e-5,
    atol: float = 1e-6,
    check_dtype: bool = True,
    hint: str = "",
    withheld: Sequence[str] = (),
    hints: Sequence[str] = (),
    labels: Sequence[str] = (),
    outputs: Sequence[str] = (),
    answer_check: Callable[[Any], str | None] | None = None,
    mutates_inputs: bool = False,
    at_most: bool = False,
    text_outputs: Sequence[int] = (),
    judge: Callable[..., str | None] | None = None,
    no_python_loop: bool = False,
    judging_data: Callable[[], dict] | None = None,
    public_judging_data: Callable[[], dict] | None = None,
    seconds: float = 0.0,
) -> Exercise:
    """Register an exercise (see the module docstring); returns the entry.

    ``hints`` are steps (the idea, the formula, a code sketch that still leaves the work to do) shown one
    at a time by :func:`grading.hint`; ``labels`` say what each public case tests; ``outputs`` name the
    answer's outputs; ``answer_check(answer)`` returns a sentence when the raw answer breaks a rule that
    its values cannot show (a tensor still attached to the graph, say), else None. It runs in the
    learner's checks and in ``check_hidden``, as does the rule that a function leaves its inputs
    unchanged (unless ``mutates_inputs``: writing into an input is the exercise). With ``at_most``, the
    reference's answer is a bound and each output passes when it is at most that bound (plus ``atol``):
    a validation loss that a training run must reach, say, where no two correct runs agree exactly.
    ``text_outputs`` lists the outputs (from 1) that hold texts encoded by ``grading.compare.encode_texts``
    (parameter names): a wrong one is reported as the two lists of texts.
    With ``judge``, nothing is compared with the reference: ``judge(outputs, case)`` (the answer's outputs as
    NumPy arrays, and the case's arguments) measures the answer and returns a sentence when it fails, else None.
    The instant check and the batch grader both call it, outside the learner's code: a training exercise
    returns its trained parameters, and the judge computes the loss itself on text the learner's code never
    sees. The reference is then a correct answer that the tests judge, never called while grading.
    With ``judging_data`` too, the judge is called ``judge(outputs, case, judging_data())``: the data it measures on
    (``{"what": "the held-out entries G", "ids": ...}``), which may be the instructor's own files; the learner's
    kit cannot have those, and ships ``public_judging_data()`` in their place (public data, a validation split, with
    a ``"note"`` its check prints so that the learner knows the grade is measured on other data).
    ``seconds`` is how long one graded call may take when that is longer than the batch grader's per-call limit (a
    training run that takes 20 s on a quiet machine): a correct answer must not fail because the instructor's
    machine was busy.

    The learner's kit (``make learner-dist``) copies ``answer_check`` and ``judge`` into the exercise's public
    description with the chapter's helpers, constants and imports they name (``tools/dist.py``): write them as
    top-level functions that use minitorch, NumPy and grading's learner side, never a reference nor a file found
    through ``__file__``. An ``answer_check`` that cannot be copied stops the build; a ``judge`` that cannot is left
    to the grader, and the kit's check says so instead of a verdict.
    """
    if "." not in name or not all(part.isidentifier() for part in name.split(".")):
        raise ValueError(f"exercise names look like 'chapter.exercise', got {name!r}")
    if input_type not in ("tensor", "numpy"):
        raise ValueError(f"input_type must be 'tensor' or 'numpy', got {input_type!r}")
    if output_type not in ("tensor", "any"):
        raise ValueError(f"output_type must be 'tensor' or 'any', got {output_type!r}")
    cases = tuple(validate_case(case, f"public case {index + 1} of {name}") for index, case in enumerate(public))
    if not all(isinstance(piece, str) and piece.startswith("minitorch.") for piece in withheld):
        raise ValueError(f"withheld pieces are dotted names in minitorch, got {withheld!r}")
    if (judging_data is not None or public_judging_data is not None) and judge is None:
        raise ValueError(f"{name}: judging_data is what a judge measures on: give the judge too")
    if judge is not None and at_most:
        raise ValueError(f"{name}: an exercise is judged (judge) or compared with bounds (at_most), not both")
    if not seconds >= 0:
        raise ValueError(f"{name}: seconds is how long one call may take, at least 0, got {seconds!r}")
    if labels and len(labels) != len(cases):
        raise ValueError(f"{name}: {len(labels)} labels for {len(cases)} public cases")
    entry = Exercise(
        name, function, reference, cases, input_type, output_type, rtol, atol, check_dtype, hint.strip(),
        withheld=tuple(withheld), hints=tuple(step.strip() for step in hints), labels=tuple(labels),
        outputs=tuple(outputs), answer_check=answer_check, mutates_inputs=mutates_inputs, at_most=at_most,
        text_outputs=tuple(text_outputs),
        judge=judge, no_python_loop=no_python_loop, judging_data=judging_data,
        public_judging_data=public_judging_data, seconds=float(seconds),
    )  # fmt: skip
    _EXERCISES[name] = entry
    return entry


def register(entry: Exercise) -> Exercise:
    """Register an entry built elsewhere (the learner's kit reads them from :mod:`grading.public`)."""
    _EXERCISES[entry.name] = entry
    return entry


def _load_chapter(chapter: str) -> None:
    """Register ``chapter``'s exercises: from the answer key where it is installed, else from the public
    description the learner's kit ships (none inside the grader's sandbox, which has neither)."""
    if not chapter.isidentifier():
        return
    try:
        importlib.import_module(f"grading.exercises.{chapter}")
        return
    except ModuleNotFoundError as error:
        if error.name not in (f"grading.exercises.{chapter}", "grading.exercises"):
            raise
    try:
        from grading import public
    except ImportError:
        return
    public.load(chapter)


def get(name: str) -> Exercise:
    """The registered exercise ``name``, importing ``grading.exercises.<chapter>`` on first use (or, in the learner's
    kit, reading the chapter's public description)."""
    if name not in _EXERCISES:
        _load_chapter(name.split(".", 1)[0])
    if name not in _EXERCISES:
        known = ", ".join(sorted(_EXERCISES)) or "none loaded"
        raise KeyError(f"no exercise named {name!r} is registered (known: {known})")
    return _EXERCISES[name]


def chapter_exercises(chapter: str) -> list[Exercise]:
    """Every registered exercise of ``chapter``, in registration order."""
    _load_chapter(chapter)
    return [entry for entry in _EXERCISES.values() if entry.chapter == chapter]


# -- case inputs ------------------------------------------------------------------------------
def randn(*shape: int, seed: int, dtype: str = "float32", scale: float = 1.0) -> np.ndarray:
    """Standard-normal inputs from a fixed seed: the same numbers on every machine and every run."""
    return np.asarray(np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)  # 0-d too


def validate_case(case, where: str) -> Case:
    """A case is a tuple of arguments, each a NumPy array (numeric or bool), a number, a bool or None."""
    if not isinstance(case, tuple):
        raise TypeError(f"{where}: a case is a tuple of arguments, got {type(case).__name__}")
    for argument in case:
        if isinstance(argument, np.ndarray):
            if argument.dtype.kind not in "biufc":
                raise TypeError(f"{where}: array arguments must be numeric or bool, got dtype {argument.dtype}")
        elif argument is not None and not isinstance(argument, (bool, int, float)):
            raise TypeError(f"{where}: arguments are arrays, numbers or None, got {type(argument).__name__}")
    return case
