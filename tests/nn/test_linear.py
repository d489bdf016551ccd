"""Identity, Linear, Bilinear, Flatten, Unflatten against PyTorch (copied weights, float64), plus gradcheck."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _copy_parameters(ours, theirs, torch):
    with torch.no_grad():
        for param in theirs.parameters():
            param.uniform_(-1, 1)
    ours.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in theirs.state_dict().items()})


def _check_parity(ours, theirs, our_inputs, their_inputs, rng):
    our_out, their_out = ours(*our_inputs), theirs(*their_inputs)
    np.testing.assert_allclose(our_out.detach().numpy(), their_out.detach().numpy(), rtol=1e-6, atol=1e-12)
    grad = rng.standard_normal(tuple(their_out.shape))
    our_out.backward(minitorch.from_numpy(grad))
    their_out.backward(__import__("torch").from_numpy(grad))
    for a, b in zip(our_inputs, their_inputs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-12)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-12, err_msg=name)


def _inputs(torch, rng, *shapes):
    arrays = [rng.standard_normal(shape) for shape in shapes]
    ours = [minitorch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    theirs = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    return ours, theirs


@pytest.mark.parametrize("input_shape", [(5, 3), (2, 4, 3), (3,), (0, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(torch, input_shape, bias):
    rng = np.random.default_rng(0)
    ours = nn.Linear(3, 4, bias=bias, dtype=minitorch.float64)
    theirs = torch.nn.Linear(3, 4, bias=bias, dtype=torch.float64)
    _copy_parameters(ours, theirs, torch)
    _check_parity(ours, theirs, *_inputs(torch, rng, input_shape), rng)


@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((2, 4, 3), (2, 4, 2)), ((3,), (2,))])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_matches_torch(torch, shapes, bias):
    rng = np.random.default_rng(1)
    ours = nn.Bilinear(3, 2, 4, bias=bias).double()
    theirs = torch.nn.Bilinear(3, 2, 4, bias=bias).double()
    _copy_parameters(ours, theirs, torch)
    _check_parity(ours, theirs, *_inputs(torch, rng, *shapes), rng)


def test_linear_and_bilinear_gradcheck():
    rng = np.random.default_rng(2)

    def make(*shape):
        return minitorch.from_numpy(rng.standard_normal(shape)).requires_grad_()

    x, w, b = make(4, 3), make(5, 3), make(5)
    assert minitorch.autograd.gradcheck(F.linear, (x, w, b))
    assert minitorch.autograd.gradgradcheck(F.linear, (x, w, b))
    x3 = make(2, 2, 3)
    assert minitorch.autograd.gradcheck(lambda a, c: F.linear(a, c), (x3, w))
    x1, x2, wb, bb = make(3, 2), make(3, 4), make(5, 2, 4), make(5)
    assert minitorch.autograd.gradcheck(F.bilinear, (x1, x2, wb, bb))
    assert minitorch.autograd.gradgradcheck(F.bilinear, (x1, x2, wb, bb))


def _error(callable_):
    with pytest.raises(Exception) as info:
        callable_()
    return type(info.value).__name__, str(info.value)


def test_linear_errors_match_torch(torch):
    cases = [
        lambda lib: lib.nn.functional.linear(lib.ones(4, 3), lib.ones(5, 2)),
        lambda lib: lib.nn.functional.linear(lib.ones(2, 4, 3), lib.ones(5, 2)),
        lambda lib: lib.nn.functional.linear(lib.ones(3), lib.ones(5, 2)),
        lambda lib: lib.nn.functional.linear(lib.ones(4, 3), lib.ones(5, 3), lib.ones(4)),
        lambda lib: lib.nn.functional.linear(lib.ones(4, 3), lib.ones(5, 3, dtype=lib.float64)),
        lambda lib: lib.nn.functional.linear(lib.ones(()), lib.ones(5, 3)),
        lambda lib: lib.nn.Linear(3, 2)(lib.ones(2, 4)),
        lambda lib: lib.nn.functional.bilinear(lib.ones(4, 3), lib.ones(4, 2), lib.ones(5, 3, 3)),
        lambda lib: lib.nn.functional.bilinear(lib.ones(4, 3), lib.ones(4, 2), lib.ones(5, 2, 2)),
        lambda lib: lib.nn.functional.bilinear(lib.ones(4, 3), lib.ones(5, 2), lib.ones(5, 3, 2)),
        lambda lib: lib.nn.Bilinear(0, 2, 3),
        # arguments that are no tensors, or missing, checked in order as PyTorch's parser does
        lambda lib: lib.nn.functional.linear(lib.ones(4, 3)),
        lambda lib: lib.nn.functional.linear([1.0, 2.0]),
        lambda lib: lib.nn.functional.linear(lib.ones(4, 3), [[1.0, 2.0, 3.0]]),
        lambda lib: lib.nn.functional.linear(lib.ones(4, 3), lib.ones(5, 3), 1.0),
        lambda lib: lib.nn.functional.linear(lib.ones(4, 3), 2.0),
        lambda lib: lib.nn.functional.linear(input=lib.ones(4, 3), bias=lib.ones(5)),
    ] + [  # PyTorch names the dtypes by their C++ types here ("long int != float")
        lambda lib, name=name: lib.nn.functional.linear(lib.ones(2, 3, dtype=getattr(lib, name)), lib.ones(4, 3))
        for name in ("int64", "int32", "int16", "int8", "uint8")
    ] + [
        lambda lib: lib.nn.functional.conv2d(lib.ones(1, 1, 3, 3), lib.ones(1, 1, 2, 2), lib.ones(1, dtype=lib.int64)),
    ]
    for case in cases:
        assert _error(lambda case=case: case(minitorch)) == _error(lambda case=case: case(torch))


def test_linear_special_shapes_match_torch(torch):
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((4, 3)), rng.standard_normal(3), rng.standard_normal(())
    ours = F.linear(minitorch.from_numpy(x), minitorch.from_numpy(w))
    theirs = torch.nn.functional.linear(torch.from_numpy(x), torch.from_numpy(w))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    for lib in (minitorch, torch):  # a vector weight takes no bias
        with pytest.raises(RuntimeError, match="mat2 must be a matrix, got 1-D tensor"):
            lib.nn.functional.linear(lib.from_numpy(x), lib.from_numpy(w), lib.from_numpy(b))
    # A bias that broadcasts from a smaller shape (one row of biases per sample).
    b2 = rng.standard_normal((4, 1))
    weight = minitorch.from_numpy(rng.standard_normal((2, 3)))
    ours = F.linear(minitorch.from_numpy(x), weight, minitorch.from_numpy(b2))
    assert tuple(ours.shape) == (4, 2)


def test_default_initialisation_follows_torch_bounds():
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) reduces to U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    weight = layer.weight.detach().numpy()
    assert weight.min() >= -bound and weight.max() <= bound
    assert abs(weight.std() - bound / math.sqrt(3)) < 0.02 * bound  # the std of U(-b, b) is b / sqrt(3)
    assert np.abs(layer.bias.detach().numpy()).max() <= bound
    bilinear = nn.Bilinear(50, 20, 30)
    bound = 1 / math.sqrt(50)
    assert np.abs(bilinear.weight.detach().numpy()).max() <= bound
    assert abs(bilinear.weight.detach().numpy().std() - bound / math.sqrt(3)) < 0.05 * bound


def test_factory_kwargs_and_reproducible_init():
    layer = nn.Linear(3, 2, dtype=minitorch.float64, device="cpu")
    assert layer.weight.dtype == minitorch.float64 and layer.bias.dtype == minitorch.float64
    minitorch.manual_seed(0)
    first = nn.Linear(3, 2).weight.detach().numpy().copy()
    minitorch.manual_seed(0)
    second = nn.Linear(3, 2).weight.detach().numpy()
    np.testing.assert_array_equal(first, second)
    assert nn.Linear(3, 2, bias=False).bias is None
    assert [n for n, _ in nn.Linear(3, 2, bias=False).named_parameters()] == ["weight"]


def test_identity_flatten_unflatten_match_torch(torch):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 4, 5))
    for make in (
        lambda lib: lib.nn.Identity(3, unused=True),
        lambda lib: lib.nn.Flatten(),
        lambda lib: lib.nn.Flatten(0, 2),
        lambda lib: lib.nn.Flatten(-2),
        lambda lib: lib.nn.Unflatten(1, (3, 1)),
        lambda lib: lib.nn.Unflatten(-1, [5, 1]),
    ):
        ours, theirs = make(minitorch), make(torch)
        assert repr(ours) == repr(theirs)
        our_in = minitorch.from_numpy(x.copy()).requires_grad_()
        their_in = torch.from_numpy(x.copy()).requires_grad_()
        our_out, their_out = ours(our_in), theirs(their_in)
        assert tuple(our_out.shape) == tuple(their_out.shape)
        np.testing.assert_array_equal(our_out.detach().numpy(), their_out.detach().numpy())
        our_out.sum().backward()
        np.testing.assert_array_equal(our_in.grad.numpy(), np.ones_like(x))
    for bad in (lambda lib: lib.nn.Unflatten(1, 3), lambda lib: lib.nn.Unflatten(1, (2, 2.0))):
        assert _error(lambda bad=bad: bad(minitorch)) == _error(lambda bad=bad: bad(torch))


def test_linear_repr_matches_torch(torch):
    for make in (lambda lib: lib.nn.Linear(2, 3), lambda lib: lib.nn.Linear(2, 3, bias=False),
                 lambda lib: lib.nn.Bilinear(2, 3, 4), lambda lib: lib.nn.Bilinear(2, 3, 4, bias=False)):
        assert repr(make(minitorch)) == repr(make(torch))


def test_linear_node_lists_its_inputs_in_addmm_order():
    """PyTorch records ``addmm(bias, x, W^T)``: the bias's accumulator comes first (the 60-minute blitz prints it)."""
    import minitorch

    layer = minitorch.nn.Linear(3, 2)
    x = minitorch.ones(4, 3, requires_grad=True)
    node = layer(x).grad_fn
    assert node.name() == "AddmmBackward0"
    assert [child.variable for child, _ in node.next_functions] == [layer.bias, x, layer.weight]
    no_bias = minitorch.nn.Linear(3, 2, bias=False)
    node = no_bias(x).grad_fn
    assert node.name() == "MmBackward0"
    assert [child.variable for child, _ in node.next_functions] == [x, no_bias.weight]
