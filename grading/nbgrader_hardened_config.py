"""Hardened nbgrader settings, for instructors who autograde minitorch chapters with ``nbgrader autograde``.

Load it from the course's ``nbgrader_config.py`` (``notebooks/nbgrader_config.py`` does)::

    c = get_config()
    load_subconfig("/path/to/grading/nbgrader_hardened_config.py")

What it changes, and why:

* ``Execute.timeout = 60``: a cell that runs longer (an infinite loop) is interrupted and fails,
  instead of nbgrader's kernel hanging the whole batch; ``interrupt_on_timeout`` lets the rest of the
  notebook still run. A cell that checks an exercise registered with more time for its graded call
  (``seconds=``: chapter 15 trains its model in the check), or calls its function, gets that time on top
  (``Execute.timeout_func``, :mod:`grading.nbgrader_time`), as ``minitorch-grade`` gives the call. nbclient
  then no longer reads ``Execute.timeout``: a course that wants another time per cell sets
  ``c.Execute.timeout_func = grading.nbgrader_time.cell_timeouts(seconds)``.
* ``OverwriteCells.add_missing_cells = True``: a deleted test cell is put back from the gradebook and
  run, so its part is graded as usual (``minitorch-grade`` instead scores that part 0 with a warning);
  edited test cells are already overwritten with the source version.
* ``IgnorePattern``: nbgrader fails a test cell that wrote *anything* on stderr, so a harmless library
  warning costs full marks. Stderr output that is a warning is dropped before scoring. (The check
  helpers in :mod:`grading.checks` also silence warnings while they run.)
* ``LimitOutput``: at most 1000 lines of output and 100 lines of traceback per cell are kept.
* The kernel's history goes to memory, not to a shared file.

Withheld pieces: the hidden test cells call ``check_hidden``, which runs every case with the exercise's
withheld pieces withheld exactly as ``minitorch-grade`` does (``grading/withhold.py``; README "Withheld
pieces"): an answer that reaches minitorch's own piece, a re-executed copy of it or PyTorch fails its test
cell (``tests/grading/test_withheld_nbgrader.py``). Only the sandbox is missing: PyTorch stays importable
in the kernel (the watch still fails a call that runs it), and the limits below apply.

Autograde where the answer key is installed (a checkout of the repository, or the instructor's part,
``make instructor-dist``, beside the kit): the learner's kit alone (``make learner-dist``) has answers for the
public cases only, so there ``check_hidden`` raises on a hidden case and its cell fails; it never passes one
(``tests/grading/test_learner_dist.py``).

Known limits of the nbgrader path, which ``minitorch-grade`` does not have (use it for anything
that counts):

* the withholding runs in the student's kernel too, whose code can take it apart before the hidden
  cells run (rebind ``grading.withhold``'s functions, or ``grading.checks.run_case``);

* the tests run inside the student's own kernel: a submission can monkeypatch ``numpy.testing``,
  ``np.allclose``, the check helpers or ``AssertionError`` and pass every test cell;
* hidden tests are executed in that kernel too, so the student's code can read their source and the
  hidden inputs (through ``inspect``, ``gc`` or the notebook file), and nbgrader's feedback shows them;
* no sandbox: the code runs as the grading user, with the network, the file system (the gradebook,
  other students' submissions, every non-notebook file of ``source/`` copied next to it), no
  memory or process limit: a fork bomb or a 6 GB allocation hits the grading machine;
* ``LimitOutput`` counts lines, not bytes: one 100 MB line is stored whole in the autograded notebook;
* a crashed kernel (``os._exit``, a segfault) fails the notebook rather than one test cell.
"""

c = get_config()  # noqa: F821 - provided by traitlets when nbgrader loads this file

# Time: a cell that runs longer than this is interrupted and fails; the notebook goes on. A cell that checks a
# long exercise (or calls its function) gets the exercise's own seconds on top.
# (nbclient reads Execute.timeout only without a timeout_func: another time per cell is cell_timeouts(seconds).)
from grading.nbgrader_time import CELL_SECONDS, cell_timeouts  # noqa: E402

c.Execute.timeout = CELL_SECONDS
c.Execute.timeout_func = cell_timeouts(CELL_SECONDS)
c.Execute.interrupt_on_timeout = True
c.Execute.execute_retries = 0
c.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:"]

# Deleted test cells come back and run; edited ones are overwritten from the gradebook.
c.OverwriteCells.add_missing_cells = True

# Warnings on stderr cost nothing: nbgrader fails a test cell with any stderr output.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"Warning\b|warnings\.warn\("

# Output kept per cell.
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100

# Instructor-only files never go into the learner's edition.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "*.hidden.*", "gradebook.db"]
