"""PixelShuffle, PixelUnshuffle, ChannelShuffle, Upsample / F.interpolate against PyTorch (float64), plus gradchecks."""

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


def _check(torch, ours, theirs, shape, seed=0):
    rng = np.random.default_rng(seed)
    if hasattr(ours, "train"):
        assert repr(ours) == repr(theirs)
    for training in (True, False):
        if hasattr(ours, "train"):
            ours.train(training)
            theirs.train(training)
        array = rng.standard_normal(shape)
        x, tx = minitorch.from_numpy(array.copy()).requires_grad_(), torch.from_numpy(array.copy()).requires_grad_()
        out, tout = ours(x), theirs(tx)
        assert tuple(out.shape) == tuple(tout.shape)
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-6, atol=1e-12)
        grad = rng.standard_normal(tuple(tout.shape))
        out.backward(minitorch.from_numpy(grad))
        tout.backward(torch.from_numpy(grad))
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("factor, shape", [(2, (2, 8, 3, 4)), (3, (9, 2, 2)), (2, (2, 3, 4, 2, 2))])
def test_pixel_shuffle_and_unshuffle_match_torch(torch, factor, shape):
    _check(torch, nn.PixelShuffle(factor), torch.nn.PixelShuffle(factor), shape)
    unshuffled_shape = shape[:-3] + (shape[-3] // factor ** 2, shape[-2] * factor, shape[-1] * factor)
    _check(torch, nn.PixelUnshuffle(factor), torch.nn.PixelUnshuffle(factor), unshuffled_shape)


def test_pixel_unshuffle_inverts_pixel_shuffle():
    x = minitorch.randn(2, 12, 3, 5)
    np.testing.assert_array_equal(F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2).numpy(), x.numpy())


@pytest.mark.parametrize("groups, shape", [(2, (2, 6, 3, 3)), (3, (1, 6, 4)), (4, (2, 8, 2, 2, 2))])
def test_channel_shuffle_matches_torch(torch, groups, shape):
    _check(torch, nn.ChannelShuffle(groups), torch.nn.ChannelShuffle(groups), shape)
    _check(torch, lambda x: F.channel_shuffle(x, groups), lambda x: torch.nn.functional.channel_shuffle(x, groups),
           shape)


INTERPOLATE = [
    ({"scale_factor": 2}, (2, 3, 4, 5)),
    ({"scale_factor": 1.7}, (1, 2, 5)),
    ({"scale_factor": (1.5, 0.5)}, (1, 2, 4, 6)),
    ({"scale_factor": 1.7, "recompute_scale_factor": True}, (1, 2, 5)),
    ({"size": (7, 3)}, (2, 2, 4, 5)),
    ({"size": 5, "mode": "nearest-exact"}, (1, 2, 3)),
    ({"scale_factor": 2, "mode": "bilinear"}, (2, 2, 3, 4)),
    ({"scale_factor": 2, "mode": "bilinear", "align_corners": True}, (2, 2, 3, 4)),
    ({"size": (5, 2), "mode": "bilinear", "align_corners": False}, (1, 2, 3, 7)),
    ({"size": (1, 6), "mode": "bilinear", "align_corners": True}, (1, 2, 3, 4)),
    ({"scale_factor": 0.6, "mode": "bilinear"}, (1, 1, 5, 7)),
    ({"scale_factor": 2.5, "mode": "linear"}, (2, 3, 4)),
    ({"size": 7, "mode": "linear", "align_corners": True}, (2, 3, 4)),
    ({"scale_factor": 2, "mode": "bicubic"}, (1, 2, 3, 4)),
    ({"size": (5, 3), "mode": "bicubic", "align_corners": True}, (1, 2, 4, 4)),
    ({"scale_factor": 2, "mode": "trilinear"}, (1, 1, 2, 3, 2)),
    ({"size": (2, 3), "mode": "area"}, (1, 2, 5, 7)),
]


@pytest.mark.parametrize("options, shape", INTERPOLATE)
def test_interpolate_matches_torch(torch, options, shape):
    _check(torch, lambda x: F.interpolate(x, **options), lambda x: torch.nn.functional.interpolate(x, **options), shape)


@pytest.mark.parametrize("args, kwargs, shape", [
    ((), {"scale_factor": 2}, (1, 2, 3, 3)),
    ((), {"size": (5, 4), "mode": "bilinear"}, (1, 2, 3, 3)),
    ((), {"scale_factor": 3, "mode": "bilinear", "align_corners": True}, (2, 1, 2, 3)),
    ((), {"size": 6, "mode": "linear"}, (2, 2, 4)),
])
def test_upsample_matches_torch(torch, args, kwargs, shape):
    _check(torch, nn.Upsample(*args, **kwargs), torch.nn.Upsample(*args, **kwargs), shape)


