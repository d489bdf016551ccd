"""The Optimizer base class: errors in PyTorch's words, checkpoints, and a custom optimizer."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from tests.optim.problem import Problem, train
from tests.support import require_torch


def outcome(action):
    """What ``action()`` raised, as (type name, message), or None."""
    try:
        action()
    except Exception as error:  # noqa: BLE001 - the point is to compare whatever is raised
        return type(error).__name__, str(error)
    return None


def leaf(lib):
    return lib.tensor([1.0, 2.0], requires_grad=True)


# Each case builds something invalid with ``lib``; minitorch must fail exactly as PyTorch does.
ERROR_CASES = {
    "negative lr": lambda lib: lib.optim.SGD([leaf(lib)], lr=-0.1),
    "negative momentum": lambda lib: lib.optim.SGD([leaf(lib)], lr=0.1, momentum=-0.5),
    "negative weight decay": lambda lib: lib.optim.SGD([leaf(lib)], lr=0.1, weight_decay=-1.0),
    "nesterov without momentum": lambda lib: lib.optim.SGD([leaf(lib)], lr=0.1, nesterov=True),
    "nesterov with dampening": lambda lib: lib.optim.SGD([leaf(lib)], lr=0.1, momentum=0.9, dampening=0.1,
                                                         nesterov=True),
    "adam lr": lambda lib: lib.optim.Adam([leaf(lib)], lr=-1e-3),
    "adam beta 0": lambda lib: lib.optim.Adam([leaf(lib)], betas=(1.5, 0.999)),
    "adam beta 1": lambda lib: lib.optim.Adam([leaf(lib)], betas=(0.9, 1.0)),
    "adam eps": lambda lib: lib.optim.Adam([leaf(lib)], eps=-1e-8),
    "adam weight decay": lambda lib: lib.optim.Adam([leaf(lib)], weight_decay=-0.1),
    "adamw beta": lambda lib: lib.optim.AdamW([leaf(lib)], betas=(0.9, -0.1)),
    "adagrad lr_decay": lambda lib: lib.optim.Adagrad([leaf(lib)], lr_decay=-0.1),
    "adagrad accumulator": lambda lib: lib.optim.Adagrad([leaf(lib)], initial_accumulator_value=-1.0),
    "adagrad eps": lambda lib: lib.optim.Adagrad([leaf(lib)], eps=-1.0),
    "adadelta rho": lambda lib: lib.optim.Adadelta([leaf(lib)], rho=1.5),
    "adadelta eps": lambda lib: lib.optim.Adadelta([leaf(lib)], eps=-1.0),
    "asgd lr": lambda lib: lib.optim.ASGD([leaf(lib)], lr=-1.0),
    "asgd weight decay": lambda lib: lib.optim.ASGD([leaf(lib)], weight_decay=-1.0),
    "rmsprop alpha": lambda lib: lib.optim.RMSprop([leaf(lib)], alpha=-0.1),
    "rmsprop momentum": lambda lib: lib.optim.RMSprop([leaf(lib)], momentum=-0.1),
    "adamax beta": lambda lib: lib.optim.Adamax([leaf(lib)], betas=(0.9, 2.0)),
    "nadam momentum_decay": lambda lib: lib.optim.NAdam([leaf(lib)], momentum_decay=-1.0),
    "radam beta": lambda lib: lib.optim.RAdam([leaf(lib)], betas=(-0.5, 0.9)),
    "rprop etas": lambda lib: lib.optim.Rprop([leaf(lib)], etas=(1.5, 1.2)),
    "empty parameter list": lambda lib: lib.optim.SGD([], lr=0.1),
    "a tensor instead of a list": lambda lib: lib.optim.SGD(leaf(lib), lr=0.1),
    "a set of parameters": lambda lib: lib.optim.SGD([{"params": {leaf(lib)}}], lr=0.1),
    "not a tensor": lambda lib: lib.optim.SGD([leaf(lib), 3], lr=0.1),
    "non-leaf": lambda lib: lib.optim.SGD([leaf(lib) * 2], lr=0.1),
    "one parameter in two groups": lambda lib: (lambda w: lib.optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1))(
        leaf(lib)
    ),
    "added group overlaps": lambda lib: (lambda w: lib.optim.Adam([w]).add_param_group({"params": w}))(leaf(lib)),
    "group is not a dict": lambda lib: lib.optim.Adam([leaf(lib)]).add_param_group([leaf(lib)]),
    "sgd fused and differentiable": lambda lib: lib.optim.SGD([leaf(lib)], lr=0.1, fused=True, differentiable=True),
    "adam fused and foreach": lambda lib: lib.optim.Adam([leaf(lib)], fused=True, foreach=True),
    "adagrad fused and differentiable": lambda lib: lib.optim.Adagrad([leaf(lib)], fused=True, differentiable=True),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_match_pytorch(name):
    torch = require_torch()
    expected = outcome(lambda: ERROR_CASES[name](torch))
    assert expected is not None, "the case must be an error in PyTorch"
    assert outcome(lambda: ERROR_CASES[name](minitorch)) == expected


def test_a_parameter_listed_twice_in_one_group_warns_like_pytorch():
    torch = require_torch()
    messages = []
    for lib in (torch, minitorch):
        weight = leaf(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.optim.SGD([weight, weight], lr=0.1)
        messages.append([str(w.message) for w in caught if "duplicate" in str(w.message)])
    assert messages[1] == messages[0] and len(messages[0]) == 1


def test_required_option_must_be_given_by_every_group():
    from minitorch.optim.optimizer import Optimizer, required

    class Needy(Optimizer):
        def __init__(self, params, lr=required):
            super().__init__(params, {"lr": lr})

    with pytest.raises(ValueError, match="didn't specify a value of required optimization parameter lr"):
        Needy([leaf(minitorch)])
    assert Needy([{"params": [leaf(minitorch)], "lr": 0.1}]).param_groups[0]["lr"] == 0.1


def test_load_state_dict_checks_the_groups_like_pytorch():
    torch = require_torch()

    def mismatches(lib):
        a, b, c = leaf(lib), leaf(lib), leaf(lib)
        saved = lib.optim.SGD([a, b], lr=0.1).state_dict()
        return (
            outcome(lambda: lib.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(saved)),
            outcome(lambda: lib.optim.SGD([a, b, c], lr=0.1).load_state_dict(saved)),
        )

    results = [mismatches(torch), mismatches(minitorch)]
    assert results[1] == results[0]
    assert all(result is not None for result in results[0])


def test_state_dict_is_a_snapshot_and_loading_copies():
    weight = minitorch.tensor([1.0, 2.0], requires_grad=True)
    optimizer = minitorch.optim.Adam([weight], lr=0.1)
    (weight * weight).sum().backward()
    optimizer.step()
    checkpoint = optimizer.state_dict()
    saved_average = checkpoint["state"][0]["exp_avg"].tolist()
    optimizer.step()
    assert checkpoint["state"][0]["exp_avg"].tolist() == saved_average  # training on does not change it
    assert checkpoint["state"][0]["step"].item() == 1.0

    other = minitorch.tensor([1.0, 2.0], requires_grad=True)
    restored = minitorch.optim.Adam([other], lr=0.5)
    restored.load_state_dict(checkpoint)
    assert restored.param_groups[0]["lr"] == 0.1 and restored.param_groups[0]["params"][0] is other
    assert restored.state[other]["exp_avg"] is not checkpoint["state"][0]["exp_avg"]
    assert restored.state[other]["exp_avg"].tolist() == saved_average


def test_load_state_dict_converts_state_to_the_parameter_dtype():
    weight = minitorch.tensor([1.0, 2.0], requires_grad=True)  # float32
    optimizer = minitorch.optim.Adam([weight])
    (weight * weight).sum().backward()
    optimizer.step()
    double_weight = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64, requires_grad=True)
    restored = minitorch.optim.Adam([double_weight])
    restored.load_state_dict(optimizer.state_dict())
    assert restored.state[double_weight]["exp_avg"].dtype == minitorch.float64
    assert restored.state[double_weight]["step"].dtype == minitorch.float32  # the counter keeps its own dtype


def test_repr_lists_the_groups_like_pytorch():
    torch = require_torch()
    text = repr(minitorch.optim.SGD([leaf(minitorch)], lr=0.1, momentum=0.9))
    assert text.startswith("SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n")
    assert text == repr(torch.optim.SGD([leaf(torch)], lr=0.1, momentum=0.9))


def test_named_parameters_keep_their_names():
    weight, bias = leaf(minitorch), leaf(minitorch)
    optimizer = minitorch.optim.SGD([("weight", weight), ("bias", bias)], lr=0.1)
    group = optimizer.param_groups[0]
    assert group["params"][0] is weight and group["param_names"] == ["weight", "bias"]


# -- writing your own optimizer (the example of Optimizer's docstring) -------------------------
def make_sign_sgd(lib):
    class SignSGD(lib.optim.Optimizer):
        def __init__(self, params, lr=0.01):
            super().__init__(params, {"lr": lr})

        @lib.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with lib.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        param.add_(param.grad.sign(), alpha=-group["lr"])
            return loss

    return SignSGD


def test_custom_optimizer_from_the_docstring_runs_and_matches_pytorch():
    torch = require_torch()
    trajectories = []
    for lib in (torch, minitorch):
        problem = Problem(lib)
        optimizer = make_sign_sgd(lib)(problem.params, lr=0.01)
        trajectories.append(np.array(train(problem, optimizer, 20)))
        assert problem.loss().item() < 0.9 * Problem(lib).loss().item()  # it trains
        assert optimizer.state_dict()["param_groups"][0]["lr"] == 0.01
    np.testing.assert_allclose(trajectories[1], trajectories[0], rtol=1e-8, atol=1e-12)


OPTIM_MODULES = ["__init__", "optimizer", "sgd", "adam", "adamw", "adagrad", "adadelta", "asgd", "rmsprop",
                 "adamax", "nadam", "radam", "rprop", "lr_scheduler"]


@pytest.mark.parametrize("module_name", OPTIM_MODULES)
def test_docstring_examples_run(module_name):
    import doctest
    import importlib

    name = "minitorch.optim" if module_name == "__init__" else f"minitorch.optim.{module_name}"
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, verbose=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert failures == 0
