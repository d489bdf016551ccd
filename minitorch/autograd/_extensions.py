"""What PyTorch adds around the plain core of autograd, called from it at named points.

The core (the nodes and ``Function.apply`` in ``function.py``, the loop of ``engine.py``) holds
the idea: record a node per op, walk the nodes backwards, add gradients into leaves. Every
line here is something PyTorch does besides, and each is reached from the core through one
guarded call with a comment naming it, so a reader of the core sees where it happens and
skips it:

* recording (``Function.apply``): ``collect_inputs`` (a view brought up to date, 0-d CPU tensors
  joining an op on another device) and ``after_forward`` (outputs marked non-differentiable,
  several outputs, the forward traceback that anomaly mode keeps);
* saved tensors: PyTorch's errors for a second backward and for a tensor changed in place; a node's
  saved tensors by name (``grad_fn._saved_self``, ``_raw_saved_self.register_hooks``), and the hooks of
  ``graph.saved_tensors_hooks`` (``pack_saved`` as an op saves, ``unpack_checked`` as backward reads);
* the engine: ``backward`` (``backward()`` with its other arguments), ``Capture``
  (``autograd.grad``'s capture and ``inputs=``), ``call_node`` (one named point per node: ``before_node``
  with the tensor hooks and the capture, ``before_backward`` with node pre-hooks and zeros for outputs that
  received no gradient, then ``after_backward`` with anomaly mode's NaN check and node hooks),
  ``fit_gradient_count`` (the checks of what a backward returned), ``queue_callback``.

A node on which a hook is registered (or a leaf's accumulator whose tensor has one) carries
``_extras = True``; the engine asks that flag, with the walk's and the gradients' own, before it calls in here.

The recording of the ONNX exporter (``onnx/_trace.py``) wraps ``Function.apply`` itself while
it traces, so it needs no point here.
"""

from __future__ import annotations

import re
import threading
import traceback
import warnings
import weakref

import numpy as _numpy

from .._device import CPU as _CPU
from .._dtype import from_numpy_dtype, is_floating
from .._tensor_base import TensorBase as Tensor  # isinstance and _make: the graph knows no Tensor methods
from . import _lent_ops  # the ops it calls while it runs, lent by the ops (see there)
from .grad_mode import _AnomalyState, _GradState


class RemovableHandle:
    """Returned by ``register_hook``: ``handle.remove()`` takes the hook off again."""

    def __init__(self, hooks, hook, key=None):
        self.hooks, self.hook, self.key = hooks, hook, key

    def remove(self) -> None:
        try:
            if self.key is None:
                self.hooks.remove(self.hook)
            else:
                del self.hooks[self.key]
        except (ValueError, KeyError):
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


# -- recording: Function.apply -------------------------------------------------------------------
def refresh_if_stale(view) -> None:
    """A view whose base was written in place after the view's history was recorded reads its
    history again from the base's current one (``ops/copy_slices.py``), if recording.
    A view made without recording keeps none (PyTorch's rule)."""
    if _GradState.enabled and not view._view_made_without_grad:
        _lent_ops.refresh_view(view)


def collect_inputs(args, want_arrays: bool):
    """``_collect_inputs`` when a view's base was written in place since the view was recorded (its history
    is read again) or the tensors are on several devices: 0-d CPU tensors join the others' device
    (``_join_devices``), anything else raises PyTorch's device mismatch error."""
    devices = {arg._device for arg in args if isinstance(arg, Tensor)}
    device, args = (devices.pop(), args) if len(devices) == 1 else _join_devices(args)
    for arg in args:
        if isinstance(arg, Tensor) and arg._base is not None and arg._base_history is not arg._base.grad_fn:
            refresh_if_stale(arg)
    needs_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
    inputs = [a._data if isinstance(a, Tensor) else a for a in args] if want_arrays else args
    return device, args, inputs, needs_grad


def common_device(tensors):
    """The one device that ``tensors`` share, or PyTorch's error naming the first two that differ.

    PyTorch's one exception: a 0-d CPU tensor acts like a Python number and may join an op
    on any device (``x_on_gpu * torch.tensor(2.0)``); the result stays on the other device.
    """
    device = None
    for tensor in tensors:
        if isinstance(tensor, Tensor) and not (tensor._data.ndim == 0 and tensor._device is _CPU):
            if device is None:
                device = tensor._device
            elif tensor._device is not device:
                raise_device_mismatch(device, tensor._device)
    return device if device is not None else _CPU


