"""ONNX mappings of the fused recurrent ops (``minitorch/ops/recurrent.py``): ONNX's ``LSTM`` and ``GRU``.

minitorch computes the input part ``x W_ih^T + b`` of every time step with one ``Linear``
before the loop, so the fused op receives *input gates*, not ``x``. ONNX's recurrent
operators multiply their input by a matrix ``W`` again: the mapping passes the input gates
with a ``W`` that only reorders them, from PyTorch's gate order (LSTM ``i, f, g, o``; GRU
``r, z, n``) to ONNX's (LSTM ``i, o, f, c``; GRU ``z, r, h``). Multiplying by 1 and adding
zeros is exact, so this costs time, not accuracy. The hidden-to-hidden weights ``R`` are
the same rows of ``W_hh`` in ONNX's order. A GRU keeps ``b_hn`` inside the reset gate:
ONNX's ``linear_before_reset=1`` is exactly PyTorch's formula.
"""

from __future__ import annotations

import numpy as np

from ..ops import recurrent as ops
from ._registry import maps

LSTM_ORDER = (0, 3, 1, 2)  # ONNX's i, o, f, c taken from PyTorch's i, f, g, o
GRU_ORDER = (1, 0, 2)  # ONNX's z, r, h taken from PyTorch's r, z, n


def _rows(order, hidden_size: int) -> np.ndarray:
    return np.concatenate([np.arange(block * hidden_size, (block + 1) * hidden_size) for block in order])


def _weights(graph, call, gates_value, weight_hh_index: int, order):
    """``W`` (reorders the input gates), ``R`` (``W_hh``'s rows reordered), both with a leading direction axis."""
    gates = gates_value.shape[-1]
    hidden_size = gates // len(order)
    rows = _rows(order, hidden_size)
    dtype = gates_value.dtype
    weight = graph.constant(np.eye(gates, dtype=dtype)[rows][None])
    recurrent = graph.node("Gather", [graph.input(call, weight_hh_index), graph.int64s(rows)], axis=0)
    return weight, graph.unsqueeze(recurrent, [0]), rows, hidden_size


def _sequence(graph, name: str, time_axis_missing: bool) -> str:
    return graph.unsqueeze(name, [0]) if time_axis_missing else name


@maps(ops.LSTMSequence, ops.LSTMCell)
def lstm(graph, call):
    gates, hidden, cell, weight_hh = call.args[:4]
    reverse = bool(call.args[4]) if call.op is ops.LSTMSequence else False
    one_step = call.op is ops.LSTMCell
    weight, recurrent, _, hidden_size = _weights(graph, call, gates, 3, LSTM_ORDER)
    inputs = [
        _sequence(graph, graph.input(call, 0), one_step), weight, recurrent, None, None,
        graph.unsqueeze(graph.input(call, 1), [0]), graph.unsqueeze(graph.input(call, 2), [0]),
    ]
    output, last_hidden, last_cell = graph.node("LSTM", inputs, outputs=3, hidden_size=hidden_size,
                                                direction="reverse" if reverse else "forward")
    if one_step:
        return graph.squeeze(last_hidden, [0]), graph.squeeze(last_cell, [0])
    return graph.squeeze(output, [1]), graph.squeeze(last_hidden, [0]), graph.squeeze(last_cell, [0])


@maps(ops.GRUSequence, ops.GRUCell)
def gru(graph, call):
    gates, hidden, weight_hh, bias_hh = call.args[:4]
    reverse = bool(call.args[4]) if call.op is ops.GRUSequence else False
    one_step = call.op is ops.GRUCell
    weight, recurrent, rows, hidden_size = _weights(graph, call, gates, 2, GRU_ORDER)
    bias = None
    if bias_hh is not None:
        input_bias = graph.constant(np.zeros(3 * hidden_size, dtype=gates.dtype))
        recurrent_bias = graph.node("Gather", [graph.input(call, 3), graph.int64s(rows)], axis=0)
        bias = graph.unsqueeze(graph.node("Concat", [input_bias, recurrent_bias], axis=0), [0])
    inputs = [_sequence(graph, graph.input(call, 0), one_step), weight, recurrent, bias, None,
              graph.unsqueeze(graph.input(call, 1), [0])]
    output, last_hidden = graph.node("GRU", inputs, outputs=2, hidden_size=hidden_size, linear_before_reset=1,
                                     direction="reverse" if reverse else "forward")
    if one_step:
        return graph.squeeze(last_hidden, [0])
    return graph.squeeze(output, [1]), graph.squeeze(last_hidden, [0])
