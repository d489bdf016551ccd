"""Graph capture: run the function once on real tensors and write down every op it calls.

PyTorch's TorchDynamo reads the function's bytecode; minitorch listens where every op
passes anyway. Each differentiable op runs through ``Function.apply``
(``autograd/function.py``), so while a ``_Recorder`` is active that one entry point is
swapped for a version that runs the op and then adds a ``call_function`` node to an FX
``Graph``: the op (an ``OpCall``), the graph values of its tensor arguments, its settings.
The result is a graph at the level of minitorch's ops, as TorchDynamo plus AOTAutograd end
up with a graph of ATen ops. A few functions are recorded whole instead, as one node: those
that make their result without a ``Function`` (comparisons, ``argmax``, ``nonzero``), and
indexing with tensors, masks or lists (``x[idx]``, ``scatter``, ``index_add``), whose inside
turns index tensors into NumPy keys that a graph of ops cannot follow.

The tensors an op reads are sorted as they are first seen:

* an input of the call          -> a ``placeholder`` (named after the argument);
* a parameter or buffer         -> ``get_attr`` with its ``state_dict`` name, read again on every call;
* an op's output                -> that op's node;
* a buffer written in place (BatchNorm's running statistics) -> read as ``get_attr``, and
  written back at the end of the graph (``write_buffer``), as AOTAutograd copies back inputs
  it mutates;
* anything else (made in the function from sizes: ``minitorch.ones(n)``) -> a constant
  ``get_attr`` (``_tensor_constant0``), valid for the sizes the guards fix.

What a graph cannot hold becomes a *graph break* (``GraphBreak``: the reason and the line of
user code). A tensor turned into a Python value (``bool(t)``, ``if x.sum() > 0:``,
``t.item()``) and ``print`` split the graph there (``split.py``). The others make the call
run eagerly: random numbers drawn in the function (dropout in training mode), an in-place
write to an input or a parameter, an op reading an array computed outside the recorded ops,
and side effects a graph does not replay: ``backward()`` inside the function, a module
attribute set in ``forward``.
The call itself always runs eagerly to its end, so its result is right whatever the capture
concluded; ``eval_frame.py`` then runs later calls of that signature eagerly (or split).
"""

from __future__ import annotations

import builtins
import inspect
import operator
import os
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import autograd as _autograd
from .._random import get_rng_state
from .._tensor import Tensor
from ..autograd import engine as _engine
from ..autograd.grad_mode import _GradState, no_grad
from ..fx import Graph, GraphModule
from ..nn import Module
from ..ops import (
    indexing as _indexing,
    inplace as _inplace,
    pointwise as _pointwise,
    reduction as _reduction,
    sorting as _sorting,
)
from .recording import EntryPoints, Listener
from .split import CONVERSIONS as SPLITTABLE, graph_break

# Functions that make their (integer or bool) result without a ``Function`` call: recorded whole, by module.
RECORDED_FUNCTIONS = {
    _pointwise: ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not",
                 "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "isnan", "isinf", "isfinite", "isposinf",
                 "isneginf", "isin", "isclose", "signbit"),
    _reduction: ("argmax", "argmin", "all", "any", "count_nonzero", "bincount", "histc"),
    _sorting: ("argsort", "searchsorted", "bucketize"),
    _indexing: ("nonzero",),
}

# Differentiable functions recorded whole: their inside turns index tensors into NumPy keys, which a graph
# of ops cannot follow. The compiled program runs each as one eager call and differentiates it with
# ``autograd.grad`` (``aot_autograd.py``). ``getitem`` only when its key holds tensors, lists or masks.
RECORDED_DIFFERENTIABLE = {
    _indexing: ("getitem", "take", "index_add", "index_copy", "scatter", "scatter_add", "masked_scatter",
                "index_fill"),
}


def _basic_index(function, args) -> bool:
    """``x[key]`` with only ints, slices, None and ``...``: its ops (views) are recorded one by one."""
    if function.__name__ != "getitem" or len(args) < 2:
        return False
    parts = args[1] if type(args[1]) is tuple else (args[1],)
    return all(part is None or part is Ellipsis or type(part) in (int, slice) for part in parts)

# Tensor methods that hand a tensor's values to Python, and PyTorch's graph-break reason for each.
_ITEM_REASON = ("Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
                "  Explanation: Dynamo does not support tracing `Tensor.item()` with "
                "config.capture_scalar_outputs=False.")
