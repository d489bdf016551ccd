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


# -- build it: the Optimizer base under AdamW ----------------------------------------------------------------
import textwrap  # noqa: E402

from grading.library.optim import optimizer_report, pytorch_state_dict  # noqa: E402
from tests.grading.chapter_notebooks import NOTEBOOK_IMPORTS, graded_cells, solutions  # noqa: E402


def _cells(*cell_ids) -> dict:
    names = dict(NOTEBOOK_IMPORTS)
    cells = graded_cells("05_losses_and_optimizers", "source", "solution")
    for cell_id in cell_ids:
        exec(compile(cells[cell_id], f"<05 {cell_id}>", "exec"), names)
    return names


BASE = _cells("ch05-optimizer")
Optimizer, AdamW = BASE["Optimizer"], BASE["AdamW"]


def _report_with(adamw_class):
    return lambda *case: optimizer_report(adamw_class, *case)


class DefaultsNotFilled(AdamW):
    def add_param_group(self, param_group):
        group = dict(param_group, params=list(param_group["params"]))
        self.param_groups.append(group)


class TwoGroupsAccepted(AdamW):
    def add_param_group(self, param_group):
        group = dict(param_group, params=list(param_group["params"]))
        for name, default in self.defaults.items():
            group.setdefault(name, default)
        self.param_groups.append(group)


class SetToNoneIgnored(AdamW):
    def zero_grad(self, set_to_none=True):
        super().zero_grad(set_to_none=False)


def _step_with(*, corrected=True, coupled_decay=False, key=None):
    """AdamW's step with one thing changed: no bias correction, decay added to the gradient, or the state keyed
    by something other than the parameter."""

    @minitorch.no_grad()
    def step(self):
        position = 0
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                position += 1
                if param.grad is None:
                    continue
                state = self.state.setdefault(param if key is None else key(param, position), {})
                if not state:
                    state.update(step=0.0, exp_avg=minitorch.zeros_like(param), exp_avg_sq=minitorch.zeros_like(param))
                state["step"] = float(state["step"]) + 1
                grad = param.grad
                if coupled_decay:
                    grad = grad + group["weight_decay"] * param
                else:
                    param.mul_(1 - group["lr"] * group["weight_decay"])
                state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
                state["exp_avg_sq"].mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                first = 1 - beta1 ** state["step"] if corrected else 1.0
                second = 1 - beta2 ** state["step"] if corrected else 1.0
                denominator = (state["exp_avg_sq"] / second).sqrt() + group["eps"]
                param.sub_(group["lr"] * (state["exp_avg"] / first) / denominator)

    return step


class NoBiasCorrection(AdamW):
    step = _step_with(corrected=False)


class DecayInTheGradient(AdamW):
    step = _step_with(coupled_decay=True)


class StateByPosition(AdamW):
    """self.state[position]: the updates are right, but state[param] finds nothing and state_dict is wrong."""

    step = _step_with(key=lambda param, position: position - 1)


class StateDictKeepsTensors(AdamW):
    """state_dict with the parameters themselves in 'params' instead of their positions."""

    def state_dict(self):
        saved = super().state_dict()
        for group, own in zip(saved["param_groups"], self.param_groups):
            group["params"] = list(own["params"])
        return saved


class LoadKeepsOwnOptions(AdamW):
    """load_state_dict restores the state but keeps the groups' own options (lr, betas, eps)."""

    def load_state_dict(self, state_dict):
        groups = [dict(group) for group in self.param_groups]
        super().load_state_dict(state_dict)
        self.param_groups = groups


OPTIMIZER_MISTAKES = {
    "group defaults not filled in": (DefaultsNotFilled, "output 1 (param_groups"),
    "a parameter in two groups accepted": (TwoGroupsAccepted, "a parameter in two groups"),
    "set_to_none ignored": (SetToNoneIgnored, "zero_grad()"),
    "bias correction missing": (NoBiasCorrection, "bias correction"),
    "weight decay added to the gradient": (DecayInTheGradient, "weight decay decoupled"),
    "state keyed by position": (StateByPosition, "state is keyed by the parameter itself"),
    "state_dict keeps the tensors": (StateDictKeepsTensors, "integer indices"),
    "load_state_dict ignores the saved options": (LoadKeepsOwnOptions, "PyTorch's format"),
}


