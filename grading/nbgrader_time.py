"""How long ``nbgrader autograde`` lets a cell run: ``Execute.timeout_func`` in ``nbgrader_hardened_config.py``.

A cell gets ``CELL_SECONDS`` (60). An exercise whose graded call does long work registers its own ``seconds=``
(chapter 15's ``trained_model`` trains the capstone model in its call; grading/README.md, "Time"), and
``minitorch-grade`` gives that call that much time. nbgrader has no graded calls, only cells, so a cell gets the
exercise's seconds on top of its 60 for each time it names the exercise or calls its function:

* ``check("ch15.trained_model", trained_parameters)`` names it (and ``check_hidden`` in the same cell again);
* ``model = trained_model(train_ids, vocab_size, seed=0)`` calls a function of that short name, which trains
  the same model outside the graded cell;
* ``trained_parameters(...)``, the learner's function the check calls, likewise.

A cell that does none of these keeps 60 s, so an infinite loop still stops there. A course that wants another
time per cell sets ``c.Execute.timeout_func = cell_timeouts(120)`` after loading the hardened config (nbclient
reads ``Execute.timeout`` only where no ``timeout_func`` is set).
"""

from __future__ import annotations

import functools
import pkgutil
import re

CELL_SECONDS = 60


@functools.cache
def _slow_exercises() -> tuple:
    """``(exercise, pattern)`` for every exercise with its own ``seconds``: the pattern finds the cell's mentions."""
    from grading import registry

    try:
        from grading import exercises
    except ImportError:  # the learner's kit has no answer key (nbgrader grades where it is installed)
        return ()
    slow = []
    for chapter in sorted(module.name for module in pkgutil.iter_modules(exercises.__path__)):
        for exercise in registry.chapter_exercises(chapter):
            if exercise.seconds:
                calls = "|".join(re.escape(name) for name in {exercise.function, exercise.name.split(".", 1)[1]})
                pattern = re.compile(rf"{re.escape(exercise.name)}|(?<![\w.])(?:{calls})\s*\(")
                slow.append((exercise, pattern))
    return tuple(slow)


def cell_timeouts(cell_seconds: float = CELL_SECONDS):
    """nbclient's ``timeout_func``: the seconds a notebook cell may run, ``cell_seconds`` plus the long exercises'
    own. (nbclient ignores ``Execute.timeout`` once a ``timeout_func`` is set: a course that wants another time
    per cell passes it here.)"""

    def cell_timeout(cell) -> float:
        source = cell.get("source", "") if cell.get("cell_type", "code") == "code" else ""
        if isinstance(source, list):
            source = "".join(source)
        return cell_seconds + sum(exercise.seconds * len(pattern.findall(source))
                                  for exercise, pattern in _slow_exercises())

    return cell_timeout
