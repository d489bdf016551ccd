"""Matrix products and einsum beyond the op table: PyTorch's errors, dtypes, node names, no copies.

Forward/backward parity and gradchecks (first and second order) live in ``table_linalg.py``.
"""

from __future__ import annotations

import warnings

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
    # -- the add* family ------------------------------------------------------------------------------
    "addmm_input_shape": lambda lib: lib.addmm(r(lib, 2, 5), r(lib, 3, 4), r(lib, 4, 5)),
    "addmm_input_3d": lambda lib: lib.addmm(r(lib, 1, 3, 5), r(lib, 3, 4), r(lib, 4, 5)),
    "addmm_shapes": lambda lib: lib.addmm(r(lib, 3, 5), r(lib, 3, 4), r(lib, 3, 5)),
    "addmm_vector": lambda lib: lib.addmm(r(lib, 2, 2), r(lib, 2), r(lib, 2, 2)),
    "addmm_dtype": lambda lib: lib.addmm(r(lib, 2, 2, dtype=lib.float64), r(lib, 2, 2), r(lib, 2, 2)),
    "addmv_input": lambda lib: lib.addmv(r(lib, 2), r(lib, 3, 4), r(lib, 4)),
    "addmv_matrix_input": lambda lib: lib.addmv(r(lib, 1, 2), r(lib, 2, 2), r(lib, 2)),
    "baddbmm_input": lambda lib: lib.baddbmm(r(lib, 3, 3, 5), r(lib, 2, 3, 4), r(lib, 2, 4, 5)),
    "baddbmm_batches": lambda lib: lib.baddbmm(r(lib, 2), r(lib, 3, 2, 2), r(lib, 2, 2, 2)),
    "addbmm_input": lambda lib: lib.addbmm(r(lib, 2, 5), r(lib, 2, 3, 4), r(lib, 2, 4, 5)),
    "addbmm_batches": lambda lib: lib.addbmm(r(lib, 2), r(lib, 3, 2, 2), r(lib, 2, 2, 2)),
    "addcmul_broadcast": lambda lib: lib.addcmul(r(lib, 3), r(lib, 2, 1), r(lib, 4, 3)),
    "addcdiv_integers": lambda lib: lib.addcdiv(r(lib, 2), r(lib, 2, dtype=lib.long), r(lib, 2, dtype=lib.long)),
    # -- products, distances ------------------------------------------------------------------------------
    "inner_last_dim": lambda lib: lib.inner(r(lib, 3, 4), r(lib, 2, 3)),
    "inner_dtype": lambda lib: lib.inner(r(lib, 3), r(lib, 3, dtype=lib.float64)),
    "cross_length": lambda lib: lib.cross(r(lib, 3, 4), r(lib, 3, 4), dim=1),
    "cross_negative_dim_length": lambda lib: lib.cross(r(lib, 3, 4), r(lib, 3, 4), dim=-1),
    "cross_dims": lambda lib: lib.cross(r(lib, 2, 3), r(lib, 3), dim=-1),
    "cross_broadcast": lambda lib: lib.cross(r(lib, 2, 3), r(lib, 4, 3), dim=1),
    "cross_dtype": lambda lib: lib.cross(r(lib, 3, dtype=lib.long), r(lib, 3), dim=0),
    "dist_integers": lambda lib: lib.dist(r(lib, 3, dtype=lib.long), r(lib, 3, dtype=lib.long)),
    "dist_broadcast": lambda lib: lib.dist(r(lib, 3), r(lib, 2)),
    "cdist_1d": lambda lib: lib.cdist(r(lib, 4), r(lib, 5, 4)),
    "cdist_columns": lambda lib: lib.cdist(r(lib, 3, 4), r(lib, 5, 3)),
    "cdist_negative_p": lambda lib: lib.cdist(r(lib, 3, 4), r(lib, 5, 4), p=-1),
    "cdist_integers": lambda lib: lib.cdist(r(lib, 2, 2, dtype=lib.long), r(lib, 2, 2, dtype=lib.long)),
    "cdist_batches": lambda lib: lib.cdist(r(lib, 2, 3, 4), r(lib, 3, 2, 4)),
    "cdist_dtype": lambda lib: lib.cdist(r(lib, 3, 4), r(lib, 2, 4, dtype=lib.float64)),
    # -- diagonals ------------------------------------------------------------------------------------------
    "diagonal_same_dims": lambda lib: r(lib, 3, 4).diagonal(0, 1, 1),
    "diagonal_same_dims_negative": lambda lib: r(lib, 3, 4).diagonal(0, 1, -1),
    "diagonal_1d": lambda lib: r(lib, 3).diagonal(),
    "diag_3d": lambda lib: lib.diag(r(lib, 2, 2, 2)),
    "diag_0d": lambda lib: lib.diag(lib.tensor(1.0)),
    "diag_embed_same_dims": lambda lib: lib.diag_embed(r(lib, 3, 4), 0, 1, 1),
    "diag_embed_0d": lambda lib: lib.diag_embed(lib.tensor(1.0)),
    "diagonal_scatter_shape": lambda lib: lib.diagonal_scatter(r(lib, 3, 4), r(lib, 4)),
    "trace_3d": lambda lib: lib.trace(r(lib, 2, 2, 2)),
    "trace_1d": lambda lib: lib.trace(r(lib, 2)),
    "trace_bool": lambda lib: lib.trace(r(lib, 2, 2, dtype=lib.bool)),
    # -- determinant and inverse ------------------------------------------------------------------------------
    "det_not_square": lambda lib: lib.det(r(lib, 3, 4)),
    "det_integers": lambda lib: lib.det(r(lib, 2, 2, dtype=lib.long)),
    "det_1d": lambda lib: lib.det(r(lib, 2)),
    "inverse_not_square": lambda lib: lib.inverse(r(lib, 2, 3, 4)),
    "inverse_integers": lambda lib: lib.inverse(r(lib, 2, 2, dtype=lib.long)),
    "slogdet_integers": lambda lib: lib.slogdet(r(lib, 2, 2, dtype=lib.long)),
    "slogdet_not_square": lambda lib: lib.slogdet(r(lib, 2, 3)),
    "logdet_integers": lambda lib: lib.logdet(r(lib, 2, 2, dtype=lib.long)),
    "logdet_not_square": lambda lib: lib.logdet(r(lib, 2, 3)),
    # -- vander, cov, corrcoef ------------------------------------------------------------------------------------
    "vander_2d": lambda lib: lib.vander(r(lib, 2, 3)),
    "vander_negative_columns": lambda lib: lib.vander(r(lib, 3), -1),
    "cov_3d": lambda lib: lib.cov(r(lib, 2, 2, 2)),
    "cov_bool": lambda lib: lib.cov(r(lib, 2, 2, dtype=lib.bool)),
    "cov_fweights_float": lambda lib: lib.cov(r(lib, 2, 3), fweights=r(lib, 3)),
    "cov_aweights_integers": lambda lib: lib.cov(r(lib, 2, 3), aweights=r(lib, 3, dtype=lib.long)),
    "cov_weights_numel": lambda lib: lib.cov(r(lib, 2, 3), fweights=r(lib, 4, dtype=lib.long)),
    "cov_weights_dims": lambda lib: lib.cov(r(lib, 2, 3), aweights=r(lib, 1, 3)),
    "cov_fweights_negative": lambda lib: lib.cov(r(lib, 2, 3), fweights=-r(lib, 3, dtype=lib.long)),
    "cov_aweights_negative": lambda lib: lib.cov(r(lib, 2, 3), aweights=-r(lib, 3)),
    "cov_weights_zero": lambda lib: lib.cov(r(lib, 2, 3), aweights=r(lib, 3) * 0),
    "corrcoef_3d": lambda lib: lib.corrcoef(r(lib, 2, 2, 2)),
    # -- the torch.linalg namespace ------------------------------------------------------------------------------
    "linalg_inv_not_square": lambda lib: lib.linalg.inv(r(lib, 2, 3)),
    "linalg_matrix_norm_1d": lambda lib: lib.linalg.matrix_norm(r(lib, 3)),
    "linalg_matrix_norm_order": lambda lib: lib.linalg.matrix_norm(r(lib, 3, 3), 3),
    "linalg_matrix_norm_order_name": lambda lib: lib.linalg.matrix_norm(r(lib, 3, 3), "foo"),
    "linalg_norm_3d_with_ord": lambda lib: lib.linalg.norm(r(lib, 2, 2, 2), 1),
    "linalg_cross_length": lambda lib: lib.linalg.cross(r(lib, 3, 4), r(lib, 3, 4)),
    # -- more products, powers, distances ----------------------------------------------------------------------
    "vdot_matrices": lambda lib: lib.vdot(r(lib, 2, 3), r(lib, 2, 3)),
    "vdot_dtype": lambda lib: lib.vdot(r(lib, 3), r(lib, 3, dtype=lib.float64)),
    "vdot_lengths": lambda lib: lib.vdot(r(lib, 3), r(lib, 4)),
    "tensordot_sizes": lambda lib: lib.tensordot(r(lib, 2, 3), r(lib, 4, 5), 1),
    "tensordot_list_lengths": lambda lib: lib.tensordot(r(lib, 2, 3), r(lib, 3, 5), ([1], [0, 1])),
    "tensordot_negative": lambda lib: lib.tensordot(r(lib, 2, 3), r(lib, 3, 5), -1),
    "tensordot_too_many": lambda lib: lib.tensordot(r(lib, 2, 3), r(lib, 3, 5), 3),
    "tensordot_dtype": lambda lib: lib.tensordot(r(lib, 2, 3), r(lib, 3, 5, dtype=lib.float64), 1),
    "matrix_power_not_square": lambda lib: lib.matrix_power(r(lib, 2, 3), 2),
    "matrix_power_1d": lambda lib: lib.matrix_power(r(lib, 3), 2),
    "matrix_power_negative_int": lambda lib: lib.matrix_power(r(lib, 2, 2, dtype=lib.long), -1),
    "pdist_1d": lambda lib: lib.pdist(r(lib, 3)),
    "pdist_negative_p": lambda lib: lib.pdist(r(lib, 3, 2), -1),
    "pdist_integers": lambda lib: lib.pdist(r(lib, 3, 2, dtype=lib.long)),
    # -- decompositions, solve, pinv, matrix_exp, spectral norms ----------------------------------------------------
    "qr_1d": lambda lib: lib.linalg.qr(r(lib, 3)),
    "qr_integers": lambda lib: lib.linalg.qr(r(lib, 3, 3, dtype=lib.long)),
    "qr_mode": lambda lib: lib.linalg.qr(r(lib, 3, 3), mode="foo"),
    "qr_complete_backward": lambda lib: lib.linalg.qr(r(lib, 4, 3).requires_grad_(), mode="complete")[0].sum()
    .backward(),
    "qr_r_backward": lambda lib: lib.linalg.qr(r(lib, 4, 3).requires_grad_(), mode="r")[1].sum().backward(),
    "svd_1d": lambda lib: lib.linalg.svd(r(lib, 3)),
    "svd_integers": lambda lib: lib.linalg.svd(r(lib, 3, 3, dtype=lib.long)),
    "svdvals_integers": lambda lib: lib.linalg.svdvals(r(lib, 3, 3, dtype=lib.long)),
    "eigh_not_square": lambda lib: lib.linalg.eigh(r(lib, 3, 4)),
    "eigh_uplo": lambda lib: lib.linalg.eigh(r(lib, 3, 3), UPLO="X"),
    "eigh_integers": lambda lib: lib.linalg.eigh(r(lib, 3, 3, dtype=lib.long)),
    "eigvalsh_integers": lambda lib: lib.linalg.eigvalsh(r(lib, 3, 3, dtype=lib.long)),
    "cholesky_integers": lambda lib: lib.linalg.cholesky(r(lib, 3, 3, dtype=lib.long)),
    "solve_integers": lambda lib: lib.linalg.solve(r(lib, 3, 3, dtype=lib.long), r(lib, 3, dtype=lib.long)),
    "cholesky_not_square": lambda lib: lib.linalg.cholesky(r(lib, 3, 4)),
    "solve_vector_size": lambda lib: lib.linalg.solve(r(lib, 3, 3), r(lib, 4)),
    "solve_matrix_size": lambda lib: lib.linalg.solve(r(lib, 3, 3), r(lib, 4, 2)),
    "solve_right_size": lambda lib: lib.linalg.solve(r(lib, 3, 3), r(lib, 2, 4), left=False),
    "solve_dtype": lambda lib: lib.linalg.solve(r(lib, 3, 3), r(lib, 3, dtype=lib.float64)),
    "solve_not_square": lambda lib: lib.linalg.solve(r(lib, 3, 4), r(lib, 3)),
    "solve_batches": lambda lib: lib.linalg.solve(r(lib, 2, 3, 3), r(lib, 3, 3, 2)),
    "matrix_exp_not_square": lambda lib: lib.linalg.matrix_exp(r(lib, 3, 4)),
    "matrix_exp_integers": lambda lib: lib.matrix_exp(r(lib, 3, 3, dtype=lib.long)),
    "matrix_exp_1d": lambda lib: lib.linalg.matrix_exp(r(lib, 3)),
    "pinv_1d": lambda lib: lib.linalg.pinv(r(lib, 3)),
    "pinv_integers": lambda lib: lib.linalg.pinv(r(lib, 3, 3, dtype=lib.long)),
    "matrix_rank_integers": lambda lib: lib.linalg.matrix_rank(r(lib, 3, 3, dtype=lib.long)),
    "matrix_norm_2_integers": lambda lib: lib.linalg.matrix_norm(r(lib, 3, 3, dtype=lib.long), 2),
    "matrix_norm_nuc_same_dims": lambda lib: lib.linalg.matrix_norm(r(lib, 3, 3), "nuc", dim=(0, 0)),
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
    "addmm_int": lambda lib: lib.addmm(lib.arange(4).reshape(2, 2), lib.arange(4).reshape(2, 2),
                                       lib.arange(4).reshape(2, 2), beta=2, alpha=3),
    "addmm_beta_zero_ignores_nan": lambda lib: lib.addmm(lib.full((2, 2), float("nan")), r(lib, 2, 2), r(lib, 2, 2),
                                                         beta=0),
    "addmm_empty": lambda lib: lib.addmm(r(lib, 2, 3), r(lib, 2, 0), r(lib, 0, 3)),
    "addcmul_promotes": lambda lib: lib.addcmul(lib.arange(3), lib.arange(3), r(lib, 3), value=2),
    "addcdiv_int_and_float": lambda lib: lib.addcdiv(lib.arange(3.0), lib.arange(3), r(lib, 3) * 2),
    "inner_int": lambda lib: lib.inner(lib.arange(6).reshape(2, 3), lib.arange(3)),
    "inner_0d": lambda lib: lib.inner(lib.tensor(2.0), lib.tensor(3.0)),
    "kron_int": lambda lib: lib.kron(lib.arange(4).reshape(2, 2), lib.arange(3)),
    "kron_promotes": lambda lib: lib.kron(lib.arange(3), r(lib, 2)),
    "cross_int": lambda lib: lib.cross(lib.tensor([1, 2, 3]), lib.tensor([4, 5, 7]), dim=0),
    "cross_broadcast_batch": lambda lib: lib.cross(lib.arange(3.0).reshape(1, 3), lib.arange(6.0).reshape(2, 3), dim=1),
    "cdist_empty": lambda lib: lib.cdist(r(lib, 0, 3), r(lib, 2, 3)),
    "cdist_p0": lambda lib: lib.cdist(lib.tensor([[0.0, 1.0], [2.0, 2.0]]), lib.tensor([[0.0, 3.0]]), p=0),
    "diag_int": lambda lib: lib.diag(lib.arange(3), 1),
    "diag_embed_int": lambda lib: lib.diag_embed(lib.arange(6).reshape(2, 3)),
    "diagonal_empty": lambda lib: r(lib, 0, 3).diagonal(),
    "trace_int32": lambda lib: lib.trace(lib.arange(9, dtype=lib.int32).reshape(3, 3)),
    "det_empty": lambda lib: lib.det(r(lib, 0, 0)),
    "det_singular": lambda lib: lib.det(lib.tensor([[1.0, 2.0], [2.0, 4.0]])),
    "inverse_empty": lambda lib: lib.inverse(r(lib, 0, 0)),
    "logdet_singular": lambda lib: lib.logdet(lib.tensor([[1.0, 2.0], [2.0, 4.0]])),
    "slogdet_singular_sign": lambda lib: lib.slogdet(lib.tensor([[1.0, 2.0], [2.0, 4.0]])).sign,
    "vander_float32": lambda lib: lib.vander(lib.arange(3, dtype=lib.float32)),
    "vander_int32": lambda lib: lib.vander(lib.arange(3, dtype=lib.int32), 4),
    "cov_int": lambda lib: lib.cov(lib.tensor([[1, 2, 4], [0, 3, 1]])),
    "cov_one_observation": lambda lib: lib.cov(lib.tensor([[1.0], [2.0]]), correction=0),
    "corrcoef_int": lambda lib: lib.corrcoef(lib.tensor([[1, 2, 4], [0, 3, 1]])),
    "tensordot_int": lambda lib: lib.tensordot(lib.arange(6).reshape(2, 3), lib.arange(12).reshape(3, 4), 1),
    "tensordot_tensor_dims": lambda lib: lib.tensordot(r(lib, 2, 3), r(lib, 3, 4), lib.tensor([[1], [0]])),
    "tensordot_0d_dims_tensor": lambda lib: lib.tensordot(r(lib, 2, 3), r(lib, 3, 4), lib.tensor(1)),
    "vdot_int": lambda lib: lib.vdot(lib.arange(3), lib.arange(3)),
    "diagflat_int": lambda lib: lib.diagflat(lib.arange(4).reshape(2, 2), 1),
    "matrix_power_int_zero": lambda lib: lib.matrix_power(lib.arange(4).reshape(2, 2), 0),
    "matrix_power_int": lambda lib: lib.matrix_power(lib.arange(4).reshape(2, 2), 5),
    "matrix_power_empty": lambda lib: lib.matrix_power(r(lib, 0, 0), 3),
    "pdist_one_row": lambda lib: lib.pdist(r(lib, 1, 3)),
    "pdist_no_rows": lambda lib: lib.pdist(r(lib, 0, 3)),
    "pdist_p0": lambda lib: lib.pdist(lib.tensor([[0.0, 1.0], [2.0, 1.0], [0.0, 1.0]]), 0),
    "matrix_rank": lambda lib: lib.linalg.matrix_rank(lib.arange(12.0).reshape(3, 4)),
    "matrix_rank_batch": lambda lib: lib.linalg.matrix_rank(lib.stack([lib.eye(3), lib.ones(3, 3), r(lib, 3, 3) * 0])),
    "matrix_rank_float64": lambda lib: lib.linalg.matrix_rank(lib.eye(4, dtype=lib.float64)),
    "matrix_rank_hermitian": lambda lib: lib.linalg.matrix_rank(lib.diag(lib.tensor([2.0, -1.0, 0.0])),
                                                                hermitian=True),
    "matrix_rank_atol": lambda lib: lib.linalg.matrix_rank(lib.diag(lib.tensor([2.0, 0.5, 0.1])), atol=0.3),
    "matrix_rank_rtol": lambda lib: lib.linalg.matrix_rank(lib.diag(lib.tensor([2.0, 0.5, 0.1])), rtol=0.2),
    "matrix_rank_both": lambda lib: lib.linalg.matrix_rank(lib.diag(lib.tensor([2.0, 0.5, 0.1])), atol=0.3, rtol=0.01),
    "matrix_rank_empty": lambda lib: lib.linalg.matrix_rank(r(lib, 0, 3)),
    "pinv_singular": lambda lib: lib.linalg.pinv(lib.tensor([[1.0, 2.0], [2.0, 4.0]])),
    "pinv_rtol": lambda lib: lib.linalg.pinv(lib.diag(lib.tensor([2.0, 0.5, 0.1])), rtol=0.2),
    "pinv_atol_rtol": lambda lib: lib.linalg.pinv(lib.diag(lib.tensor([2.0, 0.5, 0.1])), atol=0.3, rtol=0.01),
    "pinverse_rcond": lambda lib: lib.pinverse(lib.diag(lib.tensor([2.0, 0.5, 0.1])), rcond=0.1),
    "svd_no_uv": lambda lib: lib.svd(lib.arange(12.0).reshape(4, 3), compute_uv=False).U,
    "svd_no_uv_values": lambda lib: lib.svd(lib.tensor([[3.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 4.0]]),
                                            compute_uv=False).S,
    "qr_r_only_q": lambda lib: lib.linalg.qr(lib.arange(12.0).reshape(4, 3), mode="r").Q,
    "matrix_exp_empty": lambda lib: lib.matrix_exp(r(lib, 2, 0, 0)),
    "matrix_exp_nilpotent": lambda lib: lib.matrix_exp(lib.tensor([[0.0, 1.0], [0.0, 0.0]])),
    "solve_batched_vectors": lambda lib: lib.linalg.solve(lib.eye(3).expand(2, 3, 3) * 2, lib.ones(2, 3)),
    "cholesky_upper": lambda lib: lib.linalg.cholesky(lib.tensor([[4.0, 2.0], [2.0, 3.0]]), upper=True),
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


