"""Memory: the graph is freed by reference counting alone, and training loops stay flat.

The graph points only from outputs to inputs (DESIGN.md section 3), so once backward has
run and the output is dropped, every node and every saved array is freed at once, without
Python's cycle collector. These tests switch the collector off to prove it, look for
reference cycles with ``gc.DEBUG_SAVEALL``, and watch a 1,000-step training loop with
``tracemalloc``.
"""

from __future__ import annotations

import contextlib
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import minitorch


@contextlib.contextmanager
def collector_off():
    """No automatic cycle collection inside: only reference counting frees objects."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _graph_objects(objects) -> list:
    return [
        o
        for o in objects
        if isinstance(o, (minitorch.Tensor, minitorch.autograd.Node)) or type(o).__module__.startswith("minitorch")
    ]


@contextlib.contextmanager
def cycles_found():
    """Collect the cycles made inside the block; yields a list filled with the minitorch objects in them."""
    found = []
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
        gc.collect()
        found.extend(_graph_objects(gc.garbage))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


def _parameters(seed=0):
    rng = np.random.default_rng(seed)
    weight1 = minitorch.tensor(rng.standard_normal((1, 8, 4)), requires_grad=True)
    bias1 = minitorch.tensor(rng.standard_normal(8), requires_grad=True)
    weight2 = minitorch.tensor(rng.standard_normal((1, 8)), requires_grad=True)
    bias2 = minitorch.tensor(rng.standard_normal(1), requires_grad=True)
    return [weight1, bias1, weight2, bias2]


class _Tanh(minitorch.autograd.Function):
    """A custom Function in the loop too: its node and saved output must be freed like built-in ones."""

    @staticmethod
    def forward(ctx, x):
        exp_2x = minitorch.from_numpy(np.exp(2 * x.detach().numpy()))
        y = (exp_2x - 1) / (exp_2x + 1)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (1 - y * y)


def _loss(parameters, inputs, target):
    """A two-layer network written with * + sum and a custom tanh."""
    weight1, bias1, weight2, bias2 = parameters
    hidden = _Tanh.apply((inputs.reshape(-1, 1, 4) * weight1).sum(2) + bias1)
    output = (hidden * weight2).sum(1) + bias2
    error = output - target
    return (error * error).sum() / target.shape[0]


def _training_step(parameters, inputs, target, learning_rate=0.01):
    loss = _loss(parameters, inputs, target)
    loss.backward()
    with minitorch.no_grad():
        for parameter in parameters:
            parameter.sub_(parameter.grad * learning_rate)
            parameter.grad = None
    return loss.item()


def _data(seed=1, rows=16):
    rng = np.random.default_rng(seed)
    return minitorch.tensor(rng.standard_normal((rows, 4))), minitorch.tensor(rng.standard_normal(rows))


# -- freed by reference counting ------------------------------------------------------------------
def test_graph_and_saved_arrays_freed_after_backward_and_dropping_the_output():
    with collector_off():
        x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        hidden = x * 2.0
        loss = (hidden * hidden).sum()  # MulBackward0 saves ``hidden``
        product_node = loss.grad_fn.next_functions[0][0]
        node_ref = weakref.ref(product_node)
        sum_node_ref = weakref.ref(loss.grad_fn)
        hidden_ref = weakref.ref(hidden)
        hidden_array_ref = weakref.ref(hidden._data)
        del product_node, hidden
        assert hidden_ref() is not None  # still saved for backward
        loss.backward()
        assert hidden_ref() is None  # backward released the saved tensor
        assert hidden_array_ref() is None
        assert node_ref() is not None  # the node lives as long as the output that points to it
        del loss
        assert node_ref() is None and sum_node_ref() is None
        assert x.grad.tolist() == [8.0, 16.0, 24.0]


def test_graph_freed_when_output_dropped_without_backward():
    with collector_off():
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        hidden = x * 3.0
        out = _Tanh.apply(hidden) * hidden
        node_ref = weakref.ref(out.grad_fn)
        tanh_node_ref = weakref.ref(out.grad_fn.next_functions[0][0])
        hidden_ref = weakref.ref(hidden)
        del hidden
        assert hidden_ref() is not None
        del out
        assert node_ref() is None and tanh_node_ref() is None and hidden_ref() is None


def test_graph_freed_after_retain_graph_once_output_dropped():
    with collector_off():
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        hidden = x * 2.0
        loss = (hidden * hidden).sum()
        hidden_ref = weakref.ref(hidden)
        del hidden
        loss.backward(retain_graph=True)
        loss.backward()
        assert hidden_ref() is None
        node_ref = weakref.ref(loss.grad_fn)
        del loss
        assert node_ref() is None


def test_saved_output_is_freed_with_its_node():
    with collector_off():
        x = minitorch.tensor([0.5, -0.5], requires_grad=True)
        y = _Tanh.apply(x)  # saves its own output
        y_array_ref = weakref.ref(y._data)
        node_ref = weakref.ref(y.grad_fn)
        loss = (y * 3.0).sum()
        del y
        assert y_array_ref() is not None
        del loss
        assert node_ref() is None and y_array_ref() is None


def test_leaf_accumulator_does_not_keep_the_leaf_alive():
    with collector_off():
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        accumulator_ref = weakref.ref((x * 2.0).grad_fn.next_functions[0][0])
        x_ref = weakref.ref(x)
        loss = (x * x).sum()
        loss.backward()
        del loss
        assert accumulator_ref() is None
        del x
        assert x_ref() is None


def test_autograd_grad_create_graph_graph_freed():
    with collector_off():
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        (first,) = minitorch.autograd.grad((x * x * x).sum(), x, create_graph=True)
        node_ref = weakref.ref(first.grad_fn)
        (second,) = minitorch.autograd.grad(first.sum(), x)
        assert second.tolist() == [6.0, 12.0]
        del first
        assert node_ref() is None


def test_retain_grad_and_hooks_free_the_graph():
    with collector_off():
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        hidden = x * 2.0
        hidden.retain_grad()
        hidden.register_hook(lambda grad: grad * 2)
        loss = (hidden * hidden).sum()
        loss.backward()
        hidden_ref, node_ref = weakref.ref(hidden), weakref.ref(loss.grad_fn)
        assert hidden.grad.tolist() == [8.0, 16.0]
        del hidden, loss
        assert hidden_ref() is None and node_ref() is None


def test_graph_steps_are_freed_after_stepping():
    from minitorch.autograd import graph

    with collector_off():
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        loss = (x * x * 2.0).sum()
        node_ref = weakref.ref(loss.grad_fn)
        steps = list(graph.step_backward(loss))
        del loss
        assert node_ref() is not None  # the recorded steps still hold the nodes they ran
        del steps
        assert node_ref() is None


# -- no reference cycles ---------------------------------------------------------------------------
def test_training_step_makes_no_reference_cycles():
    parameters = _parameters()
    inputs, target = _data()
    _training_step(parameters, inputs, target)  # warm up imports and caches outside the measured block
    with cycles_found() as cycles:
        for _ in range(3):
            _training_step(parameters, inputs, target)
    assert cycles == []


def test_higher_order_gradients_make_no_reference_cycles():
    with cycles_found() as cycles:
        x = minitorch.tensor([0.3, -1.2], dtype=minitorch.float64, requires_grad=True)
        (first,) = minitorch.autograd.grad((_Tanh.apply(x) * x * x).sum(), x, create_graph=True)
        (second,) = minitorch.autograd.grad(first.sum(), x)
        del first, second, x
    assert cycles == []


def test_in_place_and_views_make_no_reference_cycles():
    with cycles_found() as cycles:
        x = minitorch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        hidden = x * 1.0
        view = hidden.view(2, 2)
        hidden.mul_(2.0)
        (view * view).sum().backward()
        del x, hidden, view
    assert cycles == []


def test_errors_in_backward_make_no_graph_cycles():
    with cycles_found() as cycles:
        x = minitorch.tensor([1.0, 2.0], requires_grad=True)
        loss = (x * x).sum()
        loss.backward()
        with pytest.raises(RuntimeError):
            loss.backward()
        del loss, x
    assert cycles == []


# -- a long training loop stays flat --------------------------------------------------------------
def test_thousand_training_steps_keep_memory_flat():
    # The collector stays off, so a reference cycle made per step would show up as growth too.
    # The first few hundred steps fill Python's free lists (small tuples of shapes), which tracemalloc
    # counts as allocated: those run untraced, then memory is measured from step 300 to step 1000.
    parameters = _parameters()
    inputs, target = _data()
    losses = []
    with collector_off():
        for _ in range(200):
            losses.append(_training_step(parameters, inputs, target))
        tracemalloc.start()
        try:
            for step in range(200, 1000):
                losses.append(_training_step(parameters, inputs, target))
                if step == 299:
                    at_300 = tracemalloc.get_traced_memory()[0]
            at_1000 = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
    assert losses[-1] < losses[0]  # it really trained
    # 700 steps of ~25 ops each: keeping one node or one small array per step would exceed this.
    assert at_1000 - at_300 < 100_000, f"memory grew by {at_1000 - at_300} bytes over 700 steps"
