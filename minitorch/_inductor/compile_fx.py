"""The default backend of ``minitorch.compile``: graph passes, pointwise fusion, then AOTAutograd.

``compile_fx(graph_module, example_inputs)`` runs, in order:

1. ``passes.constant_fold``: ops on constants made inside the function computed once;
2. ``passes.eliminate_dead_code``: values nobody reads removed;
3. ``fusion.fuse_pointwise``: chains of elementwise ops replaced by generated NumPy kernels
   (on a GPU, ``cuda_fusion.fuse_pointwise_cuda``: CuPy ``ElementwiseKernel``s, and the graph then
   runs node by node on Tensors),
   and ``lowering.lower_to_arrays``: ``Linear`` and cross-entropy as ops written on arrays;
4. ``aot_autograd``'s ``CompiledGraph``: the whole graph as one generated forward (and backward).

``graph_module.code`` then shows the graph after the passes; the returned ``CompiledGraph``'s
``code`` the generated forward, each kernel's ``code`` its NumPy source.
"""

from __future__ import annotations

import functools

import numpy as np

from .._dynamo.capture import OpCall
from .._functorch.aot_autograd import CompiledGraph, attribute, runs_on_arrays
from ..autograd.function import Op
from .cuda_fusion import fuse_pointwise_cuda
from .fusion import fuse_pointwise
from .lowering import INFERENCE_LOWERINGS, lower_to_arrays
from .passes import constant_fold, eliminate_dead_code


def compile_fx(graph_module, example_inputs, *, constant_folding: bool = True, dead_code_elimination: bool = True,
               fuse_pointwise_ops: bool = True):
    """Optimize the captured graph and compile it (a graph that cannot run on arrays runs as captured)."""
    if not runs_on_arrays(graph_module, example_inputs):
        if fuse_pointwise_ops and on_cuda(graph_module, example_inputs):
            # on a GPU the graph runs node by node on Tensors, each fused chain one CuPy kernel
            graph_module.kernels = fuse_pointwise_cuda(graph_module)
        return graph_module.forward
    if constant_folding:
        constant_fold(graph_module)
    if dead_code_elimination:
        eliminate_dead_code(graph_module)
    kernels = fuse_pointwise(graph_module) if fuse_pointwise_ops else []
    lower_to_arrays(graph_module)
    compiled = CompiledGraph(graph_module, example_inputs, INFERENCE_LOWERINGS)
    compiled.kernels = kernels
    return compiled


def on_cuda(graph_module, example_inputs) -> bool:
    """Whether every tensor of the graph is a CuPy array on a CUDA device and every op a built-in ``Op`` (a device
    that keeps NumPy arrays, as the tests' fake "cuda" does, has no CuPy kernels: its graph is replayed as captured)."""
    tensors = list(example_inputs) + [attribute(graph_module, node.target)
                                      for node in graph_module.graph.nodes if node.op == "get_attr"]
    if not tensors or any(tensor._device.type != "cuda" or isinstance(tensor._data, (np.ndarray, np.generic))
                          for tensor in tensors):
        return False
    return all(not isinstance(node.target, OpCall) or issubclass(node.target.op, Op)
               for node in graph_module.graph.nodes if node.op == "call_function")


def compile_fx_with(constant_folding: bool = True, dead_code_elimination: bool = True, fuse_pointwise: bool = True):
    """``compile_fx`` with some passes switched off (``minitorch.compile(..., options={...})``)."""
    return functools.partial(compile_fx, constant_folding=constant_folding,
                             dead_code_elimination=dead_code_elimination, fuse_pointwise_ops=fuse_pointwise)
