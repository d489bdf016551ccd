"""Run the benchmarks: minitorch next to PyTorch (CPU) and hand-written NumPy.

    python benchmarks/run.py                  # every workload, about a minute
    python benchmarks/run.py --quick          # fewer steps and rounds, a few seconds
    python benchmarks/run.py --only small_ops --json results.json
    python benchmarks/run.py --profile small_ops   # where minitorch's time goes (cProfile)

How the numbers are made fair on a shared machine:

* One thread for every framework. The thread-count variables are set before NumPy or
  PyTorch is imported, and PyTorch is told ``set_num_threads(1)``; threadpoolctl (when
  installed) confirms what each BLAS library really uses. With more threads, a neighbour
  holding one core can stall a multi-threaded product for far longer than it runs.
* ``OPENBLAS_CORETYPE`` / ``OPENBLAS_L2_SIZE`` in the environment can force NumPy's
  OpenBLAS onto an older, slower kernel. This script removes both (and restarts itself
  without them) unless ``--keep-blas-env`` is given, and prints the kernel that runs.
* Frameworks are interleaved: each round times every framework once, and the order
  rotates from round to round, so a slow spell of the machine hits all of them. The
  table gives the median time over rounds, and the median of the per-round ratios.

Workloads live in the other modules of this folder (``WORKLOADS`` lists), see
``benchmarks/workload.py``.
"""

from __future__ import annotations

import os
import sys

# -- before NumPy or PyTorch is imported ---------------------------------------------------
_BLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_REMOVED_MARKER = "MINITORCH_BENCHMARK_REMOVED_BLAS_ENV"
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _restart_without_blas_overrides() -> None:
    """Run this script again with both OpenBLAS overrides removed (they are read when OpenBLAS loads)."""
    if "--keep-blas-env" in sys.argv:
        return
    found = {name: os.environ[name] for name in _BLAS_OVERRIDES if name in os.environ}
    if not found:
        return
    environment = {name: value for name, value in os.environ.items() if name not in _BLAS_OVERRIDES}
    environment[_REMOVED_MARKER] = " ".join(f"{name}={value}" for name, value in found.items())
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *sys.argv[1:]], environment)


if __name__ == "__main__":
    _restart_without_blas_overrides()
    for _variable in _THREAD_VARIABLES:
        os.environ[_variable] = "1"

# Make ``import minitorch`` and ``import benchmarks`` work when run as ``python benchmarks/run.py``.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import argparse  # noqa: E402
import cProfile  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import pkgutil  # noqa: E402
import platform  # noqa: E402
import pstats  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks.workload import FRAMEWORKS, Workload  # noqa: E402

DISPLAY_NAMES = {"minitorch": "minitorch", "pytorch": "PyTorch", "numpy": "NumPy"}
ROUNDS, QUICK_ROUNDS = 11, 3


# -- set-up: threads and libraries ---------------------------------------------------------
def pin_threads() -> dict:
    """Limit every framework to one thread and report what each BLAS library uses."""
    report = {"torch": None, "blas": None, "warnings": []}
    try:
        import torch
    except ImportError:
        report["warnings"].append("PyTorch is not installed: its column stays empty (pip install torch==2.13.0)")
    else:
        torch.set_num_threads(1)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # only allowed before PyTorch starts inter-op work
            pass
        report["torch"] = {
            "threads": torch.get_num_threads(),
            "blas": "MKL" if torch.backends.mkl.is_available() else "not MKL",
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        }
    import minitorch  # noqa: F401  (loads whatever libraries minitorch loads, so they are counted too)

    try:
        import threadpoolctl
    except ImportError:
        report["warnings"].append("threadpoolctl is not installed (pip install threadpoolctl): BLAS kernel unknown")
        return report
    pools = threadpoolctl.threadpool_info()
    if any(pool["num_threads"] != 1 for pool in pools):
        report["warnings"].append("a thread pool ignored the environment; limited to 1 thread with threadpoolctl")
        global _THREADPOOL_LIMIT
        _THREADPOOL_LIMIT = threadpoolctl.threadpool_limits(1)
        pools = threadpoolctl.threadpool_info()
    report["blas"] = [
        {key: pool.get(key) for key in ("user_api", "internal_api", "version", "architecture", "num_threads", "prefix")}
        for pool in pools
    ]
    return report


