"""CPU against GPU: time the same operations on every device, and find where the GPU starts to win.

    >>> import widgets
    >>> timer = widgets.DeviceTimer(operations=["elementwise"], sizes={"elementwise": [1_000, 10_000]})
    >>> timer.run(progress=False)          # doctest: +ELLIPSIS
    DeviceTimer:
    ...
    >>> [(m.operation, m.device, m.size) for m in timer.measurements]
    [('elementwise', 'cpu', 1000), ('elementwise', 'cpu', 10000)]

A GPU is a very wide but far-away calculator: every call costs a fixed launch time and the
data must first travel to it, so it loses on small arrays and wins on large ones. The
sweep times, for each operation and size, on the CPU (NumPy) and on each CUDA device
(CuPy), with minitorch's own ops:

* ``matmul``: ``a @ b`` of two ``n x n`` float32 matrices (``2 n^3`` floating-point operations);
* ``conv2d``: a 3x3 convolution, batch 8, 16 -> 32 channels on ``n x n`` images;
* ``elementwise``: ``exp(tanh(x * 1.5 + 0.5) * x)`` on ``n`` numbers (five ops, each a trip
  through memory);
* ``mlp_step``: one training step (forward, backward, SGD update) of an MLP of width ``n``.

Timing done right, by ``minitorch.utils.benchmark.Timer`` (PyTorch's ``torch.utils.benchmark``):
inputs are made and moved to the device outside the timed region (the host-to-device copy is timed
by a Timer of its own), the first call is timed on its own (on a GPU it includes compiling
kernels), then ``Timer("run()", ...).blocked_autorange(min_run_time=seconds)`` warms up and times
blocks of calls, a block long enough that reading the clock costs nothing next to it. The clock
the Timer reads waits for the device to finish (``minitorch.cuda.synchronize``) before each
reading, so the waiting is inside what is timed. The Timer's median is reported, with the
achieved GFLOP/s; the plot shows the spread too (the band from the 25th to the 75th percentile of
the blocks) and the table the number of blocks and calls per block. The CPU keeps the machine's
thread count (``minitorch.get_num_threads()``), not the Timer's default of one thread.

Without a GPU the timer says so and shows only what was measured here (no empty panels); a
file recorded on a GPU machine with ``python -m widgets.timing --save timings.json`` is
overlaid with ``DeviceTimer(reference="timings.json")``, labelled with the machine it was
measured on. Nothing else is ever drawn: every number comes from this machine's clock or
from that file. The plot is SVG (crisp at any zoom), and the output keeps a static copy of it.
"""

from __future__ import annotations

import argparse
import datetime
import html
import io
import json
import platform
import re
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

import minitorch
from minitorch.utils.benchmark import Timer

from .static import StaticFallback

__all__ = ["DeviceTimer", "Measurement", "OPERATIONS", "DEFAULT_SIZES", "QUICK_SIZES", "available_devices"]

FORMAT = "minitorch-device-timings"
_clock = time.perf_counter  # tests replace it to check that every number comes from the clock

DEFAULT_SIZES = {
    "matmul": [32, 64, 128, 256, 512, 1024, 2048],
    "conv2d": [8, 16, 32, 64, 128],
    "elementwise": [1_000, 10_000, 100_000, 1_000_000, 10_000_000],
    "mlp_step": [32, 128, 512, 1024, 2048],
}
QUICK_SIZES = {
    "matmul": [32, 128, 512],
    "conv2d": [8, 16, 32],
    "elementwise": [1_000, 100_000, 1_000_000],
    "mlp_step": [32, 128, 512],
}


@dataclass
class Measurement:
    """One operation at one size on one device; times in seconds."""

    operation: str
    device: str
    size: int
    median: float  # seconds per call, warm
    first_call: float  # the very first call (a GPU compiles its kernels here)
    transfer: float  # copying the inputs from host memory to the device (0 on the CPU)
    flops: float  # floating-point operations per call
    samples: list = field(default_factory=list)  # seconds per call in each block the Timer timed
    calls_per_sample: int = 1  # calls in each block (the Timer's ``number_per_run``)

    @property
    def gflops(self) -> float:
        return self.flops / self.median / 1e9 if self.median > 0 else float("nan")

    @property
    def quartiles(self) -> tuple[float, float]:
        """The 25th and 75th percentiles of the blocks (seconds per call in each): half of them fall in between."""
        return _quartiles(self.samples or [self.median])


