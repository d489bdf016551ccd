"""Exercise checks for learners and sandboxed batch grading for instructors.

Learners use three names: ``check`` (one line under each exercise), ``summary`` (the end of a
chapter) and, in instructor notebooks only, ``check_hidden``. The batch grader is
``python -m grading`` (console command ``minitorch-grade``); see :mod:`grading.cli`.
"""

from grading.checks import check, check_hidden, summary
from grading.registry import exercise, randn

__all__ = ["check", "check_hidden", "exercise", "randn", "summary"]
