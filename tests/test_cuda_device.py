"""``minitorch.cuda`` on the GPU in use: streams, events, pinned memory and non_blocking copies, memory.

They run on a real GPU (``make gpu-check``) and on the CuPy stand-in (``MINITORCH_GPU_STANDIN=1``, as
``make test-gpu-standin`` and ``tools/gpu_check.py --dry-run`` run them); without either they are skipped.
Each asserts a value against NumPy or an invariant both CUDA and the stand-in keep.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

cuda = minitorch.cuda
pytestmark = pytest.mark.skipif(not cuda.is_available(),
                                reason="needs a CUDA GPU (or MINITORCH_GPU_STANDIN=1 for the CuPy stand-in)")


def _operands(n: int = 256):
    generator = np.random.default_rng(0)
    a, b = (generator.standard_normal((n, n), dtype=np.float32) for _ in range(2))
    return a, b


def test_events_time_a_matmul_on_the_current_stream():
    a, b = _operands()
    x, y = minitorch.tensor(a, device="cuda"), minitorch.tensor(b, device="cuda")
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    start.record()
    product = x @ y
    end.record()
    end.synchronize()
    assert end.query() and start.elapsed_time(end) >= 0.0
    np.testing.assert_allclose(product.cpu().numpy(), a @ b, rtol=1e-4, atol=1e-3)


def test_work_on_a_side_stream_is_ordered_before_the_default_stream_reads_it():
    a, b = _operands()
    x, y = minitorch.tensor(a, device="cuda"), minitorch.tensor(b, device="cuda")
    side = cuda.Stream()
    side.wait_stream(cuda.current_stream())  # x and y were made on the default stream
    with cuda.stream(side):
        assert cuda.current_stream() == side
        product = x @ y
    assert cuda.current_stream() == cuda.default_stream()
    cuda.current_stream().wait_stream(side)  # the default stream reads what the side stream wrote
    np.testing.assert_allclose((product + 1).cpu().numpy(), a @ b + 1, rtol=1e-4, atol=1e-3)


def test_pinned_memory_round_trip_with_non_blocking_copies():
    values = np.arange(10_000, dtype=np.float32)
    pinned = minitorch.tensor(values).pin_memory()
    assert pinned.is_pinned() and not minitorch.tensor(values).is_pinned()
    on_gpu = pinned.to("cuda", non_blocking=True)
    back = (on_gpu * 2).to("cpu", non_blocking=True)
    assert back.is_pinned()
    cuda.synchronize()  # the copies were only queued: read after the device has finished
    np.testing.assert_array_equal(back.numpy(), values * 2)


def test_memory_allocated_counts_a_new_tensor():
    before = cuda.memory_allocated()
    kept = minitorch.empty(1 << 20, device="cuda")  # float32: 4 MiB
    assert cuda.memory_allocated() - before >= kept.numel() * 4
    properties = cuda.get_device_properties(0)
    assert properties.name and properties.total_memory > kept.numel() * 4
