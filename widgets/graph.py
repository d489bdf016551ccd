"""The graph stepper: watch autograd's graph grow during forward, then watch backward walk it.

    >>> import minitorch, widgets
    >>> a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    >>> b = minitorch.tensor([3.0, 4.0], requires_grad=True)
    >>> loss = (a * b).sum()
    >>> stepper = widgets.GraphStepper(loss, names={"a": a, "b": b})
    >>> stepper.frame_count                 # the leaves, 2 forward steps, 4 backward steps
    7
    >>> print(stepper.caption(3))          # doctest: +NORMALIZE_WHITESPACE
    Backward step 1 of 4: backward of sum (SumBackward0): dx_i = grad (the gradient is copied to every
    summed element). It received grad = 1 and sent 1 gradient on, to mul.
    >>> a.grad                              # building the stepper ran the real backward pass
    tensor([3., 4.])

What you see, frame by frame:

* frame 0: the leaves, the tensors you made with ``requires_grad=True`` (the parameters);
* one frame per forward op, in the order they ran (their sequence numbers): the op's node
  (``MulBackward0``, with its settings) and the tensor it made (shape, dtype, device, and its
  values when small, a summary when large);
* one frame per step of backward, in the order the real engine runs the nodes: the stepper
  drives ``minitorch.autograd.graph.step_backward``, the very generator ``backward()`` drains.
  A tensor's gradient appears when the engine hands it to the node that made the tensor;
  until then it reads "not computed" (never 0). At a leaf, you see ``.grad`` accumulate.

Two ways in:

* ``GraphStepper(loss, names=dict(model.named_parameters()))`` after the forward pass; values
  of intermediate tensors are shown when the graph kept them (saved for backward);
* ``GraphStepper.capture(function, *args, model=model)`` runs ``function`` itself and watches
  it: every intermediate value, the names of its local variables, and which ``nn.Module``
  made each node (so big graphs can be folded into one box per module).

Building a stepper runs backward once (exactly ``loss.backward()``: leaves get their
``.grad``, the graph is freed unless ``retain_graph=True``). Everything the frames show is
copied at that moment, so an optimizer step afterwards does not change the pictures.

The layout is computed once per graph, with every node that will ever exist; a frame only
hides nodes not yet created and recolours the rest, so nothing jumps while stepping. The
frames can be pre-rendered into an ipywidgets ``Stack`` driven by ``jslink`` from the slider,
so a saved notebook still steps in the browser without a kernel.
"""

from __future__ import annotations

import html
import sys
from bisect import bisect_right
from contextlib import contextmanager

import numpy as np

import minitorch
from minitorch.autograd import graph as autograd_graph

from .render import GraphvizUnavailable, SvgTemplate, escape_text, render_svg

__all__ = ["GraphStepper", "GraphTimeline", "ForwardRecord", "record_forward"]

INLINE_VALUES = 8  # tensors with at most this many elements show their values inside the node
OFFLINE_BYTES = 24_000_000  # above this much SVG in all frames, frames are drawn on demand by the kernel
AUTO_COLLAPSE_ITEMS = 150  # bigger graphs start folded into one box per module


# == text for values and gradients ===================================================================
def to_numpy(tensor) -> np.ndarray:
    """A NumPy copy of ``tensor``'s values (from any device), safe to keep after later in-place changes."""
    return np.array(tensor.detach().cpu().numpy(), copy=True)


def _number(value) -> str:
    return f"{float(value):.4g}"


def summary(array: np.ndarray) -> str:
    """``mean 0.1 std 0.9 min -2 max 3``: what a large tensor looks like, in one line."""
    if array.size == 0:
        return "empty"
    values = array.astype(np.float64, copy=False)
    return (
        f"mean {_number(values.mean())} std {_number(values.std())} "
        f"min {_number(values.min())} max {_number(values.max())}"
    )


def value_lines(array: np.ndarray, prefix: str = "") -> list[str]:
    """The lines that describe a tensor inside a node: its values when small, a summary when large."""
    if array.size <= INLINE_VALUES:
        if array.ndim == 0:
            return [f"{prefix}{_number(array)}"]
        text = np.array2string(array, precision=3, separator=", ", suppress_small=True, max_line_width=56)
        lines = text.splitlines()
        return [prefix + lines[0]] + [" " * len(prefix) + line for line in lines[1:]]
    values = array.astype(np.float64, copy=False)
    return [
        f"{prefix}mean {_number(values.mean())} std {_number(values.std())}",
        f"{' ' * len(prefix)}min {_number(values.min())} max {_number(values.max())}",
    ]