def _quartiles(samples) -> tuple[float, float]:
    low, high = np.percentile(np.asarray(samples, dtype=np.float64), [25, 75])
    return float(low), float(high)


# -- the operations -------------------------------------------------------------------------------------
# Each takes (size, device) and returns (run, flops, host_inputs, move): ``run()`` does one call on
# tensors already on the device; ``move()`` copies ``host_inputs`` to the device (timed separately).
def _matmul(size, device):
    a, b = minitorch.randn(size, size), minitorch.randn(size, size)
    on_device = [a.to(device), b.to(device)]

    def run():
        return on_device[0] @ on_device[1]

    return run, 2.0 * size**3, lambda: [a.to(device), b.to(device)]


def _conv2d(size, device):
    import minitorch.nn.functional as F

    images, weight = minitorch.randn(8, 16, size, size), minitorch.randn(32, 16, 3, 3) * 0.1
    on_device = [images.to(device), weight.to(device)]

    def run():
        return F.conv2d(on_device[0], on_device[1], padding=1)

    flops = 2.0 * 8 * 32 * size * size * 16 * 9
    return run, flops, lambda: [images.to(device), weight.to(device)]


def _elementwise(size, device):
    x = minitorch.randn(size)
    on_device = x.to(device)

    def run():
        return ((on_device * 1.5 + 0.5).tanh() * on_device).exp()

    return run, 5.0 * size, lambda: x.to(device)


def _mlp_step(size, device, batch: int = 64, classes: int = 10):
    model = minitorch.nn.Sequential(
        minitorch.nn.Linear(size, size), minitorch.nn.ReLU(), minitorch.nn.Linear(size, classes)
    )
    inputs, targets = minitorch.randn(batch, size), minitorch.randn(batch, classes)
    model.to(device)
    optimizer = minitorch.optim.SGD(model.parameters(), lr=1e-3)
    data = [inputs.to(device), targets.to(device)]

    def run():
        optimizer.zero_grad()
        loss = ((model(data[0]) - data[1]) ** 2).mean()
        loss.backward()
        optimizer.step()
        return loss

    # forward 2*B*(n*n + n*c); backward twice that; the update is negligible
    flops = 3 * 2.0 * batch * (size * size + size * classes)
    return run, flops, lambda: [inputs.to(device), targets.to(device)]


OPERATIONS = {
    "matmul": _matmul,
    "conv2d": _conv2d,
    "elementwise": _elementwise,
    "mlp_step": _mlp_step,
}
SIZE_MEANING = {
    "matmul": "matrix side n (n x n @ n x n)",
    "conv2d": "image side n (8 x 16 x n x n, 3x3 kernel, 32 outputs)",
    "elementwise": "number of elements n",
    "mlp_step": "MLP width n (batch 64)",
}


def available_devices() -> list[str]:
    """``"cpu"`` and every CUDA device CuPy can see."""
    return ["cpu"] + [f"cuda:{index}" for index in range(minitorch.cuda.device_count())]


def device_description(device: str) -> str:
    if device == "cpu":
        return _cpu_model()
    return minitorch.cuda.get_device_name(int(device.split(":")[1]))


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def _synchronize(device: str) -> None:
    if device != "cpu":
        minitorch.cuda.synchronize(int(device.split(":")[1]))


def _device_clock(device: str):
    """The clock the Timer reads: wait for ``device`` to finish its queued work, then read ``_clock``.

    Waiting inside the clock puts the synchronisation inside what is timed, for the very device measured
    (the Timer's own default clock waits for the current device only)."""

    def clock() -> float:
        _synchronize(device)
        return _clock()

    return clock


def _timed_once(function, clock) -> float:
    """One call, on its own: what ``Timer`` never reports (it always warms up first)."""
    start = clock()
    function()
    return clock() - start


