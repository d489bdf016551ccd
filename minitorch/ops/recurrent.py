"""Fused recurrent ops: an LSTM or GRU step, or a whole sequence of steps, as one graph node.

An LSTM step written with ordinary tensor ops is about a dozen small ops (a matrix
product, four gate nonlinearities, products and sums), repeated at every time step,
forward and backward. With arrays as small as a recurrent layer's, the time goes into
per-op bookkeeping, not arithmetic. So the step's math is written here once, on raw
arrays, as a pair of functions:

* ``_lstm_step_forward`` / ``_lstm_step_backward`` (and the GRU's pair): one time step
  forward, and the same step backward (its chain rule written out by hand);
* ``LSTMCell`` / ``GRUCell``: one step as one node (``nn.LSTMCell``, ``nn.GRUCell``);
* ``LSTMSequence`` / ``GRUSequence``: a whole layer direction as one node (``nn.LSTM``,
  ``nn.GRU``). Forward runs the steps in order; backward runs the step backward in
  *reverse* order, carrying ``dh`` (and ``dc``) from each step to the one before it:
  that is backpropagation through time. ``dW_hh`` sums over the steps, so it is one
  matrix product over all of them at the end.

The price of hand-written backwards: they are not themselves differentiable, so
gradients of gradients through an LSTM or GRU raise a clear error
(see ``_first_order_only``). The plain RNN step needs no fused op (it is just
``tanh(input_gates + h W_hh^T)``), so ``nn.functional`` builds it from ordinary ops and it
stays twice differentiable.

Gate layout is PyTorch's, so weights exchange with it: the rows of ``weight_hh`` (and of
``weight_ih``) are the gates stacked as ``i, f, g, o`` (LSTM) or ``r, z, n`` (GRU).
``input_gates`` is ``x W_ih^T + b_ih`` (plus ``b_hh`` for the LSTM, where the two biases
are simply added), computed for every time step at once before the loop over time.
In-place NumPy calls (``out=``, ``*=``) keep the arrays few: at these sizes each NumPy
call costs more than its arithmetic. Where they would hide the math, the plain version stands
beside the one that runs (``_lstm_step_backward`` and ``_lstm_step_backward_in_place``, the GRU's pair
likewise, and the LSTM layer's loops ``_lstm_sequence_forward`` / ``_lstm_sequence_backward`` and their
``_in_place`` twins).
"""

from __future__ import annotations

from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd.function import Op, _first_order_only
from ._util import array_module


def _sigmoid(x, xp):
    """``1 / (1 + e^-x)`` written as ``(1 + tanh(x / 2)) / 2``: the same function, and ``e^-x`` cannot overflow."""
    result = xp.multiply(x, 0.5)
    xp.tanh(result, out=result)
    result *= 0.5
    result += 0.5
    return result


def _wrap(array, like: Tensor) -> Tensor:
    return Tensor._make(array, like._device)


def _transposed(weight, xp):
    """``W^T`` as a contiguous array: BLAS multiplies by it about twice as fast as by the transposed view ``W.T``
    at these small sizes (measured with OpenBLAS), and one copy serves every time step."""
    return xp.ascontiguousarray(weight.T)


def _time_order(steps: int, reverse: bool):
    return range(steps - 1, -1, -1) if reverse else range(steps)


# -- LSTM --------------------------------------------------------------------------------------------
def _lstm_step_forward(xp, input_gates, hidden, cell, weight_hh_transposed):
    """One LSTM step (``H`` = hidden size; the gates are ``H`` columns each)::

        gates      = input_gates + h_prev @ W_hh^T          # (batch, 4H)
        i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of the four blocks
        c          = f * c_prev + i * g                     # the cell state: a gated running sum
        h          = o * tanh(c)

    Returns ``h``, ``c`` and what the backward needs: the activated gates and ``tanh(c)``.
    """
    size = cell.shape[-1]
    gates = hidden @ weight_hh_transposed
    gates += input_gates
    activated = _sigmoid(gates, xp)  # i, f and o; the g block is overwritten with tanh
    xp.tanh(gates[:, 2 * size:3 * size], out=activated[:, 2 * size:3 * size])
    input_gate, forget_gate, candidate, output_gate = (activated[:, k * size:(k + 1) * size] for k in range(4))
    new_cell = forget_gate * cell
    new_cell += input_gate * candidate
    tanh_cell = xp.tanh(new_cell)
    return output_gate * tanh_cell, new_cell, activated, tanh_cell