def _join_devices(args):
    """Move 0-d CPU tensors to the device of the other tensors (differentiably), or raise the mismatch."""
    device = common_device(args)
    moved = tuple(_lent_ops.to(a, device) if isinstance(a, Tensor) and a._device is not device else a for a in args)
    return device, moved


def raise_device_mismatch(first, second):
    raise RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{first} and {second}!"
    )


def returned_by_function(value, device, args):
    """An output of a custom ``Function``'s forward, which returns Tensors: an input returned as it is
    gets an identity of its own (same memory and version counter); ``None`` stays ``None``."""
    if value is not None and any(value is arg for arg in args):
        return Tensor._make(value._data, device, version_counter=value._version_counter)
    return value


_CONSTANT_VERSION = [0]


def saved_otherwise(value, raw_outputs, outputs):
    """``SavedTensor``'s fields for a saved value that is not a differentiable output nor an input of the
    op: a non-differentiable output, a Tensor made in a ``Function``'s forward, an array computed in an
    ``Op``'s forward (a mask, a norm), a Python number or setting, or ``None``."""
    for output_nr, raw in enumerate(raw_outputs):
        if value is raw:  # an output without grad_fn (integer, or marked non-differentiable)
            return "constant", outputs[output_nr], output_nr, outputs[output_nr]._version_counter
    if isinstance(value, Tensor):
        return "input", value, value._output_nr, value._version_counter
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        constant = Tensor._make(value, outputs[0]._device)
        return "constant", constant, 0, constant._version_counter
    return "constant", value, 0, _CONSTANT_VERSION


def after_forward(ctx, raw, outputs) -> None:
    """What ``_connect`` does besides: outputs passed to ``ctx.mark_non_differentiable`` lose the node again;
    an op with several outputs remembers their shapes and dtypes (zeros where one receives no gradient);
    anomaly mode keeps the forward call's traceback."""
    for output_nr, output in enumerate(outputs):
        if output is not None and output.grad_fn is ctx and any(raw[output_nr] is m for m in ctx._non_differentiable):
            output._requires_grad, output.grad_fn, output._output_nr = False, None, 0
    if len(outputs) > 1:
        ctx._output_meta = tuple(None if o is None else (o._data.shape, o._data.dtype) for o in outputs)
        ctx._output_count = len(outputs)
    if _AnomalyState.enabled:
        remember_forward_trace(ctx)  # detect_anomaly: where forward was called


def remember_forward_trace(ctx) -> None:
    """Anomaly mode: the stack of the forward call, shown if this node's backward produces NaN."""
    ctx._forward_trace = "".join(traceback.format_stack()[:-3])


# -- saved tensors -------------------------------------------------------------------------------
def raise_saved_tensors_freed():
    raise RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved tensors after they "
        "have already been freed). Saved intermediate values of the graph are freed when you call "
        ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
        "graph a second time or if you need to access saved tensors after calling backward."
    )


def raise_modified_in_place(node, saved):
    """PyTorch's error for a saved tensor changed in place since: its type and shape, the op that made it (a leaf
    has none), its versions, and a hint that depends on anomaly mode."""
    value = saved.value
    data = value._data if isinstance(value, Tensor) else value
    grad_fn = node if saved.kind == "output" else getattr(value, "grad_fn", None)
    made_by = f", which is output {saved.output_nr} of {_op_name(grad_fn)}," if grad_fn is not None else ""
    if saved.kind != "output" and getattr(value, "_base", None) is not None and \
            value._base_history is not value._base.grad_fn:
        made_by = f", which is output {saved.output_nr} of AsStrided,"  # a view whose base was written since
    hint = (
        "the backtrace further above shows the operation that failed to compute its gradient. The variable in "
        "question was changed in there or anywhere later. Good luck!" if _AnomalyState.enabled else
        "enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{_type_string(data, node)}{list(data.shape)}]{made_by} is at version {saved.version_counter[0]}; "
        f"expected version {saved.version} instead. Hint: {hint}"
    )


