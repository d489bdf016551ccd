"""``minitorch.profiler`` against ``torch.profiler``: the ops a forward and backward ran, the table, the schedule."""

from __future__ import annotations

import json

import numpy as np
import pytest

import minitorch
from minitorch.autograd import function as _function
from minitorch.profiler import ProfilerActivity, profile, record_function, schedule
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _mlp_step(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    x = lib.randn(5, 3)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        with lib.profiler.record_function("model_inference"):
            loss = model(x).pow(2).mean()
        loss.backward()
    return prof, loss


def test_the_table_lists_the_ops_and_backward_nodes_pytorch_lists(torch):
    ours, _ = _mlp_step(minitorch)
    theirs, _ = _mlp_step(torch)
    our_names = {event.key for event in ours.key_averages()}
    their_names = {event.key for event in theirs.key_averages()}
    expected = {"model_inference", "aten::addmm", "aten::relu", "aten::pow", "aten::mean", "AddmmBackward0",
                "ReluBackward0", "PowBackward0", "MeanBackward0",
                "autograd::engine::evaluate_function: AddmmBackward0"}
    assert expected <= their_names, expected - their_names  # the names are PyTorch's own
    assert expected <= our_names, expected - our_names
    calls = {event.key: event.count for event in ours.key_averages()}
    assert calls["aten::addmm"] == 2 and calls["AddmmBackward0"] == 2  # two Linear layers, forward and backward
    table = ours.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    their_table = theirs.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    assert table.splitlines()[1].split() == their_table.splitlines()[1].split()  # the same columns
    assert table.rstrip().splitlines()[-1].startswith("Self CPU time total: ")
    assert len([line for line in table.splitlines() if line.strip() and not line.startswith("-")]) == 1 + 10 + 1


def test_times_add_up_and_regions_hold_their_ops():
    prof, _ = _mlp_step(minitorch)
    events = prof.events()
    region = next(e for e in events if e.name == "model_inference")
    inside = {child.name for child in region.cpu_children}
    assert {"aten::addmm", "aten::relu", "aten::pow", "aten::mean"} <= inside
    assert all(not name.endswith("Backward0") for name in inside)  # backward ran after the region closed
    for event in events:
        assert event.cpu_time_total >= 0 and event.self_cpu_time_total >= -1e-6
        assert event.cpu_time_total == pytest.approx(
            event.self_cpu_time_total + sum(c.cpu_time_total for c in event.cpu_children))
    averages = prof.key_averages()
    assert sum(a.self_cpu_time_total for a in averages) == pytest.approx(averages.self_cpu_time_total)
    shapes = {str(a.input_shapes) for a in prof.key_averages(group_by_input_shape=True) if a.key == "aten::addmm"}
    assert shapes == {"[[4], [5, 3], [4, 3]]", "[[2], [5, 4], [2, 4]]"}


def test_profiling_changes_no_result_and_puts_the_entry_points_back():
    forward, backward = _function.Function.__dict__["apply"], _function.BackwardNode.__dict__["apply"]
    _, profiled = _mlp_step(minitorch)
    minitorch.manual_seed(0)
    model = minitorch.nn.Sequential(minitorch.nn.Linear(3, 4), minitorch.nn.ReLU(), minitorch.nn.Linear(4, 2))
    plain = model(minitorch.randn(5, 3)).pow(2).mean()
    assert float(plain) == float(profiled)
    assert _function.Function.__dict__["apply"] is forward and _function.BackwardNode.__dict__["apply"] is backward
    with pytest.raises(ValueError), profile():
        raise ValueError("inside the block")
    assert _function.Function.__dict__["apply"] is forward and _function.BackwardNode.__dict__["apply"] is backward


def test_a_custom_function_is_named_by_its_class():
    class Cube(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * grad

    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    with profile() as prof:
        Cube.apply(x).sum().backward()
    names = [e.name for e in prof.events()]
    assert "Cube" in names and "CubeBackward" in names
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0])


def test_the_chrome_trace_is_valid_json_with_every_event(tmp_path):
    prof, _ = _mlp_step(minitorch)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    assert len(events) == len(prof.events())
    for entry in events:
        assert entry["ph"] == "X" and isinstance(entry["ts"], float) and entry["dur"] >= 0
    assert {"user_annotation", "cpu_op"} == {entry["cat"] for entry in events}


def test_the_schedule_is_pytorchs_and_records_only_active_steps(torch):
    ours = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    theirs = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    assert [ours(step).name for step in range(12)] == [theirs(step).name for step in range(12)]
    traces = []
    x = minitorch.ones(2, requires_grad=True)
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                 on_trace_ready=lambda p: traces.append([e.name for e in p.events()])) as prof:
        for step in range(6):
            with record_function(f"step {step}"):
                (x * step).sum()
            prof.step()
    assert traces == [["step 2", "aten::mul", "aten::sum", "step 3", "aten::mul", "aten::sum"]]


def test_record_function_as_a_decorator_and_without_a_profiler():
    @record_function("double")
    def double(t):
        return t * 2

    assert double(minitorch.ones(1)).item() == 2.0  # no profiler: nothing recorded, nothing fails
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        double(minitorch.ones(1))
    (region,) = [e for e in prof.events() if e.name == "double"]
    assert [c.name for c in region.cpu_children] == ["aten::mul"]
