"""Pointwise fusion: a chain of elementwise ops becomes one generated function.

``(x * 2 + y).relu()`` in eager mode is three ops: three trips through ``Function.apply``,
three new arrays, three nodes for the backward. Each op reads only the element at the same
position of its inputs, so the chain can run as one function that the compiler writes:

    def kernel(in_0, in_1):                      # fused_mul_add_relu
        np.multiply(in_0, 2.0, out=buffer_0)
        np.add(buffer_0, in_1, out=buffer_1)
        out = np.empty((8, 32), dtype=float32)
        np.maximum(buffer_1, 0, out=out)
        return out

The intermediate results go into buffers allocated once, when the kernel is compiled (the
sizes are fixed by the guards); only the result, which leaves the kernel, is a new array.
The kernel is plain generated NumPy (a package such as ``numexpr`` could evaluate
the whole expression in one pass; minitorch keeps to NumPy so the code stays readable). When
training, the kernel keeps every intermediate for its backward, which is generated too, from the
derivative of each op (``lowering.py``), in reverse order, with the gradient of each input
summed back to its shape where it was broadcast.

Grouping rule: a pointwise node joins the group of a pointwise node it reads when that node
has no other user (its value then never needs to exist outside the kernel). Every group ends
in one node, whose users read the kernel's result. When that node's only user sums or averages
it (``(a * b + c).sum(-1)``, a mean of squares), the reduction joins as the kernel's last step
(``attach_reductions``): the elementwise result is then a buffer inside the kernel, and the
backward copies the gradient back over the reduced dimensions (``spread``) before the chain's
derivatives run.
"""

from __future__ import annotations

import itertools

import numpy as np

from .._dtype import is_floating
from .._dynamo.capture import OpCall
from .._functorch.aot_autograd import fit
from ..fx import GraphModule, Node
from ..ops.reduction import Sum, SumDim
from .lowering import LOWERINGS, REDUCTIONS, spread, spread_mean

# Every template a kernel is written from: the pointwise ops', and the reductions' a kernel may end with.
TEMPLATES = {**LOWERINGS, **REDUCTIONS}

_kernel_numbers = itertools.count()


def _fusible(node: Node) -> bool:
    """A lowered pointwise op on floating tensors (numbers as settings), with one floating result."""
    if node.op != "call_function" or not isinstance(node.target, OpCall) or node.target.op not in LOWERINGS:
        return False
    value = node.meta.get("val")
    if node.kwargs or len(value) != 2 or not isinstance(value[1], np.dtype) or not is_floating(value[1]):
        return False
    if len(node.args) != len(LOWERINGS[node.target.op].derivatives):
        return False
    for argument in node.args:
        if isinstance(argument, Node):
            meta = argument.meta.get("val")
            if argument.op == "call_function" and argument.target.__name__ == "array_of" or meta is None or \
                    len(meta) != 2 or not isinstance(meta[1], np.dtype) or not is_floating(meta[1]):
                return False
        elif type(argument) not in (int, float, bool):
            return False
    return True


def find_groups(graph_module: GraphModule) -> list[list[Node]]:
    """The groups of pointwise nodes to fuse, each in graph order."""
    group_of: dict[Node, list[Node]] = {}
    for node in graph_module.graph.nodes:
        if not _fusible(node):
            continue
        group = [node]
        for argument in node.all_input_nodes:
            if argument in group_of and len(argument.users) == 1 and group_of[argument] is not group and \
                    argument.target.grad_enabled == node.target.grad_enabled:  # one grad mode per kernel
                producer_group = group_of[argument]
                group = producer_group + [n for n in group if n not in producer_group]
                for member in group:
                    group_of[member] = group
        group_of[node] = group
    order = {node: index for index, node in enumerate(graph_module.graph.nodes)}
    unique = {id(group): group for group in group_of.values()}.values()
    return attach_reductions([sorted(group, key=order.__getitem__) for group in unique])


