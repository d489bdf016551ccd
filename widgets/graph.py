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

A third: ``GraphStepper.from_fx(graph_module, *inputs)`` draws an FX graph (chapter 16): one
frame per node, each with the value it made on ``inputs``, and each fused kernel of a compiled
graph as one box that unfolds into the pointwise ops it fused (``fx_timeline.py``).

Building a stepper runs backward once (exactly ``loss.backward()``: leaves get their
``.grad``, the graph is freed unless ``retain_graph=True``). Everything the frames show is
copied at that moment, so an optimizer step afterwards does not change the pictures.

The layout is computed once per graph, with every node that will ever exist; a frame only
hides nodes not yet created and recolours the rest, so nothing jumps while stepping. The view
in the notebook is an anywidget (``frontend/graph_stepper.js``): the browser gets the drawing
once and, per frame, only what changes, so it steps, plays, pans and zooms without a kernel
(a notebook saved with its widget state); each step pans to what changed, clicking a node
shows what is known about it at that frame, and folding modules (a new layout) asks the
kernel. The output also keeps a static picture of the whole graph after backward, for
viewers without the widget (GitHub, nbviewer, an HTML export).

The parts, one file each: ``graph_values.py`` (values and ops in words), ``graph_record.py``
(watching a forward pass), ``graph_timeline.py`` (what happens at each frame),
``graph_view.py`` (the DOT source and the SVG of each frame) and ``render.py`` (DOT to SVG).
This file holds the widget that steps through them.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from .graph_record import ForwardRecord, record_forward
from .graph_timeline import GraphTimeline, _item_label
from .graph_view import FIT_BOX, LEGIBLE_SCALE, GraphView, module_order
from .static import StaticFallback

__all__ = ["GraphStepper", "GraphTimeline", "ForwardRecord", "record_forward"]

AUTO_COLLAPSE_ITEMS = 150  # bigger graphs start folded into one box per module, without a first layout
# A graph whose whole drawing would show its labels smaller than 9 px (LEGIBLE_SCALE) in the drawing's box starts
# folded into one box per top-level module (a small CNN, a residual block, a transformer layer), and a drawing
# still too tall for the box is wrapped into 2 or 3 columns side by side; one that is legible whole stays open
# (the course's MLP on a 1440x900 screen). The box is a laptop's (graph_view.FIT_BOX) until the browser reports
# the size it really has (a 1280x720 screen's is smaller); a learner's own folding is kept.
WRAP_COLUMNS = (1, 2, 3)
_FRONTEND = Path(__file__).parent / "frontend"


