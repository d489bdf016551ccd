"""The graph stepper on an FX graph: a frame per node, values as the graph computes them, kernels that unfold."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from minitorch import fx
from minitorch._inductor.compile_fx import compile_fx
from tests.widgets.support import require_dot
from tests.widgets.test_graph import drawn


@pytest.fixture(autouse=True)
def _graphviz():
    require_dot()


class CourseMLP(nn.Module):
    """The course's MLP (chapters 4 and 16): 64-128-64-10 with ReLU, written as chapter 16 writes it."""

    def __init__(self, sizes=(64, 128, 64, 10)):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = (nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x):
        x = minitorch.relu(self.fc1(x))
        x = self.fc2(x).relu()
        return self.fc3(x)


def captured(function, *inputs, grad: bool = False):
    """The graph ``minitorch.compile``'s default backend fused (and the inputs it was captured with)."""
    kept = []

    def keep(graph_module, example_inputs):
        compiled = compile_fx(graph_module, example_inputs)
        kept.append((graph_module, list(example_inputs)))
        return compiled

    if grad:
        minitorch.compile(function, backend=keep)(*inputs)
    else:
        with minitorch.no_grad():
            minitorch.compile(function, backend=keep)(*inputs)
    assert len(kept) == 1, "the function was captured as one graph"
    return kept[0]


def drawn_nodes(stepper) -> list:
    """The FX node behind each drawn unit, in drawing order (a folded kernel: the kernel's own node)."""
    nodes = []
    for unit in stepper.view.units:
        if unit.kind == "module":
            nodes.append(stepper.timeline.record.kernel_nodes[unit.title])
        else:
            nodes.append(unit.node)
    return nodes


def as_array(value):
    return value.detach().numpy() if isinstance(value, minitorch.Tensor) else np.asarray(value)


def test_traced_mlp_draws_every_node_in_order_with_the_values_eager_mode_computes():
    import widgets

    minitorch.manual_seed(0)
    mlp = CourseMLP()
    traced = fx.symbolic_trace(mlp)
    x = minitorch.randn(5, 64)
    stepper = widgets.GraphStepper.from_fx(traced, x)
    nodes = list(traced.graph.nodes)
    assert drawn_nodes(stepper) == nodes
    assert stepper.frame_count == len(nodes) == 7
    # each node's value, computed here eagerly, layer by layer (not through fx)
    h1 = mlp.fc1(x)
    r1 = minitorch.relu(h1)
    h2 = mlp.fc2(r1)
    r2 = h2.relu()
    out = mlp.fc3(r2)
    expected = [x, h1, r1, h2, r2, out, out]
    for item, value in zip(stepper.items, expected):
        np.testing.assert_allclose(as_array(item.details["value"]), value.detach().numpy(), rtol=1e-6, atol=1e-6)
    # frame i shows nodes 0..i and no later one; its caption names node i and the shape of its value
    for frame, node in enumerate(nodes):
        svg = drawn(stepper.frame_svg(frame))
        visible = [item.node for item in stepper.items if svg[item.key][0]]
        assert visible == nodes[: frame + 1], frame
        assert stepper.caption(frame).startswith(f"Node {frame + 1} of 7, {node.name}: "), frame
        assert str(tuple(expected[frame].shape)) in stepper.caption(frame)
    # labels: the op and target as the graph holds them, and the shape of the value made
    labels = {item.node.name: svg[item.key][1] for item in stepper.items}
    assert labels["fc2"][:2] == ["fc2: call_module fc2", "(5, 64) float32"]
    assert labels["relu_1"][0] == "relu_1: call_method relu"
    assert stepper.static_text().startswith("GraphStepper: an FX graph of 7 nodes")


def test_small_values_show_in_the_nodes_and_the_details_panel():
    import widgets

    traced = fx.symbolic_trace(lambda x: (x * 2).relu() + 1)
    stepper = widgets.GraphStepper.from_fx(traced, minitorch.tensor([-1.0, 3.0]))
    svg = drawn(stepper.frame_svg(stepper.frame_count - 1))
    labels = {item.node.name: svg[item.key][1] for item in stepper.items}
    assert labels["mul"] == ["mul: call_function mul", "(2,) float32", "[-2.,  6.]"]
    assert labels["relu"][-1] == "[0., 6.]"
    assert labels["add"][-1] == "[1., 7.]"
    details = stepper.details_html(2, frame=1)
    assert "not run yet" in details and "[0., 6.]" not in details
    assert "[0., 6.]" in stepper.details_html(2, frame=2)


