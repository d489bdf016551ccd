"""``minitorch.fx.symbolic_trace``: the traced module computes what the module computes, its generated code
runs on its own, and the graph is the one ``torch.fx`` records for the same module (node names, ops, targets).
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from benchmarks import _course_models as course_models
from minitorch import fx, nn
from tests.support import require_torch


def _same(traced_output, eager_output):
    if isinstance(eager_output, (tuple, list)):
        assert len(traced_output) == len(eager_output)
        for traced_item, eager_item in zip(traced_output, eager_output):
            _same(traced_item, eager_item)
    elif isinstance(eager_output, minitorch.Tensor):
        np.testing.assert_array_equal(traced_output.detach().numpy(), eager_output.detach().numpy())
    else:
        assert traced_output == eager_output


def _round_trip(traced, *inputs):
    """Execute ``traced.code`` with the globals it names and run the resulting forward on ``traced``."""
    python_code = traced.graph.python_code("self")
    assert python_code.src == traced.code
    namespace = dict(python_code.globals)
    exec(traced.code, namespace)
    return namespace["forward"](traced, *inputs)


def _check(model, *inputs):
    minitorch.manual_seed(0)
    model.eval()
    traced = fx.symbolic_trace(model)
    traced.graph.lint()
    with minitorch.no_grad():
        expected = model(*inputs)
        _same(traced(*inputs), expected)
        _same(_round_trip(traced, *inputs), expected)
        _same(fx.Interpreter(traced).run(*inputs), expected)
    return traced


class Families(nn.Module):
    """One layer of each nn family, called from a forward that also uses functions, methods and operators."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.batch_norm = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.linear = nn.Linear(4, 6)
        self.layer_norm = nn.LayerNorm(6)
        self.dropout = nn.Dropout(0.5)
        self.activation = nn.GELU()
        self.embedding = nn.Embedding(10, 6)
        self.conv1d = nn.Conv1d(6, 6, 3, padding=1)
        self.upsample = nn.Upsample(scale_factor=2)
        self.gru = nn.GRU(6, 5, batch_first=True)
        self.cell = nn.LSTMCell(5, 5)
        self.attention = nn.MultiheadAttention(6, 2, batch_first=True)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, images, tokens, target):
        x = self.pool(minitorch.relu(self.batch_norm(self.conv(images))))
        x = self.layer_norm(self.linear(self.flatten(self.avg(x))))
        x = self.dropout(self.activation(x))
        words = self.embedding(tokens)
        attended, _ = self.attention(words, words, words)
        sequence = self.conv1d(attended.transpose(1, 2)).transpose(1, 2)
        widened = self.upsample(sequence.transpose(1, 2))
        outputs, last = self.gru(sequence + x.unsqueeze(1))
        h, c = self.cell(outputs[:, -1], (last[0], last[0]))
        scores = nn.functional.softmax(h @ h.T, dim=-1)
        return self.loss(scores, target) + widened.mean(), h * c


def test_every_nn_family_traced_as_leaves_gives_eager_outputs():
    minitorch.manual_seed(0)
    model = Families()
    images, tokens, target = minitorch.randn(2, 3, 8, 8), minitorch.randint(0, 10, (2, 7)), minitorch.tensor([1, 0])
    traced = _check(model, images, tokens, target)
    called = {node.target for node in traced.graph.nodes if node.op == "call_module"}
    assert called == {name for name, _ in model.named_children()}


@pytest.mark.parametrize("name", ["mlp", "cnn", "lstm", "gru", "transformer"])
def test_course_models_trace_to_their_eager_outputs(name):
    minitorch.manual_seed(0)
    model = course_models.BUILDERS[name](minitorch)
    inputs = minitorch.tensor(course_models.example_input(name, 4))
    _check(model, inputs)


def test_an_lstm_cell_written_out_traces_through_its_gates():
    class Cell(nn.Module):
        def __init__(self):
            super().__init__()
            self.gates = nn.Linear(8, 16)

        def forward(self, x, h, c):
            i, f, g, o = self.gates(minitorch.cat([x, h], dim=1)).chunk(4, dim=1)
            c = minitorch.sigmoid(f) * c + minitorch.sigmoid(i) * minitorch.tanh(g)
            return minitorch.sigmoid(o) * minitorch.tanh(c), c

    minitorch.manual_seed(0)
    traced = _check(Cell(), minitorch.randn(3, 4), minitorch.randn(3, 4), minitorch.randn(3, 4))
    assert [node.target for node in traced.graph.nodes if node.op == "call_method"] == ["chunk"]


