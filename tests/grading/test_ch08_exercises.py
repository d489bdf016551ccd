"""Chapter 8's exercises: the notebook's solutions pass every check (public and hidden), and the checks
reject a blank exercise and the usual mistakes (a wrong gate order, the reset gate in the wrong place).
The cell references are checked against PyTorch's own cells with the same weights.

The solutions are read from the instructor's notebook (notebooks/source/08_sequences), so a change there
that breaks an exercise fails here, without running the whole chapter.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import minitorch
from grading import check, check_hidden, randn
from grading.registry import get
from tests.support import require_torch

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "source" / "08_sequences" / "08_sequences.ipynb"


def graded_cells() -> dict[str, str]:
    """``{grade_id: source}`` of the chapter's solution and test cells."""
    notebook = json.loads(NOTEBOOK.read_text())
    return {
        cell["metadata"]["nbgrader"]["grade_id"]: "".join(cell["source"])
        for cell in notebook["cells"]
        if "nbgrader" in cell.get("metadata", {})
    }


CELLS = graded_cells()
TEST_CELLS = sorted(grade_id for grade_id in CELLS if grade_id.endswith("-tests"))


@pytest.fixture(scope="module")
def solutions() -> dict:
    """The namespace after running every solution cell, as the notebook defines the learner's functions."""
    namespace = {"minitorch": minitorch, "np": np, "math": math}
    for grade_id, source in CELLS.items():
        if not grade_id.endswith("-tests"):
            exec(compile(source, f"<solution {grade_id}>", "exec"), namespace)
    return namespace


def test_the_chapter_has_three_or_more_graded_exercises():
    assert len(TEST_CELLS) >= 3


@pytest.mark.parametrize("grade_id", TEST_CELLS)
def test_solution_passes_the_public_and_hidden_cases(solutions, grade_id):
    namespace = dict(solutions, check=check, check_hidden=check_hidden, randn=randn)
    exec(compile(CELLS[grade_id], f"<test cell {grade_id}>", "exec"), namespace)


def _blank(*arguments):
    raise NotImplementedError()


@pytest.mark.parametrize("name", ["ch08.embedding_lookup", "ch08.rnn_cell", "ch08.lstm_cell", "ch08.gru_cell"])
def test_blank_exercise_reports_not_implemented(name, capsys):
    with pytest.raises(AssertionError, match="not implemented yet"):
        check(name, _blank)
    assert "not implemented yet" in capsys.readouterr().out


sigmoid, tanh = minitorch.sigmoid, minitorch.tanh


def _lstm_with_order(order: str, swap_outputs: bool = False):
    """An LSTM step that reads the four gate blocks in ``order`` (PyTorch's is "ifgo")."""

    def lstm_cell(x, h, c, weight_ih, weight_hh, bias_ih, bias_hh):
        blocks = dict(zip(order, (x @ weight_ih.T + bias_ih + h @ weight_hh.T + bias_hh).chunk(4, dim=1)))
        c_new = sigmoid(blocks["f"]) * c + sigmoid(blocks["i"]) * tanh(blocks["g"])
        h_new = sigmoid(blocks["o"]) * tanh(c_new)
        return (c_new, h_new) if swap_outputs else (h_new, c_new)

    return lstm_cell


def _gru_with(reset_outside_bias: bool = False, swap_update: bool = False):
    def gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
        input_r, input_z, input_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=1)
        weight_hr, weight_hz, weight_hn = weight_hh.chunk(3, dim=0)
        bias_hr, bias_hz, bias_hn = bias_hh.chunk(3)
        reset = sigmoid(input_r + h @ weight_hr.T + bias_hr)
        update = sigmoid(input_z + h @ weight_hz.T + bias_hz)
        hidden_n = reset * (h @ weight_hn.T) + bias_hn if reset_outside_bias else reset * (h @ weight_hn.T + bias_hn)
        candidate = tanh(input_n + hidden_n)
        if swap_update:
            return update * candidate + (1 - update) * h
        return (1 - update) * candidate + update * h

    return gru_cell


WRONG = {
    "embedding: off by one": ("ch08.embedding_lookup", lambda weight, indices: weight[indices - 1]),
    "embedding: columns, not rows": (
        "ch08.embedding_lookup", lambda weight, indices: weight.T[indices % weight.shape[1]],
    ),
    "rnn: forgot bias_hh": (
        "ch08.rnn_cell", lambda x, h, w_ih, w_hh, b_ih, b_hh: tanh(x @ w_ih.T + b_ih + h @ w_hh.T),
    ),
    "rnn: sigmoid instead of tanh": (
        "ch08.rnn_cell", lambda x, h, w_ih, w_hh, b_ih, b_hh: sigmoid(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh),
    ),
    "lstm: gate order i, f, o, g": ("ch08.lstm_cell", _lstm_with_order("ifog")),
    "lstm: gate order i, g, f, o": ("ch08.lstm_cell", _lstm_with_order("igfo")),
    "lstm: returns (c, h)": ("ch08.lstm_cell", _lstm_with_order("ifgo", swap_outputs=True)),
    "gru: reset gate outside b_hn": ("ch08.gru_cell", _gru_with(reset_outside_bias=True)),
    "gru: z and 1 - z swapped": ("ch08.gru_cell", _gru_with(swap_update=True)),
}


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_typical_mistake_fails_the_check(mistake, capsys):
    name, function = WRONG[mistake]
    with pytest.raises(AssertionError):
        check(name, function)
    assert "FAILED" in capsys.readouterr().out


def test_correct_variants_pass():
    """Equivalent ways of writing the answers are accepted (the checks compare values, not code)."""
    check("ch08.lstm_cell", _lstm_with_order("ifgo"))
    check("ch08.gru_cell", _gru_with())
    one_hot = minitorch.nn.functional.one_hot
    check("ch08.embedding_lookup", lambda weight, indices: one_hot(indices, weight.shape[0]).float() @ weight)


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_cell_references_match_pytorch(kind):
    torch = require_torch()
    exercise = get(f"ch08.{kind}_cell")
    for case in exercise.public:
        cell_class = {"rnn": torch.nn.RNNCell, "lstm": torch.nn.LSTMCell, "gru": torch.nn.GRUCell}[kind]
        x, *state = case[: 3 if kind == "lstm" else 2]
        weight_ih, weight_hh, bias_ih, bias_hh = case[-4:]
        cell = cell_class(x.shape[1], weight_hh.shape[1])
        with torch.no_grad():
            for name, value in zip(("weight_ih", "weight_hh", "bias_ih", "bias_hh"), case[-4:]):
                getattr(cell, name).copy_(torch.from_numpy(value))
            torch_state = tuple(torch.from_numpy(value) for value in state)
            expected = cell(torch.from_numpy(x), torch_state if kind == "lstm" else torch_state[0])
        got = exercise.reference(*(minitorch.tensor(value) for value in case))
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = got if isinstance(got, tuple) else (got,)
        for want, have in zip(expected, got):
            np.testing.assert_allclose(have.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