def _op_name(grad_fn) -> str:
    """The op a node belongs to, as PyTorch's message names it: ``ExpBackward0`` -> ``Exp``."""
    name = grad_fn.name()
    return re.sub(r"Backward\d*$", "", name)


def _type_string(data, node) -> str:
    device_part = "cuda." if getattr(node, "_device", None) is not None and node._device.type == "cuda" else ""
    return f"torch.{device_part}{from_numpy_dtype(data.dtype).type_name}Tensor "


# -- backward()'s other arguments ------------------------------------------------------------------
_CREATE_GRAPH_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak."
)


def backward_arguments(tensors, grad_tensors, retain_graph, create_graph, inputs):
    """``(roots, grad_roots, retain_graph, inputs)`` for the engine, from ``backward()``'s arguments as
    PyTorch takes them: one tensor or several, given gradients or none, ``inputs=``."""
    outputs = as_tuple(tensors)
    requested = as_tuple(inputs)
    bring_views_up_to_date(outputs, requested)
    if create_graph:
        # leaf.grad gets a grad_fn whose graph reaches back to the leaf: a cycle only the collector frees.
        warnings.warn(_CREATE_GRAPH_CYCLE_WARNING, UserWarning, stacklevel=5)
    roots = make_root_grads(outputs, as_tuple(grad_tensors), create_graph)
    if requested is not None and len(requested) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    return outputs, roots, create_graph if retain_graph is None else retain_graph, requested


def backward(run_backward, tensors, grad_tensors, retain_graph, create_graph, inputs) -> None:
    """``backward()`` for all but a scalar loss alone: several outputs, given gradients, ``inputs=``,
    ``create_graph``, a view as the output, or an error to report in PyTorch's words."""
    roots, grad_roots, retain, inputs = backward_arguments(tensors, grad_tensors, retain_graph, create_graph, inputs)
    results = drain(run_backward(roots, grad_roots, retain, create_graph, inputs))
    if inputs is not None:
        keep_grads_of_inputs(inputs, results)  # backward(inputs=...): non-leaf inputs get their .grad too


def drain(steps):
    """Run a backward generator to the end and return what it returns (without NumPy's warnings about inf and
    NaN, where PyTorch stays silent)."""
    with _numpy.errstate(all="ignore"):
        while True:
            try:
                next(steps)
            except StopIteration as finished:
                return finished.value


def keep_grads_of_inputs(requested, results) -> None:
    """``backward(inputs=...)``: non-leaf tensors named in ``inputs`` receive their gradient in ``.grad`` too."""
    for tensor, grad in zip(requested, results):
        if tensor.grad_fn is not None and grad is not None:
            tensor._grad = grad if tensor._grad is None else tensor._grad + grad


def as_tuple(value):
    if value is None:
        return None
    if isinstance(value, Tensor):
        return (value,)
    return tuple(value)


def make_root_grads(outputs, grad_outputs, create_graph: bool):
    """The gradients that start the walk: given ones, or 1 for a scalar output."""
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
            grad = _lent_ops.tensor(grad, dtype=output.dtype, device=output.device)
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


def bring_views_up_to_date(*groups) -> None:
    """A view whose base was written in place since its history was recorded is read again first
    (``ops/copy_slices.py``); ops do it for their inputs, this does it for backward's own arguments."""
    for group in groups:
        for tensor in group or ():
            if getattr(tensor, "_base", None) is not None and tensor._base_history is not tensor._base.grad_fn:
                refresh_if_stale(tensor)


