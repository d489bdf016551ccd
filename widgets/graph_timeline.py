"""The timeline of one graph: every item drawn, and what happens to it at each frame.

``GraphTimeline`` walks the graph once (its leaves, ops and their output tensors, in forward
order), then drives the real engine through ``minitorch.autograd.graph.step_backward`` and notes
the frame at which each item appears, runs and receives its gradient. From that it holds each
item's label (``Line``s whose text changes from a given frame on), its style at every frame, the
caption of every frame and every item's detail panel. It draws nothing: the view
(``graph_view.py``) turns it into pictures, the stepper (``graph.py``) into a widget.

    >>> import minitorch, widgets
    >>> a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    >>> timeline = widgets.GraphTimeline((a * 3).sum(), names={"a": a})
    >>> timeline.frame_count                # the leaves, 2 forward steps, 3 backward steps
    6
    >>> print(timeline.caption(5))
    Backward step 3 of 3: AccumulateGrad stored the incoming gradient in a.grad, which is now [3., 3.].
"""

from __future__ import annotations

import html
from bisect import bisect_right

import numpy as np

import minitorch
from minitorch.autograd import graph as autograd_graph

from .graph_record import ForwardRecord
from .graph_values import (
    _formula_parts,
    _full,
    _inline,
    _maybe_numpy,
    _op_name,
    _shape_line,
    _short,
    full_text,
    to_numpy,
    value_lines,
)
from .render import escape_text

__all__ = ["GraphTimeline", "Item", "Line", "Unit", "line_group"]


# == the timeline: every item of the drawing, and when it changes ====================================
class Line:
    """One line of a node's label; ``texts[i]`` (escaped) and ``colors[i]`` hold from frame ``frames[i]`` on."""

    __slots__ = ("frames", "texts", "colors")

    def __init__(self, text: str, color: str = "#111827"):
        self.frames, self.texts, self.colors = [0], [escape_text(text)], [color]

    def change(self, frame: int, text: str, color: str) -> None:
        self.frames.append(frame)
        self.texts.append(escape_text(text))
        self.colors.append(color)

    def longest(self) -> str:
        return html.unescape(max(self.texts, key=len)) or "."


def line_group(variants: list[tuple[int, list[str], str]]) -> list[Line]:
    """Lines whose text changes together: ``(from_frame, lines, colour)`` variants, padded to one height."""
    height = max(len(lines) for _, lines, _ in variants)
    group = []
    for slot in range(height):
        first_frame, first_lines, first_color = variants[0]
        line = Line(first_lines[slot] if slot < len(first_lines) else "", first_color)
        line.frames[0] = first_frame
        for frame, lines, color in variants[1:]:
            line.change(frame, lines[slot] if slot < len(lines) else "", color)
        group.append(line)
    return group


class Unit:
    """Something drawn: a leaf, an op, a tensor, a folded module, an edge or a module's box.

    ``styles`` is a list of ``(from_frame, style)``; ``hidden`` before the first entry.
    """

    __slots__ = ("key", "kind", "lines", "style_frames", "style_names", "title", "members")

    def __init__(self, key: str, kind: str, title: str = ""):
        self.key, self.kind, self.title = key, kind, title
        self.lines: list[Line] = []
        self.style_frames: list[int] = []
        self.style_names: list[str] = []
        self.members = []

    def set_styles(self, events: dict) -> None:
        """``events`` maps a frame to the style from that frame on."""
        for frame in sorted(events):
            self.style_frames.append(frame)
            self.style_names.append(events[frame])

    def style_at(self, frame: int) -> str:
        index = bisect_right(self.style_frames, frame) - 1
        return self.style_names[index] if index >= 0 else "hidden"


class Item(Unit):
    """A node of the graph as drawn: a leaf tensor, an op (a ``grad_fn`` node) or an op's output tensor."""

    __slots__ = ("node", "output_nr", "module", "created", "ran", "consumers", "details")

    def __init__(self, key, kind, node, output_nr=0):
        super().__init__(key, kind)
        self.node, self.output_nr = node, output_nr
        self.module = None
        self.created = 0
        self.ran = None  # the frame of the backward step where this item received its gradient / ran
        self.consumers = []  # (op item, input_nr): where this tensor flows
        self.details = {}