# == the widget ====================================================================================
class GraphStepper(StaticFallback):
    """Step through a graph's forward pass and the real engine's backward pass, in a notebook.

    ``GraphStepper(output, names=None, record=None, gradient=None, retain_graph=False,
    backward=True, group="auto", collapsed=None, offline=None)``

    * ``names``: ``{name: tensor}`` for leaves (``dict(model.named_parameters())``) or any other tensor.
    * ``record``: a ``ForwardRecord`` from ``record_forward`` (values, module grouping, names).
    * ``gradient``, ``retain_graph``: as in ``output.backward(gradient, retain_graph)``.
    * ``backward=False``: show the forward pass only (and leave the graph alone).
    * ``group``: ``"auto"`` (frames around modules; a graph too big to read whole in the drawing's
      box, or above 150 items, starts folded one box per top-level module, wrapped into columns
      when still too tall), ``"modules"`` (frames), ``"none"``; ``collapsed``: the module
      paths to fold (``stepper.collapse(...)`` / ``expand(...)`` change it later).
    * ``rankdir``: ``"TB"`` (top to bottom), ``"LR"`` (left to right) or ``"auto"``: top to
      bottom unless left to right fits a laptop's box at a larger size.
    * ``offline``: kept for compatibility; the browser always steps on its own.

    ``GraphStepper.from_fx(graph_module, *inputs)`` steps through an FX graph instead, one node
    per frame, with fused kernels as boxes that unfold (see ``from_fx``).

    Display it as the last expression of a cell (or ``display(stepper)``).
    """

    def __init__(self, output, names=None, record=None, gradient=None, retain_graph: bool = False,
                 backward: bool = True, group: str = "auto", collapsed=None, offline: bool | None = None,
                 interval_ms: int = 900, rankdir: str = "auto"):
        _check_group(group)  # before backward runs
        self._start(GraphTimeline(output, names, record, gradient, retain_graph, backward), group, collapsed,
                    interval_ms, rankdir)

    @classmethod
    def from_fx(cls, graph_module, *inputs, group: str = "auto", collapsed=None, interval_ms: int = 900,
                rankdir: str = "auto"):
        """Step through an FX graph (``fx.symbolic_trace``'s, or one ``minitorch.compile`` captured) run on ``inputs``.

        One frame per node of ``graph_module.graph``, in order: placeholders, ``get_attr``, the
        ``call_function`` / ``call_method`` / ``call_module`` nodes and ``output``, each labelled with
        its target and the value it made on ``inputs``, with an edge from every node it reads. A fused
        kernel (``minitorch._inductor.fusion.FusedKernel``) is one box that unfolds into the pointwise
        ops it fused; the kernels start folded unless ``collapsed`` (kernel node names) says otherwise,
        and ``stepper.expand("fused_mul_add")`` unfolds one. See ``fx_timeline.py``.
        """
        from .fx_timeline import FxTimeline

        _check_group(group)
        timeline = FxTimeline(graph_module, inputs)
        if collapsed is None:
            collapsed = timeline.kernels or None  # every kernel folded; without kernels, the usual opening layout
        stepper = cls.__new__(cls)
        stepper._start(timeline, group, collapsed, interval_ms, rankdir)
        return stepper

    def _start(self, timeline, group, collapsed, interval_ms, rankdir) -> None:
        self.timeline = timeline
        paths = set()
        for item in self.timeline.items:
            path = item.module
            while path:  # a module and every module around it
                paths.add(path)
                path = path.rpartition(".")[0]
        self.modules = sorted(paths, key=module_order)
        self.group = group
        self.rankdir = rankdir
        self.interval_ms = interval_ms
        self._views = {}  # (folded modules, columns) -> GraphView: each layout is made once
        self.box = FIT_BOX
        self.auto_layout = collapsed is None and group == "auto"  # until a learner folds or opens a module
        if self.auto_layout:
            self.view = self._legible_view(self.box)
        else:
            self.view = self._layout(collapsed, self._columns_for(collapsed, self.box))
        self._widget = None

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

    def details_html(self, index: int, frame: int | None = None) -> str:
        """What is known about item ``index`` at ``frame`` (default: the last frame)."""
        return self.timeline.details_html(self.timeline.items[index], frame)

    def module_label(self, path: str) -> str:
        """``encoder.0 (Linear)``: a module as a learner knows it."""
        type_name = self.timeline.record.modules.get(path, "")
        return f"{path} ({type_name})" if type_name else path

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
        self.auto_layout = False  # the learner's folding stays, whatever the box
        self._show(self._layout(collapsed, self._columns_for(collapsed, self.box)))

    # -- a layout legible in the drawing's box ------------------------------------------------------------
    def _layout(self, collapsed, columns: int = 1) -> GraphView:
        key = (tuple(sorted(collapsed or ())), columns)
        if key in self._views:
            return self._views[key]
        view = GraphView(self.timeline, key[0], clusters=self.group != "none",
                         rankdir=self.rankdir if columns == 1 else "TB", columns=columns)
        if view.template is not None:  # a failed drawing (dot killed on a busy machine) is tried again next time
            self._views[key] = view
        return view

    @staticmethod
    def _legible(view: GraphView, box) -> bool:
        # the browser fits the whole drawing at 99% of its box (graph_stepper.js, openingView)
        return view.template is not None and view.fit_scale(box) * 0.99 >= LEGIBLE_SCALE

    def _best(self, candidates, box) -> GraphView:
        """The first of ``candidates`` ((folded modules, columns) pairs) legible whole in ``box``, else the
        one that shows the whole graph largest."""
        best = None
        for collapsed, columns in candidates:
            if columns > 1 and not self._wrapping_may_help(collapsed, columns, box, best):
                continue  # not worth a layout: wrapping a wide drawing only makes it smaller
            view = self._layout(collapsed, columns)
            if view.template is None or self._legible(view, box):
                return view
            if best is None or view.fit_scale(box) > best.fit_scale(box) * 1.05:
                best = view
        return best

    def _wrapping_may_help(self, collapsed, columns: int, box, best) -> bool:
        """Would ``columns`` columns (about ``columns`` times as wide, ``1 / columns`` as tall as one) be legible, or
        larger than ``best``? Judged from the one-column layout of the same folding, before laying it out."""
        one = self._layout(collapsed, 1)
        if one.template is None or not one.size[0] or not one.size[1]:
            return False
        width, height = one.size
        guess = min(box[0] / (width * columns), box[1] * columns / height)
        return guess * 0.99 >= LEGIBLE_SCALE or best is None or guess > best.fit_scale(box) * 1.05

    def _columns_for(self, collapsed, box) -> int:
        """Wrap a learner's folding into as few columns as make it legible (one when nothing does better)."""
        if self.rankdir != "auto":
            return 1
        return self._best([(collapsed, columns) for columns in WRAP_COLUMNS], box).columns

    def _legible_view(self, box) -> GraphView:
        """The layout a graph opens with: whole and legible in ``box`` if folding and wrapping can make it."""
        top_level = [path for path in self.modules if "." not in path]
        candidates = []
        if not (top_level and len(self.timeline.items) > AUTO_COLLAPSE_ITEMS):
            candidates.append(((), 1))
        if self.rankdir == "auto":
            folds = [top_level] if top_level else [()]
            candidates += [(folded, columns) for folded in folds for columns in WRAP_COLUMNS
                           if (tuple(folded), columns) != ((), 1)]
        elif top_level:
            candidates.append((top_level, 1))
        return self._best(candidates, box)

    def fit_to_box(self, width: int, height: int) -> None:
        """The drawing's box in the browser is ``width`` x ``height`` px: lay the graph out to be legible in it
        (unless the learner chose the folding)."""
        if width < 50 or height < 50:
            return  # not laid out yet
        self.box = (width, height)
        if self.auto_layout:
            self._show(self._legible_view(self.box))
        if self._widget is not None:
            self._widget.layout_box = list(self.box)  # the view says which box its layout was made for

    def _show(self, view: GraphView) -> None:
        if view is self.view:
            return
        self.view = view
        if self._widget is not None:
            self._widget.load(self)
            self.update_static()

    # -- the widget ------------------------------------------------------------------------------------
    @property
    def offline(self) -> bool:
        """Always true: the browser steps through every frame on its own (also without a kernel)."""
        return True

    @property
    def widget(self):
        """The anywidget view: controls, the pannable drawing, and the detail panel."""
        if self._widget is None:
            self._widget = _stepper_view_class()()
            self._widget.load(self)
            self._widget.on_msg(self._on_message)
            self._widget.observe(self._on_collapsed, names="collapsed")
            self._widget.observe(self._on_box, names="box")
        return self._widget

    def _on_message(self, widget, content, buffers) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":  # the view asks whether a kernel is here
            widget.send({"type": "pong"})

    def _on_collapsed(self, change) -> None:
        if sorted(change["new"]) != sorted(self.view.collapsed):
            self._regroup(set(change["new"]))

    def _on_box(self, change) -> None:
        width, height = (list(change["new"]) + [0, 0])[:2]
        self.fit_to_box(int(width), int(height))

    def static_text(self) -> str:
        """The stepper in words, for text-only viewers: what it steps through and how it ends."""
        if not getattr(self.timeline, "has_backward", True):  # an FX graph
            return (f"GraphStepper: {self.timeline.summary()}, one step per node (open the notebook in JupyterLab to "
                    f"step through them). Last step: {self.caption(self.frame_count - 1)}")
        forward, backward = self.timeline.forward_steps, self.timeline.backward_steps
        return (f"GraphStepper: {forward} forward steps and {backward} backward steps (open the notebook in "
                f"JupyterLab to step through them). Last step: {self.caption(self.frame_count - 1)}")

    def static_html(self) -> str:
        """The whole graph after backward (or the error), for viewers without the widget."""
        last = self.frame_count - 1
        note = ("Static picture of the last step (run the notebook to step through it): "
                + self.caption(last))
        if self.view.template is None:
            message = html.escape(self.view.error)
            body = f"<div class='minitorch-graph-error'><b>Cannot draw the graph.</b> {message}</div>"
        else:  # at the reading size (the live view's), scrolling sideways when wider than the page
            body = _reading_size(self.frame_svg(last))
        return (f"<div class='minitorch-static minitorch-graph-static'><p style='margin:2px 0'>{html.escape(note)}</p>"
                f"<div style='max-width:100%;overflow:auto'>{body}</div></div>")


