"""The gradient monitor: its statistics equal norms computed by hand, and it keeps to its time budget."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from tests.widgets.support import pictures


def make_model(seed=0):
    minitorch.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3))


def train(model, steps, lr=0.1, monitor_check=None):
    optimizer = minitorch.optim.SGD(model.parameters(), lr=lr)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        inputs = minitorch.tensor(rng.standard_normal((8, 4)).astype(np.float32))
        targets = minitorch.tensor(rng.standard_normal((8, 3)).astype(np.float32))
        optimizer.zero_grad()
        loss = ((model(inputs) - targets) ** 2).mean()
        loss.backward()
        if monitor_check is not None:
            monitor_check()
        optimizer.step()


def test_norms_and_update_ratios_equal_the_ones_computed_by_hand():
    import widgets

    model = make_model()
    monitor = widgets.GradientMonitor(model, budget=None, draw_in_notebook=False)  # measure every step
    layers = {"0 (Linear)": [model[0].weight, model[0].bias], "2 (Linear)": [model[2].weight, model[2].bias]}
    assert monitor.layers == list(layers)
    expected = []
    weights_before = []

    def by_hand():
        grads = {name: math.sqrt(sum(float((p.grad.numpy().astype(np.float64) ** 2).sum()) for p in params))
                 for name, params in layers.items()}
        norms = {name: math.sqrt(sum(float((p.detach().numpy().astype(np.float64) ** 2).sum()) for p in params))
                 for name, params in layers.items()}
        expected.append((grads, norms))
        weights_before.append({name: [p.detach().numpy().copy() for p in params] for name, params in layers.items()})

    train(model, 4, monitor_check=by_hand)
    monitor.refresh()
    assert [record.step for record in monitor.history] == [1, 2, 3, 4]
    for record, (grads, norms) in zip(monitor.history, expected):
        for name in layers:
            assert record.layers[name].grad_norm == pytest.approx(grads[name], rel=1e-5)
            assert record.layers[name].weight_norm == pytest.approx(norms[name], rel=1e-5)
    # update ratio of step k: how far step k's optimizer update moved the weights seen at step k+1
    for step in range(3):
        for name in layers:
            before = weights_before[step][name]
            after = weights_before[step + 1][name]
            change = math.sqrt(sum(float(((a - b).astype(np.float64) ** 2).sum()) for a, b in zip(after, before)))
            size = math.sqrt(sum(float((b.astype(np.float64) ** 2).sum()) for b in before))
            assert monitor.history[step].layers[name].update_ratio == pytest.approx(change / size, rel=1e-4)
    assert monitor.history[-1].layers["0 (Linear)"].update_ratio is None  # no later backward has shown it yet
    # histograms hold every weight of the layer
    stats = monitor.history[-1].layers["0 (Linear)"]
    counts, edges = stats.weight_histogram
    assert counts.sum() == 4 * 6 + 6
    # taken at the step's backward, or (when the budget had no room then) by refresh after the update
    lowest = [min(float(w.min()) for w in weights) for weights in (
        weights_before[3]["0 (Linear)"], [model[0].weight.detach().numpy(), model[0].bias.detach().numpy()]
    )]
    assert any(edges[0] == pytest.approx(value) for value in lowest)
    monitor.detach()
    train(model, 1)
    monitor.refresh()
    assert len(monitor.history) == 4  # detached: no more steps


def test_vanishing_and_exploding_layers_are_named_in_words():
    import widgets

    model = make_model()
    monitor = widgets.GradientMonitor(model, vanishing=1e-3, exploding=1.0, budget=None, draw_in_notebook=False)
    with minitorch.no_grad():
        model[2].weight.mul_(1e-6)  # almost nothing flows back to layer 0, while layer 2 sees a huge error
    inputs, targets = minitorch.randn(8, 4), minitorch.randn(8, 3) * 1000
    ((model(inputs) - targets) ** 2).mean().backward()
    monitor.refresh()
    norms = {name: stats.grad_norm for name, stats in monitor.history[-1].layers.items()}
    assert norms["0 (Linear)"] < 1e-3 and norms["2 (Linear)"] > 1.0
    flags = monitor.flags()
    assert len(flags) == 2
    assert flags[0].startswith("Layer 0 (Linear): vanishing gradients, norm ")
    assert flags[1].startswith("Layer 2 (Linear): exploding gradients, norm ")
    healthy = widgets.GradientMonitor(make_model(), draw_in_notebook=False)
    train(healthy.model, 1)
    healthy.refresh()
    assert healthy.flags() == []


def test_measuring_histograms_and_redraws_keep_to_the_budget(monkeypatch):
    import widgets
    from widgets import gradients

    # A fake clock: training takes 10 ms a step, reading a tensor 0.5 ms, a drawing 50 ms.
    clock = {"now": 0.0}
    monkeypatch.setattr(gradients, "_clock", lambda: clock["now"])
    real_as_numpy = gradients._as_numpy

    def slow_as_numpy(tensor):
        clock["now"] += 0.0005
        return real_as_numpy(tensor)

    monkeypatch.setattr(gradients, "_as_numpy", slow_as_numpy)
    model = make_model()
    monitor = widgets.GradientMonitor(model, budget=0.1, draw_in_notebook=False)
    monitor.widget  # noqa: B018
    draws = []
    original = monitor._widget.draw

    def slow_draw():  # a drawing's cost on the fake clock (matplotlib itself runs only at the end)
        clock["now"] += 0.05
        draws.append(monitor.history[-1].step)

    monitor._widget.draw = slow_draw

    def ten_milliseconds_of_training():
        clock["now"] += 0.01

    train(model, 3000, monitor_check=ten_milliseconds_of_training)
    assert monitor.steps_seen == 3000
    steps = [r.step for r in monitor.history]
    # measuring a step reads 8 tensors (4 ms) and may use half of the 10%: the stride doubles as the
    # run grows, and at least 50 evenly spaced steps stay, from step 1
    stride = monitor.sampled.stride
    assert stride >= 32 and len(steps) >= 50
    assert steps == list(range(1, 3001, stride))[: len(steps)]
    # 30 s of training: the 10% that measuring leaves unused pays for some dozens of 50-ms drawings, spread
    # over the run (never more than the whole budget: 60)
    assert 10 <= len(draws) <= 60 and draws[-1] > 2500 and draws[0] < 1000
    assert monitor.overhead <= 0.1 + 0.05  # within budget, give or take the first 100 samples and one drawing
    monitor._widget.draw = original
    monitor.refresh()
    assert monitor.history[-1].step == 3000 and monitor._drawn_step == 3000  # refresh adds and draws the last step
    assert "data ends at step 3000" in monitor._widget.status.value


@pytest.mark.parametrize("steps", [150, 15_000])
def test_any_run_keeps_50_evenly_spread_steps_with_the_first_and_last_and_histograms_at_5(steps, monkeypatch):
    import widgets
    from widgets import gradients

    # 15,000 real steps take minutes: a one-layer model, and a fake clock (1 ms per step) for the budget
    clock = {"now": 0.0}
    monkeypatch.setattr(gradients, "_clock", lambda: clock["now"])
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    monitor = widgets.GradientMonitor(model, draw_in_notebook=False)
    optimizer = minitorch.optim.SGD(model.parameters(), lr=0.01)
    inputs, targets = minitorch.randn(4, 2), minitorch.randn(4, 1)
    for _ in range(steps):
        clock["now"] += 0.001
        optimizer.zero_grad()
        ((model(inputs) - targets) ** 2).mean().backward()
        optimizer.step()
    monitor.refresh()
    recorded = [record.step for record in monitor.history]
    assert len(recorded) >= 50 and recorded[0] == 1 and recorded[-1] == steps
    gaps = {b - a for a, b in zip(recorded[:-2], recorded[1:-1])}
    assert gaps == {monitor.sampled.stride}  # evenly spread (the last step comes on top)
    with_histograms = [r.step for r in monitor.history if any(s.grad_histogram is not None for s in r.layers.values())]
    assert len(with_histograms) >= 5 and with_histograms[0] == 1 and with_histograms[-1] == steps
    assert f"data ends at step {steps}" in monitor.status_text()
    # the chart of the norms holds every recorded step of every layer
    for layer in monitor.layers:
        assert monitor.series(layer, "grad_norm")[0] == recorded


def _fake_clock_run(monkeypatch, steps: int, step_seconds: float, read_seconds: float):
    """Train ``steps`` steps on a fake clock: each step ``step_seconds``, each tensor read ``read_seconds``."""
    import widgets
    from widgets import gradients

    clock = {"now": 0.0}
    monkeypatch.setattr(gradients, "_clock", lambda: clock["now"])
    real_as_numpy = gradients._as_numpy

    def slow_as_numpy(tensor):
        clock["now"] += read_seconds
        return real_as_numpy(tensor)

    monkeypatch.setattr(gradients, "_as_numpy", slow_as_numpy)
    model = make_model()
    monitor = widgets.GradientMonitor(model, draw_in_notebook=False)

    def step_time():
        clock["now"] += step_seconds

    train(model, steps, monitor_check=step_time)
    return monitor


def test_the_cost_line_reports_the_measured_slowdown_and_alarms_only_when_it_means_something(monkeypatch):
    # A short run: its time is mostly the monitor's fixed start-up work, so no percentage and no alarm.
    short = _fake_clock_run(monkeypatch, steps=60, step_seconds=0.001, read_seconds=0.0005)
    assert short.overhead > short.budget  # what the old headline reported in bold
    assert "not measurable on a run this short" in short.cost_text() and not short.over_budget()
    assert "<b" not in short.cost_html()
    # A long run of cheap steps: the measured slowdown, within the budget, not in bold.
    cheap = _fake_clock_run(monkeypatch, steps=3000, step_seconds=0.01, read_seconds=0.00001)
    spent = sum(cheap.time.spent[name] for name in ("measuring", "showing"))
    assert cheap.slowdown == pytest.approx(spent / cheap.time.training_time)
    # the training time left out the monitor's work: 3000 steps of 10 ms, the first interval uncounted
    assert cheap.time.training_time == pytest.approx(2999 * 0.01, rel=1e-6)
    assert f"slowed training by {100 * cheap.slowdown:.1f}%" in cheap.cost_text()
    assert cheap.slowdown <= cheap.budget and "<b" not in cheap.cost_html()
    # A long run where even 50 measured steps cost more than the budget allows: the alarm, in bold.
    costly = _fake_clock_run(monkeypatch, steps=3000, step_seconds=0.001, read_seconds=0.01)
    assert costly.time.training_time >= costly.MEASURABLE_TRAINING_S
    assert costly.over_budget() and costly.cost_html().startswith("<b")
    assert "monitoring" not in costly.status_text().lower().split(":", 1)[1]  # the status no longer carries it


def test_while_a_loop_runs_the_status_follows_it_and_the_controls_say_training(monkeypatch):
    """A 15 s loop of 10 ms steps on a fake clock: the status line keeps up (once a second) though drawings wait."""
    import widgets
    from widgets import gradients

    clock = {"now": 0.0}
    monkeypatch.setattr(gradients, "_clock", lambda: clock["now"])
    model = make_model()
    monitor = widgets.GradientMonitor(model, draw_in_notebook=False)
    monitor.widget  # noqa: B018 - the widget exists, as in a notebook cell before the loop
    parts = monitor._widget
    parts.draw = lambda: None  # charts are not the point here (and matplotlib on a fake clock is slow)
    seen = []

    charts = []

    def step_and_look():
        clock["now"] += 0.01
        if monitor.steps_seen % 100 == 0 and monitor.steps_seen:
            seen.append((clock["now"], parts.status.value, parts.controls.training))
            charts.append((clock["now"], parts.overview.value))

    train(model, 1500, monitor_check=step_and_look)
    assert all(training for _, _, training in seen)  # "training..." on the controls throughout
    # the live chart follows the run too (the matplotlib charts wait for their budget): redrawn at least once a
    # second, one line per layer, the x axis reaching the steps seen
    for now, chart in charts[1:]:
        assert 'class="mt-live-chart"' in chart and chart.count("<polyline") == 2 * len(monitor.layers)
        last_drawn = int(re.search(r"data up to step \d+ of (\d+)", chart).group(1))
        assert last_drawn >= round(now / 0.01) - 101, (now, last_drawn)
    assert not any("waiting for the first training step" in status for _, status, _ in seen)
    for now, status, _ in seen[1:]:  # the status is never more than a second (plus a step) behind
        shown = int(status.split(" steps seen")[0].rsplit(" ", 1)[-1])
        assert shown >= round(now / 0.01) - 101, (now, status)
    monitor.refresh()  # the end of the cell
    assert not parts.controls.training and "1500 steps seen" in parts.status.value


def test_the_status_says_where_the_data_stops():
    import widgets

    model = make_model()
    monitor = widgets.GradientMonitor(model, draw_in_notebook=False)
    assert "waiting for the first training step" in monitor.status_text()
    train(model, 3)
    monitor.refresh()
    assert "3 steps seen, 3 measured (every step)" in monitor.status_text()
    assert "data ends at step 3" in monitor.status_text()


def test_widget_shows_charts_as_svg_and_scrubs_histograms_by_step():
    import widgets

    model = make_model()
    monitor = widgets.GradientMonitor(model, budget=None, draw_in_notebook=False)
    box = monitor.widget
    train(model, 3)
    monitor.refresh()
    parts = monitor._widget
    assert parts.overview.value.startswith("<svg") and parts.histograms.value.startswith("<svg")
    assert 'width="100%"' in parts.overview.value  # scales with the output, crisp at any pixel ratio
    controls = parts.controls
    assert controls.steps == [1, 2, 3] and controls.step == 3 and controls.layers == monitor.layers
    first = parts.histograms.value
    controls.layer = "2 (Linear)"
    assert parts.histograms.value != first and "2 (Linear): gradients at step 3" in parts.histograms.value
    controls.step = 1
    assert "2 (Linear): gradients at step 1" in parts.histograms.value
    # the controls ask the kernel to draw: the view enables them only when the kernel answers its ping
    assert 'type: "ping"' in controls._esm and "disabled = training || !kernelAlive" in controls._esm
    assert not controls.training  # the loop is over (refresh ran): nothing says "training..."
    sent = []
    controls.send = sent.append
    parts._on_message(controls, {"type": "ping"}, [])
    assert sent == [{"type": "pong"}]
    assert "3 steps seen, 3 measured" in parts.status.value
    assert "No vanishing or exploding" in parts.flags.value
    assert box is monitor.widget
    # the output also carries a static copy of the charts, for viewers without the widget's state
    bundle = monitor._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "data ends at step 3" in bundle["text/html"] and "<svg" not in bundle["text/html"]
    assert pictures(bundle["text/html"]) and all("<svg" in svg for svg in pictures(bundle["text/html"]))


def test_colours_do_not_repeat_with_the_same_line_style():
    from widgets.gradients import _layer_style

    styles = [tuple(sorted(_layer_style(index).items())) for index in range(25)]
    assert len(set(styles)) == 25