def _reduces(node: Node, source: Node) -> bool:
    """``node`` sums or averages ``source`` (a float result, kept in its dtype), in the same grad mode."""
    if node.op != "call_function" or not isinstance(node.target, OpCall) or node.target.op not in REDUCTIONS:
        return False
    value = node.meta.get("val")
    if node.kwargs or node.args[0] is not source or len(value) != 2 or not isinstance(value[1], np.dtype) or \
            value[1] != source.meta["val"][1] or node.target.grad_enabled != source.target.grad_enabled:
        return False
    dims = node.args[1]
    if type(dims) is not tuple or any(type(dim) is not int for dim in dims) or len(node.args) != \
            len(REDUCTIONS[node.target.op].derivatives):
        return False
    if node.target.op in (Sum, SumDim) and node.args[3] is not None:  # a sum into another dtype
        return False
    shape = source.meta["val"][0]
    return all(shape[dim] > 0 for dim in dims)  # the mean of nothing is eager mode's NaN path


def attach_reductions(groups: list[list[Node]]) -> list[list[Node]]:
    """Reduction fusion: a group whose result only a sum or a mean reads takes that reduction as its last
    step (``(a * b + c).sum(-1)``), so the elementwise result is reduced inside the kernel and never leaves it."""
    for group in groups:
        last = group[-1]
        if len(last.users) == 1:
            (user,) = last.users
            if _reduces(user, last):
                group.append(user)
    return groups


