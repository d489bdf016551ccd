"""The backward engine: walk the graph from the output back to the leaves.

``backward()`` is ``for step in run_backward(...): pass``. The engine is a *generator*
that yields one ``BackwardStep`` each time it has run a node, so a tool (the graph
stepper widget) can pause between steps and show what happened, using the very same
engine that ``backward()`` uses.

The walk:

1. Count, for every node reachable from the roots, how many edges lead into it
   (its *dependencies*): a node may run only once all gradients for it have arrived.
2. Keep the nodes whose gradients are complete in a priority queue. Like PyTorch, run
   the most recently created one first (highest sequence number).
3. Run a node: ``grad_inputs = node.apply(*grad_outputs)``, one gradient per input of
   its op; a gradient whose shape or dtype differs from its input's is brought back to
   them (``_validate_gradient``: undoing broadcasting happens there and nowhere else).
4. Pass each gradient on: add it into the buffer of the node it flows to, which is ready
   once its last edge has delivered.
5. At a leaf, the ``AccumulateGrad`` node is run like any other: its ``apply`` adds the
   gradient into ``leaf.grad`` and passes nothing on (a leaf has no inputs).
6. Unless ``retain_graph`` is set, free each node's saved tensors once it has run.

What PyTorch adds around this loop (``backward()``'s other arguments, ``autograd.grad``'s capture
and ``inputs=``, tensor and node hooks, ``queue_callback``, anomaly mode, the checks of what a
backward returned, zeros for outputs that received no gradient) is in ``_extensions.py``; the loop
hands a node that has any of it to ``_extensions.call_node``, which runs ``_call_node`` with those
extras around it: one named point per node, checked by one condition. ``backward()`` itself walks from a scalar
loss; with several outputs, given gradients, ``inputs=`` or ``create_graph`` it hands its arguments
to ``_extensions.backward``. With ``inputs``, only what leads to them runs, and ``run_backward``
returns their gradients (``StopIteration.value``).
"""

from __future__ import annotations

import functools
import heapq
import itertools
from typing import NamedTuple

import numpy as _numpy

from .._dtype import from_numpy_dtype
from .._shapes import is_expandable
from .._tensor_base import TensorBase as Tensor  # isinstance and _make: the engine knows no Tensor methods
from . import _extensions
from ._extensions import queue_callback  # noqa: F401  (DistributedDataParallel imports it from here)
from .function import leaf_accumulator
from .grad_mode import _AnomalyState, _GradState


class BackwardStep(NamedTuple):
    """What one step of backward did.

    ``node`` ran; ``grad_outputs`` are the gradients it received (one per output of
    the forward op: how the loss changes with that output); ``grad_inputs`` are the
    gradients it sent on (one per input of the forward op). For an ``AccumulateGrad``
    node, ``grad_inputs`` is empty and ``leaf`` is the tensor whose ``.grad`` it updated.
    """

    node: object
    grad_outputs: tuple
    grad_inputs: tuple
    leaf: object = None


_step = functools.partial(tuple.__new__, BackwardStep)  # Speed only: BackwardStep(...) without its Python __new__


@_numpy.errstate(all="ignore")  # NumPy warns about inf and NaN (0 * inf) where PyTorch stays silent
def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
    """Add the gradient of ``tensors``, a scalar loss, into the ``.grad`` of each leaf of its graph."""
    if not (isinstance(tensors, Tensor) and grad_tensors is None and inputs is None and not create_graph
            and tensors._requires_grad and tensors._data.size == 1 and tensors._base is None):  # not a plain loss:
        return _extensions.backward(run_backward, tensors, grad_tensors, retain_graph, create_graph, inputs)
    grad_loss = Tensor._make(tensors._data.copy(), tensors._device)
    grad_loss._data.fill(1)  # the walk starts from d loss / d loss = 1
    for _ in run_backward((tensors,), (grad_loss,), bool(retain_graph), False):
        pass