_BRANCH_REASON = ("generic_jump TensorVariable()\n"
                  "  Explanation: a Python branch on a tensor's value (`if x.sum() > 0:`, `bool(t)`): the graph "
                  "cannot hold both ways, so it is split here: the ops before and after run as compiled graphs, "
                  "the branch itself in Python.")
_BACKWARD_REASON = ("Unsupported Tensor.backward() call\n  Explanation: the backward pass ran inside the function "
                    "(loss.backward(), autograd.grad): its gradients land in .grad as a side effect the graph does "
                    "not hold. Compile the forward and call backward() outside.")
_PRINT_REASON = ("Failed to trace builtin operator\n  Explanation: print() inside the function: the graph is split "
                 "there, and print runs in Python between the two graphs, on every call.")
CONVERSIONS = {"__bool__": _BRANCH_REASON, "item": _ITEM_REASON, "__float__": _ITEM_REASON, "__int__": _ITEM_REASON,
               "__index__": _ITEM_REASON, "tolist": "Unsupported Tensor.tolist() call",
               "numpy": "Unsupported Tensor.numpy() call: the values leave the graph for NumPy"}

_CREATION_FILE = os.sep + "_creation.py"  # zeros, ones, arange, tensor...: constants made from sizes and literals
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class OpCall:
    """An op as the target of a graph node: calling it runs ``op.apply`` (so the graph replays eagerly).

    ``grad_enabled`` is the grad mode the op ran under: an op called inside ``with no_grad():``
    in the function records no gradient, in the replay and in the compiled backward alike.
    """

    def __init__(self, op, grad_enabled: bool = True):
        self.op, self.grad_enabled = op, grad_enabled
        self.__name__ = self.__qualname__ = op.__name__
        self.__module__ = op.__module__

    def __call__(self, *args):
        if self.grad_enabled:
            return self.op.apply(*args)
        with no_grad():
            return self.op.apply(*args)

    def __repr__(self) -> str:
        return f"{self.op.__name__}.apply" + ("" if self.grad_enabled else " (no_grad)")


_OP_CALLS: dict[tuple, OpCall] = {}


def op_call(op, grad_enabled: bool = True) -> OpCall:
    """The one ``OpCall`` of ``op`` in each grad mode (so targets compare by identity)."""
    if (op, grad_enabled) not in _OP_CALLS:
        _OP_CALLS[op, grad_enabled] = OpCall(op, grad_enabled)
    return _OP_CALLS[op, grad_enabled]


def array_of(tensor: Tensor):
    """``tensor``'s array: an op that takes an input's array directly (cross-entropy's labels) reads it so."""
    return tensor._data


def write_buffer(buffer: Tensor, value: Tensor) -> None:
    """``buffer`` overwritten with ``value`` in place (a module's state updated by the graph), its version bumped."""
    buffer._data[...] = value._data if isinstance(value, Tensor) else value
    buffer._version_counter[0] += 1


write_buffer._is_impure = True  # a side effect: dead-code elimination keeps it


@dataclass
class GraphBreak:
    """Why the call could not be captured, and the line of user code where it happened."""

    reason: str
    user_stack: list = field(default_factory=list)
    graph_break: bool = True  # as PyTorch's GraphCompileReason

    def __str__(self) -> str:
        where = f" (at {self.user_stack[-1].filename}:{self.user_stack[-1].lineno})" if self.user_stack else ""
        return self.reason.splitlines()[0] + where


class GuardFailed(Exception):
    """Raised by a compiled program when a value it was not compiled for arrives (an index out of range,
    which eager mode checks with NumPy outside any op): that call then runs eagerly, which raises
    PyTorch's error or takes the other path (an ignored label)."""


def check_indices(indices, size: int) -> None:
    """Every index in ``[0, size)``, as the eager function checked when the graph was captured."""
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        raise GuardFailed


def check_shape(array, shape: tuple) -> None:
    """The result of an op whose size depends on values (``x[mask]``, ``nonzero``) has the size it had
    when the graph was captured; else the sizes downstream are not the graph's, and the call runs eagerly."""
    if array.shape != shape:
        raise GuardFailed


@dataclass
class Captured:
    """A captured call: the graph module (one placeholder per input tensor), the input tensors in
    placeholder order, how to rebuild the output from the graph's flat outputs, the eager result."""

    graph_module: GraphModule | None
    example_inputs: list
    output_spec: Any
    result: Any
    graph_break: GraphBreak | None = None
    split_reasons: list = field(default_factory=list)  # the branches the graph is split at (``split.py``)
    examples: dict = field(default_factory=dict)  # node name -> the tensor it held in this call