def full_text(array: np.ndarray) -> str:
    """The values for the detail panel: all of them up to 200, else a summary and the first few."""
    if array.size <= 200:
        return np.array2string(array, precision=4, separator=", ", max_line_width=90)
    first = np.array2string(array.ravel()[:8], precision=4, separator=", ", max_line_width=90)
    return f"{summary(array)}\nfirst values (flattened): {first[:-1]}, ...]"


def _short(value, limit: int = 40) -> str:
    if isinstance(value, minitorch.Tensor):
        return f"tensor{tuple(value.shape)}"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _shape_line(shape, dtype, device) -> str:
    text = f"{tuple(shape)} {_dtype_name(dtype)}"
    return text if str(device) == "cpu" else f"{text} {device}"


def _op_name(node) -> str:
    """``MulBackward0`` -> ``mul``: the op as the learner wrote it."""
    name = node.name()
    for suffix in ("Backward0", "Backward1", "Backward"):
        if name.endswith(suffix):
            return name[: -len(suffix)].lower() or name
    return name


def _formula_parts(node) -> tuple[str, str]:
    """The forward and the backward half of an op's documented math (``y = a * b`` / ``da = grad * b, ...``)."""
    text = autograd_graph.formula(node).replace("``", "")
    if not text:
        return "", ""
    forward, _, backward = text.partition(";")
    return forward.strip().rstrip("."), " ".join(backward.split()).rstrip(".")


# == watching a forward pass ==========================================================================
class ForwardRecord:
    """What ``record_forward`` saw: each op's output values, the module that made each node, names.

    Keys: a node's outputs are ``(id(node), output_nr)``; a leaf is ``id(tensor)``. The
    record keeps every node it saw alive, so those ids stay unique while it exists.
    """

    def __init__(self):
        self.values: dict = {}  # (id(node), output_nr) -> NumPy copy of that output
        self.node_modules: dict = {}  # id(node) -> path of the innermost module running when it was made
        self.modules: dict = {}  # module path -> type name ("" is the model itself)
        self.parameter_modules: dict = {}  # id(parameter) -> module path that owns it
        self.names: dict = {}  # (id(node), output_nr) or id(leaf) -> a name
        self._kept = []  # nodes and leaves, kept alive so their ids are not reused

    def _add_outputs(self, result, module_path) -> None:
        outputs = result if isinstance(result, tuple) else (result,)
        for output in outputs:
            if not isinstance(output, minitorch.Tensor) or output.grad_fn is None:
                continue
            node = output.grad_fn
            self.values[(id(node), output.output_nr)] = to_numpy(output)
            if id(node) not in self.node_modules:
                self.node_modules[id(node)] = module_path
                self._kept.append(node)

    def _add_names(self, variables: dict) -> None:
        for name, value in variables.items():
            if isinstance(value, minitorch.Tensor) and value.requires_grad and not name.startswith("_"):
                self.name(value, name, overwrite=False)

    def name(self, tensor, name: str, overwrite: bool = True) -> None:
        """Call ``tensor`` by ``name`` in the pictures."""
        key = id(tensor) if tensor.grad_fn is None else (id(tensor.grad_fn), tensor.output_nr)
        if overwrite or key not in self.names:
            self.names[key] = name
            self._kept.append(tensor if tensor.grad_fn is None else tensor.grad_fn)


@contextmanager
def record_forward(model=None, function=None):
    """Watch the forward pass run inside the ``with`` block; yields a ``ForwardRecord``.

    It keeps a copy of every op's output, and with ``model`` (an ``nn.Module``) it notes
    which submodule made each node, through forward hooks on every submodule. With
    ``function``, the names of that function's local variables name the tensors they hold.

        >>> import minitorch, widgets
        >>> model = minitorch.nn.Sequential(minitorch.nn.Linear(2, 2), minitorch.nn.ReLU())
        >>> with widgets.record_forward(model) as record:
        ...     loss = model(minitorch.ones(1, 2)).sum()
        >>> list(record.node_modules.values())      # linear, relu, then the sum outside the model
        ['0', '1', None]

    How: Python's profiler hook (``sys.setprofile``) sees every return from
    ``minitorch.autograd.Function.apply``, the one door through which every op passes, and
    the module hooks tell which module is running. Nothing in minitorch is changed.
    """
    record = ForwardRecord()
    stack = []
    handles = []
    if model is not None:
        for path, module in model.named_modules():
            record.modules[path] = type(module).__name__
            handles.append(module.register_forward_pre_hook(_push_module(stack, path)))
            handles.append(module.register_forward_hook(_pop_module(stack)))
        for name, parameter in model.named_parameters():
            record.parameter_modules[id(parameter)] = name.rpartition(".")[0]
            record.name(parameter, name)

    apply_code = minitorch.autograd.Function.apply.__func__.__code__
    function_code = getattr(function, "__code__", None)
    previous = sys.getprofile()

    def profiler(frame, event, argument):
        if event == "return":
            code = frame.f_code
            if code is apply_code:
                record._add_outputs(argument, stack[-1] if stack else None)
            elif code is function_code:
                record._add_names(frame.f_locals)
        if previous is not None:
            previous(frame, event, argument)

    sys.setprofile(profiler)
    try:
        yield record
    finally:
        sys.setprofile(previous)
        for handle in handles:
            handle.remove()


