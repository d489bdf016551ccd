"""``make gpu-check``: everything that needs a real GPU, in one command, in under 8 minutes on one H100.

    python tools/gpu_check.py             # on a machine with an NVIDIA GPU and CuPy (the cuda extra)
    python tools/gpu_check.py --dry-run   # anywhere: every step on the CuPy stand-in, results in a temp folder

The steps, cheapest first so that a slow one cannot starve the others, each a subprocess with its own limit:

1. ``preflight``: an NVIDIA GPU is there (``nvidia-smi``; checked before CuPy is installed) and CuPy sees it.
2. ``cuda api``: ``tests/test_cuda_device.py`` and ``tests/gpu_standin`` (streams, events, pinned memory,
   non_blocking copies, the memory API, the NCCL backend's structure).
3. ``nccl ddp``: a one-GPU job through the NCCL backend: DistributedDataParallel trains a small network for a few
   steps and must end where the same training without DDP ends; an all_reduce and an all_to_all are checked.
4. ``timer sweep``: ``widgets.DeviceTimer`` over every operation and size, saved as ``gpu_timings.json`` in
   chapter 3's folders (``notebooks/source/03_devices`` and ``notebooks/release/03_devices``), where the chapter
   and ``DeviceTimer(reference="gpu_timings.json")`` read it to overlay the GPU's curves.
5. ``op table``: ``tests/ops``, ``tests/test_interop.py`` and the stand-in's namespace check on the GPU, with the
   time left of the budget.

A summary table ends the run; the exit status is 0 only if every step passed. Without a GPU, the preflight says
so and exits with status 2 (``make test-gpu-standin`` runs the GPU code path on the stand-in instead).

NOT YET RUN ON A REAL GPU: no GPU has been lent to this project so far. The budgets below are estimates;
``--dry-run`` (``tests/test_gpu_check.py``) shows that every piece runs, on the stand-in.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTER_3 = [ROOT / "notebooks" / "source" / "03_devices", ROOT / "notebooks" / "release" / "03_devices"]
TIMINGS_NAME = "gpu_timings.json"  # what chapter 3 looks for next to the notebook
BUDGET_SECONDS = 450  # the whole check; the op table gets what the other steps leave
LIMITS = {"cuda api": 90, "nccl ddp": 90, "timer sweep": 150}
NO_GPU = ("make gpu-check needs a machine with an NVIDIA GPU: {reason}.\n"
          "Without a GPU, `make test-gpu-standin` runs the GPU code path on the CuPy stand-in (tests/gpu_standin).")


_KEPT: list = []


@dataclass
class Step:
    name: str
    passed: bool
    seconds: float
    detail: str


# -- the preflight -------------------------------------------------------------------------------------------
def gpu_on_this_machine() -> tuple[bool, str]:
    """Is there an NVIDIA GPU? Asked of the driver (``nvidia-smi -L``), so it works before CuPy is installed."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False, "nvidia-smi is not installed (no NVIDIA driver)"
    try:
        listing = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, f"nvidia-smi -L failed: {error}"
    gpus = [line for line in listing.stdout.splitlines() if line.startswith("GPU ")]
    if listing.returncode != 0 or not gpus:
        return False, f"nvidia-smi -L lists no GPU ({(listing.stderr or listing.stdout).strip()[:200]})"
    return True, "; ".join(gpus)


def cupy_sees_a_gpu() -> tuple[bool, str]:
    import minitorch

    if not minitorch.cuda.is_available():
        try:
            minitorch.cuda.get_device_name(0)
        except RuntimeError as error:
            return False, str(error)
        return False, "CuPy sees no GPU"
    import cupy

    return True, f"{minitorch.cuda.get_device_name(0)}, CuPy {cupy.__version__}"


# -- the steps, each run as `python tools/gpu_check.py --step NAME` in its own process ----------------------------
def _use_standin() -> None:
    """The CuPy stand-in and the recording NCCL in place of CuPy (``--dry-run``)."""
    from tests import gpu_standin
    from tests.gpu_standin import nccl

    stack = contextlib.ExitStack()  # kept open until the process ends
    stack.enter_context(gpu_standin.installed())
    stack.enter_context(nccl.installed())
    _KEPT.append(stack)


