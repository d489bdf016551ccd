"""The gradient monitor: how big each layer's gradients are while a model trains.

    >>> import minitorch, widgets
    >>> model = minitorch.nn.Sequential(minitorch.nn.Linear(4, 8), minitorch.nn.Tanh(), minitorch.nn.Linear(8, 1))
    >>> monitor = widgets.GradientMonitor(model)
    >>> optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1)
    >>> for step in range(3):
    ...     optimizer.zero_grad()
    ...     loss = model(minitorch.randn(16, 4)).pow(2).mean()
    ...     loss.backward()
    ...     optimizer.step()
    >>> monitor.refresh()                  # a notebook does this by itself after each cell
    >>> monitor.steps_seen, monitor.layers
    (3, ['0 (Linear)', '2 (Linear)'])
    >>> monitor.history[0].layers["2 (Linear)"].grad_norm > 0
    True

Per layer (a module that owns parameters) and per measured training step it records:

* the gradient norm ``||g|| = sqrt(sum of g**2 over the layer's parameters)``: drawn over the
  steps on a log scale, with the thresholds below which gradients *vanish* (the layer stops
  learning) and above which they *explode* (the updates overshoot); the layers past a
  threshold are named in words;
* the update-to-weight ratio ``||w_after - w_before|| / ||w_before||``: how much one optimizer
  step changes the layer (around 1e-3 is the usual rule of thumb);
* histograms of the weights and the gradients, scrubbed by step.

It needs nothing from the training loop: hooks on the parameters
(``register_post_accumulate_grad_hook``) see each gradient as backward stores it, and the
weights seen at the next backward show what the optimizer changed.

Which steps are measured: every ``stride``-th step from the first, evenly spread over the
run whatever its length (``EvenSteps`` in ``budget.py``): while fewer than 128 are kept the
stride stays, and when there are more, it doubles and every other one is dropped, so any run
keeps between 64 and 128 evenly spaced steps (all of them up to 128 steps). The last step is
added when the cell ends (or at ``refresh()``), and the charts say where the data stops.
Histograms are kept the same way on a coarser grid (8 steps or more once the run has 29, never
fewer than 5 for the budget's sake), so the step slider scrubs through the run.

Monitoring must not slow training down much. The monitor times itself (``TimeBudget``) and
keeps within ``budget`` (4%) of the training time (the time from one backward to the next,
pauses left out): half of that for measuring steps, half for histograms and drawings, so one
slow drawing never stops the measuring (a drawing may also use what measuring left unused, so
live updates come as often as the whole budget allows). When measuring costs more than its
share, the stride doubles, but never below 50 kept steps: on a short run of a fast model those
50 may cost more than the budget (about 6% of a 150-step run of the course's MLP). Drawings wait until the
budget has room for them; the work at the end of a cell (the last step, the last drawing) is
done after the loop and is not counted as overhead. The cost line under the status reports the measured
slowdown of the loop (the loop's time with the monitor against its time less the monitor's own work), in
bold only when a run long enough to measure (2 s of training) went over the budget.

In a notebook the charts are redrawn at the end of each cell as well, so the last step is
always shown. matplotlib draws them as SVG (crisp at any zoom); the output also keeps a static
copy of the charts, which a saved notebook, GitHub, nbviewer and an HTML export show.
"""

from __future__ import annotations

import html
import io
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .budget import EvenSteps, TimeBudget
from .static import StaticFallback

__all__ = ["GradientMonitor", "LayerStatistics", "StepRecord"]

_FRONTEND = Path(__file__).parent / "frontend"
_clock = time.perf_counter  # the monitor's clock (tests replace it to check the throttling)


@dataclass
class LayerStatistics:
    """One layer at one step."""

    grad_norm: float
    weight_norm: float
    update_ratio: float | None = None  # known once the next backward shows the updated weights
    weight_histogram: tuple | None = None  # (counts, bin edges), on the steps histograms were taken
    grad_histogram: tuple | None = None


@dataclass
class StepRecord:
    step: int
    layers: dict = field(default_factory=dict)  # layer name -> LayerStatistics
    # True for the last step measured after the loop (at the end of the cell): its gradients are
    # that step's, its weights already include the step's update.
    after_update: bool = False
    # layer name -> (sum of squared weight changes, sum of squared weights before), filled at the next backward
    update_sums: dict = field(default_factory=dict, repr=False)