def _push_module(stack, path):
    def hook(module, inputs):
        stack.append(path)

    return hook


def _pop_module(stack):
    def hook(module, inputs, output):
        if stack:
            stack.pop()

    return hook


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
        self.edge_gradients: dict = {}  # (source key, target key) -> (frame, gradient) sent along that edge
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
                self.edge_gradients[(source.key, item.key)] = (frame, grad)
                if grad is not None:
                    self.arrivals.setdefault(source.key, []).append(frame)

    # -- labels and styles per frame -------------------------------------------------------------
    def _finish_items(self) -> None:
        for item in self.items:
            meta = item.details.get("meta")
            if item.kind == "op":
                self._op_lines(item)
            else:
                if item.title:
                    item.lines.append(Line(item.title, "#111827"))
                if meta is not None:
                    item.lines.append(Line(_shape_line(meta.shape, meta.dtype, meta.device), "#374151"))
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
        item.lines.append(Line(node.name(), "#111827"))
        arguments = {
            key: value for key, value in autograd_graph.arguments(node).items() if not isinstance(value, np.ndarray)
        }
        if arguments:
            text = ", ".join(f"{key}={_short(value, 24)}" for key, value in arguments.items())
            item.lines.append(Line(text if len(text) <= 48 else text[:45] + "...", "#4b5563"))
        status = Line(f"sequence number {autograd_graph.sequence_number(node)}", "#6b7280")
        if item.ran is not None:
            status.change(item.ran, f"backward ran (step {item.ran - self.forward_steps})", "#b91c1c")
        item.lines.append(status)

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
    def details_html(self, item: Item) -> str:
        """Everything known about ``item``: value, gradient, saved tensors, settings, when it ran."""
        parts = [f"<b>{html.escape(_item_label(item))}</b>"]
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
            if item.ran is not None:
                parts.append(f"backward ran at step {item.ran - self.forward_steps}")
                for index, grad in enumerate(item.details.get("grad_outputs", [])):
                    parts.append(f"<pre>received grad[{index}]: {html.escape(_full(grad))}</pre>")
                for index, grad in enumerate(item.details.get("grad_inputs", [])):
                    parts.append(f"<pre>sent grad to input {index}: {html.escape(_full(grad))}</pre>")
            else:
                parts.append("backward has not run on this node")
        else:
            if meta is not None:
                parts.append(html.escape(_shape_line(meta.shape, meta.dtype, meta.device)))
            value = item.details.get("value")
            parts.append(
                f"<pre>value: {html.escape(full_text(value))}</pre>" if value is not None
                else "value: not kept by the graph (capture the forward pass to see it)"
            )
            if item.kind == "leaf":
                before = item.details.get("grad_before")
                if before is not None:
                    parts.append(f"<pre>.grad before this backward: {html.escape(full_text(before))}</pre>")
                if item.ran is not None:
                    parts.append(f"AccumulateGrad ran at backward step {item.ran - self.forward_steps}")
                    parts.append(f"<pre>.grad: {html.escape(_full(item.details.get('grad_after')))}</pre>")
                else:
                    parts.append("grad: not computed")
            elif item.ran is not None:
                parts.append(f"gradient (known at backward step {item.ran - self.forward_steps}):")
                parts.append(f"<pre>{html.escape(_full(item.details.get('grad')))}</pre>")
            else:
                parts.append("grad: not computed")
        return "<div class='minitorch-graph-details'>" + "<br>".join(parts) + "</div>"


def _maybe_numpy(tensor):
    return None if tensor is None else to_numpy(tensor)


def _inline(array) -> str:
    lines = value_lines(array)
    if array.size <= INLINE_VALUES:
        return " ".join(line.strip() for line in lines)
    return f"{array.shape} {summary(array)}"


