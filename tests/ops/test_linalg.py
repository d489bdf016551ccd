"""Matrix products and einsum beyond the op table: PyTorch's errors, dtypes, node names, no copies.

Forward/backward parity and gradchecks (first and second order) live in ``table_linalg.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import minitorch
from tests.support import require_torch


def r(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype or lib.float32)


ERRORS = {
    "matmul_shapes": lambda lib: r(lib, 2, 3) @ r(lib, 4, 5),
    "matmul_vector_matrix": lambda lib: r(lib, 2) @ r(lib, 4, 5),
    "matmul_matrix_vector": lambda lib: r(lib, 2, 3) @ r(lib, 4),
    "matmul_vectors": lambda lib: r(lib, 3) @ r(lib, 4),
    "matmul_batch_matrix": lambda lib: r(lib, 2, 2, 3) @ r(lib, 4, 5),
    "matmul_batch_vector": lambda lib: r(lib, 2, 2, 3) @ r(lib, 4),
    "matmul_batches": lambda lib: r(lib, 6, 2, 3) @ r(lib, 6, 4, 5),
    "matmul_broadcast_batches": lambda lib: r(lib, 5, 2, 2, 3) @ r(lib, 2, 4, 5),
    "matmul_vector_batch": lambda lib: r(lib, 2) @ r(lib, 2, 4, 5),
    "matmul_batch_sizes": lambda lib: r(lib, 6, 2, 3) @ r(lib, 5, 3, 5),
    "matmul_0d": lambda lib: lib.matmul(lib.tensor(1.0), r(lib, 3)),
    "matmul_dtype": lambda lib: r(lib, 2, 3) @ r(lib, 3, 4, dtype=lib.float64),
    "matmul_dtype_reversed": lambda lib: r(lib, 2, 3, dtype=lib.float64) @ r(lib, 3, 4),
    "matmul_dtype_int": lambda lib: r(lib, 2, 3, dtype=lib.int32) @ r(lib, 3, 4, dtype=lib.int64),
    "matmul_dtype_vector": lambda lib: r(lib, 2, 3) @ r(lib, 3, dtype=lib.float64),
    "matmul_dtype_vectors": lambda lib: r(lib, 3) @ r(lib, 3, dtype=lib.float64),
    "matmul_dtype_batches": lambda lib: r(lib, 2, 2, 3) @ r(lib, 2, 3, 4, dtype=lib.float64),
    "matmul_bool": lambda lib: r(lib, 2, 3, dtype=lib.bool) @ r(lib, 3, 4, dtype=lib.bool),
    "mm_vector": lambda lib: lib.mm(r(lib, 3), r(lib, 3, 4)),
    "mm_vector_second": lambda lib: lib.mm(r(lib, 2, 3), r(lib, 3)),
    "mm_batch": lambda lib: lib.mm(r(lib, 2, 2, 3), r(lib, 3, 4)),
    "mm_shapes": lambda lib: lib.mm(r(lib, 2, 3), r(lib, 4, 5)),
    "mm_dtype": lambda lib: lib.mm(r(lib, 2, 3), r(lib, 3, 4, dtype=lib.int64)),
    "bmm_matrix": lambda lib: lib.bmm(r(lib, 2, 3), r(lib, 2, 3, 4)),
    "bmm_matrix_second": lambda lib: lib.bmm(r(lib, 2, 2, 3), r(lib, 3, 4)),
    "bmm_batch_count": lambda lib: lib.bmm(r(lib, 2, 2, 3), r(lib, 3, 3, 4)),
    "bmm_inner": lambda lib: lib.bmm(r(lib, 2, 2, 3), r(lib, 2, 4, 4)),
    "bmm_dtype": lambda lib: lib.bmm(r(lib, 2, 2, 3), r(lib, 2, 3, 4, dtype=lib.float64)),
    "mv_vector": lambda lib: lib.mv(r(lib, 3), r(lib, 3)),
    "mv_matrix": lambda lib: lib.mv(r(lib, 2, 3), r(lib, 3, 1)),
    "mv_shapes": lambda lib: lib.mv(r(lib, 2, 3), r(lib, 4)),
    "mv_dtype": lambda lib: lib.mv(r(lib, 2, 3, dtype=lib.float64), r(lib, 3)),
    "dot_matrices": lambda lib: lib.dot(r(lib, 2, 3), r(lib, 2, 3)),
    "dot_vector_matrix": lambda lib: lib.dot(r(lib, 3), r(lib, 2, 3)),
    "dot_lengths": lambda lib: lib.dot(r(lib, 3), r(lib, 4)),
    "dot_dtype": lambda lib: lib.dot(r(lib, 3), r(lib, 3, dtype=lib.float64)),
    "outer_matrix": lambda lib: lib.outer(r(lib, 2, 3), r(lib, 3)),
    "einsum_sizes": lambda lib: lib.einsum("ij,jk->ik", r(lib, 2, 3), r(lib, 4, 5)),
    "einsum_rank": lambda lib: lib.einsum("ij,jk->ik", r(lib, 2, 3, 1), r(lib, 3, 5)),
    "einsum_rank_ellipsis": lambda lib: lib.einsum("...ijk->i", r(lib, 2, 3)),
    "einsum_too_many": lambda lib: lib.einsum("ij->ij", r(lib, 2, 3), r(lib, 3, 5)),
    "einsum_too_few": lambda lib: lib.einsum("ij,jk->ik", r(lib, 2, 3)),
    "einsum_dtype": lambda lib: lib.einsum("ij,jk->ik", r(lib, 2, 3), r(lib, 3, 5, dtype=lib.float64)),
    "einsum_output_repeated": lambda lib: lib.einsum("ij->ii", r(lib, 2, 2)),
    "einsum_output_unknown": lambda lib: lib.einsum("ij->k", r(lib, 2, 2)),
    "einsum_bad_character": lambda lib: lib.einsum("i1->i", r(lib, 2, 2)),
    "einsum_two_arrows": lambda lib: lib.einsum("ij->i->j", r(lib, 2, 3)),
    "einsum_diagonal_sizes": lambda lib: lib.einsum("ii->i", r(lib, 2, 3)),
    "einsum_two_ellipses": lambda lib: lib.einsum("......ij->i", r(lib, 2, 3)),
    "einsum_no_operands": lambda lib: lib.einsum("->"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(name):
    torch = require_torch()
    fn = ERRORS[name]
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)) as ours:
        fn(minitorch)
    assert str(ours.value) == str(theirs.value)


RESULTS = {
    "matmul_int": lambda lib: lib.arange(6).reshape(2, 3) @ lib.arange(12).reshape(3, 4),
    "matmul_int32": lambda lib: lib.arange(6, dtype=lib.int32).reshape(2, 3) @ lib.arange(3, dtype=lib.int32),
    "dot_int": lambda lib: lib.dot(lib.arange(3), lib.arange(3)),
    "bmm_int": lambda lib: lib.bmm(lib.arange(12).reshape(2, 2, 3), lib.arange(12).reshape(2, 3, 2)),
    "matmul_empty": lambda lib: r(lib, 2, 0) @ r(lib, 0, 4),
    "matmul_empty_batch": lambda lib: r(lib, 0, 2, 3) @ r(lib, 3, 4),
    "outer_promotes": lambda lib: lib.outer(lib.arange(2), lib.ones(3)),
    "outer_float64": lambda lib: lib.outer(r(lib, 2), r(lib, 3, dtype=lib.float64)),
    "einsum_int": lambda lib: lib.einsum("ij,jk", lib.arange(6).reshape(2, 3), lib.arange(6).reshape(3, 2)),
    "einsum_spaces": lambda lib: lib.einsum(" ij , jk -> ik ", lib.arange(6.0).reshape(2, 3), r(lib, 3, 4)),
    "einsum_implicit_trace": lambda lib: lib.einsum("ii", lib.arange(9.0).reshape(3, 3)),
    "einsum_implicit_ellipsis": lambda lib: lib.einsum("...ij", lib.arange(24.0).reshape(4, 2, 3)),
    "einsum_ellipsis_middle": lambda lib: lib.einsum("i...j,j->i...", lib.arange(30.0).reshape(2, 5, 3), r(lib, 3)),
    "einsum_output_ellipsis_without_input": lambda lib: lib.einsum("ij->...i", lib.arange(6.0).reshape(2, 3)),
    "einsum_uppercase": lambda lib: lib.einsum("iJ,Jk", lib.arange(6.0).reshape(2, 3), r(lib, 3, 4)),
}


@pytest.mark.parametrize("name", list(RESULTS))
def test_results_match_pytorch(name):
    torch = require_torch()
    theirs = RESULTS[name](torch)
    ours = RESULTS[name](minitorch)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    assert isinstance(ours._data, np.ndarray)


def test_node_names():
    torch = require_torch()
    for shapes in [((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3,)), ((2, 2, 3), (2, 3, 4))]:
        ours = (minitorch.ones(*shapes[0], requires_grad=True) @ minitorch.ones(*shapes[1])).grad_fn.name()
        theirs = (torch.ones(*shapes[0], requires_grad=True) @ torch.ones(*shapes[1])).grad_fn.name()
        if len(shapes[0]) == 3:
            theirs = "BmmBackward0"  # PyTorch wraps its bmm in a view here; the product node is BmmBackward0
        assert ours == theirs
    batched = minitorch.bmm(minitorch.ones(2, 2, 3, requires_grad=True), minitorch.ones(2, 3, 1))
    assert batched.grad_fn.name() == "BmmBackward0"


def test_matmul_backward_uses_transposed_views_not_copies(monkeypatch):
    """``da = grad @ b^T`` reads ``b`` through a transposed view: the backward makes no copy of ``b``."""
    a = minitorch.randn(5, 4, requires_grad=True)
    b = minitorch.randn(4, 3, requires_grad=True)
    seen = []
    original = minitorch.ops.linalg.MatMul.forward

    def spy(ctx, left, right):
        seen.append((left, right))
        return original(ctx, left, right)

    monkeypatch.setattr(minitorch.ops.linalg.MatMul, "forward", staticmethod(spy))  # Mm inherits it
    (a @ b).backward(minitorch.ones(5, 3))
    assert len(seen) == 3  # forward, then one product per input
    (_, b_transposed), (a_transposed, _) = seen[1], seen[2]
    assert np.shares_memory(b_transposed, b._data) and np.shares_memory(a_transposed, a._data)


def test_einsum_second_derivative_matches_pytorch():
    """Einsum's backward is einsum, so gradients of gradients work (here a Hessian-vector product)."""
    torch = require_torch()
    rng = np.random.default_rng(0)
    a_values, b_values, v_values = rng.standard_normal((3, 3)), rng.standard_normal((3, 4)), rng.standard_normal((3, 3))

    def hvp(lib):
        a = lib.tensor(a_values, requires_grad=True)
        b = lib.tensor(b_values)
        y = (lib.einsum("ii,ij,ik->jk", a, b, a) ** 2).sum()
        (grad,) = lib.autograd.grad(y, a, create_graph=True)
        (second,) = lib.autograd.grad((grad * lib.tensor(v_values)).sum(), a)
        return second.numpy()

    np.testing.assert_allclose(hvp(minitorch), hvp(torch), rtol=1e-7)


