"""Reduction fusion: a sum or mean that reads a pointwise chain's result becomes the kernel's last step,
with eager's outputs and gradients (float64), and stays out when the chain's result is needed elsewhere.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch._dynamo.testing import CompileCounterWithBackend


def weighted_row_sums(a, b, c):
    return (a * b + c).sum(-1)


def mean_squared_error(x, y):
    return ((x - y) ** 2).mean()


def kept_column_means(x, y):
    return (x.tanh() * y).mean(dim=0, keepdim=True)


def total_of_exponentials(x, y):
    return (x.exp() / (y * y + 1.0)).sum()


def softplus_rows(x, y):
    return ((x + y).exp() + 1.0).log().sum(dim=(0, 2))


CASES = [
    (weighted_row_sums, [(4, 5), (4, 5), (5,)], "fused_mul_add_sumdim"),
    (mean_squared_error, [(3, 4), (3, 4)], "fused_sub_powscalar_mean"),
    (kept_column_means, [(6, 3), (3,)], "fused_tanh_mul_meandim"),
    (total_of_exponentials, [(2, 3, 4), (3, 4)], "fused_exp_mul_add_div_sum"),
    (softplus_rows, [(2, 3, 4), (2, 3, 4)], "fused_add_exp_add_log_sumdim"),
]


def _kernels(counter):
    return [node for node in counter.graphs[0].graph.nodes if node.op == "call_function"]


@pytest.mark.parametrize("function, shapes, kernel_name", CASES, ids=[case[0].__name__ for case in CASES])
def test_the_reduction_joins_the_kernel_with_eager_outputs_and_gradients(function, shapes, kernel_name):
    counter = CompileCounterWithBackend("inductor")
    compiled = minitorch.compile(function, backend=counter)
    rng = np.random.default_rng(0)
    for _ in range(3):  # capture, then the compiled kernel
        inputs = [minitorch.from_numpy(rng.standard_normal(shape)).requires_grad_(True) for shape in shapes]
        references = [x.detach().requires_grad_(True) for x in inputs]
        output, expected = compiled(*inputs), function(*references)
        weights = minitorch.from_numpy(rng.standard_normal(tuple(expected.shape)))
        grads = minitorch.autograd.grad((output * weights).sum(), inputs)
        expected_grads = minitorch.autograd.grad((expected * weights).sum(), references)
        np.testing.assert_allclose(output.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-14)
        for grad, expected_grad in zip(grads, expected_grads):
            np.testing.assert_allclose(grad.numpy(), expected_grad.numpy(), rtol=1e-10, atol=1e-12)
        with minitorch.no_grad():  # the inference kernel: intermediates in preallocated buffers
            np.testing.assert_allclose(compiled(*inputs).numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-14)
    kernels = _kernels(counter)
    assert [node.name for node in kernels] == [kernel_name]
    assert "np.sum(" in kernels[0].target.source or "np.mean(" in kernels[0].target.source
    assert "spread" in kernels[0].target.backward_source  # the gradient copied back over the reduced dims


def test_a_chain_result_read_elsewhere_is_not_reduced_inside_the_kernel():
    def also_returns_the_chain(x, y):
        z = x * y + 1.0
        return z.sum(-1), z

    counter = CompileCounterWithBackend("inductor")
    compiled = minitorch.compile(also_returns_the_chain, backend=counter)
    x, y = minitorch.randn(3, 4, dtype=minitorch.float64), minitorch.randn(3, 4, dtype=minitorch.float64)
    for _ in range(2):
        for got, expected in zip(compiled(x, y), also_returns_the_chain(x, y)):
            np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12)
    assert [node.name for node in _kernels(counter)] == ["fused_mul_add", "sum_dim"]


def test_an_integer_sum_and_a_mean_of_nothing_stay_eager_ops():
    def sums_into_int64(x):
        return (x * 2.0).sum(dtype=minitorch.int64)

    def mean_of_nothing(x):
        return (x * 2.0).mean(dim=0)

    for function, x in ((sums_into_int64, minitorch.randn(3, 4) * 10), (mean_of_nothing, minitorch.randn(0, 3))):
        counter = CompileCounterWithBackend("inductor")
        compiled = minitorch.compile(function, backend=counter)
        for _ in range(2):
            np.testing.assert_array_equal(compiled(x).numpy(), function(x).numpy())
        assert not any(node.name.endswith(("sum", "sumdim", "mean", "meandim")) and node.name.startswith("fused")
                       for node in _kernels(counter))
