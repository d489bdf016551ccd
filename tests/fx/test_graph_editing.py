"""Graph editing as ``torch.fx``'s documentation does it: the same code, written once for ``lib`` (``torch``
or ``minitorch``), edits the same module in both, and the edited graphs have the same nodes (op, name,
target); the edited minitorch module computes what the edit means.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minitorch
from minitorch import fx
from tests.fx.test_symbolic_trace import node_summary
from tests.support import require_torch


def _both(edit, builder):
    """Run ``edit(lib, traced)`` on the module ``builder(lib)`` traced by each library; the graphs' summaries."""
    torch = require_torch()
    summaries = []
    for lib in (torch, minitorch):
        lib.manual_seed(0)
        traced = lib.fx.symbolic_trace(builder(lib))
        edit(lib, traced)
        traced.graph.lint()
        traced.recompile()
        summaries.append(node_summary(traced.graph, lib))
    assert summaries[0] == summaries[1]
    return traced  # minitorch's


def _adds(lib):
    class M(lib.nn.Module):
        def forward(self, x, y):
            return lib.add(x, y) + y

    return M()


def replace_add_with_mul(lib, traced):
    """torch.fx docs, "Direct Graph Manipulation": every ``torch.add`` becomes ``torch.mul``."""
    for node in traced.graph.nodes:
        if node.op == "call_function" and node.target == lib.add:
            node.target = lib.mul


def test_replace_add_with_mul():
    traced = _both(replace_add_with_mul, _adds)
    x, y = minitorch.tensor([2.0, 3.0]), minitorch.tensor([4.0, 5.0])
    np.testing.assert_array_equal(traced(x, y).numpy(), (x * y + y).numpy())
    assert "minitorch.mul(x, y)" in traced.code


def insert_relu_after_each_add(lib, traced):
    """torch.fx docs: insert a node after another and make the old node's users read the new one."""
    for node in list(traced.graph.nodes):
        if node.op == "call_function" and node.target in (lib.add, operator.add):
            with traced.graph.inserting_after(node):
                new_node = traced.graph.call_function(lib.relu, args=(node,))
            node.replace_all_uses_with(new_node, delete_user_cb=lambda user, new=new_node: user is not new)


def test_insert_relu_after_each_add():
    traced = _both(insert_relu_after_each_add, _adds)
    x, y = minitorch.tensor([-2.0, 3.0]), minitorch.tensor([-4.0, 5.0])
    np.testing.assert_array_equal(traced(x, y).numpy(), minitorch.relu(minitorch.relu(x + y) + y).numpy())


def test_inserting_after_one_node_twice_puts_the_later_node_first():
    def edit(lib, traced):
        placeholder = next(iter(traced.graph.nodes))
        with traced.graph.inserting_after(placeholder):
            first = traced.graph.call_function(lib.neg, args=(placeholder,))
            traced.graph.call_function(lib.exp, args=(first,))

    with pytest.raises(RuntimeError, match="used before it has been defined"):
        _both(edit, _adds)  # the exp was placed before the neg it reads: lint says so, in both libraries


def _dead(lib):
    class MyModule(lib.nn.Module):  # torch.fx's eliminate_dead_code docstring
        def __init__(self):
            super().__init__()
            self.attr_1 = lib.nn.Parameter(lib.randn(5, 4))

        def forward(self, x):
            a = x + 1  # noqa: F841
            b = a * 2  # noqa: F841
            return x + self.attr_1

    return MyModule()


def test_eliminate_dead_code():
    changed = []
    traced = _both(lambda lib, gm: changed.append(gm.graph.eliminate_dead_code()), _dead)
    assert changed == [True, True]
    assert [node.name for node in traced.graph.nodes] == ["x", "attr_1", "add_1", "output"]
    assert traced.graph.eliminate_dead_code() is False


def decompose_relu(lib, traced):
    """Replace ``relu(x)`` by ``(x > 0) * x``: insert before, rewire, erase the old node."""
    for node in list(traced.graph.nodes):
        if node.op == "call_function" and node.target is lib.relu:
            with traced.graph.inserting_before(node):
                positive = traced.graph.call_function(operator.gt, (node.args[0], 0))
                masked = traced.graph.call_function(operator.mul, (positive, node.args[0]))
            node.replace_all_uses_with(masked)
            traced.graph.erase_node(node)


