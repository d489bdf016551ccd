"""Recording one forward pass: which ops ran, on which tensors, with which settings.

The exporter records with ``minitorch.compile``'s recorder (``minitorch/_dynamo/capture.py``),
as PyTorch's dynamo-based exporter reads TorchDynamo's graph: one capture for two uses. Every
differentiable op of minitorch runs through ``Function.apply`` (``autograd/function.py``), where
the graph for backward is recorded; while a ``Tracer`` is active, that entry point (and the
others of ``minitorch/_dynamo/recording.py``) runs the real op and the recorder adds a node to
an FX graph: the op class, its arguments (tensors and settings such as a convolution's
geometry, exactly what ``forward`` receives), its outputs, and here also the line of user code
that called it. Nothing is computed twice and no op is re-implemented: the recorded outputs are
the real ones. ``Tracer.finish`` reads the graph into the ``Call``s and ``Value``s that the
mappings take (``tracer.graph_module`` is the graph itself).

The other entry points, which make no autograd node, mean for an export:

* the comparisons, logical and bitwise functions of ``ops/pointwise.py`` (``x > 0`` in
  ``leaky_relu``; masks and ``~``, ``&``, ``|``), which return bool tensors and never reach
  ``Function.apply``;
* ``nn.functional.interpolate`` (``nn.Upsample``), recorded as one call: ONNX's ``Resize``;
* ``ops/inplace._store``, which writes an in-place result (``relu_``, ``x += y``) into the
  target's memory: from then on the target tensor *is* that result;
  ``ops/inplace._alike_without_graph`` answers False meanwhile, so that ``x += y`` under ``no_grad``
  (an export runs under it) takes that path too instead of the update on the arrays;
* ``Tensor.__bool__``, ``item``, ``__float__``, ``__int__`` and ``__index__``: a tensor computed
  from an input that becomes a Python value (``if x.sum() > 0:``) fixes this run's branch into
  the graph, so the tracer warns with PyTorch's ``TracerWarning`` text (or refuses, ``strict``).

Only the outermost call is recorded: an op whose forward calls other ops (a ``Function``
written with tensor ops) is one node. ``autograd_inlining`` records the inside of a
``Function`` that has no ONNX mapping instead.

A tensor that no recorded call produced is a *constant* of the graph (a parameter, a buffer,
or something built with ``minitorch.tensor``/``zeros``/... inside ``forward``). The exporter
traces three times (on other input values and, with ``dynamic_axes``, other sizes) to tell
true constants from values that came from the input through an op it could not see; a tensor
made outside every recorded op remembers which minitorch function made it (``TensorBase._make``
is swapped too), so a refusal names it: ``'argmax' at model.py:12``.
"""

from __future__ import annotations

import operator
import os
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._dynamo.capture import OpCall, _Recorder
from .._tensor import Tensor
from ..fx import GraphModule, Node
from ..nn import functional as _functional
from ..nn.functional import vision as _vision
from ..ops import pointwise as _pointwise

# Non-differentiable functions that the trace records by name (they make no ``Function`` call).
RECORDED_FUNCTIONS = ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not",
                      "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor")
# Functions of ``nn.functional`` recorded as one call (their inside is NumPy index arithmetic and
# interpolation matrices of one size; ONNX has one operator for the whole of each).
RECORDED_NN_FUNCTIONS = ("interpolate",)

# What PyTorch's tracer says when a traced tensor becomes a Python value (torch/csrc/jit/frontend/tracer.cpp).
_CONVERSION_WARNING = (
    "Converting a tensor to a Python {kind} might cause the trace to be incorrect. We can't record the data flow of "
    "Python values, so this value will be treated as a constant in the future. This means that the trace might not "
    "generalize to other inputs!"
)

# The Tensor methods that turn a tensor into a Python value, and the word PyTorch's warning uses for each.
_CONVERSIONS = {"__bool__": "boolean", "item": "number", "__float__": "number", "__int__": "number",
                "__index__": "index"}

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# Frames inside these folders are the machinery, not the place a learner called an op from.
_MACHINERY = tuple(os.path.join(_PACKAGE_DIR, part) for part in ("ops" + os.sep, "autograd" + os.sep, "onnx" + os.sep,
                                                                  "_dynamo" + os.sep, "_tensor.py"))