def test_fused_kernel_starts_folded_and_unfolds_into_the_ops_it_fused():
    import widgets

    def chains(x, y):
        return ((x * y + x).relu() @ w * 2 - y).sigmoid()

    minitorch.manual_seed(1)
    x, y, w = minitorch.randn(3, 4), minitorch.randn(3, 4), minitorch.randn(4, 4)
    graph_module, inputs = captured(chains, x, y)
    kernel_nodes = [node for node in graph_module.graph.nodes if getattr(node.target, "group", None)]
    assert [len(node.target.group) for node in kernel_nodes] == [3, 3]
    stepper = widgets.GraphStepper.from_fx(graph_module, *inputs)
    nodes = list(graph_module.graph.nodes)

    # folded: one drawn unit per FX node, each kernel one box
    assert stepper.collapsed == [node.name for node in kernel_nodes]
    assert drawn_nodes(stepper) == nodes
    assert stepper.frame_count == len(nodes)
    boxes = [unit for unit in stepper.view.units if unit.kind == "module"]
    assert [box.title for box in boxes] == [node.name for node in kernel_nodes]
    assert "fused kernel of 3 ops (Mul, Add, Relu)" in boxes[0].lines[0].longest()
    assert [line.longest() for line in boxes[0].lines[1:3]] == ["3 ops run as one kernel (folded)", "(3, 4) float32"]
    kernel_frame = nodes.index(kernel_nodes[0])
    assert not drawn(stepper.frame_svg(kernel_frame - 1))[boxes[0].key][0]
    assert drawn(stepper.frame_svg(kernel_frame))[boxes[0].key][0]

    # unfolded: the kernel's box gives way to the pointwise ops it fused, in their order, framed in a cluster
    first = kernel_nodes[0].name
    stepper.expand(first)
    names = [unit.node.name for unit in stepper.view.units if unit.kind != "module"]
    assert names[names.index("y") + 1:][:3] == ["mul", "add", "relu"]
    assert [unit.title for unit in stepper.view.units if unit.kind == "module"] == [kernel_nodes[1].name]
    assert first in stepper.view.cluster_units
    svg = drawn(stepper.frame_svg(stepper.frame_count - 1))
    inner = [item for item in stepper.items if item.module == first]
    assert all(svg[item.key][0] for item in inner)
    # every op of a kernel appears at the kernel's frame: it runs them in one call
    assert {item.created for item in inner} == {kernel_frame}
    before = drawn(stepper.frame_svg(kernel_frame - 1))
    assert not any(before[item.key][0] for item in inner)

    # values: each fused op's as eager mode computes it, the kernel's result its last op's and the generated kernel's
    with minitorch.no_grad():
        eager = [x * y, x * y + x, (x * y + x).relu()]
    for item, value in zip(inner, eager):
        np.testing.assert_allclose(as_array(item.details["value"]), value.numpy(), rtol=1e-6)
    kernel_result = kernel_nodes[0].target(x.numpy(), y.numpy())
    np.testing.assert_allclose(as_array(stepper.timeline.values[kernel_nodes[0]]), kernel_result, rtol=1e-6)
    with minitorch.no_grad():
        np.testing.assert_allclose(as_array(stepper.timeline.result[0]), chains(x, y).numpy(), rtol=1e-5)

    stepper.collapse(first)
    assert drawn_nodes(stepper) == nodes


@pytest.mark.parametrize("grad", [False, True])
def test_the_course_mlp_compiled_for_a_training_step_and_for_inference(grad):
    import widgets

    minitorch.manual_seed(2)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
    images, labels = minitorch.randn(16, 64), minitorch.randint(0, 10, (16,))

    def loss_of(x, y):
        return nn.functional.cross_entropy(model(x), y)

    graph_module, inputs = captured(loss_of, images, labels, grad=grad)
    stepper = widgets.GraphStepper.from_fx(graph_module, *inputs)
    nodes = list(graph_module.graph.nodes)
    assert drawn_nodes(stepper) == nodes
    kernels = [node for node in nodes if getattr(node.target, "group", None)]
    assert kernels, "the ReLUs became kernels"
    stepper.expand()
    inside = sum(len(node.target.group) for node in kernels)
    assert len(stepper.view.units) == len(nodes) - len(kernels) + inside
    with minitorch.no_grad():
        np.testing.assert_allclose(as_array(stepper.timeline.result[0]), loss_of(images, labels).numpy(), rtol=1e-5)


