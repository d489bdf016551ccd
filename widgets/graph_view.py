"""Drawing a timeline: which units are drawn, the DOT source, and the SVG of every frame.

``GraphView`` decides what is drawn (each item, or one box per folded module), draws one edge
per use of a tensor (``x * x`` has two edges from ``x``; edges into a folded box are merged),
frames each unfolded module in a cluster, and writes the DOT source with every node that will
ever exist. Backward is drawn as *gradient edges*: for every use of a tensor, a red edge from
the op back to the tensor, labelled with the gradient that op sent along it (its values for a
small tensor, shape and norm for a large one). They appear at the backward step that sends
them, so ``y = x * x + x`` shows three gradients meeting at ``x`` (3 + 3 + 1 = x.grad = 7).
Layout: top to bottom (as TensorBoard and Netron draw), or left to right when that fits a laptop's
drawing box (``FIT_BOX``) at a larger size (``rankdir="auto"``); a drawing too tall for its box can be
wrapped into ``columns`` side by side, read left to right as lines of text are. Graphviz lays it out once
(``render.py``); each frame then fills that one SVG template with the frame's visibility,
colours and label text, so nothing moves while stepping. Folding other modules means a new
``GraphView`` of the same timeline.

    >>> sorted(["encoder.10", "head", "encoder.2", "encoder"], key=module_order)
    ['encoder', 'head', 'encoder.2', 'encoder.10']
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right

import numpy as np

from .graph_timeline import GraphTimeline, Line, Unit, _item_label
from .graph_values import INLINE_VALUES, _inline
from .render import GraphvizUnavailable, SvgTemplate, render_svg

__all__ = ["GraphView", "module_order", "FIT_BOX", "LEGIBLE_SCALE"]


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
_PALETTE["gradient"] = {
    "hidden": ("none", "#dc2626", "1"),
    "active": ("none", "#dc2626", "2.5"),
    "done": ("none", "#f87171", "1.2"),
}
_PALETTE["cluster"] = {"hidden": ("#faf5ff", "#a78bfa", "1"), "normal": ("#faf5ff", "#a78bfa", "1")}
_PALETTE["cluster"].update({key: _PALETTE["cluster"]["normal"] for key in ("new", "active", "done", "output")})
_SHAPES = {"leaf": "box", "op": "box", "tensor": "box", "output": "box", "module": "box3d"}
_STYLE = {"op": "rounded,filled", "module": "filled"}


# The drawing's box in the notebook on a 1440x900 laptop screen (graph_stepper.css: the box is as tall as
# the window allows below the controls; the side panel takes its share of the width), in CSS pixels.
FIT_BOX = (730, 640)
LEGIBLE_SCALE = 0.9  # pixels per point: the 10 pt labels are 9 px on screen, the smallest text one reads


class GraphView:
    """One drawing of a timeline: which modules are folded into one box, laid out once.

    ``collapsed``: module paths drawn as one box each (their nodes hidden inside);
    ``clusters``: draw a labelled frame around the nodes of each unfolded module.
    """

    def __init__(self, timeline: GraphTimeline, collapsed=(), clusters: bool = True, rankdir: str = "auto",
                 merge: bool = True, columns: int = 1):
        if rankdir not in ("auto", "TB", "LR"):
            raise ValueError(f"rankdir must be 'auto', 'TB' or 'LR', got {rankdir!r}")
        if columns < 1:
            raise ValueError(f"columns must be at least 1, got {columns}")
        self.timeline = timeline
        self.columns = columns
        self.collapsed = sorted(set(collapsed), key=module_order)
        self.clusters = clusters
        self.merge = merge
        self.units: list[Unit] = []
        self.unit_of = {}  # item key -> unit (the item itself, or the box of its folded module)
        self._build_units()
        self.column_of = self._wrap(columns)
        self.template = None
        self.error = None
        self.rankdir = "TB" if rankdir == "auto" else rankdir
        self.dot_source = self._dot()
        self.size = (0.0, 0.0)  # the drawing's natural width and height, in points
        try:
            svg = render_svg(self.dot_source)
            self.size = _natural_size(svg)
            if rankdir == "auto" and columns == 1:  # top to bottom, unless left to right fits the box larger
                self.rankdir = "LR"
                sideways = render_svg(self._dot())
                if _fit_scale(_natural_size(sideways)) > _fit_scale(self.size) * 1.05:
                    svg, self.size, self.dot_source = sideways, _natural_size(sideways), self._dot()
                else:
                    self.rankdir = "TB"
            self.template = SvgTemplate(svg, titles=self._titles())
        except GraphvizUnavailable as error:
            self.error = str(error)

    def fit_scale(self, box=None) -> float:
        """Screen pixels per point when the whole drawing fits ``box`` (default: the widget's box on a laptop).

        Text is 10 pt, so the whole graph is legible (9 px or more) when this is at least ``LEGIBLE_SCALE``.
        """
        return _fit_scale(self.size, box or FIT_BOX)

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
        self._merge_outputs()

        # Edges between units: one per use of a tensor; into or out of a folded box, one per pair of
        # units, styled by the most telling of its member edges.
        merged = {}
        for source, target, input_nr in timeline.edges:
            a, b = self.unit_of[source.key], self.unit_of[target.key]
            if a is b:
                continue
            key = (a.key, b.key) if "module" in (a.kind, b.kind) else (a.key, b.key, input_nr)
            merged.setdefault(key, (a, b, []))[2].append((source, target, input_nr))
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
        self._gradient_edges()

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

    def _wrap(self, columns: int) -> dict:
        """Which column each drawn node goes to when a tall graph is wrapped into ``columns`` side by side.

        The nodes are cut by rank (the longest path from the graph's inputs; a parameter sits just above
        the op that uses it) into ``columns`` runs of equal length, read left to right as lines of text
        are; an edge from one column into the next is drawn without ranking its target (Graphviz then
        starts the next column at the top). One column: the usual drawing.
        """
        if columns == 1:
            return {}
        keys = [unit.key for unit in self.units]
        successors = {key: [] for key in keys}
        has_input = set()
        for edge in self.edge_units:
            a, b = edge.members
            if a.key in successors and b.key in successors:
                successors[a.key].append(b.key)
                has_input.add(b.key)
        rank = dict.fromkeys(keys, 0)
        for _ in keys:  # longest path, relaxed at most once per node (a cycle through a folded box stops)
            changed = False
            for key in keys:
                for successor in successors[key]:
                    if rank[successor] < rank[key] + 1:
                        rank[successor], changed = rank[key] + 1, True
            if not changed:
                break
        for key in keys:  # an input (a parameter) sits just above its first use, not at the very top
            if key not in has_input and successors[key]:
                rank[key] = max(0, min(rank[successor] for successor in successors[key]) - 1)
        ranks = max(rank.values()) + 1
        return {key: min(columns - 1, rank[key] * columns // ranks) for key in keys}

    def _merge_outputs(self) -> None:
        """Draw each op and the one tensor it made as one node (as Netron draws a layer and its output).

        Half as many rows: a whole graph fits a laptop's screen at a legible size. The node reads the
        op (its name, settings, backward status), then the tensor after an arrow (its name and shape,
        value, gradient). The graph's final output keeps its own (green) node.
        """
        self.extra_lines = {}
        if not self.merge:
            return
        outputs = {}
        for source, target, input_nr in self.timeline.edges:
            if input_nr < 0:
                outputs.setdefault(source.key, []).append((source, target))
        merged = set()
        for pairs in outputs.values():
            if len(pairs) != 1:
                continue
            op, tensor = pairs[0]
            if (self.unit_of[op.key] is not op or self.unit_of[tensor.key] is not tensor or tensor.kind != "tensor"
                    or (op.module or None) != (tensor.module or None)):
                continue
            self.unit_of[tensor.key] = op
            merged.add(tensor.key)
            header, *rest = tensor.lines
            arrow = Line("")
            arrow.frames, arrow.colors = list(header.frames), list(header.colors)
            arrow.texts = ["\u2192 " + text for text in header.texts]
            self.extra_lines[op.key] = [arrow, *rest]
        self.units = [unit for unit in self.units if unit.key not in merged]

    def lines(self, unit) -> list:
        """The lines of ``unit``'s label as drawn (an op merged with its output has the output's too)."""
        return unit.lines + self.extra_lines.get(unit.key, [])

    def _edge_events(self, source, target, input_nr) -> dict:
        timeline = self.timeline
        created = target.created if input_nr >= 0 else source.created
        events = {created: "new" if created > 0 else "normal", created + 1: "normal"}
        if input_nr >= 0:  # tensor -> op: the gradient flows back when the op runs
            sent = timeline.edge_gradients.get((source.key, target.key, input_nr))
            if sent is not None:
                frame, grad = sent
                events[frame] = "active" if grad is not None else "nograd"
                events[frame + 1] = "done" if grad is not None else "nograd"
        elif target.ran is not None:  # op -> its output: the output's gradient enters the op
            events[target.ran] = "active"
            events[target.ran + 1] = "done"
        return events

    def _gradient_edges(self) -> None:
        """One red edge back along every use of a tensor, labelled with the gradient sent along it."""
        timeline = self.timeline
        self.gradient_units = []
        uses = {}
        for source, target, input_nr in timeline.edges:
            if input_nr >= 0:
                uses.setdefault(source.key, []).append((target, input_nr))
        for source, target, input_nr in timeline.edges:
            a, b = self.unit_of[source.key], self.unit_of[target.key]
            if a is b or "module" in (a.kind, b.kind):
                continue  # inside a node, or into a folded module: the box says how far backward got
            if input_nr >= 0:  # the op sent this gradient to one of its inputs
                sent = timeline.edge_gradients.get((source.key, target.key, input_nr))
                if sent is None or sent[1] is None:
                    continue
                frame, grad = sent
                count = len(uses.get(source.key, []))
                number = uses[source.key].index((target, input_nr)) + 1
                use = f" (use {number} of {count})" if count > 1 else ""
                title = f"gradient {_inline(grad)} sent back from {target.title} to {_name(source)}{use}"
                edge = Unit(f"g{len(self.gradient_units)}", "gradient", title)
                edge.members = [b, a]  # drawn from the op back to the tensor
            else:  # op -> its output: the output's gradient enters the op when it runs
                grad = source.details.get("grad_outputs", [None] * (target.output_nr + 1))[target.output_nr]
                if source.ran is None or grad is None:
                    continue
                frame = source.ran
                title = f"gradient {_inline(grad)} of {_name(target)} enters {source.title}"
                edge = Unit(f"g{len(self.gradient_units)}", "gradient", title)
                edge.members = [b, a]
            edge.lines.append(Line(_gradient_label(grad)))
            edge.set_styles({frame: "active", frame + 1: "done"})
            self.gradient_units.append(edge)

    def _titles(self) -> dict:
        """What hovering shows: a node's name in words, an edge's gradient."""
        titles = {}
        for unit in self.units:
            titles[unit.key] = _item_label(unit) if unit.kind != "module" else f"{unit.title} (folded module)"
        for edge in self.gradient_units:
            titles[edge.key] = edge.title
        for edge in self.edge_units:
            a, b = edge.members
            titles[edge.key] = f"{_name(a)} -> {_name(b)}"
        for cluster in self.cluster_units.values():
            titles[cluster.key] = f"module {cluster.title}"
        return titles

    def _module_box(self, box: Unit, path: str) -> None:
        timeline = self.timeline
        members = box.members
        ops = [m for m in members if m.kind == "op"]
        parameters = [m for m in members if m.kind == "leaf"]
        type_name = timeline.record.modules.get(path, "")
        box.lines.append(Line(f"{path or 'model'}: {type_name}" if type_name else path, "#111827"))
        if not getattr(timeline, "has_backward", True):  # a fused kernel of an FX graph (fx_timeline.py)
            box.lines.append(Line(f"{len(ops)} ops run as one kernel (folded)", "#4b5563"))
            box.lines.extend(members[-1].lines[1:])  # its result: its last op's
            box.set_styles({members[0].created: "new" if members[0].created > 0 else "normal",
                            members[0].created + 1: "normal"})
            return
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
            f'  graph [rankdir={self.rankdir} nodesep=0.25 ranksep=0.25 fontname="Helvetica" fontsize=10 '
            'bgcolor="white"];',
            '  node [fontname="Helvetica" fontsize=10 margin="0.14,0.035" penwidth=1];',
            '  edge [arrowsize=0.6 fontname="Helvetica" fontsize=10];',
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
            # wrapped: an edge to the next column does not rank its target below its source
            loose = " constraint=false" if self.column_of.get(a.key, 0) != self.column_of.get(b.key, 0) else ""
            lines.append(f'  {a.key} -> {b.key} [id="{edge.key}"{loose}];')
        for edge in self.gradient_units:
            a, b = edge.members
            label = _dot_escape(edge.lines[0].longest())
            lines.append(
                f'  {a.key} -> {b.key} [id="{edge.key}" constraint=false style=dashed color="#dc2626" '
                f'fontcolor="#b91c1c" label=" {label} "];'
            )
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
        label = "".join(_dot_escape(line.longest()) + "\\l" for line in self.lines(unit))
        shape = _SHAPES.get(unit.kind, "box")
        style = _STYLE.get(unit.kind, "filled")
        fill = _BASE_FILL.get(unit.kind, "#ffffff")
        return f'{unit.key} [id="{unit.key}" shape={shape} style="{style}" fillcolor="{fill}" label="{label}"];'

    # -- frames -------------------------------------------------------------------------------------
    def _drawn_units(self):
        return [*self.units, *self.edge_units, *self.gradient_units, *self.cluster_units.values()]

    def _unit_values(self, unit, frame: int) -> dict:
        """The holes of one unit at ``frame``: visibility, colours and (nodes) the text of each line."""
        key = unit.key
        style = unit.style_at(frame)
        if unit.kind in ("edge", "gradient"):
            a, b = unit.members
            if a.style_at(frame) == "hidden" or b.style_at(frame) == "hidden":
                style = "hidden"
        palette = _PALETTE["edge" if unit.kind == "edge" else unit.kind]
        fill, stroke, width = palette.get(style, palette["hidden"])
        values = {
            key + ".visibility": "hidden" if style == "hidden" else "visible",
            key + ".fill": fill, key + ".stroke": stroke, key + ".stroke-width": width,
        }
        if unit.kind not in ("edge", "gradient", "cluster"):
            lines = self.lines(unit)
            for index in range(self.template.line_counts.get(key, 0)):
                line = lines[index]
                position = bisect_right(line.frames, frame) - 1
                values[f"{key}.text{index}"] = line.texts[position]
                values[f"{key}.text{index}.fill"] = line.colors[position]
        return values

    def frame_svg(self, frame: int) -> str:
        """The SVG of ``frame``: the one layout, with this frame's visibility, colours and text."""
        if self.template is None:
            raise GraphvizUnavailable(self.error)
        values = {}
        for unit in self._drawn_units():
            values.update(self._unit_values(unit, frame))
        return self.template.fill(values)

    def frame_changes(self, frame_count: int) -> tuple[list[str], list[list]]:
        """The values of every hole at frame 0 (in ``template.keys`` order, text unescaped), and for each
        frame the holes that change there, as a flat list ``[key index, value, ...]``.

        Only the frames where a unit's style or text changes are visited, so this costs the number of
        events, not frames times nodes: a browser steps through thousands of frames from it.
        """
        index = {key: position for position, key in enumerate(self.template.unique_keys)}
        initial = [""] * len(index)
        changes = [[] for _ in range(frame_count)]
        for unit in self._drawn_units():
            frames = set(unit.style_frames)
            for line in self.lines(unit):
                frames.update(line.frames)
            if unit.kind in ("edge", "gradient"):
                for member in unit.members:
                    frames.update(member.style_frames)
            previous = self._unit_values(unit, 0)
            for key, value in previous.items():
                if key in index:
                    initial[index[key]] = _plain(key, value)
            for frame in sorted(f for f in frames if 0 < f < frame_count):
                now = self._unit_values(unit, frame)
                for key, value in now.items():
                    if key in index and previous.get(key) != value:
                        changes[frame].extend((index[key], _plain(key, value)))
                previous = now
        return initial, changes

    def focus(self, frame_count: int) -> list[list[str]]:
        """For each frame, the ids of what the view must show together: the view frames them.

        A forward step: the new node, the edges into it and the nodes they come from (its inputs). A
        backward step: the node that runs, every gradient edge it sends (with its label) and every node
        that receives one. Nodes come first in each list, in that order: the sender before its receivers.
        """
        found = [[] for _ in range(frame_count)]

        def add(frame, unit):
            if 0 <= frame < frame_count and unit.key not in found[frame]:
                found[frame].append(unit.key)

        for unit in self.units:
            for frame, style in zip(unit.style_frames, unit.style_names):
                if style in ("new", "active"):
                    add(frame, unit)
        for edge in self.edge_units:  # forward: the inputs of what was made
            source, target = edge.members
            for frame, style in zip(edge.style_frames, edge.style_names):
                if style == "new" and frame > 0:
                    add(frame, source)
                    add(frame, target)
        for edge in self.gradient_units:  # backward: the gradient edges and their receivers
            sender, receiver = edge.members
            for frame, style in zip(edge.style_frames, edge.style_names):
                if style == "active":
                    add(frame, receiver)
        # ... also a gradient sent into or out of a folded module's box (no gradient edge is drawn there): the
        # receiver, after the sender
        for (source_key, target_key, _), (frame, grad) in self.timeline.edge_gradients.items():
            sender, receiver = self.unit_of[target_key], self.unit_of[source_key]
            if grad is not None and "module" in (sender.kind, receiver.kind):
                add(frame, sender)
                add(frame, receiver)
        for edge in [*self.edge_units, *self.gradient_units]:
            for frame, style in zip(edge.style_frames, edge.style_names):
                if style in ("new", "active") and frame > 0:
                    add(frame, edge)
        return found

