"""``minitorch.autocast`` on the CPU against PyTorch 2.13's: which ops run in bfloat16 and which in float32
(PyTorch's ``AutocastCPU`` lists), the values they give, the state functions, and a mixed-precision training
loop with ``amp.GradScaler`` that ends with PyTorch's weights."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from tests.gpu_standin import installed
from tests.support import require_torch


@pytest.fixture(scope="module")
def torch():
    return require_torch()


RNG = np.random.default_rng(0)
X, W, B = RNG.standard_normal((4, 8)), RNG.standard_normal((3, 8)), RNG.standard_normal(3)
IMAGE, KERNEL = RNG.standard_normal((1, 2, 6, 6)), RNG.standard_normal((3, 2, 3, 3))
LABELS = np.array([0, 2, 1, 1])


def f32(lib, array):
    return lib.tensor(array.tolist(), dtype=lib.float32)


def bf16(lib, array):
    return lib.tensor(array.tolist(), dtype=lib.bfloat16)


# name -> (a call on float32 inputs, the dtype PyTorch's CPU autocast gives, whether values match bit for bit)
CASES = {
    # lower precision: cast to bfloat16
    "linear": (lambda lib: lib.nn.functional.linear(f32(lib, X), f32(lib, W), f32(lib, B)), "bfloat16", True),
    "matmul": (lambda lib: f32(lib, X) @ f32(lib, W).T, "bfloat16", True),
    "mm": (lambda lib: lib.mm(f32(lib, X), f32(lib, W).T), "bfloat16", True),
    "bmm": (lambda lib: lib.bmm(f32(lib, X)[None], f32(lib, W).T[None]), "bfloat16", True),
    "conv2d": (lambda lib: lib.nn.functional.conv2d(f32(lib, IMAGE), f32(lib, KERNEL)), "bfloat16", True),
    # bit for bit where PyTorch's kernel adds in float32 (oneDNN on an AVX-512 machine); on an AVX2 machine its
    # col2im adds the columns in bfloat16 (further from the exact value than minitorch's: see the test)
    "conv_transpose2d": (lambda lib: lib.nn.functional.conv_transpose2d(
        f32(lib, IMAGE), f32(lib, KERNEL).transpose(0, 1)), "bfloat16", "where PyTorch adds in float32"),
    "prelu": (lambda lib: lib.nn.functional.prelu(f32(lib, X), f32(lib, np.array([0.25]))), "bfloat16", True),
    "scaled_dot_product_attention": (lambda lib: lib.nn.functional.scaled_dot_product_attention(
        f32(lib, X)[None], f32(lib, X)[None], f32(lib, X)[None]), "bfloat16", False),
    "a bfloat16 activation into a float32 layer": (lambda lib: lib.nn.functional.linear(
        bf16(lib, X), f32(lib, W), f32(lib, B)), "bfloat16", True),
    "matmul of two dtypes": (lambda lib: bf16(lib, X) @ f32(lib, W).T, "bfloat16", True),
    "conv2d of two dtypes": (lambda lib: lib.nn.functional.conv2d(bf16(lib, IMAGE), f32(lib, KERNEL)),
                             "bfloat16", True),
    # float32: bfloat16 inputs cast up
    "mse_loss": (lambda lib: lib.nn.functional.mse_loss(bf16(lib, X), f32(lib, X) * 0), "float32", True),
    "cross_entropy": (lambda lib: lib.nn.functional.cross_entropy(bf16(lib, X), lib.tensor(LABELS)), "float32",
                      True),
    "nll_loss": (lambda lib: lib.nn.functional.nll_loss(bf16(lib, X), lib.tensor(LABELS)), "float32", True),
    "l1_loss": (lambda lib: lib.nn.functional.l1_loss(bf16(lib, X), bf16(lib, X) * 0), "float32", True),
    "binary_cross_entropy_with_logits": (lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        bf16(lib, X), bf16(lib, X).sigmoid()), "float32", False),
    "linalg.inv": (lambda lib: lib.linalg.inv(bf16(lib, W[:, :3])), "float32", False),
    "addmm": (lambda lib: lib.addmm(f32(lib, B), f32(lib, X), f32(lib, W).T), "bfloat16", False),
    "baddbmm": (lambda lib: lib.baddbmm(f32(lib, X[:3, :3])[None], f32(lib, X)[None, :3], f32(lib, W).T[None]),
                "bfloat16", False),
    "addbmm": (lambda lib: lib.addbmm(f32(lib, X[:3, :3]), f32(lib, X)[None, :3], f32(lib, W).T[None]),
               "bfloat16", False),
    "prod": (lambda lib: bf16(lib, X).prod(), "float32", False),  # 32 float32 products, in another order
    "prod of a dimension": (lambda lib: bf16(lib, X).prod(1), "float32", True),
    "cdist": (lambda lib: lib.cdist(bf16(lib, X), bf16(lib, W)), "float32", False),
    "trace": (lambda lib: bf16(lib, X[:, :4]).trace(), "float32", True),
    "pad reflect 1-d": (lambda lib: lib.nn.functional.pad(bf16(lib, X)[None], (2, 1), mode="reflect"), "float32",
                        True),
    "pad reflect 2-d": (lambda lib: lib.nn.functional.pad(bf16(lib, IMAGE), (1, 2, 2, 1), mode="reflect"),
                        "float32", True),
    "pad replicate 2-d": (lambda lib: lib.nn.functional.pad(bf16(lib, IMAGE), (1, 2, 2, 1), mode="replicate"),
                          "float32", True),
    "pad replicate 3-d": (lambda lib: lib.nn.functional.pad(bf16(lib, IMAGE)[None], (1, 1, 1, 1, 1, 1),
                                                            mode="replicate"), "float32", True),
    "pad reflect 3-d (not on the list)": (lambda lib: lib.nn.functional.pad(
        bf16(lib, IMAGE)[None], (1, 1, 1, 1, 1, 1), mode="reflect"), "bfloat16", True),
    "pad circular (not on the list)": (lambda lib: lib.nn.functional.pad(bf16(lib, IMAGE), (1, 1, 1, 1),
                                                                         mode="circular"), "bfloat16", True),
    "index_copy of two dtypes (promote)": (lambda lib: f32(lib, X).index_copy(0, lib.tensor([2]), bf16(lib, X[:1])),
                                           "float32", True),
    # everything else runs in its inputs' dtype
    "mv (not on the CPU list)": (lambda lib: lib.mv(f32(lib, W), f32(lib, X[0])), "float32", False),
    "softmax of bfloat16": (lambda lib: bf16(lib, X).softmax(-1), "bfloat16", True),
    "add of two dtypes": (lambda lib: bf16(lib, X) + f32(lib, X), "float32", True),
    "cat of two dtypes (promote)": (lambda lib: lib.cat([bf16(lib, X), f32(lib, X)]), "float32", True),
    "float64 is left alone": (lambda lib: f32(lib, X).double() @ f32(lib, W).double().T, "float64", True),
}


def torch_float64(torch):
    """``torch`` whose ``tensor(..., dtype=float32)`` makes float64 tensors of bfloat16-rounded values."""

    class Float64Torch:
        float32 = torch.float64

        def __getattr__(self, name):
            return getattr(torch, name)

        def tensor(self, values, dtype):
            return torch.tensor(values, dtype=torch.float32).bfloat16().to(torch.float64)

    return Float64Torch()


@pytest.mark.parametrize("name", list(CASES))
def test_each_op_runs_in_pytorchs_dtype_with_pytorchs_values(torch, name):
    make, dtype, bit_for_bit = CASES[name]
    results = []
    for lib in (torch, minitorch):
        with lib.autocast("cpu", dtype=lib.bfloat16):
            results.append(make(lib))
    theirs, ours = results
    assert str(theirs.dtype) == f"torch.{dtype}" and ours.dtype.name == dtype
    ours_values = np.asarray(ours.detach().float()._data, dtype=np.float64)
    theirs_values = theirs.detach().float().numpy().astype(np.float64)
    pytorch_adds_in_bfloat16 = torch.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2")
    if bit_for_bit == "where PyTorch adds in float32" and pytorch_adds_in_bfloat16:
        exact = make(torch_float64(torch)).numpy()  # the same call in float64 on the bfloat16-rounded inputs
        assert np.abs(ours_values - exact).max() <= np.abs(theirs_values - exact).max()
        np.testing.assert_allclose(ours_values, theirs_values, rtol=2**-5, atol=2**-4)
    elif bit_for_bit:
        np.testing.assert_array_equal(ours_values, theirs_values)
    else:  # a fused kernel in PyTorch, several steps here
        np.testing.assert_allclose(ours_values, theirs_values, rtol=2**-6, atol=2**-6)


def test_the_state_functions_follow_the_blocks(torch):
    for lib in (torch, minitorch):
        assert not lib.is_autocast_enabled("cpu")
        assert lib.get_autocast_dtype("cpu") == lib.bfloat16
        with lib.autocast("cpu"):
            assert lib.is_autocast_enabled("cpu") and not lib.is_autocast_enabled("cuda")
            assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.bfloat16
            with lib.autocast("cpu", enabled=False):
                assert not lib.is_autocast_enabled("cpu")
                assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.float32
            with lib.autocast("cpu", dtype=lib.float16):
                assert lib.get_autocast_dtype("cpu") == lib.float16
                assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.float16
            assert lib.get_autocast_dtype("cpu") == lib.bfloat16
        assert not lib.is_autocast_enabled("cpu")
        assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.float32


def test_as_a_decorator_and_through_amp(torch):
    for lib in (torch, minitorch):
        @lib.amp.autocast("cpu")
        def product(a, b):
            return a @ b

        assert product(lib.ones(2, 2), lib.ones(2, 2)).dtype == lib.bfloat16
        assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.float32


def test_unsupported_dtypes_and_devices_disable_it_with_pytorchs_warning(torch):
    for lib in (torch, minitorch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autocast("cpu", dtype=lib.float64):
                assert not lib.is_autocast_enabled("cpu")
        messages = [str(w.message) for w in caught]
        assert any("In CPU autocast, but the target dtype is not supported. Disabling autocast." in m
                   for m in messages)
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.autocast(lib.device("cpu"))


def test_a_mixed_precision_training_loop_with_grad_scaler_ends_at_pytorchs_weights(torch):
    rng = np.random.default_rng(1)
    inputs, labels = rng.standard_normal((16, 8)).astype(np.float32), rng.integers(0, 3, 16)
    runs = []
    for lib in (torch, minitorch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 3))
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu", init_scale=2.0**10)
        losses = []
        for _ in range(5):
            optimizer.zero_grad()
            with lib.autocast("cpu", dtype=lib.bfloat16):
                output = model(lib.tensor(inputs))
                loss = lib.nn.functional.cross_entropy(output, lib.tensor(labels))
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            losses.append(loss.item())
        assert output.dtype == lib.bfloat16 and loss.dtype == lib.float32
        assert model[0].weight.grad.dtype == lib.float32 and scaler.get_scale() == 2.0**10
        runs.append((losses, model[0].weight.detach().tolist(), model[2].bias.detach().tolist()))
    (theirs_losses, *theirs), (ours_losses, *ours) = runs
    np.testing.assert_allclose(ours_losses, theirs_losses, rtol=1e-6)  # float32 losses, summed in another order
    # the weights after five steps: equal to float32 rounding (the losses' gradients are summed in another order)
    for ours_weights, theirs_weights in zip(ours, theirs):
        np.testing.assert_allclose(ours_weights, theirs_weights, rtol=1e-6, atol=1e-7)


def test_a_weight_used_twice_in_a_block_is_cast_once_as_pytorchs_cast_cache(torch):
    """PyTorch keeps the lower-precision cast of a float32 leaf that requires grad until the outermost block ends:
    both products then hang from one ``ToCopyBackward0`` node; ``cache_enabled=False`` casts each time."""
    for lib in (torch, minitorch):
        weight, x = lib.tensor(W.tolist(), requires_grad=True), lib.tensor(X.tolist())

        def cast_of_weight(output):
            """The ``ToCopyBackward0`` node in the graph of ``output`` (only the weight requires grad)."""
            nodes = [output.grad_fn]
            while type(nodes[-1]).__name__ != "ToCopyBackward0":
                nodes.append(next(node for node, _ in nodes[-1].next_functions if node is not None))
            return nodes[-1]

        linear = lib.nn.functional.linear
        with lib.autocast("cpu"):
            assert lib.is_autocast_cache_enabled()
            first, second = linear(x, weight), linear(x, weight)
            node = cast_of_weight(first)
            assert cast_of_weight(second) is node
            with lib.autocast("cpu"):  # an inner block shares the outer one's cache
                assert cast_of_weight(linear(x, weight)) is node
            lib.clear_autocast_cache()
            assert cast_of_weight(linear(x, weight)) is not node
        with lib.autocast("cpu"):  # a new block: a new cast
            assert cast_of_weight(linear(x, weight)) is not node
        with lib.autocast("cpu", cache_enabled=False):
            assert not lib.is_autocast_cache_enabled()
            assert cast_of_weight(linear(x, weight)) is not cast_of_weight(linear(x, weight))
        assert lib.is_autocast_cache_enabled()
        (first + second).float().sum().backward()
        assert weight.grad.dtype == lib.float32
        assert abs(weight.grad[0, 0].item() - 2 * sum(row[0] for row in X.tolist())) < 0.1


def test_a_tensor_without_grad_or_a_view_is_cast_anew_each_time(torch):
    """Only leaves that require grad are cached (PyTorch's rule): a computed tensor or a view is cast at each use."""
    for lib in (torch, minitorch):
        weight = lib.tensor(W.tolist(), requires_grad=True)
        linear = lib.nn.functional.linear
        with lib.autocast("cpu"):
            x = lib.tensor(X.tolist(), requires_grad=True) * 1.0
            assert linear(x, weight).grad_fn.next_functions[0][0] is not linear(x, weight).grad_fn.next_functions[0][0]
            view = weight[:2]
            assert linear(x, view).grad_fn.next_functions[1][0] is not linear(x, view).grad_fn.next_functions[1][0]


# PyTorch's CUDA lists (autocast_mode.h: AT_FORALL_LOWER_PRECISION_FP, AT_FORALL_FP32, AT_FORALL_FP32_SET_OPT_DTYPE,
# AT_FORALL_PROMOTE), checked on the CuPy code path through the stand-in of tests/gpu_standin (PyTorch here has no
# CUDA to run them): name -> (a call on a float16 product or float32 inputs, the dtype those lists give)
CUDA_CASES = {
    "matmul": (lambda lib, x, v, b: x @ x, "float16"),
    "mv (lower precision on CUDA, not on the CPU)": (lambda lib, x, v, b: lib.mv(x, v), "float16"),
    "addmv": (lambda lib, x, v, b: lib.addmv(v, x, v), "float16"),
    "baddbmm": (lambda lib, x, v, b: lib.baddbmm(b, b, b), "float16"),
    "exp": (lambda lib, x, v, b: (x @ x).exp(), "float32"),
    "log": (lambda lib, x, v, b: (x @ x).abs().log(), "float32"),
    "pow": (lambda lib, x, v, b: (x @ x) ** 2, "float32"),
    "softmax": (lambda lib, x, v, b: (x @ x).softmax(1), "float32"),
    "log_softmax": (lambda lib, x, v, b: (x @ x).log_softmax(1), "float32"),
    "cumsum": (lambda lib, x, v, b: (x @ x).cumsum(1), "float32"),
    "prod": (lambda lib, x, v, b: (x @ x).prod(), "float32"),
    "logsumexp": (lambda lib, x, v, b: (x @ x).logsumexp(1), "float32"),
    "layer_norm": (lambda lib, x, v, b: lib.nn.functional.layer_norm(x @ x, (4,)), "float32"),
    "softplus": (lambda lib, x, v, b: lib.nn.functional.softplus(x @ x), "float32"),
    "cdist": (lambda lib, x, v, b: lib.cdist(x @ x, x @ x), "float32"),
    "mse_loss": (lambda lib, x, v, b: lib.nn.functional.mse_loss(x @ x, x), "float32"),
    "atan2 (promote)": (lambda lib, x, v, b: lib.atan2(x @ x, x), "float32"),
    "trace (on the CPU list only)": (lambda lib, x, v, b: (x @ x).trace(), "float16"),
    "reflection padding (on the CPU list only)": (lambda lib, x, v, b: lib.nn.functional.pad(
        (x @ x)[None], (1, 1), mode="reflect"), "float16"),
    "sin (on no list)": (lambda lib, x, v, b: (x @ x).sin(), "float16"),
}


@pytest.mark.parametrize("name", list(CUDA_CASES))
def test_autocast_on_cuda_follows_pytorchs_cuda_lists(name):
    make, dtype = CUDA_CASES[name]
    with installed():
        x, v, b = (minitorch.randn(*shape, device="cuda") for shape in ((4, 4), (4,), (2, 4, 4)))
        with minitorch.autocast("cuda"):
            assert minitorch.get_autocast_dtype("cuda") == minitorch.float16
            result = make(minitorch, x, v, b)
        assert result.device.type == "cuda" and result.dtype.name == dtype


@pytest.mark.parametrize("enabled", [False, True])
def test_the_old_cuda_amp_autocast_warns_and_behaves_as_pytorchs_on_a_machine_without_cuda(torch, enabled):
    # SimCLR's training loop: `from torch.cuda.amp import GradScaler, autocast` then `with autocast(enabled=...)`.
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            context = lib.cuda.amp.autocast(enabled=enabled)
            with context:
                inside = lib.is_autocast_enabled("cuda"), lib.is_autocast_enabled("cpu")
                product = (lib.ones(2, 3) @ lib.ones(3, 2)).dtype
        return (isinstance(context, lib.amp.autocast), inside, str(product).replace("minitorch", "torch"),
                [(w.category.__name__, str(w.message)) for w in caught])

    assert run(minitorch) == run(torch)
