"""``replicate``: one copy of a module per device, whose weights are differentiable copies.

A replica is a *shallow* copy of each module in the tree: the same class and settings,
but its own dictionaries, holding

* weight copies from ``Broadcast`` (see ``_functions.py``): outputs of a graph node, not
  leaves, so the gradients computed through a replica flow back into the original
  ``Parameter`` objects. They are plain attributes of the replica, not registered
  parameters (``replica.parameters()`` is empty, as in PyTorch): the replica is thrown
  away after one forward and nothing should train it.
* buffer copies: the first replica (on the module's own device) shares the original
  buffers, so in-place updates there (running statistics) reach the original module;
  the others get their own copies.

    >>> import minitorch
    >>> from minitorch import nn
    >>> from minitorch.nn.parallel import replicate
    >>> model = nn.Linear(3, 2)
    >>> first, second = replicate(model, ["cpu", "cpu"])
    >>> second.weight.grad_fn.name(), list(second.parameters())
    ('BroadcastBackward', [])
"""

from __future__ import annotations

from ..modules.module import Module
from ._functions import as_device, broadcast, copies_on_devices

__all__ = ["replicate"]


def _shallow_copy(module: Module) -> Module:
    """A new module of the same class sharing ``module``'s settings, with its own parameter/buffer/child dicts."""
    replica = object.__new__(type(module))
    replica.__dict__.update(module.__dict__)
    replica.__dict__["_parameters"] = {}
    replica.__dict__["_buffers"] = dict(module._buffers)
    replica.__dict__["_modules"] = dict(module._modules)
    replica.__dict__["_is_replica"] = True
    return replica


def replicate(network: Module, devices, detach: bool = False) -> list[Module]:
    """One replica of ``network`` per device in ``devices``; ``detach=True`` cuts them from the graph."""
    devices = [as_device(spec) for spec in devices]
    if not devices:
        return []
    params = list(network.parameters())
    param_positions = {id(p): i for i, p in enumerate(params)}
    param_copies = broadcast(params, devices, detach)

    buffers = list(network.buffers())
    differentiable_buffers = [b for b in buffers if b.requires_grad and not detach]
    other_buffers = [b for b in buffers if not (b.requires_grad and not detach)]
    buffer_positions = {id(b): ("grad", i) for i, b in enumerate(differentiable_buffers)}
    buffer_positions.update({id(b): ("plain", i) for i, b in enumerate(other_buffers)})
    buffer_copies = {
        "grad": broadcast(differentiable_buffers, devices, detach),
        "plain": copies_on_devices(other_buffers, devices),
    }

    modules = list(network.modules())  # each module once, even if it appears twice in the tree
    module_positions = {id(m): i for i, m in enumerate(modules)}
    module_copies = [[_shallow_copy(m) for m in modules] for _ in devices]

    for i, module in enumerate(modules):
        for k in range(len(devices)):
            replica = module_copies[k][i]
            for name, child in module._modules.items():
                replica._modules[name] = None if child is None else module_copies[k][module_positions[id(child)]]
            for name, param in module._parameters.items():
                if param is None:
                    replica._parameters[name] = None
                else:
                    # A plain attribute (it lands in replica.__dict__): the copy is not a leaf Parameter.
                    replica.__dict__[name] = param_copies[k][param_positions[id(param)]]
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    kind, position = buffer_positions[id(buffer)]
                    replica._buffers[name] = buffer_copies[kind][k][position]
    return [module_copies[k][0] for k in range(len(devices))]
