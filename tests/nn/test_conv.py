"""Conv1d/2d/3d, ConvTranspose1d/2d/3d and F.conv*, F.unfold/F.fold against PyTorch (float64), plus gradchecks."""

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


def _inputs(torch, rng, shape):
    array = rng.standard_normal(shape)
    return minitorch.from_numpy(array.copy()).requires_grad_(), torch.from_numpy(array.copy()).requires_grad_()


def _copy_parameters(ours, theirs):
    ours.load_state_dict({key: minitorch.tensor(value.detach().numpy()) for key, value in theirs.state_dict().items()})


def _close(ours, theirs, message=""):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-10, err_msg=message)


def _check_module(torch, ours, theirs, shape, seed=0, **call):
    """Same parameters, same float64 input: outputs, input gradient and parameter gradients agree (train and eval)."""
    rng = np.random.default_rng(seed)
    _copy_parameters(ours, theirs)
    for training in (True, False):
        ours.train(training)
        theirs.train(training)
        ours.zero_grad()
        theirs.zero_grad()
        x, tx = _inputs(torch, rng, shape)
        out, tout = ours(x, **call), theirs(tx, **call)
        _close(out, tout, "output")
        assert tuple(out.shape) == tuple(tout.shape)
        grad = rng.standard_normal(tuple(tout.shape))
        out.backward(minitorch.from_numpy(grad))
        tout.backward(torch.from_numpy(grad))
        _close(x.grad, tx.grad, "input grad")
        for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            _close(p.grad, q.grad, name)


CONV2D_CASES = [
    # (in, out, kernel, options, input size)
    (3, 4, 3, {}, (2, 3, 7, 6)),
    (3, 4, 3, {"padding": 1}, (2, 3, 5, 5)),
    (3, 4, (3, 2), {"stride": 2, "padding": (1, 0)}, (2, 3, 7, 8)),
    (3, 4, 3, {"stride": (2, 3), "dilation": 2, "padding": 2}, (1, 3, 9, 10)),
    (4, 6, 3, {"groups": 2, "padding": 1}, (2, 4, 5, 5)),
    (4, 8, 3, {"groups": 4, "bias": False}, (2, 4, 6, 6)),  # depthwise, channel multiplier 2
    (4, 4, 3, {"groups": 4, "padding": "same"}, (1, 4, 5, 6)),  # depthwise
    (2, 3, 4, {"padding": "same", "dilation": 2}, (2, 2, 9, 7)),  # even kernel: asymmetric 'same'
    (2, 3, (2, 3), {"padding": "valid"}, (2, 2, 4, 4)),
    (3, 2, 1, {"stride": 2}, (2, 3, 5, 5)),
    (2, 3, 3, {"padding": 1}, (2, 5, 5)),  # unbatched
    (2, 3, 3, {"padding": 2, "padding_mode": "reflect"}, (2, 2, 5, 6)),
    (2, 3, 3, {"padding": (1, 2), "padding_mode": "replicate", "stride": 2}, (2, 2, 5, 6)),
    (2, 3, 3, {"padding": 1, "padding_mode": "circular"}, (2, 2, 5, 6)),
    (2, 3, 4, {"padding": "same", "padding_mode": "circular"}, (1, 2, 5, 6)),
    (2, 3, 3, {"padding": 1}, (0, 2, 5, 5)),  # an empty batch
    (1, 8, 3, {"padding": 1}, (64, 1, 16, 16)),  # cnn_digits' first layer: the batch moves in blocks
]


@pytest.mark.parametrize("in_channels, out_channels, kernel, options, shape", CONV2D_CASES)
def test_conv2d_matches_torch(torch, in_channels, out_channels, kernel, options, shape):
    ours = nn.Conv2d(in_channels, out_channels, kernel, dtype=minitorch.float64, **options)
    theirs = torch.nn.Conv2d(in_channels, out_channels, kernel, dtype=torch.float64, **options)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _check_module(torch, ours, theirs, shape)


@pytest.mark.parametrize("options, shape", [
    ({}, (2, 3, 9)), ({"stride": 2, "padding": 2, "dilation": 2}, (2, 3, 11)), ({"groups": 3}, (1, 3, 8)),
    ({"padding": "same"}, (3, 8)), ({"padding": 2, "padding_mode": "reflect"}, (2, 3, 6)),
])
def test_conv1d_matches_torch(torch, options, shape):
    ours = nn.Conv1d(3, 6, 3, **options).double()
    theirs = torch.nn.Conv1d(3, 6, 3, **options).double()
    assert repr(ours) == repr(theirs)
    _check_module(torch, ours, theirs, shape)


