"""Copying tensors onto several devices, and the autograd ``Broadcast`` that replicates weights.

Data parallelism needs one copy of every weight on every device. If those copies were
plain copies, the gradients computed on each device would stay there and the original
weights would learn nothing. ``Broadcast`` is a differentiable copy: its forward makes one
copy per device; its backward adds the gradients of all the copies back onto the device
of the original (the chain rule for a value used in several places is a sum):

    copy_k = w  on device k          (k = 0 .. n-1)
    dw = sum_k  grad(copy_k)         moved back to w's device

On CPU "devices" the copies share the original's memory (nothing is copied; forward
only reads weights), but each is its own node output, so the sum in backward still runs.
"""

from __future__ import annotations

from ..._device import CPU, canonical, device as Device
from ..._tensor import Tensor
from ...autograd.function import Function


def as_device(spec) -> Device:
    """A ``minitorch.device`` from what PyTorch accepts as a device id: ``1`` means ``cuda:1``, ``-1`` the CPU."""
    if isinstance(spec, int) and not isinstance(spec, bool):
        return CPU if spec == -1 else Device("cuda", spec)
    return canonical(Device(spec))


def copies_on_devices(tensors, devices) -> list[list[Tensor]]:
    """For each device, a list with one copy of each tensor (no autograd).

    Slot 0, on the tensors' own device, holds the tensors themselves (PyTorch's
    ``broadcast_coalesced`` does the same): a replica there updates the original buffers
    (BatchNorm's running statistics). Every other slot gets its own copy, so replicas that
    write their buffers never write each other's.
    """
    per_device = []
    for position, device in enumerate(devices):
        copies = []
        for tensor in tensors:
            if position == 0 and tensor.device == device:
                copies.append(tensor)
            else:
                copies.append(tensor.detach().to(device, copy=True))
        per_device.append(copies)
    return per_device


class Broadcast(Function):
    """``Broadcast.apply(devices, *tensors)``: each tensor copied onto each device, differentiably.

    Returns ``len(devices) * len(tensors)`` outputs, grouped by device (all tensors for
    device 0, then all for device 1...). Forward: ``copy_k = w`` on device k.
    Backward: ``dw = sum over k of grad(copy_k)`` on ``w``'s device.
    """

    @staticmethod
    def forward(ctx, devices, *tensors):
        ctx.devices = devices
        ctx.tensor_count = len(tensors)
        ctx.input_device = tensors[0].device if tensors else CPU
        # A copy that nobody used gets no gradient; say None rather than a tensor of zeros (whose
        # device the engine could not know: this node's outputs live on several devices).
        ctx.set_materialize_grads(False)
        outputs = []
        for device in devices:
            for tensor in tensors:
                # On the weight's own device the "copy" is the weight itself; apply() gives each
                # output its own tensor object (sharing the memory), with this node as grad_fn.
                outputs.append(tensor if tensor.device == device else tensor.to(device))
        needs_grad = ctx.needs_input_grad[1:] if ctx.needs_input_grad else ()
        frozen = [index for index, needed in enumerate(needs_grad) if not needed]
        if frozen:  # copies of weights that need no gradient (frozen layers) need none either
            ctx.mark_non_differentiable(
                *[outputs[k * len(tensors) + index] for k in range(len(devices)) for index in frozen]
            )
        return tuple(outputs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        count = ctx.tensor_count
        grads = []
        for index in range(count):
            total = None
            for k in range(len(ctx.devices)):
                grad = grad_outputs[k * count + index]
                if grad is None:
                    continue
                grad = grad.to(ctx.input_device)
                total = grad if total is None else total + grad
            grads.append(total)
        return (None, *grads)


def broadcast(tensors, devices, detach: bool = False) -> list[list[Tensor]]:
    """For each device, copies of ``tensors`` there: through ``Broadcast`` (gradients flow back) unless ``detach``."""
    tensors = list(tensors)
    if not tensors:
        return [[] for _ in devices]
    if detach:
        return copies_on_devices(tensors, devices)
    outputs = Broadcast.apply(list(devices), *tensors)
    count = len(tensors)
    return [list(outputs[k * count:(k + 1) * count]) for k in range(len(devices))]
