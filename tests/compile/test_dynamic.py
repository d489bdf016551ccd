"""``dynamic=True`` and PyTorch's automatic dynamic: graphs whose sizes are symbolic, so a new batch size does
not recompile, while dtype, ``requires_grad`` and training mode still do. Compile counts compared with
``torch.compile`` over the same calls; outputs and gradients with eager minitorch (float64).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch._dynamo.dynamic import sym_size
from minitorch._dynamo.testing import CompileCounter
from tests.support import require_torch

BACKENDS = ["eager", "aot_eager", "inductor"]


def reshapes_with_the_batch(x, w):
    h = (x @ w).relu()
    return h.reshape(x.shape[0] * 2, -1).sum(0)


def causal_attention(x):
    """Slices a fixed mask to the sequence length and flattens batch and sequence (B * T)."""
    batch, length, channels = x.shape
    mask = minitorch.ones(16, 16).tril()
    scores = (x @ x.transpose(1, 2))[:, :length, :length]
    scores = scores.masked_fill(mask[:length, :length] == 0, -1e9).softmax(-1)
    return (scores @ x).reshape(batch * length, channels)


def _torch_counts(torch, function, dynamic, calls):
    testing = importlib.import_module("torch._dynamo.testing")
    torch._dynamo.reset()
    counter = testing.CompileCounter()
    compiled = torch.compile(function, backend=counter, dynamic=dynamic)
    counts = []
    for arguments in calls(torch):
        compiled(*arguments)
        counts.append(counter.frame_count)
    return counts


def _calls(lib):
    rng = np.random.default_rng(0)
    weight = lib.tensor(rng.standard_normal((4, 6)))
    calls = [(lib.tensor(rng.standard_normal((batch, 4))), weight) for batch in (3, 5, 7, 1, 9)]
    calls.append((lib.tensor(rng.standard_normal((9, 4)), dtype=lib.float32), weight.float()))  # a new dtype
    x = lib.tensor(rng.standard_normal((9, 4)))
    x.requires_grad_(True)
    calls.append((x, weight))  # requires_grad
    calls.append((lib.tensor(rng.standard_normal((11, 4))), weight))
    return calls


@pytest.mark.parametrize("dynamic", [None, True, False])
def test_compile_counts_follow_torch(dynamic):
    torch = require_torch()
    counter = CompileCounter()
    compiled = minitorch.compile(reshapes_with_the_batch, backend=counter, dynamic=dynamic)
    counts = []
    for arguments in _calls(minitorch):
        np.testing.assert_allclose(compiled(*arguments).detach().numpy(),
                                   reshapes_with_the_batch(*arguments).detach().numpy(), rtol=1e-6)
        counts.append(counter.frame_count)
    assert counts == _torch_counts(torch, reshapes_with_the_batch, dynamic, _calls)


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_graph_serves_every_batch_size_with_eager_gradients(backend):
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3)).double()
    compiled = minitorch.compile(model, backend=backend, dynamic=True)
    rng = np.random.default_rng(1)
    for batch in (4, 9, 2, 17, 9):
        x = minitorch.from_numpy(rng.standard_normal((batch, 5)))
        weights = minitorch.from_numpy(rng.standard_normal((batch, 3)))
        results = []
        for function in (compiled, model):
            model.zero_grad()
            output = function(x)
            (output * weights).sum().backward()
            results.append([output.detach().numpy()] + [p.grad.numpy().copy() for p in model.parameters()])
        for got, expected in zip(*results):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert compiled._compiled.compile_count == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_sizes_computed_from_shapes_become_graph_nodes(backend):
    compiled = minitorch.compile(causal_attention, backend=backend, dynamic=True)
    rng = np.random.default_rng(2)
    for batch, length in [(2, 3), (3, 5), (5, 7), (2, 11)]:
        x = minitorch.from_numpy(rng.standard_normal((batch, length, 6))).requires_grad_(True)
        reference = x.detach().requires_grad_(True)
        output, expected = compiled(x), causal_attention(reference)
        np.testing.assert_allclose(output.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
        output.sum().backward()
        expected.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert compiled._compiled.compile_count == 1
    graph = compiled._compiled.graphs[0].graph
    assert sum(node.target is sym_size for node in graph.nodes) == 3  # batch, length and channels read
    assert "sym_size * sym_size_1" in compiled._compiled.graphs[0].code  # B * T, computed in the graph


def test_guards_still_recompile_on_dtype_requires_grad_and_training():
    counter = CompileCounter()
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.0))
    compiled = minitorch.compile(model, backend=counter, dynamic=True)
    compiled(minitorch.randn(4, 3))
    compiled(minitorch.randn(6, 3))
    assert counter.frame_count == 1
    compiled(minitorch.randn(6, 3, requires_grad=True))
    assert counter.frame_count == 2
    model.eval()
    compiled(minitorch.randn(8, 3))
    assert counter.frame_count == 3
    compiled.double()
    compiled(minitorch.randn(5, 3, dtype=minitorch.float64))
    assert counter.frame_count == 4
    compiled(minitorch.randn(1, 3, dtype=minitorch.float64))  # a size of 1 is never symbolic (as in PyTorch)
    assert counter.frame_count == 5


def test_a_size_that_follows_no_rule_or_makes_a_constant_keeps_the_graph_static():
    def rounds_down(x):
        return x[: x.shape[0] // 2 * 2] * 2

    def makes_from_a_size(x):
        return x + minitorch.arange(x.shape[0], dtype=x.dtype)

    for function in (rounds_down, makes_from_a_size):
        counter = CompileCounter()
        compiled = minitorch.compile(function, backend=counter, dynamic=True)
        for size in (8, 9, 10, 7):
            x = minitorch.randn(size)
            np.testing.assert_array_equal(compiled(x).numpy(), function(x).numpy())
        assert counter.frame_count == 4, function.__name__  # one static graph per size: never a wrong one


def test_every_op_of_the_table_with_symbolic_sizes_gives_eager_answers_at_an_unseen_size():
    """Each op-table sample compiled with ``dynamic=True``, then called with every symbolic size grown by 3 (a size
    no recording saw): eager's outputs and gradients there, from the one graph where it holds (``split`` into pieces
    of 3 makes one more piece at that size: that size then runs eagerly), never a new graph."""
    from minitorch._dynamo import dynamic
    from tests.compile.test_op_table import CASES, _inputs, _run, _same

    failures, symbolic = [], 0
    for op, index in CASES:
        def function(*tensors, op=op):
            return op.fn(minitorch, *tensors)

        compiled = minitorch.compile(function, dynamic=True)
        tensors = _inputs(op, index)
        _run(compiled, tensors)  # captures, records the grown sizes, compiles
        state = compiled._compiled
        if not state.dynamic_dims or state.compile_count != 1:
            continue
        symbols = dynamic.symbols_of(tensors, state.dynamic_dims)
        grown = dynamic.grown_inputs(tensors, symbols, dict.fromkeys(symbols, 3))
        noise = np.random.default_rng(index)  # repeated slices make rank-deficient matrices: perturb float values
        grown = [minitorch.from_numpy(np.asarray(t.detach().numpy() + 1e-3 * noise.standard_normal(tuple(t.shape))))
                 .requires_grad_(t.requires_grad) if t.dtype == minitorch.float64 else t for t in grown]
        try:
            expected = _run(function, [t.detach().requires_grad_(t.requires_grad) for t in grown])
        except Exception:  # noqa: BLE001 - the op refuses this size in eager mode too: nothing to compare
            continue
        try:
            _run(compiled, grown)  # the first call at this size: recorded, and the graph checked against it
            outputs, grads = _run(compiled, grown)  # the graph, if it holds at this size; else eagerly
            _same(outputs, expected[0], f"{op.name}-{index} forward")
            _same(grads, expected[1], f"{op.name}-{index} backward")
            assert state.compile_count == 1, f"{op.name}-{index} compiled again"
            symbolic += all(entry.sizes_seen.get(entry.size_key(grown)) for entry in state.cache.values())
        except Exception as error:  # noqa: BLE001 - every op's failure is listed
            failures.append(f"{op.name}-{index}: {type(error).__name__}: {str(error).splitlines()[0][:200]}")
    assert not failures, "\n".join(failures)
    assert symbolic > len(CASES) // 2  # most of the table runs its one graph at the unseen size
