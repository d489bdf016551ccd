"""``minitorch.utils.benchmark`` against ``torch.utils.benchmark``: the same times give the same statistics,
the same printed measurement and the same Compare table; the Timer's block sizes and loops are PyTorch's."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch
from minitorch.utils import benchmark
from tests.support import require_torch

torch = require_torch()
from torch.utils import benchmark as torch_benchmark  # noqa: E402 - after the check that PyTorch is there


def _times(seed: int, count: int, scale: float, spread: float) -> list[float]:
    rng = np.random.default_rng(seed)
    return list(scale * (1 + spread * rng.standard_normal(count) ** 2))


def _pair(number, raw_times, **task):
    task = {"stmt": "x * y", "setup": "pass", **task}
    ours = benchmark.Measurement(number, raw_times, benchmark.TaskSpec(**task))
    theirs = torch_benchmark.Measurement(number, raw_times, torch_benchmark.utils.common.TaskSpec(**task))
    return ours, theirs


def _without_address(text: str) -> str:
    return re.sub(r"^<[^>]*>\n", "", text)


CASES = [  # (seed, blocks, seconds per block, relative spread, runs per block)
    (0, 13, 7e-3, 0.02, 1000), (1, 4, 2.5e-5, 0.5, 10), (2, 1, 0.31, 0.0, 1), (3, 40, 3e-8, 0.001, 100000),
    (4, 7, 1.5, 0.2, 1), (5, 100, 4e-4, 0.05, 100), (6, 2, 9e-10, 0.3, 1000000), (7, 25, 6e-2, 0.15, 10),
]


@pytest.mark.parametrize("case", CASES)
def test_the_same_times_give_the_same_statistics_and_print(case):
    seed, blocks, seconds, spread, number = case
    raw = _times(seed, blocks, seconds, spread)
    ours, theirs = _pair(number, raw, label="mul", sub_label="4x4", description="cpu", num_threads=2)
    assert ours.times == theirs.times
    assert ours.median == theirs.median and ours.mean == pytest.approx(theirs.mean, rel=1e-12)
    assert ours.iqr == pytest.approx(theirs.iqr, rel=1e-12, abs=1e-18)
    assert ours.significant_figures == theirs.significant_figures
    assert ours.has_warnings == theirs.has_warnings
    assert _without_address(repr(ours)) == _without_address(repr(theirs))


def test_measurement_prints_multiline_statements_and_setup_as_pytorch():
    raw = _times(11, 6, 1e-3, 0.01)
    ours, theirs = _pair(10, raw, stmt="y = x * 2\ny.sum()", setup="x = torch.ones(3)\nz = 1", sub_label="two lines")
    assert _without_address(repr(ours)) == _without_address(repr(theirs))
    assert benchmark.select_unit(3.2e-5) == torch_benchmark.utils.common.select_unit(3.2e-5)
    for value, figures in ((3.14159, 2), (123456.0, 3), (0.000123456, 1), (9.995, 3)):
        assert benchmark.trim_sigfig(value, figures) == torch_benchmark.utils.common.trim_sigfig(value, figures)


def _results(module, make_measurement):
    results = []
    for threads in (1, 4):
        for row, scale in (("64", 2e-6), ("1024", 7e-4)):
            for column, factor in (("minitorch", 1.0), ("PyTorch", 0.4), ("NumPy", 0.2)):
                seed = hash((threads, row, column)) % 1000
                raw = _times(seed, 9, scale * factor / threads, 0.12 if column == "NumPy" else 0.02)
                results.append(make_measurement(100, raw, label="add", sub_label=row, description=column,
                                                num_threads=threads))
    results.append(make_measurement(1, _times(99, 5, 3e-3, 0.01), label="matmul", sub_label="512",
                                    description="minitorch", num_threads=1))
    return results


@pytest.mark.parametrize("options", [(), ("trim",), ("colorize",), ("colorize", "rowwise"), ("highlight", "trim")])
def test_compare_prints_the_same_table(options):
    pairs = _results(None, lambda *args, **kwargs: _pair(*args, **kwargs))
    ours = benchmark.Compare([mine for mine, _ in pairs])
    theirs = torch_benchmark.Compare([reference for _, reference in pairs])
    for table in (ours, theirs):
        if "trim" in options:
            table.trim_significant_figures()
        if "colorize" in options:
            table.colorize(rowwise="rowwise" in options)
        if "highlight" in options:
            table.highlight_warnings()
    assert str(ours) == str(theirs)
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        benchmark.Compare([1.0])


class _FakeClock:
    """A clock the statement moves: each run takes exactly ``per_run`` seconds; reading the clock costs 50 ns."""

    def __init__(self, per_run: float):
        self.now, self.per_run = 0.0, per_run

    def run(self):
        self.now += self.per_run

    def read(self):
        self.now += 5e-8
        return self.now


@pytest.mark.parametrize("per_run", [3e-7, 2e-5, 4e-3])
def test_timer_chooses_pytorchs_block_size_and_loop(per_run):
    measured = {}
    for name, module in (("minitorch", benchmark), ("torch", torch_benchmark)):
        clock = _FakeClock(per_run)
        timer = module.Timer("clock.run()", globals={"clock": clock}, timer=clock.read, label="fake")
        blocked = timer.blocked_autorange(min_run_time=0.05)
        adaptive = timer.adaptive_autorange(threshold=0.1, max_run_time=0.5)
        single = timer.timeit(number=1000)
        measured[name] = [(m.number_per_run, len(m.raw_times), m.median) for m in (blocked, adaptive, single)]
    for ours, theirs in zip(measured["minitorch"], measured["torch"]):
        assert ours[:2] == theirs[:2]  # the same block size and number of blocks
        assert ours[2] == pytest.approx(theirs[2], rel=1e-9)


def test_timer_pins_the_thread_count_and_offers_minitorch_as_torch():
    seen = []
    before = minitorch.get_num_threads()
    timer = benchmark.Timer("seen.append((torch.get_num_threads(), torch.__name__))", globals={"seen": seen},
                            num_threads=1)
    timer.timeit(number=3)
    assert set(seen) == {(1, "minitorch")} and minitorch.get_num_threads() == before
    assert benchmark.Timer("torch.ones(3) * 2").blocked_autorange(min_run_time=0.01).median > 0
    with pytest.raises(ValueError, match="Currently only a `str` stmt is supported"):
        benchmark.Timer(lambda: None)
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        benchmark.Timer().repeat()


def test_num_threads_as_pytorch():
    before = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(1)
        assert minitorch.get_num_threads() == 1
    finally:
        minitorch.set_num_threads(before)
    for bad in (0, 1.5):
        with pytest.raises(RuntimeError) as ours:
            minitorch.set_num_threads(bad)
        with pytest.raises(RuntimeError) as theirs:
            torch.set_num_threads(bad)
        assert str(ours.value) == str(theirs.value)
