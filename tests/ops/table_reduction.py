"""Op-table entries for ``minitorch/ops/reduction.py``.

Samples cover dims given as an int, a negative int, a tuple and None, ``keepdim`` both
ways, 0-d inputs and size-1 dimensions. Max-like ops use distinct values wherever the
gradient is checked (at ties the derivative is not unique); the ``*_ties`` entries check
PyTorch's even split at ties against PyTorch only.
"""

from tests.ops.op_table import Arg, OpInfo, S

SHAPES = [S((3, 4)), S((2, 3, 4)), S(()), S((1, 4)), S((3, 1, 2))]


def distinct(*shapes, **options):
    return tuple(Arg(tuple(shape), distinct=True, **options) for shape in shapes)


TIES = (Arg(values=[[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 2.0, 0.5], [0.0, -1.0, 0.0, -1.0]]),)
WITH_ZEROS = [
    (Arg(values=[[1.5, 0.0, -2.0], [0.5, -1.0, 3.0]]),),  # one zero
    (Arg(values=[[0.0, 0.0, -2.0], [0.5, 0.0, 3.0]]),),  # two zeros in a row and a column
    (Arg(values=[0.0]),),
]
AWAY_FROM_ZERO = dict(low=0.5, high=1.5)
INTEGERS = [(Arg((3, 4), kind="int", low=-5, high=5),), (Arg((3, 4), kind="bool"),)]

