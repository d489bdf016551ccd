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
3. Run a node: ``grad_inputs = node.backward(grad_outputs)``. Reduce each gradient to
   its input's shape (undoing broadcasting: the one place this happens) and dtype,
   then add it into the buffer of the node it flows to.
4. At a leaf, the ``AccumulateGrad`` node adds the gradient into ``leaf.grad``.
5. Unless ``retain_graph`` is set, free each node's saved tensors once it has run.
6. When every node has run, call the functions queued with ``queue_callback`` during
   the walk (``DistributedDataParallel`` waits there for its gradient all-reduces).
"""

from __future__ import annotations

import heapq
import itertools
import threading
import warnings
from typing import NamedTuple

from .._dtype import from_numpy_dtype
from .._shapes import is_expandable
from .._tensor_base import TensorBase as Tensor  # isinstance only: the engine knows no Tensor methods
from .function import AccumulateGrad
from .grad_mode import _AnomalyState, _GradState

# The callbacks queued by ``queue_callback``: one list per backward pass now running on this thread
# (a backward started inside a hook is nested and gets its own list).
_final_callbacks = threading.local()


def queue_callback(callback) -> None:
    """Call ``callback()`` once the backward pass now running has walked its whole graph.

    PyTorch's ``Variable._execution_engine.queue_callback``: a hook that fires in the middle of
    backward (a gradient hook) uses it to finish something at the end, after every gradient has
    been accumulated: ``DistributedDataParallel`` waits there for the all-reduces it launched.
    """
    stack = getattr(_final_callbacks, "stack", None)
    if not stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    stack[-1].append(callback)


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


def run_backward(roots, grad_roots, keep_graph: bool, create_graph: bool, inputs=None, accumulate: bool = True):
    """Yield a ``BackwardStep`` per node run; the caller drains it.

    ``roots`` are output tensors and ``grad_roots`` the gradients that start the walk.
    With ``inputs`` given, only the part of the graph that leads to them runs, and
    (when ``accumulate`` is False, as in ``autograd.grad``) their gradients are captured
    and returned by the generator (``StopIteration.value``) instead of added to ``.grad``.

    The main loop is the module docstring's walk: take the next ready node and its
    gradients; at a leaf add them into ``.grad``; otherwise run the node's backward and
    pass each gradient on to the node of that input, which is ready once all have arrived.
    """
    captured = _capture_points(inputs)  # (node, output_nr) of each requested input -> its positions
    results = [None] * (len(inputs) if inputs is not None else 0)
    buffers = {}  # node -> list of gradients received so far, one slot per output of that node
    root_nodes = []
    for root, grad in zip(roots, grad_roots):
        node = root.grad_fn if root.grad_fn is not None else root._grad_accumulator()
        _add_to_buffer(buffers, node, root._output_nr, grad)
        root_nodes.append(node)
    dependencies, needed = _count_dependencies(root_nodes, captured if inputs is not None else None)
    ready = _ReadyNodes(root_nodes, dependencies)

    previous_mode, _GradState.enabled = _GradState.enabled, create_graph  # record backward only if asked
    callbacks = _open_callbacks()
    try:
        while ready.heap:
            node = ready.pop()
            grad_outputs = _take_gradients(buffers, node)
            if captured:
                _capture(captured, results, node, grad_outputs)
            if needed is not None and node not in needed:
                continue

            if type(node) is AccumulateGrad:  # a leaf: add the gradient into its .grad
                _accumulate(node, grad_outputs, accumulate, create_graph)
                yield BackwardStep(node, tuple(grad_outputs), (), node.variable)
                continue

            grad_inputs = _run_node(node, grad_outputs, keep_graph)
            _pass_on(node, grad_inputs, buffers, dependencies, needed, ready)
            yield BackwardStep(node, tuple(grad_outputs), grad_inputs)
    finally:
        _GradState.enabled = previous_mode
        _final_callbacks.stack.pop()
    # Only a walk that reached its end runs them (a stepper that stops half-way does not).
    for callback in callbacks:
        callback()
    return results


# -- the walk's steps -------------------------------------------------------------------------------
class _ReadyNodes:
    """The nodes whose gradients are complete: a heap, latest-created node first (PyTorch's order),
    ties (leaf accumulators share one number) in the order they became ready."""

    __slots__ = ("heap", "_arrivals")

    def __init__(self, root_nodes, dependencies):
        self.heap = []
        self._arrivals = itertools.count()
        seen = set()
        for node in root_nodes:
            if id(node) not in seen and dependencies.get(node, 0) == 0:
                seen.add(id(node))
                self.push(node)

    def push(self, node) -> None:
        heapq.heappush(self.heap, (-node._sequence_number, next(self._arrivals), node))

    def pop(self):
        return heapq.heappop(self.heap)[2]


def _open_callbacks() -> list:
    """A fresh list for ``queue_callback`` during this walk (nested walks each get their own)."""
    callbacks = []
    if not hasattr(_final_callbacks, "stack"):
        _final_callbacks.stack = []
    _final_callbacks.stack.append(callbacks)
    return callbacks


def _capture_points(inputs) -> dict:
    """For ``autograd.grad``: where each requested input's gradient will arrive, ``(node, output_nr)``."""
    captured = {}
    for position, tensor in enumerate(inputs or ()):
        key = (tensor.grad_fn, tensor._output_nr) if tensor.grad_fn is not None else (tensor._grad_accumulator(), 0)
        captured.setdefault(key, []).append(position)
    return captured


def _take_gradients(buffers, node) -> list:
    """The gradients ``node`` received, one per output, after the tensors' own hooks (``register_hook``)."""
    grad_outputs = buffers.pop(node)
    if node._tensor_pre_hooks is not None or (type(node) is AccumulateGrad and node.variable._backward_hooks):
        for output_nr, grad in enumerate(grad_outputs):
            if grad is not None:
                grad_outputs[output_nr] = _run_tensor_hooks(node, output_nr, grad, type(node) is AccumulateGrad)
    return grad_outputs


def _capture(captured, results, node, grad_outputs) -> None:
    """Keep the gradients of the requested inputs (``autograd.grad`` returns them)."""
    for output_nr, grad in enumerate(grad_outputs):
        for position in captured.get((node, output_nr), ()):
            results[position] = grad


def _accumulate(node, grad_outputs, accumulate: bool, create_graph: bool) -> None:
    """A leaf's step: its node's pre-hooks, then ``leaf.grad += grad`` (unless ``autograd.grad`` only captures)."""
    for hook in node._pre_hooks:  # grad_fn.register_prehook on an AccumulateGrad node
        replaced = hook(tuple(grad_outputs))
        if replaced is not None:
            grad_outputs[:] = list(replaced)
    if accumulate and grad_outputs[0] is not None:
        node.accumulate(grad_outputs[0], create_graph)


def _run_node(node, grad_outputs, keep_graph: bool) -> tuple:
    """One node's backward (``_call_node``); then, unless the graph is kept, free what it saved."""
    if grad_outputs[0] is None and all(grad is None for grad in grad_outputs):
        grad_inputs = (None,) * len(node.next_functions)  # nothing flowed here: pass nothing on
    else:
        grad_inputs = _call_node(node, grad_outputs)
    if not keep_graph:
        node._release_saved()
    return grad_inputs


def _pass_on(node, grad_inputs, buffers, dependencies, needed, ready) -> None:
    """Add each gradient into the buffer of the node it flows to; a node whose last edge this was is ready."""
    for (next_node, output_nr), grad in zip(node.next_functions, grad_inputs):
        if next_node is None or (needed is not None and next_node not in needed):
            continue
        if grad is not None:
            _add_to_buffer(buffers, next_node, output_nr, grad)
        remaining = dependencies[next_node] - 1
        dependencies[next_node] = remaining
        if remaining == 0:
            if next_node not in buffers:
                _add_to_buffer(buffers, next_node, 0, None)
            ready.push(next_node)


def _count_dependencies(root_nodes, captured):
    """How many edges lead into each node; with ``captured``, also the nodes that lead to an input."""
    dependencies = {}
    order = []
    stack = list(root_nodes)
    visited = set()
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        order.append(node)
        for next_node, _ in node.next_functions:
            if next_node is not None:
                dependencies[next_node] = dependencies.get(next_node, 0) + 1
                if next_node not in visited:
                    stack.append(next_node)
    if captured is None:
        return dependencies, None
    targets = {node for node, _ in captured}
    needed = set()
    # A node is needed if it is a target or leads to a needed node; settle by repeated passes
    # in reverse discovery order (children were discovered after their parents).
    changed = True
    while changed:
        changed = False
        for node in reversed(order):
            if node in needed:
                continue
            if node in targets or any(n is not None and n in needed for n, _ in node.next_functions):
                needed.add(node)
                changed = True
    # Only edges between needed nodes count as dependencies.
    dependencies = {}
    for node in order:
        if node in needed:
            for next_node, _ in node.next_functions:
                if next_node is not None and next_node in needed:
                    dependencies[next_node] = dependencies.get(next_node, 0) + 1
    return dependencies, needed


def _add_to_buffer(buffers, node, output_nr, grad):
    slots = buffers.get(node)
    if slots is None:
        slots = [None] * (len(node._output_meta) if node._output_meta is not None else 1)
        buffers[node] = slots
    if grad is not None:
        slots[output_nr] = grad if slots[output_nr] is None else slots[output_nr] + grad


def _run_tensor_hooks(node, output_nr, grad, is_leaf_node):
    """Hooks from ``tensor.register_hook`` run on the tensor's gradient before it is used.

    A non-leaf tensor's hooks live on the node that made it (keyed by output number); a
    leaf's live on the leaf itself, which its ``AccumulateGrad`` node holds.
    """
    if is_leaf_node:
        hooks = node.variable._backward_hooks
    else:
        all_hooks = node._tensor_pre_hooks
        hooks = all_hooks.get(output_nr) if all_hooks else None
    if hooks:
        for hook in list(hooks.values()):
            replaced = hook(grad)
            if replaced is not None:
                grad = replaced
    return grad


def _call_node(node, grad_outputs):
    """Run one node's backward and check what it returned: count, shape, dtype, NaN."""
    for hook in node._pre_hooks:
        replaced = hook(tuple(grad_outputs))
        if replaced is not None:
            grad_outputs[:] = list(replaced)
    if len(grad_outputs) > 1 and node.materialize_grads and any(g is None for g in grad_outputs):
        grad_outputs = _zeros_for_missing(node, grad_outputs)

    results = node.apply(*grad_outputs)
    if not isinstance(results, tuple):
        results = (results,)
    positions = node._tensor_positions
    expected = len(node._needs_input_grad)
    if len(results) != expected:
        if positions is None or len(results) != len(positions):
            raise RuntimeError(
                f"function {node.name()} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(results)})"
            )
    elif positions is not None:
        results = tuple(results[p] for p in positions)

    grad_inputs = []
    for index, (grad, meta) in enumerate(zip(results, node._input_meta)):
        if grad is None or meta is None:
            grad_inputs.append(None)
        elif not isinstance(grad, Tensor):
            raise TypeError(
                f"function {node.name()} returned a gradient of type {type(grad).__name__} at index {index}; "
                "expected a Tensor or None"
            )
        elif grad._data.shape != meta[0] or grad._data.dtype != meta[1]:
            grad_inputs.append(_validate_gradient(node, index, grad, meta))
        else:
            grad_inputs.append(grad)

    if _AnomalyState.enabled:
        _check_for_nan(node, grad_inputs)
    for hook in node._post_hooks:
        replaced = hook(tuple(grad_inputs), tuple(grad_outputs))
        if replaced is not None:
            grad_inputs = list(replaced)
    return tuple(grad_inputs)


def _validate_gradient(node, index, grad, meta):
    """Reduce a gradient to its input's shape (undo broadcasting) and cast it to its dtype."""
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


def _zeros_for_missing(node, grad_outputs):
    from .._creation import zeros  # ops sit above autograd: imported when first needed

    meta = node._output_meta
    filled = list(grad_outputs)
    for output_nr, grad in enumerate(filled):
        if grad is None and meta is not None and meta[output_nr] is not None:
            shape, numpy_dtype = meta[output_nr]
            filled[output_nr] = zeros(shape, dtype=from_numpy_dtype(numpy_dtype), device=node._device)
    return filled


def _check_for_nan(node, grad_inputs):
    for index, grad in enumerate(grad_inputs):
        if grad is not None and grad._data.dtype.kind == "f" and bool(grad._xp.isnan(grad._data).any()):
            trace = getattr(node, "_forward_trace", None)
            if trace:
                warnings.warn(
                    f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{trace}",
                    RuntimeWarning,
                    stacklevel=2,
                )
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")
