"""AOTAutograd: the forward and the backward of a captured graph, generated ahead of time.

In eager mode every op of the forward records a node, and ``backward()`` walks those nodes
one at a time (``autograd/engine.py``). A captured graph is the same every call, so the walk
can be planned once: this module turns the graph into two Python functions working on
arrays, and prints them (``compiled.code``):

* ``forward(arrays...)`` calls each op's ``forward`` directly on arrays (no ``Function.apply``,
  no node for the engine), keeps what each op saved, and returns the outputs and the saved
  values;
* ``backward(saved, grads...)`` visits the ops in reverse order once, calls each op's
  ``backward`` with its saved context, brings each gradient back to its input's shape and
  dtype (undoing broadcasting), and adds up the gradients of values used several times.

The pair runs as one op (``CompiledFunction``), so the engine sees one node for the whole
graph, named ``CompiledFunctionBackward`` as in PyTorch. A call that needs no gradient (under
``no_grad``, or no input requiring grad) runs the forward alone. As in PyTorch, the compiled
backward is first-order: differentiating it again raises.

Other kinds of node: fused kernels and ops written on arrays (``minitorch/_inductor``) bring
their own forward and backward; a call recorded whole (``x[index_tensor]``) runs eagerly on
Tensors and is differentiated with ``autograd.grad``; a buffer the function updates in place
(BatchNorm's running statistics) is written back at the end. A graph with an op this module
cannot run on arrays (a custom ``Function``, a tensor on a GPU) is run as captured.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .._device import CPU
from .._dtype import is_floating
from .._dynamo.capture import OpCall, array_of, check_indices, check_shape, write_buffer
from .._tensor import Tensor
from ..autograd import grad as autograd_grad
from ..autograd.function import Op, SavedTensor, _ForwardOnlyContext, once_differentiable
from ..autograd.grad_mode import _GradState, enable_grad
from ..fx import GraphModule, Node
from ..ops.indexing import Index, MaskedSelect
from ..ops.nn_ops import CrossEntropy, Embedding

# Ops that index with an input's values, which the eager function range-checks with NumPy before the op
# (invisible to the capture): (position of the indices, the size they index, from the node's arguments).
INDEX_CHECKS = {
    CrossEntropy: (1, lambda node: node.args[0].meta["val"][0][1]),  # labels < number of classes
    Embedding: (1, lambda node: node.args[0].meta["val"][0][0]),  # indices < rows of the weight
}


# Ops whose result's size can depend on the values they read (a boolean mask): checked on every call.
DATA_DEPENDENT_SIZES = (Index, MaskedSelect)


def wrap(array) -> Tensor:
    """An array as a Tensor (a NumPy scalar, which arithmetic on 0-d arrays returns, as a 0-d array first)."""
    if type(array) is not np.ndarray:
        array = np.asarray(array)
    return Tensor._make(array, CPU)


def keep_saved(ctx) -> None:
    """What an op's forward saved, kept on its context for its backward (as constants: first-order only)."""
    ctx._device = CPU
    if ctx._to_save:
        ctx._saved = [SavedTensor("constant", wrap(np.asarray(value)) if isinstance(value, (np.ndarray, np.generic))
                                  else value, 0, [0]) for value in ctx._to_save]
        ctx._to_save = ()


def sum_to(array, shape: tuple):
    """``array`` summed over the axes broadcasting added or stretched, so it has ``shape``."""
    lead = array.ndim - len(shape)
    stretched = tuple(lead + i for i, size in enumerate(shape) if size == 1 and array.shape[lead + i] != 1)
    axes = tuple(range(lead)) + stretched
    if axes:
        array = array.sum(axis=axes, keepdims=True)
    # contiguous, as the engine's gradients are (a later view of the gradient relies on the layout)
    return np.ascontiguousarray(array.reshape(shape))


def fit(array, shape: tuple, dtype):
    """A gradient brought to its input's shape and dtype (``_validate_gradient`` in the engine)."""
    if array.shape != shape:
        array = sum_to(array, shape)
    if array.dtype != dtype:
        array = array.astype(dtype)
    return array