class GraphTimeline:
    """Every item of one graph, and the frame at which each appears, runs and gets its gradient.

    ``frames``: 0 shows the leaves, ``1 .. forward_steps`` add one op each in creation order,
    then one frame per step the real engine took (``backward_steps``). Everything shown is
    copied when the timeline is built.
    """

    def __init__(self, output, names=None, record: ForwardRecord | None = None, gradient=None,
                 retain_graph: bool = False, backward: bool = True):
        if not isinstance(output, minitorch.Tensor):
            raise TypeError(f"GraphStepper needs the output tensor of a computation, got {type(output).__name__}")
        if output.grad_fn is None:
            raise ValueError(
                "this tensor has no graph to show: it is a leaf or was computed without gradient recording "
                "(make an input with requires_grad=True, and do not wrap the computation in no_grad())"
            )
        self.record = record or ForwardRecord()
        self._names = dict(self.record.names)
        self._given_values = {}  # values of the intermediate tensors named by the caller
        for name, tensor in (names or {}).items():
            if not isinstance(tensor, minitorch.Tensor):
                raise TypeError(f"names maps a name to a tensor; {name!r} is a {type(tensor).__name__}")
            key = id(tensor) if tensor.grad_fn is None else (id(tensor.grad_fn), tensor.output_nr)
            self._names[key] = name
            if tensor.grad_fn is not None:
                self._given_values[key] = to_numpy(tensor)
        self.items: list[Item] = []
        self.edges: list[tuple[Item, Item, int]] = []  # (source, target, input_nr); input_nr -1: op -> its output
        # (source key, target key, input_nr) -> (frame, gradient) sent back along that use of the source
        self.edge_gradients: dict = {}
        self.inputs_of: dict = {}  # op item key -> {input_nr: source item}
        self.arrivals: dict = {}  # tensor item key -> frames at which a part of its gradient arrived
        self.backward_error = None
        self._build_forward(output)
        self.forward_steps = len(self.ops)
        self.backward_steps = 0
        self.step_nodes = []  # the node of each backward step, in the engine's order
        if backward:
            self._run_backward(output, gradient, retain_graph)
        # One more frame says why backward could not run, when it could not.
        self.frame_count = 1 + self.forward_steps + self.backward_steps + (1 if self.backward_error else 0)
        self._finish_items()

    # -- forward: the items and what they hold ------------------------------------------------------
    def _build_forward(self, output) -> None:
        nodes = autograd_graph.forward_order(output)
        self.ops = [node for node in nodes if not autograd_graph.is_leaf_node(node)]
        self.op_items = {}
        self.leaf_items = {}
        self.tensor_items = {}  # (id(node), output_nr) -> tensor item
        forward_frame = {id(node): frame for frame, node in enumerate(self.ops, start=1)}
        saved_values = {}
        self.saved = {}  # id(node) -> [(description, NumPy copy or None)], copied before backward frees them
        for node in self.ops:
            kept = []
            for saved in autograd_graph.saved_tensors(node) or ():
                if isinstance(saved, minitorch.Tensor):
                    array = to_numpy(saved)
                    kept.append((_shape_line(saved.shape, saved.dtype, saved.device), array))
                    if saved.grad_fn is not None:
                        saved_values.setdefault((id(saved.grad_fn), saved.output_nr), array)
                elif saved is not None:
                    kept.append((_short(saved), None))
            self.saved[id(node)] = kept

        # Leaves in the order forward first used them, so the drawing reads left to right.
        for node in self.ops:
            for source, _ in node.next_functions:
                if source is not None and autograd_graph.is_leaf_node(source) and id(source) not in self.leaf_items:
                    self._add_leaf(source)

        for node in self.ops:
            item = Item(f"op{len(self.op_items)}", "op", node)
            item.created = forward_frame[id(node)]
            item.module = self.record.node_modules.get(id(node))
            item.title = node.name()
            self.op_items[id(node)] = item
            self.items.append(item)
            input_metadata = autograd_graph.input_metadata(node)
            for input_nr, (source, source_output) in enumerate(node.next_functions):
                if source is None:
                    continue
                if autograd_graph.is_leaf_node(source):
                    source_item = self.leaf_items[id(source)]
                else:
                    source_item = self._tensor_item(source, source_output, forward_frame, saved_values)
                    meta = input_metadata[input_nr]
                    if meta is not None and source_item.details.get("meta") is None:
                        source_item.details["meta"] = meta
                source_item.consumers.append((item, input_nr))
                self.edges.append((source_item, item, input_nr))
                self.inputs_of.setdefault(item.key, {})[input_nr] = source_item
        self.output_item = self._tensor_item(output.grad_fn, output.output_nr, forward_frame, saved_values)
        self.output_item.kind = "output"
        self.output_item.details["meta"] = autograd_graph.InputMetadata(
            tuple(output.shape), output.dtype, output.device
        )
        self.output_item.details.setdefault("value", to_numpy(output))
        # The op -> output edges, once every tensor item exists.
        for item in self.items:
            if item.kind in ("tensor", "output"):
                self.edges.append((self.op_items[id(item.node)], item, -1))

    def _add_leaf(self, node) -> None:
        tensor = autograd_graph.leaf_tensor(node)
        item = Item(f"leaf{len(self.leaf_items)}", "leaf", node)
        item.title = self._names.get(id(tensor)) or f"leaf {len(self.leaf_items) + 1}"
        item.module = self.record.parameter_modules.get(id(tensor))
        item.details["meta"] = autograd_graph.input_metadata(node)[0]
        item.details["value"] = to_numpy(tensor)
        item.details["grad_before"] = None if tensor.grad is None else to_numpy(tensor.grad)
        item.details["tensor"] = tensor
        self.leaf_items[id(node)] = item
        self.items.append(item)

    def _tensor_item(self, node, output_nr, forward_frame, saved_values) -> Item:
        key = (id(node), output_nr)
        item = self.tensor_items.get(key)
        if item is None:
            item = Item(f"t{len(self.tensor_items)}", "tensor", node, output_nr)
            item.created = forward_frame[id(node)]
            item.module = self.record.node_modules.get(id(node))
            item.title = self._names.get(key, "")
            value = self.record.values.get(key)
            for source in (self._given_values, saved_values):
                if value is None:
                    value = source.get(key)
            if value is not None:
                item.details["value"] = value
            self.tensor_items[key] = item
            self.items.append(item)
        return item

    # -- backward: drive the real engine ----------------------------------------------------------
    def _run_backward(self, output, gradient, retain_graph) -> None:
        first = self.forward_steps + 1
        freed = [node.name() for node in self.ops if autograd_graph.saved_tensors(node) is None]
        if freed:  # the engine would run part of the way and then fail: say so instead
            self.backward_error = (
                f"the saved tensors of {freed[0]} are gone: an earlier backward() freed the graph (or a saved tensor "
                "was changed in place). Build the stepper before calling backward(), or call "
                "backward(retain_graph=True) first."
            )
            return
        try:
            steps = autograd_graph.step_backward(output, gradient, retain_graph=retain_graph)
            for frame, step in enumerate(steps, start=first):
                self._record_step(frame, step)
        except RuntimeError as error:
            self.backward_error = str(error).splitlines()[0]
        self.backward_steps = len(self.step_nodes)

    def _record_step(self, frame, step) -> None:
        node = step.node
        self.step_nodes.append(node)
        if autograd_graph.is_leaf_node(node):
            item = self.leaf_items[id(node)]
            item.ran = frame
            item.details["grad_in"] = _maybe_numpy(step.grad_outputs[0])
            item.details["grad_after"] = None if step.leaf.grad is None else to_numpy(step.leaf.grad)
            return
        item = self.op_items[id(node)]
        item.ran = frame
        item.details["grad_outputs"] = [_maybe_numpy(grad) for grad in step.grad_outputs]
        item.details["grad_inputs"] = [_maybe_numpy(grad) for grad in step.grad_inputs]
        for output_nr, grad in enumerate(item.details["grad_outputs"]):
            tensor_item = self.tensor_items.get((id(node), output_nr))
            if tensor_item is not None:
                tensor_item.ran = frame
                tensor_item.details["grad"] = grad
        sources = self.inputs_of.get(item.key, {})
        for input_nr, grad in enumerate(item.details["grad_inputs"]):
            source = sources.get(input_nr)
            if source is not None:
                self.edge_gradients[(source.key, item.key, input_nr)] = (frame, grad)
                if grad is not None:
                    self.arrivals.setdefault(source.key, []).append(frame)

    # -- labels and styles per frame -------------------------------------------------------------
    def _finish_items(self) -> None:
        for item in self.items:
            meta = item.details.get("meta")
            if item.kind == "op":
                self._op_lines(item)
            else:
                # the name and the shape on one line: a whole graph must fit a screen at a legible size
                shape = _shape_line(meta.shape, meta.dtype, meta.device) if meta is not None else ""
                if item.title or shape:
                    item.lines.append(Line(f"{item.title}: {shape}" if item.title and shape else item.title or shape,
                                           "#111827"))
                value = item.details.get("value")
                if value is not None:
                    item.lines.extend(Line(text, "#1f2937") for text in value_lines(value))
                else:
                    item.lines.append(Line("value not kept by the graph", "#9ca3af"))
                item.lines.extend(self._grad_lines(item))
            events = {item.created: "new" if item.created > 0 else "normal"}
            if item.created + 1 < self.forward_steps + 1:
                events.setdefault(item.created + 1, "normal")
            if item.ran is not None:
                events[item.ran] = "active"
                events[item.ran + 1] = "done"
            else:
                events.setdefault(self.forward_steps + 1, "normal")
            if item.kind == "output":
                events = {frame: ("output" if style == "normal" else style) for frame, style in events.items()}
            item.set_styles(events)

    def _op_lines(self, item) -> None:
        node = item.node
        # The name line also says when backward ran the op (its outline turns red then): no line of its own,
        # so that a whole graph fits a screen at a legible size.
        name = Line(node.name(), "#111827")
        if item.ran is not None:
            name.change(item.ran, f"{node.name()} (backward step {item.ran - self.forward_steps})", "#b91c1c")
        item.lines.append(name)
        arguments = {
            key: value for key, value in autograd_graph.arguments(node).items() if not isinstance(value, np.ndarray)
        }
        settings = []
        for key, value in arguments.items():  # a settings record (a convolution's geometry) shows its fields
            fields = getattr(value, "_asdict", None)
            pairs = fields().items() if fields is not None else [(key, value)]
            settings += [f"{name}={_short(item, 28)}" for name, item in pairs]
        for text in _wrapped(settings, 48):
            item.lines.append(Line(text, "#4b5563"))

    def _grad_lines(self, item) -> list[Line]:
        not_computed = "#9ca3af"
        computed = "#b91c1c"
        if item.kind == "leaf":
            before = item.details.get("grad_before")
            variants = [(0, ["grad not computed"] if before is None else value_lines(before, "grad "), not_computed)]
            if item.ran is not None:
                after = item.details.get("grad_after")
                variants.append((item.ran, ["grad None"] if after is None else value_lines(after, "grad "), computed))
            return line_group(variants)
        variants = [(0, ["grad not computed"], not_computed)]
        arrivals = self.arrivals.get(item.key, [])  # in frame order: the engine's steps run forward in time
        parts = len(item.consumers)
        if parts > 1:
            for count, frame in enumerate(arrivals, start=1):
                variants.append((frame, [f"grad not computed ({count} of {parts} parts in)"], not_computed))
        if item.ran is not None:
            grad = item.details.get("grad")
            variants.append((item.ran, ["grad None"] if grad is None else value_lines(grad, "grad "), computed))
        return line_group(variants)

    # -- captions ---------------------------------------------------------------------------------
    def caption(self, frame: int) -> str:
        """What happened at ``frame``, in words."""
        forward_steps = self.forward_steps
        if frame == 0:
            leaves = ", ".join(item.title for item in self.leaf_items.values())
            return (
                f"Before forward: the leaves, tensors created with requires_grad=True ({leaves or 'none'}). "
                f"{forward_steps} forward ops and {self.backward_steps} backward steps follow."
            )
        if frame <= forward_steps:
            node = self.ops[frame - 1]
            item = self.op_items[id(node)]
            forward, _ = _formula_parts(node)
            outputs = [t for t in self.tensor_items.values() if t.node is node]
            made = ", ".join(_shape_line(o.details["meta"].shape, o.details["meta"].dtype, o.details["meta"].device)
                             for o in outputs if o.details.get("meta") is not None)
            saved = self.saved.get(id(node), [])
            saved_text = f"; it saved {len(saved)} value{'s' if len(saved) != 1 else ''} for backward" if saved else ""
            computed = f"{_op_name(node)} computed {forward}" if forward else f"{_op_name(node)} ran"
            where = f" (in module {item.module})" if item.module else ""
            return (
                f"Forward step {frame} of {forward_steps}: {computed}{where}, giving a tensor {made or ''}. "
                f"Autograd recorded the node {node.name()} (sequence number {autograd_graph.sequence_number(node)})"
                f"{saved_text}."
            ).replace("a tensor .", "a tensor.")
        step = frame - forward_steps
        if step > self.backward_steps:
            return f"Backward could not run: {self.backward_error}"
        node = self.step_nodes[step - 1]
        prefix = f"Backward step {step} of {self.backward_steps}: "
        if autograd_graph.is_leaf_node(node):
            item = self.leaf_items[id(node)]
            after = item.details.get("grad_after")
            had = item.details.get("grad_before") is not None
            how = "added the incoming gradient to" if had else "stored the incoming gradient in"
            return (
                f"{prefix}AccumulateGrad {how} {item.title}.grad, which is now "
                f"{_inline(after) if after is not None else 'None'}."
            )
        item = self.op_items[id(node)]
        _, backward = _formula_parts(node)
        grads_in = item.details.get("grad_outputs", [])
        received = ", ".join(_inline(grad) if grad is not None else "None" for grad in grads_in)
        sent = [
            (input_nr, source) for input_nr, source in sorted(self.inputs_of.get(item.key, {}).items())
            if item.details["grad_inputs"][input_nr] is not None
        ]
        destinations = ", ".join(_destination(source) for _, source in sent)
        formula_text = f": {backward}" if backward else ""
        return (
            f"{prefix}backward of {_op_name(node)} ({node.name()}){formula_text}. It received grad = {received} "
            f"and sent {len(sent)} gradient{'s' if len(sent) != 1 else ''} on"
            f"{', to ' + destinations if destinations else ''}."
        )

    # -- details for the side panel --------------------------------------------------------------------
    def detail_frames(self, item: Item) -> list[int]:
        """The frames at which what is known about ``item`` changes (its detail panel is redrawn there)."""
        frames = {0, item.created}
        if item.ran is not None:
            frames.add(item.ran)
        return sorted(frames)

    def details_html(self, item: Item, frame: int | None = None) -> str:
        """What is known about ``item`` at ``frame`` (default: the last): value, gradient, saved tensors, settings.

        Nothing from a later frame shows: before its forward step an op is "not run yet", before
        its backward step a gradient is "not computed yet".
        """
        last = self.frame_count - 1
        frame = last if frame is None else frame
        parts = [f"<b>{html.escape(_item_label(item))}</b>"]
        if frame < item.created:
            parts.append(f"not created yet: forward step {item.created} makes it")
            return "<div class='minitorch-graph-details'>" + "<br>".join(parts) + "</div>"
        ran = item.ran is not None and item.ran <= frame
        meta = item.details.get("meta")
        if item.module:
            type_name = self.record.modules.get(item.module, "")
            parts.append(f"module: {html.escape(item.module)} ({html.escape(type_name)})")
        if item.kind == "op":
            node = item.node
            forward, backward = _formula_parts(node)
            parts.append(f"sequence number {autograd_graph.sequence_number(node)}, forward step {item.created}")
            if forward:
                parts.append(f"forward: <code>{html.escape(forward)}</code>")
            if backward:
                parts.append(f"backward: <code>{html.escape(backward)}</code>")
            arguments = autograd_graph.arguments(node)
            if arguments:
                settings = ", ".join(f"{key}={_short(value, 60)}" for key, value in arguments.items())
                parts.append("settings: " + html.escape(settings))
            saved = self.saved.get(id(node), [])
            parts.append(f"saved for backward: {len(saved) or 'nothing'}")
            for index, (description, array) in enumerate(saved):
                text = description if array is None else f"{description}\n{full_text(array)}"
                parts.append(f"<pre>saved[{index}]: {html.escape(text)}</pre>")
            if ran:
                parts.append(f"backward ran at step {item.ran - self.forward_steps}")
                for index, grad in enumerate(item.details.get("grad_outputs", [])):
                    parts.append(f"<pre>received grad[{index}]:\n{html.escape(_full(grad))}</pre>")
                for index, grad in enumerate(item.details.get("grad_inputs", [])):
                    parts.append(f"<pre>sent grad to input {index}:\n{html.escape(_full(grad))}</pre>")
            else:
                parts.append("backward has not run on this node yet")
        else:
            if meta is not None:
                parts.append(html.escape(_shape_line(meta.shape, meta.dtype, meta.device)))
            value = item.details.get("value")
            parts.append(
                f"<pre>value:\n{html.escape(full_text(value))}</pre>" if value is not None
                else "value: not kept by the graph (capture the forward pass to see it)"
            )
            if item.kind == "leaf":
                before = item.details.get("grad_before")
                if before is not None:
                    parts.append(f"<pre>.grad before this backward:\n{html.escape(full_text(before))}</pre>")
                if ran:
                    parts.append(f"AccumulateGrad ran at backward step {item.ran - self.forward_steps}")
                    parts.append(f"<pre>.grad:\n{html.escape(_full(item.details.get('grad_after')))}</pre>")
                else:
                    parts.append("grad: not computed yet")
            elif ran:
                parts.append(f"gradient (known at backward step {item.ran - self.forward_steps}):")
                parts.append(f"<pre>{html.escape(_full(item.details.get('grad')))}</pre>")
            else:
                parts.append("grad: not computed yet")
        return "<div class='minitorch-graph-details'>" + "<br>".join(parts) + "</div>"


def _wrapped(pieces: list[str], width: int) -> list[str]:
    """Join ``pieces`` with ", " into lines of about ``width`` characters, breaking only between pieces."""
    lines, current = [], ""
    for piece in pieces:
        candidate = f"{current}, {piece}" if current else piece
        if current and len(candidate) > width:
            lines.append(current + ",")
            current = piece
        else:
            current = candidate
    return lines + ([current] if current else [])


def _destination(item) -> str:
    if item.kind == "leaf":
        return item.title
    if item.kind == "op":
        return _op_name(item.node)
    return item.title or _op_name(item.node)


def _item_label(item) -> str:
    if hasattr(item, "item_label"):  # a node of an FX graph (fx_timeline.py) says what it is itself
        return item.item_label()
    if item.kind == "op":  # named by its forward step: the session-wide sequence number (#2038) means little here
        return f"{item.node.name()} (op, forward step {item.created})"
    if item.kind == "leaf":
        return f"{item.title} (leaf)"
    base = item.title or f"output of {item.node.name()}" + (f" [{item.output_nr}]" if item.output_nr else "")
    return f"{base} (tensor)" if item.kind == "tensor" else f"{base} (output)"
