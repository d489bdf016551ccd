"""A list, ``None`` or a tensor in the wrong place gets PyTorch's ``TypeError`` naming the argument, never an
``AttributeError`` from deep inside minitorch (``_arguments.public``: checked only once the call has failed).

A learner's commonest slip is a Python list where a tensor goes: ``F.cross_entropy(logits, [0, 1])``. PyTorch's
argument parser refuses it before anything runs; minitorch's public functions check their ``input`` up front and
every other argument annotated ``Tensor``, ``dtype`` or ``generator`` (and each of ``*tensors``) once the function
has failed, so a call with the right types pays nothing. ``Tensor`` methods that take other tensors do the same
(``@_arguments.tensor_arguments`` where each is defined).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import minitorch
import minitorch.nn.functional as F
from tests.support import require_torch

ROOT = Path(__file__).resolve().parent.parent

# Slips a learner makes, with PyTorch's own message where minitorch's is the same word for word.
SLIPS = {
    "cross_entropy target list": (lambda m: m.nn.functional.cross_entropy(m.ones(2, 3), [0, 1]),
                                  "argument 'target' (position 2) must be Tensor, not list"),
    "cross_entropy weight list": (lambda m: m.nn.functional.cross_entropy(m.ones(2, 3), m.zeros(2).long(), [1.0]),
                                  "argument 'weight' (position 3) must be Tensor, not list"),
    "nll_loss target list": (lambda m: m.nn.functional.nll_loss(m.ones(2, 3), [0, 1]),
                             "argument 'target' (position 2) must be Tensor, not list"),
    "linear weight list": (lambda m: m.nn.functional.linear(m.ones(2, 3), [[1.0, 2.0, 3.0]]),
                           "argument 'weight' (position 2) must be Tensor, not list"),
    "linear bias list": (lambda m: m.nn.functional.linear(m.ones(2, 3), m.ones(4, 3), [0.0] * 4),
                         "argument 'bias' (position 3) must be Tensor, not list"),
    "conv1d weight list": (lambda m: m.nn.functional.conv1d(m.ones(1, 1, 4), [[[1.0]]]),
                           "argument 'weight' (position 2) must be Tensor, not list"),
    "embedding weight list": (lambda m: m.nn.functional.embedding(m.tensor([0, 1]), [[1.0], [2.0]]),
                              "argument 'weight' (position 2) must be Tensor, not list"),
    "cdist x2 list": (lambda m: m.cdist(m.ones(2, 2), [[1.0, 2.0]]),
                      "cdist(): argument 'x2' (position 2) must be Tensor, not list"),
    "take index list": (lambda m: m.take(m.ones(2, 2), [0, 1]),
                        "take(): argument 'index' (position 2) must be Tensor, not list"),
    "masked_select mask list": (lambda m: m.masked_select(m.ones(2), [True, False]),
                                "masked_select(): argument 'mask' (position 2) must be Tensor, not list"),
    "atleast_1d element list": (lambda m: m.atleast_1d(m.ones(2), [1.0]),
                                "expected Tensor as element 1 in argument 0, but got list"),
    "broadcast_tensors element list": (lambda m: m.broadcast_tensors(m.ones(2), [1.0]),
                                       "expected Tensor as element 1 in argument 0, but got list"),
    "poisson generator list": (lambda m: m.poisson(m.ones(2), [1.0]),
                               "poisson(): argument 'generator' (position 2) must be torch.Generator, not list"),
    "can_cast a tensor": (lambda m: m.can_cast(m.ones(2), m.float32),
                          "can_cast(): argument 'from_' (position 1) must be torch.dtype, not Tensor"),
    "linalg.inv list": (lambda m: m.linalg.inv([[1.0, 0.0], [0.0, 1.0]]),
                        "argument 'A' (position 1) must be Tensor, not list"),
    "linalg.solve B list": (lambda m: m.linalg.solve(m.eye(2), [1.0, 2.0]),
                            "argument 'B' (position 2) must be Tensor, not list"),
    "addmv_ vec list": (lambda m: m.addmv_(m.ones(2), m.ones(2, 2), [1.0, 2.0]),  # the method's words: position 2
                        "addmv_(): argument 'vec' (position "),
    "Tensor.take index list": (lambda m: m.ones(2, 2).take([0, 1]),
                               "take(): argument 'index' (position 1) must be Tensor, not list"),
    "Tensor.view_as other list": (lambda m: m.ones(2, 2).view_as([[1.0]]),
                                  "view_as(): argument 'other' (position 1) must be Tensor, not list"),
    "Tensor.addmm mat2 list": (lambda m: m.ones(2, 2).addmm(m.ones(2, 2), [[1.0]]),
                               "addmm(): argument 'mat2' (position 2) must be Tensor, not list"),
}


@pytest.mark.parametrize("slip", list(SLIPS))
def test_a_slip_gets_pytorchs_type_error_naming_the_argument(slip):
    call, message = SLIPS[slip]
    with pytest.raises(TypeError) as caught:
        call(minitorch)
    assert message in str(caught.value)
    error = caught.value  # no internal traceback behind it: raised from None, or where no other error was caught
    assert error.__cause__ is None and (error.__suppress_context__ or error.__context__ is None)


@pytest.mark.parametrize("slip", list(SLIPS))
def test_pytorch_refuses_the_same_slip_with_a_type_error(slip):
    torch = require_torch()
    call, message = SLIPS[slip]
    with pytest.raises(TypeError) as caught:
        call(torch)
    if slip == "conv1d weight list":  # two overloads: PyTorch lists them ("invalid combination of arguments")
        assert "conv1d()" in str(caught.value)
    elif slip.startswith(("linalg.", "cross_entropy", "nll_loss", "linear", "embedding")):
        # PyTorch names its kernel (linalg_inv(), embedding(weight, input)...), so its name and position may differ
        assert message.split(" (position")[0] in str(caught.value)
    else:
        assert message in str(caught.value)


def test_the_functions_own_error_stands_when_every_argument_has_its_type():
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        F.linear(minitorch.ones(2, 3), minitorch.ones(4, 5))  # shapes, not types: linear's own words
    with pytest.raises(TypeError, match="missing"):
        minitorch.cdist(minitorch.ones(2, 2))  # Python's own arity error is left alone


def test_a_number_may_stand_for_a_tensor_and_is_left_to_the_function():
    assert minitorch.allclose(minitorch.mul(minitorch.ones(2), 3), minitorch.full((2,), 3.0))
    with pytest.raises(Exception) as caught:
        F.mse_loss(minitorch.ones(2), 1.0)
    assert "must be Tensor" not in str(caught.value) or "target" in str(caught.value)


# Left: index_fill with a list for its value fails in an indexing step, and as_tensor takes its dtype by position
# (PyTorch's takes only data by position: "as_tensor() takes 1 positional argument but 2 were given").
KNOWN_RAW = {"index_fill4", "as_tensor2"}


@pytest.fixture(scope="module")
def sweep_results():
    """The sweep of ``tests/argument_sweep.py`` over the four namespaces, in one process of its own (it calls
    setters such as ``set_default_dtype`` too): ``{namespace: [call: error, ...]}``."""
    require_torch()
    done = subprocess.run([sys.executable, "-m", "tests.argument_sweep"], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("namespace", ["torch", "nn.functional", "linalg", "special", "Tensor methods"])
def test_no_public_function_answers_a_list_with_an_internal_error(namespace, sweep_results):
    """The sweep over every public function: where PyTorch refuses a list with a ``TypeError``, minitorch never
    answers with an ``AttributeError`` or ``IndexError`` from inside (the two of ``KNOWN_RAW`` aside)."""
    assert [case for case in sweep_results[namespace] if case.split(":")[0] not in KNOWN_RAW] == []


def test_randint_with_neither_high_and_size_nor_low_high_and_size_gets_pytorchs_words():
    torch = require_torch()
    for args in [(5,), ([1.0],), ()]:
        with pytest.raises(TypeError) as ours:
            minitorch.randint(*args)
        with pytest.raises(TypeError) as theirs:
            torch.randint(*args)
        assert str(ours.value) == str(theirs.value)
    assert minitorch.randint(5, (3,)).shape == (3,) and minitorch.randint(high=4, size=(2,)).shape == (2,)
