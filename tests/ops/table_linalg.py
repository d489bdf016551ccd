"""Op-table entries for ``minitorch/ops/linalg.py``.

``matmul`` covers every rank rule of ``torch.matmul`` (vector/matrix on either side,
batches with broadcast batch dimensions, empty inner dimensions); ``einsum`` covers the
common subscripts, including diagonals, sums over an index, ``...`` and the implicit form.
"""

from tests.ops.op_table import Arg, OpInfo, S

OPS = [
    OpInfo("matmul", lambda lib, a, b: a @ b, [
        S((3, 4), (4, 5)),        # matrix @ matrix
        S((4,), (4,)),            # vector . vector
        S((3, 4), (4,)),          # matrix @ vector
        S((4,), (4, 5)),          # vector @ matrix
        S((2, 3, 4), (4, 5)),     # batch @ matrix
        S((2, 3, 4), (2, 4, 5)),  # batch @ batch
        S((2, 1, 3, 4), (5, 4, 2)),  # broadcast batch dimensions
        S((4,), (2, 4, 5)),       # vector @ batch
        S((2, 3, 4), (4,)),       # batch @ vector
        S((3, 4), (2, 4, 5)),     # matrix @ batch
        S((1, 1), (1, 1)),
        S((3, 0), (0, 2)),        # empty inner dimension: zeros
    ]),
    OpInfo("matmul_function", lambda lib, a, b: lib.matmul(a, b), [S((2, 3), (3, 2))]),
    OpInfo("matmul_only_a", lambda lib, a, b: lib.matmul(a, b), [(Arg((2, 3)), Arg((3, 4), grad=False))]),
    OpInfo("matmul_int", lambda lib, a, b: a @ b, [(Arg((2, 3), kind="int", low=-3, high=3),
                                                   Arg((3, 4), kind="int", low=-3, high=3))]),
    OpInfo("mm", lambda lib, a, b: lib.mm(a, b), [S((3, 4), (4, 5)), S((1, 4), (4, 1))]),
    OpInfo("mm_method", lambda lib, a, b: a.mm(b), [S((2, 3), (3, 2))]),
    OpInfo("bmm", lambda lib, a, b: lib.bmm(a, b), [S((2, 3, 4), (2, 4, 5)), S((1, 2, 2), (1, 2, 3))]),
    OpInfo("mv", lambda lib, a, b: lib.mv(a, b), [S((3, 4), (4,)), S((1, 1), (1,))]),
    OpInfo("dot", lambda lib, a, b: lib.dot(a, b), [S((4,), (4,)), S((1,), (1,))]),
    OpInfo("outer", lambda lib, a, b: lib.outer(a, b), [S((3,), (4,)), S((1,), (2,))]),
    OpInfo("outer_method", lambda lib, a, b: a.outer(b), [S((3,), (2,))]),
    # -- einsum ---------------------------------------------------------------------------------
    OpInfo("einsum_matmul", lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), [S((3, 4), (4, 5)), S((1, 4), (4, 1))]),
    OpInfo("einsum_bmm", lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b), [S((2, 3, 4), (2, 4, 5))]),
    OpInfo("einsum_transpose", lambda lib, a: lib.einsum("ij->ji", a), [S((3, 4))]),
    OpInfo("einsum_trace", lambda lib, a: lib.einsum("ii->", a), [S((3, 3))]),
    OpInfo("einsum_diagonal", lambda lib, a: lib.einsum("ii->i", a), [S((3, 3))]),
    OpInfo("einsum_batch_diagonal", lambda lib, a: lib.einsum("bii->bi", a), [S((2, 3, 3))]),
    OpInfo("einsum_outer", lambda lib, a, b: lib.einsum("i,j->ij", a, b), [S((3,), (4,))]),
    OpInfo("einsum_sum_index", lambda lib, a: lib.einsum("ij->i", a), [S((3, 4))]),
    OpInfo("einsum_sum_all", lambda lib, a: lib.einsum("ijk->", a), [S((2, 3, 4))]),
    OpInfo("einsum_sum_middle", lambda lib, a: lib.einsum("ijk->ki", a), [S((2, 3, 4))]),
    OpInfo("einsum_dot", lambda lib, a, b: lib.einsum("i,i->", a, b), [S((4,), (4,))]),
    OpInfo("einsum_hadamard", lambda lib, a, b: lib.einsum("ij,ij->ij", a, b), [S((3, 4), (3, 4)), S((1, 4), (3, 4))]),
    OpInfo("einsum_bilinear", lambda lib, x, w, y: lib.einsum("bn,anm,bm->ba", x, w, y),
           [S((2, 3), (5, 3, 4), (2, 4))]),
    OpInfo("einsum_ellipsis", lambda lib, a, b: lib.einsum("...ij,...jk->...ik", a, b),
           [S((2, 3, 4), (2, 4, 5)), S((3, 4), (2, 4, 5)), S((2, 1, 3, 4), (5, 4, 2))]),
    OpInfo("einsum_ellipsis_summed", lambda lib, a: lib.einsum("...ij->ij", a), [S((2, 3, 4))]),
    OpInfo("einsum_implicit", lambda lib, a, b: lib.einsum("ij,jk", a, b), [S((3, 4), (4, 5))]),
    OpInfo("einsum_implicit_order", lambda lib, a: lib.einsum("ba", a), [S((3, 4))]),
    OpInfo("einsum_list", lambda lib, a, b: lib.einsum("ij,kj->ik", [a, b]), [S((3, 4), (5, 4))]),
    OpInfo("einsum_repeated_with_others", lambda lib, a, b: lib.einsum("iij,jk->ik", a, b), [S((3, 3, 4), (4, 2))]),
]