def test_transformer_encoder_layer_as_root_fails_as_in_torch_and_traces_as_a_leaf():
    torch = require_torch()
    with pytest.raises(RuntimeError) as expected:
        torch.fx.symbolic_trace(torch.nn.TransformerEncoderLayer(16, 4, 32, 0.0, batch_first=True))
    with pytest.raises(RuntimeError) as ours:  # its forward checks the mask's type: a proxy is not a tensor
        fx.symbolic_trace(nn.TransformerEncoderLayer(16, 4, 32, 0.0, batch_first=True))
    assert str(ours.value) == str(expected.value)

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, batch_first=True)

        def forward(self, x):
            return self.layer(x)

    minitorch.manual_seed(0)
    _check(Encoder(), minitorch.randn(2, 5, 16))


class EncoderLayer(nn.Module):
    """A transformer encoder layer written out (post-norm, as chapter 9 builds it): traced through."""

    def __init__(self, width=16, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.feed_forward = nn.Sequential(nn.Linear(width, 2 * width), nn.ReLU(), nn.Linear(2 * width, width))

    def forward(self, x):
        batch, length, width = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.heads, width // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / (width // self.heads) ** 0.5
        attended = (minitorch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(batch, length, width)
        x = self.norm1(x + self.out(attended))
        return self.norm2(x + self.feed_forward(x))


def test_a_written_out_encoder_layer_traces_through_its_attention():
    minitorch.manual_seed(0)
    traced = _check(EncoderLayer(), minitorch.randn(2, 5, 16))
    assert "softmax" in [node.name for node in traced.graph.nodes]


def _torch_graph(torch, builder, tracer_class=None):
    torch.manual_seed(0)
    model = builder(torch)
    return torch.fx.symbolic_trace(model).graph if tracer_class is None else tracer_class().trace(model)


def node_summary(graph, library):
    """``(op, name, target)`` per node, with targets named the same way for both libraries."""
    if library.__name__ == "torch":
        from torch.fx.node import _get_qualified_name as name_of
    else:
        from minitorch.fx.node import qualified_name as name_of
    summary = []
    for node in graph.nodes:
        target = node.target if isinstance(node.target, str) else name_of(node.target)
        target = target.replace("_operator.", "operator.")
        if target.startswith("minitorch."):
            target = "torch." + target[len("minitorch."):]
        summary.append((node.op, node.name, target))
    return summary


def _with_arange(torch):
    class Positions(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(8, 4)
            self.scale = torch.nn.Parameter(torch.ones(4))

        def forward(self, x):
            positions = self.embed(torch.arange(x.shape[1]))
            y = torch.nn.functional.relu(x + positions) * self.scale
            return y.sum(dim=-1).softmax(-1), -y.view(x.size(0), -1)[:, 0:2]

    return Positions()


@pytest.mark.parametrize("builder", [course_models.mlp, course_models.cnn, course_models.lstm,
                                     course_models.transformer, _with_arange])
def test_graph_is_torch_fx_graph_for_the_same_module(builder):
    torch = require_torch()
    minitorch.manual_seed(0)
    ours = fx.symbolic_trace(builder(minitorch)).graph
    assert node_summary(ours, minitorch) == node_summary(_torch_graph(torch, builder), torch)


def test_data_dependent_control_flow_is_refused_with_torch_fx_words():
    torch = require_torch()

    def branch(lib):
        class Branch(lib.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                return -x

        return Branch()

    def loop(lib):
        class Loop(lib.nn.Module):
            def forward(self, x):
                return [row * 2 for row in x]

        return Loop()

    for builder in (branch, loop):
        with pytest.raises(torch.fx.proxy.TraceError) as expected:
            torch.fx.symbolic_trace(builder(torch))
        with pytest.raises(fx.TraceError) as ours:
            fx.symbolic_trace(builder(minitorch))
        assert str(ours.value) == str(expected.value)


def test_len_of_a_proxy_is_refused_as_in_torch_fx():
    torch = require_torch()
    with pytest.raises(RuntimeError) as expected:
        torch.fx.symbolic_trace(lambda x: x * len(x))
    with pytest.raises(RuntimeError) as ours:
        fx.symbolic_trace(lambda x: x * len(x))
    assert str(ours.value) == str(expected.value)


def test_tracing_restores_the_namespace_and_module_call():
    call, relu = nn.Module.__call__, minitorch.relu
    fx.symbolic_trace(course_models.mlp(minitorch))
    with pytest.raises(fx.TraceError):
        fx.symbolic_trace(lambda x: minitorch.relu(x) if x else x)
    assert nn.Module.__call__ is call and minitorch.relu is relu


def test_a_function_traces_and_constants_become_attributes():
    weights = minitorch.tensor([1.0, 2.0, 3.0])

    def scale(x, shift=1.0):
        return (x * weights).sum() + shift

    traced = fx.symbolic_trace(scale)
    x = minitorch.tensor([1.0, 1.0, 1.0])
    assert traced(x).item() == scale(x).item() == 7.0
    assert traced(x, 2.0).item() == 8.0
    assert [node.target for node in traced.graph.nodes if node.op == "get_attr"] == ["_tensor_constant0"]
    assert "def forward(self, x, shift = 1.0):" in traced.code
