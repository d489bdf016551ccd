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

Monitoring must not slow training down much. The monitor times itself and does its work
only while its own time stays under ``budget`` (4%) of the training time (the time from
one backward to the next, pauses left out): half of that for measuring steps, half for
histograms and drawings, so one slow drawing never stops the measuring. A slow model is
measured every step, a very fast one every few steps (``StepRecord.step`` says which). The
copies it makes also cool the processor's caches for the training step that follows, which
its clock cannot see: on the course's MLP a 4% budget costs about 8% of the training time
(``benchmarks/widgets_frames.py`` measures it; the target is at most 10%).

In a notebook the charts are redrawn at the end of each cell as well, so the last measured
step is always shown. matplotlib draws the charts into PNG images, which a saved notebook
keeps (the last frame, statically).
"""

from __future__ import annotations

import html
import io
import math
import time
from dataclasses import dataclass, field

import numpy as np

__all__ = ["GradientMonitor", "LayerStatistics", "StepRecord"]

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


class GradientMonitor:
    """Watch ``model``'s gradients while it trains; display it to see the charts.

    ``vanishing`` / ``exploding``: gradient-norm thresholds that flag a layer; ``budget``: the
    largest share of wall time the monitor may spend on itself (``None``: measure every step,
    take every histogram, redraw after every step, whatever it costs); ``bins``:
    histogram bins. ``detach()`` removes the hooks.
    """

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
        self._seen = set()  # id(parameter) of the parameters that reported in the current step
        self._measuring = False  # whether the current step is measured
        self._pending = {}  # id(parameter) -> (sum of squared gradient, sum of squared weight) this step
        self._previous_weights = {}  # id(parameter) -> its weights at the last measured step
        self._handles = [
            parameter.register_post_accumulate_grad_hook(self._on_gradient)
            for parameters in self._parameters.values() for parameter in parameters
        ]
        # Training time: the time between one backward and the next, without pauses (a gap much longer
        # than a usual step is the learner reading, not training). The budget is a share of this.
        self._training_time = 0.0
        self._last_step_clock = None
        self._usual_step = None
        # Seconds the monitor has used, in two accounts that may each take half the budget: measuring
        # steps, and showing them (histograms, drawings), so a slow first drawing never stops the measuring.
        self._spent_measuring = 0.0
        self._spent_showing = 0.0
        # The cost of measuring one step, one round of histograms and one drawing: guesses until measured
        # (so the first drawing also waits until training has run long enough to pay for it).
        total_size = sum(p.numel() for parameters in self._parameters.values() for p in parameters)
        self._step_cost = 0.0
        self._histogram_cost = 2e-4 + 2e-8 * total_size
        self._draw_cost = 0.1
        self._drawn_step = -1
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
        if not self._seen:  # the first parameter of a step: measure this step if the budget allows
            self.steps_seen += 1
            self._count_training_time()
            self._measuring = not self.history or self._affordable(self._step_cost, self._spent_measuring)
            self._step_start_spent = self._spent_measuring
        self._seen.add(key)
        if self._measuring or self._previous_weights:  # else nothing to do: keep unmeasured steps cheap
            start = _clock()
            previous = self._previous_weights.pop(key, None)
            if previous is not None:  # the weights of the last measured step, seen again after its update
                weights = _as_numpy(parameter).ravel()
                change = weights - previous
                self._add_update(parameter, float(np.dot(change, change)), float(np.dot(previous, previous)))
            if self._measuring:
                gradient = _as_numpy(parameter.grad).ravel()
                weights = _as_numpy(parameter).ravel()
                self._pending[key] = (float(np.dot(gradient, gradient)), float(np.dot(weights, weights)))
                self._previous_weights[key] = weights.copy()
            self._spent_measuring += _clock() - start
        if len(self._seen) == len(self._layer_of):
            self._finish_step()

    def _add_update(self, parameter, change_squared: float, previous_squared: float) -> None:
        """Accumulate ``||w_now - w_before||`` for the measured step whose weights were ``w_before``."""
        record = self.history[-1]
        sums = record.update_sums
        name = self._layer_of[id(parameter)]
        change, before = sums.get(name, (0.0, 0.0))
        sums[name] = (change + change_squared, before + previous_squared)
        stats = record.layers.get(name)
        if stats is not None:
            change, before = sums[name]
            stats.update_ratio = math.sqrt(change) / math.sqrt(before) if before > 0 else float("nan")

    def _finish_step(self) -> None:
        self._seen = set()
        if self._previous_weights and not self._measuring:
            self._previous_weights = {}  # parameters that got no gradient this step: no update to report
        if not self._measuring or not self._pending:
            self._measuring = False
            return
        self._measuring = False
        start = _clock()
        record = StepRecord(step=self.steps_seen)
        for name, parameters in self._parameters.items():
            sums = [self._pending[id(p)] for p in parameters if id(p) in self._pending]
            if sums:
                record.layers[name] = LayerStatistics(
                    grad_norm=math.sqrt(sum(g for g, _ in sums)), weight_norm=math.sqrt(sum(w for _, w in sums))
                )
        self._pending = {}
        self.history.append(record)
        self._spent_measuring += _clock() - start
        self._step_cost = self._spent_measuring - self._step_start_spent  # what measuring this step cost
        self._maybe_take_histograms(record)
        self._maybe_draw()

    # -- throttled work -----------------------------------------------------------------------------
    def _count_training_time(self) -> None:
        """Add the time since the previous step, at most five usual steps (longer is a pause)."""
        now = _clock()
        if self._last_step_clock is not None:
            interval = now - self._last_step_clock
            usual = self._usual_step
            counted = min(interval, 1.0) if usual is None else min(interval, 5 * usual)
            self._training_time += counted
            self._usual_step = counted if usual is None else 0.9 * usual + 0.1 * counted
        self._last_step_clock = now

    def _affordable(self, cost: float, spent: float) -> bool:
        """Would ``cost`` more seconds keep an account that has ``spent`` within half the budget so far?"""
        if self.budget is None:
            return True
        return spent + cost <= 0.5 * self.budget * self._training_time

    def _maybe_take_histograms(self, record, force: bool = False) -> None:
        # Histograms wait while the account could not also pay for the next drawing: drawing comes first.
        room_for_drawing = self._draw_cost if self._widget is not None else 0.0
        if not (force or self._affordable(self._histogram_cost + room_for_drawing, self._spent_showing)):
            return
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
        self._histogram_cost = _clock() - start
        self._spent_showing += self._histogram_cost

    def _maybe_draw(self, force: bool = False) -> None:
        if self._widget is None or not self.history:
            return
        if not (force or self._affordable(self._draw_cost, self._spent_showing)):
            return
        start = _clock()
        self._widget.draw()
        self._drawn_step = self.history[-1].step
        self._draw_cost = _clock() - start
        self._spent_showing += self._draw_cost

    def refresh(self) -> None:
        """Close the current step, take its histograms and redraw now, whatever the budget."""
        self._finish_step()
        if self.history and not any(
            stats.grad_histogram is not None for stats in self.history[-1].layers.values()
        ):
            self._maybe_take_histograms(self.history[-1], force=True)
        if self.history and self._drawn_step != self.history[-1].step:
            self._maybe_draw(force=True)

    @property
    def overhead(self) -> float:
        """The monitor's own time as a share of the training time it has seen (by its own clock)."""
        elapsed = self._training_time
        return (self._spent_measuring + self._spent_showing) / elapsed if elapsed > 0 else 0.0

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
        if self._widget is not None and (self._seen or (self.history and self._drawn_step != self.history[-1].step)):
            self.refresh()

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

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)