def _conditioned(lib, a):
    """``a`` plus a multiple of the identity: far from singular, so inverses and finite differences are tame."""
    return a + 4 * lib.eye(a.shape[-1], dtype=a.dtype, device=a.device)


OPS += [
    # -- the add* family --------------------------------------------------------------------------
    OpInfo("addmm", lambda lib, c, a, b: lib.addmm(c, a, b), [S((3, 5), (3, 4), (4, 5)), S((5,), (3, 4), (4, 5)),
                                                             S((), (2, 3), (3, 1))]),
    OpInfo("addmm_scaled", lambda lib, c, a, b: c.addmm(a, b, beta=0.5, alpha=-2.0), [S((3, 5), (3, 4), (4, 5))]),
    OpInfo("addmm_beta_zero", lambda lib, c, a, b: lib.addmm(c, a, b, beta=0), [S((3, 5), (3, 4), (4, 5))]),
    OpInfo("addmv", lambda lib, c, a, b: lib.addmv(c, a, b, alpha=3), [S((3,), (3, 4), (4,)), S((), (2, 2), (2,))]),
    OpInfo("addmv_method", lambda lib, c, a, b: c.addmv(a, b, beta=2), [S((1,), (3, 4), (4,))]),
    OpInfo("baddbmm", lambda lib, c, a, b: lib.baddbmm(c, a, b, beta=0.5), [S((2, 3, 5), (2, 3, 4), (2, 4, 5)),
                                                                           S((3, 1), (2, 3, 4), (2, 4, 5))]),
    OpInfo("addbmm", lambda lib, c, a, b: c.addbmm(a, b, alpha=2), [S((3, 5), (2, 3, 4), (2, 4, 5)),
                                                                   S((5,), (1, 3, 4), (1, 4, 5))]),
    OpInfo("addcmul", lambda lib, x, a, b: lib.addcmul(x, a, b, value=0.5), [S((3, 4), (3, 4), (3, 4)),
                                                                             S((3, 1), (4,), (2, 1, 1))]),
    OpInfo("addcmul_method", lambda lib, x, a, b: x.addcmul(a, b), [S((3, 4), (3, 4), (3, 4))]),
    OpInfo("addcdiv", lambda lib, x, a, b: lib.addcdiv(x, a, b, value=-2),
           [(Arg((3, 4)), Arg((3, 4)), Arg((3, 4), low=0.5, high=2.0)),
            (Arg((3, 1)), Arg((4,)), Arg((2, 1, 1), low=-2.0, high=-0.5))]),
    OpInfo("addcdiv_method", lambda lib, x, a, b: x.addcdiv(a, b),
           [(Arg((3, 4)), Arg((3, 4)), Arg((3, 4), low=0.5, high=2.0))]),
    # -- products built on matmul -------------------------------------------------------------------
    OpInfo("inner", lambda lib, a, b: lib.inner(a, b), [S((4,), (4,)), S((2, 3, 4), (5, 4)), S((3,), (2, 3)),
                                                        S((), (2, 3)), S((2, 0), (3, 0))]),
    OpInfo("inner_method", lambda lib, a, b: a.inner(b), [S((3, 4), (4,))]),
    OpInfo("kron", lambda lib, a, b: lib.kron(a, b), [S((2, 3), (3, 2)), S((2,), (3,)), S((2, 1, 3), (2, 2)),
                                                      S((), (2, 3)), S((3,), (2, 2))]),
    OpInfo("kron_method", lambda lib, a, b: a.kron(b), [S((2, 2), (2, 2))]),
    OpInfo("cross", lambda lib, a, b: lib.cross(a, b, dim=1), [S((2, 3), (2, 3)), S((4, 3, 2), (1, 3, 2))]),
    OpInfo("cross_last", lambda lib, a, b: a.cross(b, -1), [S((3,), (3,)), S((2, 4, 3), (2, 4, 3))]),
    # -- distances ------------------------------------------------------------------------------------
    OpInfo("dist", lambda lib, a, b: lib.dist(a, b), [S((3, 4), (3, 4)), S((3, 4), (4,)), S((), ())]),
    OpInfo("dist_p", lambda lib, a, b: a.dist(b, 3), [S((3, 4), (3, 4))]),
    OpInfo("dist_p1", lambda lib, a, b: lib.dist(a, b, p=1), [S((3, 4), (3, 4))]),
    OpInfo("dist_inf", lambda lib, a, b: lib.dist(a, b, float("inf")), [S((3, 4), (3, 4), distinct=True)]),
    # at distance zero both libraries give a zero gradient (the norm's convention)
    OpInfo("dist_zero", lambda lib, a: lib.dist(a, a * 1), [S((3,))], gradcheck=False),
    OpInfo("cdist", lambda lib, a, b: lib.cdist(a, b), [S((3, 4), (5, 4)), S((2, 3, 4), (2, 5, 4)),
                                                        S((2, 1, 3, 2), (4, 5, 2)), S((1, 2), (3, 2))]),
    OpInfo("cdist_p1", lambda lib, a, b: lib.cdist(a, b, p=1), [S((3, 4), (5, 4))]),
    OpInfo("cdist_p3", lambda lib, a, b: lib.cdist(a, b, p=3.0), [S((3, 4), (5, 4))]),
    OpInfo("cdist_p_half", lambda lib, a, b: lib.cdist(a, b, p=0.5), [S((3, 4), (5, 4))]),
    OpInfo("cdist_inf", lambda lib, a, b: lib.cdist(a, b, p=float("inf")), [S((3, 4), (5, 4), distinct=True)]),
    # a point listed in both sets: its distance is 0 and, as in PyTorch, passes no gradient
    OpInfo("cdist_coincident", lambda lib, a: lib.cdist(a, a[:2] * 1), [S((3, 2))], gradcheck=False),
    # -- diagonals --------------------------------------------------------------------------------------
    OpInfo("diagonal", lambda lib, x: x.diagonal(), [S((3, 4)), S((4, 3)), S((2, 3, 4)), S((0, 2))]),
    OpInfo("diagonal_offset", lambda lib, x: lib.diagonal(x, 1), [S((3, 4)), S((3, 3))]),
    OpInfo("diagonal_negative_offset", lambda lib, x: lib.diagonal(x, -2, 2, 0), [S((2, 3, 4)), S((4, 3, 2))]),
    OpInfo("diagonal_offset_too_big", lambda lib, x: lib.diagonal(x, 5), [S((3, 4))]),
    OpInfo("diagonal_dims", lambda lib, x: x.diagonal(0, -1, 1), [S((2, 3, 4))]),
    OpInfo("diag_vector", lambda lib, x: lib.diag(x), [S((3,)), S((1,)), S((0,))]),
    OpInfo("diag_vector_offset", lambda lib, x: lib.diag(x, -1), [S((3,))]),
    OpInfo("diag_matrix", lambda lib, x: x.diag(), [S((3, 4)), S((4, 3))]),
    OpInfo("diag_matrix_offset", lambda lib, x: x.diag(2), [S((3, 4))]),
    OpInfo("diag_embed", lambda lib, x: lib.diag_embed(x), [S((3,)), S((2, 3)), S((2, 0))]),
    OpInfo("diag_embed_offset_dims", lambda lib, x: x.diag_embed(-1, 0, 2), [S((2, 3))]),
    OpInfo("diag_embed_offset", lambda lib, x: lib.diag_embed(x, 2, -1, -2), [S((2, 3))]),
    OpInfo("diagonal_scatter", lambda lib, x, s: lib.diagonal_scatter(x, s), [S((3, 4), (3,)), S((4, 3), (3,))]),
    OpInfo("diagonal_scatter_offset", lambda lib, x, s: x.diagonal_scatter(s, -1, 2, 1), [S((2, 3, 4), (2, 3))]),
    OpInfo("trace", lambda lib, x: lib.trace(x), [S((3, 3)), S((2, 4)), S((4, 2)), S((0, 0))]),
    OpInfo("trace_method", lambda lib, x: x.trace(), [S((3, 3))]),
    OpInfo("trace_int", lambda lib, x: x.trace(), [(Arg((3, 3), kind="int", low=-5, high=5),)]),
    # -- determinant and inverse -------------------------------------------------------------------------
    OpInfo("det", lambda lib, a: lib.det(_conditioned(lib, a)), [S((3, 3)), S((2, 4, 4)), S((1, 1)), S((2, 1, 2, 2))]),
    OpInfo("det_method", lambda lib, a: a.det(), [S((2, 2))]),
    OpInfo("det_negative", lambda lib, a: lib.det(-_conditioned(lib, a)), [S((3, 3))]),
    OpInfo("inverse", lambda lib, a: lib.inverse(_conditioned(lib, a)), [S((3, 3)), S((2, 4, 4)), S((1, 1))]),
    OpInfo("inverse_method", lambda lib, a: _conditioned(lib, a).inverse(), [S((2, 2))]),
    OpInfo("inverse_used_twice", lambda lib, a: lib.inverse(_conditioned(lib, a)) @ a, [S((3, 3))]),
    OpInfo("slogdet", lambda lib, a: lib.slogdet(_conditioned(lib, a)), [S((3, 3)), S((2, 3, 3))]),
    OpInfo("slogdet_negative", lambda lib, a: lib.slogdet(-_conditioned(lib, a)), [S((3, 3))]),
    OpInfo("slogdet_logabsdet", lambda lib, a: a.slogdet()[1], [S((2, 2))], rtol=1e-6),
    OpInfo("logdet", lambda lib, a: lib.logdet(_conditioned(lib, a)), [S((3, 3)), S((2, 2, 2))]),
    OpInfo("logdet_negative_is_nan", lambda lib, a: lib.logdet(-_conditioned(lib, a)), [S((3, 3))], gradcheck=False),
    OpInfo("logdet_method", lambda lib, a: _conditioned(lib, a).logdet(), [S((2, 2))]),
]


