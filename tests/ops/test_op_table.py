"""Every op in the table, checked against PyTorch and against finite differences.

See ``op_table.py`` for how entries are written; this file holds the checks only.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import minitorch
from tests.ops.op_table import Arg, all_ops
from tests.support import require_torch

OPS = all_ops()
CASES = [(op, index) for op in OPS for index in range(len(op.samples))]
CASE_IDS = [f"{op.name}-{index}" for op, index in CASES]
# Entries whose PyTorch call cannot serve as the oracle (``skip_torch`` gives the reason) are
# left out of the parity checks altogether, not skipped: gradcheck still covers them.
PARITY = [(case, case_id) for case, case_id in zip(CASES, CASE_IDS) if not case[0].skip_torch]


def _as_tuple(value):
    return value if isinstance(value, (tuple, list)) else (value,)


def _make_arrays(sample, seed: int):
    rng = np.random.default_rng(seed)
    return [arg.make(rng) for arg in sample]


# ``make test-gpu`` sets MINITORCH_TEST_DEVICE=cuda: minitorch's inputs then live on the GPU
# (PyTorch, the oracle, stays on the CPU), so every parity check runs the CuPy code path.
TEST_DEVICE = os.environ.get("MINITORCH_TEST_DEVICE", "cpu")


def _to_lib(lib, arrays, sample, dtype_name: str, noncontiguous: bool = False):
    """Tensors of ``lib`` from the arrays; float ones in ``dtype_name``, requiring grad if the Arg says so."""
    tensors = []
    on_device = lib is minitorch and TEST_DEVICE != "cpu"
    for array, arg in zip(arrays, sample):
        if arg.kind == "float":
            array = array.astype(dtype_name)
        if noncontiguous and array.ndim >= 1 and array.size > 1:
            padded = np.stack([array, np.zeros_like(array)], axis=-1)  # then take every other element
            padded_tensor = lib.from_numpy(padded)
            tensor = (padded_tensor.to(TEST_DEVICE) if on_device else padded_tensor)[..., 0]
        else:
            tensor = lib.from_numpy(array.copy())
            if on_device:
                tensor = tensor.to(TEST_DEVICE)
        if arg.kind == "float" and arg.grad:
            tensor.requires_grad_(True)
        tensors.append(tensor)
    return tensors


def _numpy(tensor):
    return tensor.detach().cpu().numpy()


def _run(op, lib, tensors):
    fn = op.fn if lib is minitorch else op.oracle()
    return [o for o in _as_tuple(fn(lib, *tensors)) if o is not None]


def _grads(lib, outputs, inputs, seed: int):
    """Backward with fixed random grad_outputs; returns one gradient (or None) per input needing grad."""
    differentiable_outputs = [o for o in outputs if o.requires_grad]
    wanted = [t for t in inputs if t.requires_grad]
    if not differentiable_outputs or not wanted:
        return []
    rng = np.random.default_rng(seed + 1)
    grad_outputs = [  # made on the host, then put where each output is (a GPU under make test-gpu)
        lib.from_numpy(rng.standard_normal(tuple(o.shape)).astype(str(o.dtype).split(".")[-1])).to(o.device)
        for o in differentiable_outputs
    ]
    grads = lib.autograd.grad(differentiable_outputs, wanted, grad_outputs, allow_unused=True)
    return [None if g is None else _numpy(g) for g in grads]


def _compare(ours, theirs, rtol, atol, what):
    assert len(ours) == len(theirs), f"{what}: {len(ours)} results vs PyTorch's {len(theirs)}"
    for index, (a, b) in enumerate(zip(ours, theirs)):
        if a is None or b is None:
            # PyTorch may return an explicit zero where minitorch has no path, or the reverse.
            other = b if a is None else a
            assert other is None or not np.any(other), (
                f"{what}[{index}]: one side has no gradient, the other is nonzero"
            )
            continue
        assert a.shape == b.shape, f"{what}[{index}]: shape {a.shape} vs PyTorch's {b.shape}"
        assert a.dtype == b.dtype, f"{what}[{index}]: dtype {a.dtype} vs PyTorch's {b.dtype}"
        if a.dtype.kind in "biu":
            np.testing.assert_array_equal(a, b, err_msg=f"{what}[{index}]")
        else:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{what}[{index}]")


def _parity(op, sample, dtype_name, rtol, atol, seed, noncontiguous=False):
    torch = require_torch()
    arrays = _make_arrays(sample, seed)
    ours_in = _to_lib(minitorch, arrays, sample, dtype_name, noncontiguous)
    theirs_in = _to_lib(torch, arrays, sample, dtype_name, noncontiguous)
    ours_out = _run(op, minitorch, ours_in)
    theirs_out = _run(op, torch, theirs_in)
    _compare([_numpy(o) for o in ours_out], [_numpy(o) for o in theirs_out], rtol, atol, f"{op.name} forward")
    for mine, theirs in zip(ours_out, theirs_out):
        assert mine.requires_grad == theirs.requires_grad, (
            f"{op.name}: requires_grad {mine.requires_grad} vs PyTorch's {theirs.requires_grad}"
        )
    ours_grads = _grads(minitorch, ours_out, ours_in, seed)
    _compare(ours_grads, _grads(torch, theirs_out, theirs_in, seed), rtol, atol, f"{op.name} backward")


@pytest.mark.parametrize("op,index", [c for c, _ in PARITY], ids=[i for _, i in PARITY])
def test_parity_float64(op, index):
    _parity(op, op.samples[index], "float64", op.rtol, op.atol, seed=index)


@pytest.mark.parametrize("op,index", [c for c, _ in PARITY if c[0].float32], ids=[i for c, i in PARITY if c[0].float32])
def test_parity_float32(op, index):
    _parity(op, op.samples[index], "float32", op.rtol32, op.atol32, seed=100 + index)


@pytest.mark.parametrize(
    "op,index", [c for c, _ in PARITY if c[0].noncontiguous], ids=[i for c, i in PARITY if c[0].noncontiguous]
)
def test_parity_noncontiguous(op, index):
    _parity(op, op.samples[index], "float64", op.rtol, op.atol, seed=200 + index, noncontiguous=True)


def _checkable(op, index):
    sample = op.samples[index]
    return op.gradcheck and any(arg.kind == "float" and arg.grad for arg in sample)


GRAD_CASES = [c for c in CASES if _checkable(*c)]
GRAD_IDS = [i for c, i in zip(CASES, CASE_IDS) if _checkable(*c)]


def _differentiable_fn(op, sample, arrays):
    """gradcheck's function: the op with its non-differentiated inputs held fixed."""
    fixed = {
        i: minitorch.from_numpy(a.copy())
        for i, (a, arg) in enumerate(zip(arrays, sample))
        if not (arg.kind == "float" and arg.grad)
    }
    floats = [i for i, arg in enumerate(sample) if arg.kind == "float" and arg.grad]

    def fn(*differentiated):
        inputs = [None] * len(sample)
        for i, t in fixed.items():
            inputs[i] = t
        for i, t in zip(floats, differentiated):
            inputs[i] = t
        return tuple(o for o in _run(op, minitorch, inputs) if o.requires_grad)

    inputs = tuple(minitorch.from_numpy(arrays[i].astype(np.float64)).requires_grad_() for i in floats)
    return fn, inputs


