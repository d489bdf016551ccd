"""Op-table entries for ``minitorch/ops/indexing.py``.

Index tensors are ``Arg(kind="index", high=n)`` (random, so repeated indices are common:
their gradients must add up); masks are ``Arg(kind="bool")``. Constant indices are
captured by the lambdas.
"""

from tests.ops.op_table import Arg, OpInfo, S


def _index(shape, high, **options):
    return Arg(shape, kind="index", high=high, **options)


def _mask(shape):
    return Arg(shape, kind="bool")


def _set_number(lib, x):
    y = x * 1  # a non-leaf copy: writing into a leaf that requires grad is an error
    y[1, ::2] = 5.0
    return y


def _set_tensor(lib, x, v):
    y = x * 1
    y[1:, [0, 2, 2]] = v  # v broadcast over the selection; the repeated column is written twice
    return y


def _set_mask(lib, x, mask, v):
    y = x.clone()
    y[mask] = v
    return y


def _set_into_fresh(lib, v):
    y = lib.zeros(3, 4, dtype=v.dtype, device=v.device)  # a tensor that needs no grad takes over v's graph
    y[0] = v
    y[2, 1:3] = v[:2] * 2
    return y


def _set_with_index_tensor(lib, x, index, v):
    y = x.clone()
    y[index] = v
    return y


def _set_keeps_views(lib, x, v):
    y = x.clone()
    row = y[1].detach()  # a view: its data sees the write below (only data: PyTorch's view rebasing is not modelled)
    y[1, 1:] = v
    return row * 1, y


