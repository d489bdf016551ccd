"""The recurrent layers' loops (``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their cells call these; PyTorch has
no public functional form for them).

The input-to-hidden product ``x W_ih^T + b_ih`` does not depend on the previous step, so it is computed for
the whole sequence in one matrix product; only ``h W_hh^T`` stays inside the loop over time. An LSTM or GRU
layer direction runs that loop inside one fused op (``ops/recurrent.py``: forward in order,
backpropagation through time in reverse); a plain RNN (and an LSTM with a projection) loops here, a step
of ordinary ops at a time.
"""

from __future__ import annotations

import numpy as np

from ..._creation import tensor as _tensor, zeros as _zeros
from ..._tensor import Tensor
from ...ops import recurrent as _recurrent_ops
from ...ops.shape import cat as _cat, stack as _stack
from .dropout_functions import dropout
from .linear_functions import linear


def _rnn_step(input_gates: Tensor, hidden: Tensor, weight_hh: Tensor, nonlinearity: str) -> Tensor:
    """``h = tanh(input_gates + h_prev W_hh^T)`` (or ``relu``): the Elman RNN step."""
    pre_activation = linear(hidden, weight_hh, input_gates)  # one node: h W_hh^T plus the input part
    return pre_activation.tanh() if nonlinearity == "tanh" else pre_activation.relu()


