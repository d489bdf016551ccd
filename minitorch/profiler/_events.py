"""What a profile records: one ``FunctionEvent`` per op call (or annotated region), and the table of them.

Each event has a start and an end (microseconds) and its children, the events that ran inside it. Its
*total* time is end minus start; its *self* time is the total minus its children's totals: the time spent
in the op itself rather than in the ops it called. ``EventList.key_averages()`` groups the events by name
(and input shapes, if asked) and ``table()`` prints them as ``torch.profiler`` does.
"""

from __future__ import annotations

import json
import os

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]


class FunctionEvent:
    """One call: ``name`` (``aten::mul``, ``MulBackward0``, or a ``record_function`` label), its times in µs."""

    def __init__(self, name: str, start_us: float, input_shapes=None, thread: int = 0, category: str = "cpu_op"):
        self.name, self.key = name, name
        self.start_us, self.end_us = start_us, start_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.thread, self.category = thread, category
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.count = 1

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def cpu_time(self) -> float:  # the average over calls (one call here)
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (f"<FunctionEvent name={self.name} cpu_time_total={_format_time(self.cpu_time_total)} "
                f"self_cpu_time_total={_format_time(self.self_cpu_time_total)} input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """Every call of one name (and input shapes) added up: totals, self totals, the number of calls."""

    def __init__(self, key: str, input_shapes=None):
        self.key, self.name = key, key
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, event: FunctionEvent) -> FunctionEventAvg:
        self.count += 1
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time_total)} calls={self.count}>")


class EventList(list):
    """A list of events (``prof.events()``), or of averages (``prof.key_averages()``)."""

    def key_averages(self, group_by_input_shape: bool = False) -> EventList:
        groups: dict = {}
        for event in self:
            key = (event.key, str(event.input_shapes)) if group_by_input_shape else event.key
            if key not in groups:
                groups[key] = FunctionEventAvg(event.key, event.input_shapes if group_by_input_shape else None)
            groups[key].add(event)
        averages = EventList(groups.values())
        averages._with_shapes = group_by_input_shape
        return averages

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        """The events as ``torch.profiler``'s table: self and total time, their shares, the average, the calls."""
        events = list(self)
        if top_level_events_only:
            events = [e for e in events if getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            events.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        events = events[:row_limit] if row_limit is not None and row_limit > 0 else events
        with_shapes = getattr(self, "_with_shapes", False)
        name_width = min(max((len(e.key) for e in events), default=4) + 4, max_name_column_width)
        total = self.self_cpu_time_total or 1.0
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        widths = [name_width] + [12] * 6
        if with_shapes:
            shapes_width = min(max((len(str(e.input_shapes)) for e in events), default=12) + 4,
                               max_shapes_column_width)
            headers.append("Input Shapes")
            widths.append(shapes_width)
        line = "".join("-" * width + "  " for width in widths)
        rows = [line]
        if header is not None:
            rows = ["=" * len(line), header, *rows]
        rows += ["".join(text.rjust(width) + "  " for text, width in zip(headers, widths)), line]
        for event in events:
            name = event.key if len(event.key) <= name_width - 3 else event.key[: name_width - 6] + "..."
            cells = [name, f"{event.self_cpu_time_total / total * 100:.2f}%", _format_time(event.self_cpu_time_total),
                     f"{event.cpu_time_total / total * 100:.2f}%", _format_time(event.cpu_time_total),
                     _format_time(event.cpu_time), str(event.count)]
            if with_shapes:
                cells.append(str(event.input_shapes)[: widths[-1]])
            rows.append("".join(text.rjust(width) + "  " for text, width in zip(cells, widths)))
        rows += [line, f"Self CPU time total: {_format_time(self.self_cpu_time_total)}", ""]
        return "\n".join(rows)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """The events in the Chrome trace format (JSON), which Perfetto (ui.perfetto.dev) and chrome://tracing open."""
        process = os.getpid()
        trace = [{"ph": "X", "cat": event.category, "name": event.name, "pid": process, "tid": event.thread,
                  "ts": event.start_us, "dur": event.cpu_time_total,
                  "args": {"Input Dims": event.input_shapes}} for event in self if isinstance(event, FunctionEvent)]
        with open(path, "w") as file:
            json.dump({"schemaVersion": 1, "traceEvents": trace, "displayTimeUnit": "ms"}, file)


def _format_time(microseconds: float) -> str:
    """PyTorch's rendering of a time: µs below a millisecond, ms below a second, else s."""
    if microseconds >= 1e6:
        return f"{microseconds / 1e6:.3f}s"
    if microseconds >= 1e3:
        return f"{microseconds / 1e3:.3f}ms"
    return f"{microseconds:.3f}us"
