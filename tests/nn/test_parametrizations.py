"""``nn.utils.parametrizations`` (weight_norm, spectral_norm, orthogonal) and the deprecated hook-based
``nn.utils.weight_norm``, against PyTorch with the same seed: weights, outputs and gradients."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


def _build(lib, kind):
    lib.manual_seed(0)
    P = lib.nn.utils.parametrizations
    layers = {
        "weight_norm": lambda: P.weight_norm(lib.nn.Linear(5, 4)),
        "weight_norm_dim1": lambda: P.weight_norm(lib.nn.Linear(5, 4), dim=1),
        "weight_norm_whole": lambda: P.weight_norm(lib.nn.Linear(5, 4), dim=None),
        "weight_norm_conv": lambda: P.weight_norm(lib.nn.Conv2d(2, 3, 3)),
        "spectral_norm": lambda: P.spectral_norm(lib.nn.Linear(5, 4)),
        "spectral_norm_conv": lambda: P.spectral_norm(lib.nn.Conv2d(2, 3, 3), n_power_iterations=2),
        "orthogonal_square": lambda: P.orthogonal(lib.nn.Linear(4, 4)),
        "orthogonal_cayley": lambda: P.orthogonal(lib.nn.Linear(4, 4), orthogonal_map="cayley"),
        "orthogonal_tall": lambda: P.orthogonal(lib.nn.Linear(3, 6)),
        "orthogonal_wide": lambda: P.orthogonal(lib.nn.Linear(6, 3)),
        "orthogonal_tall_matrix_exp": lambda: P.orthogonal(lib.nn.Linear(3, 6), orthogonal_map="matrix_exp"),
    }
    return layers[kind]()


KINDS = ["weight_norm", "weight_norm_dim1", "weight_norm_whole", "weight_norm_conv", "spectral_norm",
         "spectral_norm_conv", "orthogonal_square", "orthogonal_cayley", "orthogonal_tall", "orthogonal_wide",
         "orthogonal_tall_matrix_exp"]


@pytest.mark.parametrize("kind", KINDS)
def test_parametrized_layers_match_pytorch(kind):
    torch = require_torch()
    results = []
    for lib in (minitorch, torch):
        layer = _build(lib, kind)
        lib.manual_seed(1)
        x = lib.randn(2, 2, 5, 5) if "conv" in kind else lib.randn(2, layer.weight.shape[1])
        first = layer(x)  # in training mode: spectral_norm takes a power-method step here
        second = layer(x)
        (first * second).sum().backward()
        originals = layer.parametrizations.weight
        grads = [getattr(originals, name).grad.numpy() for name in ("original", "original0", "original1")
                 if hasattr(originals, name)]
        text = re.sub(r"\btorch\.", "minitorch.", repr(layer))
        results.append((text, layer.weight.detach().numpy(), second.detach().numpy(), grads))
    (my_text, my_weight, my_out, my_grads), (text, weight, out, grads) = results
    assert my_text == text
    np.testing.assert_allclose(my_weight, weight, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(my_out, out, rtol=1e-5, atol=1e-6)
    assert len(my_grads) == len(grads)
    for mine, theirs in zip(my_grads, grads):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", ["orthogonal_square", "orthogonal_cayley", "orthogonal_tall", "orthogonal_wide"])
def test_orthogonal_weights_stay_orthogonal_while_training(kind):
    layer = _build(minitorch, kind)
    optimizer = minitorch.optim.SGD(layer.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        layer(minitorch.randn(8, layer.weight.shape[1])).pow(2).sum().backward()
        optimizer.step()
    Q = layer.weight.detach()
    gram = Q.T @ Q if Q.shape[0] >= Q.shape[1] else Q @ Q.T
    np.testing.assert_allclose(gram.numpy(), np.eye(gram.shape[0]), atol=1e-5)


def test_spectral_norm_bounds_the_largest_singular_value():
    layer = _build(minitorch, "spectral_norm")
    for _ in range(30):  # power-method steps
        layer(minitorch.randn(1, 5))
    assert abs(float(minitorch.linalg.matrix_norm(layer.weight.detach(), 2)) - 1.0) < 1e-3


def test_deprecated_weight_norm_matches_pytorch():
    torch = require_torch()
    results = []
    for lib in (minitorch, torch):
        lib.manual_seed(0)
        with pytest.warns(FutureWarning, match="weight_norm` is deprecated"):
            layer = lib.nn.utils.weight_norm(lib.nn.Linear(5, 4), name="weight")
        x = lib.randn(3, 5)
        layer(x).sum().backward()
        sizes = (tuple(layer.weight_g.shape), tuple(layer.weight_v.shape))
        grads = (layer.weight_g.grad.numpy(), layer.weight_v.grad.numpy())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = lib.nn.utils.remove_weight_norm(layer)
        results.append((sizes, grads, hasattr(layer, "weight_g"), layer(x).detach().numpy(),
                        sorted(name for name, _ in layer.named_parameters())))
    mine, theirs = results
    assert mine[0] == theirs[0] and mine[2] == theirs[2] and mine[4] == theirs[4]
    for a, b in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine[3], theirs[3], rtol=1e-5, atol=1e-6)


def test_orthogonal_refuses_a_vector():
    torch = require_torch()
    messages = []
    for lib in (minitorch, torch):
        with pytest.raises(ValueError) as caught:
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), "bias")
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
