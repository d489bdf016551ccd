"""``minitorch.onnx.export``: record a forward pass, map each op to ONNX operators, write the file.

The steps, each in its own place:

1. **Record** (``_trace.py``): run ``model(*args)`` once in evaluation mode while
   ``minitorch.compile``'s recorder captures every op, its arguments and its outputs into an
   FX graph (the same capture the compiler uses), read into calls; then twice more on
   other input values (and other sizes along ``dynamic_axes``), to tell which tensors are true
   constants and which sizes follow a dynamic axis (the second recording), and to check each
   such size against a third size (the third). A branch on a tensor's value warns
   (``TracerWarning``) or, with ``strict=True``, refuses.
2. **Map** (``pointwise.py``, ``shape.py``, ``nn.py``, ``conv.py``, ...): each recorded call
   becomes ONNX nodes; parameters and buffers become initializers named as in the
   ``state_dict``; ops whose inputs are all constants are folded into their recorded result.
3. **Write** (``onnx.helper``): the graph, its inputs and outputs (named ``input_names``,
   ``output_names``, with ``dynamic_axes`` as symbolic sizes), checked by ``onnx.checker``.
"""

from __future__ import annotations

import enum
import inspect
import os
import warnings
from collections.abc import Mapping, Sequence
from importlib.metadata import version

import numpy as np

from .._creation import tensor as make_tensor
from .._dtype import is_floating
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.dropout import _DropoutNd
from . import _registry
from ._trace import Call, TraceError, Tracer, Value, values_in
from .errors import OnnxExporterError, UnsupportedOperatorError

DEFAULT_OPSET = 20  # PyTorch 2.13's TorchScript-based exporter uses the same default
MIN_OPSET, MAX_OPSET = 13, 20
PRODUCER_NAME = "minitorch"

_IN_EXPORT = False


class TrainingMode(enum.IntEnum):
    """How ``export`` sets the model's mode while it records (PyTorch's ``torch.onnx.TrainingMode``)."""

    EVAL = 0  # record in evaluation mode (``model.eval()``), then restore the model's mode
    PRESERVE = 1  # record in whatever mode the model is in
    TRAINING = 2  # record in training mode


def is_in_onnx_export() -> bool:
    """True while ``minitorch.onnx.export`` runs the model (a forward may check it, as in PyTorch)."""
    return _IN_EXPORT