def gradient_at(results, index: int, arguments: int, positions: tuple, shape, dtype):
    """The gradient an op's ``backward`` returned for its argument ``index``, as a fitted array (or None).
    ``backward`` returns one gradient per argument, or one per input (``positions``: which arguments)."""
    if not isinstance(results, tuple):
        results = (results,)
    if len(results) == arguments:
        grad = results[index]
    else:
        grad = results[positions.index(index)] if index in positions and positions.index(index) < len(results) \
            else None
    return None if grad is None else fit(grad._data, shape, dtype)


def leaf(array, needs_grad: bool) -> Tensor:
    """An array as a Tensor that a call recorded whole reads (requiring grad where the graph needs one)."""
    tensor = wrap(array)
    if needs_grad:
        tensor.requires_grad_()
    return tensor


def opaque_backward(saved, grad) -> list:
    """The gradients of a call recorded whole, by ``autograd.grad`` on the small graph it left (one per leaf)."""
    leaves, output = saved
    wanted = [tensor for tensor in leaves if tensor.requires_grad]
    grads = iter(autograd_grad([output], wanted, [wrap(grad)], allow_unused=True, retain_graph=True))
    results = []
    for tensor in leaves:
        found = next(grads) if tensor.requires_grad else None
        results.append(None if found is None else found._data)
    return results


def add(total, grad):
    """Gradients of a value used several times add up (None: nothing arrived yet)."""
    if grad is None:
        return total
    return grad if total is None else total + grad


def materialize(grads: list, metas: tuple) -> tuple:
    """Zeros for the outputs of a multi-output op that received no gradient (as the engine gives)."""
    return tuple(wrap(np.zeros(meta[0], meta[1])) if grad is None and meta is not None else
                 (None if grad is None else wrap(grad)) for grad, meta in zip(grads, metas))


def attribute(module, target: str):
    """``module.<target>`` for a dotted ``target`` (a parameter, buffer or constant of the graph)."""
    for atom in target.split("."):
        module = getattr(module, atom)
    return module


def _single(value) -> bool:
    """Whether a node's ``meta["val"]`` describes one tensor ``(shape, dtype)`` (else a tuple of them)."""
    return len(value) == 2 and isinstance(value[1], np.dtype)


def _floating(value) -> bool:
    return is_floating(value[1])


def _tuple(names) -> str:
    """``names`` as the source of a tuple: ``()``, ``(a,)``, ``(a, b)``."""
    names = list(names)
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _is_tensor_value(argument) -> bool:
    return isinstance(argument, Node) and argument.target is not array_of


def _source(value, constants: dict, tensor=None) -> str:
    """An argument in generated code: a node's array by name, literals by ``repr``, other objects by a global.
    ``tensor(node)``, when given, is how a node inside a tuple or list is written (else ``wrap(name)``)."""
    if isinstance(value, Node):
        return value.name if tensor is None else tensor(value)
    if value is None or type(value) in (bool, int, str) or (type(value) is float and np.isfinite(value)):
        return repr(value)
    if isinstance(value, slice):
        return f"slice({_source(value.start, constants)}, {_source(value.stop, constants)}, " \
               f"{_source(value.step, constants)})"
    if value is Ellipsis:
        return "..."
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        inside = ", ".join((tensor(item) if tensor is not None else f"wrap({item.name})") if _is_tensor_value(item)
                           else _source(item, constants, tensor)
                           for item in value)  # a tensor inside a list reaches forward as a Tensor
        return (f"({inside},)" if len(value) == 1 else f"({inside})") if isinstance(value, tuple) else f"[{inside}]"
    name = f"constant_{len(constants)}"
    constants[name] = value
    return name


