"""Pointwise fusion on a GPU: a chain of elementwise ops becomes one CuPy ``ElementwiseKernel``.

On the CPU a fused chain is generated NumPy (``fusion.py``): one NumPy call per op, the
intermediates in buffers. On a GPU every NumPy-style call is a kernel launch that reads its
inputs from GPU memory and writes its result back, so ``(x * 2 + y).relu()`` costs three
launches and two intermediate arrays. CuPy's ``ElementwiseKernel(in_params, out_params,
operation, name)`` compiles a CUDA C body that one GPU thread runs per element, so the whole
chain is one launch, and the intermediates live in registers:

    ElementwiseKernel("float32 in_0, float32 in_1", "float32 out", '''
        const float step_0 = in_0 * 2.0f;
        const float step_1 = step_0 + in_1;
        out = step_1 < 0.0f ? 0.0f : step_1
    ''', "fused_mul_add_relu")

The C is written from the templates below, each step declared with the C type of its dtype
(``float`` for float32, ``double`` for float64) and every number written in that type
(``2.0f``), so each step is rounded as eager mode rounds it. The backward is a second kernel:
it computes the chain again from the inputs (cheaper on a GPU than keeping every intermediate
in memory, which is what Inductor does too) and then each input's gradient, the chain rule
applied step by step in reverse; the engine sums a gradient back over broadcast dimensions as
for any op. A sum or mean the chain ends with (``fusion.attach_reductions``) runs as CuPy's
reduction on the kernel's result; its backward hands the kernel the gradient with the reduced
dimensions kept (size 1), which the kernel broadcasts over them.

Kernels are built once per C source (which names the dtypes) and kept in ``KERNEL_CACHE``, as
CuPy keeps each compiled kernel. The fused chain runs as one ``Op`` whose forward and backward
call these kernels on the tensors' CuPy arrays: nothing is copied to the host.
"""

from __future__ import annotations

import math

import numpy as np

from ..autograd.function import Op
from ..autograd.grad_mode import no_grad
from ..fx import GraphModule, Node
from ..ops._util import array_module
from ..ops.pointwise.activations import Relu, Sigmoid
from ..ops.pointwise.arithmetic import Add, Div, Mul, Neg, Sub
from ..ops.pointwise.exponential import Exp, Log
from ..ops.pointwise.powers import PowScalar, Sqrt
from ..ops.pointwise.trigonometric import Tanh
from ..ops.reduction import Mean, MeanDim
from .fusion import REDUCTIONS, find_groups, replace_group

# One C expression per op and one per argument for its derivative (None: a setting, no gradient).
# ``{0}``, ``{1}``: the arguments; ``{out}``: the step's result; ``{g}``: the gradient arriving at it;
# ``{c0}``, ``{c1}``, ``{c2}``: 0, 1, 2 in the step's C type. The forward is the op's own ``forward``.
C_TEMPLATES = {
    Add: ("{0} + {1}", ("{g}", "{g}")),
    Sub: ("{0} - {1}", ("{g}", "-{g}")),
    Mul: ("{0} * {1}", ("{g} * {1}", "{g} * {0}")),
    Div: ("{0} / {1}", ("{g} / {1}", "-{g} * {0} / ({1} * {1})")),
    Neg: ("-{0}", ("-{g}",)),
    Exp: ("exp({0})", ("{g} * {out}",)),
    Log: ("log({0})", ("{g} / {0}",)),
    Tanh: ("tanh({0})", ("{g} * ({c1} - {out} * {out})",)),
    Sigmoid: ("{c1} / ({c1} + exp(-{0}))", ("{g} * ({c1} - {out}) * {out}",)),
    Relu: ("{0} < {c0} ? {c0} : {0}", ("{out} > {c0} ? {g} : {c0}",)),  # NaN < 0 is false: NaN stays, as max
    Sqrt: ("sqrt({0})", ("{g} / ({c2} * {out})",)),
    PowScalar: ("pow({0}, {1})", ("{g} * ({1} * pow({0}, {1} - {c1}))", None)),
}
C_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
KERNEL_CACHE: dict[tuple, object] = {}


