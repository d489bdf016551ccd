"""Gamma, Beta, Dirichlet and Poisson (minitorch/distributions) against PyTorch: densities, moments,
entropies and their gradients; the draws' shapes, supports and statistics; and the implicit
reparameterisation gradient of the gamma draws against a finite difference of the inverse CDF."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import minitorch
from tests.support import require_torch

A = [0.3, 1.0, 2.5, 7.0]
B = [2.0, 0.7, 1.0, 4.0]


def _make(lib, name):
    D = lib.distributions
    a = lib.tensor(A, dtype=lib.float64, requires_grad=True)
    b = lib.tensor(B, dtype=lib.float64, requires_grad=True)
    built = {
        "Gamma": lambda: (D.Gamma(a, b), lib.tensor([0.2, 1.5, 3.0, 0.01], dtype=lib.float64)),
        "Beta": lambda: (D.Beta(a, b), lib.tensor([0.2, 0.5, 0.9, 0.99], dtype=lib.float64)),
        "Dirichlet": lambda: (D.Dirichlet(lib.stack([a, b, a * b], -1)),
                              lib.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3], [0.1, 0.1, 0.8], [1 / 3, 1 / 3, 1 / 3]],
                                         dtype=lib.float64)),
        "Poisson": lambda: (D.Poisson(a), lib.tensor([0.0, 1.0, 4.0, 9.0], dtype=lib.float64)),
    }[name]
    distribution, value = built()
    return distribution, value, (a, b)


NAMES = ["Gamma", "Beta", "Dirichlet", "Poisson"]
QUANTITIES = {
    "log_prob": lambda d, v: d.log_prob(v), "mean": lambda d, v: d.mean, "variance": lambda d, v: d.variance,
    "stddev": lambda d, v: d.stddev, "entropy": lambda d, v: d.entropy(), "mode": lambda d, v: d.mode,
}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("quantity", QUANTITIES)
def test_quantities_and_their_gradients_match_pytorch(name, quantity):
    torch = require_torch()
    if name == "Poisson" and quantity == "entropy":
        with pytest.raises(NotImplementedError):
            torch.distributions.Poisson(torch.tensor([1.0])).entropy()
        with pytest.raises(NotImplementedError):
            minitorch.distributions.Poisson(minitorch.tensor([1.0])).entropy()
        return
    results = []
    for lib in (minitorch, torch):
        distribution, value, parameters = _make(lib, name)
        result = QUANTITIES[quantity](distribution, value)
        grads = []
        if result.requires_grad:
            result.sum().backward()
            grads = [p.grad.numpy() if p.grad is not None else None for p in parameters]
        results.append((result.detach().numpy(), grads))
    (mine, my_grads), (theirs, their_grads) = results
    np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12, equal_nan=True)
    assert len(my_grads) == len(their_grads)
    for my_grad, their_grad in zip(my_grads, their_grads):
        assert (my_grad is None) == (their_grad is None)
        if my_grad is not None:  # digamma's gradient is PyTorch's trigamma series, accurate to about 1e-8
            np.testing.assert_allclose(my_grad, their_grad, rtol=1e-7, atol=1e-12)


def test_gamma_cdf_matches_pytorch():
    torch = require_torch()
    values = [lib.distributions.Gamma(lib.tensor(A), lib.tensor(B)).cdf(lib.tensor([0.2, 1.5, 3.0, 0.01])).numpy()
              for lib in (minitorch, torch)]
    np.testing.assert_allclose(values[0], values[1], rtol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_draws_have_pytorchs_shapes_and_lie_in_the_support(name):
    torch = require_torch()
    for sample_shape in [(), (5,), (2, 3)]:
        shapes = []
        for lib in (minitorch, torch):
            distribution, _, _ = _make(lib, name)
            draw = distribution.sample(sample_shape)
            shapes.append((tuple(draw.shape), draw.requires_grad, distribution.has_rsample))
            if lib is minitorch:
                assert bool(distribution.support.check(draw).all()), name
                if distribution.has_rsample:
                    assert distribution.rsample(sample_shape).requires_grad
        assert shapes[0] == shapes[1]


@pytest.mark.parametrize("name", ["Gamma", "Beta", "Poisson"])
def test_sample_means_and_variances_agree_with_the_formulas(name):
    minitorch.manual_seed(0)
    distribution, _, _ = _make(minitorch, name)
    draws = distribution.sample((40_000,)).numpy()
    mean, variance = distribution.mean.detach().numpy(), distribution.variance.detach().numpy()
    standard_error = np.sqrt(variance / draws.shape[0])
    assert np.all(np.abs(draws.mean(0) - mean) < 5 * standard_error), (draws.mean(0), mean)
    np.testing.assert_allclose(draws.var(0), variance, rtol=0.1)


def test_draws_are_reproducible_after_manual_seed():
    draws = []
    for _ in range(2):
        minitorch.manual_seed(3)
        draws.append(minitorch.distributions.Dirichlet(minitorch.tensor([0.5, 2.0, 3.0])).sample((4,)).numpy())
    np.testing.assert_array_equal(draws[0], draws[1])


def test_gamma_rsample_gradient_is_the_implicit_derivative():
    """With the uniform number u = F(x; a) held fixed, x = F^-1(u; a): the gradient of a draw with
    respect to a must be the derivative of the inverse CDF (SciPy's gammaincinv, by central difference)."""
    minitorch.manual_seed(1)
    a = minitorch.tensor([0.3, 1.0, 2.5, 7.0, 30.0], dtype=minitorch.float64, requires_grad=True)
    draw = minitorch.distributions.Gamma(a, minitorch.ones(5, dtype=minitorch.float64)).rsample()
    draw.sum().backward()
    concentration, x = a.detach().numpy(), draw.detach().numpy()
    u = scipy.special.gammainc(concentration, x)
    step = 1e-6 * np.maximum(concentration, 1.0)
    expected = (scipy.special.gammaincinv(concentration + step, u)
                - scipy.special.gammaincinv(concentration - step, u)) / (2 * step)
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-4)


def test_invalid_parameters_raise_pytorchs_error():
    torch = require_torch()
    messages = []
    for lib in (minitorch, torch):
        with pytest.raises(ValueError) as caught:
            lib.distributions.Gamma(lib.tensor([-1.0]), lib.tensor([1.0]), validate_args=True)
        messages.append(str(caught.value).replace("torch.", "").replace("minitorch.", ""))
    assert messages[0].split(" found invalid values")[0] == messages[1].split(" found invalid values")[0]
