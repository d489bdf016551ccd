"""CPU against GPU: time the same operations on every device, and find where the GPU starts to win.

    >>> import widgets
    >>> timer = widgets.DeviceTimer(operations=["elementwise"], sizes={"elementwise": [1_000, 10_000]})
    >>> timer.run(progress=False)          # doctest: +ELLIPSIS
    <widgets.timing.DeviceTimer object at ...>
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

Timing done right: inputs are made and moved to the device outside the timed region (the
host-to-device copy is timed separately), the first call is timed on its own (on a GPU it
includes compiling kernels), a few warm-up calls follow, and each repeat waits for the
device to finish (``minitorch.cuda.synchronize``) before reading the clock. The median of
the repeats is reported, with the achieved GFLOP/s.

Without a GPU the timer says so, shows the CPU curves, and can overlay a file recorded on a
GPU machine with ``python -m widgets.timing --save timings.json``.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np

import minitorch

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
    samples: list = field(default_factory=list)  # every timed repeat

    @property
    def gflops(self) -> float:
        return self.flops / self.median / 1e9 if self.median > 0 else float("nan")


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


def measure(operation: str, size: int, device: str, seconds: float = 0.2, min_repeats: int = 3,
            max_repeats: int = 50, warmup: int = 2) -> Measurement:
    """Time ``operation`` at ``size`` on ``device``: transfer, first call, then the median of the repeats."""
    run, flops, move = OPERATIONS[operation](size, device)
    transfer = 0.0
    if device != "cpu":
        _synchronize(device)
        start = _clock()
        move()
        _synchronize(device)
        transfer = _clock() - start
    _synchronize(device)
    start = _clock()
    run()
    _synchronize(device)
    first_call = _clock() - start
    for _ in range(warmup):
        run()
    _synchronize(device)
    samples = []
    budget_start = _clock()
    while len(samples) < max_repeats and (len(samples) < min_repeats or _clock() - budget_start < seconds):
        start = _clock()
        run()
        _synchronize(device)
        samples.append(_clock() - start)
    return Measurement(operation, device, size, statistics.median(samples), first_call, transfer, flops, samples)


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
class DeviceTimer:
    """Sweep operations over sizes on every device; display it for the plots and the table.

    ``operations``: names from ``OPERATIONS`` (default: all); ``sizes``: ``{operation: [sizes]}``
    (default ``DEFAULT_SIZES``, or ``QUICK_SIZES`` with ``quick=True``); ``devices``: default
    every available one; ``reference``: a JSON file saved by ``python -m widgets.timing --save``
    (on a GPU machine) to overlay; ``seconds``: time spent repeating each point.
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
        """Measure every point (a tqdm progress bar shows how far); an interrupt keeps what was measured."""
        points = [(op, device, size) for op in self.operations for device in self.devices for size in self.sizes[op]]
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(points), desc="timing", unit="point")
        try:
            for operation, device, size in points:
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
            self._widget.draw()
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
                "pip install -e .[cuda]). Showing the CPU curves only."
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
        return _plot_png(self)

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
                rows.append(
                    f"<tr><td>{operation}</td><td>{device}</td><td>{largest}</td><td>{_seconds(m.median)}</td>"
                    f"<td>{_seconds(m.first_call)}</td><td>{_seconds(m.transfer) if device != 'cpu' else '-'}</td>"
                    f"<td>{m.gflops:.2f}</td></tr>"
                )
        header = ("<tr><th>operation</th><th>device</th><th>largest size</th><th>median</th><th>first call</th>"
                  "<th>host to device</th><th>GFLOP/s</th></tr>")
        return f"<table class='minitorch-timings'>{header}{''.join(rows)}</table>"

    @property
    def widget(self):
        if self._widget is None:
            self._widget = _TimerWidgets(self)
            self._widget.draw()
        return self._widget.box

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)


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


def _plot_png(timer: DeviceTimer) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullLocator

    operations = timer.operations
    figure = Figure(figsize=(3.2 * len(operations), 5.6), dpi=90)
    FigureCanvasAgg(figure)
    axes = figure.subplots(2, len(operations), squeeze=False)
    reference_rows = timer.reference["measurements"] if timer.reference is not None else []
    for column, operation in enumerate(operations):
        times, speedups = axes[0][column], axes[1][column]
        series = [(device, "-", timer.table(operation, device), "") for device in timer.devices]
        for device in sorted({r["device"] for r in reference_rows if r["operation"] == operation}):
            table = {
                r["size"]: r["median"] for r in reference_rows if r["operation"] == operation and r["device"] == device
            }
            series.append((device, "--", table, " (recorded)"))
        colors = {}
        for device, style, table, suffix in series:
            if not table:
                continue
            color = colors.setdefault(device, _COLORS[len(colors) % len(_COLORS)])
            sizes = sorted(table)
            times.plot(sizes, [table[s] for s in sizes], style, marker="o", markersize=3, color=color,
                       label=device + suffix)
        cpu_tables = [(table, suffix) for device, _, table, suffix in series if device == "cpu" and table]
        for device, style, table, suffix in series:
            if not device.startswith("cuda") or not table:
                continue
            cpu = next((c for c, s in cpu_tables if s == suffix), None)
            if cpu is None:
                continue
            sizes = sorted(set(cpu) & set(table))
            speedups.plot(sizes, [cpu[s] / table[s] for s in sizes], style, marker="o", markersize=3,
                          color=colors[device], label=device + suffix)
            size = crossover(cpu, table)
            if size is not None:
                speedups.axvline(size, color=colors[device], linestyle=":", linewidth=1)
                speedups.annotate(f"GPU wins from {size}", (size, 1), fontsize=7, color=colors[device],
                                  xytext=(3, 6), textcoords="offset points")
        all_sizes = sorted({size for _, _, table, _ in series for size in table})
        for axes_ in (times, speedups):
            axes_.set_xscale("log")
            axes_.set_yscale("log")
            if all_sizes:
                axes_.set_xticks(all_sizes, [_size_label(size) for size in all_sizes], fontsize=7)
                axes_.xaxis.set_minor_locator(NullLocator())
        times.set_title(operation, fontsize=10)
        times.set_ylabel("seconds per call" if column == 0 else "")
        times.legend(fontsize=7)
        speedups.axhline(1.0, color="#6b7280", linewidth=0.8)
        speedups.set_xlabel(SIZE_MEANING[operation], fontsize=7)
        speedups.set_ylabel("GPU speed-up (CPU time / GPU time)" if column == 0 else "", fontsize=8)
        speedups.set_xlim(times.get_xlim())
        if not speedups.lines[1:]:
            speedups.text(0.5, 0.5, "no GPU results", transform=speedups.transAxes, ha="center", color="#6b7280")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


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
        self.plot = w.Image(format="png", layout=w.Layout(width="100%", max_width="1100px"))
        self.table = w.HTML()
        self.box = w.VBox([self.messages, self.plot, self.table], layout=w.Layout(width="100%"))
        self.box.add_class("minitorch-device-timer")

    def draw(self) -> None:
        timer = self.timer
        import html

        self.messages.value = "<br>".join(html.escape(message) for message in timer.messages())
        if timer.measurements or timer.reference is not None:
            self.plot.value = timer.figure_png()
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
    parser.add_argument("--seconds", type=float, default=0.2, help="time spent repeating each point")
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