def measure(operation: str, size: int, device: str, seconds: float = 0.2) -> Measurement:
    """Time ``operation`` at ``size`` on ``device``: transfer and first call, then ``Timer.blocked_autorange``.

    The first call is timed on its own (on a GPU it compiles kernels); the warm calls are measured by
    ``minitorch.utils.benchmark.Timer(...).blocked_autorange(min_run_time=seconds)``, whose blocks give the
    samples (seconds per call, one per block) and whose median is reported. Every clock read waits for the
    device. The copy of the inputs to the device is measured by a Timer of its own.
    """
    run, flops, move = OPERATIONS[operation](size, device)
    clock = _device_clock(device)
    # The machine's own thread count: the Timer's default of one thread would handicap the CPU against the GPU.
    threads = minitorch.get_num_threads()
    label, sub_label = f"{operation} ({SIZE_MEANING[operation]})", f"n={size}"
    transfer = 0.0
    if device != "cpu":
        transfer = Timer("move()", globals={"move": move}, timer=clock, label=f"copy to device: {operation}",
                         sub_label=sub_label, description=device, num_threads=threads
                         ).blocked_autorange(min_run_time=seconds).median
    first_call = _timed_once(run, clock)
    timed = Timer("run()", globals={"run": run}, timer=clock, label=label, sub_label=sub_label, description=device,
                  num_threads=threads).blocked_autorange(min_run_time=seconds)
    return Measurement(operation, device, size, float(timed.median), first_call, float(transfer), flops,
                       [float(t) for t in timed.times], timed.number_per_run)


def crossover(cpu: dict, gpu: dict) -> int | None:
    """The smallest size from which the GPU is faster at every larger size measured (``None``: never)."""
    sizes = sorted(set(cpu) & set(gpu))
    winning = None
    for size in reversed(sizes):
        if gpu[size] < cpu[size]:
            winning = size
        else:
            break
    return winning


