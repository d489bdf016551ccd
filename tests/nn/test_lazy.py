"""Lazy modules against PyTorch: sizes read from the first input, then the eager class.

Each check builds the same lazy layer with minitorch and with PyTorch (one function receives the
library), runs a first batch, and compares what a program would see: the repr before and after,
the class the layer becomes, parameter and buffer shapes, the state_dict, outputs and gradients
with the same weights. Initial values are compared within minitorch (a lazy layer starts from the
numbers its eager twin draws at the same point of the random stream) and by their bounds.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import minitorch
from minitorch import nn
from tests.support import require_torch

torch = require_torch()

# (lazy constructor, eager twin given the inferred size, a first input's shape)
LAYERS = {
    "LazyLinear": (lambda lib: lib.nn.LazyLinear(5), lambda lib: lib.nn.Linear(3, 5), (4, 3)),
    "LazyLinear-3d-input": (lambda lib: lib.nn.LazyLinear(2, bias=False), lambda lib: lib.nn.Linear(6, 2, bias=False),
                            (2, 3, 6)),
    "LazyConv1d": (lambda lib: lib.nn.LazyConv1d(4, 3, padding=1), lambda lib: lib.nn.Conv1d(2, 4, 3, padding=1),
                   (2, 2, 7)),
    "LazyConv2d": (lambda lib: lib.nn.LazyConv2d(6, kernel_size=5, padding=2),
                   lambda lib: lib.nn.Conv2d(3, 6, kernel_size=5, padding=2), (2, 3, 8, 8)),
    "LazyConv2d-groups": (lambda lib: lib.nn.LazyConv2d(4, 3, groups=2, bias=False),
                          lambda lib: lib.nn.Conv2d(4, 4, 3, groups=2, bias=False), (1, 4, 5, 5)),
    "LazyConv2d-unbatched": (lambda lib: lib.nn.LazyConv2d(2, 3), lambda lib: lib.nn.Conv2d(3, 2, 3), (3, 6, 6)),
    "LazyConv3d": (lambda lib: lib.nn.LazyConv3d(2, 2), lambda lib: lib.nn.Conv3d(3, 2, 2), (1, 3, 4, 4, 4)),
    "LazyConvTranspose1d": (lambda lib: lib.nn.LazyConvTranspose1d(3, 2, stride=2),
                            lambda lib: lib.nn.ConvTranspose1d(4, 3, 2, stride=2), (2, 4, 5)),
    "LazyConvTranspose2d": (lambda lib: lib.nn.LazyConvTranspose2d(2, 3, stride=2, output_padding=1),
                            lambda lib: lib.nn.ConvTranspose2d(3, 2, 3, stride=2, output_padding=1), (1, 3, 4, 4)),
    "LazyConvTranspose3d": (lambda lib: lib.nn.LazyConvTranspose3d(2, 2),
                            lambda lib: lib.nn.ConvTranspose3d(3, 2, 2), (1, 3, 3, 3, 3)),
    "LazyBatchNorm1d": (lambda lib: lib.nn.LazyBatchNorm1d(), lambda lib: lib.nn.BatchNorm1d(5), (6, 5)),
    "LazyBatchNorm2d": (lambda lib: lib.nn.LazyBatchNorm2d(momentum=0.2),
                        lambda lib: lib.nn.BatchNorm2d(3, momentum=0.2), (4, 3, 2, 2)),
    "LazyBatchNorm3d": (lambda lib: lib.nn.LazyBatchNorm3d(affine=False),
                        lambda lib: lib.nn.BatchNorm3d(2, affine=False), (2, 2, 2, 2, 2)),
    "LazyInstanceNorm1d": (lambda lib: lib.nn.LazyInstanceNorm1d(),
                           lambda lib: lib.nn.InstanceNorm1d(3, affine=True, track_running_stats=True), (2, 3, 5)),
    "LazyInstanceNorm2d": (lambda lib: lib.nn.LazyInstanceNorm2d(track_running_stats=False),
                           lambda lib: lib.nn.InstanceNorm2d(2, affine=True), (2, 2, 3, 3)),
    "LazyInstanceNorm3d": (lambda lib: lib.nn.LazyInstanceNorm3d(affine=False),
                           lambda lib: lib.nn.InstanceNorm3d(2, track_running_stats=True), (1, 2, 2, 2, 2)),
}


def _input(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("name", LAYERS)
def test_first_batch_turns_the_lazy_layer_into_its_eager_class(name):
    make_lazy, _, shape = LAYERS[name]
    ours, theirs = make_lazy(minitorch), make_lazy(torch)
    assert repr(ours) == repr(theirs)
    assert type(ours).__name__ == type(theirs).__name__
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [repr(v) for v in ours.state_dict().values()] == [repr(v) for v in theirs.state_dict().values()]
    assert ours.has_uninitialized_params() and theirs.has_uninitialized_params()

    x = _input(shape)
    ours(minitorch.tensor(x))
    theirs(torch.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__  # Linear, Conv2d, BatchNorm2d...
    assert repr(ours) == repr(theirs)
    assert not hasattr(ours, "has_uninitialized_params")
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.state_dict().items()
    }
    assert [type(p).__name__ for p in ours.parameters()] == [type(p).__name__ for p in theirs.parameters()]


@pytest.mark.parametrize("name", LAYERS)
def test_after_the_first_batch_it_computes_as_pytorch_with_the_same_weights(name):
    make_lazy, _, shape = LAYERS[name]
    ours, theirs = make_lazy(minitorch), make_lazy(torch)
    ours(minitorch.tensor(_input(shape, 1)))
    theirs(torch.tensor(_input(shape, 1)))
    ours.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = _input(shape, 2)
    ours_x, theirs_x = minitorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours_out, theirs_out = ours(ours_x), theirs(theirs_x)
    np.testing.assert_allclose(ours_out.detach().numpy(), theirs_out.detach().numpy(), rtol=1e-5, atol=1e-5)
    (ours_out * ours_out).sum().backward()
    (theirs_out * theirs_out).sum().backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-4, atol=1e-4)
    for (name_ours, p_ours), (_, p_theirs) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p_ours.grad.numpy(), p_theirs.grad.numpy(), rtol=1e-4, atol=1e-4, err_msg=name_ours)
    for (key, b_ours), (_, b_theirs) in zip(ours.named_buffers(), theirs.named_buffers()):
        np.testing.assert_allclose(b_ours.numpy(), b_theirs.numpy(), rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("name", LAYERS)
def test_the_lazy_layer_starts_from_the_numbers_its_eager_twin_draws(name):
    make_lazy, make_eager, shape = LAYERS[name]
    minitorch.manual_seed(7)
    eager = make_eager(minitorch)
    minitorch.manual_seed(7)
    lazy = make_lazy(minitorch)
    lazy(minitorch.tensor(_input(shape)))
    for key, value in eager.state_dict().items():
        if key == "num_batches_tracked" or key.endswith("running_mean") or key.endswith("running_var"):
            continue
        np.testing.assert_array_equal(lazy.state_dict()[key].numpy(), value.numpy(), err_msg=key)


def test_linear_weights_follow_the_default_bound():
    layer = nn.LazyLinear(50)
    layer(minitorch.ones(1, 16))
    bound = 1 / math.sqrt(16)
    assert float(layer.weight.abs().max()) <= bound and float(layer.bias.abs().max()) <= bound
    assert float(layer.weight.std()) > bound / 3  # drawn, not left as the empty tensor's contents


def test_an_optimizer_made_before_the_first_batch_trains_the_materialized_parameters():
    results = {}
    for lib in (minitorch, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.LazyLinear(4), lib.nn.ReLU(), lib.nn.LazyLinear(1))
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)  # d2l's Trainer does this before any batch
        held = list(model.parameters())
        x = lib.tensor(_input((8, 3)))
        model(x)  # the dry run
        assert [p is q for p, q in zip(held, model.parameters())] == [True] * 4
        weights = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
        results[lib.__name__] = (model, optimizer, weights)
    ours, theirs = results["minitorch"], results["torch"]
    ours[0].load_state_dict({k: minitorch.tensor(v) for k, v in theirs[2].items()})
    for lib, (model, optimizer, _) in (("minitorch", ours), ("torch", theirs)):
        module = minitorch if lib == "minitorch" else torch
        x = module.tensor(_input((8, 3), 5))
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for (key, mine), (_, reference) in zip(ours[0].state_dict().items(), theirs[0].state_dict().items()):
        np.testing.assert_allclose(mine.numpy(), reference.numpy(), rtol=1e-5, atol=1e-6, err_msg=key)


def test_state_dicts_between_lazy_and_initialized_layers():
    trained = nn.LazyLinear(3)
    trained(minitorch.ones(2, 4))
    fresh = nn.LazyLinear(3)
    fresh.load_state_dict(trained.state_dict())  # an initialized state into a lazy layer
    reference = _torch_loaded()
    assert repr(fresh) == repr(reference)  # still LazyLinear(in_features=0, ...) until its next call
    assert not fresh.has_uninitialized_params()
    np.testing.assert_array_equal(fresh.weight.detach().numpy(), trained.weight.detach().numpy())
    fresh(minitorch.ones(1, 4))
    reference(torch.ones(1, 4))
    assert type(fresh) is nn.Linear and repr(fresh) == repr(reference)
    np.testing.assert_array_equal(fresh.weight.detach().numpy(), trained.weight.detach().numpy())  # not redrawn

    still_lazy = nn.LazyLinear(3)
    still_lazy.load_state_dict(nn.LazyLinear(3).state_dict())  # uninitialized into uninitialized
    assert type(still_lazy) is nn.LazyLinear and still_lazy.has_uninitialized_params()

    with pytest.raises(RuntimeError) as ours:
        nn.Linear(4, 3).load_state_dict(nn.LazyLinear(3).state_dict())
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.Linear(4, 3).load_state_dict(torch.nn.LazyLinear(3).state_dict())
    assert str(ours.value) == str(theirs.value)


def _torch_loaded():
    trained = torch.nn.LazyLinear(3)
    trained(torch.ones(2, 4))
    fresh = torch.nn.LazyLinear(3)
    fresh.load_state_dict(trained.state_dict())
    return fresh


def test_dtype_and_copies_before_the_first_batch():
    layer = nn.LazyConv2d(2, 3).double()
    twin = copy.deepcopy(layer)
    layer(minitorch.ones(1, 1, 4, 4, dtype=minitorch.float64))
    assert layer.weight.dtype == minitorch.float64 and tuple(layer.weight.shape) == (2, 1, 3, 3)
    assert type(twin) is nn.LazyConv2d and twin.has_uninitialized_params()  # the copy stayed lazy
    twin(minitorch.ones(1, 5, 4, 4, dtype=minitorch.float64))
    assert tuple(twin.weight.shape) == (2, 5, 3, 3)


def test_errors_in_pytorchs_words():
    for make, shape in (
        (lambda lib: lib.nn.LazyConv2d(4, 3), (2, 3, 4, 4, 4)),  # 5-D into a 2-D convolution
        (lambda lib: lib.nn.LazyConv1d(2, 3, groups=2), (1, 3, 8)),  # 3 channels, 2 groups
    ):
        with pytest.raises(Exception) as ours:
            make(minitorch)(minitorch.ones(*shape))
        with pytest.raises(Exception) as theirs:
            make(torch)(torch.ones(*shape))
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value).replace("minitorch.Size", "torch.Size") == str(theirs.value)
    for lib in (minitorch, torch):
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            _ = lib.nn.LazyLinear(2).weight.shape


def test_a_d2l_style_network_summarises_and_trains_as_under_pytorch():
    """d2l builds LeNet from lazy layers, prints each layer's output shape, then initialises with xavier."""

    def lenet(lib):
        tnn = lib.nn
        return tnn.Sequential(
            tnn.LazyConv2d(6, kernel_size=5, padding=2), tnn.Sigmoid(), tnn.AvgPool2d(kernel_size=2, stride=2),
            tnn.LazyConv2d(16, kernel_size=5), tnn.Sigmoid(), tnn.AvgPool2d(kernel_size=2, stride=2),
            tnn.Flatten(), tnn.LazyLinear(120), tnn.Sigmoid(), tnn.LazyLinear(84), tnn.Sigmoid(), tnn.LazyLinear(10),
        )

    def summary(lib):
        net = lenet(lib)
        x = lib.tensor(_input((1, 1, 28, 28)))
        lines = []
        for layer in net:
            x = layer(x)
            lines.append(f"{layer.__class__.__name__} output shape:\t{tuple(x.shape)}")

        def init_cnn(module):
            if type(module) in (lib.nn.Linear, lib.nn.Conv2d):
                lib.nn.init.xavier_uniform_(module.weight)

        net.apply(init_cnn)
        return net, lines

    (ours, our_lines), (theirs, their_lines) = summary(minitorch), summary(torch)
    assert our_lines == their_lines
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())
    ours.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = _input((4, 1, 28, 28), 3)
    np.testing.assert_allclose(ours(minitorch.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)