class SmallBlock(nn.Module):
    """A pre-norm transformer block (one head) that symbolic tracing can read: every size fixed at construction."""

    def __init__(self, d=16):
        super().__init__()
        self.scale = 1 / d**0.5
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        attention = (q @ k.transpose(-2, -1) * self.scale).softmax(dim=-1)
        x = x + self.out(attention @ v)
        return x + self.ff2(nn.functional.gelu(self.ff1(self.norm2(x))))


def test_a_traced_transformer_block_shows_each_node_with_eager_modes_values():
    import widgets

    minitorch.manual_seed(4)
    block = SmallBlock()
    traced = fx.symbolic_trace(block)
    x = minitorch.randn(2, 5, 16)
    stepper = widgets.GraphStepper.from_fx(traced, x)
    nodes = list(traced.graph.nodes)
    assert drawn_nodes(stepper) == nodes and stepper.frame_count == len(nodes) == 20
    values = {item.node.name: item.details["value"] for item in stepper.items}
    with minitorch.no_grad():  # the block's intermediates, computed here eagerly
        q, k, v = block.qkv(block.norm1(x)).chunk(3, dim=-1)
        attention = (q @ k.transpose(-2, -1) * 0.25).softmax(dim=-1)
        hidden = x + block.out(attention @ v)
        expected = {"getitem_1": k, "softmax": attention, "add": hidden, "output": block(x)}
    for name, value in expected.items():
        np.testing.assert_allclose(as_array(values[name]), value.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    assert [as_array(part).shape for part in values["chunk"]] == [(2, 5, 16)] * 3
    assert stepper.caption(3).startswith("Node 4 of 20, chunk: call_method chunk(qkv, 3, dim=-1) gave a tuple of 3")


def test_a_compiled_transformer_block():
    import widgets

    minitorch.manual_seed(3)
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True).eval()
    source = minitorch.randn(2, 5, 16)
    graph_module, inputs = captured(layer, source)
    stepper = widgets.GraphStepper.from_fx(graph_module, *inputs)
    nodes = list(graph_module.graph.nodes)
    assert drawn_nodes(stepper) == nodes
    assert stepper.frame_count == len(nodes)
    assert any(unit.kind == "module" for unit in stepper.view.units)
    for frame in (0, len(nodes) // 2, len(nodes) - 1):  # frame i shows the units of nodes 0..i
        svg = drawn(stepper.frame_svg(frame))
        visible = [unit for unit in stepper.view.units if svg[unit.key][0]]
        assert drawn_nodes(stepper)[: frame + 1] == [drawn_nodes(stepper)[stepper.view.units.index(unit)]
                                                     for unit in visible]
    with minitorch.no_grad():
        np.testing.assert_allclose(as_array(stepper.timeline.result[0]), layer(source).numpy(), rtol=1e-4,
                                   atol=1e-5)


def test_bad_input_says_what_the_stepper_needs():
    import widgets

    traced = fx.symbolic_trace(lambda x, y: x + y)
    with pytest.raises(TypeError, match="fx.GraphModule"):
        widgets.GraphStepper.from_fx(lambda x: x, minitorch.ones(2))
    with pytest.raises(TypeError, match=r"the graph takes 2 inputs \(x, y\), got 1"):
        widgets.GraphStepper.from_fx(traced, minitorch.ones(2))
    with pytest.raises(ValueError, match="group must be"):
        widgets.GraphStepper.from_fx(traced, minitorch.ones(2), minitorch.ones(2), group="layers")


def test_the_widget_unfolds_a_kernel_when_the_browser_asks_and_leaves_a_static_picture():
    import widgets

    def chains(x, y):
        return ((x * y + x).relu() * 2 - y).sigmoid()

    graph_module, inputs = captured(chains, minitorch.randn(3, 4), minitorch.randn(3, 4))
    stepper = widgets.GraphStepper.from_fx(graph_module, *inputs)
    (kernel,) = [node.name for node in graph_module.graph.nodes if getattr(node.target, "group", None)]
    view = stepper.widget
    assert view.frame_count == len(graph_module.graph.nodes) == 4
    assert view.collapsed == [kernel] and list(view.module_boxes.values()) == [kernel]
    assert len(view.captions) == 4 and view.captions[2].startswith("Node 3 of 4, fused_")
    view.collapsed = []  # what clicking the folded box does
    assert stepper.collapsed == [] and view.module_boxes == {}
    assert sorted(set(view.item_units)) == sorted(unit.key for unit in stepper.view.units)
    assert "fused kernel" in stepper.static_text() and "<svg" in stepper.static_html()
