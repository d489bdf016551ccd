"""Review questions at the end of each chapter: answered in the notebook, with instant feedback.

Each chapter's questions are data, in ``grading/review_questions/chNN.py`` (a list ``QUESTIONS`` of
:func:`choice` and :func:`number` entries); the build (``notebooks/tools/build.py``) adds a "Review
questions" section before the chapter's closing summary that calls :func:`review`. A question's id is
its chapter and position: ``"ch03.q2"`` is the second question of chapter 3.

* ``review("ch03")`` shows the questions as a widget in Jupyter (pick or type an answer, and the
  feedback and explanation appear at once), or as plain text elsewhere (a script, nbclient with
  ``widget=False``), listing the calls to make.
* ``answer("ch03.q2", "b")`` checks one answer and prints the verdict and the explanation; it returns
  True or False.

Review questions are a self-check: they are not graded (nbgrader never sees them, and the batch
grader ignores them), and their explanations are meant to be read, so the answers are no secret.
"""

from __future__ import annotations

import html
import importlib
import math
import random
import re
import zlib
from dataclasses import dataclass, replace

LETTERS = "abcdefgh"


@dataclass(frozen=True)
class Question:
    """One review question: multiple choice (``choices`` and a letter) or a number (with a tolerance)."""

    prompt: str
    explanation: str
    choices: tuple[str, ...] = ()
    correct: str | float = ""  # a letter for a choice, a number otherwise
    rel_tol: float = 0.0  # numbers: accepted relative difference
    abs_tol: float = 0.0  # numbers: accepted absolute difference
    id: str = ""  # "ch03.q2", filled in by questions()

    @property
    def kind(self) -> str:
        return "choice" if self.choices else "number"

    def correct_text(self) -> str:
        if self.kind == "choice":
            index = LETTERS.index(self.correct)
            return f"({self.correct}) {self.choices[index]}"
        return f"{self.correct:g}"

    def judge(self, response) -> tuple[bool | None, str]:
        """(right, message): right is None when the response cannot be read (the message says why)."""
        if self.kind == "choice":
            letter = str(response).strip().lower().strip("()")
            if letter not in LETTERS[: len(self.choices)]:
                return None, f"answer with a letter from a to {LETTERS[len(self.choices) - 1]}"
            return letter == self.correct, ""
        try:
            value = float(str(response).strip().replace(",", "")) if isinstance(response, str) else float(response)
        except (TypeError, ValueError):
            return None, f"answer with a number, got {response!r}"
        if math.isnan(value):
            return None, "answer with a number, got nan"
        return math.isclose(value, float(self.correct), rel_tol=self.rel_tol, abs_tol=self.abs_tol), ""


def choice(prompt: str, choices: list[str], correct: str, explanation: str) -> Question:
    """A multiple-choice question; ``correct`` is the letter of the right choice as written (``"a"``, ``"b"``, ...).

    The learner sees the choices in another order, fixed per question (see :func:`questions`)."""
    if correct not in LETTERS[: len(choices)] or len(choices) < 2:
        raise ValueError(f"correct must be one of the letters of the {len(choices)} choices, got {correct!r}")
    return Question(_clean(prompt), _clean(explanation), tuple(_clean(text) for text in choices), correct)


def number(prompt: str, correct: float, explanation: str, *, rel_tol: float = 1e-6, abs_tol: float = 0.0) -> Question:
    """A question whose answer is a number, accepted within ``rel_tol`` (relative) or ``abs_tol``."""
    return Question(_clean(prompt), _clean(explanation), correct=correct, rel_tol=rel_tol, abs_tol=abs_tol)


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def questions(chapter: str) -> list[Question]:
    """The review questions of ``chapter`` (``"ch03"``), with their ids."""
    if not re.fullmatch(r"ch\d\d", chapter):
        raise ValueError(f"chapters are named like 'ch03', got {chapter!r}")
    try:
        module = importlib.import_module(f"grading.review_questions.{chapter}")
    except ModuleNotFoundError as error:
        if error.name != f"grading.review_questions.{chapter}":
            raise
        raise KeyError(f"chapter {chapter!r} has no review questions (grading/review_questions/{chapter}.py)") from None
    return [_shuffled(entry, f"{chapter}.q{position}") for position, entry in enumerate(module.QUESTIONS, start=1)]