@pytest.mark.parametrize("mistake", sorted(OPTIMIZER_MISTAKES))
def test_optimizer_mistakes_fail_with_feedback_naming_the_concept(mistake, capsys):
    optimizer_class, words = OPTIMIZER_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch05.optimizer_base", _report_with(optimizer_class))
    first_failure = [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]
    assert words in first_failure, first_failure


class ListedOptimizer:
    """Correct, written differently: groups built in one pass, state in a list of (param, dict) pairs behind a
    mapping, state_dict numbering by a running counter, and the step written with tensor expressions."""

    class _State(dict):
        """A dict keyed by identity (a tensor's == compares values)."""

        def __init__(self):
            super().__init__()
            self.pairs = []

        def __getitem__(self, param):
            for known, entry in self.pairs:
                if known is param:
                    return entry
            entry = {}
            self.pairs.append((param, entry))
            return entry

        def items(self):
            return list(self.pairs)

        def __len__(self):
            return len(self.pairs)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        self.defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        given = list(params)
        groups = given if isinstance(given[0], dict) else [{"params": given}]
        self.param_groups, seen = [], []
        for group in groups:
            members = list(group["params"])
            if any(any(member is other for other in seen) for member in members):
                raise ValueError("some parameters appear in more than one parameter group")
            seen += members
            self.param_groups.append({**self.defaults, **group, "params": members})
        self.state = self._State()

    def zero_grad(self, set_to_none=True):
        for param in (param for group in self.param_groups for param in group["params"]):
            if param.grad is not None:
                param.grad = None if set_to_none else minitorch.zeros_like(param.grad)

    def _numbered(self):
        return [(number, param) for number, param in enumerate(p for g in self.param_groups for p in g["params"])]

    def state_dict(self):
        number_of = {id(param): number for number, param in self._numbered()}
        counter = iter(range(len(number_of)))
        groups = [{**{k: v for k, v in g.items() if k != "params"}, "params": [next(counter) for _ in g["params"]]}
                  for g in self.param_groups]  # fmt: skip
        state = {number_of[id(param)]: {k: (v.clone() if hasattr(v, "clone") else v) for k, v in entry.items()}
                 for param, entry in self.state.items()}  # fmt: skip
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        params = dict(self._numbered())
        self.state = self._State()
        for number, entry in state_dict["state"].items():
            self.state[params[number]].update({k: (v.clone() if hasattr(v, "clone") else v) for k, v in entry.items()})
        self.param_groups = [{**saved, "params": group["params"]}
                             for saved, group in zip(state_dict["param_groups"], self.param_groups)]  # fmt: skip

    @minitorch.no_grad()
    def step(self):
        for group in self.param_groups:
            (beta1, beta2), lr = group["betas"], group["lr"]
            for param in [p for p in group["params"] if p.grad is not None]:
                entry = self.state[param]
                t = float(entry.get("step", 0.0)) + 1
                m = beta1 * entry.get("exp_avg", 0.0) + (1 - beta1) * param.grad
                v = beta2 * entry.get("exp_avg_sq", 0.0) + (1 - beta2) * param.grad**2
                entry.update(step=t, exp_avg=m, exp_avg_sq=v)
                update = (m / (1 - beta1**t)) / ((v / (1 - beta2**t)).sqrt() + group["eps"])
                param.copy_(param * (1 - lr * group["weight_decay"]) - lr * update)


def test_optimizer_written_differently_passes(capsys):
    check("ch05.optimizer_base", _report_with(ListedOptimizer))
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_optimizer_solution_passes_the_hidden_cases(capsys):
    hidden = graded_cells("05_losses_and_optimizers", "source", "grade")["ch05-optimizer-tests"]
    exec(hidden.split("### BEGIN HIDDEN TESTS", 1)[1], dict(NOTEBOOK_IMPORTS, **BASE))
    assert "FAILED" not in capsys.readouterr().out


def _optimizer_cases():
    hidden = graded_cells("05_losses_and_optimizers", "source", "grade")["ch05-optimizer-tests"]
    block = hidden.split("### BEGIN HIDDEN TESTS", 1)[1].replace("from grading import check_hidden", "")
    found = []
    exec(block, dict(NOTEBOOK_IMPORTS, optimizer_report_of_mine=None,
                     check_hidden=lambda name, function, cases: found.extend(cases)))  # fmt: skip
    return list(get("ch05.optimizer_base").public) + found


