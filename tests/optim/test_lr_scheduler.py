"""Every scheduler's learning rates (and cycled momentum) over 100 steps equal PyTorch's.

The schedulers compute in Python floats with PyTorch's own recursive formulas, so the values
are compared for exact equality.
"""

from __future__ import annotations

import math
import warnings

import pytest

import minitorch
from tests.support import require_torch

STEPS = 100


def two_groups(lib, optimizer_name="SGD", **options):
    first = lib.tensor([1.0, 2.0], requires_grad=True)
    second = lib.tensor([3.0], requires_grad=True)
    defaults = {"lr": 0.1, "momentum": 0.9} if optimizer_name == "SGD" else {"lr": 0.1}
    defaults.update(options)
    return getattr(lib.optim, optimizer_name)([{"params": [first]}, {"params": [second], "lr": 0.05}], **defaults)


def scheduler_module(lib):
    return lib.optim.lr_scheduler


# name -> (make the optimizer, make the scheduler)
SCHEDULERS = {
    "LambdaLR": lambda lib, opt: scheduler_module(lib).LambdaLR(opt, lambda epoch: 0.95**epoch),
    "LambdaLR per group": lambda lib, opt: scheduler_module(lib).LambdaLR(
        opt, [lambda epoch: 1 / (epoch + 1), lambda epoch: 0.9 ** (epoch // 3)]
    ),
    "MultiplicativeLR": lambda lib, opt: scheduler_module(lib).MultiplicativeLR(opt, lambda epoch: 0.97),
    "StepLR": lambda lib, opt: scheduler_module(lib).StepLR(opt, step_size=7, gamma=0.5),
    "MultiStepLR": lambda lib, opt: scheduler_module(lib).MultiStepLR(opt, milestones=[10, 30, 30, 70], gamma=0.3),
    "ConstantLR": lambda lib, opt: scheduler_module(lib).ConstantLR(opt, factor=0.25, total_iters=12),
    "LinearLR": lambda lib, opt: scheduler_module(lib).LinearLR(opt, start_factor=0.1, end_factor=0.9, total_iters=40),
    "LinearLR decay": lambda lib, opt: scheduler_module(lib).LinearLR(opt, start_factor=1.0, end_factor=0.0,
                                                                        total_iters=100),
    "ExponentialLR": lambda lib, opt: scheduler_module(lib).ExponentialLR(opt, gamma=0.96),
    "PolynomialLR": lambda lib, opt: scheduler_module(lib).PolynomialLR(opt, total_iters=60, power=2.0),
    "CosineAnnealingLR": lambda lib, opt: scheduler_module(lib).CosineAnnealingLR(opt, T_max=30, eta_min=0.001),
    "CosineAnnealingLR T_max=100": lambda lib, opt: scheduler_module(lib).CosineAnnealingLR(opt, T_max=100),
    "CosineAnnealingWarmRestarts": lambda lib, opt: scheduler_module(lib).CosineAnnealingWarmRestarts(opt, T_0=10),
    "CosineAnnealingWarmRestarts T_mult=2": lambda lib, opt: scheduler_module(lib).CosineAnnealingWarmRestarts(
        opt, T_0=5, T_mult=2, eta_min=0.001
    ),
    "OneCycleLR cos": lambda lib, opt: scheduler_module(lib).OneCycleLR(opt, max_lr=1.0, total_steps=STEPS),
    "OneCycleLR linear": lambda lib, opt: scheduler_module(lib).OneCycleLR(
        opt, max_lr=[1.0, 0.5], epochs=10, steps_per_epoch=10, anneal_strategy="linear", pct_start=0.25
    ),
    "OneCycleLR three_phase": lambda lib, opt: scheduler_module(lib).OneCycleLR(
        opt, max_lr=0.8, total_steps=STEPS, three_phase=True, base_momentum=0.8, max_momentum=0.9,
        div_factor=10.0, final_div_factor=100.0
    ),
    "OneCycleLR no momentum": lambda lib, opt: scheduler_module(lib).OneCycleLR(
        opt, max_lr=1.0, total_steps=STEPS, cycle_momentum=False
    ),
    "CyclicLR triangular": lambda lib, opt: scheduler_module(lib).CyclicLR(
        opt, base_lr=0.01, max_lr=0.1, step_size_up=7
    ),
    "CyclicLR triangular2": lambda lib, opt: scheduler_module(lib).CyclicLR(
        opt, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=5, step_size_down=9, mode="triangular2"
    ),
    "CyclicLR exp_range": lambda lib, opt: scheduler_module(lib).CyclicLR(
        opt, base_lr=0.01, max_lr=0.1, step_size_up=6, mode="exp_range", gamma=0.97
    ),
    "SequentialLR": lambda lib, opt: scheduler_module(lib).SequentialLR(
        opt,
        [
            scheduler_module(lib).ConstantLR(opt, factor=0.1, total_iters=5),
            scheduler_module(lib).ExponentialLR(opt, 0.9),
        ],
        milestones=[10],
    ),
    "SequentialLR warm-up then cosine": lambda lib, opt: scheduler_module(lib).SequentialLR(
        opt,
        [
            scheduler_module(lib).LinearLR(opt, start_factor=0.01, total_iters=10),
            scheduler_module(lib).CosineAnnealingLR(opt, T_max=90),
        ],
        milestones=[10],
    ),
    "ChainedScheduler": lambda lib, opt: scheduler_module(lib).ChainedScheduler(
        [
            scheduler_module(lib).ConstantLR(opt, factor=0.5, total_iters=4),
            scheduler_module(lib).ExponentialLR(opt, 0.9),
        ]
    ),
}

# Schedulers that cycle momentum, and the optimizer whose option they cycle.
ADAM_SCHEDULERS = {
    "OneCycleLR with Adam betas": lambda lib, opt: scheduler_module(lib).OneCycleLR(opt, max_lr=0.5, total_steps=STEPS),
    "CyclicLR with Adam betas": lambda lib, opt: scheduler_module(lib).CyclicLR(
        opt, base_lr=0.001, max_lr=0.01, step_size_up=10
    ),
}


def lr_sequence(lib, make_scheduler, optimizer_name="SGD", steps=STEPS):
    optimizer = two_groups(lib, optimizer_name)
    scheduler = make_scheduler(lib, optimizer)
    seen = [record(optimizer, scheduler)]
    for _ in range(steps):
        optimizer.step()
        scheduler.step()
        seen.append(record(optimizer, scheduler))
    return seen


def record(optimizer, scheduler):
    groups = [
        (group["lr"], group.get("momentum"), group.get("betas"), group.get("initial_lr"))
        for group in optimizer.param_groups
    ]
    return groups, list(scheduler.get_last_lr()), getattr(scheduler, "last_epoch", None)


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_lr_sequence_matches_pytorch(name):
    torch = require_torch()
    expected = lr_sequence(torch, SCHEDULERS[name])
    actual = lr_sequence(minitorch, SCHEDULERS[name])
    assert actual == expected
    assert len({step[1][0] for step in actual}) > 1  # the learning rate did change


@pytest.mark.parametrize("name", list(ADAM_SCHEDULERS))
def test_momentum_cycling_of_adam_betas_matches_pytorch(name):
    torch = require_torch()
    expected = lr_sequence(torch, ADAM_SCHEDULERS[name], "Adam")
    actual = lr_sequence(minitorch, ADAM_SCHEDULERS[name], "Adam")
    assert actual == expected


METRICS = [1.0, 0.9, 0.8, 0.8, 0.8, 0.8, 0.79999, 0.81, 0.7, 0.7] * 3 + [0.5 + 0.01 * math.sin(i) for i in range(70)]

PLATEAU_OPTIONS = [
    {},
    {"patience": 2},
    {"patience": 1, "factor": 0.5, "threshold": 0.05, "threshold_mode": "abs", "cooldown": 3},
    {"mode": "max", "patience": 2, "factor": 0.3, "min_lr": [0.02, 0.001]},
    {"mode": "max", "patience": 0, "threshold_mode": "abs", "threshold": 0.0, "min_lr": 0.01, "eps": 1e-3},
    {"patience": 3, "threshold": 0.0, "cooldown": 5, "min_lr": 0.004},
]


@pytest.mark.parametrize("options", PLATEAU_OPTIONS, ids=lambda options: str(options) or "defaults")
def test_reduce_lr_on_plateau_matches_pytorch(options):
    torch = require_torch()
    sequences = []
    for lib in (torch, minitorch):
        optimizer = two_groups(lib)
        scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **options)
        seen = []
        for metric in METRICS:
            optimizer.step()
            scheduler.step(metric)
            seen.append(
                ([group["lr"] for group in optimizer.param_groups], scheduler.get_last_lr(), scheduler.best,
                 scheduler.num_bad_epochs, scheduler.cooldown_counter, scheduler.last_epoch)
            )
        sequences.append(seen)
    assert sequences[1] == sequences[0]
    assert sequences[1][-1][0] != [0.1, 0.05]  # it did reduce


def test_reduce_lr_on_plateau_accepts_a_tensor_metric():
    optimizer = two_groups(minitorch)
    scheduler = minitorch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
    scheduler.step(minitorch.tensor(1.0))
    scheduler.step(minitorch.tensor(2.0))
    assert scheduler.get_last_lr() == [0.1 * 0.1, 0.05 * 0.1]


STATEFUL = ["StepLR", "MultiStepLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts T_mult=2", "OneCycleLR cos",
            "LinearLR", "CyclicLR triangular2", "SequentialLR warm-up then cosine", "ChainedScheduler"]


@pytest.mark.parametrize("name", STATEFUL)
def test_scheduler_state_dict_round_trip(name):
    """Checkpoint optimizer and scheduler after 40 steps, rebuild both, go on: the same rates."""
    make = SCHEDULERS[name]
    uninterrupted = lr_sequence(minitorch, make)

    optimizer = two_groups(minitorch)
    scheduler = make(minitorch, optimizer)
    seen = [record(optimizer, scheduler)]
    for _ in range(40):
        optimizer.step()
        scheduler.step()
        seen.append(record(optimizer, scheduler))
    optimizer_state, scheduler_state = optimizer.state_dict(), scheduler.state_dict()

    new_optimizer = two_groups(minitorch)
    new_scheduler = make(minitorch, new_optimizer)
    new_optimizer.load_state_dict(optimizer_state)
    new_scheduler.load_state_dict(scheduler_state)
    for _ in range(STEPS - 40):
        new_optimizer.step()
        new_scheduler.step()
        seen.append(record(new_optimizer, new_scheduler))
    assert [step[:2] for step in seen] == [step[:2] for step in uninterrupted]


def test_state_dict_layout_matches_pytorch():
    torch = require_torch()
    keys = []
    for lib in (torch, minitorch):
        optimizer = two_groups(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=3)
        optimizer.step()
        scheduler.step()
        state = scheduler.state_dict()
        keys.append({key: state[key] for key in ("step_size", "gamma", "base_lrs", "last_epoch", "_step_count",
                                                 "_last_lr")})
    assert keys[1] == keys[0]


def test_closed_form_with_an_explicit_epoch_matches_pytorch():
    torch = require_torch()
    sequences = []
    for lib in (torch, minitorch):
        optimizer = two_groups(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sequences.append([(scheduler.step(epoch), scheduler.get_last_lr())[1] for epoch in (3, 7, 2, 15)])
    assert sequences[1] == sequences[0]


def test_warm_restarts_with_fractional_epochs_matches_pytorch():
    torch = require_torch()
    sequences = []
    for lib in (torch, minitorch):
        optimizer = two_groups(lib)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=4, T_mult=2)
        seen = []
        for epoch in [0.5, 1.25, 3.9, 4.0, 7.5, 12.0, 13.3, 30.0]:
            scheduler.step(epoch)
            seen.append((scheduler.get_last_lr(), scheduler.T_cur, scheduler.T_i, scheduler.last_epoch))
        sequences.append(seen)
    assert sequences[1] == sequences[0]


def test_warnings_match_pytorch():
    torch = require_torch()
    results = []
    for lib in (torch, minitorch):
        optimizer = two_groups(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler.step()  # before any optimizer.step(): skips the first rate
            scheduler.get_lr()  # outside step(): get_last_lr() was meant
        results.append([str(w.message) for w in caught])
    assert results[1] == results[0] and len(results[0]) == 2


def outcome(action):
    try:
        action()
    except Exception as error:  # noqa: BLE001
        return type(error).__name__, str(error)
    return None


SCHEDULER_ERRORS = {
    "not an optimizer": lambda lib, opt: scheduler_module(lib).StepLR([1, 2], step_size=2),
    "ConstantLR factor": lambda lib, opt: scheduler_module(lib).ConstantLR(opt, factor=2.0),
    "LinearLR start": lambda lib, opt: scheduler_module(lib).LinearLR(opt, start_factor=0.0),
    "LinearLR end": lambda lib, opt: scheduler_module(lib).LinearLR(opt, end_factor=1.5),
    "LambdaLR count": lambda lib, opt: scheduler_module(lib).LambdaLR(opt, [lambda e: 1.0]),
    "MultiplicativeLR not callable": lambda lib, opt: scheduler_module(lib).MultiplicativeLR(opt, [0.9, 0.9]),
    "warm restarts T_0": lambda lib, opt: scheduler_module(lib).CosineAnnealingWarmRestarts(opt, T_0=0),
    "warm restarts T_mult": lambda lib, opt: scheduler_module(lib).CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0),
    "warm restarts negative epoch": lambda lib, opt: scheduler_module(lib).CosineAnnealingWarmRestarts(opt, 2).step(-1),
    "OneCycleLR no length": lambda lib, opt: scheduler_module(lib).OneCycleLR(opt, max_lr=1.0),
    "OneCycleLR total_steps": lambda lib, opt: scheduler_module(lib).OneCycleLR(opt, max_lr=1.0, total_steps=-3),
    "OneCycleLR pct_start": lambda lib, opt: scheduler_module(lib).OneCycleLR(opt, 1.0, 10, pct_start=1.5),
    "OneCycleLR anneal": lambda lib, opt: scheduler_module(lib).OneCycleLR(opt, 1.0, 10, anneal_strategy="step"),
    "OneCycleLR max_lr list": lambda lib, opt: scheduler_module(lib).OneCycleLR(opt, [1.0], 10),
    "OneCycleLR too many steps": lambda lib, opt: [
        s.step() for s in [scheduler_module(lib).OneCycleLR(opt, 1.0, total_steps=3)] for _ in range(4)
    ],
    "OneCycleLR needs momentum": lambda lib, opt: scheduler_module(lib).OneCycleLR(
        lib.optim.Adagrad([lib.tensor([1.0], requires_grad=True)]), 1.0, 10
    ),
    "CyclicLR mode": lambda lib, opt: scheduler_module(lib).CyclicLR(opt, 0.01, 0.1, mode="square"),
    "ReduceLROnPlateau factor": lambda lib, opt: scheduler_module(lib).ReduceLROnPlateau(opt, factor=1.0),
    "ReduceLROnPlateau mode": lambda lib, opt: scheduler_module(lib).ReduceLROnPlateau(opt, mode="lowest"),
    "ReduceLROnPlateau threshold_mode": lambda lib, opt: scheduler_module(lib).ReduceLROnPlateau(
        opt, threshold_mode="ratio"
    ),
    "ReduceLROnPlateau min_lr": lambda lib, opt: scheduler_module(lib).ReduceLROnPlateau(opt, min_lr=[0.1]),
    "SequentialLR milestones": lambda lib, opt: scheduler_module(lib).SequentialLR(
        opt, [scheduler_module(lib).StepLR(opt, 2)], milestones=[3]
    ),
    "SequentialLR empty": lambda lib, opt: scheduler_module(lib).SequentialLR(opt, [], milestones=[]),
    "SequentialLR plateau": lambda lib, opt: scheduler_module(lib).SequentialLR(
        opt, [scheduler_module(lib).ReduceLROnPlateau(opt)], milestones=[]
    ),
    "ChainedScheduler empty": lambda lib, opt: scheduler_module(lib).ChainedScheduler([]),
    "resume without initial_lr": lambda lib, opt: scheduler_module(lib).StepLR(opt, 2, last_epoch=5),
}


@pytest.mark.parametrize("name", list(SCHEDULER_ERRORS))
def test_scheduler_errors_match_pytorch(name):
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "too many steps" steps the scheduler without the optimizer
        expected = outcome(lambda: SCHEDULER_ERRORS[name](torch, two_groups(torch)))
        actual = outcome(lambda: SCHEDULER_ERRORS[name](minitorch, two_groups(minitorch)))
    assert expected is not None, "the case must be an error in PyTorch"
    assert actual == expected
