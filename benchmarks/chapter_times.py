"""How long each chapter of the course takes to run top to bottom, in both editions.

    python benchmarks/chapter_times.py                 # every chapter, instructor and learner editions
    python benchmarks/chapter_times.py 02_autograd 15_capstone --edition release
    python benchmarks/chapter_times.py --json times.json

The course promises each chapter in under 30 seconds on a 2-core laptop with no GPU (in both
editions: the learner's, whose exercises are blank, and the instructor's, with the solutions). This
is the measurement behind that promise; the tests run the chapters too but never assert a time.

Each chapter runs in a fresh kernel, as "Restart Kernel and Run All" does, with one BLAS thread
(as the notebook tests run it: two-thread OpenBLAS on a busy 2-core machine stalls on small
products). The machine's load average is printed before and after each run, because a chapter
timed while the machine is busy says more about the machine than about the chapter.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks"
BUDGET_S = 30.0


def run_chapter(path: Path) -> float:
    """Seconds to execute the notebook at ``path`` in a fresh kernel (errors allowed: Run All goes on)."""
    import nbclient
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=True,
                                     resources={"metadata": {"path": str(path.parent)}})
    started = time.perf_counter()
    client.execute()
    return time.perf_counter() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapter folder names (default: all)")
    parser.add_argument("--edition", choices=["source", "release", "both"], default="both")
    parser.add_argument("--json", metavar="FILE", help="also write the times to this file")
    arguments = parser.parse_args(argv)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = "1"
    names = arguments.chapters or sorted(path.name for path in COURSE.glob("source/[0-9][0-9]_*"))
    editions = ["source", "release"] if arguments.edition == "both" else [arguments.edition]
    rows, over = [], 0
    print(f"{'chapter':<30} {'edition':<8} {'seconds':>8}  load before/after  (budget {BUDGET_S:.0f} s)")
    for name in names:
        for edition in editions:
            path = COURSE / edition / name / f"{name}.ipynb"
            if not path.exists():
                print(f"{name:<30} {edition:<8} {'missing':>8}", file=sys.stderr)
                continue
            load_before = os.getloadavg()[0]
            seconds = run_chapter(path)
            load_after = os.getloadavg()[0]
            over += seconds > BUDGET_S
            flag = "  OVER" if seconds > BUDGET_S else ""
            print(f"{name:<30} {edition:<8} {seconds:>8.1f}  {load_before:>5.1f} / {load_after:<5.1f}{flag}")
            rows.append({"chapter": name, "edition": edition, "seconds": round(seconds, 2),
                         "load_before": round(load_before, 2), "load_after": round(load_after, 2)})
    if arguments.json:
        Path(arguments.json).write_text(json.dumps({"budget_s": BUDGET_S, "runs": rows}, indent=2))
    print(f"{len(rows)} runs, {over} over {BUDGET_S:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