def export(
    model,
    args=(),
    f=None,
    *,
    kwargs: dict | None = None,
    verbose: bool | None = None,
    input_names: Sequence[str] | None = None,
    output_names: Sequence[str] | None = None,
    opset_version: int | None = None,
    dynamo: bool = True,
    external_data: bool = True,
    dynamic_shapes=None,
    custom_translation_table=None,
    report: bool = False,
    optimize: bool = True,
    verify: bool = False,
    profile: bool = False,
    dump_exported_program: bool = False,
    artifacts_dir: str | os.PathLike = ".",
    export_params: bool = True,
    keep_initializers_as_inputs: bool = False,
    dynamic_axes: Mapping[str, Mapping[int, str]] | Mapping[str, Sequence[int]] | None = None,
    training: TrainingMode = TrainingMode.EVAL,
    operator_export_type=None,
    do_constant_folding: bool = True,
    custom_opsets: Mapping[str, int] | None = None,
    export_modules_as_functions=False,
    autograd_inlining: bool = True,
    strict: bool = False,
):
    """Export ``model`` to an ONNX file that ONNX Runtime (or TensorRT, or any ONNX runtime) can run.

    PyTorch's signature (``torch.onnx.export`` of PyTorch 2.13), with the behaviour of its
    TorchScript-based path (``dynamo=False``): the model runs once on ``args`` and the ops
    that ran are written down. minitorch records that forward pass itself, through the same
    ``Function.apply`` that records the graph for backward, so there is no second engine to
    choose: ``dynamo`` is accepted and changes nothing, and the options that only mean
    something to PyTorch's dynamo path (``external_data``, ``dynamic_shapes``, ``report``,
    ``optimize``, ``verify``, ``profile``, ...) are accepted and ignored.

    Args:
        model: an ``nn.Module`` (or any callable on tensors).
        args: example positional inputs; every tensor becomes a graph input, in order
            (nested tuples and lists are flattened); other values are fixed into the graph.
            A dict as the last element gives keyword inputs (PyTorch's convention).
        f: a path or a binary file object to write the model to; ``None`` returns the
            ``onnx.ModelProto`` instead.
        kwargs: example keyword inputs.
        verbose: print the exported graph.
        input_names, output_names: the names of the graph's inputs and outputs, in order.
        opset_version: the ONNX opset to target, 13 to 20 (default 20).
        export_params: store the parameters in the file (as initializers); when False the
            graph takes them as extra inputs named as in the ``state_dict``.
        keep_initializers_as_inputs: also list every initializer as a graph input.
        dynamic_axes: ``{name: {axis: "axis_name"}}`` or ``{name: [axis, ...]}`` for axes
            whose size is only known at run time (a variable batch: ``{"input": {0: "batch"}}``).
        training: ``TrainingMode.EVAL`` (default) records in evaluation mode; ``PRESERVE``
            keeps the model's mode. Dropout that is active while recording is an error: its
            random mask would be fixed into the graph.
        do_constant_folding: replace ops whose inputs are all constants (batch norm's
            ``1 / sqrt(var + eps)``, for example) by their recorded result.
        autograd_inlining: record the ops inside a custom ``autograd.Function`` that has no
            ONNX mapping of its own.
        strict: minitorch's addition. A tensor computed from an input that becomes a Python
            value while recording (``if x.sum() > 0:``, ``.item()``, ``int(t)``) fixes this run's
            branch or number into the graph: by default that warns with PyTorch's
            ``TracerWarning`` text, as ``torch.onnx.export`` does; ``strict=True`` refuses it.

    An op without an ONNX mapping raises ``UnsupportedOperatorError`` naming the op and the
    line that called it; nothing is silently left out.

        >>> import io, onnx, minitorch
        >>> model = minitorch.nn.Sequential(minitorch.nn.Linear(4, 2), minitorch.nn.ReLU())
        >>> buffer = io.BytesIO()
        >>> minitorch.onnx.export(model, (minitorch.randn(3, 4),), buffer, input_names=["x"],
        ...                       output_names=["y"], dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
        >>> [node.op_type for node in onnx.load_from_string(buffer.getvalue()).graph.node]
        ['Gemm', 'Relu']
    """
    del dynamo, external_data, dynamic_shapes, custom_translation_table, report, optimize, verify, profile
    del dump_exported_program, artifacts_dir, operator_export_type, custom_opsets, export_modules_as_functions
    opset = _check_opset(opset_version)
    positional, keyword = _split_arguments(args, kwargs)
    inputs = _flatten_tensors((positional, keyword), "input")
    input_names = _names(input_names, len(inputs), _default_input_names(model, len(inputs)), "input_names")
    dynamic_axes = _normalise_dynamic_axes(dynamic_axes)
    symbols = _symbols(input_names, inputs, dynamic_axes)
    # 1. record, three times
    first, first_outputs, third_sizes = _record_three_times(model, positional, keyword, input_names, dynamic_axes,
                                                            symbols, training, autograd_inlining, strict)
    output_names = _names(output_names, len(first_outputs), [f"output_{i}" for i in range(len(first_outputs))],
                          "output_names")
    _check_dynamic_axes_names(dynamic_axes, input_names, output_names)
    # 2. map
    builder, result_names = _map(first, first_outputs, input_names, output_names, symbols, third_sizes, opset,
                                 do_constant_folding, export_params)
    # 3. write
    model_proto = _make_model(builder, first, first_outputs, input_names, result_names, dynamic_axes, symbols,
                              export_params, keep_initializers_as_inputs, set(_parameter_names(model).values()))
    if verbose:
        import onnx  # optional (the deploy extra): loaded when a model is exported

        print(onnx.printer.to_text(model_proto.graph))
    return _write(model_proto, f)


def _check_opset(opset_version) -> int:
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise ValueError(
            f"Unsupported ONNX opset version: {opset}. minitorch exports opsets {MIN_OPSET} to {MAX_OPSET}"
        )
    return opset