# -- autograd.grad and inputs=: capture the requested gradients, skip what leads nowhere ----------------
class Capture:
    """The walk of ``autograd.grad`` (and ``backward(inputs=...)``): which nodes lead to the requested
    inputs (``needed``), the dependencies counted over those nodes only (``dependencies``, the engine's
    dict, rewritten in place), and the gradients that arrive at each requested input (``results``, in the
    order of ``inputs``)."""

    def __init__(self, inputs, root_nodes, dependencies):
        self.points = {}  # (node, output_nr) where a requested input's gradient arrives -> its positions
        for position, tensor in enumerate(inputs):
            key = (tensor.grad_fn, tensor._output_nr) if tensor.grad_fn is not None else (tensor._grad_accumulator(), 0)
            self.points.setdefault(key, []).append(position)
        self.results = [None] * len(inputs)
        order = _discovery_order(root_nodes)
        self.needed = _leading_to({node for node, _ in self.points}, order)
        dependencies.clear()  # only edges between needed nodes count
        for node in order:
            if node in self.needed:
                for next_node, _ in node.next_functions:
                    if next_node is not None and next_node in self.needed:
                        dependencies[next_node] = dependencies.get(next_node, 0) + 1

    def wants(self, node, grad_outputs) -> bool:
        """Keep the gradients of requested inputs; whether ``node`` leads on to one and must run."""
        for output_nr, grad in enumerate(grad_outputs):
            for position in self.points.get((node, output_nr), ()):
                self.results[position] = grad
        return node in self.needed


def _discovery_order(root_nodes) -> list:
    order, stack, visited = [], list(root_nodes), set()
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        order.append(node)
        stack.extend(n for n, _ in node.next_functions if n is not None and n not in visited)
    return order


def _leading_to(targets, order) -> set:
    """The nodes that are targets or lead to one; settled by repeated passes in reverse discovery
    order (children were discovered after their parents)."""
    needed, changed = set(), True
    while changed:
        changed = False
        for node in reversed(order):
            if node not in needed and (node in targets or any(n is not None and n in needed
                                                               for n, _ in node.next_functions)):
                needed.add(node)
                changed = True
    return needed


# -- the engine's named point: a node with PyTorch's extras --------------------------------------------------
def call_node(node, grad_outputs, capture, accumulate: bool, plain_call):
    """The engine's step for a node with hooks, in a walk of ``autograd.grad`` or anomaly mode, or one that
    received no gradient or several: ``plain_call`` (the engine's ``_call_node``) with what PyTorch does around
    it. ``None``: skip the node (``autograd.grad`` took its gradient, or it leads to no requested input)."""
    if before_node(node, grad_outputs, capture) is None:  # tensor hooks, autograd.grad's capture
        return None
    if node._is_accumulator:  # autograd.grad only returns gradients: no .grad changes
        if accumulate and grad_outputs[0] is not None:
            plain_call(node, grad_outputs)
            if node.variable._post_accumulate_hooks:
                run_post_accumulate_hooks(node.variable)  # register_post_accumulate_grad_hook, once .grad is updated
        return ()
    grad_outputs = before_backward(node, grad_outputs)  # node pre-hooks, missing gradients
    if grad_outputs is None:
        return (None,) * len(node.next_functions)  # nothing flowed here: pass nothing on
    return tuple(after_backward(node, list(plain_call(node, grad_outputs)), grad_outputs))  # anomaly, node hooks


def before_node(node, grad_outputs, capture):
    """What happens to the gradients a node received before it runs: the tensor's hooks, then
    ``autograd.grad``'s capture (``None``: skip the node), then a leaf accumulator's pre-hooks."""
    if node._tensor_pre_hooks is not None or (node._is_accumulator and node.variable._backward_hooks):
        run_tensor_hooks(node, grad_outputs)  # tensor.register_hook: may replace a gradient
    if capture is not None and not capture.wants(node, grad_outputs):
        return None
    if node._pre_hooks and node._is_accumulator:
        run_pre_hooks(node, grad_outputs)  # an AccumulateGrad's register_prehook (other nodes: before_backward)
    return grad_outputs


def before_backward(node, grad_outputs):
    """Before a node's backward: ``None`` if no gradient flowed to it (it passes nothing on), else the
    gradients after its pre-hooks, with zeros for outputs that received none (``materialize_grads``)."""
    if all(grad is None for grad in grad_outputs):
        return None
    if node._pre_hooks:
        grad_outputs = run_pre_hooks(node, grad_outputs)  # grad_fn.register_prehook
    if len(grad_outputs) > 1 and node.materialize_grads and any(grad is None for grad in grad_outputs):
        grad_outputs = zeros_for_missing(node, grad_outputs)
    return grad_outputs