class _Program:
    """Writes the source of ``forward`` (and, when training, ``backward``) for a graph."""

    def __init__(self, graph_module: GraphModule, example_inputs: list, training: bool, lowerings: dict):
        self.graph_module, self.training, self.lowerings = graph_module, training, lowerings
        self.nodes = list(graph_module.graph.nodes)
        self.node_names = {node.name for node in self.nodes}
        self.globals: dict[str, Any] = {"wrap": wrap, "check_indices": check_indices, "check_shape": check_shape,
                                        "keep_saved": keep_saved,
                                        "leaf": leaf, "opaque_backward": opaque_backward, "enable_grad": enable_grad,
                                        "gradient_at": gradient_at,
                                        "add": add, "fit": fit, "materialize": materialize, "np": np,
                                        "ForwardOnly": _ForwardOnlyContext}
        self.inputs = [node for node in self.nodes if node.op in ("placeholder", "get_attr")]
        example = dict(zip([n for n in self.nodes if n.op == "placeholder"], example_inputs))
        self.tensors = [example[n] if n.op == "placeholder" else attribute(graph_module, n.target)
                        for n in self.inputs]
        self.requires = self._requires_grad()
        self.saved: list[str] = []

    # -- which values need a gradient -------------------------------------------------------------
    def _requires_grad(self) -> dict:
        """Which values need a gradient: inputs that require grad, and the floating outputs of ops reading them."""
        requires: dict[Node, bool] = {}
        for node, tensor in zip(self.inputs, self.tensors):
            requires[node] = self.training and tensor._requires_grad
        for node in self.nodes:
            if node.op != "call_function":
                continue
            reads = any(requires.get(argument, False) for argument in node.all_input_nodes)
            value = node.meta.get("val")
            if isinstance(node.target, OpCall) or hasattr(node.target, "backward_source") or \
                    node.target is operator.getitem:
                floating = _floating(value) if _single(value) else any(_floating(item) for item in value if item)
                # an op the function ran under no_grad passes no gradient (its result is a constant to autograd),
                # nor does an output eager mode gave none (one marked non-differentiable: a batch's mean)
                requires[node] = reads and floating and getattr(node.target, "grad_enabled", True) and \
                    node.meta.get("requires_grad", True)
            elif node.meta.get("differentiable"):  # recorded whole (x[index_tensor]): autograd differentiates it
                requires[node] = reads and node.meta.get("requires_grad", True)
            else:  # an input's array (labels), comparisons and logical functions: no gradient
                requires[node] = False
        return requires

    def _global(self, name: str, value) -> str:
        for known, known_value in self.globals.items():  # an object already named keeps its name
            if known_value is value:
                return known
        if name in self.node_names or self.globals.get(name, value) is not value:  # never shadow a value
            name = f"{name}_kernel" if hasattr(value, "backward_source") else f"{name}_{len(self.globals)}"
            while name in self.node_names or self.globals.get(name, value) is not value:
                name = f"{name}_{len(self.globals)}"
        self.globals[name] = value
        return name

    # -- forward -------------------------------------------------------------------------------------
    def forward_source(self) -> str:
        """``def forward(inputs...)``: one or a few lines per node, then the outputs (and, when training,
        what the backward needs: each op's context, each kernel's saved arrays)."""
        lines = [f"def forward({', '.join(node.name for node in self.inputs)}):"]
        self.constants: dict[str, Any] = {}
        outputs = ""
        for node in self.nodes:
            if node.op == "output":
                outputs = _tuple(item.name for item in node.args[0])
            elif node.op == "call_function":
                lines += ["    " + line for line in self._forward_of(node)]
        self.globals.update(self.constants)
        lines.append(f"    return {outputs}, {_tuple(self.saved)}" if self.training else f"    return {outputs}")
        return "\n".join(lines) + "\n"

    def _forward_of(self, node: Node) -> list[str]:
        """The forward lines of one node, by kind: an op, a kernel, a call recorded whole, a buffer write."""
        target = node.target
        if target is write_buffer:  # a module's buffer updated in place, after everything read it
            buffer = self._global(f"buffer_{node.args[0].name}", attribute(self.graph_module, node.args[0].target))
            return [f"{buffer}._data[...] = {node.args[1].name};  {buffer}._version_counter[0] += 1"]
        if target is array_of:  # an input's array, read by an op directly: already an array here
            return [f"{node.name} = {node.args[0].name}"]
        if target is operator.getitem:  # one result of an op with several
            line = f"{node.name} = {node.args[0].name}[{node.args[1]}]"
            if isinstance(node.args[0].target, OpCall):
                return [line]
            return [line, f"check_shape({node.name}, {tuple(node.meta['val'][0])})"]  # nonzero(as_tuple=True)
        if isinstance(target, OpCall):
            lines = self._forward_of_op(node)
        elif hasattr(target, "backward_source"):
            lines = self._forward_of_kernel(node)
        elif self.requires[node]:
            lines = self._forward_of_differentiable_call(node)
        else:
            lines = self._forward_of_call(node)
        if _single(node.meta["val"]) and (not isinstance(target, OpCall) and not hasattr(target, "backward_source")
                                          or isinstance(target, OpCall) and target.op in DATA_DEPENDENT_SIZES):
            lines.append(f"check_shape({node.name}, {tuple(node.meta['val'][0])})")  # a size that values decide
        return lines

    def _arguments(self, node: Node) -> str:
        return ", ".join(_source(argument, self.constants) for argument in node.args)

    def _forward_of_op(self, node: Node) -> list[str]:
        """An op's own ``forward`` on arrays: with a context kept for its backward when training."""
        op = self._global(node.target.op.__name__, node.target.op)
        lines = []
        if node.target.op in INDEX_CHECKS and isinstance(node.args[INDEX_CHECKS[node.target.op][0]], Node):
            position, size = INDEX_CHECKS[node.target.op]
            lines.append(f"check_indices({node.args[position].name}, {size(node)})")
        if self.requires[node]:
            needs = tuple(self.requires.get(argument, False) if isinstance(argument, Node) else False
                          for argument in node.args)
            lines.append(f"ctx_{node.name} = {op}._node_class({needs})")
            line = f"{node.name} = {op}.forward(ctx_{node.name}, {self._arguments(node)});  keep_saved(ctx_{node.name})"
            self.saved.append(f"ctx_{node.name}")
        elif node.target.op in self.lowerings:  # the op computed another way (a compiler's lowering)
            lowered = self._global(self.lowerings[node.target.op].__name__, self.lowerings[node.target.op])
            line = f"{node.name} = {lowered}({self._arguments(node)})"
        else:
            line = f"{node.name} = {op}.forward(ForwardOnly(), {self._arguments(node)})"
        if _single(node.meta["val"]):
            line += f";  {node.name} = np.asarray({node.name})"  # an op may return a NumPy scalar
        return lines + [line]

    def _forward_of_kernel(self, node: Node) -> list[str]:
        """A fused kernel or an op written on arrays: its arrays saved for its backward when training."""
        kernel = self._global(node.target.__name__, node.target)
        if not self.requires[node]:
            return [f"{node.name} = {kernel}({self._arguments(node)})"]
        self.saved.append(f"saved_{node.name}")
        return [f"{node.name}, saved_{node.name} = {kernel}.forward_saving({self._arguments(node)})"]

    def _forward_of_differentiable_call(self, node: Node) -> list[str]:
        """A call recorded whole that needs a gradient (``x[index_tensor]``): run eagerly on Tensors that
        require grad, its small graph kept for ``autograd.grad`` in the backward."""
        function = self._global(node.target.__name__, node.target)
        leaves = node.all_input_nodes
        index = {leaf_node: position for position, leaf_node in enumerate(leaves)}

        def leaf_of(item) -> str:
            return f"leaves_{node.name}[{index[item]}]"

        call = ", ".join([_source(a, self.constants, leaf_of) for a in node.args] +
                         [f"{k}={_source(a, self.constants, leaf_of)}" for k, a in node.kwargs.items()])
        made = ", ".join(f"leaf({leaf_node.name}, {bool(self.requires.get(leaf_node))})" for leaf_node in leaves)
        self.saved.append(f"opaque_{node.name}")
        return [f"leaves_{node.name} = [{made}]", "with enable_grad():",
                f"    output_{node.name} = {function}({call})",
                f"opaque_{node.name} = (leaves_{node.name}, output_{node.name})",
                f"{node.name} = output_{node.name}._data"]

    def _forward_of_call(self, node: Node) -> list[str]:
        """A call recorded whole that needs no gradient (a comparison, argmax): on Tensors, its result's array."""
        function = self._global(node.target.__name__, node.target)

        def tensor_or_value(argument) -> str:
            return f"wrap({argument.name})" if _is_tensor_value(argument) else _source(argument, self.constants)

        call = ", ".join([tensor_or_value(a) for a in node.args] +
                         [f"{key}={tensor_or_value(a)}" for key, a in node.kwargs.items()])
        if _single(node.meta["val"]):
            return [f"{node.name} = {function}({call})._data"]
        return [f"{node.name} = tuple([item._data for item in {function}({call})])"]

    # -- backward --------------------------------------------------------------------------------------
    def backward_source(self) -> str:
        output_node = self.nodes[-1]
        grads = [f"grad_{index}" for index in range(len(output_node.args[0]))]
        lines = [f"def backward(saved, {', '.join(grads)}):"]
        if self.saved:
            lines.append(f"    {_tuple(self.saved)} = saved")
        names = [f"g_{node.name}" for node in self.nodes if node.op != "output"]
        lines.append(f"    {' = '.join(names)} = None")
        for grad, node in zip(grads, output_node.args[0]):
            if self.requires.get(node):
                lines.append(f"    g_{node.name} = add(g_{node.name}, {grad})")
        items: dict[Node, dict[int, Node]] = {}
        for node in self.nodes:
            if node.target is operator.getitem:
                items.setdefault(node.args[0], {})[node.args[1]] = node
        for node in reversed(self.nodes):
            if node.op != "call_function" or not self.requires[node] or node.target is operator.getitem:
                continue
            lines += self._backward_of(node, items.get(node))
        lines.append(f"    return {_tuple(f'g_{node.name}' for node in self.inputs)}")
        return "\n".join(lines) + "\n"

    def _backward_of(self, node: Node, outputs: dict[int, Node] | None) -> list[str]:
        metas = node.meta["val"]
        if outputs is None:
            grad_in, condition = f"g_{node.name}", f"g_{node.name} is not None"
        else:  # several outputs: the gradients their getitem nodes collected
            listed = ", ".join(f"g_{outputs[i].name}" if i in outputs else "None" for i in range(len(metas)))
            grad_in, condition = f"[{listed}]", " or ".join(f"g_{item.name} is not None" for item in outputs.values())
        lines = [f"    if {condition}:"]
        if node.meta.get("differentiable") and not isinstance(node.target, OpCall):
            lines.append(f"        grads = opaque_backward(opaque_{node.name}, {grad_in})")
            for position, argument in enumerate(node.all_input_nodes):
                if self.requires.get(argument):
                    shape, dtype = self._meta(argument)
                    dtype_name = self._global(str(np.dtype(dtype)), np.dtype(dtype))
                    lines.append(f"        if grads[{position}] is not None:")
                    lines.append(f"            g_{argument.name} = add(g_{argument.name}, fit(grads[{position}], "
                                 f"{tuple(shape)}, {dtype_name}))")
            return lines
        if hasattr(node.target, "backward_source"):
            kernel = self._global(node.target.__name__, node.target)
            targets = [f"grad_{node.name}_{index}" for index in range(len(node.args))]
            needs = ""
            if getattr(node.target, "takes_needs", False):  # it skips the gradients nobody needs
                needs = ", " + repr(tuple(bool(self.requires.get(a)) if isinstance(a, Node) else False
                                          for a in node.args))
            lines.append(f"        {', '.join(targets)}, = {kernel}.backward(saved_{node.name}, {grad_in}{needs})")
            for index, argument in enumerate(node.args):
                if isinstance(argument, Node) and self.requires.get(argument):
                    lines.append(f"        g_{argument.name} = add(g_{argument.name}, {targets[index]})")
            return lines
        op = self._global(node.target.op.__name__, node.target.op)
        if outputs is None:
            lines.append(f"        results = {op}.backward(ctx_{node.name}, wrap({grad_in}))")
        else:
            metas_name = self._global(f"metas_{node.name}", metas)
            lines.append(f"        results = {op}.backward(ctx_{node.name}, *materialize({grad_in}, {metas_name}))")
        positions = tuple(index for index, argument in enumerate(node.args) if _is_tensor_value(argument) or (
            node.target.op.wraps_numbers and type(argument) in (int, float, bool, complex)))
        for index, argument in enumerate(node.args):
            if isinstance(argument, Node) and self.requires.get(argument):
                shape, dtype = self._meta(argument)
                dtype_name = self._global(str(np.dtype(dtype)), np.dtype(dtype))
                lines.append(f"        g_{argument.name} = add(g_{argument.name}, gradient_at(results, {index}, "
                             f"{len(node.args)}, {positions}, {tuple(shape)}, {dtype_name}))")
        return lines

    @staticmethod
    def _meta(node: Node):
        return node.meta["val"]