def _record_three_times(model, positional, keyword, input_names, dynamic_axes, symbols, training,
                        autograd_inlining, strict):
    """Step 1: record on the example inputs, then on other values and sizes, twice; pair the recordings.

    The second recording tells which sizes follow which dynamic axis and how (``factor * axis`` or
    ``axis + offset``, ``GraphBuilder.size_rule``); the third, at yet other sizes, checks every
    such rule, so a size that only looked linear at two sizes (``T // 2 * 2``) is refused, not
    written into the graph. Returns the first recording, its outputs and the third sizes.
    """
    global _IN_EXPORT
    previous_mode = getattr(model, "training", None)
    _set_mode(model, training)
    _IN_EXPORT = True
    try:
        _refuse_active_dropout(model)
        parameters = _parameter_names(model)
        first, first_outputs = _record(model, positional, keyword, parameters, autograd_inlining,
                                       "raise" if strict else "warn")

        def record_at(sizes):
            other_positional, other_keyword = _other_inputs(positional, keyword, input_names, dynamic_axes, sizes)
            return _record(model, other_positional, other_keyword, parameters, autograd_inlining, "ignore")[0]

        second, chosen, failure = _first_that_runs(record_at, _second_sizes(symbols) if symbols else [symbols])
        if second is None:
            raise TraceError(
                "The model failed on every other size tried along the dynamic axes "
                f"({', '.join(symbols)}), so the export cannot tell how its sizes follow them: {failure}"
            ) from failure
        symbols.update(chosen)
        third, third_symbols, failure = (second, symbols, None) if not symbols else _first_that_runs(
            record_at, _third_sizes(symbols))
        if third is None:
            raise TraceError(
                "The model failed at a third set of sizes along the dynamic axes "
                f"({', '.join(symbols)}), so the export cannot check how its sizes follow them: {failure}"
            ) from failure
    finally:
        _IN_EXPORT = False
        if previous_mode is not None:
            model.train(previous_mode)
    _align(first, second, "other")
    _align(first, third, "third")
    return first, first_outputs, {symbol: sizes[3] for symbol, sizes in third_symbols.items()}


def _first_that_runs(record_at, candidates):
    """The recording at the first candidate sizes the model accepts: (tracer, sizes, None) or (None, None, error)."""
    failure = None
    for sizes in candidates:
        try:
            return record_at(sizes), sizes, None
        except Exception as error:  # the model does not take these sizes: try the next ones
            failure = error
    return None, None, failure


def _map(first, first_outputs, input_names, output_names, symbols, third_sizes, opset, do_constant_folding,
         export_params):
    """Step 2: every recorded call becomes ONNX nodes (or is folded into a constant, or refused)."""
    from ._graph import GraphBuilder  # it imports ``onnx`` (an optional dependency, the ``deploy`` extra)

    graph_symbols = {
        symbol: (input_names[position], axis, first_size, second_size)
        for symbol, (position, axis, first_size, second_size) in symbols.items()
    }
    builder = GraphBuilder(opset, do_constant_folding, export_params, graph_symbols, third_sizes)
    for value, name in zip(first.inputs, input_names):
        builder.bind(value, name)
    _mark_constant_results(first)
    for call in first.calls:
        _emit(builder, call)
    return builder, _emit_outputs(builder, first_outputs, output_names)


