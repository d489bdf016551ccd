"""DataParallel: the same outputs and gradients as one device, on CPU replicas and on two fake GPUs.

The proof asked of data parallelism: for the same batch, the outputs and every gradient
(of the input and of the original parameters) equal the single-device run, in float64
to a tight tolerance. The only difference allowed is the order of additions: a weight's
gradient is a sum over the batch, which DataParallel adds up per replica and then across
replicas, so results agree to about 1e-15 relative, not bit for bit.

Devices: the ``fake_cuda`` fixture (tests/conftest.py) registers a host-backed ``cuda`` backend with two "GPUs"
(tests/support.py), so replicas on cuda:0 and cuda:1, transfers and where
gradients land are checked on any machine.
"""

from __future__ import annotations

import copy
import threading
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.nn.parallel import data_parallel, gather, parallel_apply, replicate, scatter, scatter_kwargs
from tests.support import require_torch

TOLERANCE = dict(rtol=1e-12, atol=1e-13)


# -- models ------------------------------------------------------------------------------------------------
def mlp() -> nn.Module:
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 3))


class Mixed(nn.Module):
    """Several layer kinds and every way of passing data: positional, keyword tensor, keyword number, tuple output."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)
        self.norm = nn.LayerNorm(4)
        self.bilinear = nn.Bilinear(4, 5, 6)
        self.head = nn.Linear(6, 2, bias=False)
        self.tied = nn.Linear(2, 2)
        self.frozen = nn.Linear(2, 2)
        self.frozen.requires_grad_(False)

    def forward(self, tokens, features, *, mask=None, scale=1.0):
        hidden = self.norm(self.embedding(tokens))
        hidden = nn.functional.gelu(self.bilinear(hidden, features))
        logits = self.tied(self.tied(self.head(hidden)))  # one weight used twice: its gradients add up
        logits = self.frozen(logits) * scale
        if mask is not None:
            logits = logits * mask
        return logits, {"hidden": hidden}


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 2 * 2, 3)

    def forward(self, x):
        return self.fc(self.pool(self.conv(x).relu()).flatten(1))


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        output, (hidden, cell) = self.lstm(x)
        return self.head(output[:, -1]), hidden.transpose(0, 1)  # PyTorch's states are batch-second


def transformer() -> nn.Module:
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2)


def float64_model(make) -> nn.Module:
    minitorch.manual_seed(0)
    return make().double()


def make_inputs(model_name: str, batch: int, rng):
    """(positional inputs, keyword inputs) for one model, float64, inputs requiring grad where they can."""
    def tensor(*shape):
        return minitorch.from_numpy(rng.standard_normal(shape)).requires_grad_()

    if model_name == "mlp":
        return (tensor(batch, 5),), {}
    if model_name == "cnn":
        return (tensor(batch, 2, 4, 4),), {}
    if model_name == "lstm":
        return (tensor(batch, 5, 3),), {}
    if model_name == "transformer":
        return (tensor(batch, 4, 8),), {}
    tokens = minitorch.from_numpy(rng.integers(0, 10, (batch, 3)))
    mask = minitorch.from_numpy((rng.random((batch, 3, 1)) > 0.3).astype(np.float64))
    return (tokens, tensor(batch, 3, 5)), {"mask": mask, "scale": 0.5}


MODELS = {"mlp": mlp, "mixed": Mixed, "cnn": SmallCNN, "lstm": Recurrent, "transformer": transformer}


def tensors_in(output) -> list:
    if isinstance(output, minitorch.Tensor):
        return [output]
    if isinstance(output, dict):
        return [t for value in output.values() for t in tensors_in(value)]
    return [t for value in output for t in tensors_in(value)]


def run(model, args, kwargs, rng_seed=5):
    """Forward, then backward with fixed random output gradients; returns (outputs, input grads, parameter grads)."""
    outputs = tensors_in(model(*args, **kwargs))
    rng = np.random.default_rng(rng_seed)
    upstream = [minitorch.from_numpy(rng.standard_normal(tuple(o.shape))).to(o.device) for o in outputs]
    minitorch.autograd.backward(outputs, upstream)
    return (
        [o.detach().cpu().numpy() for o in outputs],
        [a.grad.cpu().numpy() for a in args if isinstance(a, minitorch.Tensor) and a.requires_grad],
        {
            name: (None if p.grad is None else p.grad.cpu().numpy())
            for name, p in getattr(model, "module", model).named_parameters()  # a DataParallel: its wrapped model's
        },
    )


def fresh_inputs(args, kwargs):
    """The same values as new leaves (so each run collects its own input gradients)."""
    def fresh(value):
        if isinstance(value, minitorch.Tensor):
            copied = value.detach().clone()
            return copied.requires_grad_() if value.requires_grad else copied
        return value

    return tuple(fresh(a) for a in args), {k: fresh(v) for k, v in kwargs.items()}


def assert_runs_equal(got, expected):
    (outputs, input_grads, param_grads), (ref_outputs, ref_input_grads, ref_param_grads) = got, expected
    assert len(outputs) == len(ref_outputs)
    for a, b in zip(outputs, ref_outputs):
        np.testing.assert_allclose(a, b, **TOLERANCE)
    for a, b in zip(input_grads, ref_input_grads):
        np.testing.assert_allclose(a, b, **TOLERANCE)
    assert param_grads.keys() == ref_param_grads.keys()
    for name in ref_param_grads:
        if ref_param_grads[name] is None:
            assert param_grads[name] is None, name
        else:
            np.testing.assert_allclose(param_grads[name], ref_param_grads[name], err_msg=name, **TOLERANCE)


# -- equal to one device ------------------------------------------------------------------------------------
@pytest.mark.parametrize("replicas", [2, 3])
@pytest.mark.parametrize("batch", [6, 7, 2], ids=lambda b: f"batch{b}")
@pytest.mark.parametrize("model_name", list(MODELS))
def test_cpu_replicas_match_a_single_device(model_name, replicas, batch):
    reference = float64_model(MODELS[model_name])
    model = copy.deepcopy(reference)
    args, kwargs = make_inputs(model_name, batch, np.random.default_rng(batch))
    expected = run(reference, *fresh_inputs(args, kwargs))
    parallel = nn.DataParallel(model, num_replicas=replicas)
    assert_runs_equal(run(parallel, *fresh_inputs(args, kwargs)), expected)
    if model_name == "mixed":
        assert all(p.grad is None for p in model.frozen.parameters())


def test_device_ids_of_cpu_replicas_is_the_same_as_num_replicas():
    reference = float64_model(mlp)
    parallel = nn.DataParallel(copy.deepcopy(reference), device_ids=["cpu", minitorch.device("cpu")])
    args, kwargs = make_inputs("mlp", 5, np.random.default_rng(0))
    expected = run(reference, *fresh_inputs(args, kwargs))
    assert parallel.device_ids == [minitorch.device("cpu")] * 2
    assert parallel.output_device == minitorch.device("cpu")
    assert_runs_equal(run(parallel, *fresh_inputs(args, kwargs)), expected)


def test_training_steps_match_a_single_device():
    reference = float64_model(mlp)
    model = copy.deepcopy(reference)
    parallel = nn.DataParallel(model, num_replicas=3)
    optimizers = [minitorch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (reference, model)]
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = minitorch.from_numpy(rng.standard_normal((10, 5)))
        target = minitorch.from_numpy(rng.standard_normal((10, 3)))
        for net, optimizer in zip((reference, parallel), optimizers):
            optimizer.zero_grad()
            (net(x) - target).pow(2).mean().backward()
            optimizer.step()
    for (name, p), q in zip(reference.named_parameters(), model.parameters()):
        np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), err_msg=name, **TOLERANCE)


def test_replicas_run_in_parallel_threads_on_their_chunks():
    class Recorder(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(2, 2)
            self.calls = []  # a plain attribute: shared by the replicas (they are shallow copies)

        def forward(self, x, note):
            self.calls.append((threading.current_thread().name, x.shape[0], note))
            return self.linear(x)

    model = Recorder()
    out = nn.DataParallel(model, num_replicas=3)(minitorch.randn(8, 2), note="hello")
    assert out.shape == (8, 2)
    assert sorted(model.calls) == [("DataParallel replica 0", 3, "hello"), ("DataParallel replica 1", 3, "hello"),
                                   ("DataParallel replica 2", 2, "hello")]


def test_no_grad_gives_the_same_outputs_and_builds_no_graph():
    model = float64_model(mlp)
    x = minitorch.randn(7, 5, dtype=minitorch.float64)
    with minitorch.no_grad():
        out = nn.DataParallel(model, num_replicas=2)(x)
    assert not out.requires_grad and out.grad_fn is None
    np.testing.assert_allclose(out.numpy(), model(x).detach().numpy(), **TOLERANCE)


def test_scalar_outputs_are_gathered_into_a_vector_with_torchs_warning():
    model = float64_model(mlp)
    x = minitorch.randn(6, 5, dtype=minitorch.float64)

    class Loss(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model(x).pow(2).sum()

    with pytest.warns(UserWarning, match="all input tensors were scalars; will instead unsqueeze and return a vector"):
        losses = nn.DataParallel(Loss(), num_replicas=3)(x)
    assert losses.shape == (3,)
    losses.sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).pow(2).sum().backward()
    for got, expected in zip(grads, model.parameters()):
        np.testing.assert_allclose(got.numpy(), expected.grad.numpy(), **TOLERANCE)


def test_an_error_in_a_replica_is_raised_with_its_traceback():
    class FailsOnShortBatches(nn.Module):
        def forward(self, x):
            if x.shape[0] < 2:
                raise ValueError("batch too short")
            return x

    with pytest.raises(ValueError, match=r"(?s)Caught ValueError in replica 2 on device cpu\.\nOriginal Traceback.*"
                                         r"batch too short"):
        nn.DataParallel(FailsOnShortBatches(), num_replicas=3)(minitorch.ones(5, 2))


def test_buffers_of_the_first_replica_are_the_originals():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("calls", minitorch.zeros(()))

        def forward(self, x):
            self.calls.add_(1)
            return x * 1

    model = Counter()
    nn.DataParallel(model, num_replicas=3)(minitorch.ones(6))
    assert model.calls.item() == 1.0  # as in PyTorch: only replica 0 writes the module's own buffers


# -- the building blocks -------------------------------------------------------------------------------------
def test_scatter_cuts_like_chunk_and_replicates_other_values():
    x = minitorch.arange(10.0).reshape(5, 2)
    pieces = scatter((x, "flag", [x[:, 0]], {"k": x}), ["cpu"] * 3)
    assert len(pieces) == 3
    assert [p[0].shape[0] for p in pieces] == [2, 2, 1]  # as x.chunk(3): 2, 2, 1
    assert [p[1] for p in pieces] == ["flag"] * 3
    assert pieces[2][2][0].tolist() == [8.0] and pieces[1][3]["k"].tolist() == [[4.0, 5.0], [6.0, 7.0]]
    assert len(scatter(minitorch.zeros(4, 1), ["cpu"] * 3)) == 2  # 4 rows in chunks of 2: only two pieces
    assert len(scatter(minitorch.zeros(2, 6), ["cpu"] * 3, dim=1)) == 3
    inputs, kwargs = scatter_kwargs((), {"x": x}, ["cpu"] * 2)
    assert inputs == ((), ()) and [k["x"].shape[0] for k in kwargs] == [3, 2]


def test_fewer_rows_than_replicas_uses_fewer_replicas():
    model = float64_model(mlp)
    x = minitorch.randn(2, 5, dtype=minitorch.float64)
    out = nn.DataParallel(model, num_replicas=3)(x)
    np.testing.assert_allclose(out.detach().numpy(), model(x).detach().numpy(), **TOLERANCE)


def test_gather_joins_structures_along_dim():
    a, b = minitorch.ones(2, 3), minitorch.zeros(2, 1)
    out = gather([(a, {"x": a}, None), (b, {"x": b}, None)], "cpu", dim=1)
    assert out[0].shape == (2, 4) and out[1]["x"].shape == (2, 4) and out[2] is None
    with pytest.raises(TypeError, match="DataParallel can gather tensors"):
        gather([1, 2], "cpu")


def test_replicate_makes_differentiable_copies():
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 2, bias=False))
    first, second = replicate(model, ["cpu", "cpu"])
    assert list(second.parameters()) == [] and second[1].bias is None
    assert second[0].weight.grad_fn.name() == "BroadcastBackward"
    assert second[0].weight is not model[0].weight and second[0] is not model[0]
    assert np.shares_memory(second[0].weight.numpy(force=True), model[0].weight.detach().numpy())  # CPU: no copy
    x = minitorch.randn(2, 3)
    (first(x).sum() + 2 * second(x).sum()).backward()  # the original weights get the sum of both replicas' gradients
    through_replicas = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    (3 * model(x).sum()).backward()
    for got, param in zip(through_replicas, model.parameters()):
        np.testing.assert_allclose(got.numpy(), param.grad.numpy(), rtol=1e-6)
    detached = replicate(model, ["cpu", "cpu"], detach=True)
    assert detached[1][0].weight.grad_fn is None and not detached[1][0].weight.requires_grad


def test_parallel_apply_and_data_parallel_functional():
    linear = nn.Linear(3, 2)
    replicas = replicate(linear, ["cpu", "cpu"])
    x = minitorch.randn(4, 3)
    outputs = parallel_apply(replicas, [(x[:2],), (x[2:],)], None, ["cpu", "cpu"])
    np.testing.assert_allclose(minitorch.cat(outputs).detach().numpy(), linear(x).detach().numpy(), rtol=1e-6)
    out = data_parallel(linear, x, device_ids=["cpu", "cpu"])
    np.testing.assert_allclose(out.detach().numpy(), linear(x).detach().numpy(), rtol=1e-6)


# -- the wrapper --------------------------------------------------------------------------------------------
def test_wrapper_state_dict_repr_and_module_like_torch():
    torch = require_torch()
    ours = nn.DataParallel(nn.Sequential(nn.Linear(3, 2), nn.ReLU()), num_replicas=2)
    theirs = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()))
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["module.0.weight", "module.0.bias"]
    assert repr(ours) == repr(theirs)
    assert isinstance(ours.module, nn.Sequential)
    ours.load_state_dict({k: minitorch.from_numpy(v.numpy()) for k, v in theirs.state_dict().items()})
    assert minitorch.equal(ours.module[0].weight, minitorch.from_numpy(theirs.module[0].weight.detach().numpy()))


def test_without_gpus_the_module_is_called_directly_as_in_torch(no_cuda):
    model = mlp()
    parallel = nn.DataParallel(model)
    assert parallel.device_ids == []
    x = minitorch.randn(4, 5)
    assert minitorch.equal(parallel(x), model(x))
    assert nn.DataParallel(model, device_ids=[0, 1]).device_ids == []  # PyTorch ignores GPU ids it cannot use


def test_constructor_errors():
    with pytest.raises(ValueError, match="device_ids or num_replicas, not both"):
        nn.DataParallel(mlp(), device_ids=["cpu"], num_replicas=2)
    with pytest.raises(ValueError, match="num_replicas must be a positive integer"):
        nn.DataParallel(mlp(), num_replicas=0)
    with pytest.raises(ValueError, match="not on a mix"):
        nn.DataParallel(mlp(), device_ids=["cpu", "cuda:0"])


# -- two fake GPUs -------------------------------------------------------------------------------------------
class DeviceRecorder(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3)
        self.seen = []

    def forward(self, x):
        self.seen.append((str(x.device), str(self.linear.weight.device), threading.current_thread().name))
        return self.linear(x).tanh()


def test_replicas_run_on_cuda0_and_cuda1(fake_cuda):
    minitorch.manual_seed(0)
    reference = DeviceRecorder().double()
    model = copy.deepcopy(reference).to("cuda:0")
    parallel = nn.DataParallel(model)
    assert parallel.device_ids == [0, 1] and parallel.output_device == 0
    x = minitorch.randn(5, 4, dtype=minitorch.float64)
    expected = run(reference, *fresh_inputs((x,), {}))
    model.seen.clear()
    got = run(parallel, *fresh_inputs((x,), {}))
    assert sorted(model.seen) == [("cuda:0", "cuda:0", "DataParallel replica 0"),
                                  ("cuda:1", "cuda:1", "DataParallel replica 1")]
    assert_runs_equal(got, expected)
    assert all(p.grad.device == minitorch.device("cuda:0") for p in model.parameters())


@pytest.mark.parametrize("output_device, expected", [(None, "cuda:0"), (1, "cuda:1"), ("cuda:1", "cuda:1"),
                                                     (-1, "cpu")])
def test_outputs_gather_on_output_device_and_gradients_land_on_the_originals(fake_cuda, output_device, expected):
    model = DeviceRecorder().double().to("cuda:0")
    x = minitorch.randn(6, 4, dtype=minitorch.float64, requires_grad=True)  # on the CPU: its gradient comes back there
    out = nn.DataParallel(model, device_ids=[0, 1], output_device=output_device)(x)
    assert str(out.device) == expected
    out.sum().backward()
    assert x.grad.device == minitorch.device("cpu")
    assert model.linear.weight.grad.device == minitorch.device("cuda:0")
    reference = copy.deepcopy(model).cpu()
    reference.zero_grad()
    x_again = x.detach().clone().requires_grad_()
    reference(x_again).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x_again.grad.numpy(), **TOLERANCE)
    np.testing.assert_allclose(model.linear.weight.grad.cpu().numpy(), reference.linear.weight.grad.numpy(),
                               **TOLERANCE)


def test_module_on_the_wrong_device_fails_in_torchs_words(fake_cuda):
    parallel = nn.DataParallel(mlp())  # still on the CPU
    with pytest.raises(RuntimeError) as info:
        parallel(minitorch.randn(4, 5))
    assert str(info.value) == (
        "module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on "
        "device: cpu"
    )


def test_a_single_gpu_moves_the_module_and_calls_it(fake_cuda):
    model = mlp()
    parallel = nn.DataParallel(model, device_ids=[1])
    assert model[0].weight.device == minitorch.device("cuda:1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = parallel(minitorch.randn(3, 5))
    assert out.device == minitorch.device("cuda:1")
