"""Widgets that show what minitorch does, inside a notebook.

* ``GraphStepper``: the autograd graph growing during forward, then backward walking it, step
  by step, with values and gradients (``widgets/graph.py``, built on ``graph_record.py``,
  ``graph_timeline.py`` and ``graph_view.py``).
* ``GradientMonitor``: per-layer gradient norms, histograms and update ratios while a model
  trains, with warnings for vanishing and exploding gradients (``widgets/gradients.py``).
* ``DeviceTimer``: the same operations timed on the CPU and on every GPU, and the size where
  the GPU starts to win (``widgets/timing.py``).

They read minitorch only through public attributes (``grad_fn``, ``next_functions``,
``minitorch.autograd.graph``, module hooks); nothing in minitorch imports them.
"""

from .gradients import GradientMonitor
from .graph import GraphStepper
from .graph_record import ForwardRecord, record_forward
from .graph_timeline import GraphTimeline
from .render import GraphvizUnavailable, available_renderer, render_svg
from .timing import DeviceTimer

__all__ = [
    "GraphStepper", "GradientMonitor", "DeviceTimer", "GraphTimeline", "ForwardRecord", "record_forward",
    "GraphvizUnavailable", "available_renderer", "render_svg",
]