def _lstm_step_backward(xp, grad_hidden, grad_cell, cell, weight_hh, activated, tanh_cell):
    """The same step backward, with ``dh`` and ``dc`` the gradients arriving at ``h`` and ``c``::

        dc_total = dc + dh * o * (1 - tanh(c)^2)            # c reaches the loss directly and through h
        d_gates  = [dc_total * g, dc_total * c_prev, dc_total * i, dh * tanh(c)]   # what each gate multiplies
                   * [i (1 - i), f (1 - f), 1 - g^2, o (1 - o)]                      # each gate's own slope
        d_input_gates = d_gates;   dh_prev = d_gates @ W_hh;   dc_prev = dc_total * f

    Returns ``d_gates``, ``dh_prev`` and ``dc_prev`` (``dW_hh = d_gates^T @ h_prev`` is left to the caller).
    This is the reference: the ops run ``_lstm_step_backward_in_place``, the same arithmetic with fewer arrays.
    """
    size = cell.shape[-1]
    input_gate, forget_gate, candidate, output_gate = (activated[:, k * size:(k + 1) * size] for k in range(4))
    grad_cell_total = (1 - tanh_cell * tanh_cell) * output_gate * grad_hidden + grad_cell
    grad_gates = xp.concatenate(
        [grad_cell_total * candidate, grad_cell_total * cell, grad_cell_total * input_gate, grad_hidden * tanh_cell],
        axis=1,
    )
    slopes = xp.concatenate(
        [(1 - input_gate) * input_gate, (1 - forget_gate) * forget_gate, 1 - candidate * candidate,
         (1 - output_gate) * output_gate],
        axis=1,
    )
    grad_gates = grad_gates * slopes
    return grad_gates, grad_gates @ weight_hh, grad_cell_total * forget_gate


def _lstm_step_backward_in_place(xp, grad_hidden, grad_cell, cell, weight_hh, activated, tanh_cell):
    """Speed only: ``_lstm_step_backward``, its arithmetic done in place (``out=``, ``*=``) in a few arrays.

    At a recurrent layer's sizes each NumPy call costs more than its arithmetic, and this runs at every
    time step; the results are the same numbers, up to rounding (tests/nn/test_rnn.py compares the two).
    """
    size = cell.shape[-1]
    input_gate, forget_gate, candidate, output_gate = (activated[:, k * size:(k + 1) * size] for k in range(4))
    grad_cell_total = tanh_cell * tanh_cell
    xp.subtract(1, grad_cell_total, out=grad_cell_total)
    grad_cell_total *= output_gate
    grad_cell_total *= grad_hidden
    grad_cell_total += grad_cell
    grad_gates = xp.empty_like(activated)
    xp.multiply(grad_cell_total, candidate, out=grad_gates[:, :size])
    xp.multiply(grad_cell_total, cell, out=grad_gates[:, size:2 * size])
    xp.multiply(grad_cell_total, input_gate, out=grad_gates[:, 2 * size:3 * size])
    xp.multiply(grad_hidden, tanh_cell, out=grad_gates[:, 3 * size:])
    slopes = 1 - activated  # sigmoid' = s (1 - s) for i, f, o ...
    slopes *= activated
    candidate_slope = slopes[:, 2 * size:3 * size]  # ... and tanh' = 1 - g^2 for g
    xp.multiply(candidate, candidate, out=candidate_slope)
    xp.subtract(1, candidate_slope, out=candidate_slope)
    grad_gates *= slopes
    grad_cell_total *= forget_gate  # now dc_prev
    return grad_gates, grad_gates @ weight_hh, grad_cell_total


