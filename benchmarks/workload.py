"""What a benchmark workload is: a name, a target, and one set-up function per framework.

A set-up function builds its inputs (outside the timed region) and returns ``step``, a
function of no arguments that does one unit of work (for example one forward+backward
pass) and returns the gradients it computed. The runner times ``steps`` calls of
``step`` in a row; it calls ``step`` once before timing and checks that every framework
computed the same gradients, so a fast but wrong implementation cannot win.

Frameworks are named ``"minitorch"``, ``"pytorch"`` and ``"numpy"`` (hand-written, with
the backward pass derived by hand). A workload need not cover all three.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

FRAMEWORKS = ("minitorch", "pytorch", "numpy")


@dataclass(frozen=True)
class Target:
    """``minitorch`` time at most ``max_ratio`` times the ``baseline`` framework's time."""

    baseline: str
    max_ratio: float

    def describe(self) -> str:
        names = {"pytorch": "PyTorch", "numpy": "NumPy"}
        return f"<= {self.max_ratio:g}x {names.get(self.baseline, self.baseline)}"


@dataclass(frozen=True)
class Workload:
    """One row of the results table.

    ``setups`` maps a framework name to its set-up function (see the module docstring).
    One timed measurement is ``steps`` calls of ``step`` (``quick_steps`` under
    ``--quick``); the table reports the time per ``unit``, where a step is
    ``units_per_step`` units (a step of three small ops is three "op" units).
    ``rtol`` is the tolerance of the cross-framework check of the gradients.
    """

    name: str
    description: str
    setups: dict[str, Callable[[], Callable[[], tuple]]]
    steps: int
    quick_steps: int
    target: Target | None = None
    unit: str = "step"
    units_per_step: int = 1
    rtol: float = 1e-4
