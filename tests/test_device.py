"""Devices: parsing, transfers, mixing errors and where results and gradients land.

A CPU-only machine has no CUDA device, so the ``fake_cuda`` fixture registers a
NumPy-backed backend for the ``cuda`` device type with two "GPUs". Arrays stay NumPy
arrays, but every tensor knows which device it is on, so the whole dispatch (mixing
errors, transfers, where results and gradients land) runs exactly as it would on GPUs.
PyTorch's messages for a CUDA device are obtained on this machine through its
``FakeTensorMode``, which checks devices without any GPU.

The last tests use the real backend: without CuPy or a GPU, CUDA must be unavailable
and say so clearly.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch import _device
from tests.support import fake_cuda_backend, require_torch, use_fake_cuda


@pytest.fixture
def torch():
    return require_torch()


def _torch_device_error(torch, first: str, second: str, operation=lambda a, b: a + b) -> str:
    """PyTorch's message for mixing devices, produced without a GPU by its fake-tensor mode."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        a, b = torch.empty(2, device=first), torch.empty(2, device=second)
        with pytest.raises(RuntimeError) as info:
            operation(a, b)
    return str(info.value)


# -- minitorch.device -----------------------------------------------------------------------------
DEVICE_SPELLINGS = ["cpu", "cuda", "cuda:0", "cuda:1", ("cuda", 1), ("cuda", 0), ("cpu", 0)]


@pytest.mark.parametrize("spelling", DEVICE_SPELLINGS, ids=str)
def test_device_parsing_str_repr_as_torch(torch, spelling):
    args = spelling if isinstance(spelling, tuple) else (spelling,)
    mine, theirs = minitorch.device(*args), torch.device(*args)
    assert (mine.type, mine.index) == (theirs.type, theirs.index)
    assert str(mine) == str(theirs)
    assert repr(mine) == repr(theirs)


def test_device_equality_and_hash(torch):
    for lib in (minitorch, torch):
        assert lib.device("cuda", 1) == lib.device("cuda:1")
        assert hash(lib.device("cuda", 1)) == hash(lib.device("cuda:1"))
        assert lib.device("cuda") != lib.device("cuda:0")  # no index is not index 0
        assert lib.device("cpu") != lib.device("cuda")
        assert (lib.device("cpu") == "cpu") is False  # a device never equals a string
        assert lib.device(lib.device("cuda:1")) == lib.device("cuda:1")
        assert len({lib.device("cuda:1"), lib.device("cuda", 1), lib.device("cpu")}) == 2
    assert minitorch.device("cuda", 1) is minitorch.device("cuda:1")  # one object per device


@pytest.mark.parametrize("spelling", ["gpu", "cuda:x", "cuda:-1", "cuda:1:2"])
def test_bad_device_strings_fail_like_torch(torch, spelling):
    with pytest.raises(RuntimeError) as theirs:
        torch.device(spelling)
    with pytest.raises(RuntimeError) as mine:
        minitorch.device(spelling)
    if str(theirs.value).startswith("Invalid device string"):
        assert str(mine.value) == str(theirs.value)
    else:
        assert str(mine.value).startswith("Expected one of cpu, cuda")
        assert str(mine.value).endswith(f"device type at start of device string: {spelling}")


def test_index_given_twice_fails_like_torch(torch):
    with pytest.raises(RuntimeError) as theirs:
        torch.device("cuda:1", 0)
    with pytest.raises(RuntimeError) as mine:
        minitorch.device("cuda:1", 0)
    assert str(mine.value) == str(theirs.value)


# -- minitorch.cuda with the fake backend ---------------------------------------------------------
def test_cuda_module_with_two_devices(fake_cuda):
    cuda = minitorch.cuda
    assert cuda.is_available()
    assert cuda.device_count() == 2
    assert cuda.current_device() == 0
    assert cuda.get_device_name() == "Fake GPU 0"
    assert cuda.get_device_name(1) == "Fake GPU 1"
    assert cuda.get_device_name("cuda:1") == "Fake GPU 1"
    cuda.set_device(1)
    assert cuda.current_device() == 1
    assert cuda.get_device_name() == "Fake GPU 1"
    cuda.synchronize()
    cuda.synchronize(0)
    cuda.synchronize(minitorch.device("cuda:1"))
    assert fake_cuda.synchronized == [1, 0, 1]
    cuda.set_device("cuda:0")
    assert cuda.current_device() == 0
    cuda.set_device(minitorch.device("cuda", 1))
    assert cuda.current_device() == 1
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        cuda.set_device(2)
    assert cuda.current_device() == 1