def test_conv3d_matches_torch(torch):
    ours = nn.Conv3d(2, 4, (2, 3, 2), stride=(1, 2, 1), padding=1, groups=2).double()
    theirs = torch.nn.Conv3d(2, 4, (2, 3, 2), stride=(1, 2, 1), padding=1, groups=2).double()
    _check_module(torch, ours, theirs, (2, 2, 3, 5, 4))


TRANSPOSE_CASES = [
    (3, 2, 3, {}, (2, 3, 4, 5)),
    (3, 2, 3, {"stride": 2, "padding": 1, "output_padding": 1}, (2, 3, 4, 4)),
    (4, 6, (2, 3), {"stride": (2, 1), "groups": 2, "dilation": (1, 2)}, (2, 4, 3, 4)),
    (2, 2, 3, {"stride": 3, "padding": 2, "bias": False}, (1, 2, 3, 3)),
    (3, 3, 3, {"groups": 3, "dilation": 2, "output_padding": 1}, (2, 3, 3, 3)),  # output_padding < dilation
    (3, 2, 3, {"stride": 2}, (3, 4, 4)),  # unbatched
]


@pytest.mark.parametrize("in_channels, out_channels, kernel, options, shape", TRANSPOSE_CASES)
def test_conv_transpose2d_matches_torch(torch, in_channels, out_channels, kernel, options, shape):
    ours = nn.ConvTranspose2d(in_channels, out_channels, kernel, **options).double()
    theirs = torch.nn.ConvTranspose2d(in_channels, out_channels, kernel, **options).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _check_module(torch, ours, theirs, shape)


def test_conv_transpose_output_size_argument(torch):
    ours = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    theirs = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    _check_module(torch, ours, theirs, (1, 2, 4, 4), output_size=(8, 8))
    with pytest.raises(ValueError, match=r"requested an output size of \[10, 10\], but valid sizes range from "
                                         r"\[7, 7\] to \[8, 8\]"):
        ours(minitorch.zeros(1, 2, 4, 4, dtype=minitorch.float64), output_size=[10, 10])


def test_conv_transpose1d_and_3d_match_torch(torch):
    ours = nn.ConvTranspose1d(2, 4, 3, stride=2, output_padding=1, groups=2).double()
    theirs = torch.nn.ConvTranspose1d(2, 4, 3, stride=2, output_padding=1, groups=2).double()
    _check_module(torch, ours, theirs, (2, 2, 5))
    ours = nn.ConvTranspose3d(2, 2, 2, stride=2).double()
    theirs = torch.nn.ConvTranspose3d(2, 2, 2, stride=2).double()
    _check_module(torch, ours, theirs, (1, 2, 2, 3, 2))


def test_default_initialisation_bounds():
    minitorch.manual_seed(0)
    layer = nn.Conv2d(4, 16, 3, groups=2)
    bound = 1 / np.sqrt(2 * 3 * 3)  # fan_in = in_channels / groups * kh * kw
    weight, bias = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert weight.shape == (16, 2, 3, 3) and np.abs(weight).max() <= bound and np.abs(weight).max() > 0.8 * bound
    assert np.abs(bias).max() <= bound
    transposed = nn.ConvTranspose2d(4, 6, 3, groups=2)
    assert tuple(transposed.weight.shape) == (4, 3, 3, 3)
    assert np.abs(transposed.weight.detach().numpy()).max() <= 1 / np.sqrt(3 * 3 * 3)


def test_float32_forward_matches_torch(torch):
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((2, 3, 8, 8)), rng.standard_normal((5, 3, 3, 3)), rng.standard_normal(5)
    ours = F.conv2d(*(minitorch.tensor(a, dtype=minitorch.float32) for a in (x, w, b)), stride=2, padding=1)
    theirs = torch.nn.functional.conv2d(*(torch.tensor(a, dtype=torch.float32) for a in (x, w, b)), stride=2, padding=1)
    assert ours.dtype == minitorch.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    assert ours.is_contiguous()
    assert ours.grad_fn is None