OPS = [
    # reading with basic keys: views
    OpInfo("getitem_int", lambda lib, x: x[1], [S((3, 4)), S((3,)), S((2, 3, 4))]),
    OpInfo("getitem_negative_int", lambda lib, x: x[-1, -2], [S((3, 4))]),
    OpInfo("getitem_slice", lambda lib, x: x[1:], [S((3, 4)), S((5,))]),
    OpInfo("getitem_step", lambda lib, x: x[::2, 1:4:2], [S((5, 6))]),
    OpInfo("getitem_slice_past_end", lambda lib, x: x[2:10, -10:2], [S((4, 5))]),
    OpInfo("getitem_none_ellipsis", lambda lib, x: x[None, ..., 1, None], [S((2, 3, 4)), S((3,))]),
    OpInfo("getitem_ellipsis", lambda lib, x: x[..., 0], [S((2, 3, 4))]),
    OpInfo("getitem_all_ints", lambda lib, x: x[1, 2], [S((3, 4))]),
    OpInfo("getitem_0d", lambda lib, x: x[None][...], [S(())]),
    OpInfo("getitem_empty_slice", lambda lib, x: x[2:2], [S((4, 3))]),
    # reading with index arrays and masks: copies; repeated indices accumulate in backward
    OpInfo("getitem_list", lambda lib, x: x[[0, 2, 2, 0]], [S((3, 4)), S((3,))]),
    OpInfo("getitem_index_tensor", lambda lib, x, i: x[i], [(Arg((4, 3)), _index((5,), 4)),
                                                         (Arg((4,)), _index((2, 3), 4))]),
    OpInfo("getitem_two_index_tensors", lambda lib, x, i, j: x[i, j],
           [(Arg((3, 4)), _index((5,), 3), _index((5,), 4)), (Arg((3, 4)), _index((2, 1), 3), _index((3,), 4))]),
    OpInfo("getitem_separated_arrays", lambda lib, x: x[[0, 1], :, [2, 2]], [S((2, 3, 4))]),
    OpInfo("getitem_mixed", lambda lib, x: x[1:, ::2, None, [0, 2, 2]], [S((3, 4, 5))]),
    OpInfo("getitem_int_and_list", lambda lib, x: x[1, [0, 0, 3]], [S((2, 4))]),
    OpInfo("getitem_index_0d_tensor", lambda lib, x, i: x[i], [(Arg((3, 4)), _index((), 3))]),
    OpInfo("getitem_empty_list", lambda lib, x: x[[]], [S((3, 4))]),
    OpInfo("getitem_mask", lambda lib, x, m: x[m], [(Arg((3, 4)), _mask((3, 4))), (Arg((3, 4)), _mask((3,))),
                                                    (Arg((2, 3, 4)), _mask((2, 3)))]),
    OpInfo("getitem_mask_after_slice", lambda lib, x, m: x[:, m], [(Arg((3, 4)), _mask((4,)))]),
    OpInfo("getitem_comparison_mask", lambda lib, x: x[x > 0], [S((3, 4))]),
    # writing: out of place for the graph, in place for the data
    OpInfo("setitem_number", _set_number, [S((3, 4)), S((2, 5, 2))]),
    OpInfo("setitem_tensor", _set_tensor, [S((3, 4), (3,)), S((3, 4), (2, 1)), S((3, 4), ())]),
    OpInfo("setitem_mask", _set_mask, [(Arg((3, 4)), _mask((3, 4)), Arg(())), (Arg((3, 4)), _mask((3,)), Arg((4,)))]),
    OpInfo("setitem_fresh_tensor", _set_into_fresh, [S((4,))]),
    OpInfo("setitem_index_tensor", _set_with_index_tensor,
           [(Arg((4, 3)), _index((2,), 4, values=[3, 0]), Arg((2, 3)))]),
    OpInfo("setitem_seen_by_views", _set_keeps_views, [S((3, 4), (3,))]),
    # gather and scatter
    OpInfo("gather", lambda lib, x, i: x.gather(1, i), [(Arg((3, 4)), _index((3, 6), 4)),
                                                        (Arg((3, 4)), _index((2, 2), 4)),
                                                        (Arg((2, 3, 4)), _index((2, 3, 2), 3))]),
    OpInfo("gather_dim0", lambda lib, x, i: lib.gather(x, 0, i), [(Arg((3, 4)), _index((5, 4), 3))]),
    OpInfo("gather_0d", lambda lib, x, i: x.gather(0, i), [(Arg(()), _index((), 1))]),
    # PyTorch counts a 0-d index as a 1-d index of one element next to a 1-d input
    OpInfo("gather_0d_index", lambda lib, x, i: x.gather(0, i), [(Arg((4,)), _index((), 4))]),
    OpInfo("scatter_0d_index", lambda lib, x, i, s: x.scatter(0, i, s), [(Arg((4,)), _index((), 4), Arg(()))]),
    OpInfo("scatter_add_0d_index", lambda lib, x, i, s: x.scatter_add(0, i, s), [(Arg((4,)), _index((), 4), Arg(()))]),
    OpInfo("getitem_range", lambda lib, x: x[range(1, 3)], [S((4, 3))]),
    OpInfo("getitem_ranges", lambda lib, x: x[:, range(0, 3, 2)], [S((4, 3))]),
    # scatter overwrites: indices are distinct along dim, so which write wins is never in question
    OpInfo("scatter", lambda lib, x, i, s: x.scatter(0, i, s),
           [(Arg((3, 4)), _index((2, 4), 3, values=[[0, 1, 2, 0], [2, 0, 1, 1]]), Arg((2, 4))),
            (Arg((3, 4)), _index((2, 3), 3, values=[[0, 1, 2], [1, 2, 0]]), Arg((3, 5), grad=False))]),
    # PyTorch 2.13's own backward fails when src is larger than index ("returned an invalid gradient"):
    # minitorch's gradient (zero where src was not used) is checked against finite differences only.
    OpInfo("scatter_src_larger", lambda lib, x, i, s: x.scatter(0, i, s),
           [(Arg((3, 4)), _index((2, 3), 3, values=[[0, 1, 2], [1, 2, 0]]), Arg((3, 5)))],
           skip_torch="PyTorch 2.13 fails in backward when src is larger than index"),
    OpInfo("scatter_add_src_larger", lambda lib, x, i, s: x.scatter_add(1, i, s),
           [(Arg((3, 4)), _index((2, 2), 4), Arg((3, 3)))],
           skip_torch="PyTorch 2.13 fails in backward when src is larger than index"),
    OpInfo("scatter_dim1", lambda lib, x, i, s: lib.scatter(x, -1, i, s),
           [(Arg((2, 3)), _index((2, 2), 3, values=[[2, 0], [1, 2]]), Arg((2, 2)))]),
    OpInfo("scatter_value", lambda lib, x, i: x.scatter(1, i, 2.5), [(Arg((3, 4)), _index((3, 2), 4))]),
    # a 0-d index or src counts as 1-d on a vector (the one-hot target transform of PyTorch's tutorials)
    OpInfo("scatter_0d_index", lambda lib, x, i, s: x.scatter(0, i, s),
           [(Arg((5,)), _index((), 5), Arg(()))]),
    OpInfo("scatter_value_0d_index", lambda lib, x, i: x.scatter(0, i, value=1.0), [(Arg((5,)), _index((), 5))]),
    OpInfo("scatter_add_0d_index", lambda lib, x, i, s: x.scatter_add(0, i, s), [(Arg((5,)), _index((), 5), Arg(()))]),
    OpInfo("scatter_add", lambda lib, x, i, s: x.scatter_add(1, i, s), [(Arg((3, 4)), _index((3, 6), 4), Arg((3, 6))),
                                                                        (Arg((3, 4)), _index((2, 2), 4), Arg((2, 2)))]),
    OpInfo("scatter_add_function", lambda lib, x, i, s: lib.scatter_add(x, 0, i, s),
           [(Arg((3, 2)), _index((5, 2), 3), Arg((5, 2)))]),
    # PyTorch has no derivative for scatter(reduce=...): checked forward only
    OpInfo("scatter_reduce_add", lambda lib, x, i, s: x.scatter(1, i, s, reduce="add"),
           [(Arg((3, 4), grad=False), _index((3, 5), 4), Arg((3, 5), grad=False))]),
    OpInfo("scatter_reduce_multiply", lambda lib, x, i: x.scatter(1, i, 1.5, reduce="multiply"),
           [(Arg((3, 4), grad=False), _index((3, 5), 4))]),
    # the other reads
    OpInfo("index_select", lambda lib, x, i: x.index_select(1, i), [(Arg((3, 4)), _index((6,), 4)),
                                                                    (Arg((2, 3, 4)), _index((), 3))]),
    OpInfo("index_select_1d", lambda lib, x, i: x.index_select(0, i), [(Arg((3,)), _index((4,), 3))]),
    OpInfo("index_select_function", lambda lib, x, i: lib.index_select(x, 0, i), [(Arg((3, 4)), _index((5,), 3))]),
    OpInfo("take", lambda lib, x, i: x.take(i), [(Arg((3, 4)), _index((2, 5), 12)), (Arg(()), _index((3,), 1))]),
    OpInfo("take_negative", lambda lib, x: lib.take(x, lib.tensor([-1, 0, -12, -1], device=x.device)), [S((3, 4))]),
    OpInfo("masked_select", lambda lib, x, m: x.masked_select(m), [(Arg((3, 4)), _mask((3, 4))),
                                                                   (Arg((3, 4)), _mask((4,))),
                                                                   (Arg((4,)), _mask((2, 4)))]),
    OpInfo("masked_select_function", lambda lib, x, m: lib.masked_select(x, m), [(Arg((2, 3)), _mask((2, 3)))]),
    OpInfo("masked_fill", lambda lib, x, m: x.masked_fill(m, -1.5), [(Arg((3, 4)), _mask((3, 4))),
                                                                     (Arg((3, 4)), _mask((4,))),
                                                                     (Arg((4,)), _mask((2, 4)))]),
    OpInfo("masked_fill_tensor_value", lambda lib, x, m, v: x.masked_fill(m, v), [(Arg((3, 4)), _mask((3, 4)), Arg(())),
                                                                                  (Arg((3,)), _mask((2, 3)), Arg(()))]),
    OpInfo("masked_fill_function", lambda lib, x, m: lib.masked_fill(x, m, 0.0), [(Arg((3, 4)), _mask((3, 1)))]),
    OpInfo("nonzero", lambda lib, x: x.nonzero(), [(Arg((3, 4), kind="int", low=-1, high=2),),
                                                   (Arg((), kind="int", low=0, high=2),), (Arg((5,), kind="bool"),)]),
    OpInfo("nonzero_as_tuple", lambda lib, x: lib.nonzero(x, as_tuple=True),
           [(Arg((3, 4), kind="int", low=-1, high=2),), (Arg((), kind="int", low=1, high=2),)]),
    OpInfo("tril", lambda lib, x: x.tril(), [S((4, 4)), S((2, 3, 5))]),
    OpInfo("tril_offset", lambda lib, x: lib.tril(x, -1), [S((4, 4)), S((3, 5))]),
    OpInfo("triu", lambda lib, x: x.triu(1), [S((4, 4)), S((2, 5, 3))]),
    OpInfo("triu_function", lambda lib, x: lib.triu(x, 0), [S((4, 4))]),
]