def step_ddp() -> str:
    """One rank, one GPU, backend NCCL: DDP's training equals plain training; all_reduce and all_to_all answer."""
    import numpy as np

    import minitorch
    import minitorch.distributed as dist
    from minitorch import nn

    with socket.socket() as probe:  # a free port for CuPy's rendezvous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    from datetime import timedelta

    dist.init_process_group("nccl", timeout=timedelta(seconds=60))
    try:
        minitorch.cuda.set_device(0)
        minitorch.manual_seed(0)
        make = lambda: nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))  # noqa: E731
        plain, wrapped = make().to("cuda"), make().to("cuda")
        wrapped.load_state_dict(plain.state_dict())
        ddp = nn.parallel.DistributedDataParallel(wrapped, device_ids=[0])
        inputs, targets = minitorch.randn(64, 16, device="cuda"), minitorch.randn(64, 4, device="cuda")
        for model in (plain, ddp):
            optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1)
            for _ in range(5):
                optimizer.zero_grad()
                nn.functional.mse_loss(model(inputs), targets).backward()
                optimizer.step()
        gap = max(float((p - q).abs().max()) for p, q in zip(plain.parameters(), wrapped.parameters()))
        if gap > 1e-6:
            raise AssertionError(f"DDP's parameters differ from plain training's by {gap:.2e}")
        total = minitorch.arange(8.0, device="cuda")
        dist.all_reduce(total)
        exchanged = minitorch.zeros(8, device="cuda")
        dist.all_to_all_single(exchanged, minitorch.arange(8.0, device="cuda") * 3)
        minitorch.cuda.synchronize()
        np.testing.assert_array_equal(total.cpu().numpy(), np.arange(8.0))
        np.testing.assert_array_equal(exchanged.cpu().numpy(), np.arange(8.0) * 3)
    finally:
        dist.destroy_process_group()
    return f"5 DDP steps equal plain training (largest gap {gap:.1e}); all_reduce and all_to_all right"


def step_sweep(save: Path, quick: bool, seconds: float) -> str:
    """Every operation over its sizes on the CPU and the GPU, saved for chapter 3's overlay."""
    from widgets.timing import QUICK_SIZES, DeviceTimer, load

    sizes = {operation: sizes[:2] for operation, sizes in QUICK_SIZES.items()} if quick else None
    timer = DeviceTimer(sizes=sizes, quick=quick, seconds=seconds)
    if not timer.has_gpu:
        raise RuntimeError(f"DeviceTimer found no GPU among {timer.devices}")
    timer.run(progress=False)
    timer.save(save)
    DeviceTimer(reference=load(save))  # the overlay reads it back
    on_gpu = sum(m.device.startswith("cuda") for m in timer.measurements)
    if timer.unavailable:
        raise RuntimeError(f"{len(timer.unavailable)} operation(s) could not run: {timer.unavailable}")
    crossovers = ", ".join(f"{op} on {device} from n={size}"
                           for (op, device), size in sorted(timer.crossovers().items())) or "none"
    return f"{len(timer.measurements)} measurements ({on_gpu} on the GPU); the GPU wins: {crossovers}"


# -- running them -------------------------------------------------------------------------------------------
def _run(name: str, command: list[str], limit: float, env: dict | None = None) -> Step:
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=max(limit, 1.0),
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired as error:
        out = error.stdout.decode(errors="replace") if isinstance(error.stdout, bytes) else (error.stdout or "")
        progress = re.findall(r"\[\s*(\d+)%\]", out)  # pytest -q's progress column
        reached = f"; pytest had reached {progress[-1]}% of its tests" if progress else ""
        return Step(name, False, time.monotonic() - start, f"stopped at its limit of {limit:.0f} s{reached}")
    output = (done.stdout + done.stderr).strip().splitlines()
    seconds = time.monotonic() - start
    if done.returncode != 0:
        print(f"\n---- {name}: the end of its output ----\n" + "\n".join(output[-40:]), file=sys.stderr)
    result = [line for line in output if line.startswith("RESULT ")]
    detail = result[-1][len("RESULT "):] if result else (output[-1] if output else "")
    return Step(name, done.returncode == 0, seconds, detail)


