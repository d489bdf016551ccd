"""Chapter 4's exercise checks reject the usual mistakes (a forgotten bias, a transposed weight, a wrong
sign), and the sgd_step reference is what optim.SGD does.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import math

import pytest

import minitorch
from grading import check, randn
from tests.support import require_torch


def _sgd_step_with(update_sign: float, reduce):
    """A training step that gets one thing wrong: the sign of the update, or the loss's reduction."""

    def sgd_step(x, target, weight, bias, lr):
        weight, bias = weight.requires_grad_(), bias.requires_grad_()
        loss = reduce((x @ weight.T + bias - target) ** 2)
        loss.backward()
        with minitorch.no_grad():
            return weight + update_sign * lr * weight.grad, bias + update_sign * lr * bias.grad, loss.detach()

    return sgd_step


def _sgd_step_recorded(x, target, weight, bias, lr):
    weight, bias = weight.requires_grad_(), bias.requires_grad_()
    loss = ((x @ weight.T + bias - target) ** 2).mean()
    loss.backward()
    return weight - lr * weight.grad, bias - lr * bias.grad, loss.detach()


def _sgd_step_in_place(x, target, weight, bias, lr):
    weight, bias = weight.requires_grad_(), bias.requires_grad_()
    loss = ((x @ weight.T + bias - target) ** 2).mean()
    loss.backward()
    with minitorch.no_grad():
        weight -= lr * weight.grad
        bias -= lr * bias.grad
    return weight.detach(), bias.detach(), loss.detach()


def _sgd_step_detached(x, target, weight, bias, lr):
    """Correct, written differently: a functional gradient and detach() instead of no_grad."""
    leaves = [weight.detach().requires_grad_(), bias.detach().requires_grad_()]
    loss = minitorch.nn.functional.mse_loss(minitorch.nn.functional.linear(x, *leaves), target)
    grads = minitorch.autograd.grad(loss, leaves)
    return tuple((leaf - lr * grad).detach() for leaf, grad in zip(leaves, grads)) + (loss.detach(),)


WRONG = {
    "linear: forgot the bias": ("ch04.linear_forward", lambda x, weight, bias: x @ weight.T),
    "linear: weight not transposed": ("ch04.linear_forward", lambda x, weight, bias: x @ weight + bias),
    "linear: returns a NumPy array": (
        "ch04.linear_forward",
        lambda x, weight, bias: (x @ weight.T + bias).numpy(),
    ),
    "mlp: no ReLU": ("ch04.mlp_forward", lambda x, w1, b1, w2, b2: (x @ w1.T + b1) @ w2.T + b2),
    "mlp: ReLU on the output too": (
        "ch04.mlp_forward",
        lambda x, w1, b1, w2, b2: minitorch.relu(minitorch.relu(x @ w1.T + b1) @ w2.T + b2),
    ),
    "sgd: steps uphill": ("ch04.sgd_step", _sgd_step_with(+1.0, lambda squares: squares.mean())),
    "sgd: summed loss": ("ch04.sgd_step", _sgd_step_with(-1.0, lambda squares: squares.sum())),
    "sgd: update recorded in the graph (no no_grad)": ("ch04.sgd_step", _sgd_step_recorded),
    "sgd: changes the caller's weight in place": ("ch04.sgd_step", _sgd_step_in_place),
}


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_typical_mistake_fails_the_check(mistake, capsys):
    name, function = WRONG[mistake]
    with pytest.raises(AssertionError):
        check(name, function)
    assert "FAILED" in capsys.readouterr().out


def test_sgd_step_feedback_names_the_problem(capsys):
    with pytest.raises(AssertionError):
        check("ch04.sgd_step", _sgd_step_recorded)
    out = capsys.readouterr().out
    assert "new_weight is still part of the graph (grad_fn=SubBackward0)" in out
    with pytest.raises(AssertionError):
        check("ch04.sgd_step", _sgd_step_in_place)
    assert "changed its input weight in place" in capsys.readouterr().out
    with pytest.raises(AssertionError):
        check("ch04.sgd_step", WRONG["sgd: steps uphill"][1])
    assert "output 1 (new_weight): wrong values" in capsys.readouterr().out


def test_sgd_step_written_differently_passes(capsys):
    check("ch04.sgd_step", _sgd_step_detached)
    assert "all 2 public cases pass" in capsys.readouterr().out


def test_sgd_step_reference_matches_optim_sgd():
    """The reference step is what optim.SGD does with the same model, loss and learning rate."""
    from grading.registry import get

    x, target = minitorch.tensor(randn(6, 3, seed=1)), minitorch.tensor(randn(6, 2, seed=2))
    layer = minitorch.nn.Linear(3, 2)
    weight, bias = layer.weight.detach().clone(), layer.bias.detach().clone()
    optimizer = minitorch.optim.SGD(layer.parameters(), lr=0.1)
    loss = minitorch.nn.functional.mse_loss(layer(x), target)
    loss.backward()
    optimizer.step()
    new_weight, new_bias, reference_loss = get("ch04.sgd_step").reference(x, target, weight, bias, 0.1)
    assert minitorch.allclose(new_weight, layer.weight.detach(), atol=1e-6)
    assert minitorch.allclose(new_bias, layer.bias.detach(), atol=1e-6)
    assert math.isclose(reference_loss.item(), loss.item(), rel_tol=1e-6)


