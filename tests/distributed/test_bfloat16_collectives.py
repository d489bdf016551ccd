"""bfloat16 through the MPI backend's all_reduce (2 ranks): MPI has no 16-bit float, so the reduction runs on a
float32 copy and is rounded once, as for float16; NumPy computes the expected bits by hand."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tests.distributed.launch import run_mpiexec

BASE = [1.1, -2.7, 3.14159, 1e-3, 250.0, -0.5]


def test_all_reduce_of_bfloat16_sums_in_float32_and_rounds_once(tmp_path):
    run_mpiexec(2, "bfloat16_all_reduce.py", tmp_path, timeout=120)
    inputs = [np.array([(r + 1) * v for v in BASE]).astype(ml_dtypes.bfloat16).astype(np.float32) for r in (0, 1)]
    expected = {"sum": inputs[0] + inputs[1], "max": np.maximum(*inputs), "avg": (inputs[0] + inputs[1]) / 2}
    for rank in (0, 1):
        with np.load(tmp_path / f"rank{rank}.npz") as got:
            for name, values in expected.items():
                assert got[name].tolist() == values.astype(ml_dtypes.bfloat16).view(np.uint16).tolist(), name