@dataclass
class Value:
    """One tensor of the recorded graph.

    ``kind`` is ``"input"`` (a graph input), ``"op"`` (an output of a recorded call),
    ``"param"`` (a parameter or buffer of the model, named as in its ``state_dict``) or
    ``"constant"`` (any other tensor an op read). ``array`` holds the values of
    parameters and constants.
    """

    kind: str
    shape: tuple
    dtype: np.dtype
    name: str = ""
    array: np.ndarray | None = None
    producer: tuple | None = None  # (call index, output index) for kind "op"
    position: int | None = None  # the input's position for kind "input"
    other_shape: tuple | None = None  # the shape in the second trace
    other: Value | None = None  # the same value in the second trace
    third_shape: tuple | None = None  # the shape in the third trace (it checks the sizes' rules)
    third: Value | None = None  # the same value in the third trace
    from_input: bool = False  # computed from a graph input (else its recorded array may be folded in)
    made_by: str = ""  # for a constant: the minitorch function that made it outside the recorded ops, and where


@dataclass
class Call:
    """One recorded op: ``op`` (an ``Op``/``Function`` class, or a function name), its arguments
    with every tensor replaced by its ``Value``, and its outputs (``Value``s, or None)."""

    op: object
    args: tuple
    outputs: tuple
    where: str
    index: int = 0
    kwargs: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.op if isinstance(self.op, str) else self.op.__name__


def values_in(arguments):
    """The ``Value``s among recorded arguments (also inside a list argument, such as ``cat``'s tensors)."""
    for argument in arguments:
        if isinstance(argument, Value):
            yield argument
        elif isinstance(argument, (tuple, list)):
            yield from (item for item in argument if isinstance(item, Value))


class TraceError(RuntimeError):
    """The forward pass did something the recording cannot follow (named, with where it happened)."""


class TracerWarning(Warning):
    """A tensor computed from the input became a Python value while recording (``torch.jit.TracerWarning``).

    ``if x.sum() > 0:``, ``bool(t)``, ``t.item()``, ``int(t)``: the trace keeps the branch or the
    number of this one run, so the exported graph may not generalize to other inputs.
    ``export(..., strict=True)`` refuses instead of warning.
    """


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the innermost frame outside minitorch (where the learner converted the tensor)."""
    frames = traceback.extract_stack()[:-1]
    for level, frame in enumerate(reversed(frames), start=1):
        if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR):
            return level  # level 1 is the function that calls warnings.warn
    return 1


def call_site() -> str:
    """Where the op was called: the innermost line of the learner's code, and the minitorch function in between.

    For ``nn.LSTM`` inside a model this reads ``model.py:12 in forward: ... (via
    minitorch/nn/functional/recurrent.py:106 in _run_direction: ...)``.
    """
    frames = traceback.extract_stack()[:-1]
    user = next((f for f in reversed(frames) if not os.path.abspath(f.filename).startswith(_PACKAGE_DIR)), None)
    library = next((f for f in reversed(frames) if not os.path.abspath(f.filename).startswith(_MACHINERY)), None)
    text = _frame_text(user) if user is not None else "<unknown>"
    if library is not None and library is not user:
        text += f" (via {_frame_text(library)})"
    return text


def _maker() -> str:
    """The minitorch function the learner's code called that made a tensor (``'argmax' at model.py:12 ...``)."""
    frames = traceback.extract_stack()[:-3]  # without _maker, the listener and the entry point
    library = []  # the minitorch frames below the innermost line of the learner's code, outermost first
    for frame in reversed(frames):
        if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR):
            # the function named on the learner's line (``x.argmax(dim=1)``), else the outermost public one
            named = next((f.name for f in reversed(library) if not f.name.startswith("_") and f.name in
                          (frame.line or "")), None) or next(
                (f.name for f in reversed(library) if not f.name.startswith("_") and f.name not in _DECORATOR_NAMES),
                None)
            return f"'{named}' at {_frame_text(frame)}" if named else _frame_text(frame)
        library.append(frame)
    return "<unknown>"


_DECORATOR_NAMES = ("wrapper", "wrapped", "inner", "decorated", "decorate_context", "with_numpy_names")


def _frame_text(frame) -> str:
    return f"{frame.filename}:{frame.lineno} in {frame.name}" + (f": {frame.line}" if frame.line else "")


