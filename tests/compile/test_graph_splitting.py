"""A graph break on a tensor's value splits the function: compiled graphs before and after it, the branch
itself run in Python, as TorchDynamo does. Checked against eager minitorch (float64, outputs and gradients)
and against PyTorch's own ``explain`` and compile counts for the same functions.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch._dynamo.testing import CompileCounter
from tests.support import require_torch

BACKENDS = ["eager", "aot_eager", "inductor"]


def branchy(x):
    y = x * 2
    if y.sum() > 0:
        return y + 1
    return y - 1


def uses_item(x):
    y = x.sin()
    s = y.sum().item()
    return y * s


def two_branches(x):
    y = x.exp() - 1.5
    if y.mean() > 0:
        y = y * 3
    else:
        y = y.tanh()
    z = y + x
    if z.max() > 2:
        return z.sum()
    return (z * z).sum()


def reads_other_values(x):
    a = x * 2
    b = x.cos()
    if a.sum() > 0:
        return a.sigmoid()
    return b * a  # this side reads a value of the first graph the other side never needs


class GatedBlock(nn.Module):
    """A module that takes a different layer when its hidden activity is large (a learned gate)."""

    def __init__(self):
        super().__init__()
        self.first, self.wide, self.narrow = nn.Linear(4, 5), nn.Linear(5, 3), nn.Linear(5, 3)

    def forward(self, x):
        hidden = self.first(x).tanh()
        if hidden.abs().mean() > 0.3:
            return self.wide(hidden)
        return self.narrow(hidden) * 2


def _values(function, x, parameters=()):
    for parameter in parameters:
        parameter.grad = None
    x = x.detach().requires_grad_(True)
    output = function(x)
    rng = np.random.default_rng(7)
    (output * minitorch.from_numpy(rng.standard_normal(tuple(output.shape)))).sum().backward()
    return [output.detach().numpy(), x.grad.numpy()] + [  # the layer of the side not taken gets no gradient
        np.zeros(tuple(p.shape)) if p.grad is None else p.grad.numpy().copy() for p in parameters]


def _inputs(rng, count=8, shape=(3, 4)):
    return [minitorch.from_numpy(rng.standard_normal(shape) * scale) for scale in np.linspace(-2, 2, count)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("function", [branchy, uses_item, two_branches, reads_other_values])
def test_split_functions_give_eager_outputs_and_gradients(function, backend):
    rng = np.random.default_rng(0)
    compiled = minitorch.compile(function, backend=backend)
    for x in _inputs(rng) * 2:  # every side of every branch, first recorded then compiled
        for got, expected in zip(_values(compiled, x), _values(function, x)):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_gated_module_trains_its_parameters_through_both_graphs(backend):
    minitorch.manual_seed(0)
    model = GatedBlock().double()
    compiled = minitorch.compile(model, backend=backend)
    parameters = list(model.parameters())
    for x in _inputs(np.random.default_rng(1)) * 2:
        for got, expected in zip(_values(compiled, x, parameters), _values(model, x, parameters)):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert compiled._compiled.compile_count == 3  # before the gate, and one graph for each side of it


def test_compiled_graphs_run_on_later_calls_and_the_branch_between_them():
    counter = CompileCounter()
    compiled = minitorch.compile(branchy, backend=counter)
    x = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    compiled(x)
    assert counter.frame_count == 2
    graphs = [[node.target for node in graph.graph.nodes if node.op == "call_function"] for graph in counter.graphs]
    assert [getattr(op, "__name__", "") for op in graphs[0]] == ["Mul", "Sum", "gt"]
    assert [getattr(op, "__name__", "") for op in graphs[1]] == ["Add"]
    # a later call on the same side runs the compiled graphs: gradients come from each graph in turn
    output = compiled(x)
    assert counter.frame_count == 2 and output.grad_fn.name() == "AddBackward0"
    output.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_explain_counts_graphs_and_breaks_as_torch_does():
    torch = require_torch()
    for function in (branchy, uses_item, two_branches):
        ours = minitorch._dynamo.explain(function)(minitorch.tensor([1.0, 2.0, 0.5]))
        theirs = torch._dynamo.explain(function)(torch.tensor([1.0, 2.0, 0.5]))
        assert (ours.graph_count, ours.graph_break_count) == (theirs.graph_count, theirs.graph_break_count), \
            function.__name__
        assert [reason.reason.splitlines()[0] for reason in ours.break_reasons] == \
            [reason.reason.splitlines()[0] for reason in theirs.break_reasons]
        assert [reason.user_stack[-1].lineno for reason in ours.break_reasons] == \
            [reason.user_stack[-1].lineno for reason in theirs.break_reasons]
    ours = minitorch._dynamo.explain(branchy)(minitorch.tensor([1.0, 2.0]))
    assert "Graph Count: 2" in str(ours) and "Graph Break Count: 1" in str(ours)


def test_compile_counts_follow_torch_over_a_sequence_of_calls():
    torch = require_torch()
    testing = importlib.import_module("torch._dynamo.testing")  # not imported by torch itself

    sequence = [[1.0, 2.0], [-3.0, 1.0], [2.0, 2.0], [-1.0, -1.0], [5.0, 1.0]]
    for function in (branchy, two_branches, reads_other_values):
        ours, theirs = CompileCounter(), testing.CompileCounter()
        torch._dynamo.reset()
        compiled_ours = minitorch.compile(function, backend=ours)
        compiled_theirs = torch.compile(function, backend=theirs)
        counts = []
        for values in sequence:
            compiled_ours(minitorch.tensor(values))
            compiled_theirs(torch.tensor(values))
            counts.append((ours.frame_count, theirs.frame_count))
        assert all(mine == torch_count for mine, torch_count in counts), (function.__name__, counts)


def test_item_outcomes_are_guarded_by_value():
    compiled = minitorch.compile(uses_item, backend="aot_eager")
    x = minitorch.tensor([0.5, 1.0], dtype=minitorch.float64)
    first = compiled(x).numpy()
    np.testing.assert_allclose(compiled(x).numpy(), first, rtol=1e-12)
    other = minitorch.tensor([0.1, 0.2], dtype=minitorch.float64)
    np.testing.assert_allclose(compiled(other).numpy(), uses_item(other).numpy(), rtol=1e-12)


def test_fullgraph_still_refuses_a_branch():
    with pytest.raises(minitorch._dynamo.Unsupported, match="generic_jump"):
        minitorch.compile(branchy, fullgraph=True)(minitorch.tensor([1.0]))


def prints_between(x):
    y = x * 2
    print("y is", y)
    return y + 1


def test_print_splits_the_graph_and_prints_every_call_as_torch_does(capsys):
    torch = require_torch()
    ours = minitorch._dynamo.explain(prints_between)(minitorch.tensor([1.0, 2.0]))
    theirs = torch._dynamo.explain(prints_between)(torch.tensor([1.0, 2.0]))
    assert (ours.graph_count, ours.graph_break_count) == (theirs.graph_count, theirs.graph_break_count) == (2, 1)
    assert ours.break_reasons[0].reason.splitlines()[0] == theirs.break_reasons[0].reason.splitlines()[0]
    capsys.readouterr()
    counter = CompileCounter()
    compiled = minitorch.compile(prints_between, backend=counter)
    for value in (1.0, 2.0, 3.0):
        x = minitorch.tensor([value], dtype=minitorch.float64, requires_grad=True)
        output = compiled(x)
        output.sum().backward()
        assert output.item() == 2 * value + 1 and x.grad.item() == 2.0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split("(")[0] for line in printed] == ["y is tensor"] * 3 and "6." in printed[-1]
    assert counter.frame_count == 2


def test_a_break_that_is_not_a_branch_or_print_still_runs_the_call_eagerly():
    def draws_then_branches(x):
        y = x * minitorch.rand(1)
        if y.sum() > 0:
            return y * 2
        return y

    counter = CompileCounter()
    compiled = minitorch.compile(draws_then_branches, backend=counter)
    assert compiled(minitorch.tensor([1.0])).shape == (1,)
    assert counter.frame_count == 0 and "random numbers" in compiled._compiled.graph_breaks[0].reason
