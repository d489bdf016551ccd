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
from tests.grading.withheld_support import run_with_withheld, withheld_names_missing
from tests.support import require_torch

sigmoid, tanh = minitorch.sigmoid, minitorch.tanh
CHAPTER = "08_sequences"


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


# -- build it: the LSTM cell against nn.LSTMCell, and backpropagation through time by hand ---------------------
def test_the_lstm_cell_mistakes_name_the_output_that_shows_them(capsys):
    """A candidate through the sigmoid (instead of tanh) is wrong from the first case, in h_new and c_new."""

    def sigmoid_candidate(x, h, c, weight_ih, weight_hh, bias_ih, bias_hh):
        i, f, g, o = (x @ weight_ih.T + bias_ih + h @ weight_hh.T + bias_hh).chunk(4, dim=1)
        c_new = sigmoid(f) * c + sigmoid(i) * sigmoid(g)
        return sigmoid(o) * tanh(c_new), c_new

    with pytest.raises(AssertionError):
        check("ch08.lstm_cell", sigmoid_candidate)
    failed = [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]
    assert "public case 1 of 2" in failed and "output 1 (h_new)" in failed and "i, f, g, o" in failed


def test_the_lstm_cell_reference_equals_nn_lstm_cell_with_copied_weights():
    exercise = get("ch08.lstm_cell")
    for case in exercise.public:
        x, h, c, *weights = (minitorch.tensor(value) for value in case)
        cell = minitorch.nn.LSTMCell(x.shape[1], h.shape[1])
        with minitorch.no_grad():
            for name, value in zip(("weight_ih", "weight_hh", "bias_ih", "bias_hh"), weights):
                getattr(cell, name).copy_(value)
            expected = cell(x, (h, c))
        for want, have in zip(expected, exercise.reference(x, h, c, *weights)):
            np.testing.assert_allclose(have.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)


def _bptt(*, order="ifgo", carry_cell=True, cell_through_hidden=True, sigmoid_slope_of_tanh=False,
          weight_hh_with_new_hidden=False, last_output_only=False):
    """Backpropagation through time by hand, with one of the mistakes a learner makes switched on."""

    def lstm_forward_backward(x, h0, c0, weight_ih, weight_hh, bias_ih, bias_hh, grad_output):
        steps = x.shape[0]
        position = {gate: index for index, gate in enumerate(order)}  # where each gate's block sits in the rows
        hidden, cell, outputs, saved = h0, c0, [], []
        for step in range(steps):
            blocks = (x[step] @ weight_ih.T + bias_ih + hidden @ weight_hh.T + bias_hh).chunk(4, dim=1)
            i, f, g, o = (blocks[position[gate]] for gate in "ifgo")
            i, f, g, o = sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)
            new_cell = f * cell + i * g
            saved.append((hidden, cell, i, f, g, o, tanh(new_cell)))
            hidden, cell = o * tanh(new_cell), new_cell
            outputs.append(hidden)
        grad_h, grad_c = minitorch.zeros_like(h0), minitorch.zeros_like(c0)
        grad_w_ih, grad_w_hh, grad_b = (minitorch.zeros_like(t) for t in (weight_ih, weight_hh, bias_ih))
        grad_x = []
        for step in reversed(range(steps)):
            h_prev, c_prev, i, f, g, o, tanh_c = saved[step]
            if not last_output_only or step == steps - 1:
                grad_h = grad_h + grad_output[step]
            if not carry_cell:
                grad_c = minitorch.zeros_like(grad_c)
            if cell_through_hidden:
                grad_c = grad_c + grad_h * o * (1 - tanh_c**2)
            slope = (lambda s: 1 - s * s) if sigmoid_slope_of_tanh else (lambda s: s * (1 - s))
            pieces = {"i": grad_c * g * slope(i), "f": grad_c * c_prev * slope(f), "g": grad_c * i * (1 - g * g),
                      "o": grad_h * tanh_c * slope(o)}  # fmt: skip
            grad_gates = minitorch.cat([pieces[gate] for gate in order], dim=1)
            grad_x.insert(0, grad_gates @ weight_ih)
            grad_w_ih = grad_w_ih + grad_gates.T @ x[step]
            grad_w_hh = grad_w_hh + grad_gates.T @ (outputs[step] if weight_hh_with_new_hidden else h_prev)
            grad_b = grad_b + grad_gates.sum(dim=0)
            grad_h, grad_c = grad_gates @ weight_hh, grad_c * f
        return minitorch.stack(outputs), minitorch.stack(grad_x), grad_h, grad_c, grad_w_ih, grad_w_hh, grad_b, grad_b

    return lstm_forward_backward


