"""Exercise checks for learners and sandboxed batch grading for instructors.

Learners use ``check`` (one report under each exercise; it never raises), ``hint`` (an exercise's
hints, one step at a time) and ``summary`` (the end of a chapter). ``check_hidden`` is for the
instructor's hidden tests only: it decides the grade under nbgrader. The batch grader is
``python -m grading`` (console command ``minitorch-grade``); see :mod:`grading.cli`.
"""

from grading.checks import check, check_hidden, hint, summary
from grading.registry import exercise, randn

__all__ = ["check", "check_hidden", "exercise", "hint", "randn", "summary"]