# -- the sweep and its widget ------------------------------------------------------------------------------
class DeviceTimer(StaticFallback):
    """Sweep operations over sizes on every device; display it for the plots and the table.

    ``operations``: names from ``OPERATIONS`` (default: all); ``sizes``: ``{operation: [sizes]}``
    (default ``DEFAULT_SIZES``, or ``QUICK_SIZES`` with ``quick=True``); ``devices``: default
    every available one; ``reference``: a JSON file saved by ``python -m widgets.timing --save``
    (on a GPU machine) to overlay; ``seconds``: the Timer's ``min_run_time`` for each point.
    """

    def __init__(self, operations=None, sizes=None, devices=None, reference=None, quick: bool = False,
                 seconds: float = 0.2):
        self.operations = list(operations or OPERATIONS)
        unknown = [name for name in self.operations if name not in OPERATIONS]
        if unknown:
            raise ValueError(f"unknown operation {unknown[0]!r}; choose from {', '.join(OPERATIONS)}")
        chosen = dict(QUICK_SIZES if quick else DEFAULT_SIZES)
        chosen.update(sizes or {})
        self.sizes = {name: sorted(chosen[name]) for name in self.operations}
        self.devices = list(devices or available_devices())
        self.seconds = seconds
        self.measurements: list[Measurement] = []
        self.unavailable: dict = {}  # (operation, device) -> why it could not run
        self.interrupted = False
        if reference is not None and not isinstance(reference, dict):
            reference = load(reference)  # a path
        self.reference = reference
        self._widget = None

    @property
    def has_gpu(self) -> bool:
        return any(device.startswith("cuda") for device in self.devices)

    def run(self, progress: bool = True) -> DeviceTimer:
        """Measure every point, showing how far it got; an interrupt keeps what was measured.

        Shown on the timer's own widget when it is on screen (so a saved notebook keeps no stale progress
        bar), else as a tqdm bar on the terminal.
        """
        points = [(op, device, size) for op in self.operations for device in self.devices for size in self.sizes[op]]
        bar = None
        if progress and self._widget is None:
            from tqdm import tqdm  # the terminal's bar: in a notebook the widget shows the progress itself

            bar = tqdm(total=len(points), desc="timing", unit="point")
        try:
            for number, (operation, device, size) in enumerate(points, start=1):
                if self._widget is not None and progress:
                    self._widget.progress.value = f"timing {number} of {len(points)}: {operation} on {device}, n={size}"
                if (operation, device) in self.unavailable:
                    if bar is not None:
                        bar.update(1)
                    continue
                if bar is not None:
                    bar.set_postfix_str(f"{operation} {device} n={size}")
                try:
                    self.measurements.append(measure(operation, size, device, seconds=self.seconds))
                except (RuntimeError, ValueError, TypeError, AttributeError, ImportError, MemoryError) as error:
                    self.unavailable[(operation, device)] = f"{type(error).__name__}: {str(error).splitlines()[0]}"
                if bar is not None:
                    bar.update(1)
                if self._widget is not None:
                    self._widget.draw()
        except KeyboardInterrupt:
            self.interrupted = True
        finally:
            if bar is not None:
                bar.close()
        if self._widget is not None:
            self._widget.progress.value = ""  # done: nothing about progress stays in the output
            self._widget.draw()
            self.update_static()
        return self

    # -- results -----------------------------------------------------------------------------------------
    def table(self, operation: str, device: str, what: str = "median") -> dict:
        """``{size: value}`` of one operation on one device (``median``, ``first_call``, ``transfer``, ``gflops``)."""
        return {m.size: getattr(m, what) for m in self.measurements if m.operation == operation and m.device == device}

    def crossovers(self) -> dict:
        """``{(operation, gpu device): size}`` from which the GPU wins, measured here."""
        return _crossovers(self.measurements)

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "version": 1,
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "host": platform.node(),
            "platform": platform.platform(),
            "devices": {device: device_description(device) for device in self.devices},
            "versions": _versions(),
            "size_meaning": {name: SIZE_MEANING[name] for name in self.operations},
            "interrupted": self.interrupted,
            "unavailable": [
                {"operation": op, "device": dev, "reason": why} for (op, dev), why in self.unavailable.items()
            ],
            "measurements": [asdict(m) for m in self.measurements],
        }

    def save(self, path) -> None:
        with open(path, "w") as handle:
            json.dump(self.to_json(), handle, indent=1)
            handle.write("\n")

    def messages(self) -> list[str]:
        """What the reader should know: no GPU, interrupted, an operation missing, the overlay."""
        found = []
        if not self.has_gpu:
            found.append(
                "No GPU here: minitorch.cuda.is_available() is False (no NVIDIA GPU, or CuPy is not installed: "
                "pip install -e .[cuda]). Showing what was measured on this CPU only."
            )
            if self.reference is None:
                found.append(
                    "To compare with a GPU: on a machine with one, run  python -m widgets.timing --save "
                    "gpu_timings.json , put the file next to this notebook, and pass "
                    "DeviceTimer(reference=\"gpu_timings.json\"): its curves are drawn dashed, named after "
                    "the machine that measured them."
                )
        if self.interrupted:
            done = len(self.measurements)
            found.append(f"The sweep was interrupted after {done} measurements; showing what was measured.")
        for (operation, device), why in self.unavailable.items():
            found.append(f"{operation} on {device} did not run: {why}")
        if self.reference is not None:
            devices = ", ".join(f"{name} ({description})" for name, description in self.reference["devices"].items())
            found.append(
                f"Dashed lines: results recorded on {self.reference.get('host') or 'another machine'} "
                f"on {self.reference.get('date', '?')[:10]} with {devices}."
            )
            for (operation, device), size in _crossovers(self.reference["measurements"]).items():
                found.append(f"There, {operation} on {device} beats the CPU from size {size} on.")
        for (operation, device), size in self.crossovers().items():
            found.append(f"Here, {operation} on {device} beats the CPU from size {size} on.")
        return found

    def figure_png(self) -> bytes:
        """The plot as PNG, at twice the usual resolution (sharp on high-density displays)."""
        return _plot(self, "png")

    def figure_svg(self) -> str:
        """The plot as SVG text that scales to its container's width."""
        return _plot(self, "svg")

    def gflops_html(self) -> str:
        rows = []
        for operation in self.operations:
            for device in self.devices:
                table = self.table(operation, device)
                if not table:
                    continue
                largest = max(table)
                m = next(x for x in self.measurements
                         if (x.operation, x.device, x.size) == (operation, device, largest))
                low, high = m.quartiles
                cells = [operation, device, f"{largest:,}", _seconds(m.median), f"{_seconds(low)} to {_seconds(high)}",
                         f"{len(m.samples)} x {m.calls_per_sample:,}", _seconds(m.first_call),
                         _seconds(m.transfer) if device != "cpu" else "-", f"{m.gflops:.2f}"]
                rows.append("<tr>" + "".join(
                    f"<td style='{_CELL}{'text-align:left' if index < 2 else ''}'>{cell}</td>"
                    for index, cell in enumerate(cells)) + "</tr>")
        header = "".join(
            f"<th style='{_CELL}{_HEAD}'>{name}</th>" for name in (
                "operation", "device", "largest size", "median", "middle half of the blocks", "blocks x calls",
                "first call", "host to device", "GFLOP/s")
        )
        return (f"<table class='minitorch-timings' style='border-collapse:collapse;font-size:13px;margin:6px 0'>"
                f"<tr>{header}</tr>{''.join(rows)}</table>")

    def static_text(self) -> str:
        """The timer in words, for text-only viewers: its messages (what was timed, where the GPU wins)."""
        return "\n".join(["DeviceTimer:", *self.messages()])

    def static_html(self) -> str:
        """Messages, plot and table as they are now (what a saved notebook shows)."""
        parts = [f"<p style='margin:2px 0'>{html.escape(message)}</p>" for message in self.messages()]
        if self.measurements or self.reference is not None:
            parts.append(f"<div style='max-width:1100px'>{self.figure_svg()}</div>")
        parts.append(self.gflops_html())
        return "<div class='minitorch-static minitorch-device-timer-static'>" + "".join(parts) + "</div>"

    @property
    def widget(self):
        if self._widget is None:
            self._widget = _TimerWidgets(self)
            self._widget.draw()
        return self._widget.box



