"""Chapter 3's exercise checks reject the typical mistakes and accept correct answers written another way.

* ``add_bias_column``: ones on the left, or in the default dtype.
* ``causal_softmax`` (device-generic, checked on the CPU and on a second device): a mask made on the CPU, a
  result computed in NumPy and left on the CPU, no max subtraction (overflow), the mask shifted by one, the
  hidden scores set to 0 instead of -inf, an additive float32 mask that promotes float16 scores.
* ``module_to``: ``p.to(device)`` without keeping the result, buffers left behind, new Parameter objects,
  no recursion into nested modules, gradients left behind, a shortcut through ``nn.Module.to``.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from grading import check
from grading.devices import causal_softmax_report, module_to_report, second_device
from tests.grading.chapter_notebooks import solutions
from tests.support import require_torch

SOLUTIONS = solutions("03_devices")


def _failure(name, function, capsys) -> str:
    with pytest.raises(AssertionError):
        check(name, function)
    out = capsys.readouterr().out
    assert "FAILED" in out
    return out


# -- add_bias_column -------------------------------------------------------------------------------------
def ones_on_the_left(x):
    return minitorch.cat([minitorch.ones(x.shape[0], 1, dtype=x.dtype), x], dim=1)


def default_dtype_ones(x):
    # forgot dtype=x.dtype: float16 inputs come back as float32
    return minitorch.cat([x, minitorch.ones(x.shape[0], 1)], dim=1)


@pytest.mark.parametrize("wrong", [ones_on_the_left, default_dtype_ones])
def test_add_bias_column_mistakes_fail(wrong, capsys):
    _failure("ch03.add_bias_column", wrong, capsys)


# -- causal_softmax: a device-generic function ------------------------------------------------------------
def _on_two_devices(function):
    return lambda scores: causal_softmax_report(function, scores)


def softmax_with_triu_and_where(scores):
    """Correct, written differently: a triu mask, where() and max over the row."""
    size = scores.shape[-1]
    hidden = minitorch.ones(size, size, dtype=minitorch.bool, device=scores.device).triu(diagonal=1)
    low = minitorch.full_like(scores, float("-inf"))
    visible = minitorch.where(hidden, low, scores)
    exponentials = (visible - visible.max(dim=-1, keepdim=True).values).exp()
    return exponentials / exponentials.sum(-1, keepdim=True)


def mask_made_on_the_cpu(scores):
    size = scores.shape[-1]
    future = minitorch.ones(size, size, dtype=minitorch.bool).triu(1)  # forgot device=
    masked = scores.masked_fill(future, float("-inf"))
    exponentials = (masked - masked.amax(dim=-1, keepdim=True)).exp()
    return exponentials / exponentials.sum(dim=-1, keepdim=True)


def computed_in_numpy(scores):
    array = scores.cpu().numpy()
    size = array.shape[-1]
    masked = np.where(np.triu(np.ones((size, size), dtype=bool), 1), -np.inf, array)
    exponentials = np.exp(masked - masked.max(axis=-1, keepdims=True))
    return minitorch.tensor(exponentials / exponentials.sum(axis=-1, keepdims=True))  # back on the CPU


def not_stable(scores):
    size = scores.shape[-1]
    future = minitorch.ones(size, size, dtype=minitorch.bool, device=scores.device).triu(1)
    exponentials = scores.masked_fill(future, float("-inf")).exp()
    return exponentials / exponentials.sum(dim=-1, keepdim=True)


def diagonal_hidden_too(scores):
    size = scores.shape[-1]
    future = minitorch.ones(size, size, dtype=minitorch.bool, device=scores.device).triu(0)  # hides j == i too
    future[0, 0] = False  # the first row would be empty
    masked = scores.masked_fill(future, float("-inf"))
    exponentials = (masked - masked.amax(dim=-1, keepdim=True)).exp()
    return exponentials / exponentials.sum(dim=-1, keepdim=True)


def hidden_scores_set_to_zero(scores):
    size = scores.shape[-1]
    future = minitorch.ones(size, size, dtype=minitorch.bool, device=scores.device).triu(1)
    masked = scores.masked_fill(future, 0.0)  # exp(0) = 1 still counts
    exponentials = (masked - masked.amax(dim=-1, keepdim=True)).exp()
    return exponentials / exponentials.sum(dim=-1, keepdim=True)


def additive_float32_mask(scores):
    size = scores.shape[-1]
    mask = minitorch.full((size, size), float("-inf"), device=scores.device).triu(1)  # float32: promotes float16
    masked = scores + mask
    exponentials = (masked - masked.amax(dim=-1, keepdim=True)).exp()
    return exponentials / exponentials.sum(dim=-1, keepdim=True)


def test_causal_softmax_written_differently_passes(capsys):
    check("ch03.causal_softmax", _on_two_devices(softmax_with_triu_and_where))
    assert "all 4 public cases pass" in capsys.readouterr().out


def test_causal_softmax_reference_is_torch_on_the_cpu_and_the_second_device():
    torch = require_torch()
    scores = np.random.default_rng(0).standard_normal((2, 5, 5)).astype(np.float32) * 50
    mask = torch.ones(5, 5, dtype=torch.bool).triu(1)
    expected = torch.softmax(torch.from_numpy(scores).masked_fill(mask, float("-inf")), dim=-1).numpy()
    on_cpu, on_device, stayed = causal_softmax_report(SOLUTIONS["causal_softmax"], minitorch.tensor(scores))
    np.testing.assert_allclose(on_cpu.numpy(), expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(on_device.numpy(), expected, rtol=1e-5, atol=1e-7)
    assert stayed.tolist() == [1, 1]


@pytest.mark.parametrize(
    "wrong, says",
    [
        (mask_made_on_the_cpu, "Expected all tensors to be on the same device"),
        (computed_in_numpy, "each result on its input's device (1 = yes)): wrong values"),
        (not_stable, "(large scores (up to about 200): exp overflows float32 unless each row's largest score"),
        (diagonal_hidden_too, "output 1 (the result on the CPU): wrong values"),
        (hidden_scores_set_to_zero, "output 1 (the result on the CPU): wrong values"),
        (additive_float32_mask, "float16 scores: the result keeps the dtype of the scores"),
    ],
    ids=lambda value: getattr(value, "__name__", "says"),
)
def test_causal_softmax_mistakes_fail_naming_the_problem(wrong, says, capsys):
    out = _failure("ch03.causal_softmax", _on_two_devices(wrong), capsys)
    assert says in out, out


def test_causal_softmax_on_the_second_device_runs_there():
    with second_device() as device:
        result = SOLUTIONS["causal_softmax"](minitorch.randn(3, 3, device=device))
        assert result.device == device


# -- module_to: moving parameters and buffers ------------------------------------------------------------
def _report_of(function):
    return lambda sizes, values: module_to_report(function, sizes, values)


def module_to_recursive_with_setattr(module, device):
    """Correct, written differently: recursion over children(), named tensors, setattr for buffers."""
    for child in module.children():
        module_to_recursive_with_setattr(child, device)
    with minitorch.no_grad():
        for _, parameter in module.named_parameters(recurse=False):
            parameter.data = parameter.detach().to(device)
            if parameter.grad is not None:
                parameter.grad.data = parameter.grad.to(device)
    for name, buffer in list(module.named_buffers(recurse=False)):
        setattr(module, name, buffer.to(device))
    return module


def to_without_keeping_the_result(module, device):
    for parameter in module.parameters():
        parameter.to(device)  # returns a moved copy, which is thrown away
    for buffer in module.buffers():
        buffer.to(device)
    return module


def parameters_only(module, device):
    with minitorch.no_grad():
        for parameter in module.parameters():
            parameter.data = parameter.data.to(device)
            if parameter.grad is not None:
                parameter.grad = parameter.grad.to(device)
    return module


def new_parameter_objects(module, device):
    for submodule in module.modules():
        for name, parameter in list(submodule._parameters.items()):
            if parameter is not None:
                submodule._parameters[name] = nn.Parameter(parameter.detach().to(device))
        for name, buffer in submodule._buffers.items():
            if buffer is not None:
                submodule._buffers[name] = buffer.to(device)
    return module


def not_recursive(module, device):
    for submodule in [module, *module.children()]:  # the children of children stay behind
        with minitorch.no_grad():
            for parameter in submodule._parameters.values():
                if parameter is not None:
                    parameter.data = parameter.data.to(device)
                    if parameter.grad is not None:
                        parameter.grad = parameter.grad.to(device)
        for name, buffer in submodule._buffers.items():
            if buffer is not None:
                submodule._buffers[name] = buffer.to(device)
    return module


def gradients_left_behind(module, device):
    for submodule in module.modules():
        with minitorch.no_grad():
            for parameter in submodule._parameters.values():
                if parameter is not None:
                    parameter.data = parameter.data.to(device)
        for name, buffer in submodule._buffers.items():
            if buffer is not None:
                submodule._buffers[name] = buffer.to(device)
    return module


def shortcut_through_module_to(module, device):
    return module.to(device)


def returns_nothing_useful(module, device):
    SOLUTIONS["module_to"](module, device)
    return [module]


def test_module_to_written_differently_passes(capsys):
    check("ch03.module_to", _report_of(module_to_recursive_with_setattr))
    assert "all 2 public cases pass" in capsys.readouterr().out


def test_module_to_reference_is_module_to_on_nested_models_with_batchnorm():
    """The notebook's module_to and nn.Module.to agree on every output of the report, a deep model included."""
    from grading.registry import get

    sizes, values = np.array([5, 4, 3, 3, 2]), np.random.default_rng(1).standard_normal(120)
    mine = _report_of(SOLUTIONS["module_to"])(sizes, values)
    reference = get("ch03.module_to").reference(sizes, values)
    assert len(mine) == len(reference) == 9
    for got, expected in zip(mine, reference):
        np.testing.assert_array_equal(got, expected)
    assert reference[3].all() and reference[4].all() and reference[1].all()  # moved, and the same objects


