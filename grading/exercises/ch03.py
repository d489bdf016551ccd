"""Chapter 3 (devices and the GPU): device-agnostic creation, bytes moved, the cost of a copy, GFLOP/s.

The checks run on the CPU; the references compute the answers with minitorch (tensors) or with the
formulas of the chapter (numbers), never from literal values.
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn


def _add_bias_column(x):
    ones = minitorch.ones(x.shape[0], 1, dtype=x.dtype, device=x.device)
    return minitorch.cat([x, ones], dim=1)


exercise(
    "ch03.add_bias_column",
    function="add_bias_column",
    reference=_add_bias_column,
    public=[
        (randn(4, 3, seed=300),),
        (randn(2, 5, seed=301, dtype="float64"),),
        (randn(3, 2, seed=302, dtype="float16"),),
    ],
    hint="minitorch.ones(n, 1, dtype=x.dtype, device=x.device) makes the column where x is; "
    "minitorch.cat([x, ones], dim=1) puts it on the right.",
)


def _batch_bytes(images, labels):
    return int(images.numel() * images.element_size() + labels.numel() * labels.element_size())


exercise(
    "ch03.batch_bytes",
    function="batch_bytes",
    reference=_batch_bytes,
    public=[
        (randn(8, 1, 8, 8, seed=303), np.arange(8, dtype=np.int64)),
        (randn(4, 3, 2, 2, seed=304, dtype="float64"), np.arange(4, dtype=np.int64)),
    ],
    output_type="any",
    check_dtype=False,
    hint="Each tensor moves numel() numbers of element_size() bytes: 4 for float32, 8 for float64 and int64.",
)


def _transfer_seconds(num_bytes, gigabytes_per_second, latency_microseconds):
    return float(np.float64(latency_microseconds) * 1e-6 + np.float64(num_bytes) / (gigabytes_per_second * 1e9))


exercise(
    "ch03.transfer_seconds",
    function="transfer_seconds",
    reference=_transfer_seconds,
    public=[(38_535_168, 25.0, 10.0), (4_096, 25.0, 10.0), (1_000_000_000, 2.0, 0.0)],
    output_type="any",
    check_dtype=False,
    rtol=1e-9,
    atol=0.0,
    hint="Convert both to seconds and bytes per second: latency_microseconds * 1e-6, gigabytes_per_second * 1e9.",
)


def _matmul_gflops(m, k, n, seconds):
    return float(2.0 * np.float64(m) * k * n / seconds / 1e9)


exercise(
    "ch03.matmul_gflops",
    function="matmul_gflops",
    reference=_matmul_gflops,
    public=[(512, 512, 512, 0.01), (64, 1024, 10, 3e-4), (2048, 2048, 2048, 1.5)],
    output_type="any",
    check_dtype=False,
    rtol=1e-9,
    atol=0.0,
    hint="Each of the m * n outputs needs k multiplications and k additions; GFLOP/s divides by the seconds "
    "and by 1e9.",
)
