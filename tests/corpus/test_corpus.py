"""The corpus: public PyTorch code that learners run, under ``import minitorch as torch`` and under PyTorch.

Each file in ``tests/corpus/programs/`` follows a tutorial, a recipe, an example or a lecture
(its header names the source and its licence), with downloads replaced by data made on the spot
and training loops shortened. Each program runs twice, each time in a process of its own forked
from a fresh interpreter that has only imported the library (``tests/corpus/runner.py``): once as
written, on PyTorch, and once with ``tests/corpus/shim`` first on ``PYTHONPATH``, whose
``sitecustomize`` maps ``torch``, ``torch.*`` and ``torchvision`` to minitorch. The two outputs
must agree (``tests/corpus/compare.py`` says how text and numbers are compared).

The programs were written while the libraries drew different random numbers from the same seed,
so every program takes its data and its starting weights from NumPy (or prints only what does not
depend on them); its ``# Randomness:`` header line says how. (minitorch now draws PyTorch's numbers:
tests/test_random_parity.py.) PyTorch's ``torchvision`` is not installed (its wheel needs
PyTorch's CUDA build), so no program imports it; the shim maps it all the same.

Two tests per program:

* ``test_runs_on_pytorch``: the program runs cleanly on PyTorch (the reference is sound);
* ``test_prints_what_pytorch_prints``: minitorch runs it and prints the same.

``MISSING`` lists the programs that fail on minitorch today because an API is missing, naming
it. Those tests are strict expected failures: when the API lands, the test passes, pytest
reports the unexpected pass as a failure, and the entry must be removed from the table.

Run: ``PYTHONPATH=$PWD .venv/bin/python -m pytest tests/corpus -q`` (PyTorch's and minitorch's
runs go side by side, each on half the cores; the summary gives the pass rate and the slowest
programs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus.compare import as_torch_names, first_difference, tolerance_of
from tests.support import require_torch

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
SHIM = HERE / "shim"
ROOT = HERE.parent.parent
TIMEOUT_S = 120

# Programs that fail on minitorch today, and the API each one lacks. Strict: remove an entry
# when its API lands (the test then reports an unexpected pass).
MISSING: dict[str, str] = {
    "autoformer_autocorrelation": "torch.fft (rfft, irfft) and complex tensors (torch.conj of a complex spectrum)",
    "torchvision_ops": "torch._C._log_api_usage_once (PyTorch's C extension module, which torchvision's ops call to "
                       "log their use; minitorch has no torch._C)",
}

PROGRAM_NAMES = sorted(path.stem for path in PROGRAMS.glob("*.py"))
CORPUS_TIMES = pytest.StashKey[dict]()  # seconds per program and library, for the summary (conftest.py)


def _environment(library: str) -> dict[str, str]:
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "MINITORCH_TEST"))
    }
    paths = [str(SHIM), str(ROOT)] if library == "minitorch" else [str(ROOT)]
    environment.update(
        PYTHONPATH=os.pathsep.join(paths),
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
        # One thread per program: the programs are small, and the cores run programs side by side.
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        CORPUS_JOBS=str(max(1, (os.cpu_count() or 2) // 2)),
        CORPUS_TIMEOUT_S=str(TIMEOUT_S),
    )
    return environment


@pytest.fixture(scope="session")
def runs(request, tmp_path_factory):
    """Every selected program's result under both libraries: ``runs[library][program]``.

    Both libraries' runners start at once (``tests/corpus/runner.py``: one import, one fork per
    program), each using half the cores, so the corpus takes about as long as its slower half.
    """
    require_torch()
    selected = sorted({
        item.callspec.params["program"] for item in request.session.items
        if item.path == Path(__file__) and getattr(item, "callspec", None) and "program" in item.callspec.params
    })
    folder = tmp_path_factory.mktemp("corpus")
    started = {}
    for library in ("pytorch", "minitorch"):
        out = folder / f"{library}.json"
        command = [sys.executable, str(HERE / "runner.py"), library, str(out)]
        command += [str(PROGRAMS / f"{name}.py") for name in selected]
        started[library] = (subprocess.Popen(command, env=_environment(library), cwd=folder,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), out)
    results = {}
    for library, (process, out) in started.items():
        stdout, stderr = process.communicate(timeout=TIMEOUT_S * max(1, len(selected)))
        assert process.returncode == 0, f"the {library} runner failed:\n{stdout}\n{stderr}"
        results[library] = json.loads(out.read_text())
    request.config.stash[CORPUS_TIMES] = {
        library: {name: result["seconds"] for name, result in by_program.items()}
        for library, by_program in results.items()
    }
    return results


def _report(result: dict) -> str:
    return (f"exit status {result['returncode']}\n--- stdout (end) ---\n{result['stdout'][-2000:]}\n"
            f"--- stderr (end) ---\n{result['stderr'][-3000:]}")


@pytest.mark.parametrize("program", PROGRAM_NAMES)
def test_runs_on_pytorch(runs, program):
    result = runs["pytorch"][program]
    assert result["returncode"] == 0, f"{program} fails on PyTorch itself:\n{_report(result)}"
    assert result["stdout"].strip(), f"{program} printed nothing on PyTorch"


@pytest.mark.parametrize(
    "program",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=f"missing: {MISSING[name]}"))
        if name in MISSING else name
        for name in PROGRAM_NAMES
    ],
)
def test_prints_what_pytorch_prints(runs, program):
    reference = runs["pytorch"][program]
    if reference["returncode"] != 0:
        pytest.fail("no reference: the program fails on PyTorch (test_runs_on_pytorch shows why)")
    result = runs["minitorch"][program]
    assert result["returncode"] == 0, f"{program} fails on minitorch:\n{_report(result)}"
    tolerance = tolerance_of((PROGRAMS / f"{program}.py").read_text())
    difference = first_difference(as_torch_names(result["stdout"]), reference["stdout"], tolerance)
    assert difference is None, f"{program}: {difference}"


def test_every_entry_of_the_missing_table_is_a_program():
    assert sorted(set(MISSING) - set(PROGRAM_NAMES)) == []


@pytest.mark.parametrize("program", PROGRAM_NAMES)
def test_header_names_source_licence_and_randomness(program):
    lines = (PROGRAMS / f"{program}.py").read_text().splitlines()
    end = next(index for index, line in enumerate(lines + [""]) if not line.startswith("#"))
    header = "\n".join(lines[:end])
    for field in ("# Source:", "# Licence:", "# Changes:", "# Randomness:"):
        assert field in header, f"{program}.py: its header comment lacks {field!r}"
