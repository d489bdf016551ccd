"""Chapter 3's exercise checks: the chapter's own solutions pass, a blank stub and typical mistakes fail.

The solutions are taken from the instructor's notebook (notebooks/source/03_devices), so a solution
edited there is tested here; the wrong answers are the mistakes a learner is likely to make.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import minitorch
from grading import check

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "source" / "03_devices" / "03_devices.ipynb"


def solutions() -> dict:
    """Run the notebook's imports and its solution cells; return the namespace they define."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    namespace: dict = {}
    exec("import numpy as np\nimport minitorch\n", namespace)
    for cell in cells:
        if cell["cell_type"] == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            exec("".join(cell["source"]), namespace)
    return namespace


SOLUTIONS = solutions()


def blank(*arguments):
    raise NotImplementedError()


@pytest.mark.parametrize("name", ["add_bias_column", "batch_bytes", "transfer_seconds", "matmul_gflops"])
def test_solution_passes(name, capsys):
    check(f"ch03.{name}", SOLUTIONS[name])
    assert "public cases pass" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["add_bias_column", "batch_bytes", "transfer_seconds", "matmul_gflops"])
def test_blank_reports_not_implemented(name, capsys):
    with pytest.raises(AssertionError):
        check(f"ch03.{name}", blank)
    assert "not implemented yet" in capsys.readouterr().out


def ones_on_the_left(x):
    return minitorch.cat([minitorch.ones(x.shape[0], 1, dtype=x.dtype), x], dim=1)


def default_dtype_ones(x):
    # forgot dtype=x.dtype: float16 inputs come back as float32
    return minitorch.cat([x, minitorch.ones(x.shape[0], 1)], dim=1)


def only_images(images, labels):
    return images.numel() * images.element_size()


def elements_not_bytes(images, labels):
    return images.numel() + labels.numel()


def latency_in_seconds(num_bytes, gigabytes_per_second, latency_microseconds):
    return latency_microseconds + num_bytes / (gigabytes_per_second * 1e9)


def gibibytes(num_bytes, gigabytes_per_second, latency_microseconds):
    return latency_microseconds * 1e-6 + num_bytes / (gigabytes_per_second * 2**30)


def one_flop_per_product(m, k, n, seconds):
    return m * k * n / seconds / 1e9


def megaflops(m, k, n, seconds):
    return 2 * m * k * n / seconds / 1e6


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("add_bias_column", ones_on_the_left),
        ("add_bias_column", default_dtype_ones),
        ("batch_bytes", only_images),
        ("batch_bytes", elements_not_bytes),
        ("transfer_seconds", latency_in_seconds),
        ("transfer_seconds", gibibytes),
        ("matmul_gflops", one_flop_per_product),
        ("matmul_gflops", megaflops),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch03.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out