class _MonitorWidgets:
    """The charts (matplotlib PNGs in ipywidgets Images), the histogram scrubber and the flags."""

    def __init__(self, monitor: GradientMonitor):
        import ipywidgets as w

        self.monitor = monitor
        self.overview = w.Image(format="png", layout=w.Layout(width="100%", max_width="900px"))
        self.histograms = w.Image(format="png", layout=w.Layout(width="100%", max_width="900px"))
        self.layer = w.Dropdown(options=monitor.layers, description="layer")
        self.step = w.SelectionSlider(options=[0], value=0, description="step", continuous_update=False,
                                      layout=w.Layout(width="420px"))
        self.flags = w.HTML()
        self.status = w.HTML()
        self._updating = False
        self.layer.observe(lambda _: self.draw_histograms(), names="value")
        self.step.observe(lambda _: self.draw_histograms(), names="value")
        self.box = w.VBox(
            [self.status, self.flags, self.overview, w.HBox([self.layer, self.step]), self.histograms],
            layout=w.Layout(width="100%"),
        )
        self.box.add_class("minitorch-gradient-monitor")

    def draw(self) -> None:
        monitor = self.monitor
        self.overview.value = _overview_png(monitor)
        steps = [record.step for record in monitor.history
                 if any(s.grad_histogram is not None for s in record.layers.values())]
        if steps:
            self._updating = True  # new options reset the value: draw once, after both are set
            try:
                self.step.options = steps
                self.step.value = steps[-1]
            finally:
                self._updating = False
        self.draw_histograms()
        flags = monitor.flags()
        self.flags.value = (
            "<ul style='color:#b91c1c;margin:0'>" + "".join(f"<li>{html.escape(f)}</li>" for f in flags) + "</ul>"
            if flags else "<span style='color:#15803d'>No vanishing or exploding gradients at the last step.</span>"
        )
        self.status.value = (
            f"<b>Gradient monitor</b>: {monitor.steps_seen} steps seen, {len(monitor.history)} measured, "
            f"{len(monitor.layers)} layers; "
            f"monitoring used {100 * monitor.overhead:.1f}% of the time"
            + (f" (budget {100 * monitor.budget:.0f}%)." if monitor.budget is not None else ".")
        )

    def draw_histograms(self) -> None:
        if self._updating:
            return
        monitor = self.monitor
        record = next((r for r in monitor.history if r.step == self.step.value), None)
        stats = record.layers.get(self.layer.value) if record is not None else None
        if stats is None or stats.grad_histogram is None:
            return
        self.histograms.value = _histogram_png(self.layer.value, record.step, stats)