def test_cuda_device_context_manager(fake_cuda):
    with minitorch.cuda.device(1):
        assert minitorch.cuda.current_device() == 1
        assert minitorch.zeros(1, device="cuda").device == minitorch.device("cuda:1")
    assert minitorch.cuda.current_device() == 0


def test_plain_cuda_means_the_current_device(fake_cuda):
    assert minitorch.zeros(2).to("cuda").device == minitorch.device("cuda:0")
    minitorch.cuda.set_device(1)
    assert minitorch.zeros(2).to("cuda").device == minitorch.device("cuda:1")
    assert minitorch.zeros(2).cuda().device == minitorch.device("cuda:1")
    assert minitorch.zeros(2, device="cuda").device == minitorch.device("cuda:1")


# -- transfers ------------------------------------------------------------------------------------
def test_to_cuda_and_back(fake_cuda):
    x = minitorch.tensor([1.0, 2.0, 3.0])
    on_gpu = x.to("cuda")
    assert on_gpu.device == minitorch.device("cuda:0")
    assert on_gpu.is_cuda and not on_gpu.is_cpu and on_gpu.get_device() == 0
    assert not x.is_cuda and x.get_device() == -1
    assert on_gpu.tolist() == [1.0, 2.0, 3.0]
    assert on_gpu._data is not x._data  # a real copy
    back = on_gpu.cpu()
    assert back.device == minitorch.device("cpu") and back.tolist() == [1.0, 2.0, 3.0]
    assert x.cuda(1).device == minitorch.device("cuda:1")
    assert x.cuda("cuda:1").device == minitorch.device("cuda:1")
    assert x.to(minitorch.device("cuda", 1)).device == minitorch.device("cuda:1")
    assert x.to(device="cuda:1", dtype=minitorch.float64).dtype == minitorch.float64
    assert x.to("cuda:1", minitorch.float16).device == minitorch.device("cuda:1")
    between = x.to("cuda:0").to("cuda:1")
    assert between.device == minitorch.device("cuda:1") and between.tolist() == [1.0, 2.0, 3.0]


def test_to_returns_self_when_nothing_changes(fake_cuda):
    x = minitorch.tensor([1.0, 2.0])
    assert x.to("cpu") is x
    assert x.cpu() is x
    assert x.to(minitorch.float32) is x
    assert x.to("cpu", minitorch.float32) is x
    on_gpu = x.to("cuda:1")
    assert on_gpu.to("cuda:1") is on_gpu
    assert on_gpu.cuda(1) is on_gpu
    assert on_gpu.to(minitorch.device("cuda", 1)) is on_gpu
    minitorch.cuda.set_device(1)
    assert on_gpu.to("cuda") is on_gpu  # "cuda" is the current device, cuda:1
    assert on_gpu.cuda() is on_gpu
    assert on_gpu.to(on_gpu) is on_gpu
    assert on_gpu.to("cuda:1", copy=True) is not on_gpu


def test_to_other_tensor_takes_its_device_and_dtype(fake_cuda):
    template = minitorch.zeros(1, dtype=minitorch.float64, device="cuda:1")
    moved = minitorch.tensor([1, 2]).to(template)
    assert moved.device == template.device and moved.dtype == minitorch.float64


