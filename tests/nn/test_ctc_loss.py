"""CTC loss (``ops/ctc.py``, ``F.ctc_loss``, ``nn.CTCLoss``): against a brute-force sum over every
alignment, against finite differences, and against PyTorch (losses, and gradients through the
``log_softmax`` that produces ``log_probs``)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _collapse(path, blank):
    """What an alignment reads as: repeated labels merged, blanks dropped."""
    merged = [label for index, label in enumerate(path) if index == 0 or label != path[index - 1]]
    return [label for label in merged if label != blank]


@pytest.mark.parametrize("target, blank", [([1, 2], 0), ([1, 1], 0), ([2], 1), ([], 0), ([0, 1, 0], 2)])
def test_loss_equals_the_sum_over_every_alignment(target, blank):
    steps, classes = 5, 3
    rng = np.random.default_rng(len(target) + blank)
    log_probs = rng.standard_normal((steps, classes))
    log_probs -= np.log(np.exp(log_probs).sum(axis=1, keepdims=True))
    total = sum(
        math.exp(sum(log_probs[t, label] for t, label in enumerate(path)))
        for path in itertools.product(range(classes), repeat=steps)
        if _collapse(path, blank) == target
    )
    loss = F.ctc_loss(minitorch.tensor(log_probs[:, None, :]), minitorch.tensor([target + [0] * (3 - len(target))]),
                      [steps], [len(target)], blank=blank, reduction="sum")  # fmt: skip
    assert loss.item() == pytest.approx(-math.log(total), rel=1e-12)


def test_gradient_through_log_softmax_is_the_true_derivative_by_finite_differences():
    """PyTorch's gradient (``exp(log_probs) - posterior``) is the true one with respect to the logits."""
    rng = np.random.default_rng(1)
    logits = minitorch.tensor(rng.standard_normal((7, 3, 4)), requires_grad=True)
    targets = minitorch.tensor([[1, 2, 2], [3, 0, 0], [1, 3, 1]])

    def loss(values):
        return F.ctc_loss(values.log_softmax(2), targets, [7, 5, 6], [3, 1, 3], reduction="none")

    assert minitorch.autograd.gradcheck(loss, (logits,))
    with pytest.raises(RuntimeError, match="once_differentiable"):
        (gradient,) = minitorch.autograd.grad(loss(logits).sum(), logits, create_graph=True)
        gradient.sum().backward()


def test_gradient_with_respect_to_log_probs_is_pytorchs(torch):
    """Straight at ``log_probs`` (no log_softmax in between): ``exp(log_probs) - posterior``, zero past the input."""

    def build(lib):
        rng = np.random.default_rng(2)
        log_probs = lib.tensor(rng.standard_normal((6, 2, 4))).log_softmax(2).requires_grad_()
        loss = lib.nn.functional.ctc_loss(log_probs, lib.tensor([[1, 2], [3, 3]]), [6, 4], [2, 2], reduction="sum")
        loss.backward()
        return log_probs.grad.numpy().copy()

    np.testing.assert_allclose(build(minitorch), build(torch), rtol=1e-10, atol=1e-12)


def _parity_case(lib, dtype, reduction, zero_infinity, concatenated, unbatched, blank):
    rng = np.random.default_rng(3)
    steps, classes = 9, 5
    labels = [label for label in range(classes) if label != blank]
    if unbatched:
        logits = lib.tensor(rng.standard_normal((steps, classes)), dtype=getattr(lib, dtype), requires_grad=True)
        targets, input_lengths, target_lengths = lib.tensor([labels[0], labels[1], labels[1]]), lib.tensor(8), \
            lib.tensor(3)  # fmt: skip
    else:
        logits = lib.tensor(rng.standard_normal((steps, 4, classes)), dtype=getattr(lib, dtype), requires_grad=True)
        rows = [[labels[0], labels[1], labels[1], labels[2]], [labels[3], labels[3]], [], [labels[0]] * 4]
        input_lengths, target_lengths = lib.tensor([9, 7, 2, 4]), lib.tensor([len(row) for row in rows])
        if concatenated:
            targets = lib.tensor([label for row in rows for label in row])
        else:
            targets = lib.tensor([row + [labels[0]] * (4 - len(row)) for row in rows])
    log_probs = logits.log_softmax(-1)
    loss = lib.nn.CTCLoss(blank, reduction, zero_infinity)(log_probs, targets, input_lengths, target_lengths)
    weights = lib.tensor(np.linspace(0.5, 1.5, loss.numel()).reshape(tuple(loss.shape)), dtype=loss.dtype)
    (loss * weights).sum().backward()
    return loss.detach().numpy(), logits.grad.numpy()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("layout", ["padded", "concatenated", "unbatched"])
@pytest.mark.parametrize("blank", [0, 4])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_losses_and_gradients_equal_pytorch(torch, reduction, zero_infinity, layout, blank, dtype):
    # [4 x label 0] in 4 steps is impossible (a repeat needs a blank between): the loss is inf, its gradient NaN
    arguments = (dtype, reduction, zero_infinity, layout == "concatenated", layout == "unbatched", blank)
    (ours, our_grad), (theirs, their_grad) = _parity_case(minitorch, *arguments), _parity_case(torch, *arguments)
    tolerance = {"rtol": 1e-10, "atol": 1e-12} if dtype == "float64" else {"rtol": 2e-5, "atol": 1e-6}
    np.testing.assert_allclose(ours, theirs, **tolerance)
    np.testing.assert_allclose(our_grad, their_grad, **tolerance)  # NaN where PyTorch has NaN
    assert ours.dtype == theirs.dtype


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor([[1, 2], [3, 4]]), (7, 6), (2, 2)),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor([[1, 2], [3, 4]]), (6, 6), (3, 2)),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor([[1, 2], [3, 4]]), (6, 6), (2, 2), blank=5),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor([[1, 2], [3, 4]]), (6,), (2, 2)),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor([[1, 2], [3, 4]]), (6, 6), (-1, 2)),
        lambda lib, lp: lib.nn.functional.ctc_loss(lp, lib.tensor([1, 2, 3]), (6, 6), (2, 2)),
    ],
    ids=["input_longer_than_time", "targets_too_short", "blank_out_of_range", "lengths_not_batch_sized",
         "negative_target_length", "concatenated_targets_too_short"],  # fmt: skip
)
def test_bad_arguments_raise_pytorchs_errors(torch, call):
    def message(lib):
        log_probs = lib.zeros(6, 2, 5).log_softmax(2)
        with pytest.raises(RuntimeError) as info:
            call(lib, log_probs)
        return str(info.value)

    assert message(minitorch) == message(torch)


def test_module_repr_matches_pytorch(torch):
    assert repr(minitorch.nn.CTCLoss()) == repr(torch.nn.CTCLoss())


def test_an_input_of_no_steps_reads_only_the_empty_target(torch):
    def losses(lib):
        log_probs = lib.full((4, 2, 3), math.log(1 / 3), dtype=lib.float64)
        return lib.nn.functional.ctc_loss(log_probs, lib.tensor([[1, 2], [1, 1]]), lib.tensor([0, 0]),
                                          lib.tensor([0, 1]), reduction="none").tolist()  # fmt: skip

    assert losses(minitorch) == losses(torch) == [0.0, math.inf]


def test_a_label_outside_the_classes_is_refused_by_name():
    with pytest.raises(RuntimeError, match=r"target labels must lie in \[0, 2\].*got a label 7"):
        F.ctc_loss(minitorch.zeros(4, 2, 3), minitorch.tensor([[1, 7], [1, 1]]), [4, 4], [2, 2])
