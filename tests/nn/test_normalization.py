"""BatchNorm, LayerNorm, GroupNorm, InstanceNorm, LocalResponseNorm against PyTorch (copied weights, float64).

Each module is run for several training steps on fresh batches (outputs, input gradients,
parameter gradients and running statistics compared after every step), then in eval mode;
the functional forms are checked with first- and second-order finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch

RTOL, ATOL = 1e-6, 1e-10


@pytest.fixture
def torch():
    return require_torch()


def _randomise_and_copy(ours, theirs, torch, rng):
    """Random affine parameters (ones and zeros would hide mistakes), copied from PyTorch's module into ours."""
    with torch.no_grad():
        for param in theirs.parameters():
            param.copy_(torch.from_numpy(rng.uniform(0.5, 1.5, tuple(param.shape))))
    ours.load_state_dict({k: minitorch.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()})


def _close(ours, theirs, message=""):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=RTOL, atol=ATOL,
                               err_msg=message)


def _step(ours, theirs, torch, rng, shape):
    """One forward and backward through both modules, comparing everything they produce and keep."""
    data = rng.standard_normal(shape) * 2 + 0.5
    x = minitorch.from_numpy(data.copy()).requires_grad_()
    tx = torch.from_numpy(data.copy()).requires_grad_()
    y, ty = ours(x), theirs(tx)
    _close(y, ty, "output")
    grad = rng.standard_normal(tuple(ty.shape))
    y.backward(minitorch.from_numpy(grad))
    ty.backward(torch.from_numpy(grad))
    _close(x.grad, tx.grad, "input grad")
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        _close(p.grad, q.grad, name)
    their_buffers = dict(theirs.named_buffers())
    assert set(dict(ours.named_buffers())) == set(their_buffers)
    for name, buffer in ours.named_buffers():
        np.testing.assert_allclose(buffer.numpy(), their_buffers[name].numpy(), rtol=RTOL, atol=ATOL, err_msg=name)
    ours.zero_grad()
    theirs.zero_grad()


def _run(ours, theirs, torch, shape, steps=3, seed=0):
    rng = np.random.default_rng(seed)
    _randomise_and_copy(ours, theirs, torch, rng)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    for _ in range(steps):
        _step(ours, theirs, torch, rng, shape)
    ours.eval()
    theirs.eval()
    _step(ours, theirs, torch, rng, shape)


@pytest.mark.parametrize("name, shape", [("BatchNorm1d", (5, 3)), ("BatchNorm1d", (4, 3, 6)),
                                         ("BatchNorm2d", (4, 3, 3, 5)), ("BatchNorm3d", (2, 3, 2, 3, 2))])
@pytest.mark.parametrize("options", [
    {}, {"affine": False}, {"bias": False}, {"momentum": None}, {"momentum": 0.5}, {"track_running_stats": False},
    {"affine": False, "track_running_stats": False, "eps": 1e-3},
])
def test_batch_norm_matches_torch(torch, name, shape, options):
    ours = getattr(nn, name)(3, dtype=minitorch.float64, **options)
    theirs = getattr(torch.nn, name)(3, dtype=torch.float64, **options)
    _run(ours, theirs, torch, shape)


@pytest.mark.parametrize("normalized_shape, shape", [(4, (3, 4)), ((3, 4), (2, 3, 4)), ([4], (2, 2, 3, 4)),
                                                     (5, (5,))])
@pytest.mark.parametrize("options", [{}, {"elementwise_affine": False}, {"bias": False}, {"eps": 1e-2}])
def test_layer_norm_matches_torch(torch, normalized_shape, shape, options):
    ours = nn.LayerNorm(normalized_shape, dtype=minitorch.float64, **options)
    theirs = torch.nn.LayerNorm(normalized_shape, dtype=torch.float64, **options)
    _run(ours, theirs, torch, shape, steps=1)


@pytest.mark.parametrize("normalized_shape, shape", [(4, (3, 4)), ((3, 4), (2, 3, 4)), (5, (5,))])
@pytest.mark.parametrize("options", [{}, {"elementwise_affine": False}, {"eps": 1e-2}])
def test_rms_norm_matches_torch(torch, normalized_shape, shape, options):
    ours = nn.RMSNorm(normalized_shape, dtype=minitorch.float64, **options)
    theirs = torch.nn.RMSNorm(normalized_shape, dtype=torch.float64, **options)
    assert repr(ours) == repr(theirs)
    _run(ours, theirs, torch, shape, steps=1)