def _pytest(paths: list[str], dry_run: bool) -> tuple[list[str], dict]:
    env = {"MINITORCH_TEST_DEVICE": "cuda"}
    if dry_run:
        env["MINITORCH_GPU_STANDIN"] = "1"
    return [sys.executable, "-m", "pytest", *paths, "-q", "-p", "no:cacheprovider"], env


def run_all(dry_run: bool, out_dir: Path | None = None, budget: float = BUDGET_SECONDS) -> list[Step]:
    started = time.monotonic()
    me = [sys.executable, str(Path(__file__).resolve())] + (["--standin"] if dry_run else [])
    steps = []
    if dry_run:
        steps.append(Step("preflight", True, 0.0, "dry run: the CuPy stand-in in place of a GPU"))
    else:
        ok, found = cupy_sees_a_gpu()
        steps.append(Step("preflight", ok, time.monotonic() - started, found))
        if not ok:
            return steps
    command, env = _pytest(["tests/test_cuda_device.py", "tests/gpu_standin"], dry_run)
    steps.append(_run("cuda api", command, LIMITS["cuda api"], env))
    steps.append(_run("nccl ddp", me + ["--step", "ddp"], LIMITS["nccl ddp"]))
    targets = [directory / TIMINGS_NAME for directory in ([out_dir] if out_dir else CHAPTER_3)]
    sweep = me + ["--step", "sweep", "--save", str(targets[0])] + (["--quick", "--seconds", "0.001"] if dry_run else [])
    steps.append(_run("timer sweep", sweep, LIMITS["timer sweep"]))
    if steps[-1].passed:
        for target in targets[1:]:
            shutil.copyfile(targets[0], target)
        steps[-1].detail += "; saved as " + ", ".join(str(t.relative_to(ROOT) if t.is_relative_to(ROOT) else t)
                                                      for t in targets)
    # a dry run takes a slice of the op table: the whole of it on the stand-in is `make test-gpu-standin`
    ops = ["tests/ops/test_op_devices.py"] if dry_run else ["tests/ops", "tests/test_interop.py"]
    command, env = _pytest(ops + ["tests/test_gpu_standin.py", "-x"], dry_run)
    steps.append(_run("op table", command, budget - (time.monotonic() - started), env))
    return steps


def summary(steps: list[Step]) -> str:
    width = max(len(step.name) for step in steps)
    lines = [f"{'step'.ljust(width)}  result  seconds  detail"]
    lines += [f"{step.name.ljust(width)}  {'PASS' if step.passed else 'FAIL':6}  {step.seconds:7.1f}  {step.detail}"
              for step in steps]
    total = sum(step.seconds for step in steps)
    verdict = "every step passed" if all(step.passed for step in steps) else "SOME STEPS FAILED"
    lines.append(f"{'total'.ljust(width)}  {'':6}  {total:7.1f}  {verdict}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/gpu_check.py", description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="every step on the CuPy stand-in (no GPU needed)")
    parser.add_argument("--preflight", action="store_true", help="only check that there is an NVIDIA GPU")
    parser.add_argument("--out", type=Path, help="save gpu_timings.json here instead of chapter 3's folders")
    parser.add_argument("--step", choices=["ddp", "sweep"], help=argparse.SUPPRESS)  # one step, in a subprocess
    parser.add_argument("--standin", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--save", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=0.2, help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # this checkout's minitorch and widgets, whatever is installed
    if arguments.step:
        if arguments.standin:
            _use_standin()
        detail = step_ddp() if arguments.step == "ddp" else step_sweep(arguments.save, arguments.quick,
                                                                         arguments.seconds)
        print(f"RESULT {detail}")
        return 0
    if not arguments.dry_run:
        ok, found = gpu_on_this_machine()
        if not ok:
            print(NO_GPU.format(reason=found), file=sys.stderr)
            return 2
        if arguments.preflight:
            print(f"GPU: {found}")
            return 0
    out_dir = arguments.out
    if arguments.dry_run and out_dir is None:
        out_dir = Path(tempfile.mkdtemp(prefix="gpu-check-"))
    steps = run_all(arguments.dry_run, out_dir)
    print(summary(steps))
    return 0 if all(step.passed for step in steps) else 1


if __name__ == "__main__":
    sys.exit(main())
