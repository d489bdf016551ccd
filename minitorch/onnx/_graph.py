"""Building the ONNX graph from a recorded forward pass, one recorded call at a time.

``GraphBuilder`` owns the ONNX pieces (nodes, initializers, names) and offers the mapping
modules a small vocabulary: ``input(call, i)`` (the ONNX name of an argument, adding the
initializer of a parameter or constant on first use), ``node(op_type, inputs, **attributes)``,
``constant(array)`` and ``shape_of(value)``.

Sizes and dynamic axes. Every value was seen three times (``_export.py``): with the example
inputs, and with inputs whose dynamic axes had two other sizes. A dimension that kept its size
is a number; one that changed is ``factor * symbol`` or ``symbol + offset`` for one of the named
dynamic axes (``batch``), found from the first two sizes and checked against the third.
``shape_of`` turns such a shape into a 1-D int64 tensor for ``Reshape``/``Expand``: numbers
are constants, a dynamic size is read from the graph input that carries the axis (``Shape ->
Gather``), times its factor, plus its offset.
A Python int that the model read from ``x.shape`` (a slice bound ``pos[:, :T]``) changes between
the recordings in the same way, and becomes the same small computation (``size_rule``).

Why recordings at other sizes rather than symbolic sizes: ``x.shape`` is a tuple of plain ints
that the whole library (and NumPy under it) computes with; making it symbolic would touch every
op. Recording again costs two more forward passes and changes nothing outside ``onnx/``.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ._trace import Call, TraceError, Value


def onnx_dtype(dtype) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class GraphBuilder:
    def __init__(self, opset: int, fold_constants: bool, export_params: bool, symbols: dict,
                 third_sizes: dict | None = None):
        self.opset = opset
        self.fold_constants = fold_constants
        self.export_params = export_params
        self.symbols = symbols  # name -> (graph input name, axis, size in trace 1, size in trace 2)
        self.third_sizes = third_sizes or {}  # name -> size in trace 3, where every rule is checked
        self.nodes: list = []
        self.initializers: list = []
        self.names: dict[int, str] = {}  # id(Value) -> ONNX name
        self.used_names: set = set()
        self._symbol_dims: dict = {}
        self._counter = 0
        self.call: Call | None = None

    # -- names -----------------------------------------------------------------------------
    def fresh(self, stem: str) -> str:
        self._counter += 1
        name = f"/{stem}_{self._counter}"
        self.used_names.add(name)
        return name

    def bind(self, value: Value, name: str) -> None:
        self.names[id(value)] = name

    def name_of(self, value: Value) -> str:
        """The ONNX name of a recorded value; parameters and constants become initializers on first use."""
        name = self.names.get(id(value))
        if name is not None:
            return name
        if value.kind == "op" and value.array is not None and self.fold_constants:
            name = self.constant(value.array, stem="folded")
        elif value.kind == "op":
            raise TraceError(f"internal error: a value of shape {value.shape} is read before it is computed")
        elif value.kind == "param":
            name = value.name
            self.initializers.append(numpy_helper.from_array(np.array(value.array, order="C"), name))
        else:  # a constant made inside forward
            name = self._constant_value(value)
        self.names[id(value)] = name
        return name

    def _constant_value(self, value: Value) -> str:
        """A tensor made inside ``forward`` outside the recorded ops: the same in every recording (a constant),
        a filled tensor of a size that follows the input (``zeros(B, 4)``: ``Expand``), or positions
        ``arange(T)`` (``Range``); anything else that changed with the input is refused."""
        seen = [value] + [v for v in (value.other, value.third) if v is not None]
        if all(v.shape == value.shape and np.array_equal(v.array, value.array, equal_nan=True) for v in seen):
            return self.constant(value.array)
        flats = [v.array.reshape(-1) for v in seen]
        first = flats[0][0] if flats[0].size else None
        if all(f.size and (f == first).all() for f in flats):  # zeros(batch, ...) made in forward
            return self.node("Expand", [self.constant(flats[0][:1].reshape(())), self.shape_of(value)])
        if _is_arange(flats) and all(v.array.ndim == 1 for v in seen):  # arange(T): the positions of a sequence
            return self._range(value, flats[0])
        if value.made_by:
            raise TraceError(
                f"A tensor read by '{self.call.name}' at {self.call.where} depends on the input, but it was made by "
                f"{value.made_by}, which the ONNX export does not record (it computes on the arrays, outside "
                "Function.apply, and has no ONNX mapping). Compute it with ops that export."
            )
        raise TraceError(
            f"A tensor read by '{self.call.name}' at {self.call.where} depends on the input, but no recorded op "
            "computed it (it was made with a non-differentiable function such as argmax, .item(), .numpy(), "
            "or a tensor built from x.shape inside forward). ONNX export cannot follow it: compute it with tensor ops."
        )

    def _range(self, value: Value, array) -> str:
        """``arange(start, start + n * step, step)`` with ``n`` following a dynamic axis: ONNX ``Range``."""
        start, step = array[0], array[1] - array[0]
        (count,) = self.dims(value)
        count = self.int64s([count]) if isinstance(count, int) else self.size_of(count)
        limit = self.node("Add", [self.node("Mul", [count, self.int64s([int(step)])]), self.int64s([int(start)])])
        limit = self.squeeze(limit, [0])
        if value.dtype != np.int64:
            limit = self.cast(limit, value.dtype)
        return self.node("Range", [self.constant(np.asarray(start, dtype=value.dtype)), limit,
                                   self.constant(np.asarray(step, dtype=value.dtype))])

    # -- nodes -----------------------------------------------------------------------------
    def input(self, call: Call, index: int) -> str | None:
        """The ONNX name of tensor argument ``index`` of ``call`` (``None`` when the argument is None)."""
        argument = call.args[index]
        if argument is None:
            return None
        if not isinstance(argument, Value):
            raise TraceError(f"'{call.name}' at {call.where}: argument {index} is not a tensor")
        return self.name_of(argument)

    def node(self, op_type: str, inputs: list, outputs: int | list = 1, domain: str = "", **attributes):
        """Add one ONNX node; returns its output name (or the list of them when ``outputs`` > 1)."""
        if isinstance(outputs, int):
            names = [self.fresh(f"{op_type}_output") for _ in range(outputs)]
        else:
            names = outputs
        attributes = {key: value for key, value in attributes.items() if value is not None}
        inputs = ["" if name is None else name for name in inputs]
        while inputs and inputs[-1] == "":
            inputs.pop()
        self.nodes.append(helper.make_node(op_type, inputs, names, name=self.fresh(op_type), domain=domain,
                                           **attributes))
        return names[0] if len(names) == 1 else names

    def constant(self, array, stem: str = "const") -> str:
        array = np.asarray(array)
        name = self.fresh(stem)
        self.initializers.append(numpy_helper.from_array(np.array(array, order="C"), name))
        return name

    def int64s(self, values) -> str:
        return self.constant(np.asarray(values, dtype=np.int64))

    def scalar_like(self, number, value: Value) -> str:
        """A 0-d constant of ``value``'s dtype (an operand for Add, Mul, Pow...)."""
        return self.constant(np.asarray(number, dtype=value.dtype))

    # -- sizes ------------------------------------------------------------------------------
    def dims(self, value: Value) -> list:
        """Each dimension as an int, or ``(symbol, factor, offset)`` when it follows a dynamic axis."""
        other = value.other_shape if value.other_shape is not None else value.shape
        third = value.third_shape if value.third_shape is not None else other
        if not len(other) == len(value.shape) == len(third):
            raise TraceError(
                f"'{self.call.name}' at {self.call.where}: a value's number of dimensions changes with the dynamic "
                "axes; this cannot be exported"
            )
        return [a if a == b == c else self.size_rule(a, b, c) for a, b, c in zip(value.shape, other, third)]

    def size_rule(self, size: int, other_size: int, third_size: int | None = None) -> tuple:
        """How a size that changed between the two recordings follows a dynamic axis: ``(symbol, factor, offset)``.

        Two rules, tried in this order: ``factor * symbol`` (a batch of ``B`` flattened with 4
        channels is ``4 * B``), then ``symbol + offset`` (a class token before ``T`` patches is
        ``T + 1``, ``x[:, :-1]`` is ``T - 1``). The second recording gives each dynamic axis its
        own step and its own ratio; a size that two rules explain is refused as ambiguous, and any
        other dependence (``2 * T + 1``, ``T // 2``) is refused rather than guessed.
        """
        matches = [(symbol, size // first, 0) for symbol, (_, _, first, second) in self.symbols.items()
                   if size % first == 0 and size * second == other_size * first]
        matches += [(symbol, 1, size - first) for symbol, (_, _, first, second) in self.symbols.items()
                    if other_size - size == second - first and (symbol, 1, 0) not in matches]
        if len(matches) == 1:
            symbol, factor, offset = matches[0]
            if third_size is None or symbol not in self.third_sizes or \
                    factor * self.third_sizes[symbol] + offset == third_size:
                return matches[0]
            raise TraceError(
                f"'{self.call.name}' at {self.call.where}: a size was {size}, {other_size} and {third_size} when "
                f"'{symbol}' was {self.symbols[symbol][2]}, {self.symbols[symbol][3]} and {self.third_sizes[symbol]}: "
                f"it does not follow {factor} * {symbol} + {offset} (T // 2 or a size that depends on parity), and "
                "the graph cannot compute it. Export without that dynamic axis or compute the size linearly"
            )
        if matches:
            rules = " or ".join(f"{factor} * {symbol} + {offset}" for symbol, factor, offset in matches)
            raise TraceError(
                f"'{self.call.name}' at {self.call.where}: a size ({size}) follows the dynamic axes as {rules}, and "
                "the two recordings cannot tell which: export with other example sizes"
            )
        raise TraceError(
            f"'{self.call.name}' at {self.call.where}: a size ({size}) changes with the dynamic axes but is neither a "
            "multiple of one of them nor one of them plus a fixed number; this cannot be exported with these "
            "dynamic_axes"
        )

    def is_static(self, value: Value) -> bool:
        return all(isinstance(dim, int) for dim in self.dims(value))

    def symbol_size(self, symbol: str) -> str:
        """A 1-element int64 tensor holding the run-time size of a dynamic axis (``Shape -> Gather``)."""
        if symbol not in self._symbol_dims:
            source, axis, _, _ = self.symbols[symbol]
            shape = self.node("Shape", [source])
            self._symbol_dims[symbol] = self.node("Gather", [shape, self.int64s([axis])], axis=0)
        return self._symbol_dims[symbol]

    def size_of(self, rule: tuple) -> str:
        """A 1-element int64 tensor: ``factor * size(symbol) + offset`` computed at run time."""
        symbol, factor, offset = rule
        size = self.symbol_size(symbol)
        if factor != 1:
            size = self.node("Mul", [size, self.int64s([factor])])
        if offset:
            size = self.node("Add", [size, self.int64s([offset])])
        return size

    def int64_vector(self, items: list) -> str:
        """A 1-D int64 tensor from ints and rules (``(symbol, factor, offset)``), the rules computed at run time."""
        if all(isinstance(item, int) for item in items):
            return self.int64s(items)
        parts, pending = [], []
        for item in items:
            if isinstance(item, int):
                pending.append(item)
                continue
            if pending:
                parts.append(self.int64s(pending))
                pending = []
            parts.append(self.size_of(item))
        if pending:
            parts.append(self.int64s(pending))
        return parts[0] if len(parts) == 1 else self.node("Concat", parts, axis=0)

    def shape_of(self, value: Value) -> str:
        """A 1-D int64 tensor with ``value``'s shape, dynamic dimensions computed at run time."""
        return self.int64_vector(self.dims(value))

    # -- helpers shared by the mappings ------------------------------------------------------
    def reduce(self, op_type: str, name: str, axes, keepdims: bool) -> str:
        """``ReduceSum``/``ReduceMean``/``ReduceMax``... over ``axes`` (an input from opset 18, an attribute before)."""
        axes = [int(axis) for axis in axes]
        if op_type == "ReduceSum" or self.opset >= 18:
            return self.node(op_type, [name, self.int64s(axes)], keepdims=int(keepdims))
        return self.node(op_type, [name], axes=axes, keepdims=int(keepdims))

    def unsqueeze(self, name: str, axes) -> str:
        return self.node("Unsqueeze", [name, self.int64s(list(axes))])

    def squeeze(self, name: str, axes) -> str:
        return self.node("Squeeze", [name, self.int64s(list(axes))])

    def cast(self, name: str, dtype) -> str:
        return self.node("Cast", [name], to=onnx_dtype(dtype))


def _is_arange(flats: list) -> bool:
    """Whether every array is ``start + step * arange(n)`` with the same integer ``start`` and ``step`` (n >= 2)."""
    if any(f.size < 2 or f.dtype.kind not in "iu" for f in flats):
        return False
    start, step = flats[0][0], flats[0][1] - flats[0][0]
    return step != 0 and all(np.array_equal(f, start + step * np.arange(f.size)) for f in flats)


def value_info(name: str, dtype, dims: list) -> onnx.ValueInfoProto:
    """A graph input or output: ``dims`` entries are ints, symbol names, or None (unknown)."""
    return helper.make_tensor_value_info(name, onnx_dtype(dtype), dims)


__all__ = ["GraphBuilder", "value_info", "onnx_dtype", "TensorProto"]