class LSTMCell(Op):
    """One LSTM step as one node: ``(h, c) = LSTMCell(input_gates, h_prev, c_prev, W_hh)``.

    Forward and backward are ``_lstm_step_forward`` / ``_lstm_step_backward``; ``dW_hh = d_gates^T @ h_prev``.
    """

    @staticmethod
    def forward(ctx, input_gates, hidden, cell, weight_hh):
        xp = array_module(input_gates)
        new_hidden, new_cell, activated, tanh_cell = _lstm_step_forward(xp, input_gates, hidden, cell, weight_hh.T)
        ctx.save_for_backward(hidden, cell, weight_hh, activated, tanh_cell)
        return new_hidden, new_cell

    @staticmethod
    @_first_order_only
    def backward(ctx, grad_hidden, grad_cell):
        hidden, cell, weight_hh, activated, tanh_cell = (t._data for t in ctx.saved_tensors)
        xp = array_module(hidden)
        grad_gates, grad_prev_hidden, grad_prev_cell = _lstm_step_backward_in_place(
            xp, grad_hidden._data, grad_cell._data, cell, weight_hh, activated, tanh_cell
        )
        needs = ctx.needs_input_grad
        return (
            _wrap(grad_gates, grad_hidden) if needs[0] else None,
            _wrap(grad_prev_hidden, grad_hidden) if needs[1] else None,
            _wrap(grad_prev_cell, grad_hidden) if needs[2] else None,
            _wrap(grad_gates.T @ hidden, grad_hidden) if needs[3] else None,
        )


class LSTMSequence(Op):
    """A whole LSTM layer direction as one node: ``(output, h_n, c_n) = LSTMSequence(input_gates, h_0, c_0, W_hh)``.

    ``input_gates`` is ``(time, batch, 4H)``; ``output[t]`` is ``h`` after step ``t``. With
    ``reverse`` the steps run from the last time to the first (the backward direction of a
    bidirectional layer); ``output`` stays in input order.

    Backward (through time): walk the steps in the opposite order; the gradient reaching
    ``h_t`` is ``d output[t]`` plus what step ``t + 1`` sent back to its ``h_prev`` (``dc``
    likewise); ``dW_hh = sum_t d_gates_t^T @ h_{t-1}``, one matrix product at the end.

    The loops are ``_lstm_sequence_forward`` / ``_lstm_sequence_backward`` (the steps above, one after
    the other); float32 and float64 run their "Speed only" twins, the same numbers with fewer NumPy calls.
    """

    @staticmethod
    def forward(ctx, input_gates, hidden, cell, weight_hh, reverse):
        xp = array_module(input_gates)
        run = _lstm_sequence_forward_in_place if _in_place_dtype(input_gates) else _lstm_sequence_forward
        hiddens, cells, activated, tanh_cells = run(xp, input_gates, hidden, cell, weight_hh, reverse)
        ctx.reverse = reverse
        ctx.save_for_backward(weight_hh, hiddens, cells, activated, tanh_cells)
        outputs, last = (hiddens[:-1], 0) if reverse else (hiddens[1:], -1)
        # Copies: the saved states must not change if the caller writes into the outputs.
        return outputs.copy(), hiddens[last].copy(), cells[last].copy()

    @staticmethod
    @_first_order_only
    def backward(ctx, grad_output, grad_last_hidden, grad_last_cell):
        weight_hh, hiddens, cells, activated, tanh_cells = (t._data for t in ctx.saved_tensors)
        xp = array_module(weight_hh)
        run = _lstm_sequence_backward_in_place if _in_place_dtype(activated) else _lstm_sequence_backward
        grad_input_gates, grad_hidden, grad_cell = run(
            xp, grad_output._data, grad_last_hidden._data, grad_last_cell._data, weight_hh, cells, activated,
            tanh_cells, ctx.reverse,
        )
        previous_hidden = hiddens[1:] if ctx.reverse else hiddens[:-1]  # h_{t-1} of every step
        gates, size = weight_hh.shape
        grad_weight_hh = grad_input_gates.reshape(-1, gates).T @ previous_hidden.reshape(-1, size)
        like = grad_last_hidden
        return _wrap(grad_input_gates, like), _wrap(grad_hidden, like), _wrap(grad_cell, like), \
            _wrap(grad_weight_hh, like), None


def _in_place_dtype(array) -> bool:
    """The "Speed only" loops write matrix products with ``out=``: NumPy's own float types only (a bfloat16
    product comes back in float32)."""
    return array.dtype == "float32" or array.dtype == "float64"


