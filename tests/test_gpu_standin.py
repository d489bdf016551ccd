"""The CuPy stand-in (``tests/gpu_standin``) behaves like CuPy, and a training step on it makes no host round trip.

Without a GPU, ``make test-gpu-standin`` runs the op table on the stand-in; this file checks the stand-in itself
(it refuses what CuPy refuses, offers only CuPy's names, counts transfers) and the hot paths of a training step:
Linear, convolution with pooling, attention with and without masks, layer norm and the optimizers copy nothing
between host and device and never wait for the device. The known exceptions are asserted exactly, so a change
either way is noticed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests import gpu_standin
from tests.gpu_standin import counts, installed

F = minitorch.nn.functional


def test_implicit_conversion_to_numpy_is_refused_in_cupys_words():
    array = gpu_standin.cupy.asarray(np.arange(3.0))
    for convert in (np.asarray, np.array, list):
        with pytest.raises(TypeError):
            convert(array) if convert is not list else np.asarray(list(array))
    assert isinstance(np.exp(array), gpu_standin.ndarray)  # a ufunc CuPy has dispatches to it, as with CuPy
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(array)
    with pytest.raises(TypeError, match="Unsupported type"):
        gpu_standin.cupy.add(array, np.ones(3))  # a host array among device arrays, as CuPy refuses it
    np.testing.assert_array_equal(array.get(), [0.0, 1.0, 2.0])


def test_only_cupys_names_are_offered():
    cupy = gpu_standin.cupy
    assert hasattr(cupy, "einsum") and hasattr(cupy.linalg, "solve") and hasattr(cupy.add, "at")
    for missing in ("busday_count", "asmatrix", "nditer"):  # NumPy has them, CuPy 14 does not
        assert hasattr(np, missing) and not hasattr(cupy, missing), missing
    array = cupy.asarray(np.ones((2, 2)))
    with pytest.raises(AttributeError):
        array.tofile_text  # noqa: B018 - not a CuPy array attribute
    with pytest.raises(TypeError, match="CuPy has no such function"):
        np.busday_count(array, array)


def test_the_namespace_list_is_the_real_cupys():
    """The stored list equals the installed CuPy's (the cuda extra; it imports without a GPU)."""
    try:
        import cupy

        if cupy is gpu_standin.cupy:
            raise ImportError("the stand-in itself is installed as cupy (make test-gpu-standin)")
    except ImportError:
        pytest.skip("no CuPy: it comes with the cuda extra on GPU machines (make gpu-check runs this; only the GPU "
                    "may skip in CI)")
    assert gpu_standin.NAMES["version"] == cupy.__version__
    assert gpu_standin.NAMES["cupy"] == sorted(n for n in dir(cupy) if not n.startswith("_"))
    assert gpu_standin.NAMES["cupy.ndarray"] == sorted(n for n in dir(cupy.ndarray) if not n.startswith("_"))
    assert gpu_standin.NAMES["cupy.linalg"] == sorted(n for n in dir(cupy.linalg) if not n.startswith("_"))
    for name, namespace in (("cupy.cuda", cupy.cuda), ("cupy.cuda.Stream", cupy.cuda.Stream),
                            ("cupy.cuda.Event", cupy.cuda.Event), ("cupy.cuda.Device", cupy.cuda.Device),
                            ("cupy.cuda.runtime", cupy.cuda.runtime), ("cupyx", __import__("cupyx"))):
        assert gpu_standin.NAMES[name] == sorted(n for n in dir(namespace) if not n.startswith("_")), name


def test_the_stand_ins_cuda_offers_only_cupys_names():
    """Streams, events, the runtime calls and pinned memory: nothing the real ``cupy.cuda`` lacks."""
    public = {"ptr", "device_id"}  # instance attributes of CuPy's streams and events (documented, not in dir)
    cuda, cupyx = gpu_standin.cupy.cuda, gpu_standin.cupyx
    for name, namespace in (("cupy.cuda", cuda), ("cupy.cuda.runtime", cuda.runtime), ("cupyx", cupyx),
                            ("cupy.cuda.Stream", cuda.Stream), ("cupy.cuda.Event", cuda.Event),
                            ("cupy.cuda.Device", cuda.Device)):
        offered = {n for n in vars(namespace) if not n.startswith("_")} - public
        assert offered <= set(gpu_standin.NAMES[name]), (name, offered - set(gpu_standin.NAMES[name]))


def test_transfers_and_synchronizations_are_counted():
    with installed():
        counts.reset()
        x = minitorch.ones(4).to("cuda")  # from pageable memory: the host waits for the copy
        assert (counts.host_to_device, counts.device_to_host, counts.synchronizations) == (1, 0, 1)
        float(x.sum())
        assert counts.synchronizations == 2 and counts.device_to_host == 1
        x.cpu()
        assert counts.device_to_host == 2 and counts.synchronizations == 3