def test_device_argument_of_creation_functions(fake_cuda):
    gpu1 = minitorch.device("cuda:1")
    made = [
        minitorch.tensor([1.0], device="cuda:1"),
        minitorch.zeros(2, device="cuda:1"),
        minitorch.ones(2, device=gpu1),
        minitorch.full((2,), 3.0, device="cuda:1"),
        minitorch.empty(2, device="cuda:1"),
        minitorch.arange(3, device="cuda:1"),
        minitorch.linspace(0, 1, 3, device="cuda:1"),
        minitorch.eye(2, device="cuda:1"),
        minitorch.rand(2, device="cuda:1"),
        minitorch.randn(2, device="cuda:1"),
        minitorch.randint(0, 3, (2,), device="cuda:1"),
        minitorch.randperm(3, device="cuda:1"),
        minitorch.as_tensor([1.0, 2.0], device="cuda:1"),
        minitorch.as_tensor(np.array([1.0]), device="cuda:1"),
        minitorch.tensor([1.0], device=1),
    ]
    for tensor in made:
        assert tensor.device == gpu1, tensor
    template = minitorch.ones(2, device="cuda:1")
    for like in (
        minitorch.zeros_like,
        minitorch.ones_like,
        minitorch.empty_like,
        minitorch.rand_like,
        minitorch.randn_like,
    ):
        assert like(template).device == gpu1
    assert minitorch.full_like(template, 2.0).device == gpu1
    assert minitorch.zeros_like(template, device="cpu").device == minitorch.device("cpu")
    assert template.new_zeros(3).device == gpu1
    assert template.new_tensor([1.0]).device == gpu1


def test_creation_on_a_missing_device_fails(fake_cuda):
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        minitorch.zeros(2, device="cuda:2")
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        minitorch.zeros(2).to("cuda:5")


def test_same_seed_same_numbers_on_every_device(fake_cuda):
    minitorch.manual_seed(5)
    on_cpu = minitorch.rand(4).tolist()
    minitorch.manual_seed(5)
    assert minitorch.rand(4, device="cuda:1").tolist() == on_cpu


def test_repr_names_the_device(fake_cuda, torch):
    x = minitorch.tensor([1.0, 2.0], device="cuda:1")
    assert repr(x) == "tensor([1., 2.], device='cuda:1')"
    y = minitorch.tensor([1.0, 2.0], device="cuda:0", dtype=minitorch.float64, requires_grad=True)
    assert repr(y) == "tensor([1., 2.], device='cuda:0', dtype=minitorch.float64, requires_grad=True)"
    assert x.type() == "torch.cuda.FloatTensor"


def test_numpy_of_a_cuda_tensor_fails_like_torch(fake_cuda):
    x = minitorch.tensor([1.0], device="cuda:0")
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu\(\)"):
        x.numpy()
    assert x.cpu().numpy().tolist() == [1.0]
    assert x.item() == 1.0 and x.tolist() == [1.0]


# -- ops on devices -------------------------------------------------------------------------------
def test_ops_run_on_the_device_of_their_inputs(fake_cuda):
    a = minitorch.tensor([1.0, 2.0], device="cuda:1")
    b = minitorch.tensor([3.0, 4.0], device="cuda:1")
    for result in (
        a + b,
        a * b,
        a - 2.0,
        3.0 / a,
        -a,
        (a * b).sum(),
        a.reshape(2, 1),
        a.view(1, 2),
        a.reshape(2, 1).expand(2, 3),
        a.double(),
        a.to(minitorch.int64),
    ):
        assert result.device == minitorch.device("cuda:1"), result
    assert (a * b).tolist() == [3.0, 8.0]


@pytest.mark.parametrize(
    "first, second",
    [("cpu", "cuda:0"), ("cuda:0", "cpu"), ("cuda:0", "cuda:1"), ("cuda:1", "cpu")],
)
def test_mixing_devices_fails_with_torchs_message(fake_cuda, torch, first, second):
    expected = _torch_device_error(torch, first, second)
    a, b = minitorch.ones(2, device=first), minitorch.ones(2, device=second)
    for operation in (lambda x, y: x + y, lambda x, y: x * y, lambda x, y: x / y, lambda x, y: x - y):
        with pytest.raises(RuntimeError) as info:
            operation(a, b)
        assert str(info.value) == expected
    assert expected == (
        f"Expected all tensors to be on the same device, but found at least two devices, {first} and {second}!"
    )


