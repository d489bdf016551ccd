"""Settings for the whole test suite: which device the op tests run on, and hypothesis in CI.

* Device: ``pytest --device cuda`` or ``MINITORCH_TEST_DEVICE=cuda`` (what ``make test-gpu``
  sets); the default is ``cpu``. The choice is written back to ``MINITORCH_TEST_DEVICE`` so
  that test modules may read it while they are collected, and the ``device`` fixture gives it
  as a ``minitorch.device``. Asking for ``cuda`` where CuPy sees no GPU is a usage error, not
  a silent run of nothing.
* GPU stand-in: ``MINITORCH_GPU_STANDIN=1`` (what ``make test-gpu-standin`` sets) installs the CuPy
  stand-in of ``tests/gpu_standin`` for the whole session, so ``cuda`` tensors hold its arrays: the GPU
  code path runs without a GPU, refusing implicit copies to NumPy as CuPy does.
* Hypothesis: under ``MINITORCH_CI=1`` (set by ``.ci/run``) the ``ci`` profile is loaded, so
  every CI run tries the same examples (derandomized) and a failure reproduces exactly.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests.support import in_ci, use_fake_cuda

DEVICE_VARIABLE = "MINITORCH_TEST_DEVICE"

# Derandomized: the examples come from a hash of each test, the same on every run. No example
# database (nothing written into the checkout) and no deadline (a busy CI machine is slow, not wrong).
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
if in_ci():
    settings.load_profile("ci")


def pytest_addoption(parser):
    parser.addoption(
        "--device",
        default=None,
        help=f"device the op tests run on: cpu (default) or cuda[:N]; also read from {DEVICE_VARIABLE}",
    )


def pytest_configure(config):
    name = config.getoption("--device") or os.environ.get(DEVICE_VARIABLE) or "cpu"
    os.environ[DEVICE_VARIABLE] = name
    if os.environ.get("MINITORCH_GPU_STANDIN") == "1":
        from tests import gpu_standin

        config._gpu_standin = gpu_standin.installed()
        config._gpu_standin.__enter__()
    if name == "cpu":
        return  # minitorch is imported by the tests themselves, so a broken module fails them, not pytest
    import minitorch

    try:
        chosen = minitorch.device(name)
    except (RuntimeError, TypeError) as error:
        raise pytest.UsageError(f"{DEVICE_VARIABLE}/--device: {error}") from error
    if chosen.type == "cuda" and not minitorch.cuda.is_available():
        raise pytest.UsageError(
            f"tests were asked to run on {name}, but minitorch.cuda.is_available() is False: "
            "install the cuda extra (pip install -e .[cuda]) on a machine with an NVIDIA GPU"
        )
    os.environ[DEVICE_VARIABLE] = str(chosen)


def pytest_unconfigure(config):
    standin = getattr(config, "_gpu_standin", None)
    if standin is not None:
        standin.__exit__(None, None, None)


def pytest_report_header(config):
    profile = "ci (derandomized)" if in_ci() else "default"
    standin = " (the CuPy stand-in of tests/gpu_standin)" if os.environ.get("MINITORCH_GPU_STANDIN") == "1" else ""
    return [
        f"minitorch test device: {os.environ[DEVICE_VARIABLE]}{standin}",
        f"MINITORCH_CI={os.environ.get('MINITORCH_CI', 'unset')} (missing PyTorch/Graphviz: "
        f"{'fail' if in_ci() else 'skip'}); hypothesis profile: {profile}",
    ]


@pytest.fixture(scope="session")
def device():
    """The ``minitorch.device`` the op tests run on (see the module docstring)."""
    import minitorch

    return minitorch.device(os.environ[DEVICE_VARIABLE])


@pytest.fixture
def fake_cuda():
    """Two pretend GPUs (``cuda:0``, ``cuda:1``) backed by host memory; yields the backend (tests/support.py)."""
    with use_fake_cuda(2) as backend:
        yield backend


@pytest.fixture
def no_cuda():
    """A ``cuda`` backend that sees no GPU."""
    with use_fake_cuda(0) as backend:
        yield backend


@pytest.fixture(scope="module")
def fake_cuda_for_module():
    """``fake_cuda`` for a whole test module (one registration for hundreds of parametrized cases)."""
    with use_fake_cuda(2) as backend:
        yield backend


# -- under MINITORCH_CI=1 only the GPU may skip (tests/test_skips.py checks the source side) ---------
_GPU_SKIP = ("GPU", "CUDA", "cuda")
_unexpected_skips: list[str] = []


def _note_skip(report) -> None:
    if in_ci() and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if not any(word in reason for word in _GPU_SKIP):
            _unexpected_skips.append(f"{report.nodeid}: {reason}")


# Under pytest-xdist (make test) each file is one unit of work, handed out in collection order (make test passes
# --no-loadscope-reorder; xdist would otherwise hand out the files with the most tests first). The files that take
# minutes go first, slowest first, so that the thousands of quick tests fill the other workers beside them instead
# of one long file running alone at the end. Seconds of all their tests, from .ci/run's "slowest files" summary
# (2-core machine, 2026-12-08); rerun it and reorder when a file's cost changes.
SLOW_FILES_FIRST = (
    "tests/widgets/test_browser.py",  # 450: JupyterLab in Chromium, two screen sizes
    "tests/notebooks/test_chapters.py",  # 276: every chapter run top to bottom, both editions
    "tests/grading/test_ch06_worker_loader_exercises.py",  # 186: worker processes, in the sandbox and in nbgrader
    "tests/grading/test_ch15_exercises.py",  # 183: the capstone trained by the reference and by mistaken loops
    "tests/grading/test_library_capstone.py",  # 154: the capstone on the learner's library, one piece blank
    "tests/grading/test_course.py",  # 153: nbgrader's course, reference and blank
    "tests/grading/test_grader_attacks.py",  # 125: attacks on the sandbox
    "tests/grading/test_learner_dist.py",  # 123: the learner's kit built, then checked
    "tests/grading/test_ch12_exercises.py",  # 120: DDP ranks in the sandbox and in nbgrader
    "tests/grading/test_withheld_routes.py",  # 77: routes around a withheld piece, graded
    "tests/grading/test_grader_fixtures.py",  # 60: the fixture class graded in the sandbox
    "tests/corpus/test_corpus.py",  # 52: the corpus run on minitorch and on PyTorch
)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        rank = {path: position for position, path in enumerate(SLOW_FILES_FIRST)}
        items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable: files keep order


_seconds_per_file: dict[str, float] = {}


def pytest_runtest_logreport(report):
    _note_skip(report)
    path = report.nodeid.split("::", 1)[0]
    _seconds_per_file[path] = _seconds_per_file.get(path, 0.0) + report.duration  # setup, call and teardown


def pytest_collectreport(report):
    _note_skip(report)


def pytest_sessionfinish(session, exitstatus):
    if _unexpected_skips and exitstatus in (0, 5):  # 5: nothing ran, because everything skipped
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    if terminalreporter.config.getoption("durations", None) and _seconds_per_file:
        # the files' totals, summed over their tests (what SLOW_FILES_FIRST above is ranked by)
        terminalreporter.section("slowest files (seconds, all of their tests)")
        for path, seconds in sorted(_seconds_per_file.items(), key=lambda item: -item[1])[:20]:
            terminalreporter.write_line(f"{seconds:8.1f}  {path}")
    if _unexpected_skips:
        terminalreporter.section("skips that MINITORCH_CI=1 does not allow (only the GPU may skip)")
        for line in _unexpected_skips:
            terminalreporter.write_line(line)