def _full(array) -> str:
    return "None" if array is None else full_text(array)


def _destination(item) -> str:
    if item.kind == "leaf":
        return item.title
    if item.kind == "op":
        return _op_name(item.node)
    return item.title or _op_name(item.node)


def _item_label(item) -> str:
    if item.kind == "op":
        return f"{item.node.name()} (op, #{autograd_graph.sequence_number(item.node)})"
    if item.kind == "leaf":
        return f"{item.title} (leaf)"
    base = item.title or f"output of {item.node.name()}" + (f" [{item.output_nr}]" if item.output_nr else "")
    return f"{base} (tensor)" if item.kind == "tensor" else f"{base} (output)"


# == views: which units are drawn, laid out once ==================================================
# (fill, stroke, stroke width) per kind of unit and per style.
_BASE_FILL = {"leaf": "#dbeafe", "op": "#f3f4f6", "tensor": "#ffffff", "output": "#dcfce7", "module": "#ede9fe"}
_PALETTE = {}
for _kind, _fill in _BASE_FILL.items():
    _PALETTE[_kind] = {
        "hidden": (_fill, "#6b7280", "1"),
        "normal": (_fill, "#6b7280", "1"),
        "output": ("#dcfce7", "#15803d", "1.5"),
        "new": (_fill, "#2563eb", "3"),
        "active": ("#fee2e2", "#dc2626", "3"),
        "done": (_fill, "#dc2626", "1.5"),
    }
_PALETTE["edge"] = {
    "hidden": ("none", "#9ca3af", "1"),
    "normal": ("none", "#9ca3af", "1"),
    "new": ("none", "#2563eb", "2.5"),
    "active": ("none", "#dc2626", "2.5"),
    "done": ("none", "#f87171", "1.5"),
    "nograd": ("none", "#d1d5db", "1"),
}
_PALETTE["cluster"] = {"hidden": ("#faf5ff", "#a78bfa", "1"), "normal": ("#faf5ff", "#a78bfa", "1")}
_PALETTE["cluster"].update({key: _PALETTE["cluster"]["normal"] for key in ("new", "active", "done", "output")})
_SHAPES = {"leaf": "box", "op": "box", "tensor": "box", "output": "box", "module": "box3d"}
_STYLE = {"op": "rounded,filled", "module": "filled"}


