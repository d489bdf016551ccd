"""``fx.wrap`` (a function kept as one call) and ``fx.passes.shape_prop.ShapeProp`` (shapes on the nodes),
against ``torch.fx`` on the same module."""

from __future__ import annotations

import numpy as np

import minitorch
from minitorch import fx
from minitorch.fx.passes.shape_prop import ShapeProp
from tests.support import require_torch


def normalize_rows(x):
    """Traced into, this would be several ops; wrapped, it is one call_function node."""
    return x / x.sum(dim=-1, keepdim=True)


fx.wrap("len")
fx.wrap(normalize_rows)


def test_wrapped_functions_are_recorded_as_one_call():
    def f(x):
        return normalize_rows(x) * len(x)

    traced = fx.symbolic_trace(f)
    calls = [(node.op, node.target) for node in traced.graph.nodes if node.op.startswith("call")]
    assert calls[0][1].__name__ == "normalize_rows" and calls[1] == ("call_function", len)
    x = minitorch.rand(3, 4) + 0.1
    np.testing.assert_allclose(traced(x).numpy(), f(x).numpy(), rtol=1e-6)
    assert normalize_rows.__name__ == "normalize_rows" and len([1, 2]) == 2  # put back after tracing


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Conv2d(1, 4, 3, padding=1), lib.nn.ReLU(), lib.nn.MaxPool2d(2), lib.nn.Flatten(),
                             lib.nn.Linear(64, 10))


def test_shape_prop_records_the_shapes_and_dtypes_torch_does():
    torch = require_torch()
    summaries = []
    for lib in (torch, minitorch):
        from importlib import import_module

        shape_prop = import_module(f"{lib.__name__}.fx.passes.shape_prop")
        traced = lib.fx.symbolic_trace(_model(lib))
        shape_prop.ShapeProp(traced).propagate(lib.zeros(2, 1, 8, 8))
        summaries.append([(node.name, tuple(node.meta["tensor_meta"].shape), str(node.meta["tensor_meta"].dtype)
                           .replace("minitorch.", "torch."), node.meta["tensor_meta"].requires_grad)
                          for node in traced.graph.nodes])
    assert summaries[0] == summaries[1]


def test_shape_prop_returns_the_result():
    traced = fx.symbolic_trace(_model(minitorch))
    x = minitorch.randn(2, 1, 8, 8)
    np.testing.assert_array_equal(ShapeProp(traced).propagate(x).detach().numpy(), traced(x).detach().numpy())