def user_stack() -> list:
    """The frames of the learner's code at this point (minitorch's own frames left out)."""
    return [frame for frame in traceback.extract_stack()[:-1]
            if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR)]


class _Recorder(Listener):
    """Builds the graph while the function runs (use as a context manager); it listens at the entry
    points of ``recording.py``, which the ONNX exporter's recorder listens at too."""

    def __init__(self, named_tensors: dict[int, tuple[str, Tensor]]):
        self.graph = Graph()
        self.named_tensors = named_tensors  # id -> (state_dict name, tensor): parameters and buffers
        self.values: dict[int, tuple[Tensor, Any, int]] = {}  # id(tensor) -> (tensor, node, its version then)
        self.attributes: dict[str, Tensor] = {}  # get_attr target -> tensor
        self.depth = 0
        self.graph_break: GraphBreak | None = None
        # id -> (tensor, made by a creation function such as zeros/arange, the function that made it): tensors
        # the function made outside every op. Those a creation function made from sizes are constants.
        self.made_inside: dict[int, tuple] = {}
        self.written_buffers: dict[int, tuple] = {}  # id -> (buffer, its get_attr node): buffers written in place
        self.split_reasons: list[GraphBreak] = []  # breaks the graph is split at (``split.py``), in order

    # -- values ---------------------------------------------------------------------------------
    def add_input(self, tensor: Tensor, name: str):
        node = self.graph.placeholder(name)
        node.meta["val"] = (tensor._data.shape, tensor._data.dtype)
        self._remember(tensor, node)
        return node

    def _remember(self, tensor: Tensor, node) -> None:
        self.values[id(tensor)] = (tensor, node, tensor._version_counter[0])

    def split_at(self, tensor: Tensor, conversion: str, outcome, reason: str) -> None:
        """A branch on ``tensor``'s value: a break marker, where ``split.py`` cuts the path into two graphs."""
        node = self.values[id(tensor)][1]
        if node.op == "get_attr" or conversion not in SPLITTABLE:
            self.break_graph(reason)  # a parameter's value, or a list or an array: not a value to branch on
            return
        try:
            hash(outcome)
        except TypeError:
            self.break_graph(reason)
            return
        marker = self.graph.call_function(graph_break, (node, conversion))
        marker.meta["outcome"] = outcome
        marker.meta["live"] = self._live_values()
        self.split_reasons.append(GraphBreak(reason, user_stack()))

    def split_at_print(self, args: tuple, kwargs: dict) -> None:
        """``print`` in the function: a break marker holding what it prints, run in Python between two graphs
        on every call (TorchDynamo breaks the graph there too). Printing a value the graph does not compute
        (a parameter, an array) makes the call run eagerly instead."""
        payload = self.argument((tuple(args), dict(kwargs)), "print")
        marker = self.graph.call_function(graph_break, (payload, "print"))
        if any(node.op not in ("placeholder", "call_function") for node in marker.all_input_nodes):
            self.graph.erase_node(marker)
            self.break_graph("print() of a value the graph does not compute: a side effect the graph does not "
                             "replay, so this signature runs eagerly and prints on every call")
            return
        marker.meta["outcome"] = None
        marker.meta["live"] = self._live_values()
        self.split_reasons.append(GraphBreak(_PRINT_REASON, user_stack()))

    def _live_values(self) -> list:
        """The recorded values the learner's code still holds at a break (its functions' local variables):
        the graph before the break returns them, whichever way the branch goes (TorchDynamo keeps a frame's
        live locals the same way), so a later path finds them without compiling that graph again."""
        live, frame = [], sys._getframe(2)
        while frame is not None and frame.f_code is not capture.__code__:
            if not os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
                for value in frame.f_locals.values():
                    for tensor in flatten(value)[0]:
                        known = self.values.get(id(tensor))
                        if known is not None and known[0] is tensor and known[1] not in live:
                            live.append(known[1])
            frame = frame.f_back
        return live

    def break_graph(self, reason: str) -> None:
        if self.graph_break is None:  # the first reason is the one that matters
            self.graph_break = GraphBreak(reason, user_stack())

    def node_of(self, tensor: Tensor, op_name: str):
        """The node a tensor argument stands for: its op's, an input's, or a new ``get_attr`` on first sight."""
        known = self.values.get(id(tensor))
        if known is not None:
            self.check_unchanged(tensor, known, op_name)
            return known[1]
        return self.new_attribute(tensor, op_name)

    def check_unchanged(self, tensor: Tensor, known: tuple, op_name: str) -> None:
        """A tensor read again must hold the value its node stands for."""
        if known[0]._version_counter[0] != known[2]:
            self.break_graph(f"'{op_name}' read a tensor that was written in place through a view or slice "
                             "after it was recorded: the graph cannot follow that write")

    def new_attribute(self, tensor: Tensor, op_name: str):
        """A tensor no recorded op made: a parameter or buffer (by its state_dict name), else a constant."""
        made = self.made_inside.get(id(tensor))
        made_here = made is not None and made[0] is tensor
        if made_here and not made[1]:
            self.break_graph(f"'{op_name}' read a tensor made outside the recorded ops by {made[2]} (for example "
                             "detach()): the graph cannot tell whether it depends on the inputs")
        named = self.named_tensors.get(id(tensor))
        target = named[0] if named is not None else f"_tensor_constant{len(self.attributes)}"
        self.attributes[target] = tensor
        node = self.graph.get_attr(target)
        node.meta["val"] = (tensor._data.shape, tensor._data.dtype)
        # made in the function from sizes, not a parameter or a global: constant folding may compute with it
        node.meta["constant"] = made_here and not tensor._requires_grad
        self._remember(tensor, node)
        return node

    def argument(self, value, op_name: str):
        """What a node stores for one argument of a recorded op."""
        if isinstance(value, Tensor):
            return self.node_of(value, op_name)
        if isinstance(value, np.ndarray) or (hasattr(value, "shape") and hasattr(value, "dtype") and
                                             hasattr(value, "__array_priority__")):  # a NumPy or CuPy array
            for tensor, node, _ in self.values.values():
                if tensor._data is value:
                    array = self.graph.call_function(array_of, (node,))
                    array.meta["val"] = (value.shape, value.dtype)
                    return array
            if value.ndim > 0:
                self.break_graph(f"'{op_name}' received a NumPy array computed outside the recorded ops")
            return value  # a 0-d array is a setting (a scale, a bound)
        if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
            return type(value)(self.argument(item, op_name) for item in value)
        return value

    def record(self, target, args: tuple, kwargs: dict, outputs):
        name = target.__name__
        node = self.graph.call_function(target, self.argument(tuple(args), name), self.argument(dict(kwargs), name))
        # ``requires_grad``: whether eager mode gave the result a gradient (False for an output marked
        # non-differentiable, or made under no_grad); the guards fix everything it depends on.
        if isinstance(outputs, Tensor):
            node.meta["val"] = (outputs._data.shape, outputs._data.dtype)
            node.meta["requires_grad"] = outputs._requires_grad
            self._remember(outputs, node)
            return node
        if not isinstance(outputs, tuple):
            self.break_graph(f"'{name}' returned a {type(outputs).__name__}, which a graph cannot hold")
            return None
        node.meta["val"] = tuple(None if out is None else (out._data.shape, out._data.dtype) for out in outputs)
        for index, output in enumerate(outputs):
            if isinstance(output, Tensor):
                item = self.graph.call_function(operator.getitem, (node, index))
                item.meta["val"] = (output._data.shape, output._data.dtype)
                item.meta["requires_grad"] = output._requires_grad
                self._remember(output, item)
        node.meta["requires_grad"] = any(isinstance(out, Tensor) and out._requires_grad for out in outputs)
        return node

    def written(self, target: Tensor, result) -> None:
        """``target`` was overwritten in place with a recorded value (``result``: its entry) or an unknown one.

        An intermediate now stands for the new value. A buffer (BatchNorm's running statistics)
        gets its new value written back when the graph ends, as AOTAutograd copies back an input
        it mutates. An input or a parameter written in place is a graph break.
        """
        known = self.values.get(id(target))
        if result is None:
            if known is not None:
                self.break_graph("an in-place write the graph cannot follow (its value was made outside the ops)")
            return
        node = known[1] if known is not None else None
        if node is not None and node.op == "get_attr" and not target._requires_grad and \
                self.named_tensors.get(id(target), (None, None))[1] is target:
            self.written_buffers.setdefault(id(target), (target, node))
        elif node is None or node.op != "call_function":
            self.break_graph("an in-place write to an input, parameter or buffer (for example BatchNorm's running "
                             "statistics in training mode)")
        self._remember(target, result[1])  # from now on the target holds the result

    def write_back(self) -> None:
        """Each buffer written in place gets its final value, after everything that read the old one."""
        for tensor, attribute in self.written_buffers.values():
            self.graph.call_function(write_buffer, (attribute, self.values[id(tensor)][1]))

    # -- what the entry points report (``recording.py``) ------------------------------------------------------
    def records(self, function, args: tuple) -> bool:
        return not _basic_index(function, args)  # x[0, 1:3]: its views are recorded op by op

    def applied(self, op, args: tuple, outputs) -> None:
        self.record(op_call(op, _GradState.enabled), args, {}, outputs)

    def called(self, function, name: str, args: tuple, kwargs: dict, output) -> None:
        differentiable = getattr(function, "__wrapped__", function) in self.differentiable_functions
        if not differentiable and any(isinstance(item, Tensor) and item._requires_grad for item in flatten(output)[0]):
            self.break_graph(f"'{function.__name__}' is recorded whole, but its result requires grad")
        node = self.record(function, args, kwargs, output)
        if differentiable and node is not None:
            node.meta["differentiable"] = True  # run as one eager call, differentiated by autograd.grad

    def stored(self, target: Tensor, stored: Tensor) -> None:
        if self.depth == 0:
            self.written(target, self.values.get(id(stored)))

    def made(self, tensor: Tensor, caller) -> None:
        self.made_inside[id(tensor)] = (tensor, caller.f_code.co_filename.endswith(_CREATION_FILE),
                                        f"'{caller.f_code.co_name}'")

    def converted(self, tensor: Tensor, method: str, args: tuple, kwargs: dict, outcome) -> None:
        if id(tensor) not in self.values:
            return
        if args or kwargs:
            self.break_graph(CONVERSIONS[method])
        else:
            self.split_at(tensor, method, outcome, CONVERSIONS[method])

    def _functions(self) -> list:
        """(module, name) of each function recorded whole, with its public faces in ``minitorch``."""
        import minitorch  # the public face imports _dynamo: its functions wrapping a recorded one are swapped too

        pairs, originals = [], set()
        self.differentiable_functions = set()
        for table, differentiable in ((RECORDED_FUNCTIONS, False), (RECORDED_DIFFERENTIABLE, True)):
            for module, names in table.items():
                for name in names:
                    pairs.append((module, name))
                    originals.add(getattr(module, name))
                    if differentiable:
                        self.differentiable_functions.add(getattr(module, name))
        for name, value in list(vars(minitorch).items()):  # minitorch.argmax: the public face of reduction.argmax
            if callable(value) and getattr(value, "__wrapped__", value) in originals:
                pairs.append((minitorch, name))
                if getattr(value, "__wrapped__", value) in self.differentiable_functions:
                    self.differentiable_functions.add(value)
        return pairs

    # -- swapping the entry points -----------------------------------------------------------------
    def __enter__(self):
        self.entry_points = EntryPoints(self, self._functions(), tuple(CONVERSIONS))
        self.entry_points.__enter__()
        self._swap_extras(self.entry_points)
        self.rng_state = get_rng_state()
        return self

    def _swap_extras(self, entry: EntryPoints) -> None:
        """What only the compiler listens for: the value an in-place op reads, and side effects a graph does
        not replay (backward, print, module attributes set in forward)."""
        recorder = self
        original_snapshot = _inplace._snapshot

        def recording_snapshot(target):
            snapshot = original_snapshot(target)  # the value an in-place op reads: the target's value
            if id(target) in recorder.values:
                recorder._remember(snapshot, recorder.values[id(target)][1])
            return snapshot

        entry.swap(_inplace, "_snapshot", recording_snapshot)
        original_run_backward = _engine.run_backward

        def recording_run_backward(*args, **kwargs):  # loss.backward() or autograd.grad inside the function
            recorder.break_graph(_BACKWARD_REASON)
            return original_run_backward(*args, **kwargs)

        entry.swap(_engine, "run_backward", recording_run_backward)
        entry.swap(_autograd, "run_backward", recording_run_backward)
        original_print = builtins.print

        def recording_print(*args, **kwargs):  # a side effect: the graph is split there, print runs between
            if recorder.depth == 0:
                recorder.split_at_print(args, kwargs)
            return original_print(*args, **kwargs)

        entry.swap(builtins, "print", recording_print)
        original_setattr = Module.__setattr__

        def recording_setattr(module, name, value):  # self.last_attention = weights inside forward
            if recorder.depth == 0:
                recorder.break_graph(f"a module attribute was set inside the function ('{name}'): a side effect "
                                     "the graph does not replay, so this signature runs eagerly")
            return original_setattr(module, name, value)

        entry.swap(Module, "__setattr__", recording_setattr)

    def __exit__(self, *exc_info):
        self.entry_points.__exit__(*exc_info)
        if not np.array_equal(np.asarray(get_rng_state()), np.asarray(self.rng_state)):
            # the clearest reason when it applies: it replaces a break its draws caused (an untracked mask)
            stack = self.graph_break.user_stack if self.graph_break is not None else []
            self.graph_break = GraphBreak("random numbers were drawn (for example dropout in training mode): a "
                                          "graph would replay the same draw on every call", stack)
        return False