class GraphView:
    """One drawing of a timeline: which modules are folded into one box, laid out once.

    ``collapsed``: module paths drawn as one box each (their nodes hidden inside);
    ``clusters``: draw a labelled frame around the nodes of each unfolded module.
    """

    def __init__(self, timeline: GraphTimeline, collapsed=(), clusters: bool = True):
        self.timeline = timeline
        self.collapsed = sorted(set(collapsed), key=module_order)
        self.clusters = clusters
        self.units: list[Unit] = []
        self.unit_of = {}  # item key -> unit (the item itself, or the box of its folded module)
        self._build_units()
        self.dot_source = self._dot()
        self.template = None
        self.error = None
        try:
            self.template = SvgTemplate(render_svg(self.dot_source))
        except GraphvizUnavailable as error:
            self.error = str(error)

    def _folded_module(self, module):
        if module is None:
            return None
        for path in self.collapsed:
            if module == path or module.startswith(path + "."):
                return path
        return None

    def _build_units(self) -> None:
        timeline = self.timeline
        boxes = {}
        for item in timeline.items:
            path = self._folded_module(item.module)
            if path is None:
                self.unit_of[item.key] = item
                self.units.append(item)
                continue
            box = boxes.get(path)
            if box is None:
                box = Unit(f"m{len(boxes)}", "module", path)
                boxes[path] = box
                self.units.append(box)
            box.members.append(item)
            self.unit_of[item.key] = box
        for path, box in boxes.items():
            self._module_box(box, path)

        # Edges between units: one per pair, styled by the most telling of its member edges.
        merged = {}
        for source, target, input_nr in timeline.edges:
            a, b = self.unit_of[source.key], self.unit_of[target.key]
            if a is b:
                continue
            merged.setdefault((a.key, b.key), (a, b, []))[2].append((source, target, input_nr))
        self.edge_units = []
        order = {"normal": 0, "done": 1, "nograd": 1, "new": 2, "active": 3}
        for index, (a, b, members) in enumerate(merged.values()):
            edge = Unit(f"e{index}", "edge")
            edge.members = [a, b]
            events = {}
            for source, target, input_nr in members:
                for frame, style in self._edge_events(source, target, input_nr).items():
                    if order.get(style, 0) >= order.get(events.get(frame), -1):
                        events[frame] = style
            edge.set_styles(events)
            self.edge_units.append(edge)

        # Module frames (clusters) around unfolded modules with at least one drawn item.
        self.cluster_units = {}
        if self.clusters:
            for item in timeline.items:
                if self.unit_of[item.key] is item and item.module:
                    path = item.module
                    while path:
                        cluster = self.cluster_units.get(path)
                        if cluster is None:
                            name = timeline.record.modules.get(path, "")
                            cluster = Unit(f"c{len(self.cluster_units)}", "cluster", f"{path}: {name}")
                            self.cluster_units[path] = cluster
                        cluster.members.append(item)
                        path = path.rpartition(".")[0]
            for cluster in self.cluster_units.values():
                cluster.set_styles({min(member.created for member in cluster.members): "normal"})

    def _edge_events(self, source, target, input_nr) -> dict:
        timeline = self.timeline
        created = target.created if input_nr >= 0 else source.created
        events = {created: "new" if created > 0 else "normal", created + 1: "normal"}
        if input_nr >= 0:  # tensor -> op: the gradient flows back when the op runs
            sent = timeline.edge_gradients.get((source.key, target.key))
            if sent is not None:
                frame, grad = sent
                events[frame] = "active" if grad is not None else "nograd"
                events[frame + 1] = "done" if grad is not None else "nograd"
        elif target.ran is not None:  # op -> its output: the output's gradient enters the op
            events[target.ran] = "active"
            events[target.ran + 1] = "done"
        return events

    def _module_box(self, box: Unit, path: str) -> None:
        timeline = self.timeline
        members = box.members
        ops = [m for m in members if m.kind == "op"]
        parameters = [m for m in members if m.kind == "leaf"]
        type_name = timeline.record.modules.get(path, "")
        box.lines.append(Line(f"{path or 'model'}: {type_name}" if type_name else path, "#111827"))
        box.lines.append(Line(f"{len(ops)} ops, {len(parameters)} parameters (folded)", "#4b5563"))
        forward_line = Line(f"forward: 0 of {len(ops)} ops", "#6b7280")
        for count, frame in enumerate(sorted(m.created for m in ops), start=1):
            forward_line.change(frame, f"forward: {count} of {len(ops)} ops", "#1d4ed8")
        box.lines.append(forward_line)
        ran = sorted(m.ran for m in members if m.ran is not None and m.kind in ("op", "leaf"))
        runnable = len(ops) + len(parameters)
        backward_line = Line(f"backward: 0 of {runnable} nodes ran", "#9ca3af")
        for count, frame in enumerate(ran, start=1):
            backward_line.change(frame, f"backward: {count} of {runnable} nodes ran", "#b91c1c")
        box.lines.append(backward_line)
        events = {}
        for member in members:
            events.setdefault(member.created, "normal")
        for member in members:
            if member.created > 0:
                events[member.created] = "new"
                events.setdefault(member.created + 1, "normal")
        for member in members:
            if member.ran is not None:
                events[member.ran] = "active"
                events.setdefault(member.ran + 1, "done")
        # After the first backward step inside, the box stays "done" between its active steps.
        first_ran = min(ran) if ran else None
        if first_ran is not None:
            events = {f: ("done" if s in ("normal", "new") and f > first_ran else s) for f, s in events.items()}
        box.set_styles(events)
        box.members = members

    # -- DOT --------------------------------------------------------------------------------------
    def _dot(self) -> str:
        lines = [
            "digraph minitorch_graph {",
            '  graph [rankdir=TB nodesep=0.25 ranksep=0.3 fontname="Helvetica" fontsize=10 bgcolor="white"];',
            '  node [fontname="Helvetica" fontsize=10 margin="0.16,0.05" penwidth=1];',
            "  edge [arrowsize=0.6];",
        ]
        in_cluster = {}
        for path, cluster in self.cluster_units.items():
            for member in cluster.members:
                if member.module == path:
                    in_cluster.setdefault(path, []).append(member)
        # Folded module boxes sit inside the frame of their nearest unfolded parent module.
        for unit in self.units:
            if unit.kind == "module":
                parent = unit.title.rpartition(".")[0]
                while parent and parent not in self.cluster_units:
                    parent = parent.rpartition(".")[0]
                if parent:
                    in_cluster.setdefault(parent, []).append(unit)
        placed = {id(unit) for units in in_cluster.values() for unit in units}
        for unit in self.units:
            if id(unit) not in placed:
                lines.append("  " + self._node_statement(unit))
        for path in sorted((p for p in self.cluster_units if "." not in p), key=module_order):
            lines.extend(self._cluster_statements(path, in_cluster, "  "))
        for edge in self.edge_units:
            a, b = edge.members
            lines.append(f'  {a.key} -> {b.key} [id="{edge.key}"];')
        lines.append("}")
        return "\n".join(lines)

    def _cluster_statements(self, path, in_cluster, indent) -> list[str]:
        cluster = self.cluster_units[path]
        lines = [
            f"{indent}subgraph cluster_{cluster.key} {{",
            f'{indent}  id="{cluster.key}"; label="{_dot_escape(cluster.title)}"; labeljust="l"; '
            'style="rounded,filled"; fillcolor="#faf5ff"; color="#a78bfa";',
        ]
        for unit in in_cluster.get(path, []):
            lines.append(f"{indent}  {self._node_statement(unit)}")
        children = [p for p in self.cluster_units if p.rpartition(".")[0] == path and p != path]
        for child in sorted(children, key=module_order):
            lines.extend(self._cluster_statements(child, in_cluster, indent + "  "))
        lines.append(f"{indent}}}")
        return lines

    def _node_statement(self, unit) -> str:
        label = "".join(_dot_escape(line.longest()) + "\\l" for line in unit.lines)
        shape = _SHAPES.get(unit.kind, "box")
        style = _STYLE.get(unit.kind, "filled")
        fill = _BASE_FILL.get(unit.kind, "#ffffff")
        return f'{unit.key} [id="{unit.key}" shape={shape} style="{style}" fillcolor="{fill}" label="{label}"];'

    # -- frames -------------------------------------------------------------------------------------
    def frame_svg(self, frame: int) -> str:
        """The SVG of ``frame``: the one layout, with this frame's visibility, colours and text."""
        if self.template is None:
            raise GraphvizUnavailable(self.error)
        values = {}
        line_counts = self.template.line_counts
        for unit in self.units:
            key = unit.key
            style = unit.style_at(frame)
            fill, stroke, width = _PALETTE[unit.kind][style]
            values[key + ".visibility"] = "hidden" if style == "hidden" else "visible"
            values[key + ".fill"] = fill
            values[key + ".stroke"] = stroke
            values[key + ".stroke-width"] = width
            for index in range(line_counts.get(key, 0)):
                line = unit.lines[index]
                position = bisect_right(line.frames, frame) - 1
                values[f"{key}.text{index}"] = line.texts[position]
                values[f"{key}.text{index}.fill"] = line.colors[position]
        for edge in self.edge_units:
            a, b = edge.members
            style = edge.style_at(frame)
            if a.style_at(frame) == "hidden" or b.style_at(frame) == "hidden":
                style = "hidden"
            fill, stroke, width = _PALETTE["edge"][style]
            values[edge.key + ".visibility"] = "hidden" if style == "hidden" else "visible"
            values[edge.key + ".fill"] = fill
            values[edge.key + ".stroke"] = stroke
            values[edge.key + ".stroke-width"] = width
        for cluster in self.cluster_units.values():
            style = cluster.style_at(frame)
            fill, stroke, width = _PALETTE["cluster"][style]
            values[cluster.key + ".visibility"] = "hidden" if style == "hidden" else "visible"
            values[cluster.key + ".fill"] = fill
            values[cluster.key + ".stroke"] = stroke
            values[cluster.key + ".stroke-width"] = width
        return self.template.fill(values)