def _histogram(values: np.ndarray, bins: int):
    """A histogram of the finite values: a diverged layer (inf, NaN) must not stop training's backward.

    The flags report the non-finite values in words; the histogram shows what is left.
    """
    finite = values[np.isfinite(values)]
    return np.histogram(finite if finite.size else np.zeros(1), bins=bins)


def _as_numpy(tensor) -> np.ndarray:
    """The tensor's values as a NumPy array (no copy on the CPU)."""
    if tensor.requires_grad:
        tensor = tensor.detach()
    return tensor.numpy() if tensor.device.type == "cpu" else tensor.cpu().numpy()


class GradientMonitor(StaticFallback):
    """Watch ``model``'s gradients while it trains; display it to see the charts.

    ``vanishing`` / ``exploding``: gradient-norm thresholds that flag a layer; ``budget``: the
    largest share of wall time the monitor may spend on itself (``None``: measure every step,
    take every histogram, redraw after every step, whatever it costs); ``bins``:
    histogram bins. ``detach()`` removes the hooks.
    """

    MIN_SAMPLES = 50  # a run keeps at least this many evenly spaced steps (once it has that many)
    CAPACITY = 128  # ... and at most this many
    HISTOGRAM_CAPACITY = 16  # histograms: at most this many steps, at least half of it once thinned

    def __init__(self, model, vanishing: float = 1e-6, exploding: float = 1e2, budget: float | None = 0.04,
                 bins: int = 30, draw_in_notebook: bool = True):
        self.model = model
        self.vanishing, self.exploding, self.budget, self.bins = vanishing, exploding, budget, bins
        self.history: list[StepRecord] = []
        self._layer_of = {}  # id(parameter) -> layer name
        self._parameters = {}  # layer name -> [parameters]
        for path, module in model.named_modules():
            own = [parameter for _, parameter in module.named_parameters(recurse=False) if parameter.requires_grad]
            if own:
                name = f"{path or 'model'} ({type(module).__name__})"
                self._parameters[name] = own
                for parameter in own:
                    self._layer_of[id(parameter)] = name
        self.layers = list(self._parameters)
        self.steps_seen = 0  # backward passes seen; ``history`` holds the ones measured
        self.sampled = EvenSteps(self.CAPACITY)  # which steps are measured
        # ... and which get histograms (a coarser grid; every measured step without a budget)
        self.histogram_steps = EvenSteps(self.HISTOGRAM_CAPACITY, stride=1 if budget is None else 4)
        self._seen = set()  # id(parameter) of the parameters that reported in the current step
        self._measuring = False  # whether the current step is measured
        self._pending = {}  # id(parameter) -> (sum of squared gradient, sum of squared weight) this step
        self._previous = None  # (record, {id(parameter): weights}) of the last measured step, for its update ratio
        self._collecting = {}  # the weights of the step being measured, becoming ``_previous`` when it ends
        self._handles = [
            parameter.register_post_accumulate_grad_hook(self._on_gradient)
            for parameters in self._parameters.values() for parameter in parameters
        ]
        # The monitor's own time: measuring may use half of the budget, showing (histograms,
        # drawings) the rest. Costs are guesses until measured.
        total_size = sum(p.numel() for parameters in self._parameters.values() for p in parameters)
        # Work done at the end of a cell (the last step, the last drawing) does not slow the loop: its own account.
        self.time = TimeBudget(budget, {"measuring": 0.5, "showing": 0.5, "after the loop": 0.0},
                               clock=lambda: _clock(),
                               costs={"histograms": 2e-4 + 2e-8 * total_size, "drawing": 0.3})
        self._drawn_step = -1
        self._status_shown_at = -math.inf
        self._widget = None
        self._ipython = None
        if draw_in_notebook:
            self._register_cell_hook()

    # -- hooks: statistics as backward runs ----------------------------------------------------------
    def _on_gradient(self, parameter) -> None:
        """Called by backward once ``parameter.grad`` holds this step's gradient."""
        key = id(parameter)
        if key in self._seen:  # this parameter already reported: a new step began
            self._finish_step()
        if not self._seen:  # the first parameter of a step
            self.steps_seen += 1
            self.time.step()
            self._drop_after_update_record()
            self._measuring = self.sampled.wants(self.steps_seen)
            if self._widget is not None:
                self._show_progress()
        self._seen.add(key)
        if self._measuring or self._previous is not None:  # else nothing to do: keep unmeasured steps cheap
            start = _clock()
            if self._previous is not None and key in self._previous[1]:
                # the weights of the last measured step, seen again after its update
                previous = self._previous[1].pop(key)
                weights = _as_numpy(parameter).ravel()
                change = weights - previous
                self._add_update(parameter, float(np.dot(change, change)), float(np.dot(previous, previous)))
            if self._measuring:
                gradient = _as_numpy(parameter.grad).ravel()
                weights = _as_numpy(parameter).ravel()
                self._pending[key] = (float(np.dot(gradient, gradient)), float(np.dot(weights, weights)))
                self._collecting[key] = weights.copy()
            self.time.charge("measuring", start)
        if len(self._seen) == len(self._layer_of):
            self._finish_step()

    def _add_update(self, parameter, change_squared: float, previous_squared: float) -> None:
        """Accumulate ``||w_now - w_before||`` for the measured step whose weights were ``w_before``."""
        record = self._previous[0]
        name = self._layer_of[id(parameter)]
        change, before = record.update_sums.get(name, (0.0, 0.0))
        change, before = change + change_squared, before + previous_squared
        record.update_sums[name] = (change, before)
        stats = record.layers.get(name)
        if stats is not None:
            stats.update_ratio = math.sqrt(change) / math.sqrt(before) if before > 0 else float("nan")

    def _finish_step(self) -> None:
        self._seen = set()
        if self._previous is not None and (not self._previous[1] or not self._measuring):
            self._previous = None  # its update is read (parameters that got no gradient have nothing to report)
        if not self._measuring or not self._pending:
            self._measuring = False
            return
        self._measuring = False
        start = _clock()
        record = self._record(self.steps_seen, self._pending)
        self._pending = {}
        self._previous = (record, self._collecting)
        self._collecting = {}
        self.history.append(record)
        dropped = self.sampled.keep(record.step) or []
        # Measuring over its share: measure half as often (never keeping fewer than MIN_SAMPLES steps).
        if self.time.over("measuring") and len(self.sampled.kept) >= 2 * self.MIN_SAMPLES:
            dropped += self.sampled.thin()
        self._forget(dropped)
        self.time.charge("measuring", start)
        if self.histogram_steps.wants(record.step):
            self._take_histograms(record)
        self._maybe_draw()

    def _record(self, step: int, sums: dict) -> StepRecord:
        record = StepRecord(step=step)
        for name, parameters in self._parameters.items():
            found = [sums[id(p)] for p in parameters if id(p) in sums]
            if found:
                record.layers[name] = LayerStatistics(
                    grad_norm=math.sqrt(sum(g for g, _ in found)), weight_norm=math.sqrt(sum(w for _, w in found))
                )
        return record

    def _forget(self, steps) -> None:
        """Drop the records of ``steps`` (off the doubled grid), and keep the histogram grid no finer."""
        if steps:
            gone = set(steps)
            self.history = [record for record in self.history if record.step not in gone]
        for step in self.histogram_steps.at_least(self.sampled.stride):
            self._drop_histograms(step)

    def _drop_histograms(self, step: int) -> None:
        for record in self.history:
            if record.step == step:
                for stats in record.layers.values():
                    stats.weight_histogram = stats.grad_histogram = None

    def _drop_after_update_record(self) -> None:
        """Training goes on: the record of the last step, taken after the loop, is no longer the last."""
        if self.history and self.history[-1].after_update:
            record = self.history.pop()
            if record.step in self.histogram_steps.kept:
                self.histogram_steps.kept.remove(record.step)

    # -- throttled work -----------------------------------------------------------------------------
    def _take_histograms(self, record, count: bool = True, account: str = "showing") -> None:
        start = _clock()
        for name, parameters in self._parameters.items():
            stats = record.layers.get(name)
            if stats is None:
                continue
            weights = np.concatenate([_as_numpy(p).ravel() for p in parameters])
            grads = [_as_numpy(p.grad).ravel() for p in parameters if p.grad is not None]
            stats.weight_histogram = _histogram(weights, self.bins)
            if grads:
                stats.grad_histogram = _histogram(np.concatenate(grads), self.bins)
        if count:
            for step in self.histogram_steps.keep(record.step) or []:
                self._drop_histograms(step)
            if self.time.over("showing") and len(self.histogram_steps.kept) >= 2 * 5:
                for step in self.histogram_steps.thin():
                    self._drop_histograms(step)
        self.time.charge(account, start, "histograms")

    def _maybe_draw(self, force: bool = False) -> None:
        if self._widget is None or not self.history:
            return
        # A drawing uses its own part, or what measuring left unused: live updates come as often as the budget
        # allows, and the first 50 samples (which may overrun measuring's part) do not hold them back.
        cost = self.time.costs["drawing"]
        if not (force or self.time.affordable("showing", cost) or self.time.affordable_overall(cost)):
            return
        if not force and self._widget.controls.training:
            # matplotlib's drawing holds the loop up for a moment: bring the live chart up to date first, so the
            # learner's gap between live redraws is the drawing, not the drawing plus the time since the last one
            self._status_shown_at = float("-inf")
            self._show_progress()
        start = _clock()
        self._widget.draw()
        self._drawn_step = self.history[-1].step
        self.time.charge("after the loop" if force else "showing", start, "drawing")

    # While a loop runs, the status line and the live chart (a plain SVG written here, a millisecond's work where
    # matplotlib takes a tenth of a second) follow it at least once a second, whatever the matplotlib charts' budget.
    # Every half second here: the browser sees each redraw late by what the kernel's messages wait on a busy machine
    # (up to a few tenths of a second), and the learner's promise is once a second in the browser.
    STATUS_EVERY_S = 0.5

    def _show_progress(self) -> None:
        """While a loop runs: say so on the controls, and bring the status and the live chart up to date."""
        start = _clock()
        if start - self._status_shown_at < self.STATUS_EVERY_S and self._widget.controls.training:
            return
        self._status_shown_at = start
        self._widget.show_status(training=True)
        if self.history:
            self._widget.overview.value = _live_overview_svg(self)
        self.time.charge("showing", start)

    def _measure_last_step(self) -> None:
        """After the loop: measure the last step from the gradients it left (its weights are already updated)."""
        start = _clock()
        self._read_last_step()
        self.time.charge("after the loop", start)

    def _read_last_step(self) -> None:
        if not self.steps_seen or (self.history and self.history[-1].step == self.steps_seen):
            return
        sums = {}
        for parameters in self._parameters.values():
            for parameter in parameters:
                if parameter.grad is None:
                    return  # zero_grad(set_to_none=True) ran after the last backward: nothing to read
                gradient, weights = _as_numpy(parameter.grad).ravel(), _as_numpy(parameter).ravel()
                sums[id(parameter)] = (float(np.dot(gradient, gradient)), float(np.dot(weights, weights)))
        record = self._record(self.steps_seen, sums)
        record.after_update = True
        self.history.append(record)
        self._take_histograms(record, count=False, account="after the loop")
        self.histogram_steps.kept.append(record.step)

    def refresh(self) -> None:
        """Close the current step, add the last step, take its histograms and redraw now, whatever the budget."""
        if self._seen:
            self._finish_step()
        self._measure_last_step()
        if self._widget is not None and self._widget.controls.training and self.history:
            self._widget.overview.value = _live_overview_svg(self)  # at once; matplotlib's drawing follows
        if self.history and not any(
            stats.grad_histogram is not None for stats in self.history[-1].layers.values()
        ):
            self._take_histograms(self.history[-1], count=False, account="after the loop")
        if self.history and self._drawn_step != self.history[-1].step:
            self._maybe_draw(force=True)
        if self._widget is not None:
            self._widget.show_status(training=False)  # the loop is over: the controls wake up
        self.update_static()

    @property
    def overhead(self) -> float:
        """The monitor's own time as a share of the training time it has seen (by its own clock): its slowdown."""
        return self.time.overhead

    @property
    def last_step(self) -> int | None:
        """The last step the charts show (``None`` before the first)."""
        return self.history[-1].step if self.history else None

    def detach(self) -> None:
        """Remove the hooks: the model trains unobserved again."""
        for handle in self._handles:
            handle.remove()
        self._handles = []
        if self._ipython is not None:
            try:
                self._ipython.events.unregister("post_run_cell", self._after_cell)
            except ValueError:
                pass
            self._ipython = None

    def _register_cell_hook(self) -> None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
        if shell is not None and hasattr(shell, "events"):
            shell.events.register("post_run_cell", self._after_cell)
            self._ipython = shell

    def _after_cell(self, result=None) -> None:
        if self._seen or (self.history and self.history[-1].step != self.steps_seen) or (
            self.history and self._drawn_step != self.history[-1].step
        ):
            self.refresh()
        if self._widget is not None and self._widget.controls.training:
            self._widget.show_status(training=False)  # a cell that trained nothing new ended

    # -- what the charts say ------------------------------------------------------------------------
    def flags(self, record: StepRecord | None = None) -> list[str]:
        """Sentences naming the layers whose gradients vanish, explode or are not finite."""
        record = record or (self.history[-1] if self.history else None)
        if record is None:
            return []
        found = []
        for name, stats in record.layers.items():
            norm = stats.grad_norm
            if not math.isfinite(norm):
                found.append(f"Layer {name}: the gradient norm is {norm} (not finite) at step {record.step}: "
                             "training has diverged; lower the learning rate.")
            elif norm < self.vanishing:
                found.append(f"Layer {name}: vanishing gradients, norm {norm:.3g} is below {self.vanishing:g} at "
                             f"step {record.step}: this layer has almost stopped learning.")
            elif norm > self.exploding:
                found.append(f"Layer {name}: exploding gradients, norm {norm:.3g} is above {self.exploding:g} at "
                             f"step {record.step}: updates overshoot; lower the learning rate or clip gradients.")
        return found

    def series(self, layer: str, what: str = "grad_norm") -> tuple[list[int], list[float]]:
        """Steps and values of one statistic (``grad_norm``, ``weight_norm``, ``update_ratio``) of one layer."""
        steps, values = [], []
        for record in self.history:
            stats = record.layers.get(layer)
            value = getattr(stats, what) if stats is not None else None
            if value is not None:
                steps.append(record.step)
                values.append(value)
        return steps, values

    # -- display ------------------------------------------------------------------------------------
    @property
    def widget(self):
        if self._widget is None:
            self._widget = _MonitorWidgets(self)
            if self.history:
                self._maybe_draw(force=True)
        return self._widget.box

    def status_text(self) -> str:
        """Where the data comes from and where it stops, in words."""
        if not self.history and not self.steps_seen:
            return "Gradient monitor: waiting for the first training step (the charts appear after backward())."
        if not self.history:
            return f"Gradient monitor: {self.steps_seen} steps seen; the first measurement is being taken."
        last = self.history[-1]
        stride = self.sampled.stride
        every = "every step" if stride == 1 else f"one step in {stride}, from step 1"
        text = (
            f"Gradient monitor: {self.steps_seen} steps seen, {len(self.history)} measured ({every}"
            f"{', and the last' if last.after_update or (last.step - 1) % stride else ''}); "
            f"the data ends at step {last.step}"
        )
        if last.step < self.steps_seen:
            text += f" (steps {last.step + 1} to {self.steps_seen} are not shown yet)"
        histogram_steps = sum(1 for record in self.history if _has_histograms(record))
        return text + f"; histograms at {histogram_steps} steps; {len(self.layers)} layers."

    # A run shorter than this is too short to tell the monitor's cost from its fixed start-up work.
    MEASURABLE_TRAINING_S = 2.0

    @property
    def slowdown(self) -> float:
        """How much longer the training loop took with the monitor than without it (``0.04``: 4% longer).

        The training time the monitor counts leaves out its own work, so its own work over that time is
        the slowdown: with the monitor the loop took ``training + spent`` instead of ``training``.
        """
        return self.overhead

    def over_budget(self) -> bool:
        """Did the monitor slow a run long enough to measure by more than its budget?"""
        measurable = self.time.training_time >= self.MEASURABLE_TRAINING_S
        return self.budget is not None and measurable and self.slowdown > self.budget

    def cost_text(self) -> str:
        """What the monitor cost the training loop, measured (with and without its own work)."""
        training = self.time.training_time
        budget = f" (budget {100 * self.budget:.0f}%)" if self.budget is not None else ""
        if training < self.MEASURABLE_TRAINING_S:
            return (f"Monitoring cost: not measurable on a run this short ({training:.2f} s of training; its "
                    f"fixed start-up work dominates){budget}.")
        spent = self.overhead * training
        return (f"Monitoring slowed training by {100 * self.slowdown:.1f}%: {training:.1f} s of training took "
                f"{training + spent:.1f} s with the monitor's own work{budget}.")

    def cost_html(self) -> str:
        """The cost line, in bold red only when a measurable run went over the budget."""
        text = html.escape(self.cost_text())
        if self.over_budget():
            return f"<b style='color:#b91c1c'>{text}</b>"
        return f"<span style='color:#4b5563'>{text}</span>"

    def static_text(self) -> str:
        """The monitor in words, for text-only viewers: the status, the cost and the flags at the last step."""
        flags = self.flags() if self.history else []
        lines = [self.status_text(), self.cost_text()]
        lines += flags or (["No vanishing or exploding gradients at the last step."] if self.history else [])
        return "\n".join(lines)

    def static_html(self) -> str:
        """The charts as they are now, as HTML with inline SVG (what a saved notebook shows)."""
        if not self.history:
            return f"<div class='minitorch-static'><p>{html.escape(self.status_text())}</p></div>"
        record = next((r for r in reversed(self.history) if _has_histograms(r)), None)
        parts = [f"<p>{html.escape(self.status_text())}<br>{self.cost_html()}</p>", _flags_html(self.flags()),
                 _overview_svg(self)]
        if record is not None:
            layer = next(name for name, stats in record.layers.items() if stats.grad_histogram is not None)
            parts.append(_histogram_svg(layer, record.step, record.layers[layer]))
        return "<div class='minitorch-static minitorch-gradient-monitor-static'>" + "".join(parts) + "</div>"


