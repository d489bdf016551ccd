"""``autograd.functional`` (jacobian, hessian, vjp, jvp, vhp, hvp) against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _inputs(lib):
    rng = np.random.default_rng(7)
    return (lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float64),
            lib.tensor(rng.standard_normal(3), dtype=lib.float64))


def _vector_function(lib):
    return lambda x: (x.exp() * x.sin()).sum(dim=0) + x[0] ** 2


def _two_in_two_out(lib):
    return lambda x, y: ((x * y).tanh(), (x @ y).sigmoid() * y.sum())


def _scalar_function(lib):
    return lambda x: (x.sin() * x.cos() + x ** 3).sum()


def _scalar_two_inputs(lib):
    return lambda x, y: ((x * y).sum() ** 2 + (y ** 3).sum())


CASES = {
    "jacobian": lambda lib, x, y: lib.autograd.functional.jacobian(_vector_function(lib), x),
    "jacobian-tuples": lambda lib, x, y: lib.autograd.functional.jacobian(_two_in_two_out(lib), (x, y)),
    "jacobian-vectorize": lambda lib, x, y: lib.autograd.functional.jacobian(_vector_function(lib), x, vectorize=True),
    "jacobian-forward": lambda lib, x, y: lib.autograd.functional.jacobian(
        _two_in_two_out(lib), (x, y), strategy="forward-mode", vectorize=True),
    "jacobian-forward-unvectorized": lambda lib, x, y: lib.autograd.functional.jacobian(
        _two_in_two_out(lib), (x, y), strategy="forward-mode"),
    "jacobian-independent": lambda lib, x, y: lib.autograd.functional.jacobian(lambda a, b: a * 2, (x, y)),
    "jacobian-strict": lambda lib, x, y: lib.autograd.functional.jacobian(lambda a, b: a * 2, (x, y), strict=True),
    "hessian": lambda lib, x, y: lib.autograd.functional.hessian(_scalar_function(lib), x),
    "hessian-tuples": lambda lib, x, y: lib.autograd.functional.hessian(_scalar_two_inputs(lib), (x, y)),
    "hessian-not-scalar": lambda lib, x, y: lib.autograd.functional.hessian(lambda a: a * 2, x),
    "vjp": lambda lib, x, y: lib.autograd.functional.vjp(_vector_function(lib), x, y),
    "vjp-tuples": lambda lib, x, y: lib.autograd.functional.vjp(_two_in_two_out(lib), (x, y), (x, y[:2])),
    "vjp-no-v": lambda lib, x, y: lib.autograd.functional.vjp(_scalar_function(lib), x),
    "vjp-bad-v": lambda lib, x, y: lib.autograd.functional.vjp(_vector_function(lib), x, x),
    "vjp-not-tensor": lambda lib, x, y: lib.autograd.functional.vjp(_vector_function(lib), [1.0]),
    "jvp": lambda lib, x, y: lib.autograd.functional.jvp(_vector_function(lib), x, x * 0.5),
    "jvp-tuples": lambda lib, x, y: lib.autograd.functional.jvp(_two_in_two_out(lib), (x, y), (x, y)),
    "vhp": lambda lib, x, y: lib.autograd.functional.vhp(_scalar_function(lib), x, x.cos()),
    "hvp": lambda lib, x, y: lib.autograd.functional.hvp(_scalar_two_inputs(lib), (x, y), (x, y)),
    "hvp-not-scalar": lambda lib, x, y: lib.autograd.functional.hvp(lambda a: a * 2, x, x),
}


def _flatten(value):
    if isinstance(value, (tuple, list)):
        return [item for part in value for item in _flatten(part)]
    return [value]


def _outcome(lib, build):
    try:
        result = build(lib, *_inputs(lib))
    except Exception as error:  # noqa: BLE001 - the error is compared
        message = str(error).replace("minitorch.Size", "Size").replace("torch.Size", "Size")
        return ("error", type(error).__name__, message)
    return ("ok", [(tuple(t.shape), t.requires_grad, t.detach().numpy()) for t in _flatten(result)])


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_pytorch(torch, case):
    ours, theirs = _outcome(minitorch, CASES[case]), _outcome(torch, CASES[case])
    if theirs[0] == "error":
        assert ours[:2] == theirs[:2]
        assert ours[2] == theirs[2]
        return
    assert ours[0] == "ok", ours
    assert [(shape, grad) for shape, grad, _ in ours[1]] == [(shape, grad) for shape, grad, _ in theirs[1]]
    for (_, _, mine), (_, _, reference) in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(mine, reference, rtol=1e-10, atol=1e-12)


def test_create_graph_lets_the_result_be_differentiated_again(torch):
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor([0.3, -1.2], dtype=lib.float64, requires_grad=True)
        jac = lib.autograd.functional.jacobian(lambda a: a.sin() * a, x, create_graph=True)
        (grad,) = lib.autograd.grad(jac.sum(), x)
        _, product = lib.autograd.functional.hvp(lambda a: (a ** 4).sum(), x, lib.ones(2, dtype=lib.float64),
                                                 create_graph=True)
        (second,) = lib.autograd.grad(product.sum(), x)
        results.append((jac.requires_grad, grad.numpy(), second.numpy()))
    assert results[0][0] is results[1][0] is True
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-12)