@pytest.mark.parametrize("op,index", GRAD_CASES, ids=GRAD_IDS)
def test_gradcheck(op, index):
    sample = op.samples[index]
    fn, inputs = _differentiable_fn(op, sample, _make_arrays(sample, 300 + index))
    assert minitorch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


GRADGRAD_CASES = [c for c in GRAD_CASES if c[0].gradgradcheck]
GRADGRAD_IDS = [i for c, i in zip(GRAD_CASES, GRAD_IDS) if c[0].gradgradcheck]


@pytest.mark.parametrize("op,index", GRADGRAD_CASES, ids=GRADGRAD_IDS)
def test_gradgradcheck(op, index):
    sample = op.samples[index]
    fn, inputs = _differentiable_fn(op, sample, _make_arrays(sample, 400 + index))
    assert minitorch.autograd.gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


# -- hypothesis: broadcastable shapes for elementwise ops -----------------------------------
ELEMENTWISE = [op for op in OPS if op.elementwise]


@st.composite
def _broadcast_sample(draw, count):
    shapes = hnp.mutually_broadcastable_shapes(num_shapes=count, min_dims=0, max_dims=3, min_side=0, max_side=3)
    return draw(shapes).input_shapes


@pytest.mark.parametrize("op", ELEMENTWISE, ids=[op.name for op in ELEMENTWISE])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_broadcasting_hypothesis(op, data):
    shapes = data.draw(_broadcast_sample(op.elementwise))
    template = op.samples[0]
    sample = tuple(
        dataclasses_replace(template[i], shape=tuple(shape), values=None) if i < len(template) else Arg(tuple(shape))
        for i, shape in enumerate(shapes)
    ) + tuple(template[len(shapes):])
    seed = data.draw(st.integers(0, 2**16))
    _parity(op, sample, "float64", op.rtol, op.atol, seed=seed)