def test_upsampling_nearest_and_bilinear_2d_match_torch(torch):
    _check(torch, nn.UpsamplingNearest2d(scale_factor=2), torch.nn.UpsamplingNearest2d(scale_factor=2), (1, 2, 3, 3))
    _check(torch, nn.UpsamplingNearest2d(size=(4, 5)), torch.nn.UpsamplingNearest2d(size=(4, 5)), (1, 2, 3, 3))
    _check(torch, nn.UpsamplingBilinear2d(scale_factor=2), torch.nn.UpsamplingBilinear2d(scale_factor=2),
           (1, 2, 3, 3))
    _check(torch, nn.UpsamplingBilinear2d(size=3), torch.nn.UpsamplingBilinear2d(size=3), (2, 1, 5, 4))


@pytest.mark.parametrize("function", [
    lambda x: F.pixel_shuffle(x, 2),
    lambda x: F.pixel_unshuffle(x, 2),
    lambda x: F.channel_shuffle(x, 2),
    lambda x: F.interpolate(x, scale_factor=1.5),
    lambda x: F.interpolate(x, size=(3, 5), mode="bilinear"),
    lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
    lambda x: F.interpolate(x, size=(3, 3), mode="bicubic"),
])
def test_vision_gradcheck_and_gradgradcheck(function):
    rng = np.random.default_rng(1)
    x = minitorch.from_numpy(rng.standard_normal((1, 4, 2, 4))).requires_grad_()
    assert minitorch.autograd.gradcheck(function, (x,))
    assert minitorch.autograd.gradgradcheck(function, (x,))


@pytest.mark.parametrize("call", [
    lambda lib, F: F.pixel_shuffle(lib.zeros(1, 3, 2, 2), 2),
    lambda lib, F: F.pixel_shuffle(lib.zeros(3, 3), 2),
    lambda lib, F: F.pixel_unshuffle(lib.zeros(1, 3, 3, 3), 2),
    lambda lib, F: F.channel_shuffle(lib.zeros(1, 3, 3, 3), 2),
    lambda lib, F: F.channel_shuffle(lib.zeros(3, 4), 2),
    lambda lib, F: F.interpolate(lib.zeros(1, 1, 3), scale_factor=2, mode="bilinear"),
    lambda lib, F: F.interpolate(lib.zeros(1, 1, 3, 3), mode="nearest"),
    lambda lib, F: F.interpolate(lib.zeros(1, 1, 3, 3), size=4, scale_factor=2),
    lambda lib, F: F.interpolate(lib.zeros(1, 1, 3, 3), size=4, align_corners=True),
    lambda lib, F: F.interpolate(lib.zeros(1, 1, 3, 3), scale_factor=2, mode="foo"),
])
def test_errors_match_torch(torch, call):
    with pytest.raises(Exception) as expected:
        call(torch, torch.nn.functional)
    with pytest.raises(type(expected.value)) as got:
        call(minitorch, F)
    assert str(got.value) == str(expected.value)


# -- interpolate(antialias=True) (nn/functional/_antialias.py) -------------------------------------------------
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shape, size", [((2, 3, 7, 9), (2, 2)), ((1, 2, 16, 5), (3, 4)), ((1, 1, 4, 4), (12, 13)),
                                         ((2, 1, 9, 6), (1, 1)), ((1, 2, 8, 8), (8, 3))])
def test_antialiased_interpolation_matches_pytorch(mode, align_corners, shape, size):
    torch = require_torch()
    values = np.random.default_rng(0).standard_normal(shape)
    theirs = torch.tensor(values, requires_grad=True)
    ours = minitorch.tensor(values, requires_grad=True)
    expected = torch.nn.functional.interpolate(theirs, size=size, mode=mode, align_corners=align_corners,
                                               antialias=True)
    got = minitorch.nn.functional.interpolate(ours, size=size, mode=mode, align_corners=align_corners, antialias=True)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    weights = np.random.default_rng(1).standard_normal(expected.shape)
    (expected * torch.tensor(weights)).sum().backward()
    (got * minitorch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("scale_factor", [0.5, 0.75, 2.0, (0.4, 0.6)])
@pytest.mark.parametrize("recompute", [None, True])
def test_antialiased_interpolation_by_scale_factor_matches_pytorch(scale_factor, recompute):
    torch = require_torch()
    values = np.random.default_rng(2).standard_normal((1, 2, 10, 7))
    expected = torch.nn.functional.interpolate(torch.tensor(values), scale_factor=scale_factor, mode="bilinear",
                                               antialias=True, recompute_scale_factor=recompute)
    got = minitorch.nn.functional.interpolate(minitorch.tensor(values), scale_factor=scale_factor, mode="bilinear",
                                              antialias=True, recompute_scale_factor=recompute)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode, shape", [("nearest", (1, 1, 4, 4)), ("linear", (1, 1, 4)), ("area", (1, 1, 4, 4))])
def test_antialias_outside_bilinear_and_bicubic_is_refused_like_pytorch(mode, shape):
    torch = require_torch()
    with pytest.raises(ValueError) as theirs:
        torch.nn.functional.interpolate(torch.ones(shape), size=2, mode=mode, antialias=True)
    with pytest.raises(ValueError) as ours:
        minitorch.nn.functional.interpolate(minitorch.ones(shape), size=2, mode=mode, antialias=True)
    assert str(ours.value) == str(theirs.value)