def _make_model(builder, first, first_outputs, input_names, result_names, dynamic_axes, symbols, export_params,
                keep_initializers_as_inputs, parameter_names):
    """Step 3: the graph's inputs, outputs and initializers in a ``ModelProto``, checked by ``onnx.checker``."""
    import onnx  # optional (the deploy extra): loaded when a model is exported

    from ._graph import value_info  # _graph.py imports onnx (optional, the deploy extra)

    graph_inputs = [
        value_info(name, value.dtype, _input_dims(value, name, dynamic_axes, symbols)) for value, name in
        zip(first.inputs, input_names)
    ]
    graph_outputs = [
        value_info(name, value.dtype, _output_dims(builder, value, name, dynamic_axes, symbols, input_names))
        for value, name in zip(first_outputs, result_names)
    ]
    initializers = builder.initializers
    if not export_params:  # parameters become inputs the caller feeds; folded constants stay in the file
        graph_inputs += [value_info(t.name, onnx.helper.tensor_dtype_to_np_dtype(t.data_type), list(t.dims))
                         for t in initializers if t.name in parameter_names]
        initializers = [t for t in initializers if t.name not in parameter_names]
    elif keep_initializers_as_inputs:
        graph_inputs += [value_info(t.name, onnx.helper.tensor_dtype_to_np_dtype(t.data_type), list(t.dims))
                         for t in initializers]
    graph = onnx.helper.make_graph(builder.nodes, "main_graph", graph_inputs, graph_outputs, initializers)
    opset_imports = [onnx.helper.make_opsetid("", builder.opset)]
    model_proto = onnx.helper.make_model(
        graph, opset_imports=opset_imports, producer_name=PRODUCER_NAME, producer_version=_version(),
        ir_version=onnx.helper.find_min_ir_version_for(opset_imports),
    )
    onnx.checker.check_model(model_proto, full_check=True)
    return model_proto


def _write(model_proto, f):
    if f is None:
        return model_proto
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            file.write(model_proto.SerializeToString())
    else:
        f.write(model_proto.SerializeToString())
    return None


# -- the arguments ------------------------------------------------------------------------------
def _split_arguments(args, kwargs):
    if isinstance(args, Tensor):
        args = (args,)
    elif not isinstance(args, tuple):
        args = tuple(args) if isinstance(args, list) else (args,)
    keyword = dict(kwargs or {})
    if args and isinstance(args[-1], dict):  # PyTorch's convention: a trailing dict holds keyword inputs
        keyword = {**args[-1], **keyword}
        args = args[:-1]
    return args, keyword


def _flatten_tensors(structure, what: str) -> list:
    """Every tensor of nested tuples, lists and dicts, in order; other leaves are left out (inputs) or refused."""
    found = []

    def walk(item):
        if isinstance(item, Tensor):
            found.append(item)
        elif isinstance(item, (tuple, list)):
            for element in item:
                walk(element)
        elif isinstance(item, dict):
            for element in item.values():
                walk(element)
        elif what == "output":
            raise RuntimeError(
                "Only tuples, lists and Variables are supported as JIT inputs/outputs. Dictionaries and strings are "
                f"also accepted, but their usage is not recommended. Here, received an input of unsupported type: "
                f"{type(item).__name__}"
            )

    walk(structure)
    return found