def _states(xp, steps: int, first, reverse: bool):
    """``(time + 1, ...)`` array of states, ``first`` (h_0 or c_0) where the walk starts: step ``t`` reads
    ``states[before]`` and writes ``states[after]`` (``before, after = t, t + 1``; reversed, ``t + 1, t``)."""
    states = xp.empty((steps + 1,) + first.shape, dtype=first.dtype)
    states[steps if reverse else 0] = first
    return states


def _before_after(time: int, reverse: bool):
    return (time + 1, time) if reverse else (time, time + 1)


def _lstm_sequence_forward(xp, input_gates, hidden, cell, weight_hh, reverse):
    """``_lstm_step_forward`` at every time step. Returns what the backward needs: the states ``hiddens`` and
    ``cells`` (``(time + 1, batch, H)``, see ``_states``), the activated gates and ``tanh(c)`` of every step."""
    steps = input_gates.shape[0]
    weight_hh_transposed = _transposed(weight_hh, xp)
    hiddens, cells = _states(xp, steps, hidden, reverse), _states(xp, steps, cell, reverse)
    activated = xp.empty_like(input_gates)
    tanh_cells = xp.empty_like(cells[1:])
    for time in _time_order(steps, reverse):
        before, after = _before_after(time, reverse)
        hiddens[after], cells[after], activated[time], tanh_cells[time] = _lstm_step_forward(
            xp, input_gates[time], hiddens[before], cells[before], weight_hh_transposed
        )
    return hiddens, cells, activated, tanh_cells


def _lstm_sequence_backward(xp, grad_output, grad_hidden, grad_cell, weight_hh, cells, activated, tanh_cells,
                            reverse):
    """``_lstm_step_backward`` (run as ``_lstm_step_backward_in_place``) at every time step, last step first.
    Returns ``d input_gates`` of every step and the gradients reaching ``h_0`` and ``c_0``."""
    grad_input_gates = xp.empty_like(activated)
    for time in _time_order(grad_output.shape[0], not reverse):
        before, _ = _before_after(time, reverse)
        grad_input_gates[time], grad_hidden, grad_cell = _lstm_step_backward_in_place(
            xp, grad_hidden + grad_output[time], grad_cell, cells[before], weight_hh, activated[time],
            tanh_cells[time],
        )
    return grad_input_gates, grad_hidden, grad_cell


def _lstm_sequence_forward_in_place(xp, input_gates, hidden, cell, weight_hh, reverse):
    """Speed only: ``_lstm_sequence_forward``, every step writing into the sequence's arrays (``out=``).

    Eleven NumPy calls a step, none of them allocating. All four gates go through one ``tanh``:
    ``sigmoid(x) = (1 + tanh(x / 2)) / 2``, so the columns of ``i``, ``f`` and ``o`` are halved before the
    ``tanh``, then halved and shifted by 1/2; ``g``'s columns (a plain ``tanh``) keep scale 1 and shift 0.
    """
    steps, batch, gates = input_gates.shape
    size = gates // 4
    scale = xp.full((batch, gates), 0.5, dtype=input_gates.dtype)  # full-sized: NumPy's fastest loop
    scale[:, 2 * size:3 * size] = 1  # the g block
    shift = 1 - scale  # 1/2 for i, f, o and 0 for g
    weight_hh_transposed = _transposed(weight_hh, xp)
    hiddens, cells = _states(xp, steps, hidden, reverse), _states(xp, steps, cell, reverse)
    activated = xp.empty_like(input_gates)
    tanh_cells = xp.empty_like(cells[1:])
    product = xp.empty_like(hidden)
    for time in _time_order(steps, reverse):
        before, after = _before_after(time, reverse)
        step_gates = activated[time]
        xp.matmul(hiddens[before], weight_hh_transposed, out=step_gates)  # the gates' pre-activations
        step_gates += input_gates[time]
        step_gates *= scale
        xp.tanh(step_gates, out=step_gates)
        step_gates *= scale
        step_gates += shift  # now i, f, g, o
        input_gate, forget_gate, candidate, output_gate = (step_gates[:, k * size:(k + 1) * size] for k in range(4))
        xp.multiply(forget_gate, cells[before], out=cells[after])  # c = f * c_prev + i * g
        xp.multiply(input_gate, candidate, out=product)
        cells[after] += product
        xp.tanh(cells[after], out=tanh_cells[time])
        xp.multiply(output_gate, tanh_cells[time], out=hiddens[after])  # h = o * tanh(c)
    return hiddens, cells, activated, tanh_cells


