"""Chapter 8's exercise checks accept equivalent answers and reject the usual mistakes (a wrong gate
order, the reset gate in the wrong place), and the cell references are checked against PyTorch's own
cells with the same weights.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from grading import check
from grading.registry import get
from tests.support import require_torch

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
