"""Doing extra work within a share of someone else's time: the gradient monitor's throttle.

A monitor that watches training must not slow it down much. ``TimeBudget`` counts the
*training time* (the time from one step to the next, less the monitor's own work in between, and
pauses left out: a gap much longer than a usual step is a learner reading, not training) and the
seconds spent on the monitor's own work, in named accounts that may each use a share of the
budget, so that one slow drawing never stops the measuring. The monitor's work over the training
time is then exactly the slowdown it caused: the loop took ``training + spent`` instead of ``training``.

    >>> ticks = iter([0.0, 1.0, 2.0])
    >>> budget = TimeBudget(0.1, {"measuring": 0.5, "showing": 0.5}, clock=lambda: next(ticks))
    >>> budget.step(); budget.step(); budget.step()   # three steps, one second apart
    >>> budget.training_time
    2.0
    >>> budget.affordable("measuring", 0.05), budget.affordable("measuring", 0.2)   # 5% of 2 s = 0.1 s
    (True, False)

``EvenSteps`` decides which steps to keep so that a run of any length is sampled evenly: every
``stride``-th step from the first, and when more than ``capacity`` are kept, the stride doubles
and every other kept step is dropped (the kept steps stay evenly spaced, the first stays).

    >>> steps = EvenSteps(capacity=4)
    >>> for step in range(1, 11):
    ...     if steps.wants(step):
    ...         dropped = steps.keep(step)
    >>> steps.kept, steps.stride
    ([1, 5, 9], 4)
"""

from __future__ import annotations

import time

__all__ = ["TimeBudget", "EvenSteps"]


class TimeBudget:
    """At most ``share`` of the training time for the caller's own work, split into ``accounts``.

    ``accounts``: ``{name: part of the budget}`` (an account with part 0 records work done outside
    the training time, which ``overhead`` leaves out); ``share=None`` means no limit. ``costs`` holds
    the last measured (or first guessed) cost of each kind of work, so a caller can ask whether
    the next one is affordable before doing it.
    """

    def __init__(self, share: float | None, accounts: dict, clock=time.perf_counter, costs: dict | None = None):
        self.share = share
        self.parts = dict(accounts)
        self.spent = {name: 0.0 for name in accounts}
        self.costs = dict(costs or {})
        self.clock = clock
        self.training_time = 0.0
        self._last_step = None
        self._usual_step = None
        self._spent_at_last_step = 0.0

    def step(self) -> None:
        """A training step began: count the time since the previous one, less the caller's own work in it
        (at most five usual steps: a longer gap is a pause)."""
        now = self.clock()
        spent = sum(self.spent.values())
        own_work, self._spent_at_last_step = spent - self._spent_at_last_step, spent
        if self._last_step is not None:
            interval = max(now - self._last_step - own_work, 0.0)
            usual = self._usual_step
            counted = min(interval, 1.0) if usual is None else min(interval, 5 * usual)
            self.training_time += counted
            self._usual_step = counted if usual is None else 0.9 * usual + 0.1 * counted
        self._last_step = now

    def affordable(self, account: str, cost: float) -> bool:
        """Would ``cost`` more seconds keep ``account`` within its part of the budget so far?"""
        if self.share is None:
            return True
        return self.spent[account] + cost <= self.parts[account] * self.share * self.training_time

    def affordable_overall(self, cost: float) -> bool:
        """Would ``cost`` more seconds keep everything spent within the whole budget (other accounts' unused
        parts included)?"""
        if self.share is None:
            return True
        spent = sum(self.spent[name] for name, part in self.parts.items() if part > 0)
        return spent + cost <= self.share * self.training_time

    def over(self, account: str) -> bool:
        """Has ``account`` already spent more than its part?"""
        return not self.affordable(account, 0.0)

    def charge(self, account: str, start: float, kind: str | None = None) -> float:
        """Charge the seconds since ``start`` (read from ``clock``) to ``account``; remember them as ``kind``'s cost."""
        cost = self.clock() - start
        self.spent[account] += cost
        if kind is not None:
            self.costs[kind] = cost
        return cost

    @property
    def overhead(self) -> float:
        """What the accounts with a part of the budget spent, as a share of the training time seen: the
        slowdown of the training loop (``0.04``: the loop took 4% longer than it would have without)."""
        spent = sum(self.spent[name] for name, part in self.parts.items() if part > 0)
        return spent / self.training_time if self.training_time > 0 else 0.0


class EvenSteps:
    """Keep every ``stride``-th step from step 1, at most ``capacity`` of them: the stride doubles when full."""

    def __init__(self, capacity: int, stride: int = 1):
        if capacity < 2:
            raise ValueError(f"capacity must be at least 2, got {capacity}")
        self.capacity, self.stride = capacity, stride
        self.kept: list[int] = []

    def wants(self, step: int) -> bool:
        """Is ``step`` on the grid (1, 1 + stride, 1 + 2 stride, ...)?"""
        return (step - 1) % self.stride == 0

    def keep(self, step: int) -> list[int] | None:
        """Note ``step`` as kept; returns the steps to drop when the stride doubled (``None``: nothing to drop)."""
        self.kept.append(step)
        if len(self.kept) > self.capacity:
            return self.thin()
        return None

    def thin(self) -> list[int]:
        """Double the stride: the steps off the new grid are dropped (and returned)."""
        self.stride *= 2
        dropped = [step for step in self.kept if not self.wants(step)]
        self.kept = [step for step in self.kept if self.wants(step)]
        return dropped

    def at_least(self, stride: int) -> list[int]:
        """Make the stride at least ``stride`` (a power of two); returns the steps dropped."""
        dropped = []
        while self.stride < stride:
            dropped += self.thin()
        return dropped
