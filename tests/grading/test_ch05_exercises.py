"""Chapter 5's exercise checks reject the usual mistakes (an overflowing softmax, the textbook momentum, no
bias correction), and the references are what minitorch's optimizers and schedulers do.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from grading import check, randn
from grading.registry import get


def _naive_cross_entropy(logits, targets):
    probabilities = logits.exp() / logits.exp().sum(dim=1, keepdim=True)
    return -probabilities[minitorch.arange(logits.shape[0]), targets].log().mean()


def _summed_cross_entropy(logits, targets):
    return minitorch.nn.functional.cross_entropy(logits, targets, reduction="sum")


def _textbook_momentum(param, grad, velocity, lr, momentum):
    """v = momentum * v - lr * g; p = p + v: the same path for a fixed lr, but not PyTorch's velocity."""
    new_velocity = momentum * velocity - lr * grad
    return param + new_velocity, new_velocity


def _adam_with(correct: bool, eps_inside: bool = False, return_corrected: bool = False):
    def adam_step(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps):
        exp_avg = beta1 * exp_avg + (1 - beta1) * grad
        exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * grad * grad
        corrected_avg = exp_avg / (1 - beta1**step) if correct else exp_avg
        corrected_avg_sq = exp_avg_sq / (1 - beta2**step) if correct else exp_avg_sq
        denominator = (corrected_avg_sq + eps).sqrt() if eps_inside else corrected_avg_sq.sqrt() + eps
        new_param = param - lr * corrected_avg / denominator
        if return_corrected:
            return new_param, corrected_avg, corrected_avg_sq
        return new_param, exp_avg, exp_avg_sq

    return adam_step


WRONG = {
    "cross-entropy: naive softmax overflows": ("ch05.cross_entropy", _naive_cross_entropy),
    "cross-entropy: summed, not averaged": ("ch05.cross_entropy", _summed_cross_entropy),
    "momentum: textbook convention": ("ch05.sgd_momentum_step", _textbook_momentum),
    "momentum: forgot the momentum": (
        "ch05.sgd_momentum_step", lambda param, grad, velocity, lr, momentum: (param - lr * grad, grad),
    ),
    "adam: no bias correction": ("ch05.adam_step", _adam_with(correct=False)),
    "adam: returns the corrected averages": ("ch05.adam_step", _adam_with(correct=True, return_corrected=True)),
    "adam: eps inside the square root": ("ch05.adam_step", _adam_with(correct=True, eps_inside=True)),
    "cosine: forgot min_lr": (
        "ch05.cosine_lr", lambda step, total, base, low: base * (1 + math.cos(math.pi * step / total)) / 2,
    ),
    "cosine: a full period": (
        "ch05.cosine_lr",
        lambda step, total, base, low: low + (base - low) * (1 + math.cos(2 * math.pi * step / total)) / 2,
    ),
}


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_typical_mistake_fails_the_check(mistake, capsys):
    name, function = WRONG[mistake]
    with pytest.raises(AssertionError):
        check(name, function)
    assert "FAILED" in capsys.readouterr().out


# -- the references are what minitorch's optimizers and schedulers do -------------------------------------
def _run_optimizer(make_optimizer, gradients):
    param = minitorch.tensor(randn(4, seed=10), requires_grad=True)
    optimizer = make_optimizer([param])
    for gradient in gradients:
        param.grad = minitorch.tensor(gradient)
        optimizer.step()
    return param.detach(), optimizer.state[param]


GRADIENTS = [randn(4, seed=20 + step) for step in range(5)]


def test_momentum_reference_matches_optim_sgd():
    expected, state = _run_optimizer(lambda params: minitorch.optim.SGD(params, lr=0.1, momentum=0.9), GRADIENTS)
    param, velocity = minitorch.tensor(randn(4, seed=10)), minitorch.zeros(4)
    for gradient in GRADIENTS:
        param, velocity = get("ch05.sgd_momentum_step").reference(param, minitorch.tensor(gradient), velocity, 0.1, 0.9)
    assert minitorch.allclose(param, expected, atol=1e-6)
    assert minitorch.allclose(velocity, state["momentum_buffer"], atol=1e-6)


def test_adam_reference_matches_optim_adam():
    options = {"lr": 0.05, "betas": (0.8, 0.95), "eps": 1e-6}
    expected, state = _run_optimizer(lambda params: minitorch.optim.Adam(params, **options), GRADIENTS)
    param, exp_avg, exp_avg_sq = minitorch.tensor(randn(4, seed=10)), minitorch.zeros(4), minitorch.zeros(4)
    for step, gradient in enumerate(GRADIENTS, start=1):
        param, exp_avg, exp_avg_sq = get("ch05.adam_step").reference(
            param, minitorch.tensor(gradient), exp_avg, exp_avg_sq, step, 0.05, 0.8, 0.95, 1e-6
        )
    assert minitorch.allclose(param, expected, atol=1e-6)
    assert minitorch.allclose(exp_avg, state["exp_avg"], atol=1e-6)
    assert minitorch.allclose(exp_avg_sq, state["exp_avg_sq"], atol=1e-6)


def test_cosine_reference_matches_cosine_annealing_lr():
    optimizer = minitorch.optim.SGD([minitorch.zeros(1, requires_grad=True)], lr=0.3)
    scheduler = minitorch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=20, eta_min=0.01)
    for step in range(21):
        assert math.isclose(optimizer.param_groups[0]["lr"], get("ch05.cosine_lr").reference(step, 20, 0.3, 0.01),
                            rel_tol=1e-9, abs_tol=1e-12)
        optimizer.step()
        scheduler.step()


def test_cross_entropy_reference_is_finite_on_large_logits():
    logits, targets = get("ch05.cross_entropy").public[-1]
    loss = get("ch05.cross_entropy").reference(minitorch.tensor(logits), minitorch.tensor(targets))
    assert np.isfinite(loss.item()) and loss.item() > 0