def dataclasses_replace(arg, **changes):
    import dataclasses

    return dataclasses.replace(arg, **changes)


# -- output strides ---------------------------------------------------------------------------------------------
# Where minitorch's output is laid out otherwise than PyTorch's, and why. Each is row-major in minitorch where
# PyTorch's is not (never the other way: that would make a following ``.view`` fail where PyTorch's works).
LAYOUT_DIFFERENCES = {
    **dict.fromkeys(
        ["cholesky_method", "inverse", "inverse_method", "linalg_cholesky", "linalg_eigh", "linalg_inv", "linalg_qr",
         "linalg_qr_complete_tall", "linalg_qr_complete_wide", "linalg_qr_only_q", "linalg_qr_only_r", "linalg_qr_r",
         "linalg_qr_wide", "linalg_solve", "linalg_solve_only_b", "linalg_svd", "linalg_svd_full", "qr", "qr_method",
         "svd"],
        "LAPACK: for a non-contiguous input PyTorch returns LAPACK's column-major work matrices; NumPy's are "
        "row-major"),
    **dict.fromkeys(
        ["diagonal_scatter", "diagonal_scatter_offset", "select_scatter", "select_scatter_negative", "slice_scatter",
         "slice_scatter_defaults", "slice_scatter_negative", "slice_scatter_step"],
        "PyTorch's *_scatter keeps a non-contiguous input's gaps in its copy; minitorch's copy is compact"),
    **dict.fromkeys(["rot90", "rot90_k3_dims", "rot90_negative_k"],
                    "PyTorch's rot90 returns flip + transpose of a non-contiguous input's copy without compacting it"),
    "einsum_ellipsis": "PyTorch's einsum returns a permuted view of its bmm result for this equation",
    "unravel_index": "PyTorch's unravel_index returns strided columns of one (n, dims) result",
}


def _layouts(op, index, noncontiguous):
    torch = require_torch()
    sample = op.samples[index]
    arrays = _make_arrays(sample, seed=300 + index)
    ours = _run(op, minitorch, _to_lib(minitorch, arrays, sample, "float64", noncontiguous))
    theirs = _run(op, torch, _to_lib(torch, arrays, sample, "float64", noncontiguous))
    return [(o, t) for o, t in zip(ours, theirs) if isinstance(o, minitorch.Tensor) and isinstance(t, torch.Tensor)]


def _same_layout(ours, theirs) -> bool:
    """Equal strides on every dimension longer than 1 (a length-1 dimension's stride is arbitrary, and so are an
    empty tensor's: it has no elements to lay out)."""
    if ours.numel() == 0:
        return True
    return [s for s, n in zip(ours.stride(), ours.shape) if n > 1] == \
        [s for s, n in zip(theirs.stride(), theirs.shape) if n > 1]


STRIDE_CASES = [(case, case_id, nc) for case, case_id in PARITY for nc in (False, True)
                if not nc or case[0].noncontiguous]


@pytest.mark.parametrize("op,index,noncontiguous", [(c[0], c[1], nc) for c, _, nc in STRIDE_CASES],
                         ids=[f"{i}-{'noncontiguous' if nc else 'contiguous'}" for _, i, nc in STRIDE_CASES])
def test_output_strides_are_pytorchs(op, index, noncontiguous):
    """Outputs have PyTorch's strides, so a following ``.view`` works exactly where PyTorch's does."""
    for ours, theirs in _layouts(op, index, noncontiguous):
        if theirs.is_contiguous():
            assert ours.is_contiguous(), (
                f"{op.name}: PyTorch's output is contiguous, minitorch's has strides {ours.stride()}")
        if op.name not in LAYOUT_DIFFERENCES:
            assert _same_layout(ours, theirs), (
                f"{op.name}: strides {ours.stride()} vs PyTorch's {theirs.stride()} (shape {tuple(ours.shape)})")


