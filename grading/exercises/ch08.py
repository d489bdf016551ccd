"""Chapter 8 (sequences): an embedding lookup, and one step of an RNN, an LSTM and a GRU cell.

Expected values are computed by the references below (minitorch's ``embedding`` and the math of
``nn.RNNCell``, ``nn.LSTMCell`` and ``nn.GRUCell``, with PyTorch's gate order), never written
down; the public cases are inputs only.
"""

import numpy as np

import minitorch.nn.functional as F
from grading.registry import exercise, randn

INPUT, HIDDEN = 3, 4  # the public cases' sizes (the hidden cases use others)


def _ids(shape, count, seed):
    return np.random.default_rng(seed).integers(0, count, size=shape)


def _rnn_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    return F._rnn_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh, "tanh")


def _lstm_cell(x, h, c, weight_ih, weight_hh, bias_ih, bias_hh):
    return F._lstm_cell(x, (h, c), weight_ih, weight_hh, bias_ih, bias_hh)


def _gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    return F._gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh)


def _cell_case(gates, batch, seed, with_cell=False):
    """``(x, h[, c], weight_ih, weight_hh, bias_ih, bias_hh)`` for a cell with ``gates`` blocks of HIDDEN rows."""
    rows = gates * HIDDEN
    state = (randn(batch, HIDDEN, seed=seed + 1),)
    if with_cell:
        state += (randn(batch, HIDDEN, seed=seed + 2),)
    weights = (
        randn(rows, INPUT, seed=seed + 3, scale=0.5),
        randn(rows, HIDDEN, seed=seed + 4, scale=0.5),
        randn(rows, seed=seed + 5, scale=0.5),
        randn(rows, seed=seed + 6, scale=0.5),
    )
    return (randn(batch, INPUT, seed=seed),) + state + weights


exercise(
    "ch08.embedding_lookup",
    function="embedding_lookup",
    reference=lambda weight, indices: F.embedding(indices, weight),
    public=[
        (randn(10, 4, seed=801), _ids((5,), 10, seed=802)),
        (randn(7, 3, seed=803), _ids((2, 3), 7, seed=804)),
    ],
    hint="Row i of the table is the vector of id i: weight[indices] picks one row per id, and the result has "
    "shape indices.shape + (embedding_dim,).",
)

exercise(
    "ch08.rnn_cell",
    function="rnn_cell",
    reference=_rnn_cell,
    public=[_cell_case(1, 2, seed=810), _cell_case(1, 5, seed=820)],
    hint="h_new = tanh(x @ weight_ih.T + bias_ih + h @ weight_hh.T + bias_hh).",
)

exercise(
    "ch08.lstm_cell",
    function="lstm_cell",
    reference=_lstm_cell,
    public=[_cell_case(4, 2, seed=830, with_cell=True), _cell_case(4, 5, seed=840, with_cell=True)],
    hints=[
        "All four gates come from one pair of matrix products: the input's and the previous hidden state's, each "
        "with its bias. Cut the result into four equal blocks of hidden_size columns.",
        "PyTorch's order of the blocks is i, f, g, o. i, f, o go through the sigmoid, g through tanh; then "
        "c' = f ⊙ c + i ⊙ g and h' = o ⊙ tanh(c').",
        "gates.chunk(4, dim=1) cuts the blocks; minitorch.sigmoid and .tanh() are the nonlinearities. Return "
        "(h_new, c_new) in that order.",
    ],
)

exercise(
    "ch08.gru_cell",
    function="gru_cell",
    reference=_gru_cell,
    public=[_cell_case(3, 2, seed=850), _cell_case(3, 5, seed=860)],
    hint="Keep the two products apart: gi = x @ weight_ih.T + bias_ih and gh = h @ weight_hh.T + bias_hh, each split "
    "in 3 blocks r, z, n. r = sigmoid(gi_r + gh_r), z = sigmoid(gi_z + gh_z), n = tanh(gi_n + r * gh_n), "
    "h_new = (1 - z) * n + z * h.",
)