def test_rms_norm_default_eps_and_shape_error_match_torch(torch):
    for lib in (minitorch, torch):  # eps=None: the dtype's machine epsilon, in float32 and float64
        for dtype in (lib.float32, lib.float64):
            tiny = lib.full((2, 3), 1e-6, dtype=dtype)
            assert lib.nn.functional.rms_norm(tiny, [3]).dtype == dtype
    small = np.full((2, 3), 1e-4, dtype=np.float32)
    np.testing.assert_allclose(F.rms_norm(minitorch.tensor(small), [3]).numpy(),
                               torch.nn.functional.rms_norm(torch.tensor(small), [3]).numpy(), rtol=1e-6)
    messages = []
    for lib in (minitorch, torch):
        with pytest.raises(RuntimeError) as caught:
            lib.nn.functional.rms_norm(lib.ones(2, 3), [4])
        messages.append(str(caught.value).replace("torch.Size", "Size"))
    assert messages[0] == messages[1]


def test_normalize_out_and_zero_vectors_match_torch(torch):
    outcomes = []
    for lib in (minitorch, torch):
        x = lib.tensor([[0.0, 0.0], [3.0, 4.0]])
        out = lib.empty(2, 2)
        result = lib.nn.functional.normalize(x, out=out)
        outcomes.append((result is out, out.tolist()))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("groups, shape", [(1, (2, 4, 3)), (2, (2, 4, 3, 2)), (4, (3, 4, 5)), (2, (3, 4))])
@pytest.mark.parametrize("options", [{}, {"affine": False}, {"bias": False}])
def test_group_norm_matches_torch(torch, groups, shape, options):
    ours = nn.GroupNorm(groups, 4, dtype=minitorch.float64, **options)
    theirs = torch.nn.GroupNorm(groups, 4, dtype=torch.float64, **options)
    _run(ours, theirs, torch, shape, steps=1)


@pytest.mark.parametrize("name, shape", [("InstanceNorm1d", (2, 3, 5)), ("InstanceNorm1d", (3, 5)),
                                         ("InstanceNorm2d", (2, 3, 4, 3)), ("InstanceNorm2d", (3, 4, 3)),
                                         ("InstanceNorm3d", (2, 3, 2, 2, 3))])
@pytest.mark.parametrize("options", [{}, {"affine": True}, {"track_running_stats": True},
                                     {"affine": True, "track_running_stats": True, "momentum": 0.3}])
def test_instance_norm_matches_torch(torch, name, shape, options):
    ours = getattr(nn, name)(3, dtype=minitorch.float64, **options)
    theirs = getattr(torch.nn, name)(3, dtype=torch.float64, **options)
    _run(ours, theirs, torch, shape, steps=2)


@pytest.mark.parametrize("size, shape", [(2, (2, 5, 3)), (3, (2, 4, 3, 2)), (5, (1, 6, 2, 2, 2)), (1, (2, 3, 4))])
def test_local_response_norm_matches_torch(torch, size, shape):
    ours, theirs = nn.LocalResponseNorm(size, alpha=0.3, beta=0.6, k=1.5), torch.nn.LocalResponseNorm(size, 0.3, 0.6,
                                                                                                      1.5)
    _run(ours, theirs, torch, shape, steps=1)


def test_batch_norm_float32_and_graph_names(torch):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((8, 3, 4, 4)).astype(np.float32)
    ours, theirs = nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    y, ty = ours(minitorch.from_numpy(data).requires_grad_()), theirs(torch.from_numpy(data).requires_grad_())
    assert y.dtype == minitorch.float32
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-5)
    assert y.grad_fn.name() == ty.grad_fn.name() == "NativeBatchNormBackward0"
    assert F.layer_norm(minitorch.ones(2, 3, requires_grad=True), [3]).grad_fn.name() == "NativeLayerNormBackward0"


def test_layer_norm_output_may_be_changed_in_place():
    x = minitorch.randn(4, 3, requires_grad=True)
    y = F.layer_norm(x, [3])
    y.relu_()
    y.sum().backward()  # the op kept its own copy of the normalised values
    assert x.grad is not None


def _leaf(rng, *shape):
    return minitorch.from_numpy(rng.standard_normal(shape)).requires_grad_()