@pytest.mark.parametrize("case_number", range(6))
def test_the_optimizer_reference_is_pytorchs_adamw(case_number):
    """minitorch's optim.AdamW (the reference) shows on every case, public and hidden, what torch.optim.AdamW
    shows: groups, refusal, steps, state, state_dict, a resumed run and a state_dict in PyTorch's format."""
    torch = require_torch()
    case = _optimizer_cases()[case_number]
    ours = get("ch05.optimizer_base").reference(*case)
    theirs = optimizer_report(torch.optim.AdamW, *case, lib=torch)
    for number, (mine, pytorch) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(np.asarray(mine, dtype=np.float64), np.asarray(pytorch, dtype=np.float64),
                                   rtol=2e-5, atol=1e-7, err_msg=f"output {number + 1}")  # fmt: skip


def test_a_state_dict_saved_by_torch_adamw_continues_identically_in_the_learners_adamw():
    """torch.optim.AdamW trains for a few steps and saves; the solution's AdamW loads that state_dict (converted
    to minitorch tensors) and takes the next steps as PyTorch does."""
    torch = require_torch()
    rng = np.random.default_rng(5)
    values, grads = rng.standard_normal(5).astype(np.float32), rng.standard_normal((6, 5)).astype(np.float32)
    theirs = [torch.tensor(values[:3], requires_grad=True), torch.tensor(values[3:], requires_grad=True)]
    groups = [{"params": theirs[:1]}, {"params": theirs[1:], "lr": 0.02, "weight_decay": 0.0}]
    torch_optimizer = torch.optim.AdamW(groups, lr=0.1, betas=(0.8, 0.95), weight_decay=0.3)
    for row in grads[:3]:
        theirs[0].grad, theirs[1].grad = torch.tensor(row[:3]), torch.tensor(row[3:])
        torch_optimizer.step()
    saved = torch_optimizer.state_dict()
    converted = {
        "state": {index: {key: minitorch.tensor(value.numpy()) for key, value in entry.items()}
                  for index, entry in saved["state"].items()},
        "param_groups": saved["param_groups"],
    }  # fmt: skip
    mine = [minitorch.tensor(p.detach().numpy(), requires_grad=True) for p in theirs]
    optimizer = AdamW([{"params": mine[:1]}, {"params": mine[1:]}], lr=1.0)
    optimizer.load_state_dict(converted)
    for row in grads[3:]:
        theirs[0].grad, theirs[1].grad = torch.tensor(row[:3]), torch.tensor(row[3:])
        mine[0].grad, mine[1].grad = minitorch.tensor(row[:3]), minitorch.tensor(row[3:])
        torch_optimizer.step()
        optimizer.step()
    for ours, reference in zip(mine, theirs):
        np.testing.assert_allclose(ours.detach().numpy(), reference.detach().numpy(), rtol=1e-5, atol=1e-7)
    assert [group["lr"] for group in optimizer.param_groups] == [0.1, 0.02]


def test_the_handmade_pytorch_state_dict_has_every_key_torch_saves():
    torch = require_torch()
    param = torch.zeros(2, requires_grad=True)
    optimizer = torch.optim.AdamW([param])
    param.grad = torch.ones(2)
    optimizer.step()
    saved = optimizer.state_dict()
    handmade = pytorch_state_dict(torch, [2, 1, 1], np.ones((2, 4)), 0.1, 0.0)
    assert set(handmade["param_groups"][0]) == set(saved["param_groups"][0])
    assert set(handmade["state"][0]) == set(saved["state"][0])
    assert handmade["state"][0]["step"].dtype == saved["state"][0]["step"].dtype