def _default_input_names(model, count: int) -> list:
    """The names of ``forward``'s parameters where they line up, else ``input_0``, ``input_1``..."""
    try:
        parameters = [p.name for p in inspect.signature(getattr(model, "forward", model)).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        parameters = []
    if len(parameters) == count:
        return parameters
    return [f"input_{i}" for i in range(count)]


def _names(given, count: int, default: list, what: str) -> list:
    if given is None:
        return default
    given = list(given)
    if len(given) > count:
        raise ValueError(f"{what} has {len(given)} names but the model has {count} of them")
    names = given + default[len(given):]
    if len(set(names)) != len(names):
        raise ValueError(f"{what} must be unique, got {names}")
    return names


def _normalise_dynamic_axes(dynamic_axes) -> dict:
    """``{name: {axis: axis_name}}``; a list of axes gets PyTorch's names ``{name}_dynamic_axes_{k}``."""
    result = {}
    for key, axes in (dynamic_axes or {}).items():
        if isinstance(axes, Mapping):
            result[key] = {int(axis): str(name) for axis, name in axes.items()}
        else:
            result[key] = {int(axis): f"{key}_dynamic_axes_{k + 1}" for k, axis in enumerate(axes)}
    return result


def _check_dynamic_axes_names(dynamic_axes: dict, input_names: list, output_names: list) -> None:
    for key in dynamic_axes:
        if key not in input_names and key not in output_names:
            warnings.warn(
                f"Provided key {key} for dynamic axes is not a valid input/output name", stacklevel=3
            )


def _set_mode(model, training) -> None:
    if not hasattr(model, "train"):
        return
    if training == TrainingMode.EVAL:
        model.train(False)
    elif training == TrainingMode.TRAINING:
        model.train(True)


def _refuse_active_dropout(model) -> None:
    modules = model.named_modules() if hasattr(model, "named_modules") else ()
    for name, module in modules:
        if isinstance(module, _DropoutNd) and module.training and module.p > 0:
            raise RuntimeError(
                f"The model is in training mode and its dropout layer '{name or type(module).__name__}' "
                f"({module!r}) is active: the export would record one random mask as a constant. Call model.eval() "
                "before exporting (or pass training=minitorch.onnx.TrainingMode.EVAL, the default)."
            )


def _parameter_names(model) -> dict:
    """id(tensor) -> its name in the ``state_dict`` (the first name of a shared tensor)."""
    names = {}
    if hasattr(model, "state_dict"):
        for name, tensor in model.state_dict(keep_vars=True).items():
            names.setdefault(id(tensor), name)
    return names


# -- recording ----------------------------------------------------------------------------------
def _record(model, positional, keyword, parameters, autograd_inlining, conversions):
    tracer = Tracer(parameters, autograd_inlining, lambda op: _registry.mapping_of(op) is not None, conversions)
    for tensor in _flatten_tensors((positional, keyword), "input"):
        tracer.add_input(tensor)
    with no_grad(), tracer:
        result = model(*positional, **keyword)
    outputs = _flatten_tensors(result, "output")
    if not outputs:
        raise RuntimeError("The model returned no tensor: there is nothing to export")
    return tracer, tracer.finish(outputs)  # the captured FX graph, read into the calls the mappings take


def _symbols(input_names, inputs, dynamic_axes) -> dict:
    """Each dynamic axis name -> (input position, axis, size now, size in the second recording: a placeholder
    until ``_second_sizes`` picks one the model accepts)."""
    symbols = {}
    for position, (name, tensor) in enumerate(zip(input_names, inputs)):
        for axis, symbol in dynamic_axes.get(name, {}).items():
            if not -tensor.dim() <= axis < tensor.dim():
                raise ValueError(f"dynamic_axes: input '{name}' has {tensor.dim()} dimensions, no axis {axis}")
            axis %= tensor.dim()
            size = int(tensor.shape[axis])
            if symbol in symbols:
                if symbols[symbol][2] != size:
                    raise ValueError(f"dynamic axis '{symbol}' has sizes {symbols[symbol][2]} and {size}")
                continue
            if size == 0:
                raise ValueError(f"dynamic axis '{symbol}' of input '{name}' has size 0: give an example of size >= 1")
            symbols[symbol] = (position, axis, size, size + len(symbols) + 1)
    return symbols


# The second recording's sizes: dynamic axis number k grows by m times the k-th prime, for the first m of
# these that the model accepts (a U-Net that halves its input twice needs sizes that are multiples of 4).
_SIZE_STEPS = (1, 2, 4, 8, 16)


def _primes(count: int) -> list:
    primes, candidate = [], 2
    while len(primes) < count:
        if all(candidate % p for p in primes):
            primes.append(candidate)
        candidate += 1
    return primes


def _second_sizes(symbols: dict):
    """Candidate sizes for the second recording, so that a size that changed can be traced back to one axis
    (``GraphBuilder.size_rule``): each axis grows by its own prime multiple of ``m``, so no growth is a whole
    multiple of another's (``2 * B`` cannot pass for ``T + 3``), and each has its own ratio."""
    primes = _primes(len(symbols))
    for m in _SIZE_STEPS:
        seconds = {symbol: first + primes[k] * m for k, (symbol, (_, _, first, _)) in enumerate(symbols.items())}
        ratios = {seconds[symbol] / first for symbol, (_, _, first, _) in symbols.items()}
        if len(ratios) == len(symbols):
            yield {symbol: (position, axis, first, seconds[symbol])
                   for symbol, (position, axis, first, _) in symbols.items()}


def _third_sizes(symbols: dict):
    """Sizes for the checking recording, smallest first (each recording costs a forward pass): ``m`` below the
    example, else ``m`` past the second, else the second's step once more. Where ``m`` is 1, the first two
    have the other parity than the example's, so a size that depends on parity shows."""
    m = min(second - first for _, _, first, second in symbols.values()) // 2  # the first axis grew by 2 * m
    for third in (lambda first, second: first - m, lambda first, second: second + m,
                  lambda first, second: 2 * second - first):
        sizes = {symbol: (position, axis, first, third(first, second))
                 for symbol, (position, axis, first, second) in symbols.items()}
        if all(size[3] > 1 for size in sizes.values()):  # 1 is a size of its own (it broadcasts): not a check
            yield sizes


def _other_inputs(positional, keyword, input_names, dynamic_axes, symbols):
    """The example inputs with other values, and other sizes along the dynamic axes (for the second recording)."""
    generator = np.random.default_rng(0)
    sizes = {symbol: second for symbol, (_, _, _, second) in symbols.items()}
    names = iter(input_names)

    def change(item):
        if isinstance(item, Tensor):
            array = item._data
            for axis, symbol in sorted(dynamic_axes.get(next(names), {}).items()):
                axis %= array.ndim
                array = np.take(array, np.arange(sizes[symbol]) % array.shape[axis], axis=axis)
            array = np.roll(array.reshape(-1), 1).reshape(array.shape)  # the same values in other places
            if is_floating(array.dtype):  # and slightly other values, in case they were all equal
                array = array * (1 + 0.01 * generator.random(array.shape)).astype(array.dtype)
            return make_tensor(array.copy(), dtype=item.dtype)
        if isinstance(item, (tuple, list)):
            return type(item)(change(element) for element in item)
        if isinstance(item, dict):
            return {key: change(element) for key, element in item.items()}
        return item

    other_positional = change(positional)
    other_keyword = change(keyword)
    return other_positional, other_keyword


def _align(first: Tracer, second: Tracer, which: str) -> None:
    """Pair every value of the first recording with the same value in another one (``which``: "other"/"third").

    A non-tensor argument that differs between the recordings (a size read with ``x.shape``)
    is noted in ``call.varying``: the op's mapping must compute it in the graph, or refuse.
    """
    if len(first.calls) != len(second.calls) or any(
        a.name != b.name for a, b in zip(first.calls, second.calls)
    ):
        where = next((a.where for a, b in zip(first.calls, second.calls) if a.name != b.name), first.calls[-1].where)
        raise TraceError(
            "The model ran different ops for inputs of other values or sizes (data-dependent control flow, "
            f"first difference at {where}); a recorded graph cannot express that"
        )

    def pair(a: Value, b: Value) -> None:
        setattr(a, which, b)
        setattr(a, f"{which}_shape", b.shape)

    for a, b in zip(first.inputs, second.inputs):
        pair(a, b)
    for a_call, b_call in zip(first.calls, second.calls):
        if which == "other":
            a_call.varying = []
        setattr(a_call, f"{which}_args", b_call.args)
        setattr(a_call, f"{which}_kwargs", b_call.kwargs)
        arguments = list(enumerate(zip(a_call.args, b_call.args)))
        arguments += [(key, (a_call.kwargs[key], b_call.kwargs.get(key))) for key in a_call.kwargs]
        for index, (a, b) in arguments:
            if isinstance(a, Value) and isinstance(b, Value):
                pair(a, b)
            elif isinstance(a, (tuple, list)) and any(isinstance(item, Value) for item in a):
                for item_a, item_b in zip(a, b):
                    if isinstance(item_a, Value) and isinstance(item_b, Value):
                        pair(item_a, item_b)
            elif not _same(a, b) and index not in a_call.varying:
                a_call.varying.append(index)
        for a, b in zip(a_call.outputs, b_call.outputs):
            if a is not None and b is not None:
                pair(a, b)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b)
    except Exception:  # an object without a plain equality: treat as different only if not the same object
        return a is b