def test_decompose_relu_and_erase_it():
    def builder(lib):
        class M(lib.nn.Module):
            def forward(self, x):
                return lib.relu(x) * 3

        return M()

    traced = _both(decompose_relu, builder)
    x = minitorch.tensor([-1.0, 2.0])
    np.testing.assert_array_equal(traced(x).numpy(), [0.0, 6.0])


def test_erasing_a_node_in_use_is_refused_in_torch_words():
    torch = require_torch()
    messages = []
    for lib in (torch, minitorch):
        traced = lib.fx.symbolic_trace(_adds(lib))
        with pytest.raises(RuntimeError) as error:
            traced.graph.erase_node(next(node for node in traced.graph.nodes if node.op == "call_function"))
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_graph_built_by_hand_matches_torch_and_runs():
    torch = require_torch()
    summaries = []
    for lib in (torch, minitorch):
        graph = lib.fx.Graph()
        x = graph.placeholder("x")
        linear = graph.call_module("linear", (x,))
        weight = graph.get_attr("linear.weight")
        total = graph.call_method("sum", (weight,))
        graph.output(graph.call_function(operator.add, (linear, total)))
        lib.manual_seed(0)
        root = lib.nn.Module()
        root.linear = lib.nn.Linear(3, 2)
        module = lib.fx.GraphModule(root, graph)
        summaries.append(node_summary(module.graph, lib))
    assert summaries[0] == summaries[1]
    x = minitorch.randn(4, 3)
    np.testing.assert_allclose(module(x).detach().numpy(), (root.linear(x) + root.linear.weight.sum()).detach().numpy())
    assert module.code.strip().splitlines() == [
        "def forward(self, x):",
        "    linear = self.linear(x);  x = None",
        "    linear_weight = self.linear.weight",
        "    sum_1 = linear_weight.sum();  linear_weight = None",
        "    add = linear + sum_1;  linear = sum_1 = None",
        "    return add",
    ]


def test_print_tabular_lists_every_node(capsys):
    traced = fx.symbolic_trace(_adds(minitorch))
    traced.graph.print_tabular()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert [line.split()[:3] for line in lines[2:]] == [
        ["placeholder", "x", "x"], ["placeholder", "y", "y"], ["call_function", "add", "minitorch.add"],
        ["call_function", "add_1", "operator.add"], ["output", "output", "output"]]


def test_interpreter_subclass_changes_how_a_kind_of_node_runs():
    class CountingInterpreter(fx.Interpreter):
        def __init__(self, module):
            super().__init__(module)
            self.calls = []

        def call_function(self, target, args, kwargs):
            self.calls.append(target)
            return super().call_function(target, args, kwargs)

    traced = fx.symbolic_trace(_adds(minitorch))
    interpreter = CountingInterpreter(traced)
    x, y = minitorch.tensor([1.0]), minitorch.tensor([2.0])
    assert interpreter.run(x, y).item() == 5.0
    assert interpreter.calls == [minitorch.add, operator.add]
    assert [node.op for node in interpreter.env] == ["output"]  # the others were dropped after their last use


def test_transformer_from_torch_fx_docs_swaps_sigmoid_and_neg():
    """torch.fx.Transformer's docstring example, written once for both libraries."""
    torch = require_torch()
    summaries = []
    for lib in (torch, minitorch):
        class NegSigmSwapXformer(lib.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target == self.lib.sigmoid:
                    return self.lib.neg(*args, **kwargs)
                return super().call_function(target, args, kwargs)

            def call_method(self, target, args, kwargs):
                if target == "neg":
                    call_self, *args_tail = args
                    return call_self.sigmoid(*args_tail, **kwargs)
                return super().call_method(target, args, kwargs)

        NegSigmSwapXformer.lib = lib
        def fn(x):
            return lib.sigmoid(x).neg()  # noqa: B023 - traced within this iteration
        transformed = NegSigmSwapXformer(lib.fx.symbolic_trace(fn)).transform()
        transformed.graph.lint()
        summaries.append(node_summary(transformed.graph, lib))
    assert summaries[0] == summaries[1]
    x = minitorch.randn(3, 4)
    np.testing.assert_array_equal(transformed(x).numpy(), minitorch.neg(x).sigmoid().numpy())