def after_backward(node, grad_inputs, grad_outputs):
    """After a node's backward: anomaly mode's NaN check, then the node's hooks (which may replace the gradients)."""
    if _AnomalyState.enabled:
        check_for_nan(node, grad_inputs)  # detect_anomaly
    if node._post_hooks:
        grad_inputs = run_post_hooks(node, grad_inputs, grad_outputs)  # grad_fn.register_hook
    return grad_inputs


# -- hooks -------------------------------------------------------------------------------------------
def run_tensor_hooks(node, grad_outputs) -> None:
    """Hooks from ``tensor.register_hook`` run on the tensor's gradient before it is used (in place in
    ``grad_outputs``). A non-leaf tensor's hooks live on the node that made it (keyed by output number);
    a leaf's live on the leaf itself, which its ``AccumulateGrad`` node holds."""
    leaf = node.variable if node._is_accumulator else None
    for output_nr, grad in enumerate(grad_outputs):
        if grad is None:
            continue
        if leaf is not None:
            hooks = leaf._backward_hooks
        else:
            hooks = node._tensor_pre_hooks.get(output_nr) if node._tensor_pre_hooks else None
        for hook in list(hooks.values()) if hooks else ():
            replaced = hook(grad)
            if replaced is not None:
                grad = replaced
        grad_outputs[output_nr] = grad


def run_pre_hooks(node, grad_outputs):
    """``grad_fn.register_prehook``: each hook sees the gradients a node received and may replace them."""
    for hook in node._pre_hooks:
        replaced = hook(tuple(grad_outputs))
        if replaced is not None:
            grad_outputs[:] = list(replaced)
    return grad_outputs


def run_post_hooks(node, grad_inputs, grad_outputs):
    """``grad_fn.register_hook``: each hook sees what a node's backward returned and may replace it."""
    for hook in node._post_hooks:
        replaced = hook(tuple(grad_inputs), tuple(grad_outputs))
        if replaced is not None:
            grad_inputs = list(replaced)
    return grad_inputs


def run_post_accumulate_hooks(leaf) -> None:
    """``tensor.register_post_accumulate_grad_hook``: called with the leaf once its ``.grad`` is updated."""
    for hook in leaf._post_accumulate_hooks:
        hook(leaf)


# -- queue_callback ------------------------------------------------------------------------------------
class _Walks(threading.local):
    """The callback lists of the backward walks running on this thread (a backward started inside a
    hook is nested and gets its own list)."""

    def __init__(self):
        self.callbacks = []


walks = _Walks()


def queue_callback(callback) -> None:
    """Call ``callback()`` once the backward pass now running has walked its whole graph.

    PyTorch's ``Variable._execution_engine.queue_callback``: a hook that fires in the middle of
    backward (a gradient hook) uses it to finish something at the end, after every gradient has
    been accumulated: ``DistributedDataParallel`` waits there for the all-reduces it launched.
    """
    if not walks.callbacks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    walks.callbacks[-1].append(callback)


def run_callbacks(callbacks) -> None:
    for callback in callbacks:
        callback()


# -- what a node's backward received and returned ------------------------------------------------------
def zeros_for_missing(node, grad_outputs):
    """Zeros for the outputs that received no gradient, so ``backward`` sees a tensor for each
    (unless it called ``ctx.set_materialize_grads(False)``)."""
    meta = node._output_meta
    filled = list(grad_outputs)
    for output_nr, grad in enumerate(filled):
        if grad is None and meta is not None and meta[output_nr] is not None:
            shape, numpy_dtype = meta[output_nr]
            filled[output_nr] = _lent_ops.zeros(shape, dtype=from_numpy_dtype(numpy_dtype), device=node._device)
    return filled


def fit_gradient_count(node, results):
    """A custom backward may return extra trailing Nones (PyTorch drops them); any other count is PyTorch's error."""
    expected = len(node._needs_input_grad)
    if len(results) > expected and all(result is None for result in results[expected:]):
        results = tuple(results[:expected])
        if node._tensor_positions is not None:
            return [results[position] for position in node._tensor_positions]
        if len(results) == len(node._input_meta):
            return results
    raise_wrong_count(node, results)


