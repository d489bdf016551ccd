"""A second device for the device exercises' checks (chapter 3), on any machine.

The checks of a device-generic exercise run the learner's code on the CPU and on a second device. On a
machine with a GPU that is the GPU; without one it is a ``cuda`` device whose memory is host memory
(NumPy computes, a "transfer" copies), registered with ``minitorch._device.register_backend`` for the
``with`` block, the same stand-in minitorch's own tests use (``tests/support.py``) and chapter 3 builds
in its section 5. Everything above the backend (tensors, ops, autograd, the same-device check) cannot
tell the difference, so a result left on the CPU, or a new tensor made without ``device=``, shows up::

    with second_device() as device:
        x = minitorch.randn(3).to(device)     # device(type='cuda', index=0)
"""

from __future__ import annotations

import contextlib

import numpy as np

import minitorch
import minitorch.nn as nn
from minitorch import _device


class HostBackedGPU(_device.NumpyBackend):
    """One ``cuda`` device whose memory is host memory: NumPy computes, copies to and from it copy."""

    def __init__(self):
        _device.Backend.__init__(self, "cuda")

    def device_count(self) -> int:
        return 1

    def to_device(self, array, index: int, blocking: bool = False):
        return np.array(array, copy=True)

    def to_host(self, array, non_blocking: bool = False) -> np.ndarray:
        return np.array(array, copy=True)

    def device_name(self, index: int) -> str:
        return "a GPU stand-in in host memory (NumPy underneath)"


@contextlib.contextmanager
def second_device():
    """Yield ``cuda:0``: the real GPU if there is one, else a host-backed stand-in for the block."""
    if minitorch.cuda.is_available():
        yield minitorch.device("cuda", 0)
        return
    from minitorch import cuda

    previous = _device.register_backend("cuda", HostBackedGPU())
    try:
        yield minitorch.device("cuda", 0)
    finally:
        _device.register_backend("cuda", previous)  # the real (absent) GPU comes back
        cuda._current["index"] = 0


# -- the reports the chapter 3 exercises are checked on --------------------------------------------------
def causal_softmax_report(function, scores):
    """(the result on the CPU, the result on the second device copied back, 1 where a result stayed put)."""
    on_cpu = function(scores)
    with second_device() as device:
        moved = scores.to(device)
        on_device = function(moved)
        stayed = [on_cpu.device == scores.device, on_device.device == moved.device]
        return on_cpu, on_device.cpu(), np.array(stayed, dtype=np.int64)


# The notebook builds the same model for the learner's module_to: nested Sequentials of Linear, BatchNorm1d
# and ReLU (one more level per entry of ``sizes``), the parameters filled from ``values`` (cycled), the
# first bias frozen, one training step's forward and backward (so the BatchNorm buffers and the gradients
# hold values). The report says where every parameter, gradient and buffer went.
def build_model(sizes, values):
    """Sequential(Linear, BatchNorm1d, ReLU, Sequential(Linear, BatchNorm1d, ReLU, ...)), filled from values."""
    sizes = [int(size) for size in np.asarray(sizes).tolist()]
    model = None
    for fan_in, fan_out in reversed(list(zip(sizes[:-1], sizes[1:]))):
        layers = [nn.Linear(fan_in, fan_out), nn.BatchNorm1d(fan_out), nn.ReLU()]
        model = nn.Sequential(*layers, *([model] if model is not None else []))
    parameters = list(model.parameters())
    pool = np.resize(np.asarray(values, dtype=np.float32), sum(p.numel() for p in parameters))
    start = 0
    with minitorch.no_grad():
        for parameter in parameters:
            count = parameter.numel()
            parameter.copy_(minitorch.tensor(pool[start:start + count].reshape(tuple(parameter.shape))))
            start += count
    model[0].bias.requires_grad_(False)  # a frozen parameter stays frozen after the move
    batch = minitorch.tensor(np.resize(pool, (5, sizes[0])))
    (model(batch) ** 2).mean().backward()  # gradients, and the BatchNorm buffers updated once
    return model, batch


@contextlib.contextmanager
def module_to_withheld():
    """While the learner's module_to runs: nn.Module's own moving machinery (to, cpu, cuda, _apply) is off."""
    saved = nn.Module._apply

    def withheld(self, *args, **kwargs):
        raise RuntimeError(
            "nn.Module.to (and cpu, cuda, _apply) is switched off while your module_to runs: move each tensor yourself"
        )

    nn.Module._apply = withheld
    try:
        yield
    finally:
        nn.Module._apply = saved


def module_to_report(move, sizes, values, withhold=True):
    """What exercise ch03.module_to compares, for ``move(module, device)``: the learner's module_to (with
    nn.Module's own moving switched off while it runs, ``withhold``), or the reference, Module.to."""
    model, batch = build_model(sizes, values)
    if withhold:
        learner_move = move

        def move(module, device):
            with module_to_withheld():
                return learner_move(module, device)

    parameters = [parameter for _, parameter in model.named_parameters()]
    with second_device() as device:
        returned = move(model, device)
        now = [parameter for _, parameter in model.named_parameters()]
        report = [
            np.array([returned is model], dtype=np.int64),
            np.array([after is before for after, before in zip(now, parameters)] + [len(now) == len(parameters)],
                     dtype=np.int64),
            np.array([parameter.requires_grad for parameter in now], dtype=np.int64),
            np.array([parameter.device == device for parameter in now], dtype=np.int64),
            np.array([buffer.device == device for _, buffer in model.named_buffers()], dtype=np.int64),
            np.array([-1 if parameter.grad is None else parameter.grad.device == device for parameter in now],
                     dtype=np.int64),
            np.concatenate([value.detach().cpu().numpy().astype(np.float64).reshape(-1)
                            for value in model.state_dict().values()]),
        ]
        try:
            model.eval()
            with minitorch.no_grad():
                output = model(batch.to(device)).cpu().numpy()
        except Exception:  # the model's tensors are on two devices: the flags above already say which
            output = np.full((batch.shape[0], int(np.asarray(sizes)[-1])), np.nan, dtype=np.float32)
        report.append(output)
        move(model, minitorch.device("cpu"))
        back = [tensor.device.type == "cpu" for tensor in [*model.parameters(), *model.buffers()]]
        report.append(np.array(back, dtype=np.int64))
    return tuple(report)