OPS = [
    # -- sum -----------------------------------------------------------------------------------
    OpInfo("sum", lambda lib, x: x.sum(), SHAPES),
    OpInfo("sum_dim", lambda lib, x: x.sum(-1), [S((3, 4)), S((2, 3, 4)), S((4,)), S((3, 1))]),
    OpInfo("sum_tuple_keepdim", lambda lib, x: lib.sum(x, (0, -1), keepdim=True), [S((3, 4)), S((2, 3, 4)), S((1, 1))]),
    OpInfo("sum_dtype", lambda lib, x: x.sum(0, dtype=lib.float64), [S((3, 4))]),
    OpInfo("sum_int", lambda lib, x: x.sum(1), INTEGERS),
    # -- mean ----------------------------------------------------------------------------------
    OpInfo("mean", lambda lib, x: x.mean(), SHAPES),
    OpInfo("mean_dim", lambda lib, x: lib.mean(x, 1, keepdim=True), [S((3, 4)), S((2, 3, 4)), S((3, 1))]),
    OpInfo("mean_tuple", lambda lib, x: x.mean((-1, 0)), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("mean_dtype", lambda lib, x: x.mean(dtype=lib.float64), [S((3, 4))]),
    # -- prod ----------------------------------------------------------------------------------
    OpInfo("prod", lambda lib, x: x.prod(),
           [S((3, 4), **AWAY_FROM_ZERO), S((), **AWAY_FROM_ZERO), S((1, 3))] + WITH_ZEROS),
    OpInfo("prod_dim", lambda lib, x: lib.prod(x, 1), [S((3, 4)), S((2, 3, 4))] + WITH_ZEROS[:2]),
    OpInfo("prod_dim0_keepdim", lambda lib, x: x.prod(0, keepdim=True), [S((3, 4)), S((2, 3, 4))] + WITH_ZEROS[:2]),
    OpInfo("prod_int", lambda lib, x: x.prod(0), [(Arg((3, 4), kind="int", low=-3, high=3),)]),
    # -- max / min -------------------------------------------------------------------------------
    OpInfo("max", lambda lib, x: x.max(), [distinct((3, 4)), distinct(()), distinct((1, 5))]),
    OpInfo("min", lambda lib, x: lib.min(x), [distinct((3, 4)), distinct(())]),
    OpInfo("max_dim", lambda lib, x: lib.max(x, 1), [distinct((3, 4)), distinct((2, 3, 4)), distinct((3, 1))]),
    OpInfo("max_dim_keepdim", lambda lib, x: x.max(dim=-1, keepdim=True), [distinct((3, 4)), distinct((2, 3, 4))]),
    OpInfo("max_dim_0d", lambda lib, x: x.max(0), [distinct(())]),
    OpInfo("min_dim", lambda lib, x: x.min(0), [distinct((3, 4)), distinct((2, 3, 4))]),
    OpInfo("min_dim_keepdim", lambda lib, x: lib.min(x, -2, True), [distinct((3, 4))]),
    OpInfo("max_dim_fields", lambda lib, x: x.max(1).indices, [(Arg((3, 4), distinct=True, grad=False),)]),
    OpInfo("max_ties", lambda lib, x: x.max(), [TIES], gradcheck=False),
    OpInfo("max_dim_ties", lambda lib, x: x.max(1), [TIES], gradcheck=False),
    # -- amax / amin ---------------------------------------------------------------------------
    OpInfo("amax", lambda lib, x: x.amax(), [distinct((3, 4)), distinct(())]),
    OpInfo("amax_dim", lambda lib, x: lib.amax(x, 1), [distinct((3, 4)), distinct((2, 3, 4)), distinct((3, 1))]),
    OpInfo("amax_tuple_keepdim", lambda lib, x: x.amax((0, -1), keepdim=True), [distinct((3, 4)), distinct((2, 3, 4))]),
    OpInfo("amin", lambda lib, x: lib.amin(x, -1), [distinct((3, 4)), distinct((2, 3, 4))]),
    OpInfo("amin_tuple", lambda lib, x: x.amin((1, 2)), [distinct((2, 3, 4))]),
    OpInfo("amax_ties", lambda lib, x: x.amax(1), [TIES], gradcheck=False),
    OpInfo("amax_ties_all", lambda lib, x: x.amax(), [TIES], gradcheck=False),
    OpInfo("amin_ties", lambda lib, x: x.amin(0, keepdim=True), [TIES], gradcheck=False),
    # -- argmax / argmin -------------------------------------------------------------------------
    OpInfo("argmax", lambda lib, x: x.argmax(), [(Arg((3, 4), distinct=True, grad=False),)]),
    OpInfo("argmax_dim", lambda lib, x: lib.argmax(x, 1, keepdim=True), [(Arg((3, 4), distinct=True, grad=False),)]),
    OpInfo("argmin_dim", lambda lib, x: x.argmin(-1), [(Arg((2, 3, 4), distinct=True, grad=False),)]),
    OpInfo("argmax_keepdim_all", lambda lib, x: x.argmax(keepdim=True), [(Arg((3, 4), distinct=True, grad=False),)]),
    OpInfo("argmax_int", lambda lib, x: x.argmax(0), [(Arg((5, 3), kind="int", low=-9, high=9),)]),
    # -- var / std -------------------------------------------------------------------------------
    OpInfo("var", lambda lib, x: x.var(), [S((3, 4)), S((2, 3, 4)), S((5,))]),
    OpInfo("var_dim", lambda lib, x: lib.var(x, 1), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("var_unbiased_false", lambda lib, x: x.var(-1, False, True), [S((3, 4)), S((2, 3, 1))]),
    OpInfo("var_correction", lambda lib, x: x.var((0, 1), correction=2), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("var_positional_unbiased", lambda lib, x: x.var(False), [S((3, 4))]),
    OpInfo("std", lambda lib, x: x.std(), [S((3, 4)), S((5,))]),
    OpInfo("std_dim", lambda lib, x: lib.std(x, (0, -1), keepdim=True), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("std_correction0", lambda lib, x: x.std(1, correction=0), [S((3, 4))]),
    OpInfo("std_constant", lambda lib, x: x.std(1), [(Arg(values=[[1.0, 1.0, 1.0], [0.5, 2.0, 1.0]]),)],
           gradcheck=False),
    OpInfo("var_mean", lambda lib, x: lib.var_mean(x, 1), [S((3, 4))]),
    OpInfo("std_mean", lambda lib, x: lib.std_mean(x, (0, 1), keepdim=True, correction=0), [S((3, 4))]),
    # -- norm ------------------------------------------------------------------------------------
    OpInfo("norm", lambda lib, x: x.norm(), [S((3, 4)), S((5,)), S(())]),
    OpInfo("norm_fro_dim", lambda lib, x: lib.norm(x, "fro", (0, 1)), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("norm_2_dim", lambda lib, x: x.norm(2, -1, keepdim=True), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("norm_1", lambda lib, x: x.norm(1, 1), [S((3, 4), away_from=(0.0,))]),
    OpInfo("norm_inf", lambda lib, x: x.norm(float("inf"), 1), [distinct((3, 4)), distinct((2, 3, 4))]),
    OpInfo("norm_neg_inf", lambda lib, x: x.norm(float("-inf")), [distinct((3, 4))]),
    OpInfo("norm_3", lambda lib, x: x.norm(3, 0), [S((3, 4), away_from=(0.0,))]),
    OpInfo("norm_1.5", lambda lib, x: lib.norm(x, 1.5), [S((3, 4), away_from=(0.0,))]),
    OpInfo("norm_0.5", lambda lib, x: x.norm(0.5, 1), [S((3, 4), away_from=(0.0,))]),
    OpInfo("norm_0", lambda lib, x: x.norm(0, 1), [S((3, 4), away_from=(0.0,))]),
    OpInfo("norm_dtype", lambda lib, x: x.norm(dtype=lib.float64), [S((3, 4))]),
    OpInfo("norm_at_zero", lambda lib, x: x.norm(dim=1), [(Arg(values=[[0.0, 0.0, 0.0], [3.0, -4.0, 0.0]]),)],
           gradcheck=False),
    OpInfo("norm_3_at_zero", lambda lib, x: x.norm(3, 1), [(Arg(values=[[0.0, 0.0, 0.0], [3.0, -4.0, 0.5]]),)],
           gradcheck=False),
    OpInfo("norm_inf_ties", lambda lib, x: x.norm(float("inf"), 1), [TIES], gradcheck=False),
    # -- logsumexp -------------------------------------------------------------------------------
    OpInfo("logsumexp", lambda lib, x: x.logsumexp(1), [S((3, 4)), S((2, 3, 4)), S((3, 1))]),
    OpInfo("logsumexp_tuple_keepdim", lambda lib, x: lib.logsumexp(x, (0, -1), keepdim=True), [S((3, 4))]),
    OpInfo("logsumexp_0d", lambda lib, x: lib.logsumexp(x, 0), [S(())]),
    OpInfo("logsumexp_large", lambda lib, x: x.logsumexp(0), [(Arg(values=[1000.0, 1000.5, 999.0]),),
                                                              (Arg(values=[-1000.0, -1000.5, -999.0]),)]),
    # -- cumsum ----------------------------------------------------------------------------------
    OpInfo("cumsum", lambda lib, x: x.cumsum(1), [S((3, 4)), S((2, 3, 4)), S((3, 1))]),
    OpInfo("cumsum_neg_dim", lambda lib, x: lib.cumsum(x, -3), [S((2, 3, 4))]),
    OpInfo("cumsum_0d", lambda lib, x: x.cumsum(0), [S(())]),
    OpInfo("cumsum_dtype", lambda lib, x: x.cumsum(0, dtype=lib.float64), [S((3, 4))]),
    OpInfo("cumsum_int", lambda lib, x: x.cumsum(0), INTEGERS),
    # -- all / any -------------------------------------------------------------------------------
    OpInfo("all", lambda lib, x: x.all(), [(Arg((3, 4), kind="bool"),), (Arg((2, 3), kind="int", low=0, high=2),)]),
    OpInfo("all_dim", lambda lib, x: lib.all(x, 1, keepdim=True), [(Arg((3, 4), kind="bool"),)]),
    OpInfo("any_tuple", lambda lib, x: x.any((0, -1)), [(Arg((2, 3, 4), kind="bool"),)]),
    OpInfo("any_float", lambda lib, x: lib.any(x, 0), [(Arg(values=[[0.0, 1.5], [0.0, 0.0]], grad=False),)]),
    OpInfo("all_uint8", lambda lib, x: x.to(lib.uint8).all(0), [(Arg((3, 4), kind="int", low=0, high=2),)]),
    # sorting (ops/sorting.py): distinct values, so the order (and the gradient) is unique
    OpInfo("sort", lambda lib, x: x.sort(), [S((5,), distinct=True), S((3, 4), distinct=True)]),
    OpInfo("sort_descending_dim0", lambda lib, x: lib.sort(x, dim=0, descending=True), [S((4, 3), distinct=True)]),
    OpInfo("argsort", lambda lib, x: x.argsort(dim=1), [S((3, 5), distinct=True)], gradcheck=False),
    OpInfo("topk", lambda lib, x: x.topk(2), [S((6,), distinct=True), S((3, 5), distinct=True)]),
    OpInfo("topk_smallest_dim0", lambda lib, x: lib.topk(x, 3, dim=0, largest=False), [S((4, 3), distinct=True)]),
]
