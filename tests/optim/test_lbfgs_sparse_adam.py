"""LBFGS (with a closure; fixed step or strong Wolfe line search) and SparseAdam against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.optim.problem import Problem, train
from tests.support import require_torch

LBFGS_CASES = [
    {},  # PyTorch's defaults: line_search_fn=None, a fixed step of lr
    {"lr": 0.5, "max_iter": 5},
    {"lr": 0.3, "history_size": 3, "max_iter": 7},
    {"line_search_fn": "strong_wolfe"},
    {"line_search_fn": "strong_wolfe", "history_size": 2, "max_iter": 10, "max_eval": 12},
    {"line_search_fn": "strong_wolfe", "tolerance_grad": 1e-3},
]


def _lbfgs_run(lib, options, steps):
    problem = Problem(lib)
    optimizer = lib.optim.LBFGS(problem.params, **options)
    trajectory = np.array(train(problem, optimizer, steps))
    state = optimizer.state[problem.params[0]]
    return trajectory, state["func_evals"], state["n_iter"]


@pytest.mark.parametrize("options", LBFGS_CASES, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_lbfgs_trajectory_matches_pytorch(options):
    torch = require_torch()
    expected, expected_evals, expected_iterations = _lbfgs_run(torch, options, 4)
    actual, evals, iterations = _lbfgs_run(minitorch, options, 4)
    # float64 throughout. Up to 80 quasi-Newton iterations: dot products summed in another order (NumPy's
    # pairwise sums, PyTorch's vectorised ones) differ in the last bit, and the curvature pairs amplify that
    # to about 1e-7 relative by the end; a wrong formula or stopping rule moves the points by 1e-2 or more.
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-9)
    assert (evals, iterations) == (expected_evals, expected_iterations)
    assert np.abs(expected[-1] - Problem(torch).snapshot()).max() > 1e-3


def test_lbfgs_returns_the_first_loss_and_refuses_groups():
    problem = Problem(minitorch)
    optimizer = minitorch.optim.LBFGS(problem.params)
    closure = problem.closure(optimizer)
    first = float(problem.loss())
    assert float(optimizer.step(closure)) == pytest.approx(first)
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        minitorch.optim.LBFGS([{"params": problem.params[:2]}, {"params": problem.params[2:]}])
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        minitorch.optim.LBFGS(problem.params, line_search_fn="armijo").step(closure)


def _embedding_run(lib, options, batches, steps=6):
    lib.manual_seed(0)
    table = lib.nn.Embedding(10, 3, sparse=True)
    with lib.no_grad():
        table.weight.copy_(lib.tensor(np.linspace(-1, 1, 30).reshape(10, 3)))
    head = lib.tensor(np.linspace(0.5, -0.5, 3))
    optimizer = lib.optim.SparseAdam(table.parameters(), **options)
    weights = []
    for step in range(steps):
        optimizer.zero_grad()
        rows = lib.tensor(batches[step % len(batches)])
        loss = ((table(rows) * head).sum(dim=1) - 1.0).pow(2).mean()
        loss.backward()
        optimizer.step()
        weights.append(table.weight.detach().numpy().copy())
    return np.array(weights)


@pytest.mark.parametrize("options", [{}, {"lr": 0.05}, {"lr": 0.05, "betas": (0.5, 0.9), "eps": 1e-4},
                                     {"lr": 0.05, "maximize": True}])
def test_sparse_adam_on_an_embedding_matches_pytorch(options):
    torch = require_torch()
    batches = [[1, 3, 3], [2, 7], [1, 9, 0]]  # rows seen once, twice, never (4, 5, 6, 8)
    expected = _embedding_run(torch, options, batches)
    actual = _embedding_run(minitorch, options, batches)
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-7)  # float32, as the tables are
    assert np.array_equal(actual[-1][[4, 5, 6, 8]], actual[0][[4, 5, 6, 8]])  # unseen rows never move


def test_sparse_adam_checks_its_arguments_like_pytorch():
    torch = require_torch()
    for options in ({"lr": 0.0}, {"eps": 0.0}, {"betas": (1.0, 0.9)}, {"betas": (0.9, -0.1)}):
        outcomes = []
        for lib in (minitorch, torch):
            with pytest.raises(ValueError) as caught:
                lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], **options)
            outcomes.append(str(caught.value))
        assert outcomes[0] == outcomes[1]