def load(path) -> dict:
    """Read a file written by ``DeviceTimer.save`` (or ``python -m widgets.timing --save``)."""
    with open(path) as handle:
        data = json.load(handle)
    if data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a minitorch timings file (format {data.get('format')!r})")
    return data


def _crossovers(measurements) -> dict:
    rows = [m if isinstance(m, dict) else asdict(m) for m in measurements]
    found = {}
    for operation in sorted({row["operation"] for row in rows}):
        cpu = {row["size"]: row["median"] for row in rows if row["operation"] == operation and row["device"] == "cpu"}
        for device in sorted({row["device"] for row in rows if row["device"].startswith("cuda")}):
            gpu = {r["size"]: r["median"] for r in rows if r["operation"] == operation and r["device"] == device}
            size = crossover(cpu, gpu)
            if size is not None:
                found[(operation, device)] = size
    return found


def _versions() -> dict:
    found = {"python": platform.python_version(), "numpy": np.__version__, "minitorch": minitorch.__version__}
    try:
        import cupy

        found["cupy"] = cupy.__version__
    except ImportError:
        found["cupy"] = None
    return found


def _seconds(value: float) -> str:
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


# -- plots -------------------------------------------------------------------------------------------
_COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c"]
_CELL = "padding:3px 10px;border-bottom:1px solid #e5e7eb;text-align:right;"
_HEAD = "background:#f3f4f6;font-weight:600;border-bottom:2px solid #9ca3af;"


def _series(timer: DeviceTimer, operation: str) -> list:
    """``(device, line style, {size: (median, q25, q75, repeats)}, label)`` of everything measured."""
    found = []
    for device in timer.devices:
        table = {m.size: (m.median, *m.quartiles, len(m.samples)) for m in timer.measurements
                 if m.operation == operation and m.device == device}
        found.append((device, "-", table, f"{device} (here)"))
    if timer.reference is not None:
        rows = timer.reference["measurements"]
        host = timer.reference.get("host") or "another machine"
        for device in sorted({r["device"] for r in rows if r["operation"] == operation}):
            table = {r["size"]: (r["median"], *_quartiles(r.get("samples") or [r["median"]]),
                                 len(r.get("samples") or [])) for r in rows
                     if r["operation"] == operation and r["device"] == device}
            found.append((device, "--", table, f"{device} (recorded on {host})"))
    return [entry for entry in found if entry[2]]


