"""One rank's script, run as ``python script.py args`` would run it (started by ``_rank_wrapper.py``, by path).

One thing is added: an exception that escapes the script before ``init_process_group`` (a bad argument, an
import error, a file not found) is recorded for the launcher with its first line, so the launcher says
``rank 1 failed with exit code 1: FileNotFoundError: ...`` instead of guessing. After ``init_process_group``,
minitorch's watchdog installs its own hook, which records the error and also tells the other ranks.

Like the wrapper, it imports nothing from minitorch (the script does that itself).
"""

import json
import os
import runpy
import sys
import time
import traceback


def _from_the_script(trace):
    """The traceback without this file's and runpy's frames: it starts in the script, as with ``python script.py``."""
    here = os.path.abspath(__file__)
    while trace is not None and (trace.tb_frame.f_code.co_filename == here
                                 or trace.tb_frame.f_globals.get("__name__") == "runpy"):
        trace = trace.tb_next
    return trace


def _record_early_error(kind, error, trace) -> None:
    trace = _from_the_script(trace) or trace
    if isinstance(error, BaseException):
        error.__traceback__ = trace  # Python prints the exception's own traceback, whatever it is given
    sys.__excepthook__(kind, error, trace)  # the traceback, as Python prints it
    if sys.excepthook is not _record_early_error:
        return  # called by the watchdog's own hook, which records the error itself
    run_dir = os.environ.get("MINITORCH_DISTRIBUTED_RUN_DIR")
    if run_dir:
        first_line = "".join(traceback.format_exception_only(kind, error)).strip()
        with open(os.path.join(run_dir, f"rank-{os.environ.get('RANK', '0')}.error"), "a") as file:
            file.write(json.dumps({"time": time.time(), "error": first_line, "secondary": False}) + "\n")


def main(argv: list[str]) -> None:
    sys.excepthook = _record_early_error
    if argv[0] == "-m":  # python -m module args
        sys.argv = [argv[1], *argv[2:]]
        sys.path[0] = os.getcwd()
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        script = argv[0]
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