def module_order(path: str) -> tuple:
    """Sort key for module paths: outer modules first, then ``"2"`` before ``"10"``."""
    return (path.count("."), [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in path.split(".")])


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


# == the widget ====================================================================================
class GraphStepper:
    """Step through a graph's forward pass and the real engine's backward pass, in a notebook.

    ``GraphStepper(output, names=None, record=None, gradient=None, retain_graph=False,
    backward=True, group="auto", collapsed=None, offline=None)``

    * ``names``: ``{name: tensor}`` for leaves (``dict(model.named_parameters())``) or any other tensor.
    * ``record``: a ``ForwardRecord`` from ``record_forward`` (values, module grouping, names).
    * ``gradient``, ``retain_graph``: as in ``output.backward(gradient, retain_graph)``.
    * ``backward=False``: show the forward pass only (and leave the graph alone).
    * ``group``: ``"auto"`` (frames around modules; graphs above 150 items start folded one
      box per top-level module), ``"modules"`` (frames), ``"none"``; ``collapsed``: the module
      paths to fold (``stepper.collapse(...)`` / ``expand(...)`` change it later).
    * ``offline``: pre-render every frame into a ``Stack`` stepped by the browser alone (works in
      a saved notebook without a kernel). ``None`` decides by size.

    Display it as the last expression of a cell (or ``display(stepper)``).
    """

    def __init__(self, output, names=None, record=None, gradient=None, retain_graph: bool = False,
                 backward: bool = True, group: str = "auto", collapsed=None, offline: bool | None = None,
                 interval_ms: int = 900):
        if group not in ("auto", "modules", "none"):
            raise ValueError(f"group must be 'auto', 'modules' or 'none', got {group!r}")
        self.timeline = GraphTimeline(output, names, record, gradient, retain_graph, backward)
        paths = set()
        for item in self.timeline.items:
            path = item.module
            while path:  # a module and every module around it
                paths.add(path)
                path = path.rpartition(".")[0]
        self.modules = sorted(paths, key=module_order)
        if collapsed is None:
            large = len(self.timeline.items) > AUTO_COLLAPSE_ITEMS
            collapsed = [path for path in self.modules if "." not in path] if (group == "auto" and large) else []
        self.group = group
        self._offline_choice = offline
        self.interval_ms = interval_ms
        self.view = GraphView(self.timeline, collapsed, clusters=group != "none")
        self._widget = None
        self._frames_cache = {}

    @classmethod
    def capture(cls, function, *args, model=None, names=None, **options):
        """Run ``function(*args)`` while watching it, then step through the graph of what it returned.

        Every intermediate value is shown (not only those backward keeps), tensors are named by
        the function's local variables and, with ``model``, nodes are grouped by the module that
        made them.
        """
        with record_forward(model, function) as record:
            output = function(*args)
        return cls(output, names=names, record=record, **options)

    # -- the frames, without any widget ------------------------------------------------------------
    @property
    def frame_count(self) -> int:
        return self.timeline.frame_count

    @property
    def items(self) -> list:
        return self.timeline.items

    def caption(self, frame: int) -> str:
        return self.timeline.caption(frame)

    def frame_svg(self, frame: int) -> str:
        if not 0 <= frame < self.frame_count:
            raise IndexError(f"frame {frame} out of range: the stepper has {self.frame_count} frames")
        return self.view.frame_svg(frame)

    def frames(self) -> list[str]:
        """Every frame's SVG (the layout is computed once; each frame only restyles it)."""
        return [self.view.frame_svg(frame) for frame in range(self.frame_count)]

    def frame_html(self, frame: int) -> str:
        caption = html.escape(self.caption(frame))
        if self.view.template is None:
            message = html.escape(self.view.error)
            body = f"<div class='minitorch-graph-error'><b>Cannot draw the graph.</b> {message}</div>"
        else:
            body = self.frame_svg(frame)
        return (
            f"<div class='minitorch-graph-frame' data-frame='{frame}'>"
            f"<div class='minitorch-graph-caption' style='min-height:3em;margin-bottom:4px'>{caption}</div>"
            f"{body}</div>"
        )

    def details_html(self, index: int) -> str:
        return self.timeline.details_html(self.timeline.items[index])

    def backward_order(self) -> list:
        """The nodes in the order the engine ran them (one per backward step)."""
        return list(self.timeline.step_nodes)

    # -- grouping -------------------------------------------------------------------------------------
    @property
    def collapsed(self) -> list[str]:
        return list(self.view.collapsed)

    def collapse(self, *paths: str) -> None:
        """Fold the modules at ``paths`` into one box each."""
        self._regroup(set(self.view.collapsed) | set(paths))

    def expand(self, *paths: str) -> None:
        """Unfold the modules at ``paths`` (all folded modules when no path is given)."""
        self._regroup(set(self.view.collapsed) - set(paths) if paths else set())

    def _regroup(self, collapsed) -> None:
        unknown = [path for path in collapsed if path not in self.modules]
        if unknown:
            raise ValueError(f"no module {unknown[0]!r} made nodes of this graph; modules: {self.modules}")
        self.view = GraphView(self.timeline, collapsed, clusters=self.group != "none")
        if self._widget is not None:
            self._refresh_frames()
            if sorted(self._widget.group_select.value) != sorted(self.view.collapsed):
                self._widget.group_select.value = tuple(self.view.collapsed)

    # -- the ipywidgets --------------------------------------------------------------------------------
    @property
    def offline(self) -> bool:
        """True when every frame is pre-rendered into a ``Stack`` (steps in the browser without a kernel)."""
        if self._offline_choice is not None:
            return bool(self._offline_choice)
        if self.view.template is None:
            return True
        return len(self.frame_svg(self.frame_count - 1)) * self.frame_count <= OFFLINE_BYTES

    @property
    def widget(self):
        """The ipywidgets box: controls, the drawing, and the detail panel."""
        if self._widget is None:
            self._widget = _StepperWidgets(self)
        return self._widget.box

    def _refresh_frames(self) -> None:
        self._widget.refresh()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)