def flatten(value) -> tuple[list, Any]:
    """The tensors inside ``value`` (tuples, lists, dicts) and a spec that rebuilds it from them."""
    tensors: list = []

    def spec_of(item):
        if isinstance(item, Tensor):
            tensors.append(item)
            return ("tensor", len(tensors) - 1)
        if isinstance(item, tuple) and hasattr(item, "_fields"):  # a named tuple (torch.return_types.max)
            return ("named", (type(item), tuple(spec_of(part) for part in item)))
        if isinstance(item, (tuple, list)):
            return (type(item).__name__, tuple(spec_of(part) for part in item))
        if isinstance(item, dict):
            return ("dict", tuple((key, spec_of(part)) for key, part in item.items()))
        return ("value", item)

    return tensors, spec_of(value)


def unflatten(spec, tensors: list):
    """The value ``flatten`` took apart, with ``tensors`` in the places of the tensors."""
    kind, content = spec
    if kind == "tensor":
        return tensors[content]
    if kind == "tuple":
        return tuple(unflatten(part, tensors) for part in content)
    if kind == "list":
        return [unflatten(part, tensors) for part in content]
    if kind == "dict":
        return {key: unflatten(part, tensors) for key, part in content}
    if kind == "named":
        named_type, parts = content
        return named_type(*[unflatten(part, tensors) for part in parts])
    return content


