"""Every op in the table keeps its results and its gradients on the device of its inputs.

CI has no GPU, so the test suite registers a second ``cuda`` backend whose two devices are backed
by host memory (``tests/support.py``'s ``fake_cuda_backend``). Each op-table entry runs once on
the CPU and once with its tensor inputs on ``cuda:1``: every output and every input gradient must
say ``cuda:1``, and the numbers must equal the CPU run's. An op that quietly builds a CPU tensor
(an index, a mask, a constant) fails here, with PyTorch's device-mixing error or a wrong device,
instead of on a learner's GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.ops.test_op_table import CASE_IDS, CASES, _as_tuple, _make_arrays, _to_lib

DEVICE = "cuda:1"
FIRST_SAMPLES = [(case, case_id) for case, case_id in zip(CASES, CASE_IDS) if case[1] == 0]


def _tensors(values) -> list:
    return [value for value in _as_tuple(values) if isinstance(value, minitorch.Tensor)]


def _run_with_gradients(op, inputs, seed: int):
    outputs = _tensors(op.fn(minitorch, *inputs))
    differentiable = [output for output in outputs if output.requires_grad]
    wanted = [tensor for tensor in inputs if isinstance(tensor, minitorch.Tensor) and tensor.requires_grad]
    gradients = []
    if differentiable and wanted:
        rng = np.random.default_rng(seed)
        grad_outputs = [
            minitorch.tensor(rng.standard_normal(tuple(output.shape)), dtype=output.dtype, device=output.device)
            for output in differentiable
        ]
        gradients = minitorch.autograd.grad(differentiable, wanted, grad_outputs, allow_unused=True)
    return outputs, [gradient for gradient in gradients if gradient is not None]


@pytest.mark.parametrize("op,index", [case for case, _ in FIRST_SAMPLES], ids=[i for _, i in FIRST_SAMPLES])
def test_results_and_gradients_stay_on_the_inputs_device(fake_cuda_for_module, op, index):
    sample = op.samples[index]
    arrays = _make_arrays(sample, seed=index)
    on_cpu = _to_lib(minitorch, arrays, sample, "float64")
    on_device = [tensor.detach().to(DEVICE).requires_grad_(tensor.requires_grad) for tensor in on_cpu]
    cpu_outputs, cpu_gradients = _run_with_gradients(op, on_cpu, seed=index + 1)
    outputs, gradients = _run_with_gradients(op, on_device, seed=index + 1)
    if not on_device:
        return  # an op without tensor inputs (a factory) makes its result on the default device
    for kind, tensors in (("output", outputs), ("gradient", gradients)):
        for position, tensor in enumerate(tensors):
            assert str(tensor.device) == DEVICE, f"{op.name}: {kind} {position} is on {tensor.device}, not {DEVICE}"
    assert len(outputs) == len(cpu_outputs) and len(gradients) == len(cpu_gradients)
    for ours, reference in zip(outputs + gradients, cpu_outputs + cpu_gradients):
        np.testing.assert_array_equal(ours.detach().cpu().numpy(), reference.detach().cpu().numpy())
