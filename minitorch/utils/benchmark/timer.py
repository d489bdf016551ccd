"""``Timer``: time a statement the way ``torch.utils.benchmark.Timer`` does.

Timing small pieces of code is easy to get wrong. The Timer (built on Python's ``timeit``):

1. runs ``setup`` once and ``stmt`` many times, in a namespace of its own (``globals``, plus
   ``torch`` as a convenience: here, minitorch);
2. warms up first (the first calls of anything are slow: caches, lazy imports);
3. pins the thread count (``num_threads``, default 1) so that two libraries are compared fairly;
4. waits for a GPU to finish (``timer`` synchronises the accelerator before reading the clock);
5. measures in *blocks*: ``blocked_autorange`` grows the block size until the clock's own cost
   is under 0.01% of a block, then repeats blocks for at least ``min_run_time`` seconds, giving
   many replicates whose median and spread ``Measurement`` reports.

    >>> from minitorch.utils.benchmark import Timer
    >>> timer = Timer("x * y", setup="x = torch.ones(64); y = torch.ones(64)", label="mul")
    >>> measurement = timer.blocked_autorange(min_run_time=0.05)
    >>> measurement.median > 0, measurement.number_per_run >= 1
    (True, True)
"""

from __future__ import annotations

import contextlib
import textwrap
import timeit

import numpy as np

from ... import _threads, accelerator
from .measurement import Measurement, TaskSpec

__all__ = ["Timer", "timer", "Language"]


def timer() -> float:
    """The clock: ``timeit.default_timer`` after waiting for the accelerator, if there is one."""
    if accelerator.is_available():
        accelerator.synchronize()
    return timeit.default_timer()


class Language:
    """Only Python statements are timed here (PyTorch also compiles C++ snippets)."""

    PYTHON = 0


@contextlib.contextmanager
def _threads_set_to(number: int):
    before = _threads.get_num_threads()
    try:
        _threads.set_num_threads(number)
        yield
    finally:
        _threads.set_num_threads(before)


class Timer:
    """``Timer(stmt, setup, timer, globals, label, sub_label, description, env, num_threads)``."""

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "", timer=timer,
                 globals: dict | None = None, label: str | None = None, sub_label: str | None = None,
                 description: str | None = None, env: str | None = None, num_threads: int = 1,
                 language="python") -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`: minitorch times Python statements only.")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply be moved to `setup`."
            )
        import minitorch  # the public face sits above utils: imported when first needed

        self._globals = dict(globals or {})  # a copy: timeit adds __builtins__ to it
        self._globals.setdefault("torch", minitorch)
        # Code written in a function's body is indented: remove that, and the leading newline of a block string.
        stmt, setup = (textwrap.dedent(code) for code in (stmt, setup))
        stmt = (stmt[1:] if stmt.startswith("\n") else stmt).rstrip()
        setup = (setup[1:] if setup.startswith("\n") else setup).rstrip()
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                   sub_label=sub_label, description=description, env=env, num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)  # no real statement takes less than a nanosecond

    def timeit(self, number: int = 1000000) -> Measurement:
        """Run ``stmt`` ``number`` times (after a warm-up of a hundredth of that): one block, one measurement."""
        with _threads_set_to(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return Measurement(number_per_run=number, raw_times=[self._timeit(number=number)],
                               task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number: int, stop, min_run_time: float, max_run_time: float | None = None,
                          callback=None) -> list[float]:
        """Time blocks of ``number`` runs until ``min_run_time`` has passed and ``stop(times)`` agrees."""
        total, times, can_stop = 0.0, [], False
        with _threads_set_to(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The smallest power of ten of runs whose block dwarfs the clock's own cost (also the warm-up)."""
        with _threads_set_to(self._task_spec.num_threads):
            overhead = float(np.median([self._timeit(0) for _ in range(5)]))
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> Measurement:
        """Blocks of a fitting size, repeated for at least ``min_run_time`` seconds (the usual way to time)."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time, callback=callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0,
                           callback=None) -> Measurement:
        """Blocks until the spread (IQR / median) is under ``threshold``, or ``max_run_time`` has passed."""
        number = self._estimate_block_size(min_run_time=0.05)

        def confident(times: list[float]) -> bool:
            if len(times) <= 3:
                return False
            measurement = Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)
            return measurement.meets_confidence(threshold=threshold)

        times = self._measurement_loop(number, confident, min_run_time, max_run_time, callback=callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)