def _step_counts(run) -> tuple[int, int, int]:
    run()  # the first call may make state (optimizer moments, cached index tables)
    counts.reset()
    run()
    return counts.host_to_device, counts.device_to_host, counts.synchronizations


def test_a_training_steps_hot_paths_make_no_host_round_trip():
    with installed():
        minitorch.manual_seed(0)
        device = "cuda"
        linear = minitorch.nn.Linear(8, 4).to(device)
        x = minitorch.randn(5, 8, device=device)
        conv = minitorch.nn.Conv2d(2, 3, 3, padding=1).to(device)
        image = minitorch.randn(2, 2, 6, 6, device=device)
        attention = minitorch.nn.MultiheadAttention(8, 2, batch_first=True).to(device)
        q = minitorch.randn(2, 5, 8, device=device)
        mask = minitorch.nn.Transformer.generate_square_subsequent_mask(5, device=device)
        norm = minitorch.nn.LayerNorm(8).to(device)
        paths = {
            "linear": lambda: linear(x).relu().sum().backward(),
            "conv + max_pool2d": lambda: F.max_pool2d(conv(image), 2).sum().backward(),
            "attention": lambda: attention(q, q, q)[0].sum().backward(),
            "attention with a mask": lambda: attention(q, q, q, attn_mask=mask)[0].sum().backward(),
            "causal scaled_dot_product_attention": lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True),
            "layer_norm": lambda: norm(q).sum().backward(),
            "dropout": lambda: F.dropout(q, 0.1, training=True).sum(),
            "zero_grad": linear.zero_grad,
            "clip_grad_norm_": lambda: minitorch.nn.utils.clip_grad_norm_(linear.parameters(), 1.0),
        }
        for name, make in (("SGD", lambda p: minitorch.optim.SGD(p, lr=0.1, momentum=0.9)),
                           ("Adam", lambda p: minitorch.optim.Adam(p)), ("AdamW", lambda p: minitorch.optim.AdamW(p))):
            linear(x).sum().backward()
            paths[name] = make(linear.parameters()).step
        found = {name: _step_counts(run) for name, run in paths.items()}
    assert found == {name: (0, 0, 0) for name in paths}


def test_the_known_host_round_trips_are_exactly_these():
    """cross_entropy and embedding check their indices' range on the host (PyTorch's GPU kernels assert on the
    device instead). Each costs what is asserted here, no more."""
    with installed():
        logits = minitorch.randn(4, 3, device="cuda", requires_grad=True)
        target = minitorch.tensor([0, 1, 2, 1]).to("cuda")
        embedding = minitorch.nn.Embedding(10, 4).to("cuda")
        index = minitorch.tensor([[1, 2]]).to("cuda")
        assert _step_counts(lambda: F.cross_entropy(logits, target).backward()) == (0, 2, 2)
        assert _step_counts(lambda: embedding(index).sum().backward()) == (0, 2, 2)


def test_dropout_on_the_gpu_draws_there_reproducibly_at_the_right_rate():
    with installed():
        x = minitorch.ones(20000, device="cuda")
        minitorch.manual_seed(7)
        first = F.dropout(x, 0.3).cpu().numpy()
        minitorch.manual_seed(7)
        again = F.dropout(x, 0.3).cpu().numpy()
    np.testing.assert_array_equal(first, again)  # manual_seed repeats a run on the GPU too
    assert set(np.unique(first)) == {0.0, np.float32(1 / 0.7)}
    assert abs((first == 0).mean() - 0.3) < 0.015  # 20000 draws: the standard error is 0.0032


def test_set_device_makes_cupys_current_device_follow():
    """NCCL's communicator and CuPy's allocations follow CuPy's current device: set_device must move it."""
    cupy = gpu_standin.cupy
    with installed():
        try:
            minitorch.cuda.set_device(1)
            assert cupy.cuda.runtime.getDevice() == 1
            assert minitorch.zeros(2, device="cuda").device == minitorch.device("cuda:1")
            with minitorch.cuda.device(0):
                assert cupy.cuda.runtime.getDevice() == 0
            assert cupy.cuda.runtime.getDevice() == 1
        finally:
            minitorch.cuda.set_device(0)


def test_the_memory_api_reads_cupys_memory_pool():
    with installed():
        before = minitorch.cuda.memory_allocated()
        x = minitorch.zeros(1000, device="cuda")  # float32: 4000 bytes
        assert minitorch.cuda.memory_allocated() - before == 4000
        assert minitorch.cuda.memory_reserved() >= minitorch.cuda.memory_allocated()
        del x
        assert minitorch.cuda.memory_allocated() == before
        minitorch.cuda.empty_cache()
        properties = minitorch.cuda.get_device_properties(0)
        assert properties.name == "Stand-in GPU 0" and properties.total_memory == 16 << 30
        assert (properties.major, properties.minor) == (9, 0)
        with pytest.raises(RuntimeError, match="invalid device ordinal"):
            minitorch.cuda.memory_allocated(5)
