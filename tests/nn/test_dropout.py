"""Dropout layers: masks differ from PyTorch's (another generator), so their statistics, scaling,
reproducibility under ``manual_seed`` and gradients are tested, and eval mode is the identity."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_statistics_and_scaling(p):
    minitorch.manual_seed(0)
    x = minitorch.ones(200, 100, dtype=minitorch.float64, requires_grad=True)
    y = F.dropout(x, p)
    values = y.detach().numpy()
    assert set(np.unique(values)) <= {0.0, 1 / (1 - p)}
    dropped = (values == 0).mean()
    assert abs(dropped - p) < 4 * math.sqrt(p * (1 - p) / values.size)  # four standard errors
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # the gradient is the mask times the scale


@pytest.mark.parametrize("function, shape", [(F.dropout1d, (20, 30, 7)), (F.dropout1d, (30, 7)),
                                             (F.dropout2d, (20, 30, 3, 4)), (F.dropout3d, (10, 30, 2, 2, 2)),
                                             (F.dropout3d, (30, 2, 2, 2))])
def test_channel_dropout_zeroes_whole_channels(function, shape):
    minitorch.manual_seed(1)
    x = minitorch.rand(*shape, dtype=minitorch.float64) + 1.0
    y = function(x, 0.4).numpy()
    channel_axes = 2 if len(shape) in (3, 5) or (function is F.dropout2d) else 1
    flat = y.reshape(shape[:channel_axes] + (-1,))
    kept = flat != 0
    assert np.all(kept.all(-1) | (~kept).all(-1))  # every channel is kept or dropped as a whole
    np.testing.assert_allclose(flat[kept.all(-1)], (x.numpy() / 0.6).reshape(flat.shape)[kept.all(-1)])
    dropped = (~kept).all(-1)
    assert abs(dropped.mean() - 0.4) < 4 * math.sqrt(0.4 * 0.6 / dropped.size)


def test_dropout_is_reproducible_under_manual_seed():
    x = minitorch.ones(50)
    minitorch.manual_seed(7)
    first = [F.dropout(x).tolist(), F.dropout2d(minitorch.ones(2, 5, 2, 2)).tolist(),
             F.alpha_dropout(x, training=True).tolist()]
    minitorch.manual_seed(7)
    second = [F.dropout(x).tolist(), F.dropout2d(minitorch.ones(2, 5, 2, 2)).tolist(),
              F.alpha_dropout(x, training=True).tolist()]
    assert first == second
    assert F.dropout(x).tolist() != first[0]


@pytest.mark.parametrize("name, shape", [("Dropout", (2, 3)), ("Dropout1d", (2, 3, 4)), ("Dropout2d", (2, 3, 2, 2)),
                                         ("Dropout3d", (2, 3, 2, 2, 2)), ("AlphaDropout", (2, 3)),
                                         ("FeatureAlphaDropout", (2, 3, 2))])
def test_eval_mode_is_identity_and_repr(torch, name, shape):
    layer, theirs = getattr(nn, name)(0.3), getattr(torch.nn, name)(0.3)
    assert repr(layer) == repr(theirs)
    assert repr(getattr(nn, name)(p=0.2, inplace=True)) == repr(getattr(torch.nn, name)(p=0.2, inplace=True))
    x = minitorch.randn(*shape)
    assert layer.eval()(x) is x
    assert layer.train()(x) is not x


def test_p_zero_and_one():
    x = minitorch.randn(4, 5, requires_grad=True)
    assert F.dropout(x, 0.0) is x
    y = F.dropout(x, 1.0)
    assert y.abs().sum().item() == 0
    y.sum().backward()
    assert x.grad.abs().sum().item() == 0
    assert F.alpha_dropout(x, 1.0, training=True).abs().sum().item() == 0


def test_inplace_dropout_overwrites_input():
    minitorch.manual_seed(2)
    x = minitorch.ones(100)
    y = nn.Dropout(0.5, inplace=True)(x)
    assert y is x and set(x.tolist()) == {0.0, 2.0}
    leaf = minitorch.ones(3, requires_grad=True)
    hidden = leaf * 2
    F.dropout(hidden, 0.5, inplace=True).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), hidden.detach().numpy())  # 2 * mask * 2 = hidden's values


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_keeps_mean_and_variance(feature):
    minitorch.manual_seed(3)
    x = minitorch.randn(400, 500, dtype=minitorch.float64, requires_grad=True)
    function = F.feature_alpha_dropout if feature else F.alpha_dropout
    y = function(x, 0.2, training=True)
    values = y.detach().numpy()
    assert abs(values.mean()) < 0.05 and abs(values.std() - 1) < 0.05
    y.sum().backward()
    alpha, p = 1.7580993408473766, 0.2
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    kept = x.grad.numpy() != 0
    np.testing.assert_allclose(x.grad.numpy()[kept], a)
    np.testing.assert_allclose(values[kept], a * x.detach().numpy()[kept] + a * alpha * p)
    np.testing.assert_allclose(values[~kept], a * alpha * (p - 1))


def test_dropout_gradcheck():
    x = minitorch.randn(3, 4, 2, dtype=minitorch.float64, requires_grad=True)
    for function in (F.dropout, F.dropout1d, F.dropout2d, F.alpha_dropout):
        def seeded(t, function=function):
            minitorch.manual_seed(0)  # the same mask for every finite-difference evaluation
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return function(t, 0.3, training=True)

        assert minitorch.autograd.gradcheck(seeded, (x,))
        assert minitorch.autograd.gradgradcheck(seeded, (x,))


def _raises_like(ours_call, theirs_call):
    with pytest.raises(Exception) as theirs:
        theirs_call()
    with pytest.raises(type(theirs.value)) as ours:
        ours_call()
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.Dropout(1.5),
    lambda lib: lib.nn.Dropout2d(-0.1),
    lambda lib: lib.nn.functional.dropout(lib.ones(3), -1.0),
    lambda lib: lib.nn.functional.dropout1d(lib.ones(2, 3, 4, 5)),
    lambda lib: lib.nn.functional.feature_alpha_dropout(lib.ones(3), 0.5, True),
    lambda lib: lib.nn.functional.dropout(lib.arange(3), 0.5),
])
def test_errors_match_torch(torch, call):
    _raises_like(lambda: call(minitorch), lambda: call(torch))


def test_dropout2d_warns_like_torch(torch):
    for lib in (torch, minitorch):
        with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
            lib.nn.functional.dropout2d(lib.ones(2, 3, 4))
        with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
            lib.nn.functional.dropout2d(lib.ones(2, 3))
