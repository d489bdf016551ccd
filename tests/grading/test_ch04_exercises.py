"""Chapter 4's exercises: the notebook's solutions pass every check (public and hidden), and the checks
reject a blank exercise and the usual mistakes (a forgotten bias, a transposed weight, a wrong sign).

The solutions are read from the instructor's notebook (notebooks/source/04_networks), so a change there
that breaks an exercise fails here, without running the whole chapter.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import minitorch
from grading import check, check_hidden, randn

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "source" / "04_networks" / "04_networks.ipynb"


def graded_cells() -> dict[str, str]:
    """``{grade_id: source}`` of the chapter's solution and test cells."""
    notebook = json.loads(NOTEBOOK.read_text())
    return {
        cell["metadata"]["nbgrader"]["grade_id"]: "".join(cell["source"])
        for cell in notebook["cells"]
        if "nbgrader" in cell.get("metadata", {})
    }


CELLS = graded_cells()
TEST_CELLS = sorted(grade_id for grade_id in CELLS if grade_id.endswith("-tests"))


@pytest.fixture(scope="module")
def solutions() -> dict:
    """The namespace after running every solution cell, as the notebook defines the learner's functions."""
    namespace = {"minitorch": minitorch, "np": np, "math": math}
    for grade_id, source in CELLS.items():
        if not grade_id.endswith("-tests"):
            exec(compile(source, f"<solution {grade_id}>", "exec"), namespace)
    return namespace


def test_the_chapter_has_three_or_more_graded_exercises():
    assert len(TEST_CELLS) >= 3


@pytest.mark.parametrize("grade_id", TEST_CELLS)
def test_solution_passes_the_public_and_hidden_cases(solutions, grade_id):
    namespace = dict(solutions, check=check, check_hidden=check_hidden, randn=randn)
    exec(compile(CELLS[grade_id], f"<test cell {grade_id}>", "exec"), namespace)


def _blank(*arguments):
    raise NotImplementedError()


@pytest.mark.parametrize("name", ["ch04.linear_forward", "ch04.mlp_forward", "ch04.sgd_step"])
def test_blank_exercise_reports_not_implemented(name, capsys):
    with pytest.raises(AssertionError, match="not implemented yet"):
        check(name, _blank)
    assert "not implemented yet" in capsys.readouterr().out


def _sgd_step_with(update_sign: float, reduce):
    """A training step that gets one thing wrong: the sign of the update, or the loss's reduction."""

    def sgd_step(x, target, weight, bias, lr):
        weight, bias = weight.requires_grad_(), bias.requires_grad_()
        loss = reduce((x @ weight.T + bias - target) ** 2)
        loss.backward()
        with minitorch.no_grad():
            return weight + update_sign * lr * weight.grad, bias + update_sign * lr * bias.grad, loss.detach()

    return sgd_step


WRONG = {
    "linear: forgot the bias": ("ch04.linear_forward", lambda x, weight, bias: x @ weight.T),
    "linear: weight not transposed": ("ch04.linear_forward", lambda x, weight, bias: x @ weight + bias),
    "linear: returns a NumPy array": (
        "ch04.linear_forward", lambda x, weight, bias: (x @ weight.T + bias).numpy(),
    ),
    "mlp: no ReLU": ("ch04.mlp_forward", lambda x, w1, b1, w2, b2: (x @ w1.T + b1) @ w2.T + b2),
    "mlp: ReLU on the output too": (
        "ch04.mlp_forward", lambda x, w1, b1, w2, b2: minitorch.relu(minitorch.relu(x @ w1.T + b1) @ w2.T + b2),
    ),
    "sgd: steps uphill": ("ch04.sgd_step", _sgd_step_with(+1.0, lambda squares: squares.mean())),
    "sgd: summed loss": ("ch04.sgd_step", _sgd_step_with(-1.0, lambda squares: squares.sum())),
}


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_typical_mistake_fails_the_check(mistake, capsys):
    name, function = WRONG[mistake]
    with pytest.raises(AssertionError):
        check(name, function)
    assert "FAILED" in capsys.readouterr().out


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
