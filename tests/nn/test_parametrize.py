"""``nn.utils.parametrize`` against PyTorch: values, gradients, training, right_inverse, removal, caching, errors."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minitorch
from minitorch.nn.utils import parametrize
from tests.support import require_torch


def _classes(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Skew(lib.nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu(1)

    class Scale(lib.nn.Module):  # composes with the others; its right_inverse undoes it
        def forward(self, X):
            return 2 * X

        def right_inverse(self, X):
            return X / 2

    class RankOne(lib.nn.Module):  # a parametrization of two tensors
        def forward(self, x, y):
            return x.unsqueeze(-1) @ y.unsqueeze(-2)

        def right_inverse(self, Z):
            return Z[:, 0], Z[0, :] / Z[0, 0]

    return {"Symmetric": Symmetric, "Skew": Skew, "Scale": Scale, "RankOne": RankOne}


def _layer(lib, weight, bias):
    layer = lib.nn.Linear(3, 3)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(weight))
        layer.bias.copy_(lib.tensor(bias))
    return layer


@pytest.mark.parametrize("chain", [["Symmetric"], ["Skew"], ["Skew", "Scale"], ["Symmetric", "Scale"]])
def test_parametrized_weight_trains_like_pytorch(chain):
    torch = require_torch()
    rng = np.random.default_rng(0)
    weight, bias = rng.standard_normal((3, 3)), rng.standard_normal(3)
    x = rng.standard_normal((5, 3))
    results = {}
    for lib in (minitorch, torch):
        classes = _classes(lib)
        layer = _layer(lib, weight, bias).double()
        for name in chain:
            lib.nn.utils.parametrize.register_parametrization(layer, "weight", classes[name]())
        assert type(layer).__name__ == "ParametrizedLinear"
        optimizer = lib.optim.SGD(layer.parameters(), lr=0.1)
        for _ in range(3):
            optimizer.zero_grad()
            (layer(lib.tensor(x)) ** 2).sum().backward()
            optimizer.step()
        results[lib.__name__] = (
            layer.weight.detach().numpy().copy(), layer.parametrizations.weight.original.detach().numpy().copy(),
            sorted(dict(layer.named_parameters())), sorted(layer.state_dict()), repr(layer),
        )
    ours, theirs = results["minitorch"], results["torch"]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-12)
    assert ours[2:] == theirs[2:]


def test_assignment_runs_right_inverse_and_removal_keeps_the_value():
    torch = require_torch()
    rng = np.random.default_rng(1)
    weight, bias = rng.standard_normal((3, 3)), rng.standard_normal(3)
    skew = rng.standard_normal((3, 3))
    skew = skew - skew.T
    results = {}
    for lib in (minitorch, torch):
        classes = _classes(lib)
        layer = _layer(lib, weight, bias)
        original = layer.weight
        lib.nn.utils.parametrize.register_parametrization(layer, "weight", classes["Skew"]())
        assert layer.parametrizations.weight.original is original  # the same Parameter object
        layer.weight = lib.tensor(skew, dtype=lib.float32)
        assigned = layer.weight.detach().numpy().copy()
        lib.nn.utils.parametrize.remove_parametrizations(layer, "weight")
        results[lib.__name__] = (assigned, layer.weight.detach().numpy().copy(), type(layer).__name__,
                                 lib.nn.utils.parametrize.is_parametrized(layer), isinstance(layer.weight,
                                                                                            lib.nn.Parameter))
    ours, theirs = results["minitorch"], results["torch"]
    np.testing.assert_allclose(ours[0], skew, rtol=1e-6)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert ours[2:] == theirs[2:] == ("Linear", False, True)


def test_two_tensor_parametrization_and_leave_parametrized_false():
    torch = require_torch()
    rng = np.random.default_rng(2)
    weight = np.outer(rng.uniform(1, 2, 3), rng.uniform(1, 2, 3))
    results = {}
    for lib in (minitorch, torch):
        layer = _layer(lib, weight, np.zeros(3)).double()
        lib.nn.utils.parametrize.register_parametrization(layer, "weight", _classes(lib)["RankOne"]())
        names = sorted(dict(layer.named_parameters()))
        value = layer.weight.detach().numpy().copy()
        with pytest.raises(ValueError) as error:
            lib.nn.utils.parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
        results[lib.__name__] = (names, value, str(error.value))
    ours, theirs = results["minitorch"], results["torch"]
    assert ours[0] == theirs[0] == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    np.testing.assert_allclose(ours[1], weight, rtol=1e-6)  # the weight went through the float32 layer first
    assert ours[2] == theirs[2]


def test_leave_parametrized_false_restores_the_original():
    classes = _classes(minitorch)
    layer = _layer(minitorch, np.eye(3) + np.triu(np.ones((3, 3)), 1), np.zeros(3))
    parametrize.register_parametrization(layer, "weight", classes["Symmetric"]())
    original = layer.parametrizations.weight.original.detach().clone()
    parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
    assert minitorch.equal(layer.weight.detach(), original)
    assert parametrize.type_before_parametrizations(layer) is minitorch.nn.Linear


def test_cached_computes_once_per_block():
    calls = []

    class Counting(minitorch.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1

    layer = parametrize.register_parametrization(minitorch.nn.Linear(2, 2), "weight", Counting())
    calls.clear()
    with parametrize.cached():
        first, second = layer.weight, layer.weight
    assert first is second and len(calls) == 1
    layer.weight, layer.weight  # noqa: B018 - reading runs the parametrization each time outside cached()
    assert len(calls) == 3


def test_parametrized_class_is_per_module_and_deepcopies():
    classes = _classes(minitorch)
    layer, other = minitorch.nn.Linear(3, 3), minitorch.nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", classes["Symmetric"]())
    assert type(other) is minitorch.nn.Linear and not parametrize.is_parametrized(other)
    replica = copy.deepcopy(layer)
    assert minitorch.equal(replica.weight, layer.weight) and replica.weight is not layer.weight
    assert parametrize.type_before_parametrizations(layer) is minitorch.nn.Linear


def _error_of(lib, case):
    """The error ``case`` raises with ``lib``, as (type name, message with torch's module name)."""

    class Shrink(lib.nn.Module):
        def forward(self, X):
            return X[:2]

    class Double(lib.nn.Module):
        def forward(self, X):
            return X.double()

    layer = lib.nn.Linear(3, 3)
    P = lib.nn.utils.parametrize
    calls = {
        "unknown name": lambda: P.register_parametrization(lib.nn.Linear(3, 3), "weights", Shrink()),
        "shape change": lambda: P.register_parametrization(layer, "weight", Shrink()),
        "dtype change": lambda: P.register_parametrization(layer, "weight", Double()),
        "pickle": lambda: pickle.dumps(P.register_parametrization(layer, "weight", _classes(lib)["Symmetric"]())),
        "not parametrized": lambda: P.remove_parametrizations(lib.nn.Linear(3, 3), "weight"),
    }
    with pytest.raises((ValueError, RuntimeError)) as error:
        calls[case]()
    return type(error.value).__name__, str(error.value).replace("minitorch.", "torch.")


@pytest.mark.parametrize("case", ["unknown name", "shape change", "dtype change", "pickle", "not parametrized"])
def test_errors_match_pytorch(case):
    torch = require_torch()
    ours, theirs = _error_of(minitorch, case), _error_of(torch, case)
    # Each message embeds the module's repr, which is the same text in both libraries.
    assert ours == theirs
