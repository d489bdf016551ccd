"""The timeline of an FX graph: one frame per node, each node drawn with the value it produced.

An FX graph (``minitorch.fx.GraphModule``, from ``fx.symbolic_trace`` or the graph that
``minitorch.compile`` captured and fused) is a list of nodes: ``placeholder`` (an input),
``get_attr`` (a parameter), ``call_function`` / ``call_method`` / ``call_module`` (an op) and
``output``. ``FxTimeline`` runs the graph on example inputs, node by node, through an
``fx.Interpreter`` that keeps every value, and builds the same kind of timeline the autograd
stepper draws (``graph_timeline.py``): frame ``i`` adds node ``i`` of the graph, labelled with its
op, its target and the value it made (shape, dtype, values when small); an edge runs from each
node it reads. Nothing runs backward: an FX graph is a program, not a recording of one.

A **fused kernel** (``minitorch._inductor.fusion.FusedKernel``, a ``call_function`` node that
replaced a chain of pointwise nodes) keeps the nodes it replaced in ``kernel.group``. They are
drawn inside a box named after the kernel's node, the way the stepper folds a module: folded
(one node, the kernel) by default, unfolded into the pointwise ops it computes in one call. All
of them appear at the kernel's frame, since the kernel runs them together; their values are
computed by running those ops one by one, and the last equals what the kernel returned.

    >>> import minitorch
    >>> from minitorch import fx
    >>> traced = fx.symbolic_trace(lambda x: (x * 2).relu())
    >>> timeline = FxTimeline(traced, (minitorch.tensor([-1.0, 3.0]),))
    >>> [item.title for item in timeline.items]
    ['x', 'mul', 'relu', 'output']
    >>> print(timeline.caption(2))
    Node 3 of 4, relu: call_method relu(mul) gave a tensor (2,) float32 = [0., 6.].
"""

from __future__ import annotations

import html
import operator

import numpy as np

import minitorch
from minitorch import fx

from .graph_timeline import Line, Unit
from .graph_values import INLINE_VALUES, _inline, _shape_line, _short, full_text, summary, to_numpy, value_lines

__all__ = ["FxTimeline", "FxItem", "is_fused_kernel"]

_KINDS = {"placeholder": "leaf", "get_attr": "leaf", "output": "output"}  # every call_* node is an "op"


def is_fused_kernel(target) -> bool:
    """A kernel that replaced a chain of pointwise nodes and kept them (``FusedKernel.group``)."""
    group, group_args = getattr(target, "group", None), getattr(target, "group_args", None)
    return (callable(target) and isinstance(group, list) and all(isinstance(node, fx.Node) for node in group)
            and isinstance(group_args, list) and len(group_args) == len(group))


class FxItem(Unit):
    """A node of the FX graph as drawn (or one pointwise node inside a fused kernel)."""

    __slots__ = ("node", "output_nr", "module", "created", "ran", "consumers", "details")

    def __init__(self, key: str, kind: str, node: fx.Node, created: int, module: str | None = None):
        super().__init__(key, kind, node.name)
        self.node, self.output_nr = node, 0
        self.module = module  # the fused kernel's node name, for a node inside a kernel
        self.created = created
        self.ran = None  # nothing runs backward in an FX graph
        self.consumers = []
        self.details = {}

    def item_label(self) -> str:
        where = f", inside the fused kernel {self.module}" if self.module else ""
        return f"{self.node.name} ({self.node.op}{where}, node {self.created + 1})"


class _KeepAll(fx.Interpreter):
    """An interpreter that keeps every value (``env``) and runs a fused kernel's own ops one by one too.

    A compiled graph's fused kernels and ``ArrayOp``s compute on NumPy arrays: they get their
    tensors' arrays and their result is wrapped back into a tensor.
    """

    def __init__(self, module):
        super().__init__(module, garbage_collect_values=False)
        self.inside: dict[fx.Node, object] = {}  # a fused kernel's own node -> its value

    def call_function(self, target, args, kwargs):
        if is_fused_kernel(target):
            self._run_group(target, args)
        if is_fused_kernel(target) or hasattr(target, "forward_saving"):  # written on arrays
            arrays = [a.detach().numpy() if isinstance(a, minitorch.Tensor) else a for a in args]
            result = target(*arrays, **kwargs)
            return minitorch.from_numpy(np.array(result)) if isinstance(result, np.ndarray) else result
        return super().call_function(target, args, kwargs)

    def _run_group(self, kernel, args) -> None:
        values = dict(zip(kernel.inputs, args))
        with minitorch.no_grad():
            for node, node_args in zip(kernel.group, kernel.group_args):  # the nodes' own args were cleared
                values[node] = self.inside[node] = node.target(*fx.map_arg(node_args, values.__getitem__))


