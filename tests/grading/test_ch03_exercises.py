"""Chapter 3's exercise checks reject the typical mistakes: the bias column on the left or in the
default dtype, a batch's size without its labels or in elements, the latency in microseconds or
gibibytes per second, one flop per multiply-add or megaflops.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check


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
