"""``minitorch.compile`` over the op table: the compiled function gives eager's outputs and gradients.

For every op of ``tests/ops``' table (every sample, float64) the op's function is compiled
with the ``aot_eager`` and the default (``inductor``) backend, and called twice: the first call
captures (and runs eagerly); the second runs the compiled program, whose outputs and gradients
(``autograd.grad`` with fixed random output gradients) must equal eager minitorch's to 1e-10.
An op the capture cannot hold must say why (a graph break with one of the stated reasons) and
then still give eager's answer.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch
from tests.ops.op_table import all_ops

OPS = all_ops()

# The reasons a capture may give for a graph break (capture.py): every break must be one of these.
STATED_REASONS = re.compile(
    r"^('\w+' read a tensor made outside the recorded ops by '[\w<>]+'|'\w+' received a NumPy array computed "
    r"outside the recorded ops|'\w+' read a tensor that was written in place through a view or slice|Unsupported "
    r"Tensor.item\(\) call|generic_jump TensorVariable\(\)|an in-place write to an input)")


CASES = [(op, index) for op in OPS for index in range(len(op.samples))]


def _inputs(op, index):
    rng = np.random.default_rng(index)
    tensors = []
    for arg in op.samples[index]:
        array = arg.make(rng)
        tensor = minitorch.from_numpy(array.copy())
        if arg.kind == "float" and arg.grad:
            tensor.requires_grad_(True)
        tensors.append(tensor)
    return tensors


def _outputs(value):
    values = value if isinstance(value, (tuple, list)) else (value,)
    return [item for item in values if isinstance(item, minitorch.Tensor)]


def _run(function, tensors):
    """Outputs and gradients of ``function`` on ``tensors`` (grad outputs fixed by a seed)."""
    outputs = _outputs(function(*tensors))
    differentiable = [output for output in outputs if output.requires_grad]
    wanted = [tensor for tensor in tensors if tensor.requires_grad]
    grads = []
    if differentiable and wanted:
        rng = np.random.default_rng(1)
        grad_outputs = [minitorch.from_numpy(rng.standard_normal(tuple(o.shape)).astype(o.detach().numpy().dtype))
                        for o in differentiable]
        grads = minitorch.autograd.grad(differentiable, wanted, grad_outputs, allow_unused=True)
    return [o.detach().numpy() for o in outputs], [None if g is None else g.numpy() for g in grads]


def _same(ours, expected, what):
    assert len(ours) == len(expected), what
    for mine, theirs in zip(ours, expected):
        if mine is None or theirs is None:
            assert mine is None and theirs is None or not np.any(mine if theirs is None else theirs), what
            continue
        assert mine.shape == theirs.shape and mine.dtype == theirs.dtype, what
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compiled_ops_give_eager_outputs_and_gradients(backend):
    breaks, failures = {}, []
    for op, index in CASES:
        def function(*tensors, op=op):
            return op.fn(minitorch, *tensors)

        compiled = minitorch.compile(function, backend=backend)
        expected = _run(function, _inputs(op, index))
        _run(compiled, _inputs(op, index))  # captures
        try:
            outputs, grads = _run(compiled, _inputs(op, index))  # runs the compiled program
            _same(outputs, expected[0], f"{op.name} forward ({backend})")
            _same(grads, expected[1], f"{op.name} backward ({backend})")
        except Exception as error:  # noqa: BLE001 - every op's failure is listed, not only the first
            first_line = str(error).splitlines()[0] if str(error) else ""
            failures.append(f"{op.name}-{index}: {type(error).__name__}: {first_line}")
        graph_breaks = compiled._compiled.graph_breaks
        if graph_breaks:
            breaks[f"{op.name}-{index}"] = str(graph_breaks[0]).split(" (at")[0]
    assert not failures, "\n".join(failures)
    unexplained = {name: reason for name, reason in breaks.items() if not STATED_REASONS.match(reason)}
    assert not unexplained
    assert len(breaks) < len(CASES) // 5, sorted(breaks)  # most of the table is captured
    if backend == "inductor":  # the ops recorded whole (argmax, comparisons) are captured, not broken
        assert not {"argmax_dim-0", "all_dim-0", "nonzero-0", "isnan-0", "eq-0"} & set(breaks)