def _lstm_sequence_backward_in_place(xp, grad_output, grad_hidden, grad_cell, weight_hh, cells, activated,
                                     tanh_cells, reverse):
    """Speed only: ``_lstm_sequence_backward`` with what does not depend on the incoming gradients computed
    for every step at once, before the loop over time.

    In ``_lstm_step_backward`` each gate's gradient is ``dc_total`` (``dh`` for ``o``) times a factor made of
    saved values only, and ``dc_total = dc + dh * o (1 - tanh(c)^2)``::

        factors = [g i (1 - i), c_prev f (1 - f), i (1 - g^2), tanh(c) o (1 - o)]
        d_gates = [dc_total, dc_total, dc_total, dh] * factors

    so the loop keeps only the recurrence: seven NumPy calls a step instead of about twenty.
    """
    steps, batch, gates = activated.shape
    size = gates // 4
    blocks = activated.reshape(steps, batch, 4, size)  # [..., k, :] is gate k: i, f, g, o
    input_gate, forget_gate, candidate, output_gate = (blocks[:, :, k] for k in range(4))
    previous_cells = cells[1:] if reverse else cells[:-1]
    slopes = 1 - activated  # sigmoid' = s (1 - s) for i, f, o ...
    slopes *= activated
    slopes.reshape(steps, batch, 4, size)[:, :, 2] = 1 - candidate * candidate  # ... and tanh' = 1 - g^2 for g
    factors = xp.stack([candidate, previous_cells, input_gate, tanh_cells], axis=2).reshape(steps, batch, gates)
    factors *= slopes
    factors = factors.reshape(steps, batch, 4, size)
    cell_slope = 1 - tanh_cells * tanh_cells  # dc/dh through h = o tanh(c)
    cell_slope *= output_gate
    grad_input_gates = xp.empty_like(activated)
    grad_hidden = grad_hidden.copy()  # the loop updates both in place
    grad_cell = grad_cell.copy()
    grad_cell_total = xp.empty_like(grad_cell)
    for time in _time_order(steps, not reverse):
        grad_hidden += grad_output[time]
        xp.multiply(grad_hidden, cell_slope[time], out=grad_cell_total)
        grad_cell_total += grad_cell
        step_grad = grad_input_gates[time].reshape(batch, 4, size)
        xp.multiply(factors[time, :, :3], grad_cell_total[:, None, :], out=step_grad[:, :3])  # i, f, g
        xp.multiply(factors[time, :, 3], grad_hidden, out=step_grad[:, 3])  # o
        xp.matmul(grad_input_gates[time], weight_hh, out=grad_hidden)  # dh_prev
        xp.multiply(grad_cell_total, forget_gate[time], out=grad_cell)  # dc_prev
    return grad_input_gates, grad_hidden, grad_cell


# -- GRU ---------------------------------------------------------------------------------------------
def _gru_step_forward(xp, input_gates, hidden, weight_hh_transposed, bias_hh):
    """One GRU step (``input_gates = x W_ih^T + b_ih``; blocks ``r, z, n`` of ``H`` columns each)::

        hidden_gates = h_prev @ W_hh^T + b_hh                # (batch, 3H)
        r = sigmoid(input_r + hidden_r)                      # reset gate
        z = sigmoid(input_z + hidden_z)                      # update gate
        n = tanh(input_n + r * hidden_n)                     # candidate; r scales the *hidden* part only
        h = (1 - z) * n + z * h_prev

    Returns ``h`` and what the backward needs: ``[r, z]``, ``n`` and ``hidden_n``.
    """
    size = hidden.shape[-1]
    hidden_gates = hidden @ weight_hh_transposed
    if bias_hh is not None:
        hidden_gates += bias_hh
    reset_and_update = _sigmoid(input_gates[:, :2 * size] + hidden_gates[:, :2 * size], xp)
    reset_gate, update_gate = reset_and_update[:, :size], reset_and_update[:, size:]
    hidden_candidate = hidden_gates[:, 2 * size:]
    candidate = reset_gate * hidden_candidate
    candidate += input_gates[:, 2 * size:]
    xp.tanh(candidate, out=candidate)
    new_hidden = hidden - candidate
    new_hidden *= update_gate
    new_hidden += candidate
    return new_hidden, reset_and_update, candidate, hidden_candidate