_THREADPOOL_LIMIT = None  # kept alive while the benchmark runs, when threadpoolctl had to step in


def machine_info() -> dict:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "platform": platform.platform(),
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


def versions() -> dict:
    import minitorch

    found = {"python": platform.python_version(), "numpy": np.__version__, "minitorch": minitorch.__version__}
    try:
        import torch

        found["torch"] = torch.__version__
    except ImportError:
        found["torch"] = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=_ROOT, capture_output=True, text=True)
        changed = subprocess.run(["git", "status", "--porcelain"], cwd=_ROOT, capture_output=True, text=True)
        if commit.returncode == 0:
            local = " + local changes" if changed.stdout.strip() else ""
            found["minitorch"] += f" (git {commit.stdout.strip()}{local})"
    except OSError:
        pass
    return found


def discover_workloads() -> list[Workload]:
    """Every ``WORKLOADS`` list in the modules of this folder, in module-name order."""
    import benchmarks

    found = []
    for module_info in sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda m: m.name):
        if module_info.name in ("run", "workload") or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"benchmarks.{module_info.name}")
        found.extend(getattr(module, "WORKLOADS", ()))
    return found


# -- measuring -------------------------------------------------------------------------------
def _as_arrays(result) -> list:
    values = result if isinstance(result, (tuple, list)) else (result,)
    return [np.asarray(value, dtype=np.float64) for value in values]


def _describe_error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".splitlines()[0][:160]