def raise_wrong_count(node, results) -> None:
    expected = len(node._needs_input_grad)
    raise RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients (expected {expected}, got {len(results)})"
    )


def check_for_nan(node, grad_inputs) -> None:
    """Anomaly mode: the first NaN in a gradient raises, naming the node and warning with its forward traceback."""
    for index, grad in enumerate(grad_inputs):
        if grad is not None and is_floating(grad._data.dtype) and bool(grad._xp.isnan(grad._data).any()):
            trace = getattr(node, "_forward_trace", None)
            if trace:
                warnings.warn(
                    f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{trace}",
                    RuntimeWarning,
                    stacklevel=2,
                )
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {index}th output.")


# -- saved tensors by name, and saved_tensors_hooks --------------------------------------------------
# PyTorch names what a node saved after the op's arguments (``grad_fn._saved_self``, ``_saved_other``) or
# its result (``_saved_result``). A Function may list its arguments' names (``argument_names``); else the
# first two are PyTorch's usual ``self`` and ``other``.
_DEFAULT_ARGUMENT_NAMES = ("self", "other")
_WRAPPED_NUMBERS = (int, float, bool, complex)

# The (pack, unpack) pairs of the ``graph.saved_tensors_hooks`` contexts now open, innermost last; and, while
# ``graph.disable_saved_tensors_hooks`` is open, the message with which opening one fails.
saved_hooks: list = []
saved_hooks_disabled: list = []


class PackedSaved:
    """A saved tensor given to a pack hook: what the hook returned (``value``), the unpack hook, and what the
    tensor was (``requires_grad``, its node or its leaf's accumulator), to rebuild it with its history on use.

    Its ``version`` (``None``) never matches, so ``BackwardNode._unpack`` calls ``unpack_checked``: as in
    PyTorch, a tensor with hooks is not checked for in-place changes (the hooks own what was saved).
    """

    __slots__ = ("kind", "value", "output_nr", "version_counter", "version", "unpack_hook", "requires_grad",
                 "edge")

    def __init__(self, saved, packed, unpack_hook, edge, requires_grad):
        self.kind, self.value, self.output_nr, self.version_counter = saved.kind, packed, saved.output_nr, [0]
        self.version, self.unpack_hook, self.edge, self.requires_grad = None, unpack_hook, edge, requires_grad


class _NotNeeded:
    """A saved value dropped because no gradient needs it (read back as ``None``)."""

    __slots__ = ()
    kind, value, output_nr, version_counter, version = "constant", None, 0, _CONSTANT_VERSION, 0


_NOT_NEEDED = _NotNeeded()


def unpack_checked(node, saved):
    """A saved tensor whose version did not match: one packed by hooks is unpacked, else PyTorch's in-place error."""
    if type(saved) is not PackedSaved:
        raise_modified_in_place(node, saved)
    value = saved.unpack_hook(saved.value)
    if not isinstance(value, Tensor):
        raise TypeError(
            f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type(value).__name__}"
        )
    # What unpack returned, with the saved tensor's history (the node for an output, else the input's own).
    grad_fn, output_nr = (node, saved.output_nr) if saved.kind == "output" else saved.edge
    if grad_fn is not None and grad_fn._is_accumulator:
        tensor = Tensor._make(value._data, value._device, requires_grad=True)
        tensor._accumulator_ref = weakref.ref(grad_fn)  # a leaf: gradients still reach the original's accumulator
        return tensor
    return Tensor._make(value._data, value._device, requires_grad=saved.requires_grad, grad_fn=grad_fn,
                        output_nr=output_nr)


def _edge_of(saved):
    """Where the gradient of a saved input goes: ``(its node, output_nr)``, its leaf's accumulator, or ``(None, 0)``."""
    if type(saved) is PackedSaved:
        return saved.edge
    tensor = saved.value
    if tensor.grad_fn is not None:
        return tensor.grad_fn, tensor._output_nr
    accumulator = tensor._accumulator_ref() if tensor._accumulator_ref is not None else None
    return (accumulator, 0) if tensor._requires_grad else (None, 0)


