"""Every test of the data loading tests must finish within ``TEST_TIME_LIMIT`` seconds.

The failure tests (a worker that dies, hangs or raises) exist to prove the loader never
hangs; a hang must therefore fail the test, not stall the suite. pytest-timeout is not a
dependency, so a SIGALRM does the job: it raises in the main thread, which interrupts a
blocking wait. As a last resort faulthandler dumps every thread's stack and exits.
"""

from __future__ import annotations

import faulthandler
import signal
import sys

import pytest

# A hang guard, not a speed bound: the workers' benchmark epoch took 14-21 s on a busy 2-core machine.
TEST_TIME_LIMIT = 60


class TimeLimitExceeded(Exception):
    pass


@pytest.fixture(autouse=True)
def time_limit():
    if not hasattr(signal, "SIGALRM"):  # Windows: no alarm; run without a limit
        yield
        return

    def on_alarm(signum, frame):
        raise TimeLimitExceeded(f"the test ran for more than {TEST_TIME_LIMIT} s (a DataLoader hang?)")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TEST_TIME_LIMIT)
    faulthandler.dump_traceback_later(TEST_TIME_LIMIT + 15, exit=True, file=sys.stderr)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

