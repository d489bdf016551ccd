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
from tests.support import require_torch


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
        "ch05.sgd_momentum_step",
        lambda param, grad, velocity, lr, momentum: (param - lr * grad, grad),
    ),
    "adam: no bias correction": ("ch05.adam_step", _adam_with(correct=False)),
    "adam: returns the corrected averages": ("ch05.adam_step", _adam_with(correct=True, return_corrected=True)),
    "adam: eps inside the square root": ("ch05.adam_step", _adam_with(correct=True, eps_inside=True)),
    "cosine: forgot min_lr": (
        "ch05.cosine_lr",
        lambda step, total, base, low: base * (1 + math.cos(math.pi * step / total)) / 2,
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
        assert math.isclose(
            optimizer.param_groups[0]["lr"],
            get("ch05.cosine_lr").reference(step, 20, 0.3, 0.01),
            rel_tol=1e-9,
            abs_tol=1e-12,
        )
        optimizer.step()
        scheduler.step()


def test_cross_entropy_reference_is_finite_on_large_logits():
    logits, targets = get("ch05.cross_entropy").public[-1]
    loss = get("ch05.cross_entropy").reference(minitorch.tensor(logits), minitorch.tensor(targets))
    assert np.isfinite(loss.item()) and loss.item() > 0


# -- build it: the softmax cross-entropy Function, and AdamW as an Optimizer ------------------------------
from tests.grading.chapter_notebooks import graded_cells, solutions  # noqa: E402

SOLUTIONS = solutions("05_losses_and_optimizers")
F = minitorch.nn.functional
optim = minitorch.optim


def _cross_entropy_function(backward_rule, stable=True):
    """A SoftmaxCrossEntropy whose backward is ``backward_rule(probabilities, one_hot, grad_output)``."""

    class Variant(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, logits, targets):
            if stable:
                logits = logits - logits.max(dim=1, keepdim=True).values
            probabilities = logits.exp() / logits.exp().sum(dim=1, keepdim=True)
            one_hot = F.one_hot(targets, logits.shape[1]).to(logits.dtype)
            ctx.save_for_backward(probabilities, one_hot)
            return -(probabilities.log() * one_hot).sum() / logits.shape[0]

        @staticmethod
        def backward(ctx, grad_output):
            probabilities, one_hot = ctx.saved_tensors
            return backward_rule(probabilities, one_hot, grad_output), None

    def softmax_cross_entropy_with_grad(logits, targets, scale):
        logits = logits.detach().requires_grad_()
        loss = Variant.apply(logits, targets)
        (loss * scale).backward()
        return loss.detach(), logits.grad

    return softmax_cross_entropy_with_grad


CROSS_ENTROPY_MISTAKES = {
    "p without the one-hot": (lambda p, y, g: g * p / p.shape[0], "4 samples, 3 classes"),
    "not divided by the batch size": (lambda p, y, g: g * (p - y), "4 samples, 3 classes"),
    "grad_output ignored": (lambda p, y, g: (p - y) / p.shape[0], "scaled by -2.5"),
    "y - p (the sign)": (lambda p, y, g: g * (y - p) / p.shape[0], "4 samples, 3 classes"),
}


@pytest.mark.parametrize("mistake", sorted(CROSS_ENTROPY_MISTAKES))
def test_cross_entropy_backward_mistakes_fail_on_the_case_that_names_them(mistake, capsys):
    rule, label = CROSS_ENTROPY_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch05.softmax_cross_entropy_with_grad", _cross_entropy_function(rule))
    first_failure = [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]
    assert label in first_failure and "logits.grad" in first_failure


def test_an_overflowing_softmax_fails_on_the_large_logits(capsys):
    with pytest.raises(AssertionError):
        check(
            "ch05.softmax_cross_entropy_with_grad",
            _cross_entropy_function(lambda p, y, g: g * (p - y) / p.shape[0], stable=False),
        )
    assert "logits in the hundreds" in capsys.readouterr().out


def test_cross_entropy_written_differently_passes_and_gradchecks(capsys):
    # the log-softmax from logsumexp, the gradient from the saved log-probabilities
    class FromLogSumExp(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, logits, targets):
            log_probabilities = logits - logits.logsumexp(dim=1, keepdim=True)
            ctx.save_for_backward(log_probabilities, targets)
            return -log_probabilities.gather(1, targets.unsqueeze(1)).mean()

        @staticmethod
        def backward(ctx, grad_output):
            log_probabilities, targets = ctx.saved_tensors
            gradient = log_probabilities.exp()
            gradient[minitorch.arange(targets.shape[0]), targets] -= 1
            return gradient * (grad_output / targets.shape[0]), None

    def softmax_cross_entropy_with_grad(logits, targets, scale):
        logits = logits.detach().requires_grad_()
        loss = FromLogSumExp.apply(logits, targets)
        (loss * scale).backward()
        return loss.detach(), logits.grad

    check("ch05.softmax_cross_entropy_with_grad", softmax_cross_entropy_with_grad)
    assert "all 4 public cases pass" in capsys.readouterr().out
    logits = minitorch.randn(3, 5, dtype=minitorch.float64, requires_grad=True)
    labels = minitorch.tensor([4, 0, 2])
    assert minitorch.autograd.gradcheck(lambda z: SOLUTIONS["SoftmaxCrossEntropy"].apply(z, labels), (logits,))


ADAMW_GIVEN = graded_cells("05_losses_and_optimizers", "source", "solution")["ch05-adamw"].split(
    "def adamw_run_of_my_optimizer", 1
)[1]


def _run_with(optimizer_class):
    names = dict(SOLUTIONS, MyAdamW=optimizer_class)
    exec("def adamw_run_of_my_optimizer" + ADAMW_GIVEN, names)
    return names["adamw_run_of_my_optimizer"]


def _adamw_variant(*, l2=False, corrected=True, decay_after=False, group_lr=True, state_on_self=False):
    class Variant(optim.Optimizer):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
            super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})
            self.moments = {}

        @minitorch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr = group["lr"] if group_lr else self.defaults["lr"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    state = self.moments.setdefault(id(param), {}) if state_on_self else self.state[param]
                    if not state:
                        state.update(
                            step=0, exp_avg=minitorch.zeros_like(param), exp_avg_sq=minitorch.zeros_like(param)
                        )
                        if state_on_self:
                            self.state[param]["exp_avg_sq"] = state["exp_avg_sq"]
                    state["step"] += 1
                    grad = param.grad + group["weight_decay"] * param if l2 else param.grad
                    if not l2 and not decay_after:
                        param.mul_(1 - lr * group["weight_decay"])
                    state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
                    state["exp_avg_sq"].mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                    m, v = state["exp_avg"], state["exp_avg_sq"]
                    if corrected:
                        m, v = m / (1 - beta1 ** state["step"]), v / (1 - beta2 ** state["step"])
                    param.sub_(lr * m / (v.sqrt() + group["eps"]))
                    if decay_after and not l2:
                        param.mul_(1 - lr * group["weight_decay"])

    return Variant


ADAMW_MISTAKES = {
    "weight decay added to the gradient (Adam's L2)": (_adamw_variant(l2=True), "decoupled (AdamW)"),
    "no bias correction": (_adamw_variant(corrected=False), "Adam's moments and bias correction"),
    "the defaults' lr for every group": (_adamw_variant(group_lr=False), "output 2 (second parameter"),
    "state kept outside self.state": (_adamw_variant(state_on_self=True), "the state must live in self.state"),
}


@pytest.mark.parametrize("mistake", sorted(ADAMW_MISTAKES))
def test_adamw_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    variant, words = ADAMW_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch05.adamw_run", _run_with(variant))
    first_failure = [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]
    assert words in first_failure


def test_adamw_written_differently_passes(capsys):
    # PyTorch's own arrangement: step_size = lr / bias_correction1, denominator scaled by sqrt(bias_correction2)
    class StepSizeAdamW(optim.Optimizer):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

        @minitorch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for param in (p for p in group["params"] if p.grad is not None):
                    state = self.state[param]
                    state.setdefault("step", 0)
                    state.setdefault("exp_avg", minitorch.zeros_like(param))
                    state.setdefault("exp_avg_sq", minitorch.zeros_like(param))
                    state["step"] += 1
                    (beta1, beta2), t = group["betas"], state["step"]
                    param.mul_(1 - group["lr"] * group["weight_decay"])
                    state["exp_avg"].lerp_(param.grad, 1 - beta1)
                    state["exp_avg_sq"].mul_(beta2).addcmul_(param.grad, param.grad, value=1 - beta2)
                    denominator = state["exp_avg_sq"].sqrt() / math.sqrt(1 - beta2**t) + group["eps"]
                    param.addcdiv_(state["exp_avg"], denominator, value=-group["lr"] / (1 - beta1**t))

    check("ch05.adamw_run", _run_with(StepSizeAdamW))
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_adamw_reference_follows_torch_step_by_step():
    torch = require_torch()
    from grading.exercises.ch05 import adamw_run

    case = get("ch05.adamw_run").public[2]  # six steps, resumed from state_dict after three
    ours = adamw_run(optim.AdamW, *case, "exp_avg_sq")
    theirs = adamw_run_torch(torch, *case)
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine.numpy(), reference, rtol=1e-5, atol=1e-7)


def adamw_run_torch(torch, first, second, first_grads, second_grads, learning_rate, weight_decay):
    first = torch.tensor(first, requires_grad=True)
    second = torch.tensor(second, requires_grad=True)
    groups = [{"params": [first]}, {"params": [second], "lr": learning_rate / 2, "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=learning_rate, betas=(0.9, 0.99), eps=1e-8, weight_decay=weight_decay)
    trajectory = []
    for step in range(len(first_grads)):  # no save and restore: it must change nothing
        first.grad = torch.tensor(first_grads[step])
        second.grad = None if step == 0 else torch.tensor(second_grads[step])
        optimizer.step()
        trajectory.append(first.detach().clone().numpy())
    return np.stack(trajectory), second.detach().numpy(), optimizer.state[first]["exp_avg_sq"].numpy()
