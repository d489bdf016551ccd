"""What a benchmark measured: ``Measurement`` (times and their statistics) and ``TaskSpec`` (what was timed).

A ``Measurement`` holds ``raw_times``: each the time of one *block* of ``number_per_run`` runs of
the statement, so ``times`` (per run) is ``raw_times / number_per_run``. Its summary uses robust
statistics, because a shared machine adds noise in bursts: the **median** (not the mean), and the
**interquartile range** ``IQR = p75 - p25`` as the spread; an IQR above 10% of the median earns a
warning. ``significant_figures`` estimates how many digits of the median to trust from the
confidence interval of the middle half of the times::

    CI = max(1.645 * std(middle half) / sqrt(len(middle half)), 25 ns)
    significant figures = floor(log10(median / CI)), clamped to 1..4

The numbers and the printed form follow ``torch.utils.benchmark`` (its statistics run in float32
where PyTorch's do, so the same times print the same), so its tutorial reads the same here.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import textwrap
from typing import Any

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns: no timer resolves better
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def _log10_float32(value: float) -> float:
    # PyTorch computes these logarithms on a float32 tensor: the same rounding decides the same units.
    return float(np.log10(np.float32(value)))


@dataclasses.dataclass(frozen=True, repr=False)
class TaskSpec:
    """What was timed: the statement, its setup, and the labels that group results in ``Compare``."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if self.setup == "pass" or not self.setup:
            return ""
        return f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup else f"setup: {self.setup}"

    def summarize(self) -> str:
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{section}\n" if "\n" in section else section for section in sections if section)


_TASKSPEC_FIELDS = tuple(field.name for field in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(repr=False)
class Measurement:
    """The times of ``len(raw_times)`` blocks of ``number_per_run`` runs each, and their statistics."""

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict | None = None  # the caller's own payload

    def __post_init__(self) -> None:
        self._sorted_times: tuple[float, ...] = ()
        self._warnings: tuple[str, ...] = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        if name in _TASKSPEC_FIELDS:  # m.label, m.num_threads... read through to the task
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self) -> list[float]:
        """Seconds per run, one per block."""
        return [block / self.number_per_run for block in self.raw_times]

    @property
    def median(self) -> float:
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """How many digits of the median the spread of the middle half of the times supports (1 to 4)."""
        self._lazy_init()
        count = len(self._sorted_times)
        middle = self._sorted_times[count // 4 : math.ceil(np.float32(3 * count / 4))]
        spread = float(np.float32(np.std(np.asarray(middle, dtype=np.float32))))
        interval = max(1.645 * spread / float(np.sqrt(np.float32(len(middle)))), _MIN_CONFIDENCE_INTERVAL)
        digits = math.floor(_log10_float32(self._median / interval))
        return min(max(digits, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Is the spread (IQR) below ``threshold`` of the median?"""
        return self.iqr / self.median < threshold

    def _lazy_init(self) -> None:
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        times = np.asarray(self._sorted_times, dtype=np.float64)
        self._median = float(np.quantile(times, 0.5))
        self._mean = float(times.mean())
        self._p25, self._p75 = float(np.quantile(times, 0.25)), float(np.quantile(times, 0.75))

        def warn(message: str) -> None:
            relative = self.iqr / self.median * 100
            self._warnings += (
                f"  WARNING: Interquartile range is {relative:.1f}% of the median measurement.\n           {message}",
            )

        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            warn("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            warn("This could indicate system fluctuation.")

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str:
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        self._lazy_init()
        count = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [
            f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>",
            self.task_spec.summarize(),
            f"  {'Median: ' if count > 1 else ''}{self._median / scale:.2f} {unit}",
        ]
        if count >= 4:
            quartiles = f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})"
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} {quartiles}")
        lines.append(
            f"  {count} measurement{'s' if count > 1 else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if count > 1 else ','} {self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        )
        lines += self._warnings
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements) -> list[Measurement]:
        """Replicates of the same task as one measurement (times per run, ``number_per_run=1``)."""
        grouped = collections.defaultdict(list)
        for measurement in measurements:
            grouped[measurement.task_spec].append(measurement)
        return [
            Measurement(number_per_run=1, raw_times=[t for m in group for t in m.times], task_spec=task, metadata=None)
            for task, group in grouped.items()
        ]


def select_unit(seconds: float) -> tuple[str, float]:
    """The unit that puts ``seconds`` between 1 and 1000: ``("us", 1e-6)`` for 5.7e-6."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(_log10_float32(seconds) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(unit: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[unit]


def trim_sigfig(value: float, figures: int) -> float:
    """``value`` with ``figures`` significant figures: ``trim_sigfig(3.14159, 2)`` is ``3.1``."""
    if figures != int(figures):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = math.ceil(_log10_float32(abs(value)))
    scale = 10 ** (magnitude - figures)
    return float(np.round(np.float32(value / scale)) * np.float32(scale))