# -- build it: the Module machinery -------------------------------------------------------------------
import numpy as np  # noqa: E402

from tests.grading.chapter_notebooks import graded_cells, solutions  # noqa: E402

SOLUTIONS = solutions("04_networks")
GIVEN = graded_cells("04_networks", "source", "solution")["ch04-module"].split(
    "# The models the check builds on your Module (already written).", 1
)[1]
nn = minitorch.nn


def _report_with(module_class):
    """The notebook's module_report_of_my_module, with its models built on ``module_class``."""
    names = dict(SOLUTIONS, Module=module_class)
    exec(GIVEN, names)
    return names["module_report_of_my_module"]


Module = SOLUTIONS["Module"]


class ForgetsToSetTheAttribute(Module):
    def __setattr__(self, name, value):
        if isinstance(value, nn.Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value


class NoPrefix(Module):
    def named_parameters(self, prefix="", seen=None):
        yield from self._parameters.items()
        for child in self._modules.values():
            yield from child.named_parameters()


class ChildrenFirst(Module):
    def named_parameters(self, prefix="", seen=None):
        seen = set() if seen is None else seen
        for child_name, child in self._modules.items():
            yield from child.named_parameters(prefix + child_name + ".", seen)
        for name, parameter in self._parameters.items():
            if id(parameter) not in seen:
                seen.add(id(parameter))
                yield prefix + name, parameter


class ListsSharedTwice(Module):
    def named_parameters(self, prefix="", seen=None):
        for name, parameter in self._parameters.items():
            yield prefix + name, parameter
        for child_name, child in self._modules.items():
            yield from child.named_parameters(prefix + child_name + ".")


class TrainNotRecursive(Module):
    def train(self, mode=True):
        self.training = mode
        return self


class StateDictDeduplicated(Module):
    def state_dict(self, prefix=""):
        return {name: parameter.detach() for name, parameter in self.named_parameters()}


class WalksWithAStack(Module):
    """Correct, written differently: an explicit stack of (prefix, module) instead of recursion."""

    def named_parameters(self, prefix="", seen=None):
        seen, stack = set(), [(prefix, self)]
        while stack:
            path, module = stack.pop()
            for name, parameter in module._parameters.items():
                if id(parameter) not in seen:
                    seen.add(id(parameter))
                    yield path + name, parameter
            stack.extend(reversed([(path + name + ".", child) for name, child in module._modules.items()]))

    def state_dict(self, prefix=""):
        state, stack = {}, [(prefix, self)]
        while stack:
            path, module = stack.pop()
            state.update({path + name: parameter.detach() for name, parameter in module._parameters.items()})
            stack.extend(reversed([(path + name + ".", child) for name, child in module._modules.items()]))
        return state


MODULE_MISTAKES = {
    "__setattr__ never sets the attribute": (ForgetsToSetTheAttribute, "raised AttributeError"),
    "names without the child's prefix": (NoPrefix, "output 1 (named_parameters() names): expected ['gain', 'first."),
    "children's parameters before the module's own": (ChildrenFirst, "own parameter (gain) comes before"),
    "a shared parameter listed twice": (ListsSharedTwice, "shared weights"),
    "train() not passed on to the children": (
        TrainNotRecursive,
        "output 5 (training flags after eval(), then train())",
    ),
    "state_dict without the shared layer's second path": (StateDictDeduplicated, "output 2 (state_dict() keys"),
}


@pytest.mark.parametrize("mistake", sorted(MODULE_MISTAKES))
def test_module_mistakes_fail_with_feedback_naming_them(mistake, capsys):
    module_class, words = MODULE_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch04.module_report", _report_with(module_class))
    first_failure = [line for line in capsys.readouterr().out.splitlines() if "FAILED" in line][0]
    assert words in first_failure


def test_module_written_differently_passes(capsys):
    check("ch04.module_report", _report_with(WalksWithAStack))
    assert "all 3 public cases pass" in capsys.readouterr().out


def test_the_reference_names_are_pytorchs():
    """minitorch's nn.Module (the reference) names a chain with a shared layer as torch.nn.Module does."""
    torch = require_torch()
    from grading.exercises.ch04 import build_model

    ours = build_model(nn.Module, np.array([3, 2, 2]), np.arange(20.0), 1)  # gain, first, rest(gain, first=first)
    layer = torch.nn.Module()
    layer.first = torch.nn.Linear(3, 2)
    layer.rest = torch.nn.Module()
    layer.rest.first = layer.first
    layer.gain = torch.nn.Parameter(torch.ones(1))
    layer.rest.gain = torch.nn.Parameter(torch.ones(1))
    assert [name for name, _ in layer.named_parameters()] == ["gain", "first.weight", "first.bias", "rest.gain"]
    expected_keys = ["gain", "first.weight", "first.bias", "rest.gain", "rest.first.weight", "rest.first.bias"]
    assert list(layer.state_dict()) == expected_keys
    assert [name for name, _ in ours.named_parameters()] == ["gain", "first.weight", "first.bias", "rest.gain"]
    assert list(ours.state_dict()) == expected_keys