@pytest.mark.parametrize(
    "cheat",
    [
        """
        def cheat(values, split, grads, learning_rate, weight_decay):
            return optimizer_report(minitorch.optim.AdamW, values, split, grads, learning_rate, weight_decay)
        """,
        """
        class AdamW(minitorch.optim.Optimizer):  # minitorch's base under the learner's step
            def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
                super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

            def step(self):
                pass

        def cheat(values, split, grads, learning_rate, weight_decay):
            return optimizer_report(AdamW, values, split, grads, learning_rate, weight_decay)
        """,
    ],
)
def test_an_answer_on_minitorchs_optimizer_earns_nothing(cheat):
    from tests.grading.withheld_support import run_with_withheld

    source = "from grading.library.optim import optimizer_report\n" + textwrap.dedent(cheat)
    printed = run_with_withheld("ch05.optimizer_base", "05_losses_and_optimizers", source)
    assert "withheld:" in printed and "is not available while this exercise is graded" in printed


ARRAY_UPDATE_CHEAT = """
def cheat(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps):  # Adam's array update, not the learner's
    from minitorch.optim._adam_arrays import adam_on_arrays

    param, exp_avg, exp_avg_sq = param.clone(), exp_avg.clone(), exp_avg_sq.clone()
    param.grad = grad.clone()
    state = {"step": minitorch.tensor(float(step) - 1), "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}
    group = {"lr": lr, "betas": (beta1, beta2), "eps": eps, "weight_decay": 0, "amsgrad": False,
             "maximize": False, "decoupled_weight_decay": False}
    with minitorch.no_grad():
        adam_on_arrays(param, state, group)
    return param, exp_avg, exp_avg_sq
"""


def test_adams_update_on_the_arrays_is_withheld_with_adam():
    """Adam.step's Speed-only twin (minitorch/optim/_adam_arrays.py) is minitorch's Adam too."""
    from tests.grading.withheld_support import run_with_withheld

    printed = run_with_withheld("ch05.adam_step", "05_losses_and_optimizers", ARRAY_UPDATE_CHEAT)
    assert "withheld:" in printed and "is not available while this exercise is graded" in printed


def test_the_withheld_optimizer_pieces_exist():
    from tests.grading.withheld_support import withheld_names_missing

    assert withheld_names_missing("ch05") == []


def test_the_solution_namespace_has_the_pieces():
    assert solutions("05_losses_and_optimizers")["AdamW"].__mro__[1].__name__ == "Optimizer"


OPTIMIZER_SHORTCUT = """
class Optimizer(optim.Optimizer):  # minitorch's bookkeeping under the learner's name
    pass


class AdamW(optim.AdamW):
    pass
"""


def test_the_batch_grader_scores_minitorchs_optimizer_zero(tmp_path):
    """minitorch-grade: the reference scores full marks; a notebook whose Optimizer and AdamW are minitorch's loses
    exactly the optimizer exercise, reported as not implemented (the withheld methods raise)."""
    from tests.grading.chapter_notebooks import grade_with_shortcut

    grade_with_shortcut(tmp_path, "05_losses_and_optimizers", OPTIMIZER_SHORTCUT, "ch05.optimizer_base")


def test_the_learners_adamw_follows_torch_adamw_over_many_steps():
    """The solution's AdamW on its own Optimizer and torch.optim.AdamW, from copied weights, two groups with different
    lr and weight decay, 200 steps of the same random gradients (some steps without a gradient for one group)."""
    torch = require_torch()
    rng = np.random.default_rng(7)
    shapes = [(4, 3), (3,), (2, 4)]
    start = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    mine = [minitorch.tensor(value, requires_grad=True) for value in start]
    theirs = [torch.tensor(value, requires_grad=True) for value in start]

    def groups(params):
        return [{"params": params[:2]}, {"params": params[2:], "lr": 0.003, "weight_decay": 0.5, "betas": (0.8, 0.9)}]

    optimizer = AdamW(groups(mine), lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.05)
    torch_optimizer = torch.optim.AdamW(groups(theirs), lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.05)
    for step in range(200):
        for index, (ours, reference) in enumerate(zip(mine, theirs)):
            if index == 2 and step % 7 == 3:
                ours.grad, reference.grad = None, None
                continue
            grad = rng.standard_normal(ours.shape).astype(np.float32)
            ours.grad, reference.grad = minitorch.tensor(grad), torch.tensor(grad)
        optimizer.step()
        torch_optimizer.step()
    for ours, reference in zip(mine, theirs):
        np.testing.assert_allclose(ours.detach().numpy(), reference.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert float(optimizer.state[mine[2]]["step"]) == torch_optimizer.state[theirs[2]]["step"].item() == 171