def _shuffled(question: Question, question_id: str) -> Question:
    """The question with its id, and its choices in an order fixed by the id: the right answer is not always
    where its author wrote it, yet every run shows the same letters."""
    if question.kind != "choice":
        return replace(question, id=question_id)
    order = list(range(len(question.choices)))
    random.Random(zlib.crc32(question_id.encode())).shuffle(order)
    correct = LETTERS[order.index(LETTERS.index(question.correct))]
    return replace(question, id=question_id, choices=tuple(question.choices[i] for i in order), correct=correct)


def get(question_id: str) -> Question:
    """The question ``"ch03.q2"``."""
    chapter, _, rest = question_id.partition(".")
    found = {entry.id: entry for entry in questions(chapter)}
    if question_id not in found:
        raise KeyError(f"no review question {question_id!r}; {chapter} has {', '.join(found)}")
    return found[question_id]


def feedback(question: Question, response) -> str:
    """The text shown after an answer: the verdict, then the explanation."""
    right, problem = question.judge(response)
    if right is None:
        return f"Cannot read that answer: {problem}."
    if right:
        return f"Right. {question.explanation}"
    return f"Not quite. {question.explanation}"


def answer(question_id: str, response) -> bool:
    """Check one answer (a letter for a choice, a number otherwise); prints the feedback, returns True if right."""
    question = get(question_id)
    print(f"{question_id}: {feedback(question, response)}")
    return question.judge(response)[0] is True


def as_text(chapter: str) -> str:
    """Every question of ``chapter`` as plain text, with the call that answers it."""
    lines = [f'Review questions, {chapter} (not graded): answer each with answer("<id>", <your answer>).', ""]
    for question in questions(chapter):
        lines.append(f"{question.id}. {question.prompt}")
        for letter, text in zip(LETTERS, question.choices):
            lines.append(f"    ({letter}) {text}")
        example = '"<letter>"' if question.kind == "choice" else "<number>"
        lines.append(f'    -> answer("{question.id}", {example})')
        lines.append("")
    return "\n".join(lines).rstrip()


def review(chapter: str, widget: bool | None = None):
    """Show ``chapter``'s review questions: a widget in Jupyter (``widget=None`` decides), plain text otherwise.

    Returns the widget (Jupyter displays it) or None after printing the text.
    """
    if widget is None:
        widget = _in_jupyter()
    if widget:
        return ReviewWidget(chapter).view
    print(as_text(chapter))
    return None


def _in_jupyter() -> bool:
    try:
        import ipywidgets  # noqa: F401
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class ReviewWidget:
    """The questions of a chapter as ipywidgets: a choice shows its feedback as soon as it is picked; a
    number when Enter is pressed or the Check button is clicked. ``items[k]`` holds question k's pieces
    (``question``, ``input``, ``button`` or None, ``feedback``) so that tests can drive them."""

    def __init__(self, chapter: str):
        import ipywidgets as widgets

        self.items = []
        boxes = [widgets.HTML(f"<b>Review questions</b> ({chapter}, not graded): answer, and read the explanation.")]
        for question in questions(chapter):
            prompt = widgets.HTML(f"<b>{html.escape(question.id)}</b>. {html.escape(question.prompt)}")
            feedback_view = widgets.HTML("")
            if question.kind == "choice":
                field = widgets.RadioButtons(
                    options=[(f"({letter}) {text}", letter) for letter, text in zip(LETTERS, question.choices)],
                    value=None,
                    layout=widgets.Layout(width="auto"),
                )
                button = None
                field.observe(lambda change, q=question, out=feedback_view: self._show(q, change["new"], out), "value")
                row = field
            else:
                field = widgets.Text(placeholder="a number", continuous_update=False)
                button = widgets.Button(description="Check")
                field.observe(lambda change, q=question, out=feedback_view: self._show(q, change["new"], out), "value")
                button.on_click(lambda _, q=question, f=field, out=feedback_view: self._show(q, f.value, out))
                row = widgets.HBox([field, button])
            self.items.append({"question": question, "input": field, "button": button, "feedback": feedback_view})
            boxes.append(widgets.VBox([prompt, row, feedback_view]))
        self.view = widgets.VBox(boxes)

    @staticmethod
    def _show(question: Question, response, out) -> None:
        if response is None or (isinstance(response, str) and not response.strip()):
            out.value = ""
            return
        right, _ = question.judge(response)
        colour = {True: "#1a7f37", False: "#cf222e", None: "#9a6700"}[right]
        out.value = f'<span style="color:{colour}">{html.escape(feedback(question, response))}</span>'
