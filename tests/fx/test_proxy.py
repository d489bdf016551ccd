"""Proxies outside a trace (minitorch/fx/proxy.py, minitorch/overrides.py), against torch.fx: a
``GraphAppendingTracer``'s proxies record torch functions, nn.functional functions, Tensor methods, modules
and traced GraphModules called on them into their graph, with the arguments PyTorch records."""

from __future__ import annotations

import types

import pytest

import minitorch
from minitorch import overrides
from tests.corpus.compare import as_torch_names
from tests.support import require_torch


def _code(lib, build):
    graph = lib.fx.Graph()
    tracer = lib.fx.proxy.GraphAppendingTracer(graph)
    x, y = (lib.fx.Proxy(graph.placeholder(name), tracer) for name in ("x", "y"))
    graph.output(build(lib, x, y).node)
    return lib.fx.GraphModule(lib.nn.Module(), graph).code


def _torch_functions(lib, x, y):
    a = lib.cat([x, y])
    b = lib.tanh(a)
    c = lib.add(b, lib.neg(b), alpha=2)
    return lib.stack([c, lib.max(c)])


def _functional(lib, x, y):
    F = lib.nn.functional
    a = F.relu(x)  # a Python function in PyTorch: its defaults are recorded by keyword
    b = F.leaky_relu(a, 0.2)
    c = F.softmax(b, 0)
    d = lib.matmul(c, y)
    return F.dropout(d, training=False)


def _methods_and_modules(lib, x, y):
    relu = lib.nn.ReLU()
    return relu(x.float().sigmoid() * y).sum(0)


@pytest.mark.parametrize("build", [_torch_functions, _functional, _methods_and_modules])
def test_calls_on_proxies_outside_a_trace_record_what_torch_fx_records(build):
    torch = require_torch()
    assert as_torch_names(_code(minitorch, build)) == _code(torch, build)


def test_a_traced_module_called_on_a_proxy_is_inlined_and_the_result_runs():
    torch = require_torch()

    def wrapped(lib):
        traced = lib.fx.symbolic_trace(lambda x, y: lib.cat([x, y]))
        output = traced.graph.output_node()
        with traced.graph.inserting_after(output.all_input_nodes[0]):
            result = lib.fx.symbolic_trace(lib.nn.LeakyReLU(0.1))(lib.fx.Proxy(output.all_input_nodes[0]))
        output.args = (result.node,)
        traced.recompile()
        return traced

    ours, theirs = wrapped(minitorch), wrapped(torch)
    assert as_torch_names(ours.code) == theirs.code
    values = [[-1.0, 2.0], [3.0, -4.0]]
    assert ours(*map(minitorch.tensor, values)).tolist() == pytest.approx(
        theirs(*map(torch.tensor, values)).tolist())


def test_proxies_of_two_tracers_in_one_call_are_refused_as_in_pytorch():
    torch = require_torch()
    messages = []
    for lib in (minitorch, torch):
        graphs = [lib.fx.Graph(), lib.fx.Graph()]
        x, y = (lib.fx.Proxy(graph.placeholder("x")) for graph in graphs)
        with pytest.raises(RuntimeError, match="Found multiple different tracers") as error:
            lib.add(x, y)
        messages.append(str(error.value).split(" while ")[0])
    assert messages[0].startswith("Found multiple different tracers") and messages[1].startswith(messages[0][:30])


def test_the_functions_bound_from_cpp_in_pytorch_are_the_ones_listed():
    """nn.functional's functions that PyTorch binds from C++ record their arguments as written; the rest
    (Python functions calling handle_torch_function) by keyword. minitorch keeps the first list by name."""
    torch = require_torch()
    ours = {name for name, value in vars(minitorch.nn.functional).items()
            if not name.startswith("_") and callable(value) and not isinstance(value, type)}
    bound = {name for name in ours if callable(getattr(torch.nn.functional, name, None))
             and not isinstance(getattr(torch.nn.functional, name), (types.FunctionType, type))}
    assert bound == overrides._BOUND_FROM_CPP


def test_a_class_with_torch_function_receives_the_call_and_a_tensor_call_is_unchanged():
    seen = []

    class Stand:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append((func, types, args, kwargs))
            return "handled"

    stand = Stand()
    assert minitorch.neg(stand) == "handled" and seen[-1][0] is minitorch.neg and seen[-1][1] == (Stand,)
    assert minitorch.nn.functional.relu(stand) == "handled" and seen[-1][2:] == ((stand,), {"inplace": False})
    assert minitorch.cat([stand, stand]) == "handled" and seen[-1][0] is minitorch.cat
    assert minitorch.neg(minitorch.tensor([1.0])).tolist() == [-1.0]
    with pytest.raises(TypeError, match=r"neg\(\): argument 'input' \(position 1\) must be Tensor, not object"):
        minitorch.neg(object())


_FUNCTIONAL_CALLS = {
    "relu": lambda F, x, w: F.relu(x),
    "elu": lambda F, x, w: F.elu(x, 0.5),
    "hardtanh": lambda F, x, w: F.hardtanh(x),
    "softmax": lambda F, x, w: F.softmax(x, 1),
    "log_softmax": lambda F, x, w: F.log_softmax(x, dim=1),
    "dropout": lambda F, x, w: F.dropout(x, 0.2),
    "layer_norm": lambda F, x, w: F.layer_norm(x, (4,)),
    "normalize": lambda F, x, w: F.normalize(x),
    "mse_loss": lambda F, x, w: F.mse_loss(x, w),
    "kl_div": lambda F, x, w: F.kl_div(x, w),
    "binary_cross_entropy_with_logits": lambda F, x, w: F.binary_cross_entropy_with_logits(x, w),
    "pad": lambda F, x, w: F.pad(x, (1, 1)),
}


@pytest.mark.parametrize("name", sorted(_FUNCTIONAL_CALLS))
def test_nn_functional_records_its_defaults_by_keyword_in_a_trace_as_pytorch_does(name):
    torch = require_torch()
    call = _FUNCTIONAL_CALLS[name]
    code = lambda lib: lib.fx.symbolic_trace(lambda x, w: call(lib.nn.functional, x, w)).code  # noqa: E731
    assert as_torch_names(code(minitorch)) == code(torch)
