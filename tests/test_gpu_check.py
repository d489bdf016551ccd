"""``make gpu-check`` (``tools/gpu_check.py``): its pieces run, on the CuPy stand-in, and without a GPU it refuses.

The dry run is the real script with the stand-in and the recording NCCL in place of CuPy: the GPU API tests, the
one-GPU NCCL DDP job, the DeviceTimer sweep saved where chapter 3 reads it (here a temporary folder) and a slice
of the op table. What it cannot show is the time the real check takes on a GPU.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from widgets.timing import DeviceTimer, load

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def gpu_check():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "tools" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_check"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("gpu_check", None)


def test_without_a_gpu_it_says_it_needs_one_and_fails(gpu_check, monkeypatch, capsys):
    monkeypatch.setattr(gpu_check.shutil, "which", lambda name: None)  # no NVIDIA driver, whatever this machine has
    assert gpu_check.main([]) == 2
    assert gpu_check.main(["--preflight"]) == 2
    error = capsys.readouterr().err
    assert "make gpu-check needs a machine with an NVIDIA GPU: nvidia-smi is not installed" in error
    assert "make test-gpu-standin" in error


def test_the_dry_run_runs_every_piece_on_the_stand_in(gpu_check, tmp_path, capsys):
    assert gpu_check.main(["--dry-run", "--out", str(tmp_path)]) == 0
    table = capsys.readouterr().out
    for step in ("preflight", "cuda api", "nccl ddp", "timer sweep", "op table"):
        assert any(line.startswith(step) and " PASS " in line for line in table.splitlines()), (step, table)
    assert "every step passed" in table and "DDP steps equal plain training" in table
    saved = tmp_path / gpu_check.TIMINGS_NAME
    recorded = load(saved)  # what chapter 3's DeviceTimer(reference="gpu_timings.json") reads
    assert DeviceTimer(operations=["matmul"], reference=recorded).reference is recorded
    devices = {m["device"] for m in json.loads(saved.read_text())["measurements"]}
    assert "cpu" in devices and "cuda:0" in devices
    assert gpu_check.CHAPTER_3[0] == ROOT / "notebooks" / "source" / "03_devices"  # where the real run saves it
    assert (gpu_check.CHAPTER_3[0] / "03_devices.ipynb").exists()


def test_the_summary_marks_a_failed_step(gpu_check):
    steps = [gpu_check.Step("cuda api", True, 1.0, "3 passed"), gpu_check.Step("op table", False, 2.0, "1 failed")]
    table = gpu_check.summary(steps).splitlines()
    assert table[1].split()[:3] == ["cuda", "api", "PASS"] and table[2].split()[:3] == ["op", "table", "FAIL"]
    assert table[-1].endswith("SOME STEPS FAILED")


def test_a_step_past_its_limit_fails_and_says_how_far_it_got(gpu_check):
    slow = [sys.executable, "-c", "import time; print('....  [ 42%]', flush=True); time.sleep(30)"]
    step = gpu_check._run("op table", slow, limit=1.0)
    assert not step.passed and step.detail == "stopped at its limit of 1 s; pytest had reached 42% of its tests"