class FxTimeline:
    """Every node of an FX graph run on ``inputs``: one frame per node, in graph order.

    Has what the view (``graph_view.GraphView``) and the stepper read from ``GraphTimeline``:
    ``items``, ``edges``, ``caption(frame)``, ``details_html(item, frame)``; a fused kernel's
    nodes carry the kernel node's name as their ``module`` (``record.modules`` names it a fused
    kernel), so the view folds them into one box.
    """

    has_backward = False

    def __init__(self, graph_module, inputs=()):
        if not isinstance(graph_module, fx.GraphModule):
            raise TypeError(f"GraphStepper.from_fx needs an fx.GraphModule, got {type(graph_module).__name__}")
        self.graph_module = graph_module
        self.nodes = list(graph_module.graph.nodes)
        placeholders = [node for node in self.nodes if node.op == "placeholder"]
        required = [node for node in placeholders if not node.args]
        if not len(required) <= len(inputs) <= len(placeholders):
            raise TypeError(f"the graph takes {len(placeholders)} inputs ({', '.join(n.name for n in placeholders)}), "
                            f"got {len(inputs)}")
        runner = _KeepAll(graph_module)
        self.result = runner.run(*inputs)
        self.values = {node: runner.env[node] for node in self.nodes}  # each node's value, as the graph made it
        self.inner_values = runner.inside
        self.items: list[FxItem] = []
        self.edges: list[tuple] = []  # (source item, target item, input_nr)
        self.edge_gradients: dict = {}  # no backward: no gradient is sent along an edge
        self.inputs_of: dict = {}
        self.arrivals: dict = {}
        self.kernels: list[str] = []  # the fused kernels' node names: the boxes that fold
        self.record = _Record()
        self.item_of: dict[fx.Node, FxItem] = {}  # each node -> the item its value leaves from
        self.forward_steps = len(self.nodes) - 1
        self.backward_steps = 0
        self.backward_error = None
        self.step_nodes = []
        self.frame_count = len(self.nodes)
        for frame, node in enumerate(self.nodes):
            if node.op == "call_function" and is_fused_kernel(node.target):
                self._add_kernel(node, frame)
            else:
                item = self._add(node, node, frame, self.values[node])
                self._connect(item, node.all_input_nodes)
        self._finish()

    # -- the items ----------------------------------------------------------------------------------
    def _add(self, node, drawn_node, frame, value, module=None) -> FxItem:
        item = FxItem(f"n{len(self.items)}", _KINDS.get(drawn_node.op, "op"), drawn_node, frame, module)
        item.details["value"] = value
        self.items.append(item)
        self.item_of[node] = item
        return item

    def _add_kernel(self, node, frame) -> None:
        kernel = node.target
        self.kernels.append(node.name)
        ops = ", ".join(_target_name(member) for member in kernel.group)
        self.record.modules[node.name] = f"fused kernel of {len(kernel.group)} ops ({ops})"
        self.record.kernel_nodes[node.name] = node
        # the kernel's inputs as its node reads them now (a later pass may have replaced an input's node)
        current = dict(zip(kernel.inputs, node.args))
        inside = {kernel_input: self.item_of[argument] for kernel_input, argument in current.items()}
        for member, member_args in zip(kernel.group, kernel.group_args):
            item = self._add(member, member, frame, self.inner_values[member], module=node.name)
            # the arguments as they read now: a kernel input's current node (lowering may have replaced it)
            item.details["args"] = fx.map_arg(member_args, lambda argument: current.get(argument, argument))
            inside[member] = item
            read = [argument for argument in member_args if isinstance(argument, fx.Node)]
            sources = [inside[argument] for argument in read]
            self._connect(item, sources, items=True)
        self.item_of[node] = inside[kernel.group[-1]]  # the kernel's result is its last op's

    def _connect(self, item, sources, items: bool = False) -> None:
        for input_nr, source in enumerate(sources):
            source_item = source if items else self.item_of[source]
            source_item.consumers.append((item, input_nr))
            self.edges.append((source_item, item, input_nr))
            self.inputs_of.setdefault(item.key, {})[input_nr] = source_item

    def _finish(self) -> None:
        for item in self.items:
            node = item.node
            header = f"{node.name}: {node.op}" if node.op in ("placeholder", "output") else \
                f"{node.name}: {node.op} {_target_name(node)}"
            item.lines.append(Line(header, "#111827"))
            item.lines.extend(Line(text, "#1f2937") for text in _value_lines(item.details["value"]))
            events = {item.created: "new" if item.created > 0 else "normal"}
            if item.created + 1 < self.frame_count:
                events[item.created + 1] = "output" if item.kind == "output" else "normal"
            if item.kind == "output":
                events = {frame: ("output" if style == "normal" else style) for frame, style in events.items()}
            item.set_styles(events)

    # -- words ----------------------------------------------------------------------------------------
    def caption(self, frame: int) -> str:
        """What node ``frame`` did, in words."""
        node = self.nodes[frame]
        prefix = f"Node {frame + 1} of {len(self.nodes)}, {node.name}: "
        value = self.values[node]
        if node.op == "placeholder":
            return f"{prefix}placeholder, the input {node.target!r} of forward: {_value_words(value)}."
        if node.op == "get_attr":
            return f"{prefix}get_attr reads the module's {node.target!r}: {_value_words(value)}."
        if node.op == "output":
            return f"{prefix}output, what forward returns: {_value_words(value)}."
        if is_fused_kernel(node.target):
            kernel = node.target
            ops = ", ".join(_target_name(member) for member in kernel.group)
            return (f"{prefix}the fused kernel {_target_name(node)} ran its {len(kernel.group)} pointwise ops "
                    f"({ops}) in one call on {_arguments(node)} and gave {_value_words(value)} (unfold its box to "
                    "see each op's value).")
        return f"{prefix}{node.op} {_target_name(node)}({_arguments(node)}) gave {_value_words(value)}."

    def detail_frames(self, item) -> list[int]:
        return sorted({0, item.created})

    def details_html(self, item, frame: int | None = None) -> str:
        """The node's op, target and arguments, and (from its frame on) the value it made."""
        frame = self.frame_count - 1 if frame is None else frame
        node = item.node
        parts = [f"<b>{html.escape(item.item_label())}</b>"]
        if frame < item.created:
            parts.append(f"not run yet: node {item.created + 1} makes it")
            return "<div class='minitorch-graph-details'>" + "<br>".join(parts) + "</div>"
        parts.append(f"op: {html.escape(node.op)}, target: {html.escape(_target_name(node))}")
        args = item.details.get("args", node.args)  # a fused node's own args were cleared when it was erased
        if args or node.kwargs:
            parts.append(f"args: {html.escape(_arguments(node, args))}")
        if item.module:
            parts.append(f"inside {html.escape(item.module)}, {html.escape(self.record.modules[item.module])}")
        value = item.details["value"]
        array = _array(value)
        if array is not None:
            parts.append(html.escape(_shape_words(value)))
            parts.append(f"<pre>value:\n{html.escape(full_text(array))}</pre>")
        else:
            parts.append(f"value: {html.escape(_short(value, 200))}")
        return "<div class='minitorch-graph-details'>" + "<br>".join(parts) + "</div>"

    def summary(self) -> str:
        count = len(self.kernels)
        kernels = f", {count} fused kernel{'s' if count != 1 else ''}" if count else ""
        return f"an FX graph of {len(self.nodes)} nodes{kernels}"