NEW_NAMES = ("addmm", "addmv", "baddbmm", "addbmm", "addcmul", "addcdiv", "inner", "kron", "cross", "dist", "cdist",
             "diagonal", "diag", "diag_embed", "diagonal_scatter", "trace", "det", "inverse", "logdet", "slogdet",
             "vander", "cov", "corrcoef")
NEW_METHODS = ("addmm", "addmv", "baddbmm", "addbmm", "addcmul", "addcdiv", "inner", "kron", "cross", "dist",
               "diagonal", "diag", "diag_embed", "diagonal_scatter", "trace", "det", "inverse", "logdet", "slogdet",
               "cov", "corrcoef")


def test_new_names_exist_in_both_libraries():
    torch = require_torch()
    for name in NEW_NAMES:
        assert callable(getattr(minitorch, name)) and callable(getattr(torch, name)), name
    for name in NEW_METHODS:
        assert hasattr(minitorch.Tensor, name) and hasattr(torch.Tensor, name), name


NODES = {
    "diagonal": lambda lib, x: x.diagonal(),
    "diag_vector": lambda lib, x: lib.diag(x[0, 0]),
    "diag_matrix": lambda lib, x: lib.diag(x[0]),
    "diag_embed": lambda lib, x: lib.diag_embed(x),
    "diagonal_scatter": lambda lib, x: lib.diagonal_scatter(x, x.diagonal() * 2),
    "det": lambda lib, x: lib.det(x[:, :, :2]),
    "inverse": lambda lib, x: lib.inverse(x[:, :, :2]),
    "slogdet": lambda lib, x: lib.slogdet(x[:, :, :2]).logabsdet,
    "logdet": lambda lib, x: lib.logdet(x[:, :, :2]),
    "inner": lambda lib, x: lib.inner(x, x),
    "vdot": lambda lib, x: lib.vdot(x[0, 0], x[1, 1]),
    "diagflat": lambda lib, x: lib.diagflat(x),
    "matrix_power": lambda lib, x: lib.matrix_power(x[0, :, :2], 3),
    "linalg_qr": lambda lib, x: lib.linalg.qr(x).R,
    "linalg_svd": lambda lib, x: lib.linalg.svd(x).S,
    "svdvals": lambda lib, x: lib.linalg.svdvals(x),
    "linalg_eigh": lambda lib, x: lib.linalg.eigh(x[:, :, :2]).eigenvalues,
    "linalg_cholesky": lambda lib, x: lib.linalg.cholesky(x @ x.mT),
    "linalg_solve": lambda lib, x: lib.linalg.solve(x[:, :, :2], x),
    "linalg_pinv": lambda lib, x: lib.linalg.pinv(x),
    "matrix_exp": lambda lib, x: lib.matrix_exp(x[:, :, :2]),
}


