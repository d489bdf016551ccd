"""``minitorch.compile``: eager's answers on the course's models, guards that recompile, graph breaks with
their reason, ``explain``, PyTorch's argument checks, and the inductor backend's passes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from benchmarks import _course_models as course_models
from minitorch import nn
from minitorch._dynamo.testing import CompileCounter, CompileCounterWithBackend
from tests.support import require_torch

BACKENDS = ["eager", "aot_eager", "inductor"]


def _outputs_and_grads(function, inputs, parameters):
    for parameter in parameters:
        parameter.grad = None
    output = function(*inputs)
    rng = np.random.default_rng(3)
    weights = minitorch.from_numpy(rng.standard_normal(tuple(output.shape)))
    (output * weights).sum().backward()
    grads = [parameter.grad.numpy().copy() for parameter in parameters]
    return output.detach().numpy(), grads


def _same_as_eager(model, inputs, backend, calls=3):
    parameters = [p for p in model.parameters()] + [t for t in inputs if t.requires_grad]
    expected = _outputs_and_grads(model, inputs, parameters)
    compiled = minitorch.compile(model, backend=backend)
    for _ in range(calls):  # the first call captures, the others run the compiled program
        output, grads = _outputs_and_grads(compiled, inputs, parameters)
        np.testing.assert_allclose(output, expected[0], rtol=1e-10, atol=1e-12)
        for grad, expected_grad in zip(grads, expected[1]):
            np.testing.assert_allclose(grad, expected_grad, rtol=1e-10, atol=1e-12)
    return compiled


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["mlp", "cnn", "lstm", "gru", "transformer"])
def test_course_models_give_eager_outputs_and_gradients(name, backend):
    minitorch.manual_seed(0)
    model = course_models.BUILDERS[name](minitorch).double()
    model.eval()  # the CNN's BatchNorm updates its running statistics in training mode (a graph break, below)
    example = course_models.example_input(name, 4)
    inputs = [minitorch.tensor(example.astype(np.float64) if example.dtype.kind == "f" else example)]
    compiled = _same_as_eager(model, inputs, backend)
    assert compiled.__dict__["_compiled"].graph_breaks == []
    assert compiled.__dict__["_compiled"].compile_count == 1


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.layer(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_transformer_encoder_layer_in_training_and_inference(backend):
    minitorch.manual_seed(0)
    model = EncoderLayer().double()
    x = minitorch.randn(2, 5, 16, dtype=minitorch.float64, requires_grad=True)
    _same_as_eager(model, [x], backend)
    model.eval()
    compiled = minitorch.compile(model, backend=backend)
    with minitorch.no_grad():
        expected = model(x)
        for _ in range(2):
            np.testing.assert_allclose(compiled(x).numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ops_under_no_grad_inside_the_function_pass_no_gradient(backend):
    def normalized(x):
        with minitorch.no_grad():
            scale = (x * 2).abs().amax()  # a constant to autograd, as in eager mode
        return (x * 3).tanh() / scale

    compiled = minitorch.compile(normalized, backend=backend)
    for _ in range(3):
        x = minitorch.randn(4, 3, dtype=minitorch.float64, requires_grad=True)
        (expected,) = minitorch.autograd.grad(normalized(x).sum(), [x])
        (grad,) = minitorch.autograd.grad(compiled(x).sum(), [x])
        np.testing.assert_allclose(grad.numpy(), expected.numpy(), rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_batchnorm_training_compiles_and_updates_running_statistics(backend):
    results = []
    for compiled in (False, True):
        minitorch.manual_seed(0)
        model = course_models.cnn(minitorch).double()
        optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1)
        step = minitorch.compile(model, backend=backend) if compiled else model
        rng = np.random.default_rng(0)
        losses = []
        for _ in range(4):
            images = minitorch.tensor(rng.standard_normal((8, 1, 8, 8)))
            labels = minitorch.tensor(rng.integers(0, 10, 8))
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(step(images), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        results.append((losses, model[1].running_mean.numpy().copy(), model[5].running_var.numpy().copy(),
                        model[1].num_batches_tracked.item()))
        if compiled:
            assert step.__dict__["_compiled"].graph_breaks == [] and step.__dict__["_compiled"].compile_count == 1
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-10)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-10)
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-10)
    assert results[1][3] == results[0][3] == 4


def test_training_the_compiled_mlp_follows_eager_training():
    losses = []
    for compiled in (False, True):
        minitorch.manual_seed(0)
        model = course_models.mlp(minitorch).double()
        optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        step = minitorch.compile(model) if compiled else model
        rng = np.random.default_rng(0)
        run = []
        for _ in range(5):
            images = minitorch.tensor(rng.standard_normal((8, 1, 8, 8)))
            labels = minitorch.tensor(rng.integers(0, 10, 8))
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(step(images), labels)
            loss.backward()
            optimizer.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-10)


# -- guards and recompilation ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dynamic, graphs", [(False, 3), (None, 2)])
def test_a_new_shape_recompiles_and_a_seen_one_does_not(dynamic, graphs):
    counter = CompileCounter()
    compiled = minitorch.compile(lambda x: (x * 2).relu().sum(dim=0), backend=counter, dynamic=dynamic)
    for rows in (3, 3, 5, 3, 5, 7):
        x = minitorch.randn(rows, 4)
        np.testing.assert_array_equal(compiled(x).numpy(), (x * 2).relu().sum(dim=0).numpy())
    # static: 3, 5 and 7 rows; by default the second size makes the rows symbolic (PyTorch's automatic dynamic)
    assert counter.frame_count == graphs


def test_dtype_requires_grad_grad_mode_and_training_are_guarded():
    counter = CompileCounter()
    model = nn.Sequential(nn.Linear(4, 3), nn.Dropout(0.0))
    compiled = minitorch.compile(model, backend=counter)
    x = minitorch.randn(2, 4)
    compiled(x)
    compiled(x)
    assert counter.frame_count == 1
    compiled(minitorch.randn(2, 4, requires_grad=True))
    assert counter.frame_count == 2
    with minitorch.no_grad():
        compiled(x)
    assert counter.frame_count == 3
    compiled.eval()
    compiled(x)
    assert counter.frame_count == 4
    model.double()
    compiled(x.double())
    assert counter.frame_count == 5


SCALE = 2.0


def scaled(x, power):
    return (x * SCALE) ** power


def test_numbers_passed_or_read_from_globals_and_module_settings_are_guarded():
    global SCALE
    compiled = minitorch.compile(scaled)
    x = minitorch.tensor([1.0, 2.0])
    assert compiled(x, 2).tolist() == [4.0, 16.0]
    assert compiled(x, 3).tolist() == [8.0, 64.0]  # another power: another graph
    SCALE = 3.0
    try:
        assert compiled(x, 2).tolist() == [9.0, 36.0]  # the global changed: another graph
    finally:
        SCALE = 2.0
    norm = nn.LayerNorm(2)
    compiled_norm = minitorch.compile(norm)
    compiled_norm(x.view(1, 2))
    norm.eps = 10.0
    np.testing.assert_allclose(compiled_norm(x.view(1, 2)).detach().numpy(), norm(x.view(1, 2)).detach().numpy())


def test_the_same_tensor_passed_twice_is_guarded():
    compiled = minitorch.compile(lambda a, b: a * 2 + b)
    x, y = minitorch.tensor([1.0, 2.0]), minitorch.tensor([10.0, 20.0])
    for first, second in ((x, x), (x, x), (x, y), (y, y), (x, y)):
        assert compiled(first, second).tolist() == (first * 2 + second).tolist()


def test_module_hooks_are_a_graph_break():
    model = nn.Linear(2, 2)
    seen = []
    model.register_forward_hook(lambda module, inputs, output: seen.append(output.shape))
    compiled = minitorch.compile(model)
    for _ in range(3):
        compiled(minitorch.ones(1, 2))
    assert len(seen) == 3  # the hook ran on every call, as in eager
    later = minitorch.compile(nn.Linear(2, 2))
    later(minitorch.ones(1, 2))
    later._orig_mod.register_forward_hook(lambda module, inputs, output: seen.append("later"))
    later(minitorch.ones(1, 2))
    assert seen[-1] == "later"  # a hook added after compiling is a new guard: not skipped
    assert "hooks" in compiled.__dict__["_compiled"].graph_breaks[0].reason


def test_a_replaced_parameter_recompiles():
    counter = CompileCounter()
    model = nn.Linear(3, 2)
    compiled = minitorch.compile(model, backend=counter)
    x = minitorch.randn(4, 3)
    compiled(x)
    model.weight = nn.Parameter(minitorch.zeros(2, 3))
    np.testing.assert_array_equal(compiled(x).detach().numpy(), model(x).detach().numpy())
    assert counter.frame_count == 2


def test_reset_forgets_compiled_graphs():
    counter = CompileCounter()
    compiled = minitorch.compile(lambda x: x * 3, backend=counter)
    compiled(minitorch.ones(2))
    minitorch._dynamo.reset()
    assert compiled(minitorch.ones(2)).tolist() == [3.0, 3.0]
    assert counter.frame_count == 2


def test_recompile_limit_falls_back_to_eager_with_a_warning():
    counter = CompileCounter()
    compiled = minitorch.compile(lambda x: x + 1, backend=counter, recompile_limit=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for size in (1, 2, 3, 4):
            assert compiled(minitorch.ones(size)).sum().item() == 2 * size
    assert counter.frame_count == 2
    assert any("cache_size_limit" in str(warning.message) for warning in caught)


# -- graph breaks -------------------------------------------------------------------------------------------
def branchy(x):
    y = x * 2
    if y.sum() > 0:
        return y + 1
    return y - 1


def uses_item(x):
    return x * x.sum().item()


def test_data_dependent_branch_splits_the_graph_with_the_reason():
    compiled = minitorch.compile(branchy)
    for values in ([1.0, 2.0], [-3.0, 1.0], [1.0, 2.0], [-3.0, 1.0]):
        x = minitorch.tensor(values)
        np.testing.assert_array_equal(compiled(x).numpy(), branchy(x).numpy())  # both branches, every call
    explanation = minitorch._dynamo.explain(branchy)(minitorch.tensor([1.0, 2.0]))
    assert explanation.graph_count == 2 and explanation.graph_break_count == 1  # before and after the branch
    reason = explanation.break_reasons[0]
    assert reason.reason.startswith("generic_jump TensorVariable()")
    assert reason.user_stack[-1].name == "branchy" and "if y.sum() > 0" in reason.user_stack[-1].line
    assert "Graph Break Count: 1" in str(explanation)


def test_item_is_a_graph_break_with_torch_reason():
    torch = require_torch()
    ours = minitorch._dynamo.explain(uses_item)(minitorch.tensor([1.0, 2.0]))
    theirs = torch._dynamo.explain(uses_item)(torch.tensor([1.0, 2.0]))
    assert ours.graph_break_count == theirs.graph_break_count == 1
    assert ours.break_reasons[0].reason.splitlines()[0] == theirs.break_reasons[0].reason.splitlines()[0]
    compiled = minitorch.compile(uses_item)
    for values in ([1.0, 2.0], [3.0, 1.0]):
        x = minitorch.tensor(values)
        np.testing.assert_array_equal(compiled(x).numpy(), uses_item(x).numpy())


def test_backward_inside_the_function_is_a_graph_break_with_torch_reason():
    torch = require_torch()

    def step(lib, weight):
        def train_step(x):
            loss = (x * weight).sum()
            loss.backward()
            return loss

        return train_step

    theirs = torch._dynamo.explain(step(torch, torch.ones(3, requires_grad=True)))(torch.ones(3))
    weight = minitorch.ones(3, requires_grad=True)
    compiled = minitorch.compile(step(minitorch, weight))
    for _ in range(3):
        compiled(minitorch.tensor([1.0, 2.0, 3.0]))
    assert weight.grad.tolist() == [3.0, 6.0, 9.0]  # every call's backward ran (eagerly)
    reason = compiled._compiled.graph_breaks[0].reason
    assert reason.splitlines()[0] == theirs.break_reasons[0].reason.splitlines()[0]


def test_print_inside_the_function_prints_on_every_call(capsys):
    def noisy(x):
        print("shape", tuple(x.shape))
        return x * 2

    compiled = minitorch.compile(noisy)
    for _ in range(3):
        assert compiled(minitorch.ones(2)).tolist() == [2.0, 2.0]
    assert capsys.readouterr().out.count("shape (2,)") == 3  # as in eager mode (and PyTorch)


def test_setting_a_module_attribute_in_forward_is_a_graph_break():
    class Remembers(nn.Module):
        def forward(self, x):
            self.last = x * 2  # kept for a plot: must be this call's value, every call
            return self.last + 1

    model = Remembers()
    compiled = minitorch.compile(model)
    for value in (1.0, 5.0):
        compiled(minitorch.tensor([value]))
        assert model.last.tolist() == [2 * value]
    assert "attribute" in compiled.__dict__["_compiled"].graph_breaks[0].reason


def test_fullgraph_raises_on_a_graph_break():
    with pytest.raises(minitorch._dynamo.Unsupported, match="generic_jump"):
        minitorch.compile(branchy, fullgraph=True)(minitorch.tensor([1.0]))


def test_explain_counts_the_graph_and_its_ops():
    explanation = minitorch._dynamo.explain(lambda x: (x * 2 + 1).relu())(minitorch.randn(3))
    assert (explanation.graph_count, explanation.graph_break_count, explanation.op_count) == (1, 0, 3)
    assert [op.__name__ for op in explanation.ops_per_graph[0]] == ["Mul", "Add", "Relu"]


def test_dropout_in_training_and_writing_a_parameter_are_graph_breaks():
    minitorch.manual_seed(0)
    dropout = nn.Dropout(0.5)
    compiled = minitorch.compile(dropout)
    x = minitorch.ones(100)
    outputs = [compiled(x) for _ in range(3)]
    assert not np.array_equal(outputs[1].numpy(), outputs[2].numpy())  # a new draw every call, as in eager
    assert "random numbers were drawn" in str(compiled.__dict__["_compiled"].graph_breaks[0])
    weight = nn.Parameter(minitorch.ones(3))
    compiled_update = minitorch.compile(lambda x: weight.mul_(2) * x)  # a parameter written in place
    with minitorch.no_grad():
        compiled_update(minitorch.ones(3))
    assert "in-place write" in str(compiled_update._compiled.graph_breaks[0])


def test_a_detached_input_is_a_break_not_a_stale_constant():
    def loss(x):
        return (x * x.detach()).sum()

    compiled = minitorch.compile(loss)
    for values in ([1.0, 2.0], [3.0, 4.0]):
        x = minitorch.tensor(values, requires_grad=True)
        assert compiled(x).item() == loss(x).item()
    assert "detach" in str(compiled._compiled.graph_breaks[0])


# -- PyTorch's signature and argument checks --------------------------------------------------------------------
@pytest.mark.parametrize("arguments", [dict(backend="nope"), dict(mode="fast"), dict(mode="default", options={})])
def test_bad_arguments_give_torch_errors(arguments):
    torch = require_torch()
    with pytest.raises(Exception) as theirs:
        torch.compile(lambda x: x, **arguments)
    with pytest.raises(Exception) as ours:
        minitorch.compile(lambda x: x, **arguments)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value) == str(theirs.value)


def test_module_wrapping_and_decorator_forms_follow_torch():
    torch = require_torch()
    ours = minitorch.compile(nn.Linear(2, 2))
    theirs = torch.compile(torch.nn.Linear(2, 2))
    assert type(ours).__name__ == type(theirs).__name__ == "OptimizedModule"
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.weight is ours._orig_mod.weight and theirs.weight is theirs._orig_mod.weight
    linear = nn.Linear(2, 2)
    assert minitorch.compile(linear, disable=True) is linear

    torch_name = torch.compile(lambda x: (x * 2).sum(), backend="aot_eager")(torch.ones(2, requires_grad=True))
    compiled_sum = minitorch.compile(lambda x: (x * 2).sum(), backend="aot_eager")
    compiled_sum(minitorch.ones(2, requires_grad=True))
    assert compiled_sum(minitorch.ones(2, requires_grad=True)).grad_fn.name() == torch_name.grad_fn.name()

    @minitorch.compile(backend="eager")
    def double(x):
        return x * 2

    assert double.__name__ == "double" and double(minitorch.ones(2)).tolist() == [2.0, 2.0]


# -- the inductor backend's passes -----------------------------------------------------------------------------
def test_pointwise_chain_becomes_one_kernel_with_eager_gradients():
    def chain(x, y):
        return (minitorch.tanh(x * 2.0 + y).exp() - y).sigmoid() / 3.0

    counter = CompileCounterWithBackend("inductor")
    compiled = minitorch.compile(chain, backend=counter)
    for _ in range(3):
        x = minitorch.randn(4, 5, dtype=minitorch.float64, requires_grad=True)
        y = minitorch.randn(5, dtype=minitorch.float64, requires_grad=True)  # broadcast: its gradient is summed
        weights = minitorch.randn(4, 5, dtype=minitorch.float64)
        expected = chain(x, y)
        expected_grads = minitorch.autograd.grad((expected * weights).sum(), [x, y])
        output = compiled(x, y)
        grads = minitorch.autograd.grad((output * weights).sum(), [x, y])
        np.testing.assert_allclose(output.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
        for grad, expected_grad in zip(grads, expected_grads):
            np.testing.assert_allclose(grad.numpy(), expected_grad.numpy(), rtol=1e-10)
    graph = counter.graphs[0].graph
    kernels = [node for node in graph.nodes if node.op == "call_function"]
    assert len(kernels) == 1 and kernels[0].name.startswith("fused_mul_add_tanh_exp_sub_sigmoid_div")
    assert "out=buffer_0" in kernels[0].target.source  # intermediates go into preallocated buffers


def test_constant_folding_and_dead_code_elimination():
    def masked(x):
        mask = minitorch.ones(4, 4).triu(diagonal=1) * -1e9  # made from sizes only: folded at compile time
        unused = x.exp()  # noqa: F841 - nobody reads it: eliminated
        return (x + mask).softmax(dim=-1)

    counter = CompileCounterWithBackend("inductor")
    compiled = minitorch.compile(masked, backend=counter)
    x = minitorch.randn(2, 4, 4)
    compiled(x)
    np.testing.assert_allclose(compiled(x).numpy(), masked(x).numpy(), rtol=1e-6)
    names = [node.name for node in counter.graphs[0].graph.nodes if node.op == "call_function"]
    assert "triu" not in names and "mul" not in names and "exp" not in names
    assert [node.target for node in counter.graphs[0].graph.nodes if node.op == "get_attr"] == ["_folded_constant1"]


def test_options_switch_passes_off_and_unknown_options_are_refused():
    counter = CompileCounter()
    compiled = minitorch.compile(lambda x: (x * 2).relu(), options={"fuse_pointwise": False})
    x = minitorch.randn(3)
    compiled(x)
    assert np.array_equal(compiled(x).numpy(), (x * 2).relu().numpy())
    assert counter.frame_count == 0
    with pytest.raises(RuntimeError, match="Unexpected optimization option"):
        minitorch.compile(lambda x: x, options={"triton.cudagraphs": True})


def test_labels_and_indices_out_of_range_run_eagerly_with_torch_errors():
    """Eager mode range-checks labels and embedding indices with NumPy, outside any op: the compiled
    program checks them too, and a value it was not compiled for runs eagerly (the error, or ignore_index)."""
    model = nn.Sequential(nn.Embedding(5, 3), nn.Flatten(), nn.Linear(6, 4))
    compiled = minitorch.compile(lambda tokens, labels: nn.functional.cross_entropy(model(tokens), labels))
    tokens, labels = minitorch.tensor([[0, 1], [2, 4]]), minitorch.tensor([1, 3])
    for _ in range(2):
        assert compiled(tokens, labels).item() == nn.functional.cross_entropy(model(tokens), labels).item()
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        compiled(tokens, minitorch.tensor([1, -1]))
    with pytest.raises(IndexError, match="index out of range in self"):
        compiled(minitorch.tensor([[0, 1], [2, -2]]), labels)
    ignored = minitorch.tensor([1, -100])  # ignore_index: eager takes another path
    assert compiled(tokens, ignored).item() == nn.functional.cross_entropy(model(tokens), ignored).item()


@pytest.mark.parametrize("backend", BACKENDS)
def test_indexing_with_tensors_is_captured_and_differentiated(backend):
    """``x[index_tensor]`` turns the index into a NumPy key inside, which a graph of ops cannot follow: it is
    recorded as one call, run eagerly inside the compiled program and differentiated with autograd.grad."""
    def gather_rows(x, rows, mask):
        return (x[rows] * 2).sum(0) + x[mask].sum() + x.index_add(0, rows, x[rows]).sum()

    compiled = minitorch.compile(gather_rows, backend=backend)
    for seed in range(3):
        minitorch.manual_seed(seed)
        x = minitorch.randn(5, 3, dtype=minitorch.float64, requires_grad=True)
        rows, mask = minitorch.randint(0, 5, (4,)), minitorch.rand(5, 3) > 0.5
        (expected,) = minitorch.autograd.grad(gather_rows(x, rows, mask).sum(), [x])
        output = compiled(x, rows, mask)
        (grad,) = minitorch.autograd.grad(output.sum(), [x])
        np.testing.assert_allclose(output.detach().numpy(), gather_rows(x, rows, mask).detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(grad.numpy(), expected.numpy(), rtol=1e-12)
    assert compiled._compiled.graph_breaks == [] and compiled._compiled.compile_count == 1


def test_a_model_on_a_second_device_runs_its_captured_graph():
    """On a device other than the CPU the captured graph is replayed op by op (the generated NumPy is CPU-only)."""
    from tests.support import use_fake_cuda

    with use_fake_cuda(1):
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).to("cuda")
        loss = lambda x, y: nn.functional.cross_entropy(model(x), y)  # noqa: E731
        compiled = minitorch.compile(loss)
        x, y = minitorch.randn(2, 4).to("cuda"), minitorch.tensor([0, 2]).to("cuda")
        expected = loss(x, y)
        for _ in range(2):
            output = compiled(x, y)
            assert output.device == expected.device and output.item() == expected.item()
        assert compiled._compiled.compile_count == 1 and compiled._compiled.graph_breaks == []
