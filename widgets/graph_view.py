"""Drawing a timeline: which units are drawn, the DOT source, and the SVG of every frame.

``GraphView`` decides what is drawn (each item, or one box per folded module), merges the edges
between drawn units, frames each unfolded module in a cluster, and writes the DOT source with
every node that will ever exist. Graphviz lays it out once (``render.py``); each frame then
fills that one SVG template with the frame's visibility, colours and label text, so nothing
moves while stepping. Folding other modules means a new ``GraphView`` of the same timeline.

    >>> sorted(["encoder.10", "head", "encoder.2", "encoder"], key=module_order)
    ['encoder', 'head', 'encoder.2', 'encoder.10']
"""

from __future__ import annotations

from bisect import bisect_right

from .graph_timeline import GraphTimeline, Line, Unit
from .render import GraphvizUnavailable, SvgTemplate, render_svg

__all__ = ["GraphView", "module_order"]


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