class FusedKernel:
    """One generated function for a group of pointwise nodes: its forward (with preallocated buffers),
    its forward that keeps intermediates for training, and its backward, all NumPy source."""

    def __init__(self, group: list[Node]):
        self.inputs: list[Node] = []
        for node in group:
            for argument in node.args:
                if isinstance(argument, Node) and argument not in group and argument not in self.inputs:
                    self.inputs.append(argument)
        names = "_".join(node.target.op.__name__.lower() for node in group)
        self.__name__ = f"fused_{names}" if len(names) < 40 else f"fused_kernel_{next(_kernel_numbers)}"
        self.group = group
        # what each node of the group read: erasing the nodes (fuse_pointwise) clears their args, and a
        # reader (the GraphStepper unfolding the kernel) still wants to run them one by one
        self.group_args = [node.args for node in group]
        self.grad_enabled = group[-1].target.grad_enabled  # ops run under no_grad pass no gradient
        self.meta = group[-1].meta["val"]
        self.quiet = any(TEMPLATES[node.target.op].quiet for node in group)
        self.globals = {"np": np, "fit": fit, "spread": spread, "spread_mean": spread_mean}
        self.source = self._forward_source(into_buffers=True)
        self.saving_source = self._forward_source(into_buffers=False)
        self.backward_source = self._backward_source()
        namespace = dict(self.globals)
        for source in (self.source, self.saving_source, self.backward_source):
            exec(compile(source, f"<{self.__name__}>", "exec"), namespace)
        self._run, self.forward_saving, self.backward = namespace["kernel"], namespace["forward_saving"], \
            namespace["backward"]

    def __call__(self, *arrays):
        return self._run(*arrays)

    def __repr__(self) -> str:
        return self.__name__

    # -- names in the generated code ------------------------------------------------------------------------
    def _operand(self, argument, step_names: dict) -> str:
        if isinstance(argument, Node):
            return step_names.get(argument) or f"in_{self.inputs.index(argument)}"
        return repr(argument)

    def _dtype_name(self, dtype) -> str:
        self.globals[str(dtype)] = dtype  # float32, float64: NumPy's dtype objects under their names
        return str(dtype)

    def _header(self, name: str) -> list[str]:
        inputs = ", ".join(f"in_{index}" for index in range(len(self.inputs)))
        return [f"def {name}({inputs}):"] + (["    with np.errstate(all='ignore'):"] if self.quiet else [])

    def _forward_source(self, into_buffers: bool) -> str:
        lines = self._header("kernel" if into_buffers else "forward_saving")
        indent = "        " if self.quiet else "    "
        step_names: dict[Node, str] = {}
        for number, node in enumerate(self.group):
            lowering = TEMPLATES[node.target.op]
            operands = [self._operand(argument, step_names) for argument in node.args]
            last = number == len(self.group) - 1
            shape, dtype = node.meta["val"]
            name = "out" if last else f"step_{number}"
            if into_buffers and not last:
                name = f"buffer_{number}"
                self.globals[name] = np.empty(shape, dtype)  # allocated once: reused by every call
            if into_buffers:
                if last:
                    lines.append(f"{indent}out = np.empty({tuple(shape)}, dtype={self._dtype_name(dtype)})")
                lines.append(indent + lowering.forward.format(*operands, into=f", out={name}"))
            else:
                lines.append(f"{indent}{name} = " + lowering.forward.format(*operands, into=""))
            step_names[node] = name
        if into_buffers:
            lines.append(f"{indent}return out")
        else:
            kept = ", ".join([f"in_{i}" for i in range(len(self.inputs))] + list(step_names.values()))
            lines.append(f"{indent}return out, ({kept},)")
        return "\n".join(lines) + "\n"

    def _backward_source(self) -> str:
        inputs = [f"in_{i}" for i in range(len(self.inputs))]
        steps = ["out" if i == len(self.group) - 1 else f"step_{i}" for i in range(len(self.group))]
        lines = ["def backward(saved, grad):", f"    {', '.join(inputs + steps)}, = saved"]
        step_names = dict(zip(self.group, steps))
        grads = {self.group[-1]: "grad"}
        input_grads = ["None"] * len(self.inputs)
        for number in reversed(range(len(self.group))):
            node = self.group[number]
            if node not in grads:
                continue
            lowering = TEMPLATES[node.target.op]
            operands = [self._operand(argument, step_names) for argument in node.args]
            for position, argument in enumerate(node.args):
                derivative = lowering.derivatives[position]
                if not isinstance(argument, Node) or derivative is None:
                    continue
                contribution = derivative.format(*operands, g=grads[node], out=step_names[node])
                shape, dtype = argument.meta["val"]
                fitted = f"fit({contribution}, {tuple(shape)}, {self._dtype_name(dtype)})"
                if argument in step_names:  # an earlier step of this kernel
                    target = f"grad_{step_names[argument]}"
                    previous = grads.get(argument)
                    lines.append(f"    {target} = {fitted}" + (f" + {previous}" if previous else ""))
                    grads[argument] = target
                else:
                    index = self.inputs.index(argument)
                    previous = input_grads[index]
                    lines.append(f"    grad_in_{index} = {fitted}" + (f" + {previous}" if previous != "None" else ""))
                    input_grads[index] = f"grad_in_{index}"
        lines.append(f"    return ({', '.join(input_grads)},)")
        return "\n".join(lines) + "\n"

    @property
    def code(self) -> str:
        """The three generated functions, for a reader."""
        return "\n".join([self.source, self.saving_source, self.backward_source])


def fuse_pointwise(graph_module: GraphModule) -> list[FusedKernel]:
    """Replace each group of pointwise nodes by one node calling its ``FusedKernel``; returns the kernels."""
    graph = graph_module.graph
    kernels = []
    for group in find_groups(graph_module):
        kernel = FusedKernel(group)
        replace_group(graph, group, kernel)
        kernels.append(kernel)
    graph_module.recompile()
    return kernels


def replace_group(graph, group: list, kernel) -> None:
    """Put one node calling ``kernel`` where ``group``'s last node was, and erase the group's nodes."""
    last = group[-1]
    with graph.inserting_before(last):
        fused = graph.call_function(kernel, tuple(kernel.inputs))
    fused.meta["val"] = last.meta["val"]
    fused.meta["requires_grad"] = last.meta.get("requires_grad", True)
    last.replace_all_uses_with(fused)
    for node in reversed(group):
        graph.erase_node(node)