def _pack(node, saved, pack_hook, unpack_hook, tensor, detach=False):
    """``saved`` (whose value is ``tensor``) through ``pack_hook``: given the tensor itself, or a detached alias."""
    edge = (node, saved.output_nr) if saved.kind == "output" else _edge_of(saved)
    given = Tensor._make(tensor._data, tensor._device, version_counter=tensor._version_counter) if detach else tensor
    return PackedSaved(saved, pack_hook(given), unpack_hook, edge, saved.kind == "output" or tensor._requires_grad)


def pack_saved(node, saved):
    """``saved_tensors_hooks``: each tensor the op saved (an input or output) goes through the innermost pack hook
    as it is saved; the unpack hook gives it back when backward reads it."""
    pack_hook, unpack_hook = saved_hooks[-1]
    # An op may say which input's gradient needs each saved value (``saved_for_input``): as PyTorch keeps only
    # those, the others are dropped rather than packed.
    needed_by = getattr(node._forward_class, "saved_for_input", None)
    if needed_by is not None:
        saved = [s if node._needs_input_grad[i] else _NOT_NEEDED for s, i in zip(saved, needed_by)]
    hooks, saved_hooks[:] = saved_hooks[:], []  # what the pack hook itself computes is saved unpacked (no recursion)
    try:
        return [_pack(node, s, pack_hook, unpack_hook, node._unpack(s)) if s.kind != "constant" else s for s in saved]
    finally:
        saved_hooks[:] = hooks


def saved_names(node) -> list:
    """The name of each value ``node`` saved (``None`` where it is no argument nor output): an input is named
    after its argument, found as the first unused argument whose gradient goes where the saved tensor's does."""
    argument_names = getattr(node._forward_class, "argument_names", _DEFAULT_ARGUMENT_NAMES)
    positions = node._tensor_positions or range(len(node.next_functions))
    used, names = set(), []
    for saved in node._saved:
        name = None
        if saved.kind == "output":
            name = "result" if node._output_count == 1 else f"result{saved.output_nr}"
        elif saved.kind == "input" or type(saved.value) in _WRAPPED_NUMBERS:
            edge = _edge_of(saved) if saved.kind == "input" else (None, 0)  # a number the op wraps has no history
            for index, (target, output_nr) in enumerate(node.next_functions):
                if index not in used and target is edge[0] and output_nr == edge[1]:
                    used.add(index)
                    position = positions[index]
                    name = argument_names[position] if position < len(argument_names) else None
                    break
        names.append(name)
    return names


def saved_by_name(node, name):
    """``grad_fn._saved_<name>`` (the saved tensor, unpacked) and ``grad_fn._raw_saved_<name>`` (a handle on which
    ``register_hooks`` sets pack and unpack hooks); ``_saved_<setting>`` for a number forward kept (the exponent)."""
    raw = name.startswith("_raw_saved_")
    key = name[len("_raw_saved_"):] if raw else name[len("_saved_"):]
    if raw or name.startswith("_saved_"):
        if node._released:
            if raw:
                return RawSavedTensor(node, None)
            raise_saved_tensors_freed()
        names = saved_names(node) if node._saved else []
        if key in names:
            index = names.index(key)
            if raw:
                return RawSavedTensor(node, index)
            value = node._unpack(node._saved[index])
            return _lent_ops.tensor(value) if type(value) in _WRAPPED_NUMBERS else value  # PyTorch's wrapped number
        if not raw and not key.startswith("_") and key in vars(node):
            return vars(node)[key]
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")


class RawSavedTensor:
    """``grad_fn._raw_saved_self``: one saved tensor of a node (PyTorch's ``torch._C._autograd.SavedTensor``)."""

    def __init__(self, node, index):
        self._node, self._index = node, index

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        """Pack the saved tensor now (a detached copy of it goes to ``pack_hook``); ``unpack_hook`` gives it back."""
        node = self._node
        if node._released:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need "
                "to backward through the graph a second time or if you need to access saved variables after calling "
                "backward."
            )
        saved = node._saved[self._index]
        if type(saved) is PackedSaved:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. "
                               "Hint: only one pair of hooks is allowed at a time.")
        tensor = node._unpack(saved)
        if tensor is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        node._saved[self._index] = _pack(node, saved, pack_hook, unpack_hook, tensor, detach=True)