def test_top_level_names():
    for name in ("matmul", "mm", "bmm", "mv", "dot", "outer", "einsum"):
        assert callable(getattr(minitorch, name)), name


@settings(max_examples=40, deadline=None)
@given(
    batches=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=0, max_side=3),
    sizes=st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
    vectors=st.tuples(st.booleans(), st.booleans()),
    seed=st.integers(0, 2**16),
)
def test_matmul_shapes_hypothesis(batches, sizes, vectors, seed):
    """Random ranks (vectors, matrices, broadcast batches, size 0 and 1): forward and gradients match PyTorch."""
    torch = require_torch()
    rows, inner, columns = sizes
    shape_a = (inner,) if vectors[0] else batches.input_shapes[0] + (rows, inner)
    shape_b = (inner,) if vectors[1] else batches.input_shapes[1] + (inner, columns)
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(shape_a), rng.standard_normal(shape_b)]

    def run(lib):
        a, b = (lib.tensor(array, requires_grad=True) for array in arrays)
        product = a @ b
        grad_output = lib.tensor(np.random.default_rng(seed + 1).standard_normal(tuple(product.shape)))
        grads = lib.autograd.grad(product, (a, b), grad_output)
        return [product.detach().numpy()] + [g.numpy() for g in grads]

    for ours, theirs in zip(run(minitorch), run(torch)):
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