def _gru_step_backward(xp, grad_hidden, hidden, weight_hh, reset_and_update, candidate, hidden_candidate):
    """The same step backward, with ``dh`` the gradient arriving at ``h``::

        dn = dh * (1 - z) * (1 - n^2)            dz = dh * (h_prev - n) * z (1 - z)
        dr = dn * hidden_n * r (1 - r)
        d_input_gates  = [dr, dz, dn]
        d_hidden_gates = [dr, dz, dn * r]
        dh_prev = dh * z + d_hidden_gates @ W_hh

    Returns ``d_input_gates``, ``d_hidden_gates`` and ``dh_prev`` (``dW_hh = d_hidden_gates^T @ h_prev``
    and ``db_hh = sum(d_hidden_gates)`` are left to the caller).
    This is the reference: the ops run ``_gru_step_backward_in_place``, the same arithmetic with fewer arrays.
    """
    size = hidden.shape[-1]
    reset_gate, update_gate = reset_and_update[:, :size], reset_and_update[:, size:]
    grad_candidate = (1 - candidate * candidate) * (1 - update_gate) * grad_hidden
    grad_reset = grad_candidate * hidden_candidate * reset_gate * (1 - reset_gate)
    grad_update = (hidden - candidate) * grad_hidden * update_gate * (1 - update_gate)
    grad_input_gates = xp.concatenate([grad_reset, grad_update, grad_candidate], axis=1)
    grad_hidden_gates = xp.concatenate([grad_reset, grad_update, grad_candidate * reset_gate], axis=1)
    grad_prev_hidden = grad_hidden_gates @ weight_hh + grad_hidden * update_gate
    return grad_input_gates, grad_hidden_gates, grad_prev_hidden


def _gru_step_backward_in_place(xp, grad_hidden, hidden, weight_hh, reset_and_update, candidate, hidden_candidate):
    """Speed only: ``_gru_step_backward``, its arithmetic done in place (``out=``, ``*=``) in a few arrays.

    At a recurrent layer's sizes each NumPy call costs more than its arithmetic, and this runs at every
    time step; the results are the same numbers, up to rounding (tests/nn/test_rnn.py compares the two).
    """
    size = hidden.shape[-1]
    reset_gate, update_gate = reset_and_update[:, :size], reset_and_update[:, size:]
    grad_input_gates = xp.empty((hidden.shape[0], 3 * size), dtype=hidden.dtype)
    grad_reset = grad_input_gates[:, :size]
    grad_update = grad_input_gates[:, size:2 * size]
    grad_candidate = grad_input_gates[:, 2 * size:]
    xp.multiply(candidate, candidate, out=grad_candidate)  # dn = dh (1 - z)(1 - n^2)
    xp.subtract(1, grad_candidate, out=grad_candidate)
    grad_candidate *= 1 - update_gate
    grad_candidate *= grad_hidden
    xp.multiply(grad_candidate, hidden_candidate, out=grad_reset)  # dr = dn hidden_n r (1 - r)
    grad_reset *= reset_gate
    grad_reset *= 1 - reset_gate
    xp.subtract(hidden, candidate, out=grad_update)  # dz = dh (h_prev - n) z (1 - z)
    grad_update *= grad_hidden
    grad_update *= update_gate
    grad_update *= 1 - update_gate
    grad_hidden_gates = grad_input_gates.copy()
    grad_hidden_gates[:, 2 * size:] *= reset_gate
    grad_prev_hidden = grad_hidden_gates @ weight_hh
    grad_prev_hidden += grad_hidden * update_gate
    return grad_input_gates, grad_hidden_gates, grad_prev_hidden


