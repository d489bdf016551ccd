"""``minitorch.distributions`` against ``torch.distributions``: the same parameters give the same shapes,
densities, moments, entropies, divergences, gradients, printed forms and errors; the same seed gives the
same samples."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

torch = require_torch()


CREATED = []  # the parameters made with requires_grad, in order (their gradients are compared)


def _t(lib, values, requires_grad=False):
    tensor = lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64, requires_grad=requires_grad)
    if requires_grad:
        CREATED.append(tensor)
    return tensor


SCORE = np.array([[-1.5, 0.2, 2.0], [0.0, 0.7, -0.3]])
FAMILIES = {  # name: (build(lib, grad), values to score)
    "Normal": (lambda lib, g: lib.distributions.Normal(_t(lib, [[0.5, -1.0, 2.0]], g), _t(lib, [[1.0, 0.5, 2.0]], g)),
               SCORE),
    "Normal-numbers": (lambda lib, g: lib.distributions.Normal(0.5, 2.0), SCORE),
    "Bernoulli-probs": (lambda lib, g: lib.distributions.Bernoulli(probs=_t(lib, [0.2, 0.5, 0.9], g)),
                        np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])),
    "Bernoulli-logits": (lambda lib, g: lib.distributions.Bernoulli(logits=_t(lib, [-1.0, 0.0, 3.0], g)),
                         np.array([[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]])),
    "Categorical-probs": (lambda lib, g: lib.distributions.Categorical(probs=_t(lib, [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]],
                                                                                  g)),
                          np.array([[0.0, 2.0], [1.0, 1.0]])),
    "Categorical-logits": (lambda lib, g: lib.distributions.Categorical(logits=_t(lib, [0.5, -1.0, 2.0, 0.0], g)),
                           np.array([0.0, 3.0, 2.0])),
    "OneHotCategorical": (lambda lib, g: lib.distributions.OneHotCategorical(probs=_t(lib, [0.2, 0.3, 0.5], g)),
                          np.eye(3)),
    "Uniform": (lambda lib, g: lib.distributions.Uniform(_t(lib, [-1.0, 0.0, 1.0], g), _t(lib, [2.0, 0.5, 3.0], g)),
                np.array([[0.0, 0.2, 2.5], [1.0, 0.4, 1.5]])),
    "Exponential": (lambda lib, g: lib.distributions.Exponential(_t(lib, [0.5, 1.0, 3.0], g)),
                    np.array([[0.1, 1.0, 2.0], [3.0, 0.0, 0.5]])),
    "Laplace": (lambda lib, g: lib.distributions.Laplace(_t(lib, [0.0, 1.0, -1.0], g), _t(lib, [1.0, 0.5, 2.0], g)),
                SCORE),
    "MultivariateNormal-cov": (lambda lib, g: lib.distributions.MultivariateNormal(
        _t(lib, [0.5, -1.0], g), covariance_matrix=_t(lib, [[2.0, 0.3], [0.3, 0.5]], g)),
        np.array([[0.0, 0.0], [1.0, -2.0], [-0.5, 0.5]])),
    "MultivariateNormal-tril": (lambda lib, g: lib.distributions.MultivariateNormal(
        _t(lib, [[0.5, -1.0], [0.0, 1.0]], g), scale_tril=_t(lib, [[1.5, 0.0], [0.4, 0.7]], g)),
        np.array([[0.0, 0.0], [1.0, -2.0]])),
    "MultivariateNormal-precision": (lambda lib, g: lib.distributions.MultivariateNormal(
        _t(lib, [0.5, -1.0], g), precision_matrix=_t(lib, [[1.0, -0.2], [-0.2, 2.0]], g)),
        np.array([[0.0, 0.0], [1.0, -2.0]])),
    "Independent-Normal": (lambda lib, g: lib.distributions.Independent(
        lib.distributions.Normal(_t(lib, [[0.5, -1.0, 2.0]], g), _t(lib, [[1.0, 0.5, 2.0]], g)), 1), SCORE),
}


def _summary(lib, name, grad):
    build, values = FAMILIES[name]
    d = build(lib, grad)
    out = {"repr": repr(d).replace("minitorch.", "torch."), "batch": tuple(d.batch_shape),
           "event": tuple(d.event_shape), "rsample": d.has_rsample}
    value = lib.tensor(values, dtype=lib.float64)
    out["log_prob"] = d.log_prob(value)
    for attribute in ("mean", "variance", "stddev", "mode"):
        try:
            out[attribute] = getattr(d, attribute)
        except NotImplementedError:
            out[attribute] = "not implemented"
    out["entropy"] = d.entropy()
    if name.startswith(("Normal", "Uniform", "Exponential", "Laplace")):
        inside = np.array([[0.0, 0.2, 1.5], [1.0, 0.4, 2.5]]) if name == "Uniform" else np.abs(values) + 0.1
        within = lib.tensor(inside, dtype=lib.float64)
        out["cdf"] = d.cdf(within)
        out["icdf"] = d.icdf(lib.tensor([[0.1, 0.5, 0.9]], dtype=lib.float64))
    if d.has_enumerate_support:
        out["support"] = d.enumerate_support()
    out["expand"] = tuple(d.expand((4,) + tuple(d.batch_shape)).batch_shape)
    return d, out


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_densities_moments_and_entropies(name):
    _, ours = _summary(minitorch, name, False)
    _, theirs = _summary(torch, name, False)
    assert ours.keys() == theirs.keys()
    for key in ours:
        mine, reference = ours[key], theirs[key]
        if hasattr(reference, "detach"):
            np.testing.assert_allclose(mine.detach().numpy(), reference.detach().numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"{name}.{key}")
        else:
            assert mine == reference, (name, key)


@pytest.mark.parametrize("name", sorted(n for n in FAMILIES if n != "Normal-numbers"))
def test_gradients_of_log_prob_and_entropy_reach_the_parameters(name):
    grads = {}
    for lib in (minitorch, torch):
        build, values = FAMILIES[name]
        CREATED.clear()
        d = build(lib, True)
        leaves = list(CREATED)
        (d.log_prob(lib.tensor(values, dtype=lib.float64)).sum() + d.entropy().sum()).backward()
        grads[lib.__name__] = [leaf.grad.numpy() for leaf in leaves]
    for mine, reference in zip(grads["minitorch"], grads["torch"]):
        np.testing.assert_allclose(mine, reference, rtol=1e-9, atol=1e-12, err_msg=name)


KL_PAIRS = [
    ("Normal", lambda lib: (lib.distributions.Normal(_t(lib, [0.0, 1.0]), _t(lib, [1.0, 2.0])),
                            lib.distributions.Normal(_t(lib, [0.5, -1.0]), _t(lib, [0.5, 1.0])))),
    ("Bernoulli", lambda lib: (lib.distributions.Bernoulli(_t(lib, [0.0, 0.3, 1.0])),
                               lib.distributions.Bernoulli(_t(lib, [0.5, 0.0, 0.2])))),
    ("Categorical", lambda lib: (lib.distributions.Categorical(_t(lib, [[0.2, 0.8, 0.0], [0.5, 0.5, 0.0]])),
                                 lib.distributions.Categorical(_t(lib, [[0.1, 0.9, 0.0], [0.0, 0.5, 0.5]])))),
    ("OneHot", lambda lib: (lib.distributions.OneHotCategorical(_t(lib, [0.2, 0.8])),
                            lib.distributions.OneHotCategorical(_t(lib, [0.6, 0.4])))),
    ("Uniform", lambda lib: (lib.distributions.Uniform(_t(lib, [0.0, 0.0]), _t(lib, [1.0, 1.0])),
                             lib.distributions.Uniform(_t(lib, [-1.0, 0.5]), _t(lib, [2.0, 1.0])))),
    ("Exponential", lambda lib: (lib.distributions.Exponential(_t(lib, [1.0, 2.0])),
                                 lib.distributions.Exponential(_t(lib, [3.0, 0.5])))),
    ("Laplace", lambda lib: (lib.distributions.Laplace(_t(lib, [0.0, 1.0]), _t(lib, [1.0, 2.0])),
                             lib.distributions.Laplace(_t(lib, [1.0, 1.0]), _t(lib, [0.5, 1.0])))),
    ("MVN", lambda lib: (lib.distributions.MultivariateNormal(_t(lib, [0.0, 1.0]),
                                                              _t(lib, [[2.0, 0.3], [0.3, 0.5]])),
                         lib.distributions.MultivariateNormal(_t(lib, [[1.0, 0.0], [0.0, 2.0]]),
                                                              scale_tril=_t(lib, [[1.0, 0.0], [0.5, 1.5]])))),
    ("Independent", lambda lib: (lib.distributions.Independent(lib.distributions.Normal(_t(lib, [[0.0, 1.0]]),
                                                                                        _t(lib, [[1.0, 2.0]])), 1),
                                 lib.distributions.Independent(lib.distributions.Normal(_t(lib, [[0.5, 0.0]]),
                                                                                        _t(lib, [[1.0, 1.0]])), 1))),
]


@pytest.mark.parametrize("name,build", KL_PAIRS, ids=[name for name, _ in KL_PAIRS])
def test_kl_divergences(name, build):
    ours = minitorch.distributions.kl_divergence(*build(minitorch))
    theirs = torch.distributions.kl_divergence(*build(torch))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


def test_unknown_kl_pairs_and_invalid_arguments_raise_pytorchs_errors():
    def outcomes(lib):
        d = lib.distributions
        d.Distribution.set_default_validate_args(True)  # PyTorch's default; a test run earlier may have changed it
        attempts = [
            lambda: d.kl_divergence(d.Categorical(_t(lib, [0.5, 0.5])), d.Normal(0.0, 1.0)),
            lambda: d.Normal(_t(lib, [0.0, 1.0]), _t(lib, [1.0, -1.0])),
            lambda: d.Normal(0.0, 1.0).log_prob(lib.tensor([float("nan")], dtype=lib.float64)),
            lambda: d.Bernoulli(_t(lib, [0.2, 1.5])),
            lambda: d.Bernoulli(probs=_t(lib, [0.2]), logits=_t(lib, [0.1])),
            lambda: d.Categorical(_t(lib, [0.5, 0.5])).log_prob(lib.tensor([3.0], dtype=lib.float64)),
            lambda: d.Categorical(_t(lib, [[0.5, 0.5]])).log_prob(lib.tensor([[0.0, 1.0, 1.0]])),
            lambda: d.Uniform(_t(lib, [1.0]), _t(lib, [0.0])),
            lambda: d.Exponential(_t(lib, [1.0])).log_prob(lib.tensor([-1.0], dtype=lib.float64)),
            lambda: d.MultivariateNormal(_t(lib, [0.0, 0.0])),
            lambda: d.Independent(d.Normal(0.0, 1.0), 1),
        ]
        results = []
        for attempt in attempts:
            try:
                attempt()
                results.append("no error")
            except Exception as error:  # noqa: BLE001 - compared
                results.append((type(error).__name__, str(error).replace("minitorch.", "torch.")))
        return results

    for mine, reference in zip(outcomes(minitorch), outcomes(torch)):
        assert mine == reference


SAMPLERS = {
    "Normal.sample": lambda lib: lib.distributions.Normal(_t(lib, [0.0, 1.0]), _t(lib, [1.0, 2.0])).sample((3,)),
    "Normal.rsample": lambda lib: lib.distributions.Normal(_t(lib, [0.0, 1.0]), _t(lib, [1.0, 2.0])).rsample((20,)),
    "Bernoulli": lambda lib: lib.distributions.Bernoulli(_t(lib, [0.1, 0.5, 0.9])).sample((5,)),
    "Categorical": lambda lib: lib.distributions.Categorical(_t(lib, [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])).sample((7,)),
    "OneHotCategorical": lambda lib: lib.distributions.OneHotCategorical(_t(lib, [0.2, 0.8])).sample((4,)),
    "Uniform": lambda lib: lib.distributions.Uniform(_t(lib, [0.0, -1.0]), _t(lib, [1.0, 3.0])).rsample((6,)),
    "Exponential": lambda lib: lib.distributions.Exponential(_t(lib, [0.5, 2.0])).rsample((5,)),
    "Laplace": lambda lib: lib.distributions.Laplace(_t(lib, [0.0]), _t(lib, [2.0])).rsample((5,)),
    "MultivariateNormal": lambda lib: lib.distributions.MultivariateNormal(
        _t(lib, [0.0, 1.0]), _t(lib, [[2.0, 0.3], [0.3, 0.5]])).rsample((4,)),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_the_same_seed_draws_pytorchs_samples(name):
    minitorch.manual_seed(11)
    torch.manual_seed(11)
    ours, theirs = SAMPLERS[name](minitorch), SAMPLERS[name](torch)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12, err_msg=name)
