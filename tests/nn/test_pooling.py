"""Max, average, adaptive pooling and max-unpooling against PyTorch (float64), plus gradchecks."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _inputs(torch, rng, shape):
    array = rng.standard_normal(shape)
    return minitorch.from_numpy(array.copy()).requires_grad_(), torch.from_numpy(array.copy()).requires_grad_()


def _close(ours, theirs, message=""):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-10, err_msg=message)


def _check(torch, ours, theirs, shape, seed=0):
    """Outputs (and indices, when returned) and input gradients agree, in train and eval mode."""
    rng = np.random.default_rng(seed)
    assert repr(ours) == repr(theirs)
    for training in (True, False):
        ours.train(training)
        theirs.train(training)
        x, tx = _inputs(torch, rng, shape)
        out, tout = ours(x), theirs(tx)
        if isinstance(tout, tuple):
            (out, indices), (tout, tindices) = out, tout
            assert indices.dtype == minitorch.int64 and not indices.requires_grad
            np.testing.assert_array_equal(indices.numpy(), tindices.numpy())
        _close(out, tout, "output")
        grad = rng.standard_normal(tuple(tout.shape))
        out.backward(minitorch.from_numpy(grad))
        tout.backward(torch.from_numpy(grad))
        _close(x.grad, tx.grad, "input grad")


MAX_POOL2D = [
    ({"kernel_size": 2}, (2, 3, 6, 6)),
    ({"kernel_size": 3, "stride": 2}, (2, 2, 7, 8)),
    ({"kernel_size": 3, "stride": 1, "padding": 1}, (1, 2, 5, 5)),  # overlapping windows share winners
    ({"kernel_size": (2, 3), "stride": (1, 2), "padding": (1, 1), "dilation": (2, 1)}, (2, 2, 6, 7)),
    ({"kernel_size": 2, "ceil_mode": True}, (2, 2, 5, 5)),
    ({"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}, (1, 2, 6, 6)),
    ({"kernel_size": 3, "stride": 2, "dilation": 2, "ceil_mode": True}, (1, 2, 8, 9)),
    ({"kernel_size": 2}, (3, 6, 4)),  # unbatched
    ({"kernel_size": 2}, (0, 2, 4, 4)),  # an empty batch
]


@pytest.mark.parametrize("options, shape", MAX_POOL2D)
@pytest.mark.parametrize("return_indices", [False, True])
def test_max_pool2d_matches_torch(torch, options, shape, return_indices):
    ours = nn.MaxPool2d(**options, return_indices=return_indices)
    theirs = torch.nn.MaxPool2d(**options, return_indices=return_indices)
    _check(torch, ours, theirs, shape)


def test_max_pool_ties_pick_the_first_maximum(torch):
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 1, 1] = x[0, 0, 1, 2] = 1.0
    ours = F.max_pool2d(minitorch.from_numpy(x), 3, stride=1, return_indices=True)[1]
    theirs = torch.nn.functional.max_pool2d(torch.from_numpy(x), 3, stride=1, return_indices=True)[1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("options, shape", [
    ({"kernel_size": 2}, (2, 3, 7)), ({"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}, (2, 2, 8)),
    ({"kernel_size": 2, "dilation": 2, "return_indices": True}, (3, 9)),
])
def test_max_pool1d_matches_torch(torch, options, shape):
    _check(torch, nn.MaxPool1d(**options), torch.nn.MaxPool1d(**options), shape)


def test_max_pool3d_matches_torch(torch):
    _check(torch, nn.MaxPool3d(2, return_indices=True), torch.nn.MaxPool3d(2, return_indices=True), (1, 2, 4, 4, 5))


AVG_POOL2D = [
    ({"kernel_size": 2}, (2, 3, 6, 6)),
    ({"kernel_size": 3, "stride": 2, "padding": 1}, (2, 2, 7, 6)),
    ({"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}, (2, 2, 7, 6)),
    ({"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}, (1, 2, 6, 6)),
    ({"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}, (1, 2, 6, 6)),
    ({"kernel_size": 2, "ceil_mode": True}, (1, 2, 5, 5)),
    ({"kernel_size": (2, 3), "stride": 1, "divisor_override": 4}, (2, 2, 4, 5)),
    ({"kernel_size": 2, "stride": 1}, (3, 4, 4)),  # unbatched
]


@pytest.mark.parametrize("options, shape", AVG_POOL2D)
def test_avg_pool2d_matches_torch(torch, options, shape):
    _check(torch, nn.AvgPool2d(**options), torch.nn.AvgPool2d(**options), shape)


@pytest.mark.parametrize("options", [{"kernel_size": 3}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                     {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False,
                                      "ceil_mode": True}])
def test_avg_pool1d_and_3d_match_torch(torch, options):
    _check(torch, nn.AvgPool1d(**options), torch.nn.AvgPool1d(**options), (2, 3, 8))
    _check(torch, nn.AvgPool3d(**options), torch.nn.AvgPool3d(**options), (1, 2, 4, 5, 4))


@pytest.mark.parametrize("output_size, shape", [
    (1, (2, 3, 5, 5)), ((2, 3), (2, 2, 5, 7)), ((3, None), (1, 2, 7, 4)), (4, (2, 4, 4)), ((5, 3), (1, 1, 3, 2)),
])
def test_adaptive_avg_pool2d_matches_torch(torch, output_size, shape):
    _check(torch, nn.AdaptiveAvgPool2d(output_size), torch.nn.AdaptiveAvgPool2d(output_size), shape)


@pytest.mark.parametrize("output_size, shape", [(1, (2, 3, 5, 5)), ((2, 3), (2, 2, 5, 7)), ((3, None), (1, 2, 7, 4)),
                                                (4, (2, 4, 4)), ((5, 3), (1, 1, 3, 2))])
@pytest.mark.parametrize("return_indices", [False, True])
def test_adaptive_max_pool2d_matches_torch(torch, output_size, shape, return_indices):
    _check(torch, nn.AdaptiveMaxPool2d(output_size, return_indices),
           torch.nn.AdaptiveMaxPool2d(output_size, return_indices), shape)


def test_adaptive_pool1d_matches_torch(torch):
    _check(torch, nn.AdaptiveAvgPool1d(3), torch.nn.AdaptiveAvgPool1d(3), (2, 3, 7))
    _check(torch, nn.AdaptiveMaxPool1d(3, True), torch.nn.AdaptiveMaxPool1d(3, True), (2, 3, 7))


@pytest.mark.parametrize("kernel, stride, padding, shape, output_size", [
    (2, None, 0, (2, 3, 6, 6), None),
    (3, 2, 1, (1, 2, 7, 7), None),
    (3, 2, 1, (1, 2, 7, 7), (7, 7)),
    (2, None, 0, (2, 5, 4), None),  # unbatched
])
def test_max_unpool2d_matches_torch(torch, kernel, stride, padding, shape, output_size):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    pooled, indices = torch.nn.functional.max_pool2d(torch.from_numpy(x), kernel, stride, padding, return_indices=True)
    ours, theirs = nn.MaxUnpool2d(kernel, stride, padding), torch.nn.MaxUnpool2d(kernel, stride, padding)
    assert repr(ours) == repr(theirs)
    values = pooled.numpy()
    mine = minitorch.from_numpy(values.copy()).requires_grad_()
    theirs_input = torch.from_numpy(values.copy()).requires_grad_()
    out = ours(mine, minitorch.from_numpy(indices.numpy()), output_size)
    tout = theirs(theirs_input, indices, output_size)
    _close(out, tout)
    grad = rng.standard_normal(tuple(tout.shape))
    out.backward(minitorch.from_numpy(grad))
    tout.backward(torch.from_numpy(grad))
    _close(mine.grad, theirs_input.grad)


def test_max_unpool1d_round_trip(torch):
    x = minitorch.tensor([[[1.0, 5.0, 2.0, 3.0, 0.0, 4.0]]])
    values, indices = F.max_pool1d(x, 2, return_indices=True)
    unpooled = nn.MaxUnpool1d(2)(values, indices)
    assert unpooled.tolist() == [[[0.0, 5.0, 0.0, 3.0, 0.0, 4.0]]]


# -- gradcheck (first and second order) ------------------------------------------------------------
def _leaf(rng, *shape):
    return minitorch.from_numpy(rng.standard_normal(shape)).requires_grad_()


@pytest.mark.parametrize("function", [
    lambda x: F.max_pool2d(x, 2),
    lambda x: F.max_pool2d(x, 3, stride=1, padding=1),
    lambda x: F.max_pool2d(x, 2, ceil_mode=True),
    lambda x: F.max_pool1d(x.flatten(2), 3, stride=2),
    lambda x: F.avg_pool2d(x, 2, ceil_mode=True, padding=1, count_include_pad=False),
    lambda x: F.avg_pool2d(x, 3, stride=1),
    lambda x: F.avg_pool1d(x.flatten(2), 3),
    lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
    lambda x: F.adaptive_max_pool2d(x, (2, 3)),
    lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2, output_size=(5, 5)),
])
def test_pooling_gradcheck_and_gradgradcheck(function):
    rng = np.random.default_rng(2)
    x = _leaf(rng, 1, 2, 5, 5)
    assert minitorch.autograd.gradcheck(function, (x,))
    assert minitorch.autograd.gradgradcheck(function, (x,))


# -- errors ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda lib, F: F.max_pool2d(lib.zeros(1, 1, 4, 4), 3, padding=2),
    lambda lib, F: F.max_pool2d(lib.zeros(1, 1, 1, 1), 2),
    lambda lib, F: F.max_pool2d(lib.zeros(1, 1, 4, 4), 2, stride=0),
    lambda lib, F: F.avg_pool2d(lib.zeros(1, 1, 4, 4), 3, padding=2),
    lambda lib, F: F.adaptive_avg_pool2d(lib.zeros(4, 4), 2),
    lambda lib, F: F.max_unpool2d(lib.zeros(1, 1, 2, 2), lib.tensor([[[[0, 1], [2, 99]]]]), 2),
])
def test_errors_match_torch(torch, call):
    with pytest.raises(Exception) as expected:
        call(torch, torch.nn.functional)
    with pytest.raises(type(expected.value)) as got:
        call(minitorch, F)
    assert str(got.value) == str(expected.value)


def test_nan_propagates_like_torch(torch):
    """A NaN in a window is its maximum; PyTorch reports the last NaN of the window as the index."""
    x = np.random.default_rng(3).standard_normal((1, 2, 6, 6))
    x[0, 0, 1, 1] = x[0, 0, 0, 1] = x[0, 1, 4, 4] = np.nan
    for ours_call, theirs_call in [
        (lambda a: F.max_pool2d(a, 3, stride=1, padding=1, return_indices=True),
         lambda a: torch.nn.functional.max_pool2d(a, 3, stride=1, padding=1, return_indices=True)),
        (lambda a: F.adaptive_max_pool2d(a, (4, 3), return_indices=True),
         lambda a: torch.nn.functional.adaptive_max_pool2d(a, (4, 3), return_indices=True)),
    ]:
        (values, indices), (their_values, their_indices) = ours_call(minitorch.from_numpy(x)), theirs_call(
            torch.from_numpy(x))
        np.testing.assert_array_equal(indices.numpy(), their_indices.numpy())
        np.testing.assert_allclose(values.numpy(), their_values.numpy(), equal_nan=True)


def test_float32_max_pool_and_avg_pool_keep_dtype(torch):
    x = np.random.default_rng(4).standard_normal((2, 3, 7, 7)).astype(np.float32)
    for name in ("max_pool2d", "avg_pool2d"):
        ours = getattr(F, name)(minitorch.from_numpy(x), 3, stride=2, padding=1)
        theirs = getattr(torch.nn.functional, name)(torch.from_numpy(x), 3, stride=2, padding=1)
        assert ours.dtype == minitorch.float32
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)