def _natural_size(svg: str) -> tuple[float, float]:
    """The width and height of Graphviz's drawing, in points."""
    match = re.search(r'<svg[^>]*?width="([0-9.]+)pt"[^>]*?height="([0-9.]+)pt"', svg)
    return (float(match.group(1)), float(match.group(2))) if match else (0.0, 0.0)


def _fit_scale(size, box=None) -> float:
    width, height = size
    box_width, box_height = box or FIT_BOX
    return min(box_width / width, box_height / height) if width and height else 0.0


def _plain(key: str, value: str) -> str:
    """Text holes hold escaped SVG text; the browser sets them as plain text."""
    return html.unescape(value) if ".text" in key and not key.endswith(".fill") else value


def _name(unit) -> str:
    if unit.kind == "op" or unit.title or not hasattr(unit, "node"):
        return unit.title
    return f"output of {unit.node.name()}"


def _gradient_label(grad: np.ndarray) -> str:
    """A gradient on an edge: its values when small, else its shape and norm."""
    if grad.size <= min(4, INLINE_VALUES):
        return _inline(grad)
    norm = float(np.sqrt(np.sum(grad.astype(np.float64) ** 2)))
    return f"{tuple(grad.shape)} norm {norm:.3g}"


def module_order(path: str) -> tuple:
    """Sort key for module paths: outer modules first, then ``"2"`` before ``"10"``."""
    return (path.count("."), [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in path.split(".")])


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
