"""Op-table entries for ``minitorch/ops/reduction.py``.

Samples cover dims given as an int, a negative int, a tuple and None, ``keepdim`` both
ways, 0-d inputs and size-1 dimensions. Max-like ops use distinct values wherever the
gradient is checked (at ties the derivative is not unique); the ``*_ties`` entries check
PyTorch's even split at ties against PyTorch only.
"""

import math

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
NAN = math.nan
WITH_NAN = (Arg(values=[[1.5, NAN, -2.0, 0.5], [NAN, NAN, NAN, NAN], [0.5, -1.0, 3.0, 2.0]]),)
NO_GRAD = {"grad": False}
# Zeros in every position that matters for cumprod's gradient: first, middle, last, two in a row, none
CUMPROD_ZEROS = (Arg(values=[[0.0, 1.5, -2.0, 0.5], [1.5, 0.0, -2.0, 0.5], [1.5, -2.0, 0.5, 0.0],
                             [1.5, 0.0, 0.0, 0.5], [0.0, 1.5, 0.0, 2.0], [1.5, -0.5, 2.0, 0.5]]),)

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
    OpInfo("msort", lambda lib, x: lib.msort(x), [S((4, 3), distinct=True), S((5,), distinct=True)]),
    OpInfo("msort_method", lambda lib, x: x.msort(), [S((3, 2, 2), distinct=True)]),
    # -- softmax at the top level (ops/nn_ops.py) ----------------------------------------------------
    OpInfo("softmax_top_level", lambda lib, x: lib.softmax(x, 1), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("softmax_top_level_dtype", lambda lib, x: lib.softmax(x, -1, dtype=lib.float64), [S((3, 4))]),
    OpInfo("log_softmax_top_level", lambda lib, x: lib.log_softmax(x, dim=0), [S((3, 4)), S((5,))]),
    # float32 results from integer inputs: float32's tolerance applies in every check
    OpInfo("softmax_top_level_int", lambda lib, x: lib.softmax(x, 0, lib.float32), [INTEGERS[0]], rtol=1e-6),
    # -- cumprod: gradients exact through zeros, to every order ---------------------------------------
    OpInfo("cumprod", lambda lib, x: x.cumprod(1), [S((3, 4)), S((2, 3, 4)), S((3, 1))]),
    OpInfo("cumprod_0d", lambda lib, x: x.cumprod(-1), [S(())]),
    OpInfo("cumprod_zeros", lambda lib, x: lib.cumprod(x, 1), [CUMPROD_ZEROS]),
    OpInfo("cumprod_zeros_dim0", lambda lib, x: lib.cumprod(x, 0), [CUMPROD_ZEROS, WITH_ZEROS[1]]),
    OpInfo("cumprod_neg_dim", lambda lib, x: x.cumprod(-3), [S((2, 3, 4))]),
    OpInfo("cumprod_dtype", lambda lib, x: x.cumprod(0, dtype=lib.float64), [S((3, 4))]),
    OpInfo("cumprod_int", lambda lib, x: x.cumprod(1), INTEGERS + [(Arg((3, 4), kind="int", low=-3, high=3),)]),
    # -- logcumsumexp --------------------------------------------------------------------------------
    OpInfo("logcumsumexp", lambda lib, x: x.logcumsumexp(1), [S((3, 4)), S((2, 3, 5)), S((3, 1))]),
    OpInfo("logcumsumexp_0d", lambda lib, x: x.logcumsumexp(0), [S(())]),
    OpInfo("logcumsumexp_dim0", lambda lib, x: lib.logcumsumexp(x, 0), [S((6, 3)), S((0, 2))]),
    OpInfo("logcumsumexp_large", lambda lib, x: lib.logcumsumexp(x, 0),
           [(Arg(values=[-1000.0, 0.0, 1000.0, 999.5, -5.0]),), (Arg(values=[1000.0, -1000.0, 3.0]),)]),
    OpInfo("logcumsumexp_infinities", lambda lib, x: lib.logcumsumexp(x, 0),
           [(Arg(values=[-math.inf, -math.inf, 1.0, -math.inf], **NO_GRAD),)]),
    # -- cummax / cummin -----------------------------------------------------------------------------
    OpInfo("cummax", lambda lib, x: x.cummax(1), [distinct((3, 5)), distinct((2, 3, 4)), distinct((3, 1))]),
    OpInfo("cummax_0d", lambda lib, x: x.cummax(0), [distinct(())]),
    OpInfo("cummax_dim0", lambda lib, x: lib.cummax(x, 0), [distinct((5, 3))]),
    OpInfo("cummin", lambda lib, x: lib.cummin(x, -1), [distinct((3, 5)), distinct((2, 3, 4))]),
    OpInfo("cummax_ties", lambda lib, x: x.cummax(1), [TIES], gradcheck=False),
    OpInfo("cummin_ties", lambda lib, x: x.cummin(0), [TIES], gradcheck=False),
    OpInfo("cummax_nan", lambda lib, x: x.cummax(0), [(Arg(values=[1.0, NAN, 3.0, NAN, 5.0]),)], gradcheck=False),
    OpInfo("cummin_nan", lambda lib, x: x.cummin(1), [WITH_NAN], gradcheck=False),
    OpInfo("cummax_int", lambda lib, x: x.cummax(1), INTEGERS),
    OpInfo("cummin_int", lambda lib, x: x.cummin(0), INTEGERS),
    OpInfo("cummax_empty", lambda lib, x: x.cummax(0), [S((0, 3))]),
    # -- nansum / nanmean ----------------------------------------------------------------------------
    OpInfo("nansum", lambda lib, x: x.nansum(), SHAPES + [WITH_NAN]),
    OpInfo("nansum_dim", lambda lib, x: lib.nansum(x, 1), [S((3, 4)), WITH_NAN]),
    OpInfo("nansum_tuple_keepdim", lambda lib, x: lib.nansum(x, (0, 1), keepdim=True), [S((2, 3, 4)), WITH_NAN]),
    OpInfo("nansum_dtype", lambda lib, x: x.nansum(0, dtype=lib.float64), [WITH_NAN]),
    OpInfo("nansum_int", lambda lib, x: lib.nansum(x, 0), INTEGERS),
    OpInfo("nanmean", lambda lib, x: x.nanmean(), SHAPES + [WITH_NAN]),
    OpInfo("nanmean_dim", lambda lib, x: lib.nanmean(x, 1),
           [S((3, 4)), (Arg(values=[[1.5, NAN, -2.0], [0.5, 1.0, NAN]]),)]),
    # a row of NaN only: its mean is NaN, and so is its gradient (0 / 0), as in PyTorch
    OpInfo("nanmean_dim_all_nan", lambda lib, x: lib.nanmean(x, 1), [WITH_NAN], gradcheck=False),
    OpInfo("nanmean_dim0_keepdim", lambda lib, x: x.nanmean(0, keepdim=True), [WITH_NAN, S((2, 3, 4))]),
    OpInfo("nanmean_dtype", lambda lib, x: lib.nanmean(x, dtype=lib.float64), [WITH_NAN]),
    # -- count_nonzero -------------------------------------------------------------------------------
    OpInfo("count_nonzero", lambda lib, x: lib.count_nonzero(x),
           [(Arg((3, 4), kind="int", low=-1, high=2),), (Arg((3, 4), kind="bool"),), WITH_ZEROS[1], WITH_NAN]),
    OpInfo("count_nonzero_dim", lambda lib, x: x.count_nonzero(0), [(Arg((3, 4), kind="int", low=-1, high=2),)]),
    OpInfo("count_nonzero_tuple", lambda lib, x: x.count_nonzero((0, -1)),
           [(Arg((2, 3, 4), kind="int", low=0, high=2),)]),
    OpInfo("count_nonzero_0d", lambda lib, x: lib.count_nonzero(x, 0), [(Arg(values=0.0),), (Arg(values=2.5),)]),
    # -- diff ----------------------------------------------------------------------------------------
    OpInfo("diff", lambda lib, x: x.diff(), [S((5,)), S((3, 4)), S((2, 3, 1))]),
    OpInfo("diff_n2_dim0", lambda lib, x: lib.diff(x, n=2, dim=0), [S((5, 3)), S((2, 3))]),
    OpInfo("diff_n_large", lambda lib, x: lib.diff(x, 6), [S((3, 4))]),
    OpInfo("diff_n0", lambda lib, x: lib.diff(x, 0), [S((3, 4))]),
    OpInfo("diff_prepend_append", lambda lib, x, p, a: lib.diff(x, 2, -1, prepend=p, append=a),
           [S((3, 4), (3, 2), (3, 1))]),
    OpInfo("diff_prepend_dim0", lambda lib, x, p: x.diff(dim=0, prepend=p), [S((3, 4), (1, 4))]),
    OpInfo("diff_int_bool", lambda lib, x: lib.diff(x, 2), INTEGERS),
    OpInfo("diff_int_prepend", lambda lib, x, p: lib.diff(x, prepend=p),
           [(Arg((4,)), Arg((2,), kind="int", low=-3, high=3))]),
    # -- trapezoid -----------------------------------------------------------------------------------
    OpInfo("trapezoid", lambda lib, y: lib.trapezoid(y), [S((5,)), S((3, 4)), S((3, 1)), S((3, 0))]),
    OpInfo("trapezoid_dx_dim0", lambda lib, y: lib.trapezoid(y, dx=0.5, dim=0), [S((4, 3)), S((2, 3, 4))]),
    OpInfo("trapezoid_x", lambda lib, y, x: lib.trapezoid(y, x), [S((5,), (5,)), S((3, 4), (4,)), S((3, 4), (3, 4)),
                                                                 S((3, 4), (1, 4)), S((2, 3, 4), (3, 4))]),
    OpInfo("trapezoid_x_dim0", lambda lib, y, x: lib.trapezoid(y, x, dim=0), [S((4, 3), (4,))]),
    OpInfo("trapezoid_int", lambda lib, y: lib.trapezoid(y), [INTEGERS[0]]),
    OpInfo("trapezoid_int_x", lambda lib, y, x: lib.trapezoid(y, x),
           [(Arg((3, 4), kind="int", low=-5, high=5), Arg((4,), kind="int", low=0, high=9))]),
    # -- median, nanmedian, kthvalue, mode: distinct values where the gradient is checked ------------
    OpInfo("median", lambda lib, x: x.median(), [distinct((3, 4)), distinct((5,)), distinct(()), distinct((2, 3))]),
    OpInfo("median_dim", lambda lib, x: lib.median(x, 1), [distinct((3, 4)), distinct((3, 5)), distinct((2, 3, 4))]),
    OpInfo("median_dim_keepdim", lambda lib, x: x.median(0, keepdim=True), [distinct((4, 3)), distinct((2, 3, 4))]),
    OpInfo("median_dim_0d", lambda lib, x: x.median(0), [distinct(())]),
    OpInfo("median_ties", lambda lib, x: x.median(), [TIES], gradcheck=False),  # ties share, as in max()
    OpInfo("median_nan", lambda lib, x: x.median(), [WITH_NAN], gradcheck=False),
    OpInfo("median_dim_nan", lambda lib, x: x.median(1), [WITH_NAN], gradcheck=False),
    OpInfo("median_int", lambda lib, x: x.median(), [INTEGERS[0]]),
    OpInfo("nanmedian", lambda lib, x: x.nanmedian(), [distinct((3, 4)), distinct(())]),
    OpInfo("nanmedian_nan", lambda lib, x: lib.nanmedian(x), [WITH_NAN], gradcheck=False),
    OpInfo("nanmedian_dim", lambda lib, x: lib.nanmedian(x, 1), [distinct((3, 4)), distinct((2, 3, 5))]),
    OpInfo("nanmedian_dim_nan", lambda lib, x: x.nanmedian(-1, keepdim=True),
           [(Arg(values=[[1.5, NAN, -2.0, 0.5], [NAN, 1.0, NAN, 2.0], [0.5, -1.0, 3.0, 2.0]]),)]),
    OpInfo("kthvalue", lambda lib, x: x.kthvalue(2), [distinct((3, 4)), distinct((5,)), distinct((2, 3, 4))]),
    OpInfo("kthvalue_dim0_keepdim", lambda lib, x: lib.kthvalue(x, 3, 0, True), [distinct((4, 3))]),
    OpInfo("kthvalue_last", lambda lib, x: lib.kthvalue(x, 4, dim=1), [distinct((3, 4))]),
    OpInfo("kthvalue_0d", lambda lib, x: lib.kthvalue(x, 1), [distinct(())]),
    OpInfo("kthvalue_nan", lambda lib, x: lib.kthvalue(x, 4), [WITH_NAN[:1]], gradcheck=False),
    OpInfo("kthvalue_int", lambda lib, x: x.kthvalue(1, 0), [INTEGERS[0]]),
    OpInfo("mode", lambda lib, x: x.mode(), [distinct((3, 4)), distinct((5,)), distinct(())]),
    OpInfo("mode_repeats", lambda lib, x: lib.mode(x, 1),
           [(Arg(values=[[1.0, 2.0, 2.0, 3.0, 3.0], [5.0, 1.0, 1.0, 5.0, 0.0], [4.0, 3.0, 2.0, 1.0, 0.0],
                         [2.0, 1.0, 2.0, 1.0, 3.0]]),)], gradcheck=False),
    OpInfo("mode_dim0_keepdim", lambda lib, x: x.mode(0, keepdim=True), [(Arg((6, 5), kind="int", low=0, high=3),)]),
    OpInfo("mode_int_bool", lambda lib, x: lib.mode(x), INTEGERS),
    # -- quantile / nanquantile -----------------------------------------------------------------------
    OpInfo("quantile", lambda lib, x: x.quantile(0.3), [distinct((3, 4)), distinct((5,)), distinct(())]),
    OpInfo("quantile_dim", lambda lib, x: lib.quantile(x, 0.75, dim=1), [distinct((3, 4)), distinct((2, 5, 3))]),
    OpInfo("quantile_tensor_q", lambda lib, x, q: lib.quantile(x, q, dim=0, keepdim=True),
           [(Arg((4, 3), distinct=True), Arg(values=[0.0, 0.25, 0.6, 1.0], grad=False))]),
    OpInfo("quantile_tensor_q_all", lambda lib, x, q: x.quantile(q, keepdim=True),
           [(Arg((3, 4), distinct=True), Arg(values=[0.1, 0.9], grad=False)),
            (Arg((3, 4), distinct=True), Arg(values=0.5, grad=False))]),
    *[
        OpInfo(f"quantile_{mode}", lambda lib, x, q, mode=mode: lib.quantile(x, q, dim=-1, interpolation=mode),
               [(Arg((2, 6), distinct=True),
                 Arg(values=[0.0, 0.1, 0.125, 0.3, 0.5, 0.7, 0.75, 0.9, 1.0], grad=False))])
        for mode in ("linear", "lower", "higher", "midpoint", "nearest")
    ],
    OpInfo("quantile_nan", lambda lib, x: lib.quantile(x, 0.4, dim=1), [WITH_NAN], gradcheck=False),
    OpInfo("nanquantile", lambda lib, x: lib.nanquantile(x, 0.4, dim=1), [distinct((3, 4)), WITH_NAN]),
    OpInfo("nanquantile_all", lambda lib, x, q: x.nanquantile(q, interpolation="midpoint"),
           [(WITH_NAN[0], Arg(values=[0.2, 0.5], grad=False))], gradcheck=False),
    # -- never differentiable: counting, searching, unique values -----------------------------------------
    OpInfo("bincount", lambda lib, x: lib.bincount(x), [(Arg((8,), kind="int", low=0, high=5),)]),
    OpInfo("bincount_weights", lambda lib, x, w: x.bincount(w, minlength=7),
           [(Arg((8,), kind="int", low=0, high=5), Arg((8,), grad=False)),
            (Arg((8,), kind="int", low=0, high=5), Arg((8,), kind="int", low=-3, high=3))]),
    OpInfo("histc", lambda lib, x: lib.histc(x, bins=7), [S((20,), grad=False), S((3, 4), grad=False)]),
    OpInfo("histc_range", lambda lib, x: x.histc(10, min=0, max=1),
           [(Arg(values=[0.0, 0.1, 0.2, 0.3, 0.7, 0.9, 1.0, -0.5, 1.5, NAN], grad=False),), S((30,), grad=False)]),
    OpInfo("searchsorted", lambda lib, s, v: lib.searchsorted(s, v),
           [(Arg(values=[-1.0, 0.0, 0.5, 0.5, 2.0], grad=False), Arg((3, 4), grad=False)),
            (Arg(values=[[-1.0, 0.0, 1.0], [-0.5, 0.5, 0.5]], grad=False), Arg((2, 5), grad=False))]),
    OpInfo("searchsorted_right", lambda lib, s, v: lib.searchsorted(s, v, right=True, out_int32=True),
           [(Arg(values=[-1.0, 0.0, 0.5, 0.5, 2.0], grad=False), Arg(values=[0.5, -1.0, 3.0, 0.2], grad=False)),
            (Arg(values=[[-1.0, 0.0, 1.0], [-0.5, 0.5, 0.5]], grad=False),
             Arg(values=[[1.0, 0.0], [0.5, -3.0]], grad=False))]),
    OpInfo("searchsorted_side_sorter", lambda lib, s, v, order: lib.searchsorted(s, v, side="right", sorter=order),
           [(Arg(values=[5.0, 1.0, 3.0, 3.0], grad=False), Arg(values=[3.0, 0.0, 6.0, 2.0], grad=False),
             Arg(values=[1, 2, 3, 0], kind="int"))]),
    OpInfo("searchsorted_int", lambda lib, s, v: lib.searchsorted(s, v),
           [(Arg(values=[1, 3, 5, 7], kind="int"), Arg((2, 3), kind="int", low=0, high=9))]),
    OpInfo("bucketize", lambda lib, x, b: lib.bucketize(x, b),
           [(Arg((3, 4), grad=False), Arg(values=[-1.0, 0.0, 1.0], grad=False))]),
    OpInfo("bucketize_right", lambda lib, x, b: lib.bucketize(x, b, right=True, out_int32=True),
           [(Arg(values=[[-1.0, 0.5], [1.0, 3.0]], grad=False), Arg(values=[-1.0, 0.0, 1.0], grad=False))]),
    OpInfo("unique", lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True),
           [(Arg((3, 5), kind="int", low=0, high=6),), (Arg((6,), kind="bool"),),
            (Arg(values=[2.0, -0.0, 0.0, NAN, 1.5, NAN, 2.0], grad=False),)]),
    OpInfo("unique_plain", lambda lib, x: x.unique(), [(Arg((3, 5), kind="int", low=0, high=6),)]),
    OpInfo("unique_dim", lambda lib, x: lib.unique(x, dim=0, return_inverse=True, return_counts=True),
           [(Arg((6, 2), kind="int", low=0, high=2),), (Arg((5, 2, 2), kind="int", low=0, high=2),)]),
    OpInfo("unique_dim1", lambda lib, x: x.unique(dim=-1, return_counts=True),
           [(Arg((2, 6), kind="int", low=0, high=2),)]),
    OpInfo("unique_consecutive", lambda lib, x: lib.unique_consecutive(x, return_inverse=True, return_counts=True),
           [(Arg((3, 5), kind="int", low=0, high=2),), (Arg(values=[NAN, NAN, 1.0, 1.0, -0.0, 0.0], grad=False),)]),
    OpInfo("unique_consecutive_dim", lambda lib, x: x.unique_consecutive(return_counts=True, dim=0),
           [(Arg((6, 2), kind="int", low=0, high=2),)]),
    OpInfo("unravel_index", lambda lib, i: lib.unravel_index(i, (2, 3, 4)),
           [(Arg((3, 4), kind="int", low=0, high=24),), (Arg((), kind="int", low=0, high=24),),
            (Arg((5,), kind="int", values=[-1, 24, 25, -25, 7]),), (Arg((0,), kind="int"),)]),
    OpInfo("unravel_index_int_shape", lambda lib, i: lib.unravel_index(i, 7),
           [(Arg((2, 3), kind="int", low=0, high=7),)]),
    OpInfo("argwhere", lambda lib, x: lib.argwhere(x),
           [(Arg((3, 4), kind="int", low=0, high=2),), (Arg((2, 3, 2), kind="bool"),), (Arg(values=2.0, grad=False),),
            (Arg(values=0.0, grad=False),), (Arg((0, 3), grad=False),)]),
    OpInfo("argwhere_method", lambda lib, x: x.argwhere(), [(Arg(values=[[0.0, NAN], [-0.0, 1.5]], grad=False),)]),
    # -- aminmax ---------------------------------------------------------------------------------------------
    OpInfo("aminmax", lambda lib, x: lib.aminmax(x), [distinct((3, 4)), distinct(()), distinct((2, 3, 4))]),
    OpInfo("aminmax_dim", lambda lib, x: x.aminmax(dim=1), [distinct((3, 4)), distinct((2, 3, 4)), distinct((3, 1))]),
    OpInfo("aminmax_dim_keepdim", lambda lib, x: lib.aminmax(x, dim=-1, keepdim=True),
           [distinct((3, 4)), distinct(())]),
    OpInfo("aminmax_keepdim_all", lambda lib, x: x.aminmax(keepdim=True), [distinct((3, 4))]),
    OpInfo("aminmax_ties", lambda lib, x: lib.aminmax(x, dim=0), [TIES], gradcheck=False),
    OpInfo("aminmax_ties_all", lambda lib, x: x.aminmax(), [TIES], gradcheck=False),
    OpInfo("aminmax_nan", lambda lib, x: lib.aminmax(x, dim=1), [WITH_NAN], gradcheck=False),
    OpInfo("aminmax_int_bool", lambda lib, x: x.aminmax(dim=0), INTEGERS),
    # -- renorm -------------------------------------------------------------------------------------------------
    OpInfo("renorm", lambda lib, x: lib.renorm(x, 2, 0, 1.5), [S((3, 4)), S((2, 3, 4)), S((4, 1))]),
    OpInfo("renorm_p1_dim1", lambda lib, x: x.renorm(1, 1, 2.0), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("renorm_p3_last_dim", lambda lib, x: lib.renorm(x, 3, -1, 1.0), [S((2, 3, 4))]),
    OpInfo("renorm_inf", lambda lib, x: lib.renorm(x, math.inf, 0, 1.0), [distinct((3, 4))]),
    # Rows below maxnorm pass through unchanged; maxnorm 0 zeroes everything
    OpInfo("renorm_mixed_rows", lambda lib, x: x.renorm(2, 0, 1.0),
           [(Arg(values=[[0.3, -0.4, 0.2], [3.0, 1.0, -2.0], [0.1, 0.0, 0.0]]),)]),
    OpInfo("renorm_zero_maxnorm", lambda lib, x: lib.renorm(x, 2, 1, 0.0), [S((3, 4))]),
    # -- trapz and cumulative_trapezoid --------------------------------------------------------------------------
    OpInfo("trapz", lambda lib, y: lib.trapz(y), [S((3, 4)), S((5,))]),
    OpInfo("trapz_x_dim", lambda lib, y, x: lib.trapz(y, x, dim=0),
           [(Arg((3, 4)), Arg(values=[0.0, 0.5, 2.0])), (Arg((3, 4)), Arg((3, 4)))]),
    OpInfo("trapz_dx", lambda lib, y: lib.trapz(y, dx=0.5, dim=-2), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("cumulative_trapezoid", lambda lib, y: lib.cumulative_trapezoid(y),
           [S((3, 4)), S((5,)), S((2, 3, 4)), S((3, 1)), S((2, 0))]),
    OpInfo("cumulative_trapezoid_dx_dim", lambda lib, y: lib.cumulative_trapezoid(y, dx=2.5, dim=0),
           [S((3, 4)), S((2, 3, 4))]),
    OpInfo("cumulative_trapezoid_x", lambda lib, y, x: lib.cumulative_trapezoid(y, x),
           [(Arg((3, 4)), Arg(values=[0.0, 0.5, 2.0, 2.25])), (Arg((3, 4)), Arg((3, 4))),
            (Arg((2, 3, 4)), Arg((3, 4)))]),
    OpInfo("cumulative_trapezoid_int", lambda lib, y: lib.cumulative_trapezoid(y),
           [(Arg((3, 4), kind="int", low=-5, high=5),)]),
    OpInfo("cumulative_trapezoid_int_x", lambda lib, y, x: lib.cumulative_trapezoid(y, x, dim=0),
           [(Arg((3, 4), kind="int", low=-5, high=5), Arg(values=[0, 2, 3], kind="int"))]),
    # -- histogram (never differentiable) --------------------------------------------------------------------------
    OpInfo("histogram", lambda lib, x: lib.histogram(x, 7), [S((20,), grad=False), S((3, 4), grad=False)]),
    OpInfo("histogram_range_density", lambda lib, x: x.histogram(10, range=(-1.0, 1.5), density=True),
           [S((30,), grad=False), (Arg(values=[0.0, -1.0, 1.5, 1.6, -2.0, NAN, 0.25, 0.5], grad=False),)]),
    OpInfo("histogram_bin_edges", lambda lib, x, edges, w: lib.histogram(x, edges, weight=w),
           [(Arg((4, 5), grad=False), Arg(values=[-1.5, -0.5, 0.0, 0.0, 0.25, 1.0], grad=False),
             Arg((4, 5), grad=False))]),
    OpInfo("histogram_bin_edges_density", lambda lib, x, edges: lib.histogram(x, edges, density=True),
           [(Arg((12,), grad=False), Arg(values=[-2.0, -1.0, 0.5, 2.0], grad=False))]),
    OpInfo("histogram_one_value", lambda lib, x: lib.histogram(x, 4), [(Arg(values=[2.0, 2.0, 2.0], grad=False),)]),
]