def c_number(value, dtype) -> str:
    """A Python number as a C literal of ``dtype``'s type: ``2.0f`` for float32, ``2.0`` for float64."""
    text = repr(float(value))
    text = text + "f" if np.dtype(dtype) == np.float32 else text
    return f"({text})" if text.startswith("-") else text


def _dtype_of(node: Node):
    return np.dtype(node.meta["val"][1])


def cuda_fusible(group: list[Node]) -> bool:
    """A group the C templates cover: float32/float64 throughout, finite numbers (C has no ``inf`` literal)."""
    for node in group:
        if node.target.op not in C_TEMPLATES and node.target.op not in REDUCTIONS:
            return False
        if _dtype_of(node) not in C_TYPES:
            return False
        if node.target.op in REDUCTIONS:
            continue
        for argument in node.args:
            if isinstance(argument, Node):
                if _dtype_of(argument) not in C_TYPES:
                    return False
            elif not math.isfinite(argument):
                return False
    return True


def elementwise_kernel(cupy, in_params: str, out_params: str, operation: str, name: str):
    """CuPy's ``ElementwiseKernel``, built once per source (its params name the dtypes)."""
    key = (cupy, in_params, out_params, operation, name)
    if key not in KERNEL_CACHE:
        KERNEL_CACHE[key] = cupy.ElementwiseKernel(in_params, out_params, operation, name)
    return KERNEL_CACHE[key]


