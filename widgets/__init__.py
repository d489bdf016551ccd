"""Widgets that show what minitorch does, inside a notebook.

* ``GraphStepper``: the autograd graph growing during forward, then backward walking it, step
  by step, with values and gradients (``widgets/graph.py``, built on ``graph_record.py``,
  ``graph_timeline.py`` and ``graph_view.py``); ``GraphStepper.from_fx(graph_module, *inputs)``
  steps through an FX graph, one node per frame, fused kernels as boxes that unfold (``fx_timeline.py``).
* ``GradientMonitor``: per-layer gradient norms, histograms and update ratios while a model
  trains, with warnings for vanishing and exploding gradients (``widgets/gradients.py``).
* ``DeviceTimer``: the same operations timed on the CPU and on every GPU, and the size where
  the GPU starts to win (``widgets/timing.py``).

They read minitorch only through public attributes (``grad_fn``, ``next_functions``,
``minitorch.autograd.graph``, module hooks); nothing in minitorch imports them.
``saving`` keeps saved notebooks showing the widgets' static pictures (a Jupyter server extension).
"""

from __future__ import annotations

import importlib

# Names are imported on first use (PEP 562): the Jupyter server loads ``widgets.saving`` at start-up,
# and must not wait for minitorch and matplotlib to import.
_EXPORTS = {
    "GraphStepper": "graph", "GradientMonitor": "gradients", "DeviceTimer": "timing", "GraphTimeline": "graph_timeline",
    "ForwardRecord": "graph_record", "record_forward": "graph_record", "GraphvizUnavailable": "render",
    "available_renderer": "render", "render_svg": "render",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    else:  # a submodule (``widgets.render.install_hint`` after ``import widgets``)
        try:
            value = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
