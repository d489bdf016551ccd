"""``minitorch.backends``, ``minitorch.accelerator`` and the default device, against PyTorch (CPU build)."""

from __future__ import annotations

import pytest

import minitorch
from tests.support import is_cpu_build, require_torch


@pytest.fixture
def torch():
    return require_torch()


def test_backends_answer_like_a_cpu_only_pytorch(torch):
    for name in ("mps", "cudnn", "mkldnn", "openmp"):
        assert hasattr(minitorch.backends, name)
    assert minitorch.backends.mps.is_available() is torch.backends.mps.is_available() is False
    assert minitorch.backends.mps.is_built() is torch.backends.mps.is_built() is False
    assert minitorch.backends.cudnn.is_available() is False
    assert minitorch.backends.cudnn.version() is None
    if is_cpu_build(torch):
        assert torch.backends.cudnn.is_available() is False
        assert torch.backends.cudnn.version() is None
    for flag in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(minitorch.backends.cudnn, flag) == getattr(torch.backends.cudnn, flag), flag
    assert minitorch.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32


def test_cudnn_flags_are_settable_and_restored_by_flags():
    cudnn = minitorch.backends.cudnn
    cudnn.benchmark = True
    try:
        assert minitorch.backends.cudnn.benchmark is True
        with cudnn.flags(enabled=False, deterministic=True):
            assert cudnn.enabled is False and cudnn.deterministic is True and cudnn.benchmark is False
        assert cudnn.enabled is True and cudnn.deterministic is False and cudnn.benchmark is True
    finally:
        cudnn.benchmark = False


def test_accelerator_without_a_gpu_matches_pytorch(torch, no_cuda):
    assert minitorch.accelerator.is_available() is torch.accelerator.is_available() is False
    assert minitorch.accelerator.device_count() == torch.accelerator.device_count() == 0
    assert minitorch.accelerator.current_accelerator(check_available=True) is None
    cpu_build_message = "Cannot access accelerator device when none is available."
    for name in ("current_device_index", "synchronize"):
        with pytest.raises(RuntimeError) as ours:
            getattr(minitorch.accelerator, name)()
        assert str(ours.value) == cpu_build_message
        if is_cpu_build(torch):
            with pytest.raises(RuntimeError) as theirs:
                getattr(torch.accelerator, name)()
            assert str(theirs.value) == cpu_build_message


def test_accelerator_with_gpus(fake_cuda):
    accelerator = minitorch.accelerator
    assert accelerator.is_available() and accelerator.device_count() == 2
    assert accelerator.current_accelerator() == minitorch.device("cuda")
    assert accelerator.current_device_index() == 0
    with accelerator.device_index(1):
        assert accelerator.current_device_index() == 1
        assert minitorch.zeros(1, device="cuda").device == minitorch.device("cuda:1")
    assert accelerator.current_device_index() == 0
    accelerator.set_device_index("cuda:1")
    assert minitorch.cuda.current_device() == 1
    accelerator.synchronize()
    device = accelerator.current_accelerator() if accelerator.is_available() else "cpu"
    assert minitorch.ones(2, device=device).device.type == "cuda"


def test_default_device_matches_pytorch(torch):
    assert str(minitorch.get_default_device()) == str(torch.get_default_device()) == "cpu"
    minitorch.set_default_device("cpu")
    assert minitorch.get_default_device() == minitorch.device("cpu")
    minitorch.set_default_device(None)
    assert minitorch.get_default_device() == minitorch.device("cpu")


def test_factory_functions_honour_the_default_device(fake_cuda):
    minitorch.set_default_device("cuda:1")
    try:
        assert minitorch.get_default_device() == minitorch.device("cuda:1")
        made = [
            minitorch.tensor([1.0, 2.0]), minitorch.zeros(2), minitorch.ones(2, 3), minitorch.empty(2),
            minitorch.full((2,), 3.0), minitorch.arange(3), minitorch.linspace(0, 1, 3), minitorch.eye(2),
            minitorch.rand(2), minitorch.randn(2), minitorch.randint(0, 3, (2,)), minitorch.as_tensor([1, 2]),
        ]
        assert all(t.device == minitorch.device("cuda:1") for t in made)
        assert minitorch.zeros(2, device="cpu").device.type == "cpu"  # an explicit device wins
        assert minitorch.zeros_like(minitorch.zeros(2, device="cpu")).device.type == "cpu"  # _like keeps its input's
    finally:
        minitorch.set_default_device(None)
    assert minitorch.zeros(2).device.type == "cpu"