def test_grad_fn_name(torch):
    x = minitorch.randn(1, 2, 4, 4, requires_grad=True)
    assert F.conv2d(x, minitorch.randn(3, 2, 3, 3)).grad_fn.name() == "ConvolutionBackward0"
    assert F.conv_transpose2d(x, minitorch.randn(2, 3, 3, 3)).grad_fn.name() == "ConvolutionBackward0"


# -- gradcheck: first and second order -----------------------------------------------------------
def _leaf(rng, *shape):
    return minitorch.from_numpy(rng.standard_normal(shape)).requires_grad_()


@pytest.mark.parametrize("options", [
    {}, {"stride": 2, "padding": 1}, {"dilation": 2, "padding": (1, 0)}, {"groups": 2}, {"padding": "same"},
])
def test_conv2d_gradcheck_and_gradgradcheck(options):
    rng = np.random.default_rng(4)
    x, w, b = _leaf(rng, 2, 2, 5, 4), _leaf(rng, 2, 2 // options.get("groups", 1), 3, 2), _leaf(rng, 2)

    def f(x, w, b):
        return F.conv2d(x, w, b, **options)

    assert minitorch.autograd.gradcheck(f, (x, w, b))
    assert minitorch.autograd.gradgradcheck(f, (x, w, b))


@pytest.mark.parametrize("options", [
    {}, {"stride": 2, "padding": 1, "output_padding": 1}, {"groups": 2, "dilation": 2},
])
def test_conv_transpose2d_gradcheck_and_gradgradcheck(options):
    rng = np.random.default_rng(5)
    x = _leaf(rng, 1, 2, 3, 3)
    groups = options.get("groups", 1)
    w = _leaf(rng, 2, 2 // groups, 2, 2)
    b = _leaf(rng, 2 // groups * groups)

    def f(x, w, b):
        return F.conv_transpose2d(x, w, b, **options)

    assert minitorch.autograd.gradcheck(f, (x, w, b))
    assert minitorch.autograd.gradgradcheck(f, (x, w, b))


def test_conv1d_and_conv3d_gradcheck():
    rng = np.random.default_rng(6)
    assert minitorch.autograd.gradcheck(lambda x, w: F.conv1d(x, w, stride=2, padding=1),
                                        (_leaf(rng, 2, 2, 5), _leaf(rng, 3, 2, 3)))
    assert minitorch.autograd.gradcheck(lambda x, w: F.conv3d(x, w, padding=(0, 1, 0)),
                                        (_leaf(rng, 1, 1, 3, 3, 2), _leaf(rng, 2, 1, 2, 2, 2)))


def test_double_backward_matches_torch(torch):
    """The gradient of a gradient norm (a typical gradient penalty) equals PyTorch's."""
    rng = np.random.default_rng(7)
    x, tx = _inputs(torch, rng, (2, 3, 5, 5))
    w, tw = _inputs(torch, rng, (4, 3, 3, 3))
    results = []
    for lib, functional, inputs in ((minitorch, F, (x, w)), (torch, torch.nn.functional, (tx, tw))):
        a, b = inputs
        y = functional.conv2d(a, b, stride=2, padding=1).tanh().sum()
        grad_x, grad_w = lib.autograd.grad(y, (a, b), create_graph=True)
        penalty = (grad_x ** 2).sum() + (grad_w ** 2).sum()
        results.append(lib.autograd.grad(penalty, (a, b)))
    for ours, theirs in zip(*results):
        _close(ours, theirs)


# -- unfold / fold -----------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{"kernel_size": 2}, {"kernel_size": (2, 3), "stride": 2, "padding": 1},
                                     {"kernel_size": 3, "dilation": 2, "padding": (2, 1)}])
def test_unfold_and_fold_match_torch(torch, options):
    rng = np.random.default_rng(8)
    x, tx = _inputs(torch, rng, (2, 3, 6, 7))
    ours, theirs = nn.Unfold(**options), torch.nn.Unfold(**options)
    assert repr(ours) == repr(theirs)
    _check_module(torch, ours, theirs, (2, 3, 6, 7))
    columns = theirs(tx).detach()
    ours_fold, theirs_fold = nn.Fold((6, 7), **options), torch.nn.Fold((6, 7), **options)
    assert repr(ours_fold) == repr(theirs_fold)
    _check_module(torch, ours_fold, theirs_fold, tuple(columns.shape))
    _check_module(torch, ours_fold, theirs_fold, tuple(columns.shape[1:]))  # unbatched
    assert minitorch.autograd.gradcheck(lambda a: F.unfold(a, **options), (_leaf(rng, 1, 1, 4, 5),))
    assert minitorch.autograd.gradgradcheck(lambda a: F.unfold(a, **options), (_leaf(rng, 1, 1, 4, 5),))
    cols = F.unfold(minitorch.zeros(1, 1, 4, 5), **options)
    assert minitorch.autograd.gradcheck(lambda a: F.fold(a, (4, 5), **options),
                                        (_leaf(rng, *cols.shape),))


def test_conv_equals_unfold_then_matmul():
    """The im2col identity the course teaches: conv2d(x, w) == w.view(O, -1) @ unfold(x)."""
    rng = np.random.default_rng(9)
    x = minitorch.from_numpy(rng.standard_normal((2, 3, 5, 5)))
    w = minitorch.from_numpy(rng.standard_normal((4, 3, 3, 3)))
    via_unfold = w.view(4, -1).matmul(F.unfold(x, 3, padding=1)).view(2, 4, 5, 5)
    np.testing.assert_allclose(F.conv2d(x, w, padding=1).numpy(), via_unfold.numpy(), rtol=1e-12, atol=1e-12)


# -- errors in PyTorch's words -------------------------------------------------------------------------
def _same_error(torch, ours, theirs):
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(type(expected.value)) as got:
        ours()
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("call", [
    lambda lib, F: F.conv2d(lib.zeros(2, 3), lib.zeros(8, 3, 3, 3)),
    lambda lib, F: F.conv2d(lib.zeros(1, 4, 5, 5), lib.zeros(8, 3, 3, 3)),
    lambda lib, F: F.conv2d(lib.zeros(4, 5, 5), lib.zeros(8, 3, 3, 3)),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 2, 2), lib.zeros(8, 3, 3, 3)),
    lambda lib, F: F.conv2d(lib.zeros(1, 6, 5, 5), lib.zeros(3, 2, 3, 3), groups=2),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3, 3), stride=2, padding="same"),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3, 3), padding="foo"),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3, 3), lib.zeros(7)),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3, 3, dtype=lib.float64)),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3, 3), lib.zeros(8, dtype=lib.float64)),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3, 3), stride=0),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3, 3), padding=-1),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3, 3), stride=(1, 1, 1)),
    lambda lib, F: F.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3, 3), groups=0),
    lambda lib, F: F.conv1d(lib.zeros(1, 3, 5, 5), lib.zeros(8, 3, 3)),
    lambda lib, F: F.conv_transpose2d(lib.zeros(1, 3, 5, 5), lib.zeros(4, 2, 3, 3)),
    lambda lib, F: F.conv_transpose2d(lib.zeros(1, 3, 5, 5), lib.zeros(3, 2, 3, 3), stride=2, output_padding=2),
    lambda lib, F: F.conv_transpose2d(lib.zeros(3, 5), lib.zeros(3, 2, 3, 3)),
    lambda lib, F: F.conv_transpose2d(lib.zeros(1, 1, 1, 1), lib.zeros(1, 1, 1, 1), padding=1),
    lambda lib, F: F.unfold(lib.zeros(1, 2, 3, 3), 4),
    lambda lib, F: F.fold(lib.zeros(1, 5, 4), (3, 3), 2),
    lambda lib, F: F.fold(lib.zeros(1, 4, 5), (3, 3), 2),
    lambda lib, F: lib.nn.Conv2d(3, 8, 3, groups=2),
    lambda lib, F: lib.nn.Conv2d(4, 6, 3, groups=4),
    lambda lib, F: lib.nn.Conv2d(4, 8, 3, padding="same", stride=2),
    lambda lib, F: lib.nn.ConvTranspose2d(4, 8, 3, padding_mode="reflect"),
])
def test_errors_match_torch(torch, call):
    _same_error(torch, lambda: call(minitorch, F), lambda: call(torch, torch.nn.functional))


def test_invalid_padding_mode_and_string_raise_value_error():
    with pytest.raises(ValueError, match="padding_mode must be one of .* but got padding_mode='foo'"):
        nn.Conv2d(4, 8, 3, padding_mode="foo")
    with pytest.raises(ValueError, match="Invalid padding string 'foo', should be one of"):
        nn.Conv2d(4, 8, 3, padding="foo")