def _inplace_index_add(lib, x, s):
    y = x * 1  # a non-leaf copy: writing into a leaf that requires grad is an error
    y.index_add_(1, lib.tensor([2, 0, 2], device=x.device), s, alpha=-0.5)
    return y


def _inplace_index_copy(lib, x, s):
    y = x * 1
    y[1:].index_copy_(0, lib.tensor([1, 0], device=x.device), s)  # written through a view of y
    return y


def _inplace_masked_scatter(lib, x, m, s):
    y = x * 1
    y.masked_scatter_(m, s)
    return y


OPS += [
    OpInfo("take_along_dim", lambda lib, x, i: lib.take_along_dim(x, i, 1),
           [(Arg((3, 4)), _index((3, 5), 4)), (Arg((3, 4)), _index((1, 2), 4)), (Arg((1, 4)), _index((3, 2), 4)),
            (Arg((2, 3, 4)), _index((2, 2, 1), 3))]),
    OpInfo("take_along_dim_flat", lambda lib, x, i: x.take_along_dim(i), [(Arg((3, 4)), _index((5,), 12)),
                                                                          (Arg(()), _index((), 1))]),
    OpInfo("take_along_dim_argsort", lambda lib, x: lib.take_along_dim(x, x.argsort(-1), -1),
           [S((3, 4), distinct=True)]),
    OpInfo("index_add", lambda lib, x, i, s: x.index_add(1, i, s), [(Arg((3, 4)), _index((5,), 4), Arg((3, 5)))]),
    OpInfo("index_add_1d", lambda lib, x, i, s: x.index_add(0, i, s), [(Arg((3,)), _index((4,), 3), Arg((4,)))]),
    OpInfo("index_add_alpha", lambda lib, x, i, s: lib.index_add(x, 0, i, s, alpha=2.5),
           [(Arg((3, 2)), _index((4,), 3), Arg((4, 2))), (Arg((3, 2)), _index((), 3), Arg((1, 2)))]),
    OpInfo("index_add_inplace", _inplace_index_add, [S((2, 3), (2, 3))]),
    OpInfo("index_copy", lambda lib, x, i, s: x.index_copy(1, i, s),
           [(Arg((3, 4)), _index((3,), 4, values=[3, 0, 1]), Arg((3, 3)))]),
    OpInfo("index_copy_1d", lambda lib, x, i, s: x.index_copy(0, i, s),
           [(Arg((4,)), _index((2,), 4, values=[2, 1]), Arg((2,)))]),
    OpInfo("index_copy_function", lambda lib, x, i, s: lib.index_copy(x, -2, i, s),
           [(Arg((2, 3, 2)), _index((), 3, values=1), Arg((2, 1, 2)))]),
    OpInfo("index_copy_inplace_view", _inplace_index_copy, [S((3, 4), (2, 4))]),
    OpInfo("masked_scatter", lambda lib, x, m, s: x.masked_scatter(m, s),
           [(Arg((3, 4)), _mask((3, 4)), Arg((12,))), (Arg((3, 4)), _mask((4,)), Arg((4, 4))),
            (Arg((4,)), _mask((2, 4)), Arg((3, 3)))]),
    OpInfo("masked_scatter_function", lambda lib, x, m, s: lib.masked_scatter(x, m, s),
           [(Arg((2, 3)), _mask((2, 3)), Arg((2, 3)))]),
    OpInfo("masked_scatter_inplace", _inplace_masked_scatter, [(Arg((3, 4)), _mask((3, 1)), Arg((13,)))]),
    OpInfo("slice_scatter", lambda lib, x, s: lib.slice_scatter(x, s, 1, 1, 3), [S((3, 4), (3, 2))]),
    OpInfo("slice_scatter_step", lambda lib, x, s: x.slice_scatter(s, dim=-1, step=2), [S((3, 5), (3, 3))]),
    OpInfo("slice_scatter_defaults", lambda lib, x, s: lib.slice_scatter(x, s), [S((3, 4), (3, 4))]),
    OpInfo("slice_scatter_negative", lambda lib, x, s: lib.slice_scatter(x, s, 0, -2, 10), [S((4, 2), (2, 2))]),
    OpInfo("select_scatter", lambda lib, x, s: lib.select_scatter(x, s, 0, 1), [S((3, 4), (4,)), S((2,), ())]),
    OpInfo("select_scatter_negative", lambda lib, x, s: x.select_scatter(s, -1, -2), [S((2, 3, 4), (2, 3))]),
]