def test_mixing_devices_in_a_custom_function_fails(fake_cuda):
    class Combine(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, None

    with pytest.raises(RuntimeError, match="found at least two devices, cuda:0 and cpu!"):
        Combine.apply(minitorch.ones(2, device="cuda:0"), minitorch.ones(2))


def test_cpu_zero_dim_tensor_combines_with_cuda_like_a_number(fake_cuda, torch):
    # PyTorch treats a 0-d CPU tensor as a scalar that may join a CUDA op; the result stays on the GPU.
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        assert (torch.empty(2, device="cuda") * torch.tensor(2.0)).device == torch.device("cuda:0")
    on_gpu = minitorch.tensor([1.0, 2.0], device="cuda:0", requires_grad=True)
    scale = minitorch.tensor(3.0, requires_grad=True)
    product = on_gpu * scale
    assert product.device == minitorch.device("cuda:0")
    assert product.tolist() == [3.0, 6.0]
    product.sum().backward()
    assert on_gpu.grad.device == minitorch.device("cuda:0") and on_gpu.grad.tolist() == [3.0, 3.0]
    assert scale.grad.device == minitorch.device("cpu") and scale.grad.item() == 3.0


def test_gradients_land_on_each_leafs_device(fake_cuda, torch):
    def build(lib, gpu, other_gpu):
        weight = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        on_gpu1 = lib.tensor([0.5, 0.25, 2.0], device=other_gpu, requires_grad=True)
        on_gpu0 = lib.tensor([2.0, 2.0, 2.0], device=gpu, requires_grad=True)
        moved = on_gpu1.cpu()  # cuda:1 -> cpu
        combined = (weight * moved).to(gpu) * on_gpu0  # cpu -> cuda:0
        loss = (combined * combined).sum()
        loss.backward()
        return weight, on_gpu1, on_gpu0, combined, loss

    mine = build(minitorch, "cuda:0", "cuda:1")
    weight, on_gpu1, on_gpu0, combined, loss = mine
    assert combined.device == minitorch.device("cuda:0") and loss.device == minitorch.device("cuda:0")
    assert weight.grad.device == minitorch.device("cpu")
    assert on_gpu1.grad.device == minitorch.device("cuda:1")
    assert on_gpu0.grad.device == minitorch.device("cuda:0")
    theirs = build(torch, "cpu", "cpu")  # the same numbers on PyTorch's CPU
    for leaf, twin in zip(mine[:3], theirs[:3]):
        np.testing.assert_allclose(leaf.grad.cpu().numpy(), twin.grad.numpy(), rtol=1e-6)


def test_to_device_is_recorded_and_named_like_torch(fake_cuda, torch):
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    moved = x.to("cuda:1")
    assert moved.grad_fn.name() == torch.tensor([1.0], requires_grad=True).double().grad_fn.name()
    assert moved.requires_grad and not moved.is_leaf
    (moved * moved).sum().backward()
    assert x.grad.device == minitorch.device("cpu") and x.grad.tolist() == [2.0, 4.0]


def test_gradient_of_a_cuda_root_must_be_on_its_device(fake_cuda):
    x = minitorch.tensor([1.0, 2.0], device="cuda:0", requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="invalid gradient at index 0 - expected device cuda:0 but got cpu"):
        y.backward(minitorch.ones(2))
    y.backward(minitorch.ones(2, device="cuda:0"))
    assert x.grad.device == minitorch.device("cuda:0")


def test_grad_assignment_checks_the_device(fake_cuda):
    x = minitorch.tensor([1.0], device="cuda:1", requires_grad=True)
    with pytest.raises(RuntimeError):
        x.grad = minitorch.tensor([1.0])
    x.grad = minitorch.tensor([1.0], device="cuda:1")
    assert x.grad.device == minitorch.device("cuda:1")


def test_higher_order_gradients_on_a_device(fake_cuda):
    x = minitorch.tensor([0.5, 1.5], device="cuda:1", dtype=minitorch.float64, requires_grad=True)
    (first,) = minitorch.autograd.grad((x * x * x).sum(), x, create_graph=True)
    (second,) = minitorch.autograd.grad(first.sum(), x)
    assert first.device == second.device == minitorch.device("cuda:1")
    np.testing.assert_allclose(second.cpu().numpy(), [3.0, 9.0])


def test_gradcheck_on_a_device(fake_cuda):
    x = minitorch.tensor([0.5, -1.5], device="cuda:1", dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: (t * t * t).sum(), (x,))


def test_registering_a_backend_keeps_existing_devices(fake_cuda):
    # Devices made before and after a backend change are the same objects: ops compare them with ``is``.
    assert minitorch.device("cpu") is _device.CPU
    before = minitorch.tensor([1.0])
    previous = _device.register_backend("cuda", fake_cuda_backend(1))
    try:
        after = minitorch.tensor([2.0])
        assert (before + after).tolist() == [3.0]
    finally:
        _device.register_backend("cuda", previous)


# -- the real backend on a machine without a GPU -------------------------------------------------
def _real_cuda_is_missing() -> bool:
    return _device.get_backend("cuda").device_count() == 0


needs_no_gpu = pytest.mark.skipif(not _real_cuda_is_missing(), reason="a CUDA GPU is present")


@needs_no_gpu
def test_real_backend_without_gpu_is_unavailable():
    assert isinstance(_device.get_backend("cuda"), _device.CupyBackend)
    assert minitorch.cuda.is_available() is False
    assert minitorch.cuda.device_count() == 0


@needs_no_gpu
@pytest.mark.parametrize(
    "move",
    [
        lambda: minitorch.zeros(2).to("cuda"),
        lambda: minitorch.zeros(2).cuda(),
        lambda: minitorch.zeros(2).to("cuda:1"),
        lambda: minitorch.zeros(2, device="cuda"),
        lambda: minitorch.tensor([1.0], device="cuda:0"),
        lambda: minitorch.cuda.set_device(0),
        lambda: minitorch.cuda.get_device_name(),
        lambda: minitorch.cuda.synchronize(),
    ],
    ids=["to", "cuda()", "to cuda:1", "zeros", "tensor", "set_device", "get_device_name", "synchronize"],
)
def test_real_backend_without_gpu_raises_a_clear_error(move):
    with pytest.raises(RuntimeError) as info:
        move()
    message = str(info.value)
    assert "CUDA" in message
    assert "Traceback" not in message and "cupy" not in type(info.value).__module__


def test_importing_minitorch_does_not_import_cupy():
    code = (
        "import sys, minitorch\n"
        "x = minitorch.tensor([1.0, 2.0], requires_grad=True)\n"
        "(x * x).sum().backward()\n"
        "print('cupy' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(Path(__file__).resolve().parents[1]),
    )
    assert result.stdout.strip() == "False"


def test_a_device_is_a_context_manager_for_factory_functions_and_layers():
    """``with torch.device(...)``: factory functions and layers built inside default to it, nested blocks restore."""
    torch = require_torch()
    with use_fake_cuda(2):
        with minitorch.device("cuda:1") as chosen:
            assert chosen == minitorch.device("cuda:1")
            assert str(minitorch.ones(2).device) == "cuda:1"
            assert str(minitorch.nn.Linear(2, 3).weight.device) == "cuda:1"
            with minitorch.device("cpu"):
                assert str(minitorch.zeros(1).device) == "cpu"
            assert str(minitorch.get_default_device()) == "cuda:1"
        assert str(minitorch.get_default_device()) == "cpu"
        with pytest.raises(ValueError), minitorch.device("cuda:0"):
            raise ValueError("a block that fails still restores the default")
        assert str(minitorch.rand(1).device) == "cpu"
    # PyTorch's own nesting, on the devices this machine has.
    with torch.device("cpu"), minitorch.device("cpu"):
        assert str(torch.get_default_device()) == str(minitorch.get_default_device()) == "cpu"


def test_the_constants_torch_exports():
    torch = require_torch()
    for name in ("inf", "nan", "pi", "e", "newaxis"):
        ours, theirs = getattr(minitorch, name), getattr(torch, name)
        assert ours is theirs or ours == theirs or (ours != ours and theirs != theirs), name
    x = minitorch.arange(3.0)
    assert tuple(x[minitorch.newaxis].shape) == (1, 3)
    assert float(minitorch.tensor([1.0]).clamp(max=minitorch.inf)) == 1.0