class CudaFusedKernel:
    """The C sources of one fused group (forward and backward), and the ``Op`` that runs them."""

    def __init__(self, group: list[Node], name: str):
        self.inputs: list[Node] = []
        for node in group:
            for argument in node.args:
                if isinstance(argument, Node) and argument not in group and argument not in self.inputs:
                    self.inputs.append(argument)
        self.__name__ = name
        reduction = group[-1] if group[-1].target.op in REDUCTIONS else None
        self.chain = group[:-1] if reduction is not None else group
        self.reduction = None
        if reduction is not None:
            dims, keepdim = reduction.args[1], reduction.args[2]
            shape = self.chain[-1].meta["val"][0]
            dims = tuple(sorted(dim % len(shape) for dim in dims)) if dims else tuple(range(len(shape)))
            kept = tuple(1 if axis in dims else size for axis, size in enumerate(shape))
            self.reduction = (reduction.target.op in (Mean, MeanDim), dims, bool(keepdim), kept,
                              math.prod(shape[axis] for axis in dims))
        self.grad_enabled = group[-1].target.grad_enabled
        self.input_params = ", ".join(f"{_dtype_of(node).name} in_{k}" for k, node in enumerate(self.inputs))
        self.out_dtype = _dtype_of(self.chain[-1])
        self.source = self._forward_source()
        self.backward_source = self._backward_source()
        self.op = type(self._op_name(), (Op,), {"forward": staticmethod(self._forward),
                                                "backward": staticmethod(self._backward),
                                                "__module__": __name__})

    def _op_name(self) -> str:
        return "".join(part.capitalize() for part in self.__name__.split("_"))

    def __call__(self, *tensors):

        if self.grad_enabled:
            return self.op.apply(*tensors)
        with no_grad():
            return self.op.apply(*tensors)

    def __repr__(self) -> str:
        return self.__name__

    @property
    def code(self) -> str:
        """The two CUDA C bodies, with their parameters, for a reader."""
        forward_params, backward_params = self._params()
        return (f"// {self.__name__}: ({self.input_params}) -> ({forward_params})\n{self.source}\n\n"
                f"// {self.__name__}_backward: ({self.input_params}, {self.out_dtype.name} grad) -> "
                f"({backward_params})\n{self.backward_source}\n")

    # -- the C sources --------------------------------------------------------------------------------------------
    def _operand(self, argument, names: dict, dtype) -> str:
        if isinstance(argument, Node):
            return names.get(argument) or f"in_{self.inputs.index(argument)}"
        return c_number(argument, dtype)

    def _constants(self, dtype) -> dict:
        return {f"c{k}": c_number(k, dtype) for k in range(3)}

    def _steps(self) -> tuple[list[str], dict]:
        """One C declaration per op of the chain: ``const float step_k = ...``."""
        lines, names = [], {}
        for number, node in enumerate(self.chain):
            dtype = _dtype_of(node)
            operands = [self._operand(argument, names, dtype) for argument in node.args]
            expression = C_TEMPLATES[node.target.op][0].format(*operands, **self._constants(dtype))
            names[node] = f"step_{number}"
            lines.append(f"const {C_TYPES[dtype]} step_{number} = {expression}")
        return lines, names

    def _forward_source(self) -> str:
        lines, names = self._steps()
        return ";\n".join(lines + [f"out = {names[self.chain[-1]]}"])

    def _backward_source(self) -> str:
        """The chain again, then each step's gradient from its users', last step first."""
        lines, names = self._steps()
        last = self.chain[-1]
        gradient = "grad"
        if self.reduction is not None and self.reduction[0]:  # a mean: the gradient shared by the elements averaged
            gradient = f"grad / {c_number(self.reduction[4], self.out_dtype)}"
        lines.append(f"{C_TYPES[self.out_dtype]} grad_{names[last]} = {gradient}")
        grads = {last: f"grad_{names[last]}"}
        input_grads: dict[int, str] = {}
        for node in reversed(self.chain):
            dtype = _dtype_of(node)
            operands = [self._operand(argument, names, dtype) for argument in node.args]
            for argument, derivative in zip(node.args, C_TEMPLATES[node.target.op][1]):
                if not isinstance(argument, Node) or derivative is None:
                    continue
                contribution = derivative.format(*operands, g=grads[node], out=names[node], **self._constants(dtype))
                if argument in names:
                    target, seen = f"grad_{names[argument]}", argument in grads
                    grads[argument] = target
                else:
                    index = self.inputs.index(argument)
                    target, seen = f"grad_in_{index}", index in input_grads
                    input_grads[index] = target
                if seen:
                    lines.append(f"{target} += {contribution}")
                else:
                    lines.append(f"{C_TYPES[_dtype_of(argument)]} {target} = {contribution}")
        for index in range(len(self.inputs)):
            lines.append(f"out_{index} = " + input_grads.get(index, c_number(0, _dtype_of(self.inputs[index]))))
        return ";\n".join(lines)

    def _params(self) -> tuple[str, str]:
        backward = ", ".join(f"{_dtype_of(node).name} out_{k}" for k, node in enumerate(self.inputs))
        return f"{self.out_dtype.name} out", backward

    # -- running it -------------------------------------------------------------------------------------------------
    def _forward(self, ctx, *arrays):

        cupy = array_module(arrays[0])
        ctx.save_for_backward(*arrays)
        kernel = elementwise_kernel(cupy, self.input_params, self._params()[0], self.source, self.__name__)
        result = kernel(*arrays)
        if self.reduction is None:
            return result
        is_mean, dims, keepdim, _, _ = self.reduction
        return (cupy.mean if is_mean else cupy.sum)(result, axis=dims, keepdims=keepdim)

    def _backward(self, ctx, grad):

        tensors = ctx.saved_tensors
        arrays = [tensor._data for tensor in tensors]
        cupy = array_module(arrays[0])
        grad_array = grad._data
        if self.reduction is not None:  # the reduced dimensions back, as size 1: the kernel broadcasts over them
            grad_array = grad_array.reshape(self.reduction[3])
        kernel = elementwise_kernel(cupy, f"{self.input_params}, {self.out_dtype.name} grad", self._params()[1],
                                    self.backward_source, f"{self.__name__}_backward")
        results = kernel(*arrays, grad_array)
        results = results if isinstance(results, tuple) else (results,)
        return tuple(type(grad)._make(result, grad._device) for result in results)


def fuse_pointwise_cuda(graph_module: GraphModule) -> list[CudaFusedKernel]:
    """Replace each group of pointwise nodes (``fusion.find_groups``) the C templates cover by one node calling
    its ``CudaFusedKernel``; returns the kernels."""
    graph = graph_module.graph
    kernels = []
    for group in find_groups(graph_module):
        if not cuda_fusible(group):
            continue
        names = "_".join(node.target.op.__name__.lower() for node in group)
        kernel = CudaFusedKernel(group, f"fused_{names}" if len(names) < 40 else f"fused_kernel_{len(kernels)}")
        replace_group(graph, group, kernel)
        kernels.append(kernel)
    graph_module.recompile()
    return kernels
