"""Automatic differentiation: record ops as they run, then walk the record backwards.

* ``Function`` / ``once_differentiable`` (function.py): ops with a forward and a backward.
* ``backward`` and ``grad`` (here): start the walk; ``engine.py`` does it.
* ``no_grad`` and friends (grad_mode.py): switch recording off.
* ``gradcheck`` / ``gradgradcheck`` (gradcheck.py): compare with finite differences.
* ``detect_anomaly`` (anomaly_mode.py): find the op that produced NaN.
* ``graph`` (graph.py): walk a graph and step a backward pass from the outside.
"""

from __future__ import annotations

import warnings

import numpy as _numpy

from . import (
    function as _function_module,
    functional,
    graph,
)
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import BackwardStep, run_backward
from .function import AccumulateGrad, Function, Node, once_differentiable
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import gradcheck, gradgradcheck

__all__ = [
    "Function", "once_differentiable", "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled",
    "inference_mode", "is_grad_enabled", "gradcheck", "gradgradcheck", "detect_anomaly", "set_detect_anomaly",
    "is_anomaly_enabled", "graph", "Node", "AccumulateGrad", "BackwardStep", "run_backward", "functional",
]


def _as_tuple(value):
    if value is None:
        return None
    if isinstance(value, _function_module.Tensor):  # the class, set by _tensor.py (it imports this package)
        return (value,)
    return tuple(value)


def _make_root_grads(outputs, grad_outputs, create_graph: bool):
    """The gradients that start the walk: given ones, or 1 for a scalar output."""
    Tensor = _function_module.Tensor  # set by _tensor.py, which imports this package
    grad_outputs = grad_outputs if grad_outputs is not None else (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError("grad can be implicitly created only for scalar outputs" if not grad_outputs else
                           f"got {len(grad_outputs)} tensors in grad_outputs and {len(outputs)} in outputs")
    roots = []
    for index, (output, grad) in enumerate(zip(outputs, grad_outputs)):
        if not output.requires_grad:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not have a grad_fn")
        if grad is None:
            if output._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            data = output._data
            roots.append(Tensor._make(output._xp.ones(data.shape, data.dtype), output._device))  # a fresh leaf
            continue
        if not isinstance(grad, Tensor):
            from .._creation import tensor as make_tensor  # ops sit above autograd: imported when first needed

            grad = make_tensor(grad, dtype=output.dtype, device=output.device)
        elif grad.shape != output.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{index}] has a shape of {grad.shape} and output[{index}] has a shape "
                f"of {output.shape}."
            )
        elif grad.device != output.device:
            raise RuntimeError(
                f"invalid gradient at index {index} - expected device {output.device} but got {grad.device}"
            )
        roots.append(grad if create_graph else grad.detach())
    return roots


_CREATE_GRAPH_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak."
)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
    """Add the gradient of ``tensors`` with respect to the graph's leaves into each leaf's ``.grad``.

    ``grad_tensors`` weights each output (needed unless it is a scalar); ``retain_graph``
    keeps saved tensors for another backward (default: ``create_graph``); ``create_graph``
    records the backward pass itself so the gradients can be differentiated again;
    ``inputs`` limits which tensors receive gradients.
    """
    outputs = _as_tuple(tensors)
    grad_outputs = _as_tuple(grad_tensors)
    _bring_views_up_to_date(outputs, _as_tuple(inputs))
    if create_graph:
        # leaf.grad gets a grad_fn whose graph reaches back to the leaf: a cycle only the collector frees.
        warnings.warn(_CREATE_GRAPH_CYCLE_WARNING, UserWarning, stacklevel=3)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _make_root_grads(outputs, grad_outputs, create_graph)
    requested = _as_tuple(inputs)
    if requested is not None and len(requested) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    steps = run_backward(outputs, roots, retain_graph, create_graph, inputs=requested, accumulate=True)
    results = _drain(steps)
    if requested is not None:
        # Non-leaf tensors named in ``inputs`` receive their gradient in ``.grad`` too.
        for tensor, grad in zip(requested, results):
            if tensor.grad_fn is not None and grad is not None:
                tensor._grad = grad if tensor._grad is None else tensor._grad + grad


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False, materialize_grads: bool = False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned rather than stored in ``.grad``.

        >>> import minitorch
        >>> x = minitorch.tensor(3.0, requires_grad=True)
        >>> (dy,) = minitorch.autograd.grad(x ** 2, x, create_graph=True)   # 2x
        >>> minitorch.autograd.grad(dy, x)                                   # 2
        (tensor(2.),)
    """
    outputs_tuple = _as_tuple(outputs)
    inputs_tuple = _as_tuple(inputs)
    _bring_views_up_to_date(outputs_tuple, inputs_tuple)
    if not inputs_tuple:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    for tensor in inputs_tuple:
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    roots = _make_root_grads(outputs_tuple, _as_tuple(grad_outputs), create_graph)
    steps = run_backward(outputs_tuple, roots, retain_graph, create_graph, inputs=inputs_tuple, accumulate=False)
    results = _drain(steps)
    final = []
    for index, (tensor, result) in enumerate(zip(inputs_tuple, results)):
        if result is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                from .._creation import zeros_like  # ops sit above autograd: imported when first needed

                result = zeros_like(tensor)
        final.append(result)
    return tuple(final)


def _bring_views_up_to_date(*groups) -> None:
    """A view whose base was written in place since its history was recorded is read again first
    (``ops/copy_slices.py``); ops do it for their inputs, this does it for backward's own arguments."""
    for group in groups:
        for tensor in group or ():
            if getattr(tensor, "_base", None) is not None:
                _function_module._refresh_if_stale(tensor)


def _drain(steps):
    """Run a backward generator to the end and return what it returns.

    NumPy warns about inf and NaN (``0 * inf``) where PyTorch stays silent; gradients at a
    function's singular points meet them naturally, so the whole walk runs with NumPy's
    floating-point warnings off (one switch per backward, not one per op).
    """
    with _numpy.errstate(all="ignore"):
        while True:
            try:
                next(steps)
            except StopIteration as finished:
                return finished.value

