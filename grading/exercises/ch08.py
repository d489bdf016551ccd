"""Chapter 8 (sequences): an embedding lookup, one step of an RNN, an LSTM and a GRU cell, and (build it)
backpropagation through time of an LSTM by hand.

Expected values are computed by the references below (minitorch's ``embedding``, the math of
``nn.RNNCell``, ``nn.LSTMCell`` and ``nn.GRUCell``, with PyTorch's gate order, and minitorch's autograd
through ``nn.LSTMCell``'s steps), never written down; the public cases are inputs only.
tests/grading/test_ch08_exercises.py checks the references against PyTorch's cells and ``nn.LSTM``.
"""

import numpy as np

import minitorch
import minitorch.nn.functional as F
from grading.registry import exercise, randn

# The pieces of minitorch the LSTM exercises rebuild: the batch grader replaces them before a submission runs
# (the references above run outside the sandbox and keep them). nn.LSTM and the fused ops would do the step, or
# the whole sequence and its backward, in one call.
_LSTM_PIECES = (
    "minitorch.nn.LSTMCell",
    "minitorch.nn.LSTM",
    "minitorch.nn.functional._lstm_cell",
    "minitorch.ops.recurrent.LSTMCell",
    "minitorch.ops.recurrent.LSTMSequence",
)
# Backpropagation by hand: autograd's entry points are withheld too, so a submission cannot let autograd
# compute the gradients it is asked to derive.
_AUTOGRAD_ENTRY_POINTS = (
    "minitorch.Tensor.backward", "minitorch.autograd.backward", "minitorch.autograd.grad",
    # the engine under them, and one node's backward called by hand
    "minitorch.autograd.engine.run_backward", "minitorch.autograd.graph.step_backward",
    "minitorch.autograd.graph.call_node",
)

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
    # the library's lookup: the function, its op and the layer
    withheld=(
        "minitorch.nn.functional.embedding",
        "minitorch.nn.Embedding",
        "minitorch.ops.nn_ops.Embedding",
    ),
    reference=lambda weight, indices: F.embedding(indices, weight),
    public=[
        (randn(10, 4, seed=801), _ids((5,), 10, seed=802)),
        (randn(7, 3, seed=803), _ids((2, 3), 7, seed=804)),
    ],
    labels=[
        "a vector of 5 ids",
        "a (2, 3) table of ids: the result is (2, 3, embedding_dim)",
    ],
    hints=[
        "An embedding table is a matrix whose row i is the vector of id i: looking up ids is picking rows.",
        "out[..., :] = weight[indices[...], :]: the result has shape indices.shape + (embedding_dim,).",
        "Indexing a tensor with an integer tensor picks rows and keeps the index tensor's shape in front; no loop "
        "over the ids is needed.",
    ],
)

exercise(
    "ch08.rnn_cell",
    function="rnn_cell",
    # the library's cell: the layers and the step they run
    withheld=(
        "minitorch.nn.RNNCell",
        "minitorch.nn.RNN",
        "minitorch.nn.functional._rnn_cell",
        "minitorch.nn.functional.recurrent._rnn_step",
    ),
    reference=_rnn_cell,
    public=[_cell_case(1, 2, seed=810), _cell_case(1, 5, seed=820)],
    labels=[
        "a batch of 2",
        "a batch of 5",
    ],
    hints=[
        "One step of an RNN mixes the new input and the previous hidden state through two linear maps, adds their "
        "biases, and squashes the sum.",
        "h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh), with weights in PyTorch's layout (rows = hidden units).",
        "Two matrix products with transposed weights, two biases that broadcast over the batch, one tanh.",
    ],
)

exercise(
    "ch08.lstm_cell",
    function="lstm_cell",
    reference=_lstm_cell,
    public=[_cell_case(4, 2, seed=830, with_cell=True), _cell_case(4, 5, seed=840, with_cell=True)],
    labels=[
        "a batch of 2: the four gate blocks in PyTorch's order i, f, g, o",
        "a batch of 5, another c: the new cell state keeps f times the old one",
    ],
    outputs=("h_new", "c_new"),
    withheld=_LSTM_PIECES,
    hints=[
        "All four gates come from one pair of matrix products: the input's and the previous hidden state's, each with "
        "its bias. Cut the result into four equal blocks of hidden_size columns.",
        "PyTorch's order of the blocks is i, f, g, o. i, f, o go through the sigmoid, g through tanh; then c' = f ⊙ c "
        "+ i ⊙ g and h' = o ⊙ tanh(c').",
        "chunk cuts a tensor into equal blocks along a dimension; minitorch has sigmoid and tanh. Return (h_new, "
        "c_new) in that order.",
    ],
)

