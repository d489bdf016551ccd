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