def _input_names(function, args: tuple, kwargs: dict) -> list[str]:
    """A name per input tensor, after the parameter it was passed as (``x``, ``pair_0``...)."""
    try:
        bound = inspect.signature(getattr(function, "forward", function)).bind(*args, **kwargs)
        named = list(bound.arguments.items())
    except (TypeError, ValueError):
        named = [(f"arg{index}", value) for index, value in enumerate(args)] + list(kwargs.items())
    names = []
    for name, value in named:
        tensors, _ = flatten(value)
        names += [name] if len(tensors) == 1 and isinstance(value, Tensor) else [f"{name}_{i}" for i in
                                                                               range(len(tensors))]
    return names


def capture(function, args: tuple, kwargs: dict, named_tensors: dict[int, tuple[str, Tensor]]) -> Captured:
    """Run ``function(*args, **kwargs)`` once, recording its ops; the captured graph (or why there is none)."""
    inputs, _ = flatten((args, kwargs))
    recorder = _Recorder(named_tensors)
    for tensor, name in zip(inputs, _input_names(function, args, kwargs)):
        if id(tensor) in recorder.values:  # the same tensor passed twice: one placeholder
            recorder.graph.placeholder(name)
            continue
        recorder.add_input(tensor, name)
    versions = [tensor._version_counter[0] for tensor in inputs]
    with recorder:
        result = function(*args, **kwargs)
    if any(tensor._version_counter[0] != version for tensor, version in zip(inputs, versions)):
        recorder.break_graph("an in-place write to an input of the compiled function")
    outputs, output_spec = flatten(result)
    if recorder.graph_break is None:
        output_nodes = tuple(recorder.node_of(tensor, "output") for tensor in outputs)
        recorder.write_back()
        recorder.graph.output(output_nodes)
    if recorder.graph_break is not None:
        return Captured(None, inputs, output_spec, result, recorder.graph_break)
    graph_module = GraphModule(dict(recorder.attributes), recorder.graph, "CapturedGraph")
    if not recorder.split_reasons:
        return Captured(graph_module, inputs, output_spec, result)
    examples = {node.name: tensor for tensor, node, _ in recorder.values.values()}
    return Captured(graph_module, inputs, output_spec, result, None, recorder.split_reasons, examples)