def _has_histograms(record: StepRecord) -> bool:
    return any(stats.grad_histogram is not None for stats in record.layers.values())


def _flags_html(flags: list[str]) -> str:
    if not flags:
        return "<span style='color:#15803d'>No vanishing or exploding gradients at the last step.</span>"
    return "<ul style='color:#b91c1c;margin:0'>" + "".join(f"<li>{html.escape(f)}</li>" for f in flags) + "</ul>"


class _MonitorWidgets:
    """The charts (matplotlib SVG in ipywidgets HTML), the histogram controls and the flags.

    The controls (``frontend/monitor_controls.js``) ask the kernel to draw: they are enabled only
    once it answers, so a notebook reopened from its saved widget state shows them disabled.
    """

    def __init__(self, monitor: GradientMonitor):
        import ipywidgets as w

        self.monitor = monitor
        self.overview = w.HTML(layout=w.Layout(width="100%", max_width="960px"))
        self.overview.add_class("mt-monitor-overview")
        self.histograms = w.HTML(layout=w.Layout(width="100%", max_width="960px"))
        self.controls = _controls_class()(layers=monitor.layers, layer=monitor.layers[0] if monitor.layers else "")
        self.flags = w.HTML()
        self.status = w.HTML(html.escape(monitor.status_text()))
        self.cost = w.HTML(monitor.cost_html())
        self._updating = False
        self.controls.observe(lambda _: self.draw_histograms(), names=["layer", "step"])
        self.controls.on_msg(self._on_message)
        self.box = w.VBox(
            [self.status, self.cost, self.flags, self.overview, self.controls, self.histograms],
            layout=w.Layout(width="100%"),
        )
        self.box.add_class("minitorch-gradient-monitor")

    @staticmethod
    def _on_message(widget, content, buffers) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":  # the view asks whether a kernel is here
            widget.send({"type": "pong"})

    def show_status(self, training: bool) -> None:
        """The status and cost lines as they are now, and whether a training loop is running."""
        self.status.value = html.escape(self.monitor.status_text())
        self.cost.value = self.monitor.cost_html()
        if self.controls.training != training:
            self.controls.training = training

    def draw(self) -> None:
        monitor = self.monitor
        self.overview.value = _overview_svg(monitor)
        steps = [record.step for record in monitor.history if _has_histograms(record)]
        if steps:
            self._updating = True  # draw once, after both are set
            try:
                with self.controls.hold_sync():
                    self.controls.steps = steps
                    self.controls.step = steps[-1]
            finally:
                self._updating = False
        self.draw_histograms()
        self.flags.value = _flags_html(monitor.flags())
        self.status.value = html.escape(monitor.status_text())
        self.cost.value = monitor.cost_html()

    def draw_histograms(self) -> None:
        if self._updating:
            return
        monitor = self.monitor
        record = next((r for r in monitor.history if r.step == self.controls.step), None)
        stats = record.layers.get(self.controls.layer) if record is not None else None
        if stats is None or stats.grad_histogram is None:
            return
        self.histograms.value = _histogram_svg(self.controls.layer, record.step, stats)