@pytest.mark.parametrize(
    "wrong, says",
    [
        (to_without_keeping_the_result, "output 4 (parameters on the device (1 = moved)): wrong values"),
        (parameters_only, "output 5 (buffers on the device"),
        (new_parameter_objects, "output 2 (the same Parameter objects as before the move"),
        (not_recursive, "a Sequential nested in a Sequential: the inner layers must move too"),
        (gradients_left_behind, "output 6 (gradients on the device"),
        (shortcut_through_module_to, "nn.Module.to (and cpu, cuda, _apply) is switched off"),
        (returns_nothing_useful, "output 1 (module_to returns the module itself): wrong values"),
    ],
    ids=lambda value: getattr(value, "__name__", "says"),
)
def test_module_to_mistakes_fail_naming_the_problem(wrong, says, capsys):
    out = _failure("ch03.module_to", _report_of(wrong), capsys)
    assert says in out, out


def test_the_checks_leave_no_pretend_gpu_behind():
    check("ch03.module_to", _report_of(SOLUTIONS["module_to"]))
    assert minitorch.nn.Module._apply.__name__ == "_apply"
    if minitorch.cuda.is_available():
        return
    with pytest.raises(RuntimeError, match="Torch not compiled with CUDA enabled"):
        minitorch.zeros(1).to("cuda")
