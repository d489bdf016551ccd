"""Chapter 11's exercise checks reject the usual mistakes (the weight's norm without the bias, norms added
instead of combined, Xavier's fan sum forgotten, the gain left out, each gradient clipped on its own,
clipping that scales small gradients up, dropout without its 1/(1-p) scale or applied in evaluation), and
the references are what the library does.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from grading import check, randn
from grading.registry import get
from tests.grading.chapter_notebooks import graded_cells, solutions
from tests.support import require_torch

CHAPTER = "11_training_dynamics"


# -- typical mistakes -----------------------------------------------------------------------------
def _gradient_norms_with(layer_norm):
    """The given wrapper around a wrong ``layer_grad_norms`` that computes each layer's number with ``layer_norm``."""

    def layer_grad_norms(model):
        return minitorch.stack(
            [layer_norm(module) for module in model.modules() if list(module.parameters(recurse=False))]
        )

    namespace = dict(solutions(CHAPTER), layer_grad_norms=layer_grad_norms)
    solution_cell = graded_cells(CHAPTER, "source", "solution")["ch11-layer-grad-norms"]
    exec("def mlp_gradient_norms" + solution_cell.split("def mlp_gradient_norms", 1)[1], namespace)
    return namespace["mlp_gradient_norms"]


def _clip_each_on_its_own(grad_a, grad_b, max_norm):
    def clip(gradient):
        norm = minitorch.sqrt((gradient**2).sum())
        return gradient * minitorch.clamp(max_norm / (norm + 1e-6), max=1.0)

    return clip(grad_a), clip(grad_b), minitorch.sqrt((grad_a**2).sum() + (grad_b**2).sum())


def _clip_without_the_cap(grad_a, grad_b, max_norm):
    total = minitorch.sqrt((grad_a**2).sum() + (grad_b**2).sum())
    return grad_a * max_norm / (total + 1e-6), grad_b * max_norm / (total + 1e-6), total


def _clip_reporting_the_norm_after(grad_a, grad_b, max_norm):
    total = minitorch.sqrt((grad_a**2).sum() + (grad_b**2).sum())
    coefficient = minitorch.clamp(max_norm / (total + 1e-6), max=1.0)
    return grad_a * coefficient, grad_b * coefficient, total * coefficient