exercise(
    "ch08.gru_cell",
    function="gru_cell",
    # the library's cell: the layers, the function and the ops under them
    withheld=(
        "minitorch.nn.GRUCell",
        "minitorch.nn.GRU",
        "minitorch.nn.functional._gru_cell",
        "minitorch.ops.recurrent.GRUCell",
        "minitorch.ops.recurrent.GRUSequence",
    ),
    reference=_gru_cell,
    public=[_cell_case(3, 2, seed=850), _cell_case(3, 5, seed=860)],
    labels=[
        "a batch of 2: the three gate blocks in PyTorch's order r, z, n",
        "a batch of 5",
    ],
    hints=[
        "A GRU has three blocks of gates: reset r, update z and the candidate n. Keep the input's and the hidden "
        "state's products apart, because the reset gate scales only the hidden state's part of the candidate.",
        "Split gi = x W_ihᵀ + b_ih and gh = h W_hhᵀ + b_hh into three blocks each (r, z, n in PyTorch's order). r = "
        "σ(gi_r + gh_r), z = σ(gi_z + gh_z), n = tanh(gi_n + r ⊙ gh_n), h' = (1 − z) ⊙ n + z ⊙ h.",
        "Two matrix products, chunk(3, dim=1) on each, then the four formulas in order.",
    ],
)


# -- build it: backpropagation through time, by hand ---------------------------------------------------
def _lstm_forward_backward(x, h0, c0, weight_ih, weight_hh, bias_ih, bias_hh, grad_output):
    """An LSTM over x (time, batch, input) from (h0, c0), one ``nn.LSTMCell`` step at a time, and the gradients of
    sum(output * grad_output) with respect to every input, by minitorch's autograd."""
    leaves = [tensor.detach().requires_grad_() for tensor in (x, h0, c0, weight_ih, weight_hh, bias_ih, bias_hh)]
    x, h0, c0, weight_ih, weight_hh, bias_ih, bias_hh = leaves
    hidden, cell, outputs = h0, c0, []
    for step in range(x.shape[0]):
        hidden, cell = F._lstm_cell(x[step], (hidden, cell), weight_ih, weight_hh, bias_ih, bias_hh)
        outputs.append(hidden)
    output = minitorch.stack(outputs)
    output.backward(grad_output)
    return (output.detach(), *(leaf.grad for leaf in leaves))


def _sequence_case(steps, batch, input_size, hidden_size, seed):
    """``(x, h0, c0, weight_ih, weight_hh, bias_ih, bias_hh, grad_output)`` in float64."""
    gates = 4 * hidden_size
    return (
        randn(steps, batch, input_size, seed=seed, dtype="float64"),
        randn(batch, hidden_size, seed=seed + 1, dtype="float64", scale=0.5),
        randn(batch, hidden_size, seed=seed + 2, dtype="float64"),
        randn(gates, input_size, seed=seed + 3, dtype="float64", scale=0.5),
        randn(gates, hidden_size, seed=seed + 4, dtype="float64", scale=0.5),
        randn(gates, seed=seed + 5, dtype="float64", scale=0.5),
        randn(gates, seed=seed + 6, dtype="float64", scale=0.5),
        randn(steps, batch, hidden_size, seed=seed + 7, dtype="float64"),
    )


exercise(
    "ch08.lstm_forward_backward",
    function="lstm_forward_backward",
    reference=_lstm_forward_backward,
    public=[
        _sequence_case(1, 2, 3, 4, seed=870),
        _sequence_case(3, 2, 3, 4, seed=880),
        _sequence_case(6, 4, 2, 3, seed=890),
    ],
    labels=[
        "one step: the backward of a single cell, no time to go through yet",
        "3 steps: each step's h and c get gradient from the output and from the step after it",
        "6 steps, a batch of 4: the cell state carries gradient back across many steps",
    ],
    outputs=(
        "output", "grad_x", "grad_h0", "grad_c0", "grad_weight_ih", "grad_weight_hh", "grad_bias_ih", "grad_bias_hh",
    ),
    rtol=1e-9,
    atol=1e-10,
    withheld=_LSTM_PIECES + _AUTOGRAD_ENTRY_POINTS,
    hints=[
        "Run the forward loop and keep, for every step, what its backward will need: h and c before the step, the "
        "four activated gates and tanh(c) after it. Then walk the steps in reverse order, carrying two gradients from "
        "each step to the one before it: one for h_prev and one for c_prev. The weights are shared by every step, so "
        "their gradients add up over the steps.",
        "Derive the step's backward on paper first, as the text asks, in this order: h = o ⊙ tanh(c) gives the "
        "gradients of o and of c; c reaches the loss two ways (through h and through the next step), so its two "
        "contributions add; c = f ⊙ c_prev + i ⊙ g gives those of f, i, g and c_prev; each gate's nonlinearity (σ or "
        "tanh, whose derivatives you can write with their outputs) gives the gradient before it; the pre-activations "
        "= x W_ihᵀ + b_ih + h_prev W_hhᵀ + b_hh give x, h_prev, both weights and both biases. At each step, the "
        "gradient arriving at h is grad_output[t] plus what step t + 1 sent back.",
        "Store the per-step pieces in Python lists during the forward loop, then loop over reversed(range(steps)). "
        "Put the four pre-activation gradients side by side in i, f, g, o order (cat along dim 1) so one matrix "
        "product handles all four blocks; stack makes the (time, ...) outputs. Start the carried gradients at zeros "
        "of h0's shape; what is left in them after step 0 is grad_h0 and grad_c0.",
    ],
)
