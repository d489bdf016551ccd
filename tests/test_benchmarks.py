"""``benchmarks/run.py`` runs end to end and reports real numbers.

This checks the benchmark works, never how fast anything is: speed depends on the
machine, and the benchmark's own table says whether the targets are met.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

from tests.support import in_ci

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "benchmarks" / "run.py"
TIME = re.compile(r"^(\d+(?:\.\d+)?) (s|ms|µs|ns)$")


def _run(*arguments, timeout=300):
    # --keep-blas-env: tests leave OPENBLAS_* settings alone (the benchmark would otherwise restart without them)
    return subprocess.run(
        [sys.executable, str(RUN), "--keep-blas-env", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _seconds(cell: str) -> float:
    match = TIME.match(cell)
    assert match, f"not a time: {cell!r}"
    return float(match.group(1)) * {"s": 1, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}[match.group(2)]


def test_quick_run_prints_a_table_and_json_with_positive_times(tmp_path):
    results_file = tmp_path / "results.json"
    completed = _run("--quick", "--only", "small_ops", "--rounds", "2", "--json", str(results_file))
    assert completed.returncode == 0, completed.stderr
    output = completed.stdout
    assert "Machine:" in output and "Date:" in output and "Versions:" in output

    header = next(line for line in output.splitlines() if line.startswith("| Workload"))
    assert [cell.strip() for cell in header.strip("|").split("|")][:4] == ["Workload", "minitorch", "PyTorch", "NumPy"]
    rows = [line for line in output.splitlines() if line.startswith("| small_ops ")]
    assert len(rows) == 1, output
    cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
    torch_expected = in_ci() or importlib.util.find_spec("torch") is not None
    assert _seconds(cells[1]) > 0  # minitorch
    assert _seconds(cells[3]) > 0  # NumPy
    if torch_expected:
        assert _seconds(cells[2]) > 0
        assert float(cells[4].rstrip("x")) > 0
    assert float(cells[5].rstrip("x")) > 0
    assert cells[7] in ("pass", "fail")

    results = json.loads(results_file.read_text())
    assert results["machine"]["cores"] >= 1
    (workload,) = results["workloads"]
    assert workload["name"] == "small_ops"
    frameworks = ["minitorch", "numpy"] + (["pytorch"] if torch_expected else [])
    for framework in frameworks:
        timing = workload["seconds_per_unit"][framework]
        assert timing["median"] > 0 and len(timing["rounds"]) == 2
    assert workload["ratios"]["numpy"]["median"] > 0
    assert workload["mismatches"] == {} and workload["unavailable"] == {}


def test_the_adamw_step_agrees_across_the_three_frameworks(tmp_path):
    """minitorch's array update, PyTorch's AdamW and the hand-written NumPy one end their step with the same
    parameters (the runner's check: a mismatch is reported instead of a time)."""
    results_file = tmp_path / "results.json"
    completed = _run("--quick", "--only", "adamw_step", "--rounds", "1", "--json", str(results_file))
    assert completed.returncode == 0, completed.stderr
    (workload,) = json.loads(results_file.read_text())["workloads"]
    assert workload["mismatches"] == {} and workload["unavailable"] == {}
    expected = {"minitorch", "numpy"} | ({"pytorch"} if in_ci() or importlib.util.find_spec("torch") else set())
    assert expected <= set(workload["seconds_per_unit"])


def test_unknown_workload_is_refused_with_the_names_that_exist():
    completed = _run("--only", "no_such_workload", timeout=60)
    assert completed.returncode == 2
    assert "small_ops" in completed.stderr and "matmul_1024" in completed.stderr


def test_chapter_times_runs_a_chapter_and_writes_its_time(tmp_path):
    """``benchmarks/chapter_times.py`` (the measurement behind the course's 30-second promise) works end to end."""
    output = tmp_path / "times.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "chapter_times.py"), "00_welcome", "--edition", "release",
         "--json", str(output)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    runs = json.loads(output.read_text())["runs"]
    assert [(run["chapter"], run["edition"]) for run in runs] == [("00_welcome", "release")]
    assert runs[0]["seconds"] > 0 and "1 runs" in result.stdout