class Tracer(_Recorder):
    """Records one forward pass for the export (use as a context manager around ``model(*inputs)``).

    It is ``minitorch.compile``'s recorder (``minitorch/_dynamo/capture.py``): the same entry
    points, the same FX graph of ops (``graph_module`` after ``finish``). What differs is what
    a few events mean for an export: a branch on a tensor's value warns as PyTorch's tracer
    does (or is refused, ``strict``) instead of splitting the graph; an in-place write makes the
    target stand for the result; a tensor changed in place after it was read is refused; a
    custom ``Function`` with no ONNX mapping has its inside recorded (``autograd_inlining``).
    ``finish`` then reads the graph into the ``Call``s and ``Value``s the mappings take.
    """

    def __init__(self, parameters: dict, autograd_inlining: bool, mapped, conversions: str = "warn"):
        super().__init__({key: (name, None) for key, name in parameters.items()})
        self.parameters = parameters  # id(tensor) -> state_dict name
        # a traced tensor turned into a Python value: "warn" (PyTorch), "raise" (strict) or "ignore" (second trace)
        self.conversions = conversions
        self.autograd_inlining = autograd_inlining
        self.mapped = mapped  # predicate: does the op class have an ONNX mapping?
        self.counters: dict[int, list] = {}  # id(tensor) -> the version counter it had when remembered
        # id(tensor) -> (tensor, "'argmax' at model.py:12 ...") for tensors made outside any recorded op
        self.made_by: dict[int, tuple] = {}
        self.calls: list[Call] = []
        self.inputs: list[Value] = []
        self.constants: list[Value] = []

    # -- the graph --------------------------------------------------------------------------------
    def add_input(self, tensor: Tensor, name: str = ""):
        node = super().add_input(tensor, name or f"input_{len(self.graph.find_nodes(op='placeholder'))}")
        node.meta["from_input"] = True
        return node

    def _remember(self, tensor: Tensor, node) -> None:
        super()._remember(tensor, node)
        self.counters[id(tensor)] = tensor._version_counter

    def check_unchanged(self, tensor: Tensor, known: tuple, op_name: str) -> None:
        # Only a write counts: split pieces and views may be given their base's counter after they are made.
        if tensor._version_counter is self.counters[id(tensor)] and tensor._version_counter[0] != known[2]:
            raise TraceError(
                f"A tensor read by '{op_name}' at {call_site()} was changed in place in a way the ONNX export "
                "cannot follow (for example a write through a view or slice, x[...] = y). Write the model "
                "without that in-place write."
            )

    def new_attribute(self, tensor: Tensor, op_name: str):
        if not isinstance(tensor._data, np.ndarray):
            raise TraceError(f"ONNX export records on the CPU only: move the model and inputs with .cpu() ({op_name})")
        name = self.parameters.get(id(tensor))
        target = name if name is not None else f"_tensor_constant{len(self.attributes)}"
        self.attributes[target] = tensor
        node = self.graph.get_attr(target)
        made = self.made_by.get(id(tensor))
        node.meta.update(val=(tensor._data.shape, tensor._data.dtype), array=tensor._data.copy(), from_input=False,
                         kind="param" if name is not None else "constant",
                         made_by=made[1] if made is not None and made[0] is tensor and name is None else "")
        self._remember(tensor, node)
        return node

    def argument(self, value, op_name: str):
        if isinstance(value, np.ndarray):  # an array argument is a setting of the op, as it is
            return value
        return super().argument(value, op_name)

    def break_graph(self, reason: str) -> None:
        raise TraceError(f"{reason} (at {call_site()})")

    def record(self, target, args: tuple, kwargs: dict, outputs):
        node = super().record(target, args, kwargs, outputs)
        from_input = any(argument.meta.get("from_input", False) for argument in node.all_input_nodes)
        node.meta.update(where=call_site(), from_input=from_input)
        for output in (outputs if isinstance(outputs, tuple) else (outputs,)):
            if isinstance(output, Tensor):
                output_node = self.values[id(output)][1]
                output_node.meta.update(from_input=from_input, array=None if from_input else output._data.copy())
        return node

    def finish(self, outputs: list) -> list[Value]:
        """The graph's output, then the graph read into ``calls``, ``inputs`` and ``constants``; the outputs'
        ``Value``s. ``graph_module`` is the captured graph itself."""
        output_nodes = [self.node_of(tensor, "output") for tensor in outputs]
        self.graph.output(tuple(output_nodes))
        self.graph_module = GraphModule(dict(self.attributes), self.graph, "ExportedGraph")
        values: dict = {}

        def value(item):
            if isinstance(item, Node):
                return values[item]
            if isinstance(item, (tuple, list)) and any(isinstance(part, Node) for part in item):
                return type(item)(value(part) for part in item)
            return item

        for node in self.graph.nodes:
            meta = node.meta
            if node.op == "placeholder":
                values[node] = Value("input", tuple(meta["val"][0]), meta["val"][1], position=len(self.inputs),
                                     from_input=True)
                self.inputs.append(values[node])
            elif node.op == "get_attr":
                values[node] = Value(meta["kind"], tuple(meta["val"][0]), meta["val"][1], array=meta["array"],
                                     name=node.target if meta["kind"] == "param" else "", made_by=meta["made_by"])
                if meta["kind"] == "constant":
                    self.constants.append(values[node])
            elif node.op == "call_function" and node.target is not operator.getitem:
                index = len(self.calls)
                parts = {item.args[1]: item for item in node.users if item.target is operator.getitem}
                results = [node] if not parts else [parts.get(number) for number in range(len(meta["val"]))]
                outputs_of_call = []
                for number, result in enumerate(results):
                    if result is None:
                        outputs_of_call.append(None)
                        continue
                    values[result] = Value("op", tuple(result.meta["val"][0]), result.meta["val"][1],
                                           producer=(index, number), from_input=meta["from_input"],
                                           array=result.meta.get("array"))
                    outputs_of_call.append(values[result])
                op = node.target.op if isinstance(node.target, OpCall) else meta["name"]
                self.calls.append(Call(op, value(node.args), tuple(outputs_of_call), meta["where"], index,
                                       {key: value(item) for key, item in node.kwargs.items()}))
        return [values[node] for node in output_nodes]

    # -- what the entry points report (``minitorch/_dynamo/recording.py``, shared with minitorch.compile) -------
    def _functions(self) -> list:
        self.differentiable_functions = set()
        return [(_pointwise, name) for name in RECORDED_FUNCTIONS] + [
            (module, name) for module in (_functional, _vision) for name in RECORDED_NN_FUNCTIONS]

    def _swap_extras(self, entry) -> None:
        """Nothing more: printing or setting attributes in ``forward`` does not change what is exported."""

    def __exit__(self, *exc_info):
        self.entry_points.__exit__(*exc_info)
        return False

    def inline(self, op) -> bool:
        # a Function built from tensor ops with no ONNX mapping: record the ops inside it
        return self.autograd_inlining and not op._forward_takes_arrays and not self.mapped(op)

    def inlined(self, op, args: tuple, outputs) -> None:
        self._alias_returned_inputs(args, outputs)

    def called(self, function, name: str, args: tuple, kwargs: dict, output) -> None:
        self.record(function, args, kwargs, output).meta["name"] = name

    def stored(self, target: Tensor, stored: Tensor) -> None:
        """``target`` now holds ``stored``'s values (an in-place write): it stands for ``stored``'s node."""
        known = self.values.get(id(stored))
        if known is not None:
            self._remember(target, known[1])

    def made(self, tensor: Tensor, caller) -> None:
        self.made_by[id(tensor)] = (tensor, _maker())  # for the error messages: which function made it

    def converted(self, tensor: Tensor, method: str, args: tuple, kwargs: dict, outcome) -> None:
        """``Tensor.__bool__`` (or ``item``...) warning as PyTorch's tracer does when the tensor came from an input."""
        if self.conversions == "ignore":
            return
        known = self.values.get(id(tensor))
        if known is None or not known[1].meta.get("from_input", False):
            return
        kind = _CONVERSIONS[method]
        message = _CONVERSION_WARNING.format(kind=kind)
        if self.conversions == "raise":
            raise TraceError(
                f"A tensor computed from the input became a Python {kind} at {call_site()}, and "
                f"export(..., strict=True) refuses that. {message} Compute with tensor ops instead "
                "(minitorch.where in place of an if)."
            )
        warnings.warn(message, TracerWarning, stacklevel=_user_stacklevel())

    def _alias_returned_inputs(self, args, outputs) -> None:
        """A Function that returns its input gets a new Tensor on the same array: the same node."""
        for output in outputs if isinstance(outputs, tuple) else (outputs,):
            if isinstance(output, Tensor) and id(output) not in self.values:
                for argument in args:
                    if isinstance(argument, Tensor) and argument._data is output._data and id(argument) in self.values:
                        self._remember(output, self.values[id(argument)][1])