def run_backward(roots, grad_roots, keep_graph: bool, create_graph: bool, inputs=None, accumulate: bool = True):
    """Walk back from ``roots`` (output tensors, starting from ``grad_roots``), yielding a ``BackwardStep`` per node."""
    buffers = {}  # node -> the gradients it has received so far, one slot per output of its op
    for root, grad in zip(roots, grad_roots):
        _add_to_buffer(buffers, root.grad_fn or leaf_accumulator(root), root._output_nr, grad)
    dependencies = _count_dependencies(buffers)
    capture = None if inputs is None else _extensions.Capture(inputs, buffers, dependencies)  # autograd.grad, inputs=
    arrivals = itertools.count()  # ready nodes: latest-created first (PyTorch's order), ties in order of arrival
    ready = sorted((-node._sequence_number, next(arrivals), node) for node in buffers if node not in dependencies)
    previous_mode, _GradState.enabled = _GradState.enabled, create_graph  # record backward only if asked
    _extensions.walks.callbacks.append([])  # where queue_callback puts what runs after this walk
    try:
        while ready:
            node = heapq.heappop(ready)[2]
            grad_outputs = buffers.pop(node)
            if node._extras or capture or grad_outputs[0] is None or len(grad_outputs) > 1 or _AnomalyState.enabled:
                grad_inputs = _extensions.call_node(node, grad_outputs, capture, accumulate, _call_node)  # hooks...
                if grad_inputs is None:
                    continue  # autograd.grad took its gradient, or the node leads to no requested input
            else:
                grad_inputs = _call_node(node, grad_outputs)
            if not keep_graph:  # free what forward saved (a BackwardNode's; an AccumulateGrad saved nothing)
                node._saved, node._released = None, True
            for (next_node, output_nr), grad in zip(node.next_functions, grad_inputs):  # pass each gradient on
                remaining = dependencies.get(next_node)  # (None, and nodes pruned by ``inputs``, have none)
                if remaining is not None:
                    _add_to_buffer(buffers, next_node, output_nr, grad)
                    dependencies[next_node] = remaining - 1
                    if remaining == 1:
                        heapq.heappush(ready, (-next_node._sequence_number, next(arrivals), next_node))
            yield _step((node, tuple(grad_outputs), grad_inputs, node.variable if node._is_accumulator else None))
    finally:
        _GradState.enabled = previous_mode
        queued = _extensions.walks.callbacks.pop()
    if queued:
        _extensions.run_callbacks(queued)  # queue_callback: only a walk that reached its end runs them
    return capture.results if capture is not None else []


def _count_dependencies(root_nodes) -> dict:
    """How many edges lead into each node reachable from ``root_nodes``."""
    dependencies, stack = {}, list(root_nodes)
    while stack:
        for next_node, _ in stack.pop().next_functions:
            if next_node is not None:
                count = dependencies[next_node] = dependencies.get(next_node, 0) + 1
                if count == 1 and next_node not in root_nodes:  # reached the first time: walk on from it, once
                    stack.append(next_node)
    return dependencies


def _add_to_buffer(buffers, node, output_nr, grad) -> None:
    """Add ``grad`` into the slot of output ``output_nr`` of ``node`` (gradients from several uses add up)."""
    slots = buffers.get(node) or buffers.setdefault(node, [None] * node._output_count)
    if grad is not None:
        slots[output_nr] = grad if slots[output_nr] is None else slots[output_nr] + grad


def _call_node(node, grad_outputs) -> tuple:
    """``node``'s backward: one gradient per entry of ``next_functions``, in its input's shape and dtype."""
    grad_inputs = node.apply(*grad_outputs)
    if type(grad_inputs) is not tuple:
        grad_inputs = (grad_inputs,)
    if node._tensor_positions is not None and len(grad_inputs) == len(node._needs_input_grad):
        grad_inputs = [grad_inputs[p] for p in node._tensor_positions]  # one per argument: keep the inputs'
    elif len(grad_inputs) != len(node._input_meta):
        grad_inputs = _extensions.fit_gradient_count(node, grad_inputs)  # extra trailing Nones dropped, else an error
    checked = []
    for index, (grad, meta) in enumerate(zip(grad_inputs, node._input_meta)):
        if grad is None or meta is None:
            grad = None  # an input that needs no gradient gets none
        elif not isinstance(grad, Tensor) or grad._data.shape != meta[0] or grad._data.dtype is not meta[1]:
            grad = _validate_gradient(node, index, grad, meta)
        checked.append(grad)
    return tuple(checked)


def _validate_gradient(node, index, grad, meta):
    """Bring a gradient back to its input's shape (undo broadcasting: sum over the broadcast axes) and dtype."""
    if not isinstance(grad, Tensor):
        raise TypeError(f"function {node.name()} returned a gradient of type {type(grad).__name__} at index {index}; "
                        "expected a Tensor or None")
    shape, numpy_dtype = meta
    if grad._data.shape != shape:
        if not is_expandable(shape, grad._data.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got {list(grad._data.shape)} "
                f"but expected shape compatible with {list(shape)}"
            )
        grad = grad.sum_to_size(shape)
    if grad._data.dtype != numpy_dtype:
        grad = grad.to(from_numpy_dtype(numpy_dtype))
    return grad
