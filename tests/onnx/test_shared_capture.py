"""One capture for two uses: ``minitorch.onnx.export`` records with ``minitorch.compile``'s recorder, so for the same
forward pass both get the same FX graph of ops, and the exporter's calls are read from that graph.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minitorch
from benchmarks import _course_models as course_models
from minitorch._dynamo.capture import OpCall, _Recorder, capture
from minitorch._dynamo.recording import EntryPoints, Listener
from minitorch.onnx import _export
from minitorch.onnx._trace import Tracer


def _compiler_ops(model, inputs) -> list[str]:
    named = {id(tensor): (name, tensor) for name, tensor in model.state_dict(keep_vars=True).items()}
    with minitorch.no_grad():
        captured = capture(model, inputs, {}, named)
    assert captured.graph_break is None
    return [node.target.op.__name__ if isinstance(node.target, OpCall) else node.target.__name__
            for node in captured.graph_module.graph.nodes
            if node.op == "call_function" and node.target is not operator.getitem]  # getitem: a tuple output's part


def _exporter_ops(model, inputs) -> list[str]:
    tracer, _ = _export._record(model, inputs, {}, _export._parameter_names(model), False, "warn")
    graph_ops = [node.target.op.__name__ for node in tracer.graph_module.graph.nodes
                 if node.op == "call_function" and node.target is not operator.getitem]
    assert graph_ops == [call.name for call in tracer.calls]  # the calls the mappings take: the graph's nodes
    return graph_ops


@pytest.mark.parametrize("name", ["mlp", "cnn", "lstm", "transformer"])
def test_the_compiler_and_the_exporter_record_the_same_ops(name):
    minitorch.manual_seed(0)
    model = getattr(course_models, name)(minitorch).eval()
    inputs = (minitorch.from_numpy(course_models.example_input(name, 4)),)
    compiler, exporter = _compiler_ops(model, inputs), _exporter_ops(model, inputs)
    assert len(compiler) > 3 and compiler == exporter


def test_the_exported_graph_is_the_compilers_graph_and_runs():
    minitorch.manual_seed(0)
    model = course_models.mlp(minitorch).eval()
    x = minitorch.from_numpy(course_models.example_input("mlp", 4))
    tracer, _ = _export._record(model, (x,), {}, _export._parameter_names(model), False, "warn")
    assert isinstance(tracer, _Recorder)
    with minitorch.no_grad():
        np.testing.assert_array_equal(tracer.graph_module(x)[0].numpy(), model(x).numpy())


def test_both_recorders_listen_through_the_shared_entry_points(monkeypatch):
    seen = []
    original_enter = EntryPoints.__enter__

    def enter(self):
        seen.append(type(self.listener).__name__)
        return original_enter(self)

    monkeypatch.setattr(EntryPoints, "__enter__", enter)
    model = minitorch.nn.Linear(3, 2)
    x = minitorch.randn(2, 3)
    minitorch.compile(model, backend="eager")(x)
    _exporter_ops(model, (x,))
    assert seen == ["_Recorder", "Tracer"]
    assert issubclass(Tracer, Listener)
    # and the entry points are put back afterwards
    assert minitorch.autograd.Function.apply.__func__.__name__ == "apply"
    np.testing.assert_array_equal(model(x).detach().numpy(), (x @ model.weight.T + model.bias).detach().numpy())
