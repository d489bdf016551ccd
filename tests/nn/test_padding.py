"""F.pad (constant, reflect, replicate, circular; negative amounts crop) and the padding modules, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _check_function(torch, ours, theirs, shape, seed=0):
    rng = np.random.default_rng(seed)
    array = rng.standard_normal(shape)
    x, tx = minitorch.from_numpy(array.copy()).requires_grad_(), torch.from_numpy(array.copy()).requires_grad_()
    out, tout = ours(x), theirs(tx)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-6, atol=1e-12)
    grad = rng.standard_normal(tuple(tout.shape))
    out.backward(minitorch.from_numpy(grad))
    tout.backward(torch.from_numpy(grad))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-12)


PADS = [
    ("constant", (1, 2), (2, 3, 4)),
    ("constant", (1, 0, 2, 1), (2, 3, 4, 5)),
    ("constant", (2, 1, 0, 1, 1, 1), (2, 3, 4)),  # pads every dimension of a 3-D tensor
    ("constant", (-1, 2, 1, -2), (1, 2, 4, 5)),  # negative amounts crop
    ("constant", (0, 0), (2, 3)),
    ("reflect", (2, 1), (2, 3, 4)),
    ("reflect", (2, 1), (3, 4)),
    ("reflect", (1, 2, 3, 0), (2, 2, 4, 5)),
    ("reflect", (1, 2, 3, 0), (2, 4, 5)),
    ("reflect", (-1, 2, 1, 1), (1, 1, 3, 3)),
    ("reflect", (1, 1, 2, 1, 1, 2), (1, 2, 3, 4, 3)),
    ("replicate", (3, 1), (2, 3, 4)),
    ("replicate", (1, 2, 4, 0), (2, 2, 3, 5)),
    ("replicate", (-1, 2, 1, -2), (1, 1, 3, 3)),
    ("replicate", (1, 1, 1, 1, 1, 1), (2, 2, 2, 2)),
    ("circular", (2, 1), (2, 3, 4)),
    ("circular", (1, 2, 3, 1), (2, 2, 3, 5)),
    ("circular", (-1, 2, 1, 1), (1, 1, 3, 4)),
]


@pytest.mark.parametrize("mode, pad, shape", PADS)
def test_pad_matches_torch(torch, mode, pad, shape):
    _check_function(torch, lambda x: F.pad(x, pad, mode=mode), lambda x: torch.nn.functional.pad(x, pad, mode=mode),
                    shape)


def test_constant_pad_value_and_integer_input(torch):
    _check_function(torch, lambda x: F.pad(x, (1, 1, 2, 0), value=-2.5),
                    lambda x: torch.nn.functional.pad(x, (1, 1, 2, 0), value=-2.5), (2, 3, 3))
    ours = F.pad(minitorch.tensor([[1, 2], [3, 4]]), (1, 0), value=7)
    theirs = torch.nn.functional.pad(torch.tensor([[1, 2], [3, 4]]), (1, 0), value=7)
    assert ours.dtype == minitorch.int64 and ours.tolist() == theirs.tolist()


MODULES = [
    ("ZeroPad1d", (2,), (2, 3, 4)), ("ZeroPad2d", (1,), (2, 3, 4, 4)), ("ZeroPad2d", ((1, 0, 2, 1),), (3, 4, 4)),
    ("ZeroPad3d", (1,), (1, 2, 2, 3, 2)), ("ConstantPad1d", (2, 3.5), (2, 3, 4)),
    ("ConstantPad2d", ((1, 0, 2, -1), 1.5), (2, 3, 4, 4)), ("ConstantPad3d", (1, 0.0), (1, 2, 2, 3, 2)),
    ("ReflectionPad1d", (2,), (2, 3, 4)), ("ReflectionPad2d", ((1, 0, 2, 1),), (2, 3, 4, 4)),
    ("ReflectionPad2d", (1,), (3, 4, 4)), ("ReflectionPad3d", (1,), (1, 2, 2, 3, 2)),
    ("ReplicationPad1d", ((3, 1),), (2, 3, 4)), ("ReplicationPad2d", (2,), (2, 3, 4, 4)),
    ("ReplicationPad3d", (1,), (1, 2, 2, 3, 2)), ("CircularPad1d", (2,), (2, 3, 4)),
    ("CircularPad2d", ((1, 2, 0, 1),), (2, 3, 4, 4)), ("CircularPad3d", (1,), (1, 2, 2, 3, 2)),
]


@pytest.mark.parametrize("name, args, shape", MODULES)
def test_padding_modules_match_torch(torch, name, args, shape):
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    for training in (True, False):
        ours.train(training)
        theirs.train(training)
        _check_function(torch, ours, theirs, shape)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_gradcheck_and_gradgradcheck(mode):
    rng = np.random.default_rng(1)
    x = minitorch.from_numpy(rng.standard_normal((1, 2, 3, 4))).requires_grad_()
    assert minitorch.autograd.gradcheck(lambda a: F.pad(a, (2, 1, -1, 2), mode=mode), (x,))
    assert minitorch.autograd.gradgradcheck(lambda a: F.pad(a, (2, 1, -1, 2), mode=mode), (x,))


@pytest.mark.parametrize("call", [
    lambda lib, F: F.pad(lib.zeros(1, 1, 3, 3), (3, 3, 1, 1), mode="reflect"),
    lambda lib, F: F.pad(lib.zeros(1, 1, 3, 3), (4, 4, 1, 1), mode="circular"),
    lambda lib, F: F.pad(lib.zeros(1, 1, 3, 3), (1, 1), mode="reflect"),
    lambda lib, F: F.pad(lib.zeros(3, 3), (1, 1, 1, 1, 1, 1), mode="reflect"),
    lambda lib, F: F.pad(lib.zeros(3, 3), (1, 1, 1)),
    lambda lib, F: F.pad(lib.zeros(3, 3), (1, 1, 1, 1, 1, 1)),
    lambda lib, F: F.pad(lib.zeros(3, 3), (1, 1), mode="foo"),
])
def test_errors_match_torch(torch, call):
    with pytest.raises(Exception) as expected:
        call(torch, torch.nn.functional)
    with pytest.raises(type(expected.value)) as got:
        call(minitorch, F)
    assert str(got.value) == str(expected.value)
