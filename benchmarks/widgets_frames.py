"""What the widgets cost: every frame of the graph stepper, and the gradient monitor during training.

Workloads for ``benchmarks/run.py`` (minitorch only: the widgets have no PyTorch twin):

* ``widgets_mlp_frames``: one training step of an MLP whose graph has 102 nodes (25
  ``Linear`` layers of width 32 with ``Tanh`` between them, batch 16, mean squared error), then a
  ``GraphStepper`` with every frame pre-rendered (timeline, one Graphviz layout, 155
  frames, the browser view's per-frame changes). Target: under 2 s.
* ``widgets_cnn_frames``: the same for the course's small CNN (``Conv2d(1, 8, 3)`` ->
  ReLU -> MaxPool -> ``Conv2d(8, 16, 3)`` -> ReLU -> Flatten -> Linear, cross-entropy,
  batch 64 of 16x16 images).
* ``widgets_monitor_step``: one training step of the course's MLP (64 -> 128 -> 64 -> 10,
  batch 64, cross-entropy, SGD) with a ``GradientMonitor`` attached.

``python benchmarks/widgets_frames.py`` runs them on their own and checks the targets
against fixed numbers: the MLP's frames in under 2 s, and the monitor costing at most 10%
of a training step (training with and without the monitor interleaved, median of the
per-round ratios).
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # one thread, before NumPy loads (as benchmarks/run.py does)
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_variable] = "1"
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks.workload import Workload  # noqa: E402

FRAMES_TARGET_SECONDS = 2.0
MONITOR_TARGET_RATIO = 1.10


def _deep_mlp_step():
    """A training step's loss on a 25-layer MLP: 102 graph nodes."""
    import minitorch
    import minitorch.nn as nn

    minitorch.manual_seed(0)
    layers = [nn.Linear(64, 32), nn.Tanh()]
    for _ in range(23):
        layers += [nn.Linear(32, 32), nn.Tanh()]
    layers.append(nn.Linear(32, 10))
    model = nn.Sequential(*layers)
    inputs, targets = minitorch.randn(16, 64), minitorch.randn(16, 10)

    def loss():
        return ((model(inputs) - targets) ** 2).mean()

    return model, loss


def _course_cnn_step():
    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F

    minitorch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(16 * 8 * 8, 10),
    )
    images = minitorch.rand(64, 1, 16, 16)
    labels = minitorch.tensor(np.random.default_rng(0).integers(0, 10, 64))

    def loss():
        return F.cross_entropy(model(images), labels)

    return model, loss


def _frames_setup(make):
    def setup():
        import widgets

        model, loss = make()

        def step():
            model.zero_grad()
            stepper = widgets.GraphStepper(loss(), names=dict(model.named_parameters()))
            stepper.widget  # noqa: B018 -- builds the browser view: the drawing and every frame's changes
            return tuple(p.grad for p in model.parameters())

        return step

    return setup


def _course_mlp():
    import minitorch
    import minitorch.nn as nn

    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
    rng = np.random.default_rng(0)
    inputs = minitorch.tensor(rng.standard_normal((64, 64)).astype(np.float32))
    labels = minitorch.tensor(rng.integers(0, 10, 64))
    return model, inputs, labels


def _training_step(model, inputs, labels):
    import minitorch

    optimizer = minitorch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        optimizer.zero_grad()
        loss = minitorch.nn.functional.cross_entropy(model(inputs), labels)
        loss.backward()
        optimizer.step()
        return tuple(p.grad for p in model.parameters())

    return step


def _monitor_setup():
    import widgets

    model, inputs, labels = _course_mlp()
    monitor = widgets.GradientMonitor(model, draw_in_notebook=False)
    monitor.widget  # noqa: B018 -- with its charts, so throttled redraws really happen
    step = _training_step(model, inputs, labels)
    step.monitor = monitor  # keeps it attached while the step is timed
    return step


