"""Two versions of minitorch and PyTorch side by side in one run: did a change make an op faster?

``run.py`` compares minitorch with PyTorch. To judge a change, the code before it must run in the
same run too, interleaved, so that whatever the machine does meanwhile hits all three alike. Each
version runs in its own long-lived worker process (two copies of ``minitorch`` cannot share one
process); the controller asks the workers in turn, rotating their order every round, to time
``--steps`` calls of the workload's step, and reports the medians of the per-round ratios.

Every worker uses one thread (OpenMP, OpenBLAS and MKL at 1, ``threadpoolctl``, ``torch.set_num_threads``)
and drops ``OPENBLAS_CORETYPE``/``OPENBLAS_L2_SIZE``. The time is the worker's CPU time
(``time.process_time``), not the wall clock: on a machine shared with other work the wall clock
mostly measures the neighbours (``--wall`` switches to it on a quiet machine)::

    git archive <commit-before> minitorch benchmarks | tar -x -C /tmp/before
    python benchmarks/before_after.py small_ops --before /tmp/before --rounds 31 --steps 2000

``--after`` defaults to this checkout. The load average before and after the run is printed with the
results: quote it with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
CHECKOUT = HERE.parent.parent


def _worker(root: str, framework: str, name: str, wall: bool) -> None:
    """Set the workload up from ``root``'s copy, then time ``steps`` calls for each line read from stdin."""
    sys.path.insert(0, root)
    import threadpoolctl
    import torch

    torch.set_num_threads(1)
    threadpoolctl.threadpool_limits(1)
    from benchmarks.run import discover_workloads

    workload = next(w for w in discover_workloads() if w.name == name)
    step = workload.setups[framework]()
    step()
    if framework == "minitorch":
        import minitorch

        assert minitorch.__file__.startswith(root), f"{minitorch.__file__} is not from {root}"
    clock = time.perf_counter if wall else time.process_time
    print("ready", flush=True)
    for line in sys.stdin:
        steps = int(line)
        start = clock()
        for _ in range(steps):
            step()
        print(json.dumps((clock() - start) / steps / workload.units_per_step), flush=True)


def compare(name: str, before: str, after: str, rounds: int, steps: int, wall: bool) -> dict:
    """Seconds per unit of each version in each round: ``{"before": [...], "after": [...], "pytorch": [...]}``."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "PYTHONPATH")}
    environment.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    versions = {"before": (before, "minitorch"), "after": (after, "minitorch"), "pytorch": (after, "pytorch")}
    workers = {}
    for version, (root, framework) in versions.items():
        command = [sys.executable, str(HERE), "--worker", root, framework, name] + (["--wall"] if wall else [])
        workers[version] = subprocess.Popen(command, env=environment, cwd="/", stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True)
        if workers[version].stdout.readline().strip() != "ready":
            raise RuntimeError(f"the {version} worker did not start")
    times = {version: [] for version in workers}
    order = list(workers)
    try:
        for _ in range(rounds):
            for version in order:
                workers[version].stdin.write(f"{steps}\n")
                workers[version].stdin.flush()
                times[version].append(json.loads(workers[version].stdout.readline()))
            order = order[1:] + order[:1]
    finally:
        for worker in workers.values():
            worker.stdin.close()
            worker.wait()
    return times


def report(name: str, times: dict, loads: tuple) -> str:
    def ratio(first, second):
        return statistics.median(a / b for a, b in zip(times[first], times[second]))

    medians = ", ".join(f"{version} {statistics.median(values) * 1e6:.1f} us" for version, values in times.items())
    return (
        f"{name}: {len(times['after'])} rounds, load average {loads[0]:.2f} before the run, {loads[1]:.2f} after\n"
        f"  median time per unit: {medians}\n"
        f"  medians of per-round ratios: before/PyTorch {ratio('before', 'pytorch'):.2f}x, "
        f"after/PyTorch {ratio('after', 'pytorch'):.2f}x, after/before {ratio('after', 'before'):.3f}"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="minitorch before and after a change, and PyTorch, side by side.")
    parser.add_argument("workload", help="a workload name (python benchmarks/run.py --list)")
    parser.add_argument("--before", required=True, help="a copy of the repository before the change")
    parser.add_argument("--after", default=str(CHECKOUT), help="the repository after it (this checkout)")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--steps", type=int, default=1000, help="calls of the step per timed block")
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    arguments = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    times = compare(arguments.workload, str(Path(arguments.before).resolve()), str(Path(arguments.after).resolve()),
                    arguments.rounds, arguments.steps, arguments.wall)
    print(report(arguments.workload, times, (load_before, os.getloadavg()[0])))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker(sys.argv[2], sys.argv[3], sys.argv[4], "--wall" in sys.argv[5:])
    else:
        sys.exit(main())