MISTAKES = {
    "norms: the weight's gradient only": (
        "ch11.layer_grad_norms",
        _gradient_norms_with(lambda m: m.weight.grad.norm()),
    ),
    "norms: weight and bias norms added": (
        "ch11.layer_grad_norms",
        _gradient_norms_with(lambda m: m.weight.grad.norm() + m.bias.grad.norm()),
    ),
    "norms: of the weights, not the gradients": (
        "ch11.layer_grad_norms",
        _gradient_norms_with(lambda m: minitorch.sqrt((m.weight.detach() ** 2).sum() + (m.bias.detach() ** 2).sum())),
    ),
    "bounds: Xavier from fan_in only": (
        "ch11.init_bounds",
        lambda fan_in, fan_out, gain: (gain * math.sqrt(6 / fan_in), gain * math.sqrt(3 / fan_in)),
    ),
    "bounds: the gain left out": (
        "ch11.init_bounds",
        lambda fan_in, fan_out, gain: (math.sqrt(6 / (fan_in + fan_out)), math.sqrt(3 / fan_in)),
    ),
    "bounds: standard deviations, not bounds": (
        "ch11.init_bounds",
        lambda fan_in, fan_out, gain: (gain * math.sqrt(2 / (fan_in + fan_out)), gain / math.sqrt(fan_in)),
    ),
    "clip: each gradient on its own": ("ch11.clip_gradients", _clip_each_on_its_own),
    "clip: small gradients scaled up": ("ch11.clip_gradients", _clip_without_the_cap),
    "clip: the norm after clipping": ("ch11.clip_gradients", _clip_reporting_the_norm_after),
    "dropout: no 1/(1-p) scale": (
        "ch11.dropout_forward",
        lambda x, keep_mask, p, training: x * keep_mask if training else x,
    ),
    "dropout: scaled by 1/p": (
        "ch11.dropout_forward",
        lambda x, keep_mask, p, training: x * keep_mask / p if training else x,
    ),
    "dropout: also applied in evaluation": (
        "ch11.dropout_forward",
        lambda x, keep_mask, p, training: x * keep_mask / (1 - p),
    ),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_typical_mistake_fails_the_check(mistake, capsys):
    name, function = MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check(name, function)
    assert "FAILED" in capsys.readouterr().out


# -- the references are what the library does -------------------------------------------------------
def test_layer_grad_norms_reference_matches_the_gradient_monitor():
    import widgets

    x, target = minitorch.tensor(randn(8, 3, seed=1)), minitorch.tensor(randn(8, 2, seed=2))
    weights = [
        minitorch.tensor(randn(5, 3, seed=3)),
        minitorch.tensor(randn(5, seed=4)),
        minitorch.tensor(randn(2, 5, seed=5)),
        minitorch.tensor(randn(2, seed=6)),
    ]
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    with minitorch.no_grad():
        for parameter, value in zip(model.parameters(), weights):
            parameter.copy_(value)
    monitor = widgets.GradientMonitor(model, draw_in_notebook=False)
    F.mse_loss(model(x), target).backward()
    monitor.refresh()
    monitor.detach()
    from_monitor = [stats.grad_norm for stats in monitor.history[0].layers.values()]
    reference = get("ch11.layer_grad_norms").reference(x, target, *weights)
    assert np.allclose(reference.numpy(), from_monitor, rtol=1e-5)


def test_init_bounds_reference_bounds_what_nn_init_draws():
    fan_in, fan_out = 300, 100
    weight = minitorch.empty(fan_out, fan_in)
    xavier_bound, kaiming_bound = get("ch11.init_bounds").reference(fan_in, fan_out, nn.init.calculate_gain("relu"))
    nn.init.xavier_uniform_(weight, gain=nn.init.calculate_gain("relu"))
    largest = weight.abs().max().item()
    assert 0.99 * xavier_bound < largest <= xavier_bound
    nn.init.kaiming_uniform_(weight, nonlinearity="relu")
    largest = weight.abs().max().item()
    assert 0.99 * kaiming_bound < largest <= kaiming_bound


def test_dropout_reference_is_what_f_dropout_does_with_its_own_mask():
    x = minitorch.tensor(randn(6, 7, seed=7)) + 3.0  # no zero inputs: a zero output means a dropped unit
    output = F.dropout(x, p=0.3, training=True)
    keep_mask = output != 0
    assert minitorch.allclose(get("ch11.dropout_forward").reference(x, keep_mask, 0.3, True), output, atol=1e-6)


# -- build it: batch normalisation's backward by hand --------------------------------------------------
def _batchnorm_with(*, unbiased=False, constant_statistics=False, gamma_grad_without_xhat=False, eps_outside=False):
    def batchnorm_forward_backward(x, gamma, beta, grad_output):
        mean = x.mean(dim=0)
        variance = x.var(dim=0, correction=1 if unbiased else 0)
        inverse_std = 1.0 / (variance.sqrt() + 1e-5) if eps_outside else 1.0 / (variance + 1e-5).sqrt()
        normalised = (x - mean) * inverse_std
        y = gamma * normalised + beta
        grad_gamma = grad_output.sum(dim=0) if gamma_grad_without_xhat else (grad_output * normalised).sum(dim=0)
        grad_normalised = grad_output * gamma
        if constant_statistics:  # as if the mean and variance did not depend on x
            grad_x = grad_normalised * inverse_std
        else:
            grad_x = inverse_std * (
                grad_normalised - grad_normalised.mean(dim=0) - normalised * (grad_normalised * normalised).mean(dim=0)
            )
        return y, grad_x, grad_gamma, grad_output.sum(dim=0)

    return batchnorm_forward_backward


BATCHNORM_MISTAKES = {
    "mean and variance treated as constants in backward": (
        _batchnorm_with(constant_statistics=True), "output 2 (grad_x)"),
    "unbiased variance": (_batchnorm_with(unbiased=True), "output 1 (y)"),
    "grad_gamma without x-hat": (_batchnorm_with(gamma_grad_without_xhat=True), "output 3 (grad_gamma)"),
    "eps added to the standard deviation": (_batchnorm_with(eps_outside=True), "output 1 (y)"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(BATCHNORM_MISTAKES))
def test_batchnorm_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    function, words = BATCHNORM_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch11.batchnorm_forward_backward", function)
    assert words in [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]


def test_batchnorm_written_differently_passes(capsys):
    """Backpropagation step by step through the graph (makemore's way), instead of the simplified formula."""

    def batchnorm_forward_backward(x, gamma, beta, grad_output):
        n = x.shape[0]
        centred = x - x.sum(dim=0) / n
        variance = (centred * centred).sum(dim=0) / n
        std = (variance + 1e-5) ** 0.5
        normalised = centred / std
        y = normalised * gamma + beta
        grad_normalised = grad_output * gamma
        grad_std = -(grad_normalised * centred).sum(dim=0) / std**2
        grad_variance = grad_std * 0.5 / std
        grad_centred = grad_normalised / std + grad_variance * 2 * centred / n
        grad_x = grad_centred - grad_centred.sum(dim=0) / n
        return y, grad_x, (grad_output * normalised).sum(dim=0), grad_output.sum(dim=0)

    check("ch11.batchnorm_forward_backward", batchnorm_forward_backward)
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_the_batchnorm_reference_matches_torch():
    torch = require_torch()
    case = get("ch11.batchnorm_forward_backward").public[1]
    ours = get("ch11.batchnorm_forward_backward").reference(*(minitorch.tensor(a) for a in case))
    x, gamma, beta = (torch.tensor(a, requires_grad=True) for a in case[:3])
    y = torch.nn.functional.batch_norm(x, None, None, gamma, beta, training=True, eps=1e-5)
    y.backward(torch.tensor(case[3]))
    for mine, reference in zip(ours, (y, x.grad, gamma.grad, beta.grad)):
        np.testing.assert_allclose(mine.numpy(), reference.detach().numpy(), rtol=1e-10, atol=1e-12)