def _check_group(group) -> None:
    if group not in ("auto", "modules", "none"):
        raise ValueError(f"group must be 'auto', 'modules' or 'none', got {group!r}")


def _reading_size(svg: str) -> str:
    """The SVG at 1.25 px per point of the drawing, the size the live view opens at (one font size)."""
    match = re.search(r'viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) ([0-9.]+)"', svg)
    if match is None:
        return svg
    width = float(match.group(1)) * 1.25
    return re.sub(r'<svg([^>]*?) width="100%"', rf'<svg\1 width="{width:.0f}px"', svg, count=1).replace(
        "height:auto", "height:auto;max-width:none", 1)


def _read(name: str) -> str:
    return (_FRONTEND / name).read_text(encoding="utf-8")


_VIEW_CLASS = None


def _stepper_view_class():
    """The anywidget class, made on first use (so the stepper works headless without anywidget)."""
    global _VIEW_CLASS
    if _VIEW_CLASS is not None:
        return _VIEW_CLASS
    import anywidget
    import traitlets as t

    # svg-pan-zoom is a UMD bundle: with ``define`` shadowed it puts itself on ``window.svgPanZoom``.
    esm = ("const define = undefined;\n" + _read("vendor/svg-pan-zoom.min.js") + "\n" + _read("opening_clean.js")
           + "\n" + _read("graph_stepper.js"))

    class GraphStepperView(anywidget.AnyWidget):
        """The stepper in the browser: the drawing once, per frame only what changes, and the panels."""

        _esm = esm
        _css = _read("graph_stepper.css")
        svg_parts = t.List(t.Unicode()).tag(sync=True)
        slot_keys = t.List(t.Int()).tag(sync=True)
        initial = t.List(t.Unicode()).tag(sync=True)
        changes = t.List(t.List()).tag(sync=True)
        focus = t.List(t.List(t.Unicode())).tag(sync=True)
        captions = t.List(t.Unicode()).tag(sync=True)
        frame_count = t.Int(1).tag(sync=True)
        frame = t.Int(0).tag(sync=True)
        interval_ms = t.Int(900).tag(sync=True)
        item_labels = t.List(t.Unicode()).tag(sync=True)
        item_units = t.List(t.Unicode()).tag(sync=True)  # the drawn unit of each item (its folded box)
        unit_items = t.Dict().tag(sync=True)  # drawn node id -> item index
        details = t.List(t.List()).tag(sync=True)  # per item: [[from frame, html], ...]
        selected = t.Int(0).tag(sync=True)
        modules = t.List(t.List(t.Unicode())).tag(sync=True)  # [[label, path], ...]
        module_boxes = t.Dict().tag(sync=True)  # drawn id of a folded module's box -> its module path
        collapsed = t.List(t.Unicode()).tag(sync=True)
        box = t.List(t.Int()).tag(sync=True)  # the drawing's box in the browser, [width, height] px
        layout_box = t.List(t.Int()).tag(sync=True)  # the box the kernel last laid the graph out for
        error = t.Unicode("").tag(sync=True)

        def load(self, stepper: GraphStepper) -> None:
            """Send ``stepper``'s drawing and panels (again after folding)."""
            view, timeline = stepper.view, stepper.timeline
            count = stepper.frame_count
            items = timeline.items
            with self.hold_sync():
                self.frame_count = count
                self.frame = min(self.frame, count - 1)
                self.interval_ms = stepper.interval_ms
                self.captions = [stepper.caption(frame) for frame in range(count)]
                self.item_labels = [_item_label(item) for item in items]
                self.item_units = [view.unit_of[item.key].key for item in items]
                # drawn node id -> the item a click selects (an op merged with its output: the output, whose
                # value and gradient the learner looks for)
                self.unit_items = {
                    item.key: index for index, item in enumerate(items) if view.unit_of[item.key] is item
                }
                self.unit_items.update({
                    view.unit_of[item.key].key: index for index, item in enumerate(items)
                    if view.unit_of[item.key] is not item and view.unit_of[item.key].kind != "module"
                })
                self.details = [
                    [[frame, timeline.details_html(item, frame)] for frame in timeline.detail_frames(item)]
                    for item in items
                ]
                if not 0 <= self.selected < len(items):
                    self.selected = len(items) - 1
                self.modules = [[stepper.module_label(path), path] for path in stepper.modules]
                self.collapsed = list(view.collapsed)
                self.layout_box = list(stepper.box)
                self.module_boxes = {unit.key: unit.title for unit in view.units if unit.kind == "module"}
                if view.template is None:
                    self.error = view.error
                    self.svg_parts, self.slot_keys, self.initial, self.focus = [], [], [], [[] for _ in range(count)]
                    self.changes = [[] for _ in range(count)]
                else:
                    initial, changes = view.frame_changes(count)
                    self.error = ""
                    self.svg_parts = view.template.parts
                    self.slot_keys = view.template.slot_keys
                    self.initial = initial
                    self.focus = view.focus(count)
                    self.changes = changes  # last: the view rebuilds the drawing when it changes

    _VIEW_CLASS = GraphStepperView
    return _VIEW_CLASS
