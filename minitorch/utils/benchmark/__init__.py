"""``minitorch.utils.benchmark``: time code the way ``torch.utils.benchmark`` does.

* ``Timer(stmt, setup, globals=..., label=..., sub_label=..., description=..., num_threads=1)``:
  ``timeit(number)``, ``blocked_autorange(min_run_time=0.2)``, ``adaptive_autorange(threshold=0.1)``
  (``timer.py``);
* ``Measurement``: the times of the blocks and their robust statistics (median, IQR, significant
  figures), printed as PyTorch prints them (``measurement.py``);
* ``Compare(measurements).print()``: a table of many measurements (``compare.py``).

PyTorch's benchmark recipe runs unchanged on minitorch, and prints in the same layout.
"""

from .compare import Colorize, Compare
from .measurement import Measurement, TaskSpec, select_unit, trim_sigfig, unit_to_english
from .timer import Language, Timer, timer

__all__ = [
    "Timer", "timer", "Language", "Measurement", "TaskSpec", "Compare", "Colorize", "select_unit", "trim_sigfig",
    "unit_to_english",
]
