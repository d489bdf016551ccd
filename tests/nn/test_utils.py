"""``nn.utils``: gradient clipping and parameter/vector conversion against PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from minitorch import nn
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _twin_parameters(torch, seed, scale=1.0, with_missing_grad=True):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (5,), (2, 2, 2)]
    ours, theirs = [], []
    for index, shape in enumerate(shapes):
        value = rng.standard_normal(shape)
        grad = rng.standard_normal(shape) * scale
        our_param = nn.Parameter(minitorch.from_numpy(value.copy()))
        their_param = torch.nn.Parameter(torch.from_numpy(value.copy()))
        if not (with_missing_grad and index == 1):
            our_param.grad = minitorch.from_numpy(grad.copy())
            their_param.grad = torch.from_numpy(grad.copy())
        ours.append(our_param)
        theirs.append(their_param)
    return ours, theirs


def _grads(params):
    return [None if p.grad is None else p.grad.numpy() for p in params]


@pytest.mark.parametrize("norm_type", [2.0, 1, math.inf, 3.0, 0.5, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_matches_torch(torch, norm_type, max_norm):
    ours, theirs = _twin_parameters(torch, 0)
    norm_type = float(norm_type)
    our_total = nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    their_total = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert our_total.dtype == minitorch.float64 and our_total.dim() == 0
    np.testing.assert_allclose(our_total.item(), their_total.item(), rtol=1e-12)
    for a, b in zip(_grads(ours), _grads(theirs)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_clip_grad_norm_generator_single_tensor_and_float32(torch):
    ours, theirs = _twin_parameters(torch, 1)
    np.testing.assert_allclose(nn.utils.clip_grad_norm_((p for p in ours), 0.3).item(),
                               torch.nn.utils.clip_grad_norm_((p for p in theirs), 0.3).item(), rtol=1e-12)
    our_single = nn.Parameter(minitorch.ones(3))
    our_single.grad = minitorch.full((3,), 4.0)
    their_single = torch.nn.Parameter(torch.ones(3))
    their_single.grad = torch.full((3,), 4.0)
    our_total = nn.utils.clip_grad_norm_(our_single, 1.0)
    their_total = torch.nn.utils.clip_grad_norm_(their_single, 1.0)
    assert our_total.dtype == minitorch.float32
    np.testing.assert_allclose(our_total.item(), their_total.item(), rtol=1e-6)
    np.testing.assert_allclose(our_single.grad.numpy(), their_single.grad.numpy(), rtol=1e-6)
    assert nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="empty generator"):
        nn.utils.clip_grad_norm_((p for p in []), 1.0)


def test_clip_grad_norm_nonfinite(torch):
    ours, theirs = _twin_parameters(torch, 2)
    ours[0].grad[0, 0] = float("nan")
    theirs[0].grad[0, 0] = float("nan")
    with pytest.raises(RuntimeError) as our_error:
        nn.utils.clip_grad_norm_(ours, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as their_error:
        torch.nn.utils.clip_grad_norm_(theirs, 1.0, error_if_nonfinite=True)
    assert str(our_error.value) == str(their_error.value)
    assert math.isnan(nn.utils.clip_grad_norm_(ours, 1.0).item())


def test_clip_grad_value_matches_torch(torch):
    ours, theirs = _twin_parameters(torch, 3, scale=3.0)
    assert nn.utils.clip_grad_value_(ours, 1.5) is None
    torch.nn.utils.clip_grad_value_(theirs, 1.5)
    for a, b in zip(_grads(ours), _grads(theirs)):
        if a is not None:
            np.testing.assert_array_equal(a, b)
            assert np.abs(a).max() <= 1.5


def test_get_total_norm_and_clip_grads_with_norm(torch):
    ours, theirs = _twin_parameters(torch, 4, with_missing_grad=False)
    our_norm = nn.utils.get_total_norm([p.grad for p in ours], 3.0)
    their_norm = torch.nn.utils.get_total_norm([p.grad for p in theirs], 3.0)
    np.testing.assert_allclose(our_norm.item(), their_norm.item(), rtol=1e-12)
    nn.utils.clip_grads_with_norm_(ours, 0.1, our_norm)
    torch.nn.utils.clip_grads_with_norm_(theirs, 0.1, their_norm)
    for a, b in zip(_grads(ours), _grads(theirs)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_parameters_to_vector_and_back(torch):
    ours = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2)).double()
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)).double()
    ours.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    our_vector = nn.utils.parameters_to_vector(ours.parameters())
    their_vector = torch.nn.utils.parameters_to_vector(theirs.parameters())
    np.testing.assert_array_equal(our_vector.detach().numpy(), their_vector.detach().numpy())
    (our_vector * 2).sum().backward()
    assert all(np.all(p.grad.numpy() == 2) for p in ours.parameters())
    new_values = np.arange(our_vector.numel(), dtype=np.float64)
    weight = ours[0].weight
    nn.utils.vector_to_parameters(minitorch.from_numpy(new_values.copy()), ours.parameters())
    torch.nn.utils.vector_to_parameters(torch.from_numpy(new_values.copy()), theirs.parameters())
    assert ours[0].weight is weight
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy(), err_msg=name)
    with pytest.raises(TypeError) as our_error:
        nn.utils.vector_to_parameters([1.0], ours.parameters())
    with pytest.raises(TypeError) as their_error:
        torch.nn.utils.vector_to_parameters([1.0], theirs.parameters())
    assert str(our_error.value) == str(their_error.value)


# -- skip_init ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("module_name, args", [("Linear", (5, 3)), ("Conv2d", (2, 4, 3)), ("Embedding", (7, 2))])
def test_skip_init_builds_the_module_and_draws_no_random_numbers(torch, module_name, args):
    torch.manual_seed(3)
    minitorch.manual_seed(3)
    theirs = torch.nn.utils.skip_init(getattr(torch.nn, module_name), *args)
    ours = minitorch.nn.utils.skip_init(getattr(minitorch.nn, module_name), *args)
    assert type(ours).__name__ == type(theirs).__name__
    assert [(name, tuple(p.shape)) for name, p in ours.named_parameters()] == [
        (name, tuple(p.shape)) for name, p in theirs.named_parameters()]
    # PyTorch builds on the meta device and draws nothing: the stream that follows is unchanged
    assert minitorch.rand(4).tolist() == torch.rand(4).tolist()


def test_skip_init_refuses_a_module_without_a_device_argument(torch):
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        torch.nn.utils.skip_init(torch.nn.ReLU)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        minitorch.nn.utils.skip_init(nn.ReLU)
