"""Forward-mode AD (``minitorch/autograd/forward_ad.py``) against PyTorch's: the same tangents for the same
inputs and tangents, PyTorch's errors, custom ``Function.jvp`` and ``gradcheck(check_forward_ad=True)``."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


RNG = np.random.default_rng(5)
X, TX = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
W, TW = RNG.standard_normal((5, 4)), RNG.standard_normal((5, 4))
B = RNG.standard_normal(5)

FUNCTIONS = {
    "pointwise": lambda lib, x, w: (x.sin() * x.exp() + x ** 3 / (1 + x * x)).tanh(),
    "linear_relu": lambda lib, x, w: lib.nn.functional.relu(lib.nn.functional.linear(x, w, lib.tensor(B))),
    "matmul_softmax": lambda lib, x, w: lib.softmax(x @ w.T, dim=1),
    "reductions": lambda lib, x, w: lib.stack([x.sum(), x.mean(), (x * x).sum(dim=1).sqrt().max(), x.norm()]),
    "shapes": lambda lib, x, w: lib.cat([x.T.reshape(-1), x[1:, ::2].flatten(), w[0]]) * 2,
    "log_softmax_loss": lambda lib, x, w: lib.nn.functional.cross_entropy(x @ w.T, lib.tensor([0, 3, 1])),
    "layer_norm": lambda lib, x, w: lib.nn.functional.layer_norm(x, (4,)) * w[0],
}


def _tangents(lib, name):
    x, tx = lib.tensor(X), lib.tensor(TX)
    w, tw = lib.tensor(W), lib.tensor(TW)
    fwad = lib.autograd.forward_ad
    with fwad.dual_level():
        out = FUNCTIONS[name](lib, fwad.make_dual(x, tx), fwad.make_dual(w, tw))
        primal, tangent = fwad.unpack_dual(out)
        return primal.detach().numpy().copy(), tangent.numpy().copy()


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_tangents_match_pytorch(torch, name):
    mine, theirs = _tangents(minitorch, name), _tangents(torch, name)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-9, atol=1e-11)


def test_tangent_is_kept_or_copied_and_dropped_with_the_level(torch):
    def build(lib):
        fwad = lib.autograd.forward_ad
        primal, tangent = lib.tensor(X), lib.tensor(TX)
        plain = lib.ones(3, 4)
        with fwad.dual_level():
            dual = fwad.make_dual(primal, tangent)
            alt = fwad.make_dual(primal, lib.tensor(TX.T).T)  # another layout: copied
            out = dual * plain
            inside = (fwad.unpack_dual(dual).tangent is tangent, fwad.unpack_dual(alt).tangent is tangent,
                      fwad.unpack_dual(plain).tangent is None, dual._base is primal,
                      fwad.unpack_dual(out.detach()).tangent is None, fwad.unpack_dual(out.argmax()).tangent is None)
            with lib.no_grad():  # no_grad does not stop forward mode
                under_no_grad = fwad.unpack_dual(dual * 2).tangent is not None
        return inside, under_no_grad, fwad.unpack_dual(out).tangent is None

    assert build(minitorch) == build(torch) == ((True, False, True, True, True, True), True, True)


def test_errors_in_pytorchs_words(torch):
    def build(lib):
        fwad = lib.autograd.forward_ad
        x = lib.ones(2)
        messages = []

        def attempt(action):
            try:
                action()
            except (RuntimeError, ValueError) as error:
                messages.append((type(error).__name__, str(error).replace("minitorch.", "torch.")))  # dtype names

        attempt(lambda: fwad.make_dual(x, lib.ones(2)))
        with fwad.dual_level():
            dual = fwad.make_dual(x, lib.ones(2))
            attempt(lambda: fwad.make_dual(dual, lib.ones(2)))
            attempt(lambda: fwad.make_dual(x, lib.ones(3)))
            attempt(lambda: fwad.make_dual(lib.ones(2, dtype=lib.int64), lib.ones(2)))
        return messages

    mine, theirs = build(minitorch), build(torch)
    assert mine == theirs and len(mine) == 4


def test_reverse_mode_flows_through_make_dual(torch):
    def build(lib):
        fwad = lib.autograd.forward_ad
        p = lib.tensor(X, requires_grad=True)
        with fwad.dual_level():
            dual = fwad.make_dual(p, lib.tensor(TX))
            out = (dual.sin() * 3).sum()
            tangent = fwad.unpack_dual(out).tangent.item()
        out.backward()
        return tangent, p.grad.numpy().copy()

    mine, theirs = build(minitorch), build(torch)
    assert mine[0] == pytest.approx(theirs[0], rel=1e-12)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-12)


def _exp_function(lib, wrong: bool):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = lib.exp(x)
            ctx.result = result
            return result

        @staticmethod
        def jvp(ctx, tangent):
            return tangent * ctx.result * (1.1 if wrong else 1.0)

    return Exp


def test_custom_function_jvp_and_gradcheck_forward_ad(torch):
    def build(lib):
        fwad = lib.autograd.forward_ad
        exp = _exp_function(lib, wrong=False)
        x = lib.tensor(X[0], requires_grad=True)
        with fwad.dual_level():
            tangent = fwad.unpack_dual(exp.apply(fwad.make_dual(x, lib.tensor(TX[0])))).tangent
        checked = lib.autograd.gradcheck(exp.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                         check_undefined_grad=False, check_batched_grad=False)
        wrong = _exp_function(lib, wrong=True)
        try:
            lib.autograd.gradcheck(wrong.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                   check_undefined_grad=False, check_batched_grad=False)
            failure = None
        except RuntimeError as error:
            failure = str(error).splitlines()[0]
        return tangent.detach().numpy().copy(), checked, failure

    mine, theirs = build(minitorch), build(torch)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12)
    assert mine[1:] == theirs[1:]
    assert mine[2] == "Jacobian computed with forward mode mismatch for output 0 with respect to input 0,"


def test_a_custom_function_without_jvp_is_refused(torch):
    def build(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            try:
                Double.apply(fwad.make_dual(lib.ones(2), lib.ones(2)))
            except NotImplementedError as error:
                return str(error)

    assert build(minitorch) == build(torch)


def test_forward_ad_agrees_with_func_jvp():
    fwad = minitorch.autograd.forward_ad
    x, tx = minitorch.tensor(X), minitorch.tensor(TX)
    with fwad.dual_level():
        tangent = fwad.unpack_dual(FUNCTIONS["pointwise"](minitorch, fwad.make_dual(x, tx), None)).tangent
    _, expected = minitorch.func.jvp(lambda t: FUNCTIONS["pointwise"](minitorch, t, None), (x,), (tx,))
    np.testing.assert_allclose(tangent.numpy(), expected.numpy(), rtol=1e-12)