def _lstm_step(input_gates: Tensor, hidden: Tensor, cell: Tensor, weight_hh: Tensor,
               weight_hr: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One LSTM step (gates ``i, f, g, o``; see ``ops/recurrent.py``); ``weight_hr`` projects ``h`` (``proj_size``)."""
    hidden, cell = _recurrent_ops.LSTMCell.apply(input_gates, hidden, cell, weight_hh)
    if weight_hr is not None:
        hidden = linear(hidden, weight_hr)
    return hidden, cell


def _gru_step(input_gates: Tensor, hidden: Tensor, weight_hh: Tensor, bias_hh: Tensor | None) -> Tensor:
    """One GRU step (gates ``r, z, n``; see ``ops/recurrent.py``)."""
    return _recurrent_ops.GRUCell.apply(input_gates, hidden, weight_hh, bias_hh)


def _input_bias(mode: str, bias_ih: Tensor | None, bias_hh: Tensor | None) -> Tensor | None:
    """The bias added to ``x W_ih^T``: both biases for RNN and LSTM (they are simply summed), ``b_ih`` for GRU.

    A GRU's ``b_hh`` cannot move: its ``n`` gate multiplies ``h W_hn^T + b_hn`` by the reset gate.
    """
    if bias_ih is None or mode == "GRU":
        return bias_ih
    return bias_ih + bias_hh


def _check_cell_arguments(input: Tensor, hiddens, input_size: int, hidden_size: int) -> None:
    """PyTorch's checks (and words) for one step of a cell."""
    if input.shape[1] != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {input_size}")
    for number, hidden in enumerate(hiddens):
        if input.shape[0] != hidden.shape[0]:
            raise RuntimeError(
                f"Input batch size {input.shape[0]} doesn't match hidden{number} batch size {hidden.shape[0]}"
            )
        if hidden.shape[1] != hidden_size:
            raise RuntimeError(
                f"hidden{number} has inconsistent hidden_size: got {hidden.shape[1]}, expected {hidden_size}"
            )


def _rnn_cell(input: Tensor, hx: Tensor, weight_ih: Tensor, weight_hh: Tensor, bias_ih: Tensor | None,
              bias_hh: Tensor | None, nonlinearity: str) -> Tensor:
    """``nn.RNNCell``'s math on a 2-D batch, as PyTorch's ``torch.rnn_tanh_cell`` / ``rnn_relu_cell`` records it:
    ``h = tanh(linear(x, W_ih, b_ih) + linear(h_prev, W_hh, b_hh))`` (``TanhBackward0`` over ``AddBackward0``)."""
    _check_cell_arguments(input, (hx,), weight_ih.shape[1], weight_hh.shape[1])
    pre_activation = linear(input, weight_ih, bias_ih) + linear(hx, weight_hh, bias_hh)
    return pre_activation.tanh() if nonlinearity == "tanh" else pre_activation.relu()


def _lstm_cell(input: Tensor, hx: tuple, weight_ih: Tensor, weight_hh: Tensor, bias_ih: Tensor | None,
               bias_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    """``nn.LSTMCell``'s math (PyTorch's ``torch.lstm_cell``) on a 2-D batch; returns ``(h, c)``."""
    _check_cell_arguments(input, hx, weight_ih.shape[1], weight_hh.shape[1])
    input_gates = linear(input, weight_ih, _input_bias("LSTM", bias_ih, bias_hh))
    return _lstm_step(input_gates, hx[0], hx[1], weight_hh)


def _gru_cell(input: Tensor, hx: Tensor, weight_ih: Tensor, weight_hh: Tensor, bias_ih: Tensor | None,
              bias_hh: Tensor | None) -> Tensor:
    """``nn.GRUCell``'s math (PyTorch's ``torch.gru_cell``) on a 2-D batch."""
    _check_cell_arguments(input, (hx,), weight_ih.shape[1], weight_hh.shape[1])
    input_gates = linear(input, weight_ih, bias_ih)
    return _gru_step(input_gates, hx, weight_hh, bias_hh)


def _run_direction(mode: str, input: Tensor, weights: list, has_biases: bool, hidden: Tensor, cell: Tensor | None,
                   reverse: bool):
    """One layer in one direction over a ``(time, batch, features)`` input.

    Returns the hidden state at every time step, stacked in input order (so a reverse
    direction's output at time ``t`` has seen the inputs ``t .. end``), and the final states.
    """
    weight_ih, weight_hh = weights[0], weights[1]
    bias_ih, bias_hh = (weights[2], weights[3]) if has_biases else (None, None)
    weight_hr = weights[-1] if mode == "LSTM" and len(weights) in (3, 5) else None
    # Every time step's input part in one matrix product: (time * batch, features) -> (time, batch, gates).
    steps, batch = input.shape[0], input.shape[1]
    flat_input = input.reshape(steps * batch, input.shape[2])
    input_gates = linear(flat_input, weight_ih, _input_bias(mode, bias_ih, bias_hh)).reshape(steps, batch, -1)
    # LSTM and GRU: the loop over time runs inside one fused node (ops/recurrent.py).
    if mode == "LSTM" and weight_hr is None:
        return _recurrent_ops.LSTMSequence.apply(input_gates, hidden, cell, weight_hh, reverse)
    if mode == "GRU":
        output, hidden = _recurrent_ops.GRUSequence.apply(input_gates, hidden, weight_hh, bias_hh, reverse)
        return output, hidden, None
    # RNN (and an LSTM with a projection): a step at a time, one small graph per step.
    input_gates = input_gates.unbind(0)
    outputs = [None] * steps
    for time in (range(steps - 1, -1, -1) if reverse else range(steps)):
        if mode == "LSTM":
            hidden, cell = _lstm_step(input_gates[time], hidden, cell, weight_hh, weight_hr)
        else:
            hidden = _rnn_step(input_gates[time], hidden, weight_hh, "tanh" if mode == "RNN_TANH" else "relu")
        outputs[time] = hidden
    return _stack(outputs, 0), hidden, cell


def _run_direction_packed(mode: str, input: Tensor, weights: list, has_biases: bool, hidden: Tensor,
                          cell: Tensor | None, reverse: bool, batch_sizes: list[int]):
    """``_run_direction`` over a packed batch, given padded ``(time, batch, features)`` with the longest
    sequence first; ``batch_sizes[t]`` sequences are still running at step ``t``.

    The steps split into stretches over which the same sequences run; each stretch is one ordinary
    ``_run_direction`` call on just those rows. Forward in time, a sequence's final state is taken when
    its last stretch ends; in reverse, a sequence joins (from its initial state) at its own last step.
    Padding is never read, and the output is 0 there (what ``pad_packed_sequence`` shows).
    """
    batch = input.shape[1]
    stretches = []  # (first step, end step, rows running)
    for time, rows in enumerate(batch_sizes):
        if stretches and stretches[-1][2] == rows:
            stretches[-1][1] = time + 1
        else:
            stretches.append([time, time + 1, rows])
    outputs, final_hidden, final_cell = [], [], []
    state_hidden, state_cell = hidden, cell
    if reverse:
        stretches.reverse()
        state_hidden = hidden[:stretches[0][2]]
        state_cell = None if cell is None else cell[:stretches[0][2]]
    for position, (start, stop, rows) in enumerate(stretches):
        if reverse and state_hidden.shape[0] < rows:  # sequences that end here start their reverse pass
            state_hidden = _cat([state_hidden, hidden[state_hidden.shape[0]:rows]], 0)
            if cell is not None:
                state_cell = _cat([state_cell, cell[state_cell.shape[0]:rows]], 0)
        output, state_hidden, state_cell = _run_direction(
            mode, input[start:stop, :rows], weights, has_biases, state_hidden[:rows],
            None if state_cell is None else state_cell[:rows], reverse,
        )  # fmt: skip
        if rows < batch:
            output = _cat([output, _zeros(stop - start, batch - rows, output.shape[2], dtype=output.dtype,
                                          device=output.device)], 1)  # fmt: skip
        outputs.append(output)
        if not reverse:  # the rows that stop running after this stretch are finished
            following = stretches[position + 1][2] if position + 1 < len(stretches) else 0
            final_hidden.insert(0, state_hidden[following:])
            if state_cell is not None:
                final_cell.insert(0, state_cell[following:])
    if reverse:
        outputs.reverse()
        final_hidden, final_cell = [state_hidden], [state_cell] if state_cell is not None else []
    output = outputs[0] if len(outputs) == 1 else _cat(outputs, 0)
    last_hidden = final_hidden[0] if len(final_hidden) == 1 else _cat(final_hidden, 0)
    last_cell = None if not final_cell else final_cell[0] if len(final_cell) == 1 else _cat(final_cell, 0)
    return output, last_hidden, last_cell


def _packed_dropout(padded: Tensor, p: float, batch_sizes: list[int]) -> Tensor:
    """Dropout between the layers of a packed batch, drawn as PyTorch draws it: over the packed data.

    PyTorch runs its layers on the packed ``(sum of lengths, features)`` data, so its mask has that shape and
    the random numbers follow that order (time-major, longest sequence first). Here the layers run on the
    padded ``(T, B, features)`` layout: the real steps are picked out in packed order, dropped, and put back.
    """
    steps, batch = padded.shape[0], padded.shape[1]
    real = np.arange(batch)[None, :] < np.asarray(batch_sizes)[:, None]  # (T, B): step t of sequence b exists
    mask = _tensor(real[:steps], device=padded.device)
    result = _zeros(padded.shape, dtype=padded.dtype, device=padded.device)
    result[mask] = dropout(padded[mask], p, True)
    return result


def _recurrent(mode: str, input: Tensor, hx, weights: list, has_biases: bool, num_layers: int, dropout_p: float,
               train: bool, bidirectional: bool, batch_first: bool, batch_sizes: list[int] | None = None):
    """A stacked, optionally bidirectional RNN/LSTM/GRU over a 3-D input (PyTorch's ``torch.lstm`` and kin).

    ``mode`` is ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``; ``hx`` is ``h0`` (or
    ``(h0, c0)`` for an LSTM), each ``(num_layers * num_directions, batch, hidden)``;
    ``weights`` is the flat list of parameters in PyTorch's order, per layer and direction
    ``w_ih, w_hh[, b_ih, b_hh][, w_hr]``. Layer ``k + 1`` reads the outputs of layer ``k``
    (both directions side by side), with dropout between layers when training.
    Returns ``(output, h_n)`` or, for an LSTM, ``(output, h_n, c_n)``. With ``batch_sizes`` the input
    is a packed batch laid out padded (``nn.utils.rnn``), longest sequence first.
    """
    num_directions = 2 if bidirectional else 1
    per_direction = len(weights) // (num_layers * num_directions)
    if batch_first:
        input = input.transpose(0, 1)
    if input.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    if mode == "LSTM":
        initial_hidden, initial_cell = hx[0].unbind(0), hx[1].unbind(0)
    else:
        initial_hidden, initial_cell = hx.unbind(0), None
    final_hidden, final_cell = [], []
    layer_input = input
    for layer in range(num_layers):
        direction_outputs = []
        for direction in range(num_directions):
            index = layer * num_directions + direction
            arguments = (
                mode, layer_input, weights[index * per_direction:(index + 1) * per_direction], has_biases,
                initial_hidden[index], initial_cell[index] if initial_cell is not None else None, direction == 1,
            )  # fmt: skip
            if batch_sizes is None:
                output, hidden, cell = _run_direction(*arguments)
            else:
                output, hidden, cell = _run_direction_packed(*arguments, batch_sizes)
            direction_outputs.append(output)
            final_hidden.append(hidden)
            final_cell.append(cell)
        layer_input = direction_outputs[0] if num_directions == 1 else _cat(direction_outputs, 2)
        if dropout_p > 0 and train and layer < num_layers - 1:
            if batch_sizes is None:
                layer_input = dropout(layer_input, dropout_p, True)
            else:
                layer_input = _packed_dropout(layer_input, dropout_p, batch_sizes)
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    if mode == "LSTM":
        return output, _stack(final_hidden, 0), _stack(final_cell, 0)
    return output, _stack(final_hidden, 0)