def _distinct_index(values):
    """Index positions given explicitly: where a write is not an accumulation, which write wins must not matter."""
    return Arg((len(values),), kind="index", values=values)


def _inplace_index_put(lib, x, v):
    y = x * 1
    y.index_put_((lib.tensor([0, 2, 0], device=x.device), lib.tensor([1, 1, 1], device=x.device)), v,
                 accumulate=True)  # fmt: skip
    return y


def _inplace_index_fill_view(lib, x, v):
    y = x * 1
    y[1:].index_fill_(1, lib.tensor([0, 2], device=x.device), v)
    return y


def _inplace_scatter_reduce(lib, x, i, s):
    y = x * 1
    y.scatter_reduce_(1, i, s, "amax", include_self=False)
    return y


OPS += [
    OpInfo("index_fill", lambda lib, x, i: x.index_fill(1, i, -1.5), [(Arg((3, 4)), _index((5,), 4)),
                                                                      (Arg((2, 3, 4)), _index((), 3))]),
    OpInfo("index_fill_negative", lambda lib, x: lib.index_fill(x, 0, lib.tensor([-1, 0], device=x.device), 2.0),
           [S((3, 2)), S((3,))]),
    OpInfo("index_fill_tensor_value", lambda lib, x, i, v: lib.index_fill(x, -1, i, v),
           [(Arg((3, 4)), _index((2,), 4), Arg(()))]),
    OpInfo("index_fill_0d", lambda lib, x, i: x.index_fill(0, i, 1.0), [(Arg(()), _index((1,), 1))]),
    OpInfo("index_fill_int", lambda lib, x, i: x.index_fill(0, i, 2.7),
           [(Arg((3, 2), kind="int", low=-5, high=5), _index((2,), 3))]),
    OpInfo("index_fill_inplace_view", _inplace_index_fill_view, [S((3, 4), ())]),
    OpInfo("index_put", lambda lib, x, i, v: x.index_put((i,), v),
           [(Arg((4, 3)), _distinct_index([2, 0]), Arg((2, 3))), (Arg((4, 3)), _distinct_index([3, 1]), Arg((3,))),
            (Arg((4, 3)), _distinct_index([1]), Arg(()))]),
    OpInfo("index_put_two_indices", lambda lib, x, i, j, v: lib.index_put(x, (i, j), v),
           [(Arg((3, 4)), _distinct_index([0, 2, 1]), _distinct_index([3, 3, 0]), Arg((3,)))]),
    OpInfo("index_put_accumulate", lambda lib, x, i, v: lib.index_put(x, [i], v, accumulate=True),
           [(Arg((3, 4)), _index((5,), 3), Arg((5, 4))), (Arg((3, 4)), _index((2, 2), 3), Arg((4,)))]),
    OpInfo("index_put_mask", lambda lib, x, m, v: x.index_put((m,), v), [(Arg((3, 4)), _mask((3, 4)), Arg(())),
                                                                         (Arg((3, 4)), _mask((3,)), Arg((4,)))]),
    OpInfo("index_put_inplace", _inplace_index_put, [S((3, 4), ())]),
]