_CONTROLS_CLASS = None


def _controls_class():
    """The anywidget class of the histogram controls, made on first use."""
    global _CONTROLS_CLASS
    if _CONTROLS_CLASS is None:
        import anywidget
        import traitlets as t

        frontend = _FRONTEND

        class MonitorControls(anywidget.AnyWidget):
            """Which layer's histograms, at which of the steps that have them."""

            _esm = "\n".join((frontend / name).read_text(encoding="utf-8")
                              for name in ("opening_clean.js", "monitor_controls.js"))
            _css = (frontend / "monitor_controls.css").read_text(encoding="utf-8")
            layers = t.List(t.Unicode()).tag(sync=True)
            layer = t.Unicode("").tag(sync=True)
            steps = t.List(t.Int()).tag(sync=True)
            step = t.Int(0).tag(sync=True)
            training = t.Bool(False).tag(sync=True)  # a training loop is running: the kernel answers when it ends

        _CONTROLS_CLASS = MonitorControls
    return _CONTROLS_CLASS


# -- matplotlib, without pyplot (no global figures, no inline backend needed) -------------------------
# Line styles change every 10 layers, so colours never repeat with the same style.
_STYLES = ["-", "--", ":", "-."]


def _layer_style(index: int) -> dict:
    from matplotlib import colormaps

    return {"color": colormaps["tab10"](index % 10), "linestyle": _STYLES[(index // 10) % len(_STYLES)]}


def _figure(width: float, height: float, columns: int):
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height))
    FigureCanvasSVG(figure)
    return figure, figure.subplots(1, columns)


_SVG_START = re.compile(r"^.*?(?=<svg)", re.DOTALL)


def _svg(figure) -> str:
    """The figure as inline SVG text that scales to its container's width."""
    from matplotlib import rc_context

    buffer = io.StringIO()
    with rc_context({"svg.fonttype": "none"}):  # text stays text: smaller, sharp, selectable
        figure.savefig(buffer, format="svg")
    text = _SVG_START.sub("", buffer.getvalue(), count=1)
    return re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 width="100%" style="height:auto"', text,
                  count=1)


