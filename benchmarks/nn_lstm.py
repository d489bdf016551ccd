"""Recurrent workload: one LSTM layer over a sequence, forward and backward.

* ``lstm``: ``nn.LSTM(input_size=32, hidden_size=64)`` on a ``(20, 32, 32)`` float32
  sequence (20 time steps, batch 32); the loss is ``output.sum() + h_n.sum() + c_n.sum()``
  and one step is the forward pass and ``backward()``. Target: at most 3x PyTorch (CPU).

The time steps depend on each other, so the work is a loop of 20 small steps (a
``(32, 64) @ (64, 256)`` product and the gate arithmetic on ``(32, 256)`` arrays): the
per-step overhead of the framework counts as much as the arithmetic. minitorch and
PyTorch run the same code (``lib`` is the module) with the same weights. The NumPy
column is the same layer written by hand: the forward loop, then backpropagation through
time in reverse, the way a learner would derive it.
"""

from __future__ import annotations

import numpy as np

from benchmarks.workload import Target, Workload

_STEPS, _BATCH, _INPUTS, _HIDDEN = 20, 32, 32, 64


def _parameters():
    """Weights in PyTorch's layout (gates i, f, g, o stacked), drawn once for every framework."""
    rng = np.random.default_rng(7)
    bound = 1 / np.sqrt(_HIDDEN)

    def uniform(*shape):
        return rng.uniform(-bound, bound, size=shape).astype(np.float32)

    return {
        "weight_ih_l0": uniform(4 * _HIDDEN, _INPUTS),
        "weight_hh_l0": uniform(4 * _HIDDEN, _HIDDEN),
        "bias_ih_l0": uniform(4 * _HIDDEN),
        "bias_hh_l0": uniform(4 * _HIDDEN),
    }


def _input():
    return np.random.default_rng(8).standard_normal((_STEPS, _BATCH, _INPUTS)).astype(np.float32)


def _lstm_autograd(module_name):
    def setup():
        import importlib

        lib = importlib.import_module(module_name)
        layer = lib.nn.LSTM(_INPUTS, _HIDDEN)
        layer.load_state_dict({name: lib.tensor(value) for name, value in _parameters().items()})
        sequence = lib.tensor(_input(), requires_grad=True)
        parameters = list(layer.parameters())

        def step():
            layer.zero_grad()
            sequence.grad = None
            output, (last_hidden, last_cell) = layer(sequence)
            (output.sum() + last_hidden.sum() + last_cell.sum()).backward()
            return (sequence.grad, *[parameter.grad for parameter in parameters])

        return step

    return setup


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(0.5 * x))


def _lstm_numpy():
    parameters = _parameters()
    weight_ih, weight_hh = parameters["weight_ih_l0"], parameters["weight_hh_l0"]
    bias = parameters["bias_ih_l0"] + parameters["bias_hh_l0"]
    weight_hh_transposed = np.ascontiguousarray(weight_hh.T)
    sequence = _input()
    size = _HIDDEN

    def step():
        # Forward: the input part of every gate at once, then the loop over time.
        input_gates = (sequence.reshape(-1, _INPUTS) @ weight_ih.T + bias).reshape(_STEPS, _BATCH, 4 * size)
        hidden = np.zeros((_BATCH, size), np.float32)
        cell = np.zeros((_BATCH, size), np.float32)
        hiddens, cells, activations, tanh_cells = [hidden], [cell], [], []
        for time in range(_STEPS):
            gates = input_gates[time] + hidden @ weight_hh_transposed
            activated = _sigmoid(gates)
            activated[:, 2 * size:3 * size] = np.tanh(gates[:, 2 * size:3 * size])
            i, f, g, o = np.split(activated, 4, axis=1)
            cell = f * cell + i * g
            tanh_cell = np.tanh(cell)
            hidden = o * tanh_cell
            hiddens.append(hidden)
            cells.append(cell)
            activations.append(activated)
            tanh_cells.append(tanh_cell)
        # Backward through time: loss = sum(outputs) + sum(h_n) + sum(c_n).
        grad_hidden = np.ones((_BATCH, size), np.float32)  # from h_n
        grad_cell = np.ones((_BATCH, size), np.float32)  # from c_n
        grad_gates_all = np.empty_like(input_gates)
        for time in reversed(range(_STEPS)):
            grad_hidden = grad_hidden + 1.0  # every output[t] is summed into the loss
            i, f, g, o = np.split(activations[time], 4, axis=1)
            tanh_cell = tanh_cells[time]
            grad_cell = grad_cell + grad_hidden * o * (1 - tanh_cell**2)
            grad_gates = np.concatenate(
                [grad_cell * g * i * (1 - i), grad_cell * cells[time] * f * (1 - f), grad_cell * i * (1 - g**2),
                 grad_hidden * tanh_cell * o * (1 - o)], axis=1,
            )
            grad_gates_all[time] = grad_gates
            grad_hidden = grad_gates @ weight_hh
            grad_cell = grad_cell * f
        flat_grad_gates = grad_gates_all.reshape(-1, 4 * size)
        grad_sequence = (flat_grad_gates @ weight_ih).reshape(sequence.shape)
        grad_weight_ih = flat_grad_gates.T @ sequence.reshape(-1, _INPUTS)
        grad_weight_hh = flat_grad_gates.T @ np.concatenate(hiddens[:-1])
        grad_bias = flat_grad_gates.sum(axis=0)
        return grad_sequence, grad_weight_ih, grad_weight_hh, grad_bias, grad_bias

    return step


WORKLOADS = [
    Workload(
        name="lstm",
        description=(
            f"nn.LSTM({_INPUTS}, {_HIDDEN}) on a ({_STEPS}, {_BATCH}, {_INPUTS}) float32 sequence, "
            "forward+backward; time per step"
        ),
        setups={
            "minitorch": _lstm_autograd("minitorch"),
            "pytorch": _lstm_autograd("torch"),
            "numpy": _lstm_numpy,
        },
        steps=50,
        quick_steps=10,
        target=Target("pytorch", 3.0),
        unit="step",
        # float32 sums over 20 recurrent steps in different BLAS libraries differ in the last bits.
        rtol=1e-3,
    ),
]
