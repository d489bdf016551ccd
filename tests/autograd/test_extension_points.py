"""The plain core and its extension points (``minitorch/autograd/_extensions.py``).

The core calls PyTorch's extras only where a node says it has some (``_extras``, set where a hook is
registered) or a walk asks for them (``autograd.grad``): these tests check that a hook registered at
any moment still runs, against PyTorch, and that a plain computation runs none of the extensions.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _both(torch, build):
    return build(minitorch), build(torch)


def test_a_leaf_hook_registered_after_the_graph_is_built_still_runs(torch):
    """The leaf's accumulator already exists when the hook arrives: registering it must flag that node."""

    def build(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        loss = (x * x).sum()
        seen = []
        x.register_hook(lambda grad: seen.append(grad.tolist()) or grad * 10)
        loss.backward()
        return seen, x.grad.tolist()

    mine, theirs = _both(torch, build)
    assert mine == theirs == ([[2.0, 4.0]], [20.0, 40.0])


def test_a_leaf_hook_registered_before_its_accumulator_exists_runs(torch):
    def build(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda grad: grad + 1)
        (x * 3).sum().backward()
        return x.grad.tolist()

    mine, theirs = _both(torch, build)
    assert mine == theirs == [4.0, 4.0]


def test_an_accumulator_prehook_and_a_node_hook_run(torch):
    def build(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        product = x * 2
        loss = product.sum()
        accumulator = product.grad_fn.next_functions[0][0]
        received, returned = [], []
        accumulator.register_prehook(lambda grads: received.append(grads[0].tolist()) or (grads[0] * 0.5,))
        product.grad_fn.register_hook(lambda grad_inputs, grad_outputs: returned.append(len(grad_inputs)))
        loss.backward()
        return received, returned, x.grad.tolist()

    mine, theirs = _both(torch, build)
    assert mine == theirs == ([[2.0, 2.0]], [2], [1.0, 1.0])


def test_a_plain_multiply_and_backward_runs_none_of_the_extensions():
    x = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = minitorch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    extensions = str(Path(minitorch.__file__).parent / "autograd" / "_extensions.py")
    called = []

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == extensions:
            called.append(frame.f_code.co_name)

    for _ in range(2):  # the second time the leaves' gradients exist and are added to
        previous = sys.gettrace()
        sys.settrace(tracer)
        try:
            (x * y).sum().backward()
        finally:
            sys.settrace(previous)
    assert called == []
    assert x.grad.tolist() == [[1.0, -2.0], [4.0, 0.5]]