# -- matplotlib, without pyplot (no global figures, no inline backend needed) -------------------------
def _figure(width: float, height: float, columns: int):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=90)
    FigureCanvasAgg(figure)
    return figure, figure.subplots(1, columns)


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _overview_png(monitor: GradientMonitor) -> bytes:
    figure, (norms, ratios) = _figure(10, 3.4, 2)
    for layer in monitor.layers:
        steps, values = monitor.series(layer, "grad_norm")
        norms.plot(steps, [max(v, 1e-30) for v in values], label=layer, linewidth=1.2)
        steps, values = monitor.series(layer, "update_ratio")
        if values:
            ratios.plot(steps, [max(v, 1e-30) for v in values], label=layer, linewidth=1.2)
    norms.axhline(monitor.vanishing, color="#9ca3af", linestyle=":", linewidth=1)
    norms.axhline(monitor.exploding, color="#dc2626", linestyle=":", linewidth=1)
    norms.set_yscale("log")
    norms.set_title("gradient norm per layer")
    norms.set_xlabel("step")
    ratios.axhline(1e-3, color="#9ca3af", linestyle=":", linewidth=1)
    ratios.set_yscale("log")
    ratios.set_title("update / weight ratio")
    ratios.set_xlabel("step")
    norms.legend(fontsize=7, loc="best")
    return _png(figure)


def _histogram_png(layer: str, step: int, stats: LayerStatistics) -> bytes:
    figure, (weights, grads) = _figure(10, 2.6, 2)
    for axes, (counts, edges), title, color in (
        (weights, stats.weight_histogram, "weights", "#2563eb"),
        (grads, stats.grad_histogram, "gradients", "#dc2626"),
    ):
        axes.stairs(counts, edges, fill=True, color=color, alpha=0.6)
        axes.set_title(f"{layer}: {title} at step {step}")
    return _png(figure)