@pytest.mark.parametrize("name", sorted(LAYOUT_DIFFERENCES))
def test_each_listed_layout_difference_is_real(name):
    """The list above stays honest: an op leaves it as soon as its strides become PyTorch's."""
    ops = [op for op in OPS if op.name == name]
    assert ops, f"{name} is not in the op table"
    differs = any(not _same_layout(ours, theirs)
                  for op in ops for index in range(len(op.samples)) for noncontiguous in (False, True)
                  if not noncontiguous or op.noncontiguous
                  for ours, theirs in _layouts(op, index, noncontiguous))
    assert differs, f"{name}'s strides are PyTorch's now: remove it from LAYOUT_DIFFERENCES"


# -- output strides of elementwise ops on inputs in other layouts ---------------------------------------------------
# PyTorch's TensorIterator lays a new output out by its operands' strides, the first operand deciding first; NumPy
# picks its own order where operands disagree. Each layout below stores the same values another way; minitorch's
# outputs must have PyTorch's strides for each (``minitorch/_memory_format.py: layout_of_result``).
def _transposed(lib, array):
    return lib.from_numpy(np.ascontiguousarray(array.transpose())).permute(*reversed(range(array.ndim)))


def _channels_last(lib, array):
    """Axis 1 fastest in memory (channels-last for an image batch)."""
    order = (0, *range(2, array.ndim), 1)
    return lib.from_numpy(np.ascontiguousarray(array.transpose(order))).permute(*np.argsort(order).tolist())


def _expanded(lib, array):
    """Its first row seen along axis 0 (stride 0 there)."""
    return lib.from_numpy(array[:1].copy()).expand(*array.shape)


LAYOUTS = {
    "transposed": (_transposed, "all"), "first_transposed": (_transposed, "first"),
    "second_transposed": (_transposed, "second"), "channels_last": (_channels_last, "all"),
    "first_channels_last": (_channels_last, "first"), "expanded": (_expanded, "all"),
    "first_expanded": (_expanded, "first"), "expanded_and_transposed": (None, "mixed"),
}


def _in_layout(lib, arrays, sample, layout):
    """``_to_lib``'s tensors (float64), each stored as ``layout`` says."""
    make, which = LAYOUTS[layout]
    tensors = []
    for position, (array, arg) in enumerate(zip(arrays, sample)):
        if arg.kind == "float":
            array = array.astype("float64")
        maker = (_expanded if position == 0 else _transposed) if which == "mixed" else make
        wanted = which in ("all", "mixed") or (which == "first") == (position == 0)
        needs = 3 if maker is _channels_last else 2 if maker is _transposed else 1
        stored = wanted and array.ndim >= needs and array.size > 1
        tensor = maker(lib, array) if stored else lib.from_numpy(array.copy())
        if arg.kind == "float" and arg.grad:
            tensor.requires_grad_(True)
        tensors.append(tensor)
    return tensors


ELEMENTWISE_LAYOUT_CASES = [(op, index, layout) for op in OPS if op.elementwise and not op.skip_torch
                            for index in range(len(op.samples)) for layout in LAYOUTS
                            if any(len(arg.shape) >= 2 for arg in op.samples[index])]


@pytest.mark.parametrize("op,index,layout", ELEMENTWISE_LAYOUT_CASES,
                         ids=[f"{op.name}-{index}-{layout}" for op, index, layout in ELEMENTWISE_LAYOUT_CASES])
def test_elementwise_output_strides_follow_the_operands_like_pytorchs(op, index, layout):
    torch = require_torch()
    sample = op.samples[index]
    arrays = _make_arrays(sample, seed=400 + index)
    ours = _run(op, minitorch, _in_layout(minitorch, arrays, sample, layout))
    theirs = _run(op, torch, _in_layout(torch, arrays, sample, layout))
    for mine, their in zip(ours, theirs):
        if isinstance(mine, minitorch.Tensor) and isinstance(their, torch.Tensor):
            assert _same_layout(mine, their), (
                f"{op.name} ({layout}): strides {mine.stride()} vs PyTorch's {their.stride()} "
                f"(shape {tuple(mine.shape)})")
