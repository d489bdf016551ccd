"""``minitorch-grade`` (also ``python -m grading``): grade a batch of submitted notebooks.

    minitorch-grade submitted/ --source notebooks/source/ch02_autograd --out grades/ --jobs 2

reads the graded parts and hidden cases from the instructor's source notebook, grades every
submission (a folder, files, globs, a student's .zip/.tar upload, or with ``--bulk-archive`` the
learning platform's export of many) in its own sandbox, and writes
``grades.csv``, ``feedback/<student>.md``, ``logs/<student>.log`` (instructor only), the class's
summary (``summary.csv``, ``failures.csv`` and ``summary.html``: each exercise's mean and distribution,
and who failed it in which way) and, with ``--gradescope``, Gradescope's ``results.json``. Exit
status: 0 when the batch was graded (whatever the scores), 2 for a usage problem or when no sandbox
is available.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from grading import cgroups, grader, sandbox
from grading.notebook import AssignmentError, read_assignment
from grading.submissions import find_submissions
from grading.untrusted import printable


def build_parser() -> argparse.ArgumentParser:
    defaults = sandbox.Limits()
    parser = argparse.ArgumentParser(
        prog="minitorch-grade",
        description="Grade submitted notebooks in a sandbox and write grades.csv and per-student feedback.",
    )
    parser.add_argument(
        "submissions", nargs="*", help="notebooks, folders, globs, or .zip/.tar uploads (one student's each)"
    )
    parser.add_argument(
        "--bulk-archive",
        action="append",
        default=[],
        metavar="ARCHIVE",
        help="the learning platform's export of many submissions: its folder names inside are the students",
    )
    parser.add_argument(
        "--source", required=True, type=Path, help="the instructor's source notebook (or its assignment folder)"
    )
    parser.add_argument("--out", type=Path, default=Path("grades"), help="where to write the reports (./grades)")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="submissions graded in parallel (1)")
    parser.add_argument(
        "--sandbox", choices=["auto", "bwrap", "docker"], default="auto", help="isolation: bubblewrap (auto) or docker"
    )
    parser.add_argument("--docker-image", default="python:3.11-slim", help="image for --sandbox docker (needs numpy)")
    parser.add_argument(
        "--no-sandbox", action="store_true", help="run submissions without isolation (dangerous: see the warning)"
    )
    parser.add_argument("--gradescope", action="store_true", help="also write Gradescope's results.json")
    parser.add_argument(
        "--step-timeout", type=float, default=defaults.step_seconds, help="seconds per cell or graded call"
    )
    parser.add_argument(
        "--submission-timeout", type=float, default=defaults.submission_seconds, help="seconds per submission"
    )
    parser.add_argument("--memory-mb", type=int, default=defaults.memory_bytes >> 20, help="memory per submission")
    parser.add_argument("--processes", type=int, default=defaults.processes, help="processes per submission")
    parser.add_argument("--work-dir", type=Path, default=None, help="where the per-submission folders go (system temp)")
    parser.add_argument("--keep-work", action="store_true", help="keep the per-submission folders, for debugging")
    parser.add_argument("--quiet", "-q", action="store_true", help="no line per submission")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    if not 1 <= arguments.jobs <= 64:
        print("minitorch-grade: --jobs must be between 1 and 64", file=sys.stderr)
        return 2
    try:
        assignment = read_assignment(arguments.source)
    except AssignmentError as error:
        print(f"minitorch-grade: {error}", file=sys.stderr)
        return 2
    try:
        backend = sandbox.choose_backend(
            arguments.sandbox, no_sandbox=arguments.no_sandbox, docker_image=arguments.docker_image
        )
    except sandbox.SandboxUnavailable as error:
        print(
            f"minitorch-grade: no sandbox: {error}.\nRefusing to run students' code without one; "
            "--no-sandbox overrides this (read its warning first).",
            file=sys.stderr,
        )
        return 2
    if arguments.no_sandbox:
        print(f"minitorch-grade: WARNING: {sandbox.NO_SANDBOX_RISKS}", file=sys.stderr)
    support = backend.cgroups()
    if support.version is not None:
        print(f"minitorch-grade: limits per sandbox: {support.describe()}", file=sys.stderr)
    else:
        print(
            f"minitorch-grade: limits per sandbox: per-process limits only, {support.describe()}; "
            f"not bounded then: {cgroups.NOT_BOUNDED_WITHOUT_CGROUPS} (see the README: For instructors)",
            file=sys.stderr,
        )
    if backend.wants_seccomp() and sandbox.user_namespace_filter() is None:
        print(
            "minitorch-grade: libseccomp (libseccomp.so.2) is missing: sandboxes may create user namespaces "
            "(install libseccomp2 to forbid them)",
            file=sys.stderr,
        )
    limits = sandbox.Limits(
        step_seconds=arguments.step_timeout,
        submission_seconds=arguments.submission_timeout,
        memory_bytes=arguments.memory_mb << 20,
        processes=arguments.processes,
    )
    submissions = find_submissions(arguments.submissions, assignment.notebook, arguments.bulk_archive)
    if not submissions:
        print("minitorch-grade: no submissions found", file=sys.stderr)
        return 2
    settings = grader.Settings(
        backend=backend,
        limits=limits,
        jobs=arguments.jobs,
        work_root=arguments.work_dir,
        keep_work=arguments.keep_work,
    )
    max_total = assignment.max_points

    def report(result: grader.Result) -> None:
        if not arguments.quiet:
            line = f"{result.student}: {result.total:g} / {max_total:g} ({result.status})"
            print(printable(line), flush=True)

    started = time.monotonic()
    results = grader.grade_all(submissions, assignment, settings, progress=report)
    grader.write_reports(results, assignment, arguments.out, gradescope=arguments.gradescope)
    seconds = time.monotonic() - started
    total = sum(result.total for result in results) / len(results)
    print(
        f"minitorch-grade: class mean {total:.2f} / {max_total:g}; per exercise and failures: "
        f"{arguments.out / 'summary.html'} (and summary.csv, failures.csv)",
        file=sys.stderr,
    )
    print(
        f"minitorch-grade: {len(results)} submissions of {assignment.name}/{assignment.notebook} graded in "
        f"{seconds:.1f} s ({backend.name} sandbox, {arguments.jobs} job(s)); reports in {arguments.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
