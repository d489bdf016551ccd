"""A rank that fails ends the job quickly, with an error naming it, and leaves no process behind.

Each case starts a real job whose rank 1 misbehaves (scripts/faults.py): it raises, its script
ends early, it never joins, or it hangs. The other ranks wait in a collective with a 3-second
timeout. Checked: the job ends (well within the test's own timeout: no hang), with a non-zero
exit code; the launcher's last word names rank 1 (or the error it caused); the other ranks' own
errors name it; and no process of the job is alive afterwards.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from tests.distributed.launch import SCRIPTS, _environment, leftover_processes, mpiexec_path, run_launcher

CASES = {
    # mode: (ranks, what the launcher's report must say, what another rank's own error must say); regular
    # expressions. When rank 1 raises, the launcher may read its error before its exit record lands (then it
    # says "rank 1 failed: ..."), and either other rank may be the one that reports before the job is stopped.
    "raise": (3, r"rank 1 (\(local rank 1\) )?(failed( with exit code 1)?|was killed by signal \w+): "
              r"ValueError: rank 1 cannot read its batch",
              r"rank 1 failed, so rank [02] stops waiting in all_reduce"),
    "exit": (2, re.escape("rank 1 exited (its script ended) before joining all_reduce (collective #2"),
             re.escape("rank 1 exited (its script ended)")),
    "never_joins": (2, re.escape("1/2 ranks joined; missing: rank 1 (this is rank 0)"), re.escape("missing: rank 1")),
    "hangs": (2, re.escape("rank 1 did not answer (busy outside any collective, stuck, or gone)"),
              re.escape("Timed out after 3.0 seconds: rank 0 waited in all_reduce")),
}


@pytest.mark.parametrize("mode", list(CASES))
def test_a_failing_rank_ends_the_job_with_its_name(mode, tmp_path):
    ranks, report, other_rank_says = CASES[mode]
    marker = str(tmp_path)
    start = time.monotonic()
    result = run_launcher(ranks, "faults.py", mode, marker, timeout=90)
    elapsed = time.monotonic() - start
    assert result.returncode != 0
    assert "minitorch.distributed.run: " in result.stderr, result.stderr
    launcher_report = result.stderr[result.stderr.rindex("minitorch.distributed.run: "):]
    assert re.search(report, launcher_report), result.stderr
    assert re.search(other_rank_says, result.stderr), result.stderr
    assert elapsed < 60, f"the job took {elapsed:.0f} s to end"
    assert leftover_processes(marker) == []


def test_without_the_launcher_the_other_ranks_stop_naming_the_failed_one(tmp_path):
    """Plain ``mpiexec``: no run folder, no launcher; the failure notice alone stops the others."""
    marker = str(tmp_path)
    command = [mpiexec_path(), "-n", "2", sys.executable, str(SCRIPTS / "faults.py"), "raise", marker]
    result = subprocess.run(command, capture_output=True, text=True, timeout=90, env=_environment())
    assert result.returncode != 0
    assert "minitorch.distributed: rank 1 failed: ValueError: rank 1 cannot read its batch" in result.stderr
    assert "rank 1 failed, so rank 0 stops waiting in all_reduce" in result.stderr
    assert leftover_processes(marker) == []


def test_an_exception_before_init_process_group_is_named_with_its_error(tmp_path):
    marker = str(tmp_path)
    result = run_launcher(2, "early_or_forever.py", "early", marker, timeout=90)
    assert result.returncode == 1
    assert result.stderr.rstrip().endswith(
        "minitorch.distributed.run: rank 1 (local rank 1) failed with exit code 1: "
        "FileNotFoundError: rank 1 cannot find data/train.bin"), result.stderr
    assert "without a Python exception" not in result.stderr
    traceback_text = result.stderr[result.stderr.index("Traceback"):]
    assert "runpy" not in traceback_text and "_rank_main" not in traceback_text  # it starts in the script
    assert leftover_processes(marker) == []


def test_killing_the_launcher_with_sigkill_leaves_no_process_of_the_job(tmp_path):
    marker = str(tmp_path)
    command = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", "2",
               str(SCRIPTS / "early_or_forever.py"), "forever", marker]
    launcher = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_environment())
    deadline = time.monotonic() + 90
    while len(list(tmp_path.glob("rank*.joined"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(list(tmp_path.glob("rank*.joined"))) == 2, "the ranks did not start"
    assert len(leftover_processes(marker)) >= 4  # mpiexec, its proxy, two wrappers and two scripts
    launcher.kill()  # SIGKILL: the launcher cannot clean anything up
    launcher.wait()
    deadline = time.monotonic() + 10
    while leftover_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert leftover_processes(marker) == []