def _mark_constant_results(tracer: Tracer) -> None:
    """Decide which recorded results are constants of the graph (folded in as their recorded arrays).

    A result is *live* (computed by the graph at run time) when it depends on a graph input, on
    a constant that was different in the second recording (``zeros(batch, ...)`` made in
    ``forward``), or on a Python number that was (a size read from ``x.shape``:
    ``pos[:, :T]``, ``cls.expand(B, -1, -1)``); every other result was the same whatever the
    input, so its recorded value is it. A result folded in must have been the same in both
    recordings: one that was not is refused, never written into the file.
    """
    live = {id(value) for value in tracer.inputs}
    live.update(id(value) for value in tracer.constants if _varies(value))
    for call in tracer.calls:
        arguments = list(values_in(call.args)) + list(values_in(call.kwargs.values()))
        call.live = bool(getattr(call, "varying", None)) or any(id(a) in live for a in arguments)
        for output in call.outputs:
            if output is None:
                continue
            if call.live:
                live.add(id(output))
                output.array = None
            elif output.array is not None and _varies(output):
                raise TraceError(
                    f"The result of '{call.name}' at {call.where} was different for other inputs, but nothing the "
                    "export can see explains why; it would be written into the file as a constant. Compute it with "
                    "tensor ops from the model's inputs."
                )