def _few_ticks(axes) -> None:
    """Integer steps on x, powers of ten on y, few enough that no two labels overlap (and quick to lay out)."""
    from matplotlib.ticker import LogLocator, MaxNLocator, NullLocator

    axes.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    axes.yaxis.set_major_locator(LogLocator(numticks=6))
    axes.yaxis.set_minor_locator(NullLocator())


def _overview_svg(monitor: GradientMonitor) -> str:
    figure, (norms, ratios) = _figure(10, 3.4, 2)
    for index, layer in enumerate(monitor.layers):
        style = _layer_style(index)
        steps, values = monitor.series(layer, "grad_norm")
        norms.plot(steps, [max(v, 1e-30) for v in values], label=layer, linewidth=1.2, **style)
        steps, values = monitor.series(layer, "update_ratio")
        if values:
            ratios.plot(steps, [max(v, 1e-30) for v in values], label=layer, linewidth=1.2, **style)
    last = monitor.history[-1].step if monitor.history else 1
    for axes in (norms, ratios):
        axes.set_xlim(1, max(monitor.steps_seen, last, 2))
        if last < monitor.steps_seen:
            axes.axvspan(last, monitor.steps_seen, color="#f3f4f6", zorder=0)
        axes.set_yscale("log")
        axes.set_xlabel("step")
        _few_ticks(axes)
        axes.tick_params(labelsize=8)
    norms.axhline(monitor.vanishing, color="#9ca3af", linestyle=":", linewidth=1)
    norms.axhline(monitor.exploding, color="#dc2626", linestyle=":", linewidth=1)
    norms.set_title(f"gradient norm per layer (data up to step {last})", fontsize=10)
    ratios.axhline(1e-3, color="#9ca3af", linestyle=":", linewidth=1)
    ratios.set_title("update / weight ratio", fontsize=10)
    columns = 1 if len(monitor.layers) <= 8 else 2
    norms.legend(fontsize=7, loc="best", ncol=columns)
    # Fixed margins: tight_layout measures every label twice and costs more than the drawing itself.
    figure.subplots_adjust(left=0.07, right=0.99, bottom=0.15, top=0.9, wspace=0.18)
    return _svg(figure)