def _compiled_code(source: str, globals_: dict, name: str):
    namespace = dict(globals_)
    exec(compile(source, f"<minitorch.compile {name}>", "exec"), namespace)
    return namespace[name]


class CompiledGraph:
    """The compiled program of one graph: ``code`` shows it; calling it runs it on the call's tensors."""

    def __init__(self, graph_module: GraphModule, example_inputs: list, inference_lowerings: dict | None = None):
        self.graph_module = graph_module
        self.inference = _Program(graph_module, example_inputs, False, inference_lowerings or {})
        self.code = self.inference.forward_source()
        self.forward = _compiled_code(self.code, self.inference.globals, "forward")
        training = _Program(graph_module, example_inputs, True, {})
        self.training_inputs = training.tensors
        self.train = any(training.requires[node] for node in training.inputs)
        self.backward_code = ""
        if self.train:
            forward_code = training.forward_source()
            self.backward_code = training.backward_source()
            self.code_training = forward_code
            self.function = _compiled_function(_compiled_code(forward_code, training.globals, "forward"),
                                               _compiled_code(self.backward_code, training.globals, "backward"))
        self.attributes = self.inference.tensors[len(example_inputs):]

    def __call__(self, *inputs):
        tensors = list(inputs) + self.attributes
        if self.train and _GradState.enabled:
            outputs = self.function.apply(*tensors)
            return outputs if type(outputs) is tuple else (outputs,)
        return tuple([wrap(array) for array in self.forward(*[t._data for t in tensors])])