class _StepperWidgets:
    """The ipywidgets of one stepper (kept apart so the stepper itself can be used without them)."""

    def __init__(self, stepper: GraphStepper):
        import ipywidgets as w

        self.stepper = stepper
        last = stepper.frame_count - 1
        self.play = w.Play(value=0, min=0, max=last, step=1, interval=stepper.interval_ms, show_repeat=False,
                           description="play")
        self.slider = w.IntSlider(value=0, min=0, max=last, description="step", continuous_update=True,
                                  layout=w.Layout(width="420px"))
        self.previous = w.Button(description="◀ previous", tooltip="previous step", layout=w.Layout(width="110px"))
        self.next = w.Button(description="next ▶", tooltip="next step", layout=w.Layout(width="90px"))
        self.previous.on_click(lambda _: self._move(-1))
        self.next.on_click(lambda _: self._move(+1))
        w.jslink((self.play, "value"), (self.slider, "value"))
        self.frame_area = w.Box(layout=w.Layout(flex="3 1 0%", min_width="0"))
        options = [(_item_label(item), index) for index, item in enumerate(stepper.items)]
        self.node_select = w.Dropdown(options=options, value=len(options) - 1 if options else None,
                                      description="node", layout=w.Layout(width="100%"))
        self.details_area = w.Box(layout=w.Layout(width="100%"))
        side = w.VBox(
            [w.HTML("<b>Selected node</b>"), self.node_select, self.details_area],
            layout=w.Layout(flex="1 1 0%", min_width="240px", max_height="640px", overflow="auto"),
        )
        self.group_select = w.SelectMultiple(
            options=stepper.modules, value=tuple(stepper.view.collapsed), description="fold",
            rows=min(6, max(2, len(stepper.modules))),
            layout=w.Layout(display="flex" if stepper.modules else "none"),
        )
        self.group_select.observe(self._on_group, names="value")
        controls = w.HBox([self.play, self.previous, self.next, self.slider])
        main = w.HBox([self.frame_area, side], layout=w.Layout(width="100%"))
        self.box = w.VBox([controls, main, self.group_select], layout=w.Layout(width="100%"))
        self.box.add_class("minitorch-graph-stepper")
        self._links = []
        self._observers = []
        self.refresh()

    def _move(self, delta: int) -> None:
        self.slider.value = max(self.slider.min, min(self.slider.max, self.slider.value + delta))

    def _on_group(self, change) -> None:
        if sorted(change["new"]) != sorted(self.stepper.view.collapsed):
            self.stepper._regroup(set(change["new"]))

    def refresh(self) -> None:
        """Build the frame and detail displays (pre-rendered Stacks, or HTML redrawn by the kernel)."""
        import ipywidgets as w

        for link in self._links:
            link.unlink()
        for handler, target in self._observers:
            target.unobserve(handler, names="value")
        self._links, self._observers = [], []
        stepper = self.stepper
        if stepper.offline:
            frames = w.Stack([w.HTML(stepper.frame_html(k)) for k in range(stepper.frame_count)],
                             selected_index=self.slider.value)
            details = w.Stack([w.HTML(stepper.details_html(i)) for i in range(len(stepper.items))],
                              selected_index=self.node_select.index)
            self._links.append(w.jslink((self.slider, "value"), (frames, "selected_index")))
            self._links.append(w.jslink((self.node_select, "index"), (details, "selected_index")))
        else:
            frames = w.HTML(stepper.frame_html(self.slider.value))
            details = w.HTML(stepper.details_html(self.node_select.index or 0) if stepper.items else "")

            def show_frame(change):
                frames.value = stepper.frame_html(change["new"])

            def show_details(change):
                details.value = stepper.details_html(change["new"])

            self.slider.observe(show_frame, names="value")
            self.node_select.observe(show_details, names="value")
            self._observers = [(show_frame, self.slider), (show_details, self.node_select)]
        frames.add_class("minitorch-graph-frames")
        details.add_class("minitorch-graph-detail-panel")
        self.frame_area.children = (frames,)
        self.details_area.children = (details,)
        self.frames_widget, self.details_widget = frames, details