def _powers(lib, x, columns, increasing=False):
    """The Vandermonde matrix by plain powers: PyTorch 2.13's own ``vander`` fails in backward (in-place cumprod)."""
    exponents = lib.arange(columns) if increasing else lib.arange(columns - 1, -1, -1)
    return x.unsqueeze(1) ** exponents


OPS += [
    # -- Vandermonde matrices: forward against torch.vander, gradients against plain powers ----------------
    OpInfo("vander", lambda lib, x: lib.vander(x), [(Arg((3,), grad=False),), (Arg((0,), grad=False),)]),
    OpInfo("vander_columns", lambda lib, x: lib.vander(x, 4, increasing=True), [(Arg((3,), grad=False),)]),
    OpInfo("vander_no_columns", lambda lib, x: lib.vander(x, 0), [(Arg((3,), grad=False),)]),
    OpInfo("vander_int", lambda lib, x: lib.vander(x, 3), [(Arg((4,), kind="int", low=-3, high=3),),
                                                           (Arg((2,), kind="bool"),)]),
    OpInfo("vander_grad", lambda lib, x: lib.vander(x, 4), [S((3,))], torch_fn=lambda lib, x: _powers(lib, x, 4)),
    OpInfo("vander_grad_increasing", lambda lib, x: lib.vander(x, increasing=True), [S((3,))],
           torch_fn=lambda lib, x: _powers(lib, x, 3, increasing=True)),
    # -- covariance and correlation ------------------------------------------------------------------------
    OpInfo("cov", lambda lib, x: lib.cov(x), [S((3, 5)), S((5,)), S((1, 4))]),
    OpInfo("cov_correction", lambda lib, x: x.cov(correction=0), [S((2, 4))]),
    OpInfo("cov_fweights", lambda lib, x, f: lib.cov(x, fweights=f),
           [(Arg((3, 4)), Arg((4,), kind="int", low=1, high=4))]),
    OpInfo("cov_aweights", lambda lib, x, a: lib.cov(x, aweights=a), [(Arg((3, 4)), Arg((4,), low=0.5, high=2.0))]),
    OpInfo("cov_both_weights", lambda lib, x, f, a: lib.cov(x, correction=2, fweights=f, aweights=a),
           [(Arg((2, 5)), Arg((5,), kind="int", low=1, high=4), Arg((5,), low=0.5, high=2.0))]),
    OpInfo("cov_int", lambda lib, x: lib.cov(x), [(Arg((2, 4), kind="int", low=-5, high=5),)]),
    OpInfo("corrcoef", lambda lib, x: lib.corrcoef(x), [S((3, 5)), S((2, 3))]),
    OpInfo("corrcoef_one_variable", lambda lib, x: x.corrcoef(), [S((5,))]),
]