def _plot(timer: DeviceTimer, format: str):
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullLocator

    operations = [op for op in timer.operations if _series(timer, op)] or timer.operations
    with_gpu = any(device.startswith("cuda") for op in operations for device, *_ in _series(timer, op))
    rows = 2 if with_gpu else 1  # no speed-up panels without GPU numbers: only what was measured
    figure = Figure(figsize=(3.3 * len(operations), 3.0 * rows))
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, len(operations), squeeze=False)
    for column, operation in enumerate(operations):
        times = axes[0][column]
        series = _series(timer, operation)
        colors = {}
        for device, style, table, label in series:
            color = colors.setdefault(device, _COLORS[len(colors) % len(_COLORS)])
            sizes = sorted(table)
            repeats = sorted({table[s][3] for s in sizes})
            counted = f"{repeats[0]}" if len(repeats) == 1 else f"{repeats[0]}-{repeats[-1]}"
            times.plot(sizes, [table[s][0] for s in sizes], style, marker="o", markersize=3, color=color,
                       label=f"{label}, {counted} blocks", linewidth=1.2)
            times.fill_between(sizes, [table[s][1] for s in sizes], [table[s][2] for s in sizes], color=color,
                               alpha=0.18, linewidth=0)
        all_sizes = sorted({size for _, _, table, _ in series for size in table})
        panels = [times]
        if with_gpu:
            speedups = axes[1][column]
            panels.append(speedups)
            for device, style, table, label in series:
                if not device.startswith("cuda"):
                    continue
                cpu = next((t for d, s, t, _ in series if d == "cpu" and s == style), None)
                if cpu is None:
                    continue
                sizes = sorted(set(cpu) & set(table))
                speedups.plot(sizes, [cpu[s][0] / table[s][0] for s in sizes], style, marker="o", markersize=3,
                              color=colors[device], label=label)
                size = crossover({s: cpu[s][0] for s in cpu}, {s: table[s][0] for s in table})
                if size is not None:
                    speedups.axvline(size, color=colors[device], linestyle=":", linewidth=1)
                    speedups.annotate(f"GPU wins from {_size_label(size)}", (size, 1), fontsize=7,
                                      color=colors[device], xytext=(3, 6), textcoords="offset points")
            speedups.axhline(1.0, color="#6b7280", linewidth=0.8)
            speedups.set_ylabel("GPU speed-up (CPU time / GPU time)" if column == 0 else "", fontsize=8)
            speedups.legend(fontsize=7)
        for panel in panels:
            panel.set_xscale("log")
            panel.set_yscale("log")
            if all_sizes:
                panel.set_xticks(all_sizes, [_size_label(size) for size in all_sizes], fontsize=7)
                panel.xaxis.set_minor_locator(NullLocator())
            panel.tick_params(labelsize=7)
        panels[-1].set_xlabel(SIZE_MEANING[operation], fontsize=7)
        times.set_title(operation, fontsize=10)
        times.set_ylabel("seconds per call (median; band: middle half)" if column == 0 else "", fontsize=8)
        times.legend(fontsize=7)
    figure.tight_layout()
    if format == "png":
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=180)
        return buffer.getvalue()
    buffer = io.StringIO()
    with rc_context({"svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg")
    text = re.sub(r"^.*?(?=<svg)", "", buffer.getvalue(), count=1, flags=re.DOTALL)
    return re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 width="100%" style="height:auto"', text,
                  count=1)


def _size_label(size: int) -> str:
    for scale, suffix in ((1_000_000, "M"), (1_000, "k")):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{suffix}"
    return str(size)


class _TimerWidgets:
    def __init__(self, timer: DeviceTimer):
        import ipywidgets as w

        self.timer = timer
        self.messages = w.HTML()
        self.plot = w.HTML(layout=w.Layout(width="100%", max_width="1100px"))
        self.table = w.HTML()
        self.progress = w.HTML()  # "timing 5 of 12: ..." while run() measures; empty once it is done
        self.box = w.VBox([self.progress, self.messages, self.plot, self.table], layout=w.Layout(width="100%"))
        self.box.add_class("minitorch-device-timer")

    def draw(self) -> None:
        timer = self.timer
        self.messages.value = "".join(f"<p style='margin:2px 0'>{html.escape(m)}</p>" for m in timer.messages())
        if timer.measurements or timer.reference is not None:
            self.plot.value = timer.figure_svg()
        self.table.value = timer.gflops_html()


# -- the command line ----------------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m widgets.timing",
        description="Time minitorch operations on the CPU and every GPU; save the results for "
        "DeviceTimer(reference=...).",
    )
    parser.add_argument("--save", metavar="FILE", required=True, help="write the results to this JSON file")
    parser.add_argument("--operations", nargs="+", choices=list(OPERATIONS), help="default: all")
    parser.add_argument("--sizes", nargs="+", type=int, help="the same sizes for every chosen operation")
    parser.add_argument("--quick", action="store_true", help="fewer, smaller sizes")
    parser.add_argument("--seconds", type=float, default=0.2, help="the Timer's min_run_time for each point (seconds)")
    arguments = parser.parse_args(argv)
    sizes = {name: arguments.sizes for name in (arguments.operations or OPERATIONS)} if arguments.sizes else None
    timer = DeviceTimer(arguments.operations, sizes, quick=arguments.quick, seconds=arguments.seconds)
    print(f"devices: {', '.join(f'{d} ({device_description(d)})' for d in timer.devices)}", file=sys.stderr)
    timer.run(progress=True)
    timer.save(arguments.save)
    for message in timer.messages():
        print(message, file=sys.stderr)
    print(f"saved {len(timer.measurements)} measurements to {arguments.save}", file=sys.stderr)
    return 0 if timer.measurements else 1


if __name__ == "__main__":
    sys.exit(main())