def _varies(value: Value) -> bool:
    """Whether a value was different in the second or the third recording (its shape or, if kept, its numbers)."""
    for other in (value.other, value.third):
        if other is None:
            continue
        if other.shape != value.shape:
            return True
        if other.array is not None and value.array is not None and \
                not np.array_equal(other.array, value.array, equal_nan=True):
            return True
    return False


# -- mapping ------------------------------------------------------------------------------------
def _emit(builder, call: Call) -> None:
    builder.call = call
    if builder.fold_constants and not call.live:
        return  # its results are constants: name_of writes their recorded values when something reads them
    mapping = _registry.mapping_of(call.op)
    if mapping is None:
        raise UnsupportedOperatorError(
            f"Exporting the operator 'minitorch::{call.name}' to ONNX opset version {builder.opset} is not supported "
            f"(it was called at {call.where}). Rewrite that part of the model with supported ops, or add a mapping "
            "for it in minitorch/onnx/."
        )
    if call.varying and not _registry.is_size_aware(call.op):
        raise TraceError(
            f"The non-tensor arguments of '{call.name}' at {call.where} depend on the input: they changed when the "
            "model ran on other values or sizes (a Python number from .item(), or a size read with x.shape along a "
            "dynamic axis), and the graph would keep one of them. Compute them with tensor ops, or export without "
            "that dynamic axis."
        )
    results = mapping(builder, call)
    if not isinstance(results, tuple):
        results = (results,)
    for value, name in zip(call.outputs, results):
        if value is not None and name is not None:
            builder.bind(value, name)


def _emit_outputs(builder, outputs: list, output_names: list) -> list:
    """Give each graph output its name (an Identity node when the value already has another name)."""
    names = []
    renamed = {}
    for value, name in zip(outputs, output_names):
        source = builder.name_of(value)
        producer = next((node for node in builder.nodes if source in node.output), None)
        can_rename = (producer is not None and id(value) not in renamed and source not in
                      [n for node in builder.nodes for n in node.input] and source not in output_names)
        if can_rename:
            producer.output[list(producer.output).index(source)] = name
            builder.bind(value, name)
            renamed[id(value)] = name
        else:
            builder.node("Identity", [source], outputs=[name])
        names.append(name)
    return names


def _input_dims(value: Value, name: str, dynamic_axes: dict, symbols: dict) -> list:
    axes = {axis % max(len(value.shape), 1): symbol for axis, symbol in dynamic_axes.get(name, {}).items()}
    return [axes.get(axis, size) for axis, size in enumerate(value.shape)]


def _output_dims(builder, value: Value, name: str, dynamic_axes: dict, symbols: dict, input_names) -> list:
    builder.call = Call("output", (), (), "the model's output")
    named = {axis % max(len(value.shape), 1): symbol for axis, symbol in dynamic_axes.get(name, {}).items()}
    dims = []
    for axis, dim in enumerate(builder.dims(value)):
        if axis in named:
            dims.append(named[axis])
        elif isinstance(dim, int):
            dims.append(dim)
        else:
            symbol, factor, offset = dim
            dims.append(symbol if (factor, offset) == (1, 0) else None)
    return dims


def _version() -> str:
    try:
        return version("minitorch-kit")
    except Exception:
        return "0"


__all__ = ["export", "TrainingMode", "is_in_onnx_export", "OnnxExporterError", "UnsupportedOperatorError"]