_SCATTER_INDEX = [[0, 1, 0, 3, 0], [2, 2, 2, 1, 1]]  # repeats, and position 2 of row 0 that nothing reaches


def _reduce_entry(reduce, include_self, **options):
    sample = [(Arg((2, 4)), Arg((2, 5), kind="index", values=_SCATTER_INDEX), Arg((2, 5), **options))]
    return OpInfo(f"scatter_reduce_{reduce}{'' if include_self else '_exclude_self'}",
                  lambda lib, x, i, s: x.scatter_reduce(1, i, s, reduce, include_self=include_self), sample)


OPS += [_reduce_entry(reduce, include_self) for reduce in ("sum", "mean") for include_self in (True, False)]
OPS += [_reduce_entry(reduce, include_self, distinct=True) for reduce in ("amax", "amin")
        for include_self in (True, False)]  # fmt: skip
OPS += [_reduce_entry("prod", include_self, low=0.5, high=1.5) for include_self in (True, False)]
OPS += [
    OpInfo("scatter_reduce_function", lambda lib, x, i, s: lib.scatter_reduce(x, 0, i, s, "sum"),
           [(Arg((3, 2)), _index((5, 2), 3), Arg((5, 2)))]),
    OpInfo("scatter_reduce_src_larger", lambda lib, x, i, s: lib.scatter_reduce(x, 0, i, s, "mean"),
           [(Arg((3, 2)), _index((2, 1), 3), Arg((3, 2)))],
           skip_torch="PyTorch 2.13 fails in backward when src is larger than index"),
    OpInfo("scatter_reduce_src_larger_forward", lambda lib, x, i, s: lib.scatter_reduce(x, 0, i, s, "amin"),
           [(Arg((3, 2), grad=False), _index((2, 1), 3), Arg((3, 2), grad=False))]),
    OpInfo("scatter_reduce_prod_zeros", lambda lib, x, s: x.scatter_reduce(0, lib.tensor([0, 0, 1, 2], device=x.device),
                                                                           s, "prod"),
           [(Arg((3,)), Arg((4,), values=[0.0, 1.5, 0.0, -2.0])), (Arg((3,), values=[0.0, 2.0, 1.0]), Arg((4,)))]),
    OpInfo("scatter_reduce_amax_ties", lambda lib, x, s: x.scatter_reduce(0, lib.tensor([0, 0, 1], device=x.device), s,
                                                                          "amax"),
           [(Arg((2,), values=[1.0, 0.0]), Arg((3,), values=[1.0, 1.0, -1.0]))], gradcheck=False),
    OpInfo("scatter_reduce_int_mean", lambda lib, x, i, s: x.scatter_reduce(1, i, s, "mean"),
           [(Arg((2, 4), kind="int", low=-9, high=9), Arg((2, 5), kind="index", values=_SCATTER_INDEX),
             Arg((2, 5), kind="int", low=-9, high=9))]),
    OpInfo("scatter_reduce_int_amin", lambda lib, x, i, s: x.scatter_reduce(1, i, s, "amin", include_self=False),
           [(Arg((2, 4), kind="int", low=-9, high=9), Arg((2, 5), kind="index", values=_SCATTER_INDEX),
             Arg((2, 5), kind="int", low=-9, high=9))]),
    OpInfo("scatter_reduce_inplace", _inplace_scatter_reduce,
           [(Arg((2, 4)), Arg((2, 5), kind="index", values=_SCATTER_INDEX), Arg((2, 5), distinct=True))]),
]