def prepare(workload: Workload, steps: int) -> tuple[dict, dict, dict]:
    """Set up each framework, warm it up, and check that all of them compute the same gradients.

    Returns ``(runnable, unavailable, mismatches)``, each by framework: the step functions
    to time, and the reasons a framework is left out (its set-up or first step failed) or
    computed wrong gradients.
    """
    runnable, unavailable, results = {}, {}, {}
    for framework in FRAMEWORKS:
        setup = workload.setups.get(framework)
        if setup is None:
            continue
        try:
            step = setup()
            results[framework] = _as_arrays(step())
            for _ in range(max(1, steps // 20)):  # warm caches and allocators before timing
                step()
        except Exception as error:  # PyTorch not installed, an op minitorch lacks...: report it, don't crash
            unavailable[framework] = _describe_error(error)
        else:
            runnable[framework] = step

    mismatches = {}
    reference_name = "numpy" if "numpy" in results else next(iter(results), None)
    reference = results.get(reference_name)
    for framework, arrays in results.items():
        if framework == reference_name:
            continue
        for index, (got, expected) in enumerate(zip(arrays, reference)):
            scale = float(np.abs(expected).max()) if expected.size else 1.0
            close = got.shape == expected.shape and np.allclose(got, expected, workload.rtol, workload.rtol * scale)
            if not close:
                mismatches[framework] = f"gradient {index} differs from {DISPLAY_NAMES[reference_name]}'s"
                break
    return runnable, unavailable, mismatches


def measure(workload: Workload, runnable: dict, steps: int, rounds: int, progress) -> dict:
    """Time ``steps`` calls of each framework's step, ``rounds`` times, rotating the order each round.

    Returns the seconds per unit of every round, by framework.
    """
    names = list(runnable)
    samples = {name: [] for name in names}
    units = steps * workload.units_per_step
    for round_index in range(rounds):
        shift = round_index % len(names)
        order = names[shift:] + names[:shift]
        progress(f"{workload.name}: round {round_index + 1}/{rounds} ({', '.join(order)})")
        for name in order:
            step = runnable[name]
            start = time.perf_counter()
            for _ in range(steps):
                step()
            samples[name].append((time.perf_counter() - start) / units)
    return samples


def summarize(workload: Workload, samples: dict, unavailable: dict, mismatches: dict, steps: int) -> dict:
    """Medians of times and of per-round ratios, and whether the target is met."""
    times = {name: {"median": statistics.median(values), "rounds": values} for name, values in samples.items()}
    ratios = {}
    if "minitorch" in samples:
        for other in ("pytorch", "numpy"):
            if other in samples:
                per_round = [mine / theirs for mine, theirs in zip(samples["minitorch"], samples[other])]
                ratios[other] = {"median": statistics.median(per_round), "rounds": per_round}
    target = workload.target
    if "minitorch" in mismatches:
        result = "fail (wrong gradients)"
    elif target is None:
        result = "-"
    elif target.baseline in ratios:
        result = "pass" if ratios[target.baseline]["median"] <= target.max_ratio else "fail"
    else:
        result = "n/a"
    return {
        "name": workload.name,
        "description": workload.description,
        "unit": workload.unit,
        "units_per_step": workload.units_per_step,
        "steps_per_round": steps,
        "target": target and {"baseline": target.baseline, "max_ratio": target.max_ratio, "text": target.describe()},
        "seconds_per_unit": times,
        "ratios": ratios,
        "result": result,
        "unavailable": unavailable,
        "mismatches": mismatches,
    }


# -- reporting ---------------------------------------------------------------------------------
def format_time(seconds: float) -> str:
    """Seconds in the largest unit that keeps the number at 1 or above: 0.0000123 -> "12.3 µs"."""
    scale, suffix = next(
        ((scale, suffix) for scale, suffix in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")) if seconds >= scale), (1e-9, "ns")
    )
    value = seconds / scale
    return f"{value:.3g} {suffix}" if value < 100 else f"{value:.0f} {suffix}"


def markdown_table(results: list[dict]) -> str:
    header = ["Workload", "minitorch", "PyTorch", "NumPy", "minitorch/PyTorch", "minitorch/NumPy", "Target", "Result"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * 5 + ["---", "---"]) + "|"]
    for row in results:
        cells = [f"{row['name']} (per {row['unit']})"]
        for name in FRAMEWORKS:
            time_entry = row["seconds_per_unit"].get(name)
            cells.append(format_time(time_entry["median"]) if time_entry else "n/a")
        for other in ("pytorch", "numpy"):
            ratio = row["ratios"].get(other)
            cells.append(f"{ratio['median']:.2f}x" if ratio else "n/a")
        cells.append(row["target"]["text"] if row["target"] else "-")
        cells.append(row["result"])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def header_text(context: dict) -> str:
    machine, settings = context["machine"], context["settings"]
    lines = [
        f"Date: {context['date']}",
        f"Machine: {machine['cpu']}, {machine['cores']} cores ({machine['usable_cores']} usable), "
        f"{machine['platform']}, load average {machine['load_average']}",
        "Versions: " + ", ".join(f"{name} {version}" for name, version in context["versions"].items() if version),
        f"Threads: 1 per framework; {settings['rounds']} interleaved rounds, order rotated each round; "
        f"medians over rounds; garbage collector {'on' if settings['gc_enabled'] else 'off'}",
    ]
    threads = context["threads"]
    if threads["torch"]:
        torch_info = threads["torch"]
        lines.append(
            f"PyTorch: {torch_info['threads']} thread, BLAS {torch_info['blas']} (built in), "
            f"CPU capability {torch_info['cpu_capability']}"
        )
    for pool in threads["blas"] or ():
        arch = f", kernel {pool['architecture']}" if pool.get("architecture") else ""
        version = f" {pool['version']}" if pool.get("version") else ""
        lines.append(
            f"Thread pool: {pool['internal_api']}{version} ({pool['user_api']}{arch}), "
            f"{pool['num_threads']} thread, {pool['prefix']}"
        )
    removed = settings["blas_env_removed"]
    if removed:
        lines.append(f"Removed from this run's environment: {removed} (--keep-blas-env keeps them)")
    else:
        kept = {name: os.environ[name] for name in _BLAS_OVERRIDES if name in os.environ}
        if kept:
            lines.append(f"Kept in the environment: {kept} (may slow NumPy's matrix products)")
    lines.extend(f"Warning: {warning}" for warning in threads["warnings"])
    return "\n".join(lines)


def notes_text(results: list[dict]) -> str:
    lines = []
    for row in results:
        for framework, reason in row["unavailable"].items():
            lines.append(f"- {row['name']}: {DISPLAY_NAMES[framework]} did not run ({reason})")
        for framework, reason in row["mismatches"].items():
            lines.append(f"- {row['name']}: {DISPLAY_NAMES[framework]} computed wrong results: {reason}")
    return "\n".join(lines)


# -- profiling ---------------------------------------------------------------------------------
def profile(workload: Workload, steps: int, limit: int = 30) -> None:
    """Run minitorch's step under cProfile and print the functions that take the time."""
    step = workload.setups["minitorch"]()
    step()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(steps):
        step()
    profiler.disable()
    stats = pstats.Stats(profiler)
    total_units = steps * workload.units_per_step
    print(
        f"cProfile of minitorch's {workload.name}, {steps} steps ({stats.total_tt / total_units * 1e6:.1f} µs per "
        f"{workload.unit} under the profiler, which inflates small calls)\n"
    )
    stats.sort_stats("tottime").print_stats(limit)
    stats.sort_stats("cumulative").print_stats(limit)


# -- main --------------------------------------------------------------------------------------
def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description="minitorch vs PyTorch vs hand-written NumPy, one thread each.")
    parser.add_argument("--quick", action="store_true", help="fewer steps and rounds (a smoke run)")
    parser.add_argument("--only", action="append", metavar="NAME", help="run only this workload (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument(
        "--rounds", type=int, help=f"interleaved rounds (default {ROUNDS}, {QUICK_ROUNDS} with --quick)"
    )
    parser.add_argument("--profile", metavar="NAME", help="profile minitorch on one workload instead of timing")
    parser.add_argument("--keep-blas-env", action="store_true", help="keep OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    arguments = parse_arguments(argv)
    workloads = discover_workloads()
    by_name = {workload.name: workload for workload in workloads}
    if arguments.list:
        for workload in workloads:
            print(f"{workload.name}: {workload.description}")
        return 0
    wanted = arguments.only or ([arguments.profile] if arguments.profile else [w.name for w in workloads])
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        print(f"unknown workload {', '.join(unknown)}; choose from {', '.join(by_name)}", file=sys.stderr)
        return 2

    threads = pin_threads()
    if arguments.profile:
        workload = by_name[arguments.profile]
        profile(workload, workload.quick_steps if arguments.quick else workload.steps)
        return 0

    rounds = arguments.rounds or (QUICK_ROUNDS if arguments.quick else ROUNDS)
    context = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine_info(),
        "versions": versions(),
        "threads": threads,
        "settings": {
            "threads_per_framework": 1,
            "rounds": rounds,
            "quick": arguments.quick,
            "gc_enabled": gc.isenabled(),
            "blas_env_removed": os.environ.get(_REMOVED_MARKER),
        },
    }

    def progress(message):
        print(message, file=sys.stderr, flush=True)

    results = []
    for name in wanted:
        workload = by_name[name]
        steps = workload.quick_steps if arguments.quick else workload.steps
        runnable, unavailable, mismatches = prepare(workload, steps)
        samples = measure(workload, runnable, steps, rounds, progress) if runnable else {}
        results.append(summarize(workload, samples, unavailable, mismatches, steps))

    print(header_text(context))
    print()
    print(markdown_table(results))
    notes = notes_text(results)
    if notes:
        print()
        print(notes)
    if arguments.json:
        with open(arguments.json, "w") as handle:
            json.dump({**context, "workloads": results}, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