# -- the torch.linalg namespace ------------------------------------------------------------------------------
OPS += [
    OpInfo("linalg_det", lambda lib, a: lib.linalg.det(_conditioned(lib, a)), [S((3, 3)), S((2, 2, 2))]),
    OpInfo("linalg_inv", lambda lib, a: lib.linalg.inv(_conditioned(lib, a)), [S((3, 3)), S((2, 2, 2))]),
    OpInfo("linalg_slogdet", lambda lib, a: lib.linalg.slogdet(_conditioned(lib, a)), [S((3, 3))]),
    OpInfo("linalg_cross", lambda lib, a, b: lib.linalg.cross(a, b), [S((2, 3), (2, 3)), S((4, 1, 3), (1, 2, 3))]),
    OpInfo("linalg_cross_dim", lambda lib, a, b: lib.linalg.cross(a, b, dim=0), [S((3, 2), (3, 2))]),
    OpInfo("linalg_diagonal", lambda lib, a: lib.linalg.diagonal(a), [S((2, 3, 4))]),
    OpInfo("linalg_diagonal_offset", lambda lib, a: lib.linalg.diagonal(a, offset=1, dim1=0, dim2=2), [S((3, 2, 4))]),
    OpInfo("linalg_matmul", lambda lib, a, b: lib.linalg.matmul(a, b), [S((2, 3), (3, 4))]),
    OpInfo("linalg_vector_norm", lambda lib, x: lib.linalg.vector_norm(x), [S((3, 4)), S(())]),
    OpInfo("linalg_vector_norm_ord", lambda lib, x: lib.linalg.vector_norm(x, 3, dim=1, keepdim=True), [S((3, 4))]),
    OpInfo("linalg_matrix_norm_fro", lambda lib, x: lib.linalg.matrix_norm(x), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("linalg_matrix_norm_1", lambda lib, x: lib.linalg.matrix_norm(x, 1), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("linalg_matrix_norm_minus_1", lambda lib, x: lib.linalg.matrix_norm(x, -1, keepdim=True), [S((3, 4))]),
    OpInfo("linalg_matrix_norm_inf", lambda lib, x: lib.linalg.matrix_norm(x, float("inf"), dim=(0, 2)),
           [S((3, 2, 4))]),
    OpInfo("linalg_matrix_norm_minus_inf", lambda lib, x: lib.linalg.matrix_norm(x, float("-inf")), [S((3, 4))]),
    OpInfo("linalg_norm", lambda lib, x: lib.linalg.norm(x), [S((2, 3, 4)), S((4,))]),
    OpInfo("linalg_norm_ord_matrix", lambda lib, x: lib.linalg.norm(x, float("inf")), [S((3, 4))]),
    OpInfo("linalg_norm_ord_vector", lambda lib, x: lib.linalg.norm(x, 1), [S((4,))]),
    OpInfo("linalg_norm_dims", lambda lib, x: lib.linalg.norm(x, dim=(0, 2)), [S((2, 3, 4))]),
    OpInfo("linalg_norm_dim", lambda lib, x: lib.linalg.norm(x, 3, dim=-1), [S((2, 3, 4))]),
]


# -- more products, matrix powers, distances between rows -------------------------------------------------
OPS += [
    OpInfo("vdot", lambda lib, a, b: lib.vdot(a, b), [S((4,), (4,)), S((1,), (1,))]),
    OpInfo("vdot_method", lambda lib, a, b: a.vdot(b), [S((3,), (3,))]),
    OpInfo("tensordot", lambda lib, a, b: lib.tensordot(a, b), [S((2, 3, 4), (3, 4, 5)), S((3, 4), (3, 4))]),
    OpInfo("tensordot_int_dims", lambda lib, a, b: lib.tensordot(a, b, 1), [S((2, 3), (3, 4)), S((2, 3, 4), (4,))]),
    OpInfo("tensordot_zero_dims", lambda lib, a, b: lib.tensordot(a, b, dims=0), [S((2, 3), (4,))]),
    OpInfo("tensordot_lists", lambda lib, a, b: lib.tensordot(a, b, dims=([2, 0], [0, 1])),
           [S((3, 5, 4), (4, 3, 2))]),
    OpInfo("tensordot_negative_lists", lambda lib, a, b: lib.tensordot(a, b, ([-1], [0])), [S((2, 3), (3, 2))]),
    OpInfo("diagflat", lambda lib, x: lib.diagflat(x), [S((3,)), S((2, 2)), S(())]),
    OpInfo("diagflat_offset", lambda lib, x: x.diagflat(-1), [S((2, 2))]),
    OpInfo("diagflat_positive_offset", lambda lib, x: lib.diagflat(x, 2), [S((3,))]),
    OpInfo("matrix_power", lambda lib, a: lib.matrix_power(a, 3), [S((3, 3)), S((2, 2, 2))]),
    OpInfo("matrix_power_large", lambda lib, a: a.matrix_power(6), [S((2, 2), low=-0.5, high=0.5)]),
    OpInfo("matrix_power_one", lambda lib, a: lib.matrix_power(a, 1), [S((3, 3))]),
    OpInfo("matrix_power_zero", lambda lib, a: lib.matrix_power(a, 0), [S((3, 3)), S((2, 2, 2))]),
    OpInfo("matrix_power_negative", lambda lib, a: lib.matrix_power(_conditioned(lib, a), -2), [S((3, 3))]),
    OpInfo("matrix_power_int", lambda lib, a: lib.matrix_power(a, 3), [(Arg((2, 2), kind="int", low=-3, high=3),)]),
    OpInfo("linalg_matrix_power", lambda lib, a: lib.linalg.matrix_power(a, 2), [S((2, 3, 3))]),
    OpInfo("pdist", lambda lib, x: lib.pdist(x), [S((4, 3)), S((2, 1)), S((1, 3))]),
    OpInfo("pdist_p1", lambda lib, x: lib.pdist(x, 1), [S((4, 3))]),
    OpInfo("pdist_p3", lambda lib, x: lib.pdist(x, p=3), [S((3, 2))]),
    OpInfo("pdist_inf", lambda lib, x: lib.pdist(x, float("inf")), [S((3, 4), distinct=True)]),
]


def _symmetric(lib, a):
    """``(a + a^T) / 2``: eigh and cholesky read one triangle, so their input is made symmetric first."""
    return (a + a.mT) / 2


def _positive_definite(lib, a):
    return a @ a.mT + lib.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def _svd_sign_free(lib, a, full_matrices=False):
    """Singular vectors are unique up to sign only (LAPACK builds may choose differently): compare ``|U|``,
    ``|Vh|`` and ``U diag(S^2) Vh``, which do not depend on that choice."""
    u, s, vh = lib.linalg.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    return u.abs(), s, vh.abs(), (u * s.unsqueeze(-2) ** 2) @ vh


def _eigh_sign_free(lib, a):
    values, vectors = lib.linalg.eigh(_symmetric(lib, a))
    return values, vectors.abs(), (vectors * values.unsqueeze(-2) ** 3) @ vectors.mT


# -- decompositions, solving, pseudo-inverse, matrix exponential -----------------------------------------------
OPS += [
    OpInfo("linalg_qr", lambda lib, a: lib.linalg.qr(a), [S((4, 3)), S((3, 3)), S((2, 4, 2))]),
    # float32: the backward multiplies by R^{-1} (P P^T for pinv), which amplifies rounding by the condition number
    OpInfo("linalg_qr_wide", lambda lib, a: lib.linalg.qr(a), [S((2, 4)), S((2, 3, 5))], rtol32=1e-4, atol32=1e-5),
    OpInfo("linalg_qr_complete_wide", lambda lib, a: lib.linalg.qr(a, mode="complete"), [S((2, 3))]),
    # forward only: not differentiable (PyTorch says so too)
    OpInfo("linalg_qr_complete_tall", lambda lib, a: lib.linalg.qr(a, mode="complete"), [(Arg((4, 2), grad=False),)]),
    OpInfo("linalg_qr_r", lambda lib, a: lib.linalg.qr(a, mode="r").R, [(Arg((4, 3), grad=False),)]),
    OpInfo("linalg_qr_only_q", lambda lib, a: lib.linalg.qr(a).Q, [S((4, 3))]),
    OpInfo("linalg_qr_only_r", lambda lib, a: lib.linalg.qr(a)[1], [S((3, 4))]),
    OpInfo("qr", lambda lib, a: lib.qr(a), [S((4, 3))]),
    OpInfo("qr_method", lambda lib, a: a.qr(), [S((3, 3))]),
    OpInfo("linalg_svd", _svd_sign_free, [S((4, 3)), S((3, 4)), S((3, 3)), S((2, 4, 2))]),
    OpInfo("linalg_svd_full", lambda lib, a: _svd_sign_free(lib, a, True), [S((4, 3)), S((2, 3))]),
    OpInfo("linalg_svd_values_only", lambda lib, a: lib.linalg.svd(a, full_matrices=False).S, [S((4, 3))]),
    OpInfo("svdvals", lambda lib, a: lib.linalg.svdvals(a), [S((4, 3)), S((2, 3, 5))]),
    OpInfo("svd", lambda lib, a: (lambda u, s, v: (u.abs(), s, v.abs()))(*lib.svd(a)), [S((4, 3)), S((3, 4))]),
    OpInfo("svd_method_full", lambda lib, a: a.svd(some=False).S, [S((4, 3))]),
    # float32: the backward divides by eigenvalue gaps and the third output cubes the eigenvalues, so gradients of
    # magnitude ~30 carry rounding of a few float32 epsilons of that magnitude (1.8e-6 absolute seen)
    OpInfo("linalg_eigh", _eigh_sign_free, [S((3, 3)), S((2, 4, 4))], rtol32=1e-4, atol32=1e-5),
    OpInfo("linalg_eigh_upper", lambda lib, a: lib.linalg.eigh(_symmetric(lib, a), UPLO="U")[0], [S((3, 3))]),
    OpInfo("linalg_eigh_triangle_only", lambda lib, a: lib.linalg.eigh(a.tril())[0], [S((3, 3))], gradcheck=False),
    OpInfo("linalg_eigvalsh", lambda lib, a: lib.linalg.eigvalsh(_symmetric(lib, a)), [S((3, 3)), S((2, 2, 2))]),
    OpInfo("linalg_cholesky", lambda lib, a: lib.linalg.cholesky(_positive_definite(lib, a)), [S((3, 3)),
                                                                                              S((2, 2, 2))]),
    OpInfo("linalg_cholesky_upper", lambda lib, a: lib.linalg.cholesky(_positive_definite(lib, a), upper=True),
           [S((3, 3))]),
    OpInfo("cholesky_method", lambda lib, a: _positive_definite(lib, a).cholesky(), [S((2, 2))]),
    OpInfo("linalg_solve", lambda lib, a, b: lib.linalg.solve(_conditioned(lib, a), b),
           [S((3, 3), (3, 2)), S((3, 3), (3,)), S((2, 3, 3), (2, 3)), S((2, 3, 3), (3, 1)), S((3, 3), (2, 3, 4))]),
    OpInfo("linalg_solve_right", lambda lib, a, b: lib.linalg.solve(_conditioned(lib, a), b, left=False),
           [S((3, 3), (2, 3)), S((2, 3, 3), (4, 3))]),
    OpInfo("linalg_solve_only_b", lambda lib, a, b: lib.linalg.solve(_conditioned(lib, a), b),
           [(Arg((3, 3), grad=False), Arg((3, 2)))]),
    OpInfo("linalg_pinv", lambda lib, a: lib.linalg.pinv(a), [S((4, 3)), S((3, 4)), S((3, 3)), S((2, 4, 2))],
           rtol32=1e-4, atol32=1e-5),
    OpInfo("linalg_pinv_hermitian", lambda lib, a: lib.linalg.pinv(_conditioned(lib, _symmetric(lib, a)),
                                                                   hermitian=True), [S((3, 3))]),
    OpInfo("linalg_pinv_rank_deficient", lambda lib, a, b: lib.linalg.pinv(a @ b), [S((4, 2), (2, 3))],
           gradcheck=False),  # finite differences leave the set of rank-2 matrices
    OpInfo("linalg_pinv_atol", lambda lib, a: lib.linalg.pinv(a, atol=0.5), [S((3, 3))], gradcheck=False),
    OpInfo("pinverse", lambda lib, a: lib.pinverse(a), [S((3, 2))]),
    OpInfo("pinverse_method", lambda lib, a: a.pinverse(), [S((2, 3))]),
    OpInfo("matrix_exp", lambda lib, a: lib.matrix_exp(a), [S((3, 3)), S((2, 2, 2)), S((1, 1)), S((0, 0))]),
    OpInfo("matrix_exp_method", lambda lib, a: a.matrix_exp(), [S((2, 2))]),
    OpInfo("linalg_matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a * 3), [S((3, 3))]),
    OpInfo("linalg_matrix_norm_2", lambda lib, x: lib.linalg.matrix_norm(x, 2), [S((3, 4)), S((2, 3, 3))]),
    OpInfo("linalg_matrix_norm_minus_2", lambda lib, x: lib.linalg.matrix_norm(x, -2, keepdim=True), [S((3, 4))]),
    OpInfo("linalg_matrix_norm_nuc", lambda lib, x: lib.linalg.matrix_norm(x, "nuc", dim=(2, 0)), [S((3, 2, 4))]),
    OpInfo("linalg_norm_2", lambda lib, x: lib.linalg.norm(x, 2), [S((3, 4))]),
    OpInfo("linalg_norm_nuc_dims", lambda lib, x: lib.linalg.norm(x, "nuc", dim=(0, 1), keepdim=True),
           [S((3, 4, 2))]),
]