class _Record:
    """What the view and the stepper read of a ``ForwardRecord``: the "modules" (here, the fused kernels)."""

    def __init__(self):
        self.modules: dict[str, str] = {}
        self.kernel_nodes: dict[str, fx.Node] = {}


def _target_name(node) -> str:
    target = node.target
    if isinstance(target, str):
        return target
    if target in (operator.getitem,):
        return "getitem"
    return getattr(target, "__name__", None) or repr(target)


def _arguments(node, args=None) -> str:
    """``fc1(x)``'s ``x``: the arguments as the generated code writes them (nodes by name)."""
    pieces = [_argument_text(argument) for argument in (node.args if args is None else args)]
    pieces += [f"{key}={_argument_text(value)}" for key, value in node.kwargs.items()]
    return ", ".join(pieces)


def _argument_text(argument) -> str:
    if isinstance(argument, fx.Node):
        return argument.name
    if isinstance(argument, (tuple, list)) and any(isinstance(item, fx.Node) for item in argument):
        inner = ", ".join(_argument_text(item) for item in argument)
        return f"({inner},)" if isinstance(argument, tuple) and len(argument) == 1 else f"({inner})"
    return _short(argument, 28)


def _array(value):
    if isinstance(value, minitorch.Tensor):
        return to_numpy(value)
    if isinstance(value, np.ndarray):
        return value
    return None


def _shape_words(value) -> str:
    if isinstance(value, minitorch.Tensor):
        return _shape_line(value.shape, value.dtype, value.device)
    return f"{tuple(value.shape)} {value.dtype} (NumPy array)"


def _value_lines(value) -> list[str]:
    """A node's value inside its box: a tensor's shape and values; each tensor of a tuple on its own line."""
    array = _array(value)
    if array is not None:
        return [_shape_words(value), *value_lines(array)]
    if isinstance(value, (tuple, list)) and any(_array(part) is not None for part in value):
        return [f"[{index}] {_shape_words(part)}" if _array(part) is not None else f"[{index}] {_short(part, 28)}"
                for index, part in enumerate(value)]
    return [_short(value, 40)]


def _value_words(value) -> str:
    array = _array(value)
    if array is not None:
        described = f"= {_inline(array)}" if array.size <= INLINE_VALUES else summary(array)
        return f"a tensor {_shape_words(value)} {described}"
    if isinstance(value, (tuple, list)) and any(_array(part) is not None for part in value):
        return f"a {type(value).__name__} of {len(value)}: " + "; ".join(_value_words(part) for part in value)
    return _short(value, 40)