# tab10, matplotlib's default colours (the charts drawn at the end of a cell use the same)
_TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
_DASHES = ["", "6 3", "1.5 2.5", "6 2.5 1.5 2.5"]  # matplotlib's "-", "--", ":", "-." at 1.2 px


def _live_overview_svg(monitor: GradientMonitor) -> str:
    """The overview while a loop runs: both charts of ``_overview_svg`` (log-scale gradient norms with the
    thresholds, update ratios), as plain SVG polylines, redrawn at least once a second. The cell's end replaces
    it with matplotlib's drawing."""
    width, height, gap = 960.0, 300.0, 60.0
    last = monitor.history[-1].step
    end = max(monitor.steps_seen, last, 2)
    panels = [
        ("grad_norm", f"gradient norm per layer (live: data up to step {last} of {monitor.steps_seen})",
         [(monitor.vanishing, "#9ca3af"), (monitor.exploding, "#dc2626")]),
        ("update_ratio", "update / weight ratio (live)", [(1e-3, "#9ca3af")]),
    ]
    panel_width = (width - gap - 2 * 50 - 20) / 2  # each panel: 50 px for the tick labels on its left
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" width="100%" '
             'style="height:auto" font-family="sans-serif" class="mt-live-chart">']
    for index, (what, title, lines) in enumerate(panels):
        left, top, bottom = 50 + index * (panel_width + gap + 50), 28.0, height - 36
        series = [monitor.series(layer, what) for layer in monitor.layers]
        values = [v for _, ys in series for v in ys if v > 0 and math.isfinite(v)] + [y for y, _ in lines]
        low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
        high = max(high, low + 1)

        def x_of(step, left=left):
            return left + panel_width * (step - 1) / (end - 1)

        def y_of(value, low=low, high=high, top=top, bottom=bottom):
            return bottom - (bottom - top) * (math.log10(max(value, 10.0 ** low)) - low) / (high - low)

        parts.append(f'<text x="{left + panel_width / 2:.1f}" y="16" font-size="13" text-anchor="middle">'
                     f'{html.escape(title)}</text>')
        parts.append(f'<rect x="{left:.1f}" y="{top:.1f}" width="{panel_width:.1f}" height="{bottom - top:.1f}" '
                     'fill="none" stroke="#374151" stroke-width="0.8"/>')
        if last < monitor.steps_seen:  # steps not measured yet: shaded, as in the final chart
            parts.append(f'<rect x="{x_of(last):.1f}" y="{top:.1f}" width="{x_of(end) - x_of(last):.1f}" '
                         f'height="{bottom - top:.1f}" fill="#f3f4f6"/>')
        for exponent in range(low, high + 1, max(1, (high - low + 5) // 6)):
            y = y_of(10.0 ** exponent)
            parts.append(f'<text x="{left - 4:.1f}" y="{y + 4:.1f}" font-size="11" text-anchor="end">'
                         f'1e{exponent}</text>')
        for step in (1, end):
            parts.append(f'<text x="{x_of(step):.1f}" y="{bottom + 15:.1f}" font-size="11" text-anchor="middle">'
                         f'{step}</text>')
        parts.append(f'<text x="{left + panel_width / 2:.1f}" y="{bottom + 30:.1f}" font-size="11" '
                     'text-anchor="middle">step</text>')
        for value, colour in lines:
            parts.append(f'<line x1="{left:.1f}" x2="{left + panel_width:.1f}" y1="{y_of(value):.1f}" '
                         f'y2="{y_of(value):.1f}" stroke="{colour}" stroke-dasharray="1.5 2.5"/>')
        for layer_index, (steps, ys) in enumerate(series):
            points = " ".join(f"{x_of(step):.1f},{y_of(v):.1f}" for step, v in zip(steps, ys) if math.isfinite(v))
            if not points:
                continue
            dashes = _DASHES[(layer_index // 10) % len(_DASHES)]
            parts.append(f'<polyline points="{points}" fill="none" stroke="{_TAB10[layer_index % 10]}" '
                         f'stroke-width="1.2"{f" stroke-dasharray={chr(34)}{dashes}{chr(34)}" if dashes else ""}>'
                         f'<title>{html.escape(monitor.layers[layer_index])}</title></polyline>')
        if index == 0:  # the legend, as in the final chart: one line per layer, in its colour
            for layer_index, layer in enumerate(monitor.layers[:12]):
                parts.append(f'<text x="{left + panel_width - 6:.1f}" y="{top + 14 + 12 * layer_index:.1f}" '
                             f'font-size="10" text-anchor="end" fill="{_TAB10[layer_index % 10]}">'
                             f'{html.escape(layer)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _histogram_svg(layer: str, step: int, stats: LayerStatistics) -> str:
    from matplotlib.ticker import MaxNLocator

    figure, (weights, grads) = _figure(10, 2.6, 2)
    for axes, (counts, edges), title, color in (
        (weights, stats.weight_histogram, "weights", "#2563eb"),
        (grads, stats.grad_histogram, "gradients", "#dc2626"),
    ):
        axes.stairs(counts, edges, fill=True, color=color, alpha=0.6)
        axes.set_title(f"{layer}: {title} at step {step}", fontsize=10)
        axes.xaxis.set_major_locator(MaxNLocator(nbins=5))
        axes.ticklabel_format(axis="x", style="sci", scilimits=(-3, 3))
        axes.tick_params(labelsize=8)
    figure.subplots_adjust(left=0.06, right=0.99, bottom=0.17, top=0.87, wspace=0.15)
    return _svg(figure)
