"""The device timer: numbers come from the clock, crossovers are found, files round-trip."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.widgets.support import pictures

ROOT = Path(__file__).resolve().parents[2]


def test_every_number_is_read_from_the_clock(monkeypatch):
    from widgets import timing

    ticks = iter(range(10_000))
    monkeypatch.setattr(timing, "_clock", lambda: next(ticks) * 0.001)  # each reading 1 ms after the last
    # min_run_time 0: the Timer stops after one block of one call (the first block already lasts longer)
    result = timing.measure("elementwise", 100, "cpu", seconds=0.0)
    assert result.samples == pytest.approx([0.001]) and result.calls_per_sample == 1  # consecutive readings
    assert result.median == pytest.approx(0.001) and result.first_call == pytest.approx(0.001)
    assert result.transfer == 0.0  # the CPU has nothing to copy
    assert result.flops == 500 and result.gflops == pytest.approx(500 / 0.001 / 1e9)


def test_the_numbers_are_the_benchmark_timers(monkeypatch):
    """One ``Timer(...).blocked_autorange`` per size and device; its median and blocks are what is reported."""
    import widgets
    from minitorch.utils import benchmark
    from widgets import timing

    made = []

    class Spy(benchmark.Timer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.kwargs, self.results = kwargs, []
            made.append(self)

        def blocked_autorange(self, *args, **kwargs):
            self.results.append((kwargs, super().blocked_autorange(*args, **kwargs)))
            return self.results[-1][1]

    monkeypatch.setattr(timing, "Timer", Spy)
    timer = widgets.DeviceTimer(["elementwise"], sizes={"elementwise": [100, 10_000]}, devices=["cpu"],
                                seconds=0.01).run(progress=False)
    assert [(spy.kwargs["sub_label"], spy.kwargs["description"]) for spy in made] == [
        ("n=100", "cpu"), ("n=10000", "cpu")
    ]
    # the machine's threads, not the Timer's default of one (that would handicap the CPU against a GPU)
    assert all(spy.kwargs["num_threads"] == timing.minitorch.get_num_threads() for spy in made)
    for spy, m in zip(made, timer.measurements):
        (kwargs, measured), = spy.results
        assert kwargs == {"min_run_time": 0.01}
        assert m.median == measured.median and m.samples == list(measured.times)
        assert m.calls_per_sample == measured.number_per_run and len(m.samples) == len(measured.raw_times)


def test_the_clock_waits_for_the_device_it_times(monkeypatch):
    from widgets import timing

    events = []
    monkeypatch.setattr(timing, "_synchronize", lambda device: events.append(("wait", device)))
    monkeypatch.setattr(timing, "_clock", lambda: events.append(("read",)) or float(len(events)))
    clock = timing._device_clock("cuda:1")
    clock()
    assert events == [("wait", "cuda:1"), ("read",)]  # the waiting happens before the reading, inside the timing


def test_on_a_gpu_every_clock_reading_waits_for_the_device(monkeypatch):
    """On the CuPy stand-in (tests/gpu_standin): the copy is timed, and no clock read runs ahead of the device."""
    from tests.gpu_standin import counts, installed
    from widgets import timing

    waits_before_each_read = []

    def clock():
        waits_before_each_read.append(counts.synchronizations)
        return len(waits_before_each_read) * 0.001

    monkeypatch.setattr(timing, "_clock", clock)
    with installed():
        counts.reset()
        result = timing.measure("elementwise", 1000, "cuda:0", seconds=0.0)
        copies = counts.host_to_device
    assert result.device == "cuda:0" and result.transfer == pytest.approx(0.001) and copies >= 2
    assert result.first_call == pytest.approx(0.001) and result.samples == pytest.approx([0.001])
    # each reading follows a synchronisation of its own: the device's work is inside every timed interval
    assert all(later > earlier for earlier, later in zip(waits_before_each_read, waits_before_each_read[1:]))
    assert waits_before_each_read[0] >= 1


def test_crossover_is_the_size_from_which_the_gpu_always_wins():
    from widgets.timing import crossover

    cpu = {10: 1.0, 100: 2.0, 1000: 20.0, 10000: 200.0}
    assert crossover(cpu, {10: 5.0, 100: 5.0, 1000: 6.0, 10000: 7.0}) == 1000
    assert crossover(cpu, {10: 0.5, 100: 5.0, 1000: 6.0, 10000: 7.0}) == 1000  # an early fluke win is not it
    assert crossover(cpu, {10: 5.0, 100: 5.0, 1000: 60.0, 10000: 700.0}) is None


def test_sweep_without_gpu_says_so_and_draws_cpu_curves():
    import widgets

    timer = widgets.DeviceTimer(["elementwise", "matmul"], sizes={"elementwise": [100, 1000], "matmul": [8, 16]},
                                devices=["cpu"], seconds=0.01)
    timer.run(progress=False)
    assert [(m.operation, m.size) for m in timer.measurements] == [
        ("elementwise", 100), ("elementwise", 1000), ("matmul", 8), ("matmul", 16)
    ]
    assert timer.messages()[0].startswith("No GPU here")
    assert "python -m widgets.timing --save" in timer.messages()[1]  # how to record and overlay a GPU sweep
    timer.widget  # noqa: B018
    parts = timer._widget
    svg = parts.plot.value
    assert svg.startswith("<svg") and 'width="100%"' in svg
    # only what was measured: the times of the two operations, no speed-up panels, no "no GPU results"
    assert "speed-up" not in svg and "no GPU results" not in svg and "cuda" not in svg
    assert "cpu (here)" in svg and "blocks" in svg
    assert re.search(r">matmul</td><td[^>]*>cpu</td><td[^>]*>16</td>", parts.table.value)
    assert "GFLOP/s" in parts.table.value and "middle half of the blocks" in parts.table.value
    matmul = [m for m in timer.measurements if m.operation == "matmul"][-1]
    low, high = matmul.quartiles
    assert low <= matmul.median <= high
    assert f">{len(matmul.samples)} x {matmul.calls_per_sample:,}</td>" in parts.table.value
    bundle = timer._repr_mimebundle_()
    assert "GFLOP/s" in bundle["text/html"] and pictures(bundle["text/html"])
    assert all("<svg" in svg for svg in pictures(bundle["text/html"]))


def test_an_interrupted_sweep_keeps_what_it_measured(monkeypatch):
    import widgets
    from widgets import timing

    real = timing.measure
    calls = []

    def interrupted_on_the_third(*args, **kwargs):
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(timing, "measure", interrupted_on_the_third)
    timer = widgets.DeviceTimer(["elementwise"], sizes={"elementwise": [10, 100, 1000, 10000]}, devices=["cpu"],
                                seconds=0.0)
    timer.run(progress=False)
    assert timer.interrupted and len(timer.measurements) == 2
    assert any("interrupted after 2 measurements" in message for message in timer.messages())


def test_an_operation_that_fails_is_reported_not_raised(monkeypatch):
    import widgets
    from widgets import timing

    def broken(size, device):
        raise RuntimeError("conv2d is not implemented")

    monkeypatch.setitem(timing.OPERATIONS, "conv2d", broken)
    timer = widgets.DeviceTimer(["conv2d"], sizes={"conv2d": [4, 8]}, devices=["cpu"], seconds=0.0).run(progress=False)
    assert timer.measurements == []
    assert "conv2d on cpu did not run: RuntimeError: conv2d is not implemented" in timer.messages()


def test_command_line_records_a_file_that_the_timer_overlays(tmp_path):
    import widgets

    path = tmp_path / "timings.json"
    completed = subprocess.run(
        [sys.executable, "-m", "widgets.timing", "--save", str(path), "--operations", "elementwise",
         "--sizes", "1000", "100000", "--seconds", "0.01"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    data = json.loads(path.read_text())
    assert data["format"] == "minitorch-device-timings" and data["devices"]["cpu"]
    assert data["versions"]["numpy"] and data["date"][:2] == "20"
    assert [(m["operation"], m["device"], m["size"]) for m in data["measurements"]] == [
        ("elementwise", "cpu", 1000), ("elementwise", "cpu", 100000)
    ]
    assert all(m["median"] > 0 and m["samples"] and m["calls_per_sample"] >= 1 for m in data["measurements"])

    # A stand-in for a file recorded on a GPU machine: the same rows again, relabelled cuda:0 with the large
    # size ten times faster (test data for the overlay and the crossover, not a measurement).
    gpu_rows = [dict(row, device="cuda:0", median=row["median"] * (5.0 if row["size"] == 1000 else 0.1))
                for row in data["measurements"]]
    data["measurements"] += gpu_rows
    data["devices"]["cuda:0"] = "a GPU (stand-in)"
    path.write_text(json.dumps(data))
    timer = widgets.DeviceTimer(["elementwise"], sizes={"elementwise": [1000]}, devices=["cpu"], reference=path,
                                seconds=0.0)
    messages = timer.messages()
    assert any("Dashed lines: results recorded on" in m and "a GPU (stand-in)" in m for m in messages)
    assert "There, elementwise on cuda:0 beats the CPU from size 100000 on." in messages
    assert timer.figure_png()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = timer.figure_svg()
    # the recorded curves are named after the machine that measured them; the speed-up row appears
    assert f"recorded on {data['host']}" in svg and "speed-up" in svg


def test_a_file_that_is_not_a_timings_file_is_refused(tmp_path):
    from widgets.timing import load

    path = tmp_path / "other.json"
    path.write_text("{}")
    with pytest.raises(ValueError, match="not a minitorch timings file"):
        load(path)