class GRUCell(Op):
    """One GRU step as one node: ``h = GRUCell(input_gates, h_prev, W_hh, b_hh)`` (``b_hh`` may be None).

    Forward and backward are ``_gru_step_forward`` / ``_gru_step_backward``;
    ``dW_hh = d_hidden_gates^T @ h_prev``, ``db_hh = sum over the batch of d_hidden_gates``.
    """

    @staticmethod
    def forward(ctx, input_gates, hidden, weight_hh, bias_hh):
        xp = array_module(input_gates)
        new_hidden, *saved = _gru_step_forward(xp, input_gates, hidden, weight_hh.T, bias_hh)
        ctx.save_for_backward(hidden, weight_hh, *saved)
        return new_hidden

    @staticmethod
    @_first_order_only
    def backward(ctx, grad_hidden):
        hidden, weight_hh, *saved = (t._data for t in ctx.saved_tensors)
        xp = array_module(hidden)
        grad_input_gates, grad_hidden_gates, grad_prev_hidden = _gru_step_backward_in_place(
            xp, grad_hidden._data, hidden, weight_hh, *saved
        )
        needs = ctx.needs_input_grad
        return (
            _wrap(grad_input_gates, grad_hidden) if needs[0] else None,
            _wrap(grad_prev_hidden, grad_hidden) if needs[1] else None,
            _wrap(grad_hidden_gates.T @ hidden, grad_hidden) if needs[2] else None,
            _wrap(grad_hidden_gates.sum(axis=0), grad_hidden) if needs[3] else None,
        )


class GRUSequence(Op):
    """A whole GRU layer direction as one node: ``(output, h_n) = GRUSequence(input_gates, h_0, W_hh, b_hh)``.

    Like ``LSTMSequence`` (see there), with the GRU step; ``db_hh`` also sums over time.
    """

    @staticmethod
    def forward(ctx, input_gates, hidden, weight_hh, bias_hh, reverse):
        xp = array_module(input_gates)
        steps, batch, _ = input_gates.shape
        size = hidden.shape[-1]
        weight_hh_transposed = _transposed(weight_hh, xp)
        output = xp.empty((steps, batch, size), dtype=input_gates.dtype)
        previous_hidden = xp.empty_like(output)
        reset_and_update = xp.empty((steps, batch, 2 * size), dtype=input_gates.dtype)
        candidates = xp.empty_like(output)
        hidden_candidates = xp.empty_like(output)
        for time in _time_order(steps, reverse):
            previous_hidden[time] = hidden
            hidden, reset_and_update[time], candidates[time], hidden_candidates[time] = _gru_step_forward(
                xp, input_gates[time], hidden, weight_hh_transposed, bias_hh
            )
            output[time] = hidden
        ctx.reverse = reverse
        ctx.save_for_backward(weight_hh, previous_hidden, reset_and_update, candidates, hidden_candidates)
        return output, hidden

    @staticmethod
    @_first_order_only
    def backward(ctx, grad_output, grad_last_hidden):
        weight_hh, previous_hidden, reset_and_update, candidates, hidden_candidates = (
            t._data for t in ctx.saved_tensors
        )
        xp = array_module(weight_hh)
        grad_output = grad_output._data
        steps = grad_output.shape[0]
        gates = weight_hh.shape[0]
        grad_input_gates = xp.empty(grad_output.shape[:2] + (gates,), dtype=grad_output.dtype)
        grad_hidden_gates = xp.empty_like(grad_input_gates)
        grad_hidden = grad_last_hidden._data
        for time in _time_order(steps, not ctx.reverse):
            grad_input_gates[time], grad_hidden_gates[time], grad_hidden = _gru_step_backward_in_place(
                xp, grad_hidden + grad_output[time], previous_hidden[time], weight_hh, reset_and_update[time],
                candidates[time], hidden_candidates[time],
            )
        flat_grad_hidden_gates = grad_hidden_gates.reshape(-1, gates)
        grad_weight_hh = flat_grad_hidden_gates.T @ previous_hidden.reshape(-1, weight_hh.shape[1])
        needs = ctx.needs_input_grad
        like = grad_last_hidden
        return (
            _wrap(grad_input_gates, like), _wrap(grad_hidden, like), _wrap(grad_weight_hh, like),
            _wrap(flat_grad_hidden_gates.sum(axis=0), like) if needs[3] else None, None,
        )
