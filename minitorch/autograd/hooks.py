"""Tensor hooks: functions that see (and may replace) a tensor's gradient during backward.

A leaf keeps its hooks itself; its ``AccumulateGrad`` node reads them. A non-leaf's hooks
are kept on the node that produced it, keyed by which output of that node it is, because
nodes never point at their outputs (that would make reference cycles).
"""

from __future__ import annotations

import itertools
import weakref

from ._extensions import RemovableHandle as _RemovableHandle

_hook_ids = itertools.count()


def register_tensor_hook(tensor, hook):
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    key = next(_hook_ids)
    if tensor.grad_fn is None:
        if tensor._backward_hooks is None:
            tensor._backward_hooks = {}
        hooks = tensor._backward_hooks
        accumulator = tensor._accumulator_ref() if tensor._accumulator_ref is not None else None
        if accumulator is not None:  # (an accumulator made later sees the hooks when it is made)
            accumulator._extras = True  # the engine now calls _extensions for this leaf
    else:
        node = tensor.grad_fn
        node._extras = True  # the engine now calls _extensions for this node
        if node._tensor_pre_hooks is None:
            node._tensor_pre_hooks = {}
        hooks = node._tensor_pre_hooks.setdefault(tensor._output_nr, {})
        retain = hooks.pop("retain_grad", None)  # PyTorch runs the retain_grad hook last
        if retain is not None:
            hooks[key] = hook
            hooks["retain_grad"] = retain
            return _RemovableHandle(hooks, hook, key)
    hooks[key] = hook
    return _RemovableHandle(hooks, hook, key)


def add_retain_grad_hook(tensor):
    """Store the gradient of a non-leaf tensor in its ``.grad`` (through a weak reference: no cycle)."""
    tensor_ref = weakref.ref(tensor)

    def retain(grad):
        target = tensor_ref()
        if target is None:
            return None
        if target._grad is None:
            target._grad = grad.detach()._detached_copy() if not grad.requires_grad else grad
        else:
            target._grad = target._grad + grad
        return None

    node = tensor.grad_fn
    node._extras = True  # the engine now calls _extensions for this node
    if node._tensor_pre_hooks is None:
        node._tensor_pre_hooks = {}
    node._tensor_pre_hooks.setdefault(tensor._output_nr, {})["retain_grad"] = retain
