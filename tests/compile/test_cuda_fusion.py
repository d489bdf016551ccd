"""Fusion on a GPU: a pointwise chain on ``cuda`` tensors compiles to one CuPy ``ElementwiseKernel`` (its CUDA C
interpreted by the stand-in of tests/gpu_standin), with eager's outputs and gradients in float32 and float64, readable
C, and no copy to or from the host.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch._dynamo.testing import CompileCounterWithBackend
from minitorch._inductor import cuda_fusion
from minitorch._inductor.cuda_fusion import CudaFusedKernel
from tests.gpu_standin import counts, installed


def every_template(x, y):
    gate = (x - 0.1).sigmoid()
    return ((x * 2.5 + y).relu() * gate).tanh().exp() / (y * y + 1).sqrt() ** 2 - (-x).exp().log()


def broadcast_division(x, y):
    return (x / (y * y + 0.5)).tanh()


def weighted_row_sums(x, y):
    return (x * y + 1.0).sum(-1)


def kept_column_means(x, y):
    return (x.tanh() * y).mean(dim=0, keepdim=True)


def mean_squared_error(x, y):
    return ((x - y) ** 2).mean()


CASES = [
    (every_template, [(4, 5), (5,)], "fused_kernel_0"),
    (broadcast_division, [(3, 4), (4,)], "fused_mul_add_div_tanh"),
    (weighted_row_sums, [(4, 5), (5,)], "fused_mul_add_sumdim"),
    (kept_column_means, [(6, 3), (3,)], "fused_tanh_mul_meandim"),
    (mean_squared_error, [(3, 4), (3, 4)], "fused_sub_powscalar_mean"),
]
TOLERANCES = {minitorch.float32: dict(rtol=1e-5, atol=1e-6), minitorch.float64: dict(rtol=1e-12, atol=1e-14)}


def _kernels(counter):
    return [node.target for node in counter.graphs[0].graph.nodes if isinstance(node.target, CudaFusedKernel)]


def _host(tensor):
    return tensor.detach().cpu().numpy()


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("function, shapes, kernel_name", CASES, ids=[case[0].__name__ for case in CASES])
def test_a_cuda_chain_is_one_elementwise_kernel_with_eager_outputs_and_gradients(function, shapes, kernel_name, dtype):
    rng = np.random.default_rng(0)
    with installed():
        counter = CompileCounterWithBackend("inductor")
        compiled = minitorch.compile(function, backend=counter)
        for _ in range(3):  # the capture's call, then the compiled kernel
            arrays = [rng.standard_normal(shape) for shape in shapes]
            inputs = [minitorch.tensor(a, dtype=dtype).to("cuda").requires_grad_(True) for a in arrays]
            references = [minitorch.tensor(a, dtype=dtype).to("cuda").requires_grad_(True) for a in arrays]
            output, expected = compiled(*inputs), function(*references)
            assert output.device.type == "cuda" and output.dtype == expected.dtype == dtype
            weights = minitorch.tensor(rng.standard_normal(tuple(expected.shape)), dtype=dtype).to("cuda")
            grads = minitorch.autograd.grad((output * weights).sum(), inputs)
            expected_grads = minitorch.autograd.grad((expected * weights).sum(), references)
            np.testing.assert_allclose(_host(output), _host(expected), **TOLERANCES[dtype])
            for grad, expected_grad in zip(grads, expected_grads):
                assert grad.device.type == "cuda" and grad.dtype == dtype and grad.shape == expected_grad.shape
                np.testing.assert_allclose(_host(grad), _host(expected_grad), **TOLERANCES[dtype])
            with minitorch.no_grad():
                np.testing.assert_allclose(_host(compiled(*inputs)), _host(expected), **TOLERANCES[dtype])
        assert output.grad_fn.name().startswith("Fused")  # the kernel ran, not the captured ops one by one
        kernels = _kernels(counter)
        assert [kernel.__name__ for kernel in kernels] == [kernel_name]
        c_type = {minitorch.float32: "float", minitorch.float64: "double"}[dtype]
        assert f"const {c_type} step_0 = " in kernels[0].source and "np." not in kernels[0].code


def test_the_generated_c_is_readable_and_cached_per_dtypes(capsys):
    def scaled_relu(x, y):
        return (x * 2 + y).relu()

    cuda_fusion.KERNEL_CACHE.clear()
    with installed() as cupy:
        counter = CompileCounterWithBackend("inductor")
        compiled = minitorch.compile(scaled_relu, backend=counter)
        x, y = minitorch.randn(4, 3).to("cuda"), minitorch.randn(3).to("cuda")
        for _ in range(3):
            compiled(x, y)
        (kernel,) = _kernels(counter)
        print(kernel.code)
        assert kernel.source == ("const float step_0 = in_0 * 2.0f;\n"
                                 "const float step_1 = step_0 + in_1;\n"
                                 "const float step_2 = step_1 < 0.0f ? 0.0f : step_1;\n"
                                 "out = step_2")
        assert kernel.input_params == "float32 in_0, float32 in_1"
        assert list(cuda_fusion.KERNEL_CACHE) == [(cupy, "float32 in_0, float32 in_1", "float32 out", kernel.source,
                                                   "fused_mul_add_relu")]  # built once, for three calls
        double = minitorch.randn(4, 3, dtype=minitorch.float64).to("cuda")  # a new dtype: a new kernel
        for _ in range(2):
            compiled(double, y.double())
        assert len(cuda_fusion.KERNEL_CACHE) == 2
    printed = capsys.readouterr().out
    assert "// fused_mul_add_relu: (float32 in_0, float32 in_1) -> (float32 out)" in printed
    assert "out_0 = grad_in_0" in printed


def test_a_fused_chain_makes_no_host_round_trip():
    with installed():
        x = minitorch.randn(8, 16).to("cuda").requires_grad_(True)
        y = minitorch.randn(16).to("cuda").requires_grad_(True)
        compiled = minitorch.compile(lambda x, y: ((x * y + 1.0).sigmoid() * x).sum(-1))
        for _ in range(3):
            compiled(x, y).sum().backward()
        counts.reset()
        compiled(x, y).sum().backward()
        assert (counts.host_to_device, counts.device_to_host, counts.synchronizations) == (0, 0, 0)


def test_a_cuda_module_and_what_c_cannot_write_stay_correct():
    """Parameters read inside the graph; a chain with an infinite number (no C literal) stays eager ops."""
    with installed():
        minitorch.manual_seed(0)
        model = minitorch.nn.Sequential(minitorch.nn.Linear(5, 4), minitorch.nn.Tanh()).to("cuda")
        x = minitorch.randn(3, 5).to("cuda")
        counter = CompileCounterWithBackend("inductor")
        compiled = minitorch.compile(lambda x: model(x) * 3.0 - 1.0, backend=counter)
        for _ in range(3):
            model.zero_grad()
            compiled(x).sum().backward()
            got = [_host(p.grad) for p in model.parameters()]
            model.zero_grad()
            (model(x) * 3.0 - 1.0).sum().backward()
            for value, expected in zip(got, [_host(p.grad) for p in model.parameters()]):
                np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
        assert [kernel.__name__ for kernel in _kernels(counter)] == ["fused_tanh_mul_sub"]

        def infinite_scale(x):
            return (x * float("inf")).tanh()

        counter = CompileCounterWithBackend("inductor")
        compiled = minitorch.compile(infinite_scale, backend=counter)
        for _ in range(3):
            np.testing.assert_array_equal(_host(compiled(x)), _host(infinite_scale(x)))
        assert _kernels(counter) == []


POINTWISE_OPS = ("add", "sub", "rsub", "mul", "div", "neg", "pow", "square", "sqrt", "reciprocal", "exp", "log", "tanh",
                 "sigmoid", "relu")


def test_the_op_tables_pointwise_ops_compiled_on_cuda_give_eager_outputs_and_gradients():
    """Every sample of the op table's pointwise ops, float64 on the stand-in GPU: the compiled call (second) against
    eager minitorch on the same device, outputs and gradients to 1e-12."""
    from tests.ops.op_table import all_ops

    fused = set()
    with installed():
        for op in [op for op in all_ops() if op.name in POINTWISE_OPS]:
            for index, sample in enumerate(op.samples):
                rng = np.random.default_rng(index)
                arrays = [(arg.make(rng), arg.kind == "float" and arg.grad) for arg in sample]

                def tensors(arrays=arrays):
                    return [minitorch.from_numpy(a.copy()).to("cuda").requires_grad_(grad) for a, grad in arrays]

                counter = CompileCounterWithBackend("inductor")
                compiled = minitorch.compile(lambda *xs, op=op: op.fn(minitorch, *xs), backend=counter)
                compiled(*tensors())
                results = []
                for function in (compiled, lambda *xs, op=op: op.fn(minitorch, *xs)):
                    inputs = tensors()
                    output = function(*inputs)
                    wanted = [x for x in inputs if x.requires_grad]
                    grad_output = minitorch.from_numpy(np.random.default_rng(1).standard_normal(tuple(output.shape)))
                    grads = minitorch.autograd.grad(output, wanted, grad_output.to(output.dtype).to("cuda")) \
                        if wanted and output.requires_grad else []
                    results.append([_host(output)] + [_host(g) for g in grads])
                what = f"{op.name} sample {index}"
                assert len(results[0]) == len(results[1]), what
                for mine, theirs in zip(*results):
                    assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, what
                    np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-14, equal_nan=True, err_msg=what)
                if counter.graphs and _kernels(counter):
                    fused.add(op.name)
    # each op the C templates cover ran as a kernel; reciprocal, rsub and a tensor power are ops the templates lack
    assert fused == set(POINTWISE_OPS) - {"reciprocal", "rsub", "pow"}
