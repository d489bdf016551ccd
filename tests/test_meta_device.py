"""The ``meta`` device (minitorch/_meta.py): shapes and dtypes without data, compared with PyTorch."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

# Each runs on both libraries; what it returns (reprs, shapes, dtypes, devices) must be the same text.
PROGRAMS = {
    "factories": "[repr(lib.empty(2, 3, device='meta')), repr(lib.zeros((), device='meta')), "
                 "repr(lib.ones(2, dtype=lib.int64, device='meta')), "
                 "repr(lib.zeros(2, dtype=lib.float64, device='meta', requires_grad=True)), "
                 "repr(lib.randn(4, device='meta')), repr(lib.full((2,), 3.0, device='meta'))]",
    "to_meta": "[repr(lib.randn(2, 3).to('meta')), repr(lib.arange(6).to('meta')), "
               "repr(lib.ones(2).to(device='meta', dtype=lib.float16))]",
    "attributes": "[str(x.device), x.device.type, x.is_meta, lib.ones(1).is_meta, tuple(x.shape), str(x.dtype), "
                  "x.dim(), x.numel()]",
    "ops_propagate_shapes": "[repr(x @ lib.empty(3, 4, device='meta')), repr((x * 2 + 1).exp().sum(0)), "
                            "repr(x.t()), repr(x.reshape(6)), repr(x[0]), repr(x.unsqueeze(1).expand(2, 5, 3)), "
                            "repr(lib.cat([x, x])), repr(x.softmax(-1)), repr(x.max(1).values), repr(x.argmax(1)), "
                            "repr(x > 0), repr(x.to(lib.float64)), repr(x.mean())]",
    "context_manager_builds_without_data": "build_on_meta(lib)",
    "loss_and_backward": "loss_on_meta(lib)",
    "in_place_and_init": "in_place_on_meta(lib)",
    "to_empty": "to_empty(lib)",
}


def build_on_meta(lib):
    nn = lib.nn
    with lib.device("meta"):
        net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                            nn.Linear(8 * 15 * 15, 10))
        out = net(lib.randn(4, 3, 32, 32))
    return [repr(out), repr(net[0].weight), repr(net[1].running_mean), str(net[5].bias.device)]


def loss_on_meta(lib):
    logits = lib.empty(4, 10, device="meta", requires_grad=True)
    loss = lib.nn.functional.cross_entropy(logits, lib.zeros(4, dtype=lib.int64, device="meta"))
    loss.backward()
    mse = lib.nn.functional.mse_loss(logits, lib.empty(4, 10, device="meta"))
    return [repr(loss), repr(logits.grad), repr(mse)]


def in_place_on_meta(lib):
    lib.manual_seed(0)
    t = lib.empty(2, 3, device="meta")
    t.uniform_()
    t.add_(1).mul_(2)
    lib.nn.init.kaiming_uniform_(t)
    with lib.device("meta"):
        lib.nn.Linear(100, 100)  # its initialisation draws nothing on the meta device
    return [repr(t), repr(lib.rand(3))]  # the generator is where it was: PyTorch's first numbers after seed 0


def to_empty(lib):
    lib.manual_seed(0)
    with lib.device("meta"):
        model = lib.nn.Linear(3, 2)
    model.to_empty(device="cpu")
    state = {"weight": lib.ones(2, 3), "bias": lib.zeros(2)}
    model.load_state_dict(state)
    return [str(model.weight.device), repr(model(lib.ones(1, 3))), repr(lib.nn.Linear(3, 2).to("meta").weight)]


def _run(lib, program):
    x = lib.empty(2, 3, device="meta")
    text = eval(program, {"lib": lib, "x": x, "build_on_meta": build_on_meta, "loss_on_meta": loss_on_meta,
                          "in_place_on_meta": in_place_on_meta, "to_empty": to_empty})
    return [re.sub(r"\btorch\.", "minitorch.", str(item)) for item in text]


@pytest.mark.parametrize("name", PROGRAMS)
def test_meta_device_matches_pytorch(name):
    torch = require_torch()
    assert _run(minitorch, PROGRAMS[name]) == _run(torch, PROGRAMS[name])


def test_meta_tensors_hold_no_data():
    big = minitorch.empty(20_000, 20_000, device="meta")  # 1.6 GB as float32 on the CPU
    # Elementwise ops, reductions and matrix products work out their results from the shapes alone.
    results = {"big": big, "t().reshape": big.t().reshape(-1), "+ 1": big + 1, "exp().mean(0)": big.exp().mean(0),
               "@": big @ big, "vector @": big[0] @ big}
    for name, result in results.items():
        low, high = np.lib.array_utils.byte_bounds(result._data.view(np.ndarray))
        assert high - low == result.element_size(), name  # one element in memory, seen at every position
    assert [tuple(result.shape) for result in results.values()] == [
        (20_000, 20_000), (400_000_000,), (20_000, 20_000), (20_000,), (20_000, 20_000), (20_000,)]


@pytest.mark.parametrize("read", ["x.cpu()", "x.to('cpu')", "x.tolist()", "x.numpy()"])
def test_reading_a_meta_tensor_raises_pytorchs_error(read):
    torch = require_torch()
    errors = []
    for lib in (minitorch, torch):
        x = lib.empty(2, 3, device="meta")
        with pytest.raises(Exception) as caught:
            eval(read, {"x": x})
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0][0].__name__ == errors[1][0].__name__ and errors[0][1] == errors[1][1]


def test_item_of_a_meta_tensor_raises():
    with pytest.raises((RuntimeError, NotImplementedError)):
        minitorch.empty((), device="meta").item()


def test_meta_strides_are_pytorchs():
    assert minitorch.empty(2, 3, device="meta").stride() == (3, 1)