def test_normalization_gradcheck():
    rng = np.random.default_rng(4)
    gradcheck, gradgradcheck = minitorch.autograd.gradcheck, minitorch.autograd.gradgradcheck
    x, w, b = _leaf(rng, 3, 2, 4), _leaf(rng, 2, 4), _leaf(rng, 2, 4)
    assert gradcheck(lambda x, w, b: F.layer_norm(x, [2, 4], w, b), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.layer_norm(x, [2, 4], w, b), (x, w, b))
    assert gradgradcheck(lambda x: F.layer_norm(x, [4]), (x,))
    x, w, b = _leaf(rng, 4, 2, 3), _leaf(rng, 2), _leaf(rng, 2)
    batch_train = lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)  # noqa: E731
    assert gradcheck(batch_train, (x, w, b))
    assert gradgradcheck(batch_train, (x, w, b))
    mean, var = minitorch.from_numpy(rng.standard_normal(2)), minitorch.from_numpy(rng.uniform(0.5, 2, 2))
    batch_eval = lambda x, w, b: F.batch_norm(x, mean, var, w, b, training=False)  # noqa: E731
    assert gradcheck(batch_eval, (x, w, b))
    assert gradgradcheck(batch_eval, (x, w, b))
    x4, w4, b4 = _leaf(rng, 2, 4, 3), _leaf(rng, 4), _leaf(rng, 4)
    assert gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x4, w4, b4))
    assert gradgradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x4, w4, b4))
    assert gradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (x4, w4, b4))
    assert gradgradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (x4, w4, b4))
    assert gradcheck(lambda x: F.local_response_norm(x, 3, alpha=0.5), (x4,))
    assert gradgradcheck(lambda x: F.local_response_norm(x, 3, alpha=0.5), (x4,))


def test_functional_batch_norm_updates_running_stats(torch):
    rng = np.random.default_rng(5)
    data = rng.standard_normal((6, 2, 3))
    ours_mean, ours_var = minitorch.zeros(2, dtype=minitorch.float64), minitorch.ones(2, dtype=minitorch.float64)
    their_mean, their_var = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    F.batch_norm(minitorch.from_numpy(data), ours_mean, ours_var, training=True, momentum=0.3)
    torch.nn.functional.batch_norm(torch.from_numpy(data), their_mean, their_var, training=True, momentum=0.3)
    np.testing.assert_allclose(ours_mean.numpy(), their_mean.numpy(), rtol=RTOL)
    np.testing.assert_allclose(ours_var.numpy(), their_var.numpy(), rtol=RTOL)


def _raises_like(torch, ours_call, theirs_call):
    with pytest.raises(Exception) as theirs:
        theirs_call()
    with pytest.raises(type(theirs.value)) as ours:
        ours_call()
    assert str(ours.value).replace("minitorch", "torch") == str(theirs.value)


@pytest.mark.parametrize("call", [
    lambda lib, nn_: nn_.BatchNorm1d(3)(lib.randn(2, 4)),
    lambda lib, nn_: nn_.BatchNorm1d(3)(lib.randn(2, 3, 4, 5)),
    lambda lib, nn_: nn_.BatchNorm2d(3)(lib.randn(2, 3, 4)),
    lambda lib, nn_: nn_.BatchNorm1d(3)(lib.randn(1, 3)),
    lambda lib, nn_: nn_.InstanceNorm2d(3, affine=True)(lib.randn(2, 4, 3, 3)),
    lambda lib, nn_: nn_.InstanceNorm1d(3)(lib.randn(2, 3, 1)),
    lambda lib, nn_: nn_.InstanceNorm1d(3)(lib.randn(3)),
    lambda lib, nn_: nn_.GroupNorm(4, 6),
    lambda lib, nn_: nn_.LayerNorm(3)(lib.randn(2, 4)),
    lambda lib, nn_: nn_.LayerNorm([2, 3])(lib.randn(3)),
    lambda lib, nn_: nn_.functional.layer_norm(lib.randn(2, 3), [3], lib.ones(4)),
    lambda lib, nn_: nn_.functional.layer_norm(lib.randn(2, 3), [3], None, lib.ones(2)),
    lambda lib, nn_: nn_.functional.layer_norm(lib.randn(2, 3), []),
    lambda lib, nn_: nn_.functional.layer_norm(lib.randn(2, 3), [3], lib.ones(3, dtype=lib.float64)),
    lambda lib, nn_: nn_.functional.batch_norm(lib.randn(4, 3), None, None, lib.ones(4), training=True),
    lambda lib, nn_: nn_.functional.batch_norm(lib.randn(4, 3), None, None, training=False),
    lambda lib, nn_: nn_.functional.batch_norm(lib.randn(4, 3), None, None, training=True, eps=0.0),
    lambda lib, nn_: nn_.functional.group_norm(lib.randn(2, 6, 3), 4),
    lambda lib, nn_: nn_.functional.group_norm(lib.randn(2, 6, 3), 3, lib.ones(5)),
    lambda lib, nn_: nn_.functional.group_norm(lib.randn(6), 3),
    lambda lib, nn_: nn_.functional.instance_norm(lib.randn(2, 3, 4), lib.zeros(4), lib.ones(4)),
    lambda lib, nn_: nn_.functional.local_response_norm(lib.randn(2, 3), 2),
])
def test_errors_match_torch(torch, call):
    _raises_like(torch, lambda: call(minitorch, nn), lambda: call(torch, torch.nn))