def _compiled_function(forward, backward) -> type:
    """One op for the whole graph (PyTorch's ``CompiledFunction``): its forward is the generated forward on
    arrays, its backward the generated backward, so the engine runs one node for the whole graph."""

    class CompiledFunction(Op):
        node_name = "CompiledFunctionBackward"  # PyTorch's grad_fn name for a compiled graph

        @staticmethod
        def forward(ctx, *arrays):
            outputs, ctx.saved_values = forward(*arrays)
            return outputs[0] if len(outputs) == 1 else outputs

        @staticmethod
        @once_differentiable
        def backward(ctx, *grads):
            results = backward(ctx.saved_values, *[None if grad is None else grad._data for grad in grads])
            return tuple([None if grad is None else wrap(grad) for grad in results])

    return CompiledFunction


def runs_on_arrays(graph_module: GraphModule, example_inputs: list) -> bool:
    """Whether every op of the graph is a built-in ``Op`` (forward on arrays) and every tensor is on the CPU."""
    tensors = list(example_inputs) + [attribute(graph_module, node.target)
                                      for node in graph_module.graph.nodes if node.op == "get_attr"]
    if any(tensor._device is not CPU for tensor in tensors):
        return False
    return all(not isinstance(node.target, OpCall) or issubclass(node.target.op, Op)
               for node in graph_module.graph.nodes if node.op == "call_function")


def aot_autograd(graph_module: GraphModule, example_inputs: list):
    """The graph compiled into a generated forward and backward (or run as captured, if it cannot be)."""
    if not runs_on_arrays(graph_module, example_inputs):
        return graph_module.forward
    return CompiledGraph(graph_module, example_inputs)