@pytest.mark.parametrize("name", list(NODES))
def test_node_names_of_new_ops(name):
    torch = require_torch()
    ours = NODES[name](minitorch, minitorch.randn(2, 2, 3, requires_grad=True))
    theirs = NODES[name](torch, torch.randn(2, 2, 3, requires_grad=True))
    assert ours.grad_fn.name() == theirs.grad_fn.name()


def test_diagonal_is_a_writable_view_like_pytorchs():
    torch = require_torch()
    results = []
    for lib in (minitorch, torch):
        leaf = lib.arange(12.0).reshape(3, 4).requires_grad_()
        x = leaf * 1
        diagonal = x.diagonal(1)
        version = diagonal._version
        diagonal.mul_(10)  # written through the view: x changes, and so does its history
        assert diagonal._version == version + 1 and x._version == diagonal._version
        (x * lib.arange(12.0).reshape(3, 4)).sum().backward()
        results.append((x.detach().numpy(), leaf.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)
    plain = minitorch.zeros(3, 3)
    assert np.shares_memory(plain.diagonal().numpy(), plain.numpy())
    plain.diagonal().fill_(1.0)
    assert plain.tolist() == minitorch.eye(3).tolist()


def test_diag_of_a_matrix_is_a_copy():
    x = minitorch.zeros(3, 3)
    assert not np.shares_memory(minitorch.diag(x).numpy(), x.numpy())


def test_slogdet_returns_a_named_tuple():
    torch = require_torch()
    a = [[1.0, 2.0], [3.0, 4.0]]
    ours, theirs = minitorch.slogdet(minitorch.tensor(a)), torch.slogdet(torch.tensor(a))
    assert type(ours).__name__ == type(theirs).__name__ == "slogdet"
    assert ours._fields == ("sign", "logabsdet")
    np.testing.assert_allclose([ours.sign.item(), ours.logabsdet.item()], [theirs.sign.item(), theirs.logabsdet.item()])
    assert repr(ours).startswith("minitorch.return_types.slogdet(")


def test_inverse_of_a_singular_matrix_raises():
    # PyTorch names the zero pivot of its LU factorisation; NumPy does not expose it, so the message is shorter.
    with pytest.raises(RuntimeError, match="singular"):
        minitorch.inverse(minitorch.tensor([[1.0, 2.0], [2.0, 4.0]]))


def test_cross_without_dim_warns_and_uses_the_first_dimension_of_size_3():
    torch = require_torch()
    values = np.arange(18.0).reshape(3, 2, 3) % 5
    for lib in (minitorch, torch):
        with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
            result = lib.cross(lib.tensor(values), lib.tensor(values[::-1].copy()))
        if lib is minitorch:
            ours = result.numpy()
    np.testing.assert_allclose(ours, result.numpy())


def test_cov_warns_when_there_are_no_degrees_of_freedom():
    torch = require_torch()
    for lib in (minitorch, torch):
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
            result = lib.cov(lib.tensor([[1.0], [2.0]]))
        assert bool(result.isnan().all() or result.isinf().all()), lib


def test_det_and_inverse_second_derivatives_match_pytorch():
    torch = require_torch()
    values = np.random.default_rng(0).standard_normal((3, 3)) + 3 * np.eye(3)

    def hessian_vector(lib):
        a = lib.tensor(values, requires_grad=True)
        y = lib.det(a) * lib.inverse(a).sum() + lib.logdet(a @ a.mT)
        (grad,) = lib.autograd.grad(y, a, create_graph=True)
        (second,) = lib.autograd.grad((grad * lib.tensor(values.T)).sum(), a)
        return second.numpy()

    np.testing.assert_allclose(hessian_vector(minitorch), hessian_vector(torch), rtol=1e-7)


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


LATER_NAMES = ("vdot", "tensordot", "diagflat", "matrix_power", "pdist", "qr", "svd", "pinverse", "matrix_exp",
               "cholesky")
LATER_METHODS = ("vdot", "diagflat", "matrix_power", "matrix_exp", "qr", "svd", "pinverse", "cholesky")
LINALG_NAMES = ("qr", "svd", "svdvals", "pinv", "matrix_exp", "matrix_power", "solve", "eigh", "eigvalsh", "cholesky",
                "matrix_rank")


def test_later_names_exist_in_both_libraries():
    torch = require_torch()
    for name in LATER_NAMES:
        assert callable(getattr(minitorch, name)) and callable(getattr(torch, name)), name
    for name in LATER_METHODS:
        assert hasattr(minitorch.Tensor, name) and hasattr(torch.Tensor, name), name
    for name in LINALG_NAMES:
        assert callable(getattr(minitorch.linalg, name)) and callable(getattr(torch.linalg, name)), name


@pytest.mark.parametrize("call", [
    lambda lib, a: lib.linalg.qr(a), lambda lib, a: lib.linalg.svd(a), lambda lib, a: lib.linalg.eigh(a @ a.mT),
    lambda lib, a: lib.svd(a), lambda lib, a: lib.qr(a),
], ids=["linalg_qr", "linalg_svd", "linalg_eigh", "svd", "qr"])  # fmt: skip
def test_decompositions_return_named_tuples(call):
    torch = require_torch()
    values = np.arange(6.0).reshape(3, 2) ** 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.qr is deprecated
        ours, theirs = call(minitorch, minitorch.tensor(values)), call(torch, torch.tensor(values))
    assert type(ours).__name__ == type(theirs).__name__
    for field in ours._fields:  # PyTorch's names, holding the same shapes
        assert getattr(ours, field).shape == tuple(getattr(theirs, field).shape), field
    assert repr(ours).startswith(f"minitorch.return_types.{type(theirs).__name__}(")


@pytest.mark.parametrize("name", ["qr", "cholesky"])
def test_deprecated_decompositions_warn_like_pytorch(name):
    # PyTorch warns once per process (which another test may have used up): its text is copied, minus the C++ location
    with pytest.warns(UserWarning, match=f"torch.{name} is deprecated in favor of torch.linalg.{name}"):
        getattr(minitorch, name)(minitorch.tensor([[4.0, 2.0], [2.0, 3.0]]))


def test_decomposition_second_derivatives_match_pytorch():
    """The backward formulas of qr, svd, eigh, cholesky, solve, pinv and matrix_exp are Tensor ops: their own
    gradients (a Hessian-vector product) match PyTorch's."""
    torch = require_torch()
    rng = np.random.default_rng(3)
    values, direction = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))

    def hessian_vector(lib):
        a = lib.tensor(values, requires_grad=True)
        square = a[:3] + 3 * lib.eye(3, dtype=a.dtype)
        q, r = lib.linalg.qr(a)
        u, s, vh = lib.linalg.svd(a, full_matrices=False)
        eigenvalues, eigenvectors = lib.linalg.eigh(square + square.mT)
        y = ((q * r[0]).sum() + (u * s).abs().sum() + (eigenvectors ** 2 * eigenvalues).sum()
             + lib.linalg.cholesky(square @ square.mT).sum() + lib.linalg.solve(square, a[1:]).sum()
             + lib.linalg.pinv(a).sum() + lib.matrix_exp(square / 3).sum())  # fmt: skip
        (grad,) = lib.autograd.grad(y, a, create_graph=True)
        (second,) = lib.autograd.grad((grad * lib.tensor(direction)).sum(), a)
        return grad.detach().numpy(), second.numpy()

    for ours, theirs in zip(hessian_vector(minitorch), hessian_vector(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-10)


def test_dist_is_one_node_as_in_pytorch_and_twice_differentiable():
    torch = require_torch()
    names = []
    for lib in (minitorch, torch):
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        names.append(lib.dist(a, lib.tensor([0.5, -1.0]), 3).grad_fn.name())
    assert names[0] == names[1] == "DistBackward0"
    rng = np.random.default_rng(3)
    a = minitorch.from_numpy(rng.standard_normal((3, 4))).requires_grad_()
    b = minitorch.from_numpy(rng.standard_normal((4,))).requires_grad_()
    for p in (2, 1.5, 3, float("inf")):
        assert minitorch.autograd.gradcheck(lambda x, y, p=p: minitorch.dist(x, y, p), (a, b))
    for p in (2, 3):
        assert minitorch.autograd.gradgradcheck(lambda x, y, p=p: minitorch.dist(x, y, p), (a, b))


# -- linalg.lstsq, multi_dot, vecdot ---------------------------------------------------------------------------
LSTSQ_A = [[1.0, 1, 1], [2, 3, 4], [3, 5, 2], [4, 2, 5], [5, 4, 3]]
LSTSQ_B = [[-10.0, -3], [12, 14], [14, 12], [16, 16], [18, 16]]


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("rows, vector", [(5, False), (3, False), (5, True)])
def test_lstsq_matches_pytorch_for_each_driver(driver, rows, vector):
    torch = require_torch()
    results = []
    for lib in (torch, minitorch):
        A = lib.tensor(LSTSQ_A[:rows], dtype=lib.float64)
        B = lib.tensor(LSTSQ_B[:rows], dtype=lib.float64)
        results.append(lib.linalg.lstsq(A, B[:, 0] if vector else B, driver=driver))
    theirs, ours = results
    for field in ("solution", "residuals", "rank", "singular_values"):
        expected, got = getattr(theirs, field), getattr(ours, field)
        assert tuple(got.shape) == tuple(expected.shape), field
        assert str(got.dtype).replace("minitorch.", "torch.") == str(expected.dtype), field
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10, atol=1e-9, err_msg=field)