WORKLOADS = [
    Workload(
        name="widgets_mlp_frames",
        description="GraphStepper with every frame of a 102-node MLP training step (155 frames); target < 2 s",
        setups={"minitorch": _frames_setup(_deep_mlp_step)},
        steps=3,
        quick_steps=1,
    ),
    Workload(
        name="widgets_cnn_frames",
        description="GraphStepper with every frame of the course's small CNN training step",
        setups={"minitorch": _frames_setup(_course_cnn_step)},
        steps=3,
        quick_steps=1,
    ),
    Workload(
        name="widgets_monitor_step",
        description="course MLP (64-128-64-10, batch 64) training step with a GradientMonitor attached",
        setups={"minitorch": _monitor_setup},
        steps=200,
        quick_steps=50,
    ),
]


# -- the targets, checked on their own ---------------------------------------------------------------
def frames_seconds(make, rounds: int) -> tuple[float, dict]:
    """Median seconds to build a stepper with every frame, and what was built."""
    import widgets

    model, loss = make()
    times = []
    for _ in range(rounds):
        model.zero_grad()
        output = loss()
        start = time.perf_counter()
        stepper = widgets.GraphStepper(output, names=dict(model.named_parameters()))
        stepper.widget  # noqa: B018
        times.append(time.perf_counter() - start)
    from minitorch.autograd import graph

    info = {
        "graph nodes": stepper.timeline.forward_steps + len(stepper.timeline.leaf_items),
        "drawn items": len(stepper.items),
        "frames": stepper.frame_count,
        "SVG per frame": f"{len(stepper.frame_svg(stepper.frame_count - 1)) / 1000:.0f} kB",
    }
    del graph
    return statistics.median(times), info


def monitor_ratio(rounds: int, steps: int) -> tuple[float, float, float]:
    """Median over rounds of (time with the monitor / time without), and the two median step times."""
    import widgets

    plain_model, inputs, labels = _course_mlp()
    watched_model, _, _ = _course_mlp()
    plain = _training_step(plain_model, inputs, labels)
    watched = _training_step(watched_model, inputs, labels)
    monitor = widgets.GradientMonitor(watched_model, draw_in_notebook=False)
    monitor.widget  # noqa: B018
    for _ in range(20):  # warm up both
        plain()
        watched()
    ratios, plain_times, watched_times = [], [], []
    for round_index in range(rounds):
        order = [(plain, plain_times), (watched, watched_times)]
        if round_index % 2:
            order.reverse()
        measured = {}
        for step, store in order:
            start = time.perf_counter()
            for _ in range(steps):
                step()
            seconds = (time.perf_counter() - start) / steps
            store.append(seconds)
            measured[id(store)] = seconds
        ratios.append(measured[id(watched_times)] / measured[id(plain_times)])
    return statistics.median(ratios), statistics.median(plain_times), statistics.median(watched_times)


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Check the widgets' performance targets.")
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    arguments = parser.parse_args(argv)
    rounds = 3 if arguments.quick else 7
    failed = False

    seconds, info = frames_seconds(_deep_mlp_step, rounds)
    verdict = "pass" if seconds < FRAMES_TARGET_SECONDS else "FAIL"
    failed |= verdict == "FAIL"
    print(f"MLP stepper, every frame: {seconds:.3f} s (target < {FRAMES_TARGET_SECONDS:g} s): {verdict}; {info}")
    try:
        seconds, info = frames_seconds(_course_cnn_step, rounds)
        print(f"CNN stepper, every frame: {seconds:.3f} s; {info}")
    except (AttributeError, RuntimeError, TypeError) as error:
        print(f"CNN stepper: not run ({type(error).__name__}: {error})")

    ratio, plain, watched = monitor_ratio(rounds=rounds * 3, steps=100 if arguments.quick else 150)
    verdict = "pass" if ratio <= MONITOR_TARGET_RATIO else "FAIL"
    failed |= verdict == "FAIL"
    print(
        f"Gradient monitor on the course MLP: {1e3 * plain:.3f} ms per step without, {1e3 * watched:.3f} ms with; "
        f"ratio {ratio:.3f} (target <= {MONITOR_TARGET_RATIO:.2f}): {verdict}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
