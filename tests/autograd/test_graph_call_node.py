"""graph.call_node runs one node's backward as one step of the engine does: PyTorch's ``grad_fn(grad)``
followed by the engine's reduction of each gradient to its input's shape (``validate_outputs``)."""

from __future__ import annotations

import numpy as np

import minitorch
from minitorch.autograd import graph
from tests.support import require


def test_call_node_matches_pytorchs_callable_grad_fn():
    torch = require("torch", "the oracle")
    a_values = np.random.default_rng(0).standard_normal((1, 4))
    b_values = np.random.default_rng(1).standard_normal((3, 1))
    grad = np.random.default_rng(2).standard_normal((3, 4))
    a, b = (minitorch.tensor(v, requires_grad=True) for v in (a_values, b_values))
    ta, tb = (torch.tensor(v, requires_grad=True) for v in (a_values, b_values))
    ours = graph.call_node((a * b).grad_fn, minitorch.tensor(grad))
    theirs = (ta * tb).grad_fn(torch.tensor(grad))
    assert len(ours) == len(theirs) == 2
    for mine, reference, leaf in zip(ours, theirs, (ta, tb)):
        reference = reference.sum_to_size(leaf.shape)  # what PyTorch's engine does next
        assert mine.shape == tuple(leaf.shape)
        np.testing.assert_allclose(mine.numpy(), reference.detach().numpy(), rtol=1e-12)
        assert mine.grad_fn is None  # not recorded without create_graph


def test_call_node_keeps_the_graph_and_leaves_have_no_inputs():
    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()
    first = graph.call_node(y.grad_fn, minitorch.ones(2))
    again = graph.call_node(y.grad_fn, minitorch.ones(2))
    assert minitorch.equal(first[0], again[0]) and minitorch.allclose(first[0], a.detach().exp())
    leaf = y.grad_fn.next_functions[0][0]
    assert graph.call_node(leaf, minitorch.ones(2)) == ()
    (recorded,) = graph.call_node(y.grad_fn, minitorch.ones(2, requires_grad=True), create_graph=True)
    assert recorded.grad_fn is not None