def test_lstsq_solution_is_differentiable():
    torch = require_torch()
    grads = []
    for lib in (torch, minitorch):
        A = lib.tensor(LSTSQ_A, dtype=lib.float64, requires_grad=True)
        B = lib.tensor(LSTSQ_B, dtype=lib.float64, requires_grad=True)
        lib.linalg.lstsq(A, B).solution.pow(2).sum().backward()
        grads.append((A.grad.numpy(), B.grad.numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-8, atol=1e-10)


def test_lstsq_refuses_an_unknown_driver_like_pytorch():
    torch = require_torch()
    with pytest.raises(RuntimeError) as theirs:
        torch.linalg.lstsq(torch.ones(2, 2), torch.ones(2, 1), driver="gelsx")
    with pytest.raises(RuntimeError) as ours:
        minitorch.linalg.lstsq(minitorch.ones(2, 2), minitorch.ones(2, 1), driver="gelsx")
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("shapes", [[(2,), (2, 3), (3,)], [(2, 3), (3, 4), (4, 2)], [(3,), (3,)], [(1, 2), (2, 5)]])
def test_multi_dot_matches_pytorch(shapes):
    torch = require_torch()
    rng = np.random.default_rng(len(shapes))
    arrays = [rng.standard_normal(shape) for shape in shapes]
    theirs = torch.linalg.multi_dot([torch.tensor(a) for a in arrays])
    ours = minitorch.linalg.multi_dot([minitorch.tensor(a) for a in arrays])
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("x_shape, y_shape, dim", [((2, 3), (3,), -1), ((4, 2), (4, 2), 0), ((2, 1, 3), (5, 3), -1)])
def test_vecdot_matches_pytorch(x_shape, y_shape, dim):
    torch = require_torch()
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(x_shape), rng.standard_normal(y_shape)
    theirs = torch.linalg.vecdot(torch.tensor(x), torch.tensor(y), dim=dim)
    ours = minitorch.linalg.vecdot(minitorch.tensor(x), minitorch.tensor(y), dim=dim)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("b_shape", [(3, 2), (2, 3, 1)])
def test_cholesky_solve_matches_pytorch(upper, b_shape):
    torch = require_torch()
    rng = np.random.default_rng(4)
    M = rng.standard_normal((3, 3))
    A = M @ M.T + 3 * np.eye(3)
    B = rng.standard_normal(b_shape)
    results = []
    for lib in (torch, minitorch):
        factor = lib.linalg.cholesky(lib.tensor(A), upper=upper).detach().requires_grad_(True)
        rhs = lib.tensor(B, requires_grad=True)
        X = lib.cholesky_solve(rhs, factor, upper=upper)
        X.pow(2).sum().backward()
        results.append((X.detach().numpy(), factor.grad.numpy(), rhs.grad.numpy()))
    for got, expected in zip(results[1], results[0]):
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-11)


def test_chain_matmul_is_multi_dot():
    torch = require_torch()
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(shape) for shape in ((2, 3), (3, 4), (4, 2))]
    theirs = torch.chain_matmul(*[torch.tensor(a) for a in arrays])
    ours = minitorch.chain_matmul(*[minitorch.tensor(a) for a in arrays])
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_slogdet_results_are_named_as_in_pytorch():
    torch = require_torch()
    A = [[2.0, 1.0], [1.0, 3.0]]
    assert repr(minitorch.linalg.slogdet(minitorch.tensor(A))).replace("minitorch.", "torch.") == repr(
        torch.linalg.slogdet(torch.tensor(A)))
    assert repr(minitorch.slogdet(minitorch.tensor(A))).replace("minitorch.", "torch.") == repr(
        torch.slogdet(torch.tensor(A)))
