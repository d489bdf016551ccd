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

The parts, one file each: ``graph_values.py`` (values and ops in words), ``graph_record.py``
(watching a forward pass), ``graph_timeline.py`` (what happens at each frame),
``graph_view.py`` (the DOT source and the SVG of each frame) and ``render.py`` (DOT to SVG).
This file holds the widget that steps through them.
"""

from __future__ import annotations

import html

from .graph_record import ForwardRecord, record_forward
from .graph_timeline import GraphTimeline, _item_label
from .graph_view import GraphView, module_order

__all__ = ["GraphStepper", "GraphTimeline", "ForwardRecord", "record_forward"]

OFFLINE_BYTES = 24_000_000  # above this much SVG in all frames, frames are drawn on demand by the kernel
AUTO_COLLAPSE_ITEMS = 150  # bigger graphs start folded into one box per module


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
