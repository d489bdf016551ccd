"""``nn.init``: deterministic fills equal PyTorch's; random fills have the right distribution (large tensors)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn import init
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _error(callable_):
    with pytest.raises(Exception) as info:
        callable_()
    return type(info.value).__name__, str(info.value)


def test_calculate_gain_matches_torch(torch):
    for nonlinearity in ("linear", "conv1d", "conv2d", "conv_transpose3d", "sigmoid", "tanh", "relu", "selu",
                         "leaky_relu"):
        assert init.calculate_gain(nonlinearity) == torch.nn.init.calculate_gain(nonlinearity)
    for slope in (0, 0.2, 1, math.sqrt(5)):
        assert init.calculate_gain("leaky_relu", slope) == torch.nn.init.calculate_gain("leaky_relu", slope)
    for bad in (("leaky_relu", True), ("leaky_relu", "x"), ("swish", None)):
        assert _error(lambda bad=bad: init.calculate_gain(*bad)) == _error(
            lambda bad=bad: torch.nn.init.calculate_gain(*bad))


def test_fans_match_torch(torch):
    for shape in ((3, 5), (4, 3, 2, 2), (6, 2, 3), (2, 0)):
        assert init._calculate_fan_in_and_fan_out(minitorch.empty(shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert _error(lambda: init._calculate_fan_in_and_fan_out(minitorch.empty(3))) == _error(
        lambda: torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(3)))


def test_deterministic_fills_match_torch(torch):
    cases = [
        ((4, 6), lambda lib, t: lib.nn.init.constant_(t, 0.3)),
        ((4, 6), lambda lib, t: lib.nn.init.ones_(t)),
        ((4, 6), lambda lib, t: lib.nn.init.zeros_(t)),
        ((4, 6), lambda lib, t: lib.nn.init.eye_(t)),
        ((6, 4), lambda lib, t: lib.nn.init.eye_(t)),
        ((4, 2, 3), lambda lib, t: lib.nn.init.dirac_(t)),
        ((6, 3, 3, 3), lambda lib, t: lib.nn.init.dirac_(t, groups=2)),
        ((2, 4, 3, 2, 5), lambda lib, t: lib.nn.init.dirac_(t)),
    ]
    for shape, fill in cases:
        ours = minitorch.empty(shape).requires_grad_()
        theirs = torch.empty(shape).requires_grad_()
        assert fill(minitorch, ours) is ours
        fill(torch, theirs)
        np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
        assert ours.requires_grad and ours.is_leaf


def test_init_errors_match_torch(torch):
    cases = [
        lambda lib: lib.nn.init.eye_(lib.empty(2, 2, 2)),
        lambda lib: lib.nn.init.dirac_(lib.empty(2, 2)),
        lambda lib: lib.nn.init.dirac_(lib.empty(3, 2, 2), groups=2),
        lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
        lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 2), mode="fan_middle"),
        lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
        lambda lib: lib.nn.init.sparse_(lib.empty(3), 0.1),
    ]
    for case in cases:
        assert _error(lambda case=case: case(minitorch)) == _error(lambda case=case: case(torch))


SHAPE = (400, 250)  # 100,000 samples: the sample std is within ~0.5% of the true one


def _check_uniform(values, bound):
    assert values.min() >= -bound and values.max() <= bound
    assert values.min() < -0.99 * bound and values.max() > 0.99 * bound
    assert abs(values.mean()) < 0.02 * bound
    assert abs(values.std() - bound / math.sqrt(3)) < 0.02 * bound / math.sqrt(3)


def _check_normal(values, std, mean=0.0):
    assert abs(values.mean() - mean) < 0.02 * std
    assert abs(values.std() - std) < 0.02 * std
    assert abs(np.mean(np.abs(values - mean) < std) - 0.6827) < 0.01  # about 68% within one std


def test_uniform_and_normal():
    values = init.uniform_(minitorch.empty(SHAPE, dtype=minitorch.float64), -2.0, 3.0).numpy()
    assert values.min() >= -2.0 and values.max() < 3.0 and abs(values.mean() - 0.5) < 0.05
    _check_normal(init.normal_(minitorch.empty(SHAPE), 1.5, 0.3).numpy(), 0.3, mean=1.5)


def test_xavier_and_kaiming_scales_match_torch_formulas(torch):
    fan_in, fan_out = SHAPE[1], SHAPE[0]
    gain = 2.0
    _check_uniform(init.xavier_uniform_(minitorch.empty(SHAPE), gain=gain).numpy(),
                   gain * math.sqrt(6.0 / (fan_in + fan_out)))
    _check_normal(init.xavier_normal_(minitorch.empty(SHAPE), gain=gain).numpy(),
                  gain * math.sqrt(2.0 / (fan_in + fan_out)))
    for a, mode, nonlinearity in ((0, "fan_in", "leaky_relu"), (0.2, "fan_out", "leaky_relu"),
                                  (0, "fan_in", "relu"), (0, "fan_out", "tanh"),
                                  (math.sqrt(5), "fan_in", "leaky_relu")):
        fan = fan_in if mode == "fan_in" else fan_out
        std = torch.nn.init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
        _check_uniform(init.kaiming_uniform_(minitorch.empty(SHAPE), a, mode, nonlinearity).numpy(),
                       math.sqrt(3.0) * std)
        _check_normal(init.kaiming_normal_(minitorch.empty(SHAPE), a, mode, nonlinearity).numpy(), std)
    conv_weight = init.kaiming_normal_(minitorch.empty(64, 32, 5, 5), nonlinearity="relu").numpy()
    _check_normal(conv_weight, math.sqrt(2.0) / math.sqrt(32 * 25))


def test_kaiming_on_empty_tensor_warns(torch):
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(minitorch.empty(0, 3))


def test_orthogonal():
    for shape, gain in (((30, 50), 1.0), ((50, 30), 2.0), ((8, 3, 2, 2), 1.0)):
        weight = init.orthogonal_(minitorch.empty(shape, dtype=minitorch.float64), gain=gain).numpy()
        matrix = weight.reshape(shape[0], -1)
        small = min(matrix.shape)
        product = matrix @ matrix.T if matrix.shape[0] <= matrix.shape[1] else matrix.T @ matrix
        np.testing.assert_allclose(product, gain**2 * np.eye(small), atol=1e-10)


def _truncated_normal_moments(mean, std, a, b):
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda z: math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    mass = cdf(beta) - cdf(alpha)
    shift = (pdf(alpha) - pdf(beta)) / mass
    variance = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / mass - shift**2
    return mean + std * shift, std * math.sqrt(variance)


@pytest.mark.parametrize("mean, std, a, b", [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 1.0), (0.0, 1.0, 1.5, 3.0)])
def test_trunc_normal(mean, std, a, b):
    values = init.trunc_normal_(minitorch.empty(SHAPE, dtype=minitorch.float64), mean, std, a, b).numpy()
    assert values.min() >= a and values.max() <= b
    expected_mean, expected_std = _truncated_normal_moments(mean, std, a, b)
    assert abs(values.mean() - expected_mean) < 0.02 * expected_std
    assert abs(values.std() - expected_std) < 0.02 * expected_std


def test_trunc_normal_warns_when_mean_far_outside():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(minitorch.empty(10), mean=10.0, std=1.0, a=-1.0, b=1.0)


def test_sparse():
    values = init.sparse_(minitorch.empty(100, 40), sparsity=0.3, std=0.5).numpy()
    assert np.all((values == 0).sum(axis=0) >= 30)
    nonzero = values[values != 0]
    assert abs(nonzero.std() - 0.5) < 0.05


def test_generator_makes_draws_reproducible_and_does_not_record():
    fills = [
        lambda t, g: init.uniform_(t, generator=g), lambda t, g: init.normal_(t, generator=g),
        lambda t, g: init.xavier_uniform_(t, generator=g), lambda t, g: init.kaiming_normal_(t, generator=g),
        lambda t, g: init.trunc_normal_(t, generator=g), lambda t, g: init.orthogonal_(t, generator=g),
    ]
    for fill in fills:
        first = nn.Parameter(minitorch.empty(5, 4))
        second = nn.Parameter(minitorch.empty(5, 4))
        fill(first, minitorch.Generator().manual_seed(3))
        fill(second, minitorch.Generator().manual_seed(3))
        np.testing.assert_array_equal(first.detach().numpy(), second.detach().numpy())
        assert first.grad_fn is None and first.requires_grad and isinstance(first, nn.Parameter)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.kaiming_uniform_(nn.Linear(3, 2).weight)


@pytest.mark.parametrize("old_name", ["uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
                                      "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse", "eye", "dirac"])
def test_the_deprecated_names_without_underscore_warn_and_fill_as_pytorch(torch, old_name):
    # Old code (pyGAT's layers, Rainbow's first model) calls nn.init.xavier_uniform(w, gain=...) and init.orthogonal(p).
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(old_name, ())
    shape = (2, 3, 3) if old_name == "dirac" else (4, 6)
    results = []
    for library in (torch, minitorch):
        library.manual_seed(3)
        tensor = library.empty(*shape)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            returned = getattr(library.nn.init, old_name)(tensor, *args)
        assert returned is tensor
        results.append((tensor.numpy(), [(w.category, str(w.message)) for w in caught],
                        getattr(library.nn.init, old_name).__name__))
    (expected, expected_warnings, expected_name), (got, got_warnings, got_name) = results
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert got_warnings == expected_warnings and got_name == expected_name == old_name