BPTT_MISTAKES = {
    # (the wrong solution, words its first FAILED line must contain)
    "gate order i, f, o, g": (_bptt(order="ifog"), "public case 1 of 3 (one step"),
    "the cell-state gradient not carried to the step before": (
        _bptt(carry_cell=False), "the step after it) FAILED: output 2 (grad_x)"),
    "the cell's gradient through h forgotten": (_bptt(cell_through_hidden=False), "output 2 (grad_x)"),
    "tanh's slope 1 - s² for the sigmoid gates": (_bptt(sigmoid_slope_of_tanh=True), "output 2 (grad_x)"),
    "dW_hh from the new h instead of h_prev": (_bptt(weight_hh_with_new_hidden=True), "output 6 (grad_weight_hh)"),
    "only the last step's output gradient": (_bptt(last_output_only=True), "public case 2 of 3"),
}


@pytest.mark.parametrize("mistake", sorted(BPTT_MISTAKES))
def test_bptt_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    function, words = BPTT_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch08.lstm_forward_backward", function)
    assert words in [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]


def test_bptt_written_differently_passes(capsys):
    """Another correct solution: the whole sequence's gate gradients stacked, the weights' gradients as one
    matrix product each at the end (as ops/recurrent.py does), and sigmoid' written as s - s²."""

    def lstm_forward_backward(x, h0, c0, weight_ih, weight_hh, bias_ih, bias_hh, grad_output):
        steps, batch, _ = x.shape
        size = h0.shape[1]
        input_part = x @ weight_ih.T + (bias_ih + bias_hh)  # every step's input product at once
        states, cells, gates = [h0], [c0], []
        for step in range(steps):
            raw = input_part[step] + states[-1] @ weight_hh.T
            activated = minitorch.cat([sigmoid(raw[:, : 2 * size]), tanh(raw[:, 2 * size : 3 * size]),
                                       sigmoid(raw[:, 3 * size :])], dim=1)  # fmt: skip
            i, f, g, o = activated.chunk(4, dim=1)
            cells.append(f * cells[-1] + i * g)
            states.append(o * tanh(cells[-1]))
            gates.append(activated)
        grad_gates = [None] * steps
        grad_h, grad_c = minitorch.zeros(batch, size, dtype=x.dtype), minitorch.zeros(batch, size, dtype=x.dtype)
        for step in range(steps - 1, -1, -1):
            i, f, g, o = gates[step].chunk(4, dim=1)
            tanh_c = tanh(cells[step + 1])
            grad_h = grad_h + grad_output[step]
            grad_c = grad_c + grad_h * o * (1 - tanh_c * tanh_c)
            local = minitorch.cat([grad_c * g, grad_c * cells[step], grad_c * i, grad_h * tanh_c], dim=1)
            slopes = minitorch.cat([i - i * i, f - f * f, 1 - g * g, o - o * o], dim=1)
            grad_gates[step] = local * slopes
            grad_h, grad_c = grad_gates[step] @ weight_hh, grad_c * f
        stacked = minitorch.stack(grad_gates)  # (time, batch, 4H)
        flat = stacked.reshape(steps * batch, 4 * size)
        grad_weight_ih = flat.T @ x.reshape(steps * batch, -1)
        grad_weight_hh = flat.T @ minitorch.stack(states[:-1]).reshape(steps * batch, size)
        grad_bias = flat.sum(dim=0)
        output = minitorch.stack(states[1:])
        return output, stacked @ weight_ih, grad_h, grad_c, grad_weight_ih, grad_weight_hh, grad_bias, grad_bias

    check("ch08.lstm_forward_backward", lstm_forward_backward)
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_the_bptt_reference_matches_torch_nn_lstm_with_copied_weights():
    torch = require_torch()
    for case in get("ch08.lstm_forward_backward").public:
        ours = get("ch08.lstm_forward_backward").reference(*(minitorch.tensor(a) for a in case))
        x, h0, c0, weight_ih, weight_hh, bias_ih, bias_hh, grad_output = (torch.tensor(a) for a in case)
        lstm = torch.nn.LSTM(x.shape[2], h0.shape[1]).double()
        with torch.no_grad():
            for parameter, value in zip(lstm.parameters(), (weight_ih, weight_hh, bias_ih, bias_hh)):
                parameter.copy_(value)
        x, h0, c0 = (t.clone().requires_grad_() for t in (x, h0, c0))
        output, _ = lstm(x, (h0[None], c0[None]))
        output.backward(grad_output)
        expected = [output, x.grad, h0.grad, c0.grad, *(parameter.grad for parameter in lstm.parameters())]
        for mine, theirs in zip(ours, expected):
            np.testing.assert_allclose(mine.numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_the_bptt_solution_passes_gradcheck_as_a_function():
    """The instructor's backward, wrapped in an autograd.Function as the chapter does, against finite differences."""
    from tests.grading.chapter_notebooks import solutions

    by_hand = solutions("08_sequences")["lstm_forward_backward"]

    class LSTMByHand(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            ctx.save_for_backward(*inputs)
            zeros = minitorch.zeros(inputs[0].shape[0], *inputs[1].shape, dtype=inputs[0].dtype)
            return by_hand(*inputs, zeros)[0]

        @staticmethod
        def backward(ctx, grad_output):
            return by_hand(*ctx.saved_tensors, grad_output)[1:]

    inputs = [minitorch.tensor(a, requires_grad=True) for a in get("ch08.lstm_forward_backward").public[1][:7]]
    assert minitorch.autograd.gradcheck(LSTMByHand.apply, inputs)


# -- the withheld pieces: the grader switches them off, the references it uses outside still work ---------------
def _withheld_run(name: str, cheat: str) -> str:
    return run_with_withheld(name, CHAPTER, cheat)


def test_every_withheld_piece_exists():
    """_withhold skips a name it cannot find: a misspelt piece would silently stay available."""
    assert withheld_names_missing("ch" + CHAPTER[:2]) == []


@pytest.mark.parametrize(
    "name, cheat",
    [
        ("ch08.lstm_cell", "def cheat(x, h, c, *weights):\n    return F._lstm_cell(x, (h, c), *weights)"),
        ("ch08.lstm_cell", "def cheat(x, h, c, w_ih, w_hh, b_ih, b_hh):\n"
                           "    cell = nn.LSTMCell(x.shape[1], h.shape[1])\n    return cell(x, (h, c))"),
        (
            "ch08.lstm_forward_backward",
            "def cheat(x, h0, c0, w_ih, w_hh, b_ih, b_hh, grad_output):\n"
            "    leaves = [t.detach().requires_grad_() for t in (x, h0, c0, w_ih, w_hh, b_ih, b_hh)]\n"
            "    x, h, c, w_ih, w_hh, b_ih, b_hh = leaves\n"
            "    outputs = []\n"
            "    for step in range(x.shape[0]):\n"
            "        i, f, g, o = (x[step] @ w_ih.T + b_ih + h @ w_hh.T + b_hh).chunk(4, dim=1)\n"
            "        c = minitorch.sigmoid(f) * c + minitorch.sigmoid(i) * minitorch.tanh(g)\n"
            "        h = minitorch.sigmoid(o) * minitorch.tanh(c)\n"
            "        outputs.append(h)\n"
            "    output = minitorch.stack(outputs)\n"
            "    output.backward(grad_output)  # autograd does the work the exercise asks for\n"
            "    return (output.detach(), *(leaf.grad for leaf in leaves))",
        ),
    ],
)
def test_the_solutions_pass_and_shortcuts_raise_with_the_pieces_withheld(name, cheat):
    assert "is not available while this exercise is graded" in _withheld_run(name, cheat)
