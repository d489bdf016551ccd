"""Shape and indexing behaviour the op table cannot express: errors, views, in-place writes.

Each check runs the same code on minitorch and on PyTorch and compares what happens.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.support import require_torch

# -- errors: same exception type and message as PyTorch ------------------------------------------
ERRORS = {
    "view_noncontiguous": lambda lib: lib.zeros(3, 4).t().view(12),
    "reshape_wrong_size": lambda lib: lib.zeros(3, 4).reshape(5, -1),
    "flatten_order": lambda lib: lib.zeros(2, 3, 4).flatten(2, 1),
    "unflatten_sizes": lambda lib: lib.zeros(2, 3, 4).unflatten(2, (3, 2)),
    "unflatten_empty": lambda lib: lib.zeros(2, 3).unflatten(1, ()),
    "squeeze_dim": lambda lib: lib.zeros(2, 3).squeeze(2),
    "unsqueeze_dim": lambda lib: lib.zeros(2, 3).unsqueeze(3),
    "permute_length": lambda lib: lib.zeros(2, 3, 4).permute(0, 1),
    "permute_duplicate": lambda lib: lib.zeros(2, 3, 4).permute(0, 0, 1),
    "t_3d": lambda lib: lib.zeros(2, 3, 4).t(),
    "transpose_dim": lambda lib: lib.zeros(2, 3).transpose(0, 2),
    "movedim_counts": lambda lib: lib.movedim(lib.zeros(2, 3), (0, 1), (0,)),
    "movedim_repeated": lambda lib: lib.movedim(lib.zeros(2, 3, 4), (0, 0), (1, 2)),
    "expand_size": lambda lib: lib.zeros(2, 3).expand(3, 3),
    "repeat_too_few": lambda lib: lib.zeros(2, 3).repeat(2),
    "repeat_negative": lambda lib: lib.zeros(2, 3).repeat(-1, 1),
    "cat_empty_list": lambda lib: lib.cat([]),
    "cat_sizes": lambda lib: lib.cat([lib.zeros(2, 3), lib.zeros(2, 2)]),
    "cat_dims": lambda lib: lib.cat([lib.zeros(2, 3), lib.zeros(3)]),
    "cat_0d": lambda lib: lib.cat([lib.tensor(1.0), lib.tensor(2.0)]),
    "cat_dim_range": lambda lib: lib.cat([lib.zeros(2, 3), lib.zeros(2, 3)], 2),
    "cat_not_a_list": lambda lib: lib.cat(lib.zeros(2, 3)),
    "cat_element": lambda lib: lib.cat([lib.zeros(2), 1]),
    "stack_sizes": lambda lib: lib.stack([lib.zeros(2, 3), lib.zeros(3)]),
    "stack_empty": lambda lib: lib.stack([]),
    "split_sizes_sum": lambda lib: lib.zeros(2, 3).split([1, 1], 1),
    "split_sizes_negative": lambda lib: lib.zeros(2, 3).split([4, -1], 1),
    "split_zero": lambda lib: lib.zeros(3).split(0),
    "split_negative": lambda lib: lib.zeros(3).split(-1),
    "split_0d": lambda lib: lib.tensor(1.0).split(1),
    "chunk_zero": lambda lib: lib.zeros(3).chunk(0),
    "unbind_0d": lambda lib: lib.tensor(1.0).unbind(),
    "narrow_length": lambda lib: lib.zeros(2, 3).narrow(1, 2, 2),
    "narrow_negative_length": lambda lib: lib.zeros(2, 3).narrow(1, 0, -1),
    "narrow_start": lambda lib: lib.zeros(2, 3).narrow(1, 4, 0),
    "flip_repeated": lambda lib: lib.zeros(2, 3).flip(0, 0),
    "roll_align": lambda lib: lib.zeros(2, 3).roll(1, (0, 1)),
    "index_out_of_range": lambda lib: lib.zeros(3)[5],
    "index_out_of_range_dim1": lambda lib: lib.zeros(2, 3)[:, -4],
    "index_list_out_of_range": lambda lib: lib.zeros(3)[[1, 4]],
    "index_negative_step": lambda lib: lib.zeros(3)[::-1],
    "index_too_many": lambda lib: lib.zeros(2, 3)[0, 0, 0],
    "index_0d": lambda lib: lib.tensor(1.0)[0],
    "index_float": lambda lib: lib.zeros(3)[1.0],
    "index_float_tensor": lambda lib: lib.zeros(3)[lib.tensor([0.0])],
    "index_mask_shape": lambda lib: lib.zeros(2, 3)[lib.ones(3, dtype=lib.bool)],
    "index_mask_shape_2d": lambda lib: lib.zeros(2, 3)[lib.ones(2, 2, dtype=lib.bool)],
    "index_shape_mismatch": lambda lib: lib.zeros(2, 3)[[0, 1], [0, 1, 1]],
    "setitem_out_of_range": lambda lib: lib.zeros(3, 4).__setitem__(5, 1.0),
    "setitem_shape": lambda lib: lib.zeros(3, 4).__setitem__(0, lib.ones(3)),
    "setitem_leaf_view": lambda lib: lib.zeros(3, requires_grad=True).__setitem__(0, 1.0),
    "setitem_leaf_advanced": lambda lib: lib.zeros(3, requires_grad=True).__setitem__([0], 1.0),
    "setitem_index_dtype": lambda lib: lib.zeros(3, dtype=lib.long).__setitem__([1], lib.tensor([2.0])),
    "setitem_view_of_leaf": lambda lib: lib.zeros(2, 3, requires_grad=True)[0].__setitem__(0, 1.0),
    "gather_dims": lambda lib: lib.zeros(2, 3).gather(1, lib.tensor([0])),
    "gather_out_of_range": lambda lib: lib.zeros(2, 3).gather(1, lib.tensor([[3]])),
    "gather_negative": lambda lib: lib.zeros(2, 3).gather(1, lib.tensor([[-1]])),
    "gather_size": lambda lib: lib.zeros(2, 3).gather(1, lib.zeros(3, 1, dtype=lib.long)),
    "gather_dtype": lambda lib: lib.zeros(2, 3).gather(1, lib.zeros(2, 1)),
    "scatter_out_of_range": lambda lib: lib.zeros(2, 3).scatter(1, lib.tensor([[3]]), lib.ones(1, 1)),
    "scatter_dtype": lambda lib: lib.zeros(2, 3).scatter(1, lib.tensor([[0]]), lib.ones(1, 1, dtype=lib.float64)),
    "scatter_size": lambda lib: lib.zeros(2, 3).scatter(1, lib.zeros(3, 1, dtype=lib.long), lib.ones(3, 1)),
    "scatter_dims": lambda lib: lib.zeros(2, 3).scatter(1, lib.zeros(2, dtype=lib.long), lib.ones(2)),
    "scatter_reduce": lambda lib: lib.zeros(2, 3).scatter(1, lib.tensor([[0]]), 1.0, reduce="max"),
    "scatter_reduce_backward": lambda lib: lib.zeros(2, 3, requires_grad=True).scatter(
        1, lib.tensor([[0]]), 1.0, reduce="add").sum().backward(),
    "scatter_add_out_of_range": lambda lib: lib.zeros(3).scatter_add(0, lib.tensor([3]), lib.ones(1)),
    "index_select_out_of_range": lambda lib: lib.zeros(2, 3).index_select(1, lib.tensor([0, 7])),
    "index_select_negative": lambda lib: lib.zeros(2, 3).index_select(1, lib.tensor([-1])),
    "index_select_2d": lambda lib: lib.zeros(2, 3).index_select(1, lib.tensor([[0]])),
    "index_select_dtype": lambda lib: lib.zeros(2, 3).index_select(1, lib.tensor([0.0])),
    "take_out_of_range": lambda lib: lib.zeros(2, 3).take(lib.tensor([0, 6])),
    "take_negative_out_of_range": lambda lib: lib.zeros(2, 3).take(lib.tensor([-7])),
    "take_dtype": lambda lib: lib.zeros(2, 3).take(lib.tensor([0.0])),
    "masked_fill_mask_dtype": lambda lib: lib.zeros(3).masked_fill(lib.zeros(3, dtype=lib.uint8), 1.0),
    "masked_fill_value_dims": lambda lib: lib.zeros(3).masked_fill(lib.ones(3, dtype=lib.bool), lib.ones(1)),
    "masked_fill_broadcast": lambda lib: lib.zeros(3).masked_fill(lib.ones(2, dtype=lib.bool), 1.0),
    "masked_select_dtype": lambda lib: lib.zeros(3).masked_select(lib.ones(3)),
    # -- the newer shape ops ----------------------------------------------------------------------------------
    "tensor_split_zero": lambda lib: lib.zeros(3, 4).tensor_split(0, 1),
    "tensor_split_0d": lambda lib: lib.tensor(1.0).tensor_split(1),
    "tensor_split_float_tensor": lambda lib: lib.zeros(3, 4).tensor_split(lib.tensor([1.0]), 1),
    "tensor_split_2d_tensor": lambda lib: lib.zeros(3, 4).tensor_split(lib.tensor([[1]]), 1),
    "tensor_split_dim": lambda lib: lib.zeros(3, 4).tensor_split(2, 2),
    "select_range": lambda lib: lib.select(lib.zeros(3, 4), 1, 5),
    "select_negative_range": lambda lib: lib.zeros(3, 4).select(1, -5),
    "select_0d": lambda lib: lib.select(lib.tensor(1.0), 0, 0),
    "select_dim": lambda lib: lib.zeros(3, 4).select(2, 0),
    "repeat_interleave_sizes": lambda lib: lib.zeros(3, 4).repeat_interleave(lib.tensor([1, 0]), dim=0),
    "repeat_interleave_negative": lambda lib: lib.zeros(3, 4).repeat_interleave(lib.tensor([1, -1, 0]), dim=0),
    "repeat_interleave_negative_int": lambda lib: lib.zeros(3, 4).repeat_interleave(-1, dim=0),
    "repeat_interleave_2d": lambda lib: lib.zeros(3, 4).repeat_interleave(lib.tensor([[1]]), dim=0),
    "repeat_interleave_float": lambda lib: lib.zeros(3, 4).repeat_interleave(lib.tensor([1.0, 2.0, 3.0]), dim=0),
    "repeat_interleave_counts_float": lambda lib: lib.repeat_interleave(lib.tensor([1.0, 2.0])),
    "unfold_size": lambda lib: lib.zeros(3, 4).unfold(1, 5, 1),
    "unfold_step": lambda lib: lib.zeros(3, 4).unfold(1, 2, 0),
    "unfold_negative_size": lambda lib: lib.zeros(3, 4).unfold(1, -1, 1),
    "unfold_dim": lambda lib: lib.zeros(3, 4).unfold(2, 1, 1),
    "meshgrid_indexing": lambda lib: lib.meshgrid(lib.zeros(3), lib.zeros(4), indexing="foo"),
    "meshgrid_dtype": lambda lib: lib.meshgrid(lib.zeros(3), lib.zeros(4, dtype=lib.long), indexing="ij"),
    "meshgrid_empty": lambda lib: lib.meshgrid(indexing="ij"),
    "cartesian_prod_2d": lambda lib: lib.cartesian_prod(lib.zeros(2, 2)),
    "block_diag_3d": lambda lib: lib.block_diag(lib.zeros(2), lib.zeros(2, 2, 2)),
    "rot90_dims_count": lambda lib: lib.rot90(lib.zeros(3, 4), 1, [0, 1, 2]),
    "rot90_1d": lambda lib: lib.rot90(lib.zeros(3)),
    "rot90_same_dims": lambda lib: lib.zeros(3, 4).rot90(1, [1, 1]),
    "rot90_same_dims_negative": lambda lib: lib.zeros(3, 4).rot90(1, [1, -1]),
    "rot90_dim_range": lambda lib: lib.zeros(3, 4).rot90(1, [0, 2]),
    "fliplr_1d": lambda lib: lib.fliplr(lib.zeros(3)),
    "flipud_0d": lambda lib: lib.flipud(lib.tensor(1.0)),
    # -- the newer indexing ops ---------------------------------------------------------------------------------
    "take_along_dim_dims": lambda lib: lib.take_along_dim(lib.zeros(3, 4), lib.tensor([0, 1]), 1),
    "take_along_dim_dtype": lambda lib: lib.take_along_dim(lib.zeros(3, 4), lib.tensor([[0]], dtype=lib.int32), 1),
    "take_along_dim_float": lambda lib: lib.zeros(3, 4).take_along_dim(lib.tensor([0.0])),
    "take_along_dim_broadcast": lambda lib: lib.take_along_dim(lib.zeros(3, 4), lib.tensor([[0], [0]]), 1),
    "take_along_dim_0d_dim": lambda lib: lib.take_along_dim(lib.tensor(1.0), lib.tensor(0), 0),
    "tril_indices_negative_row": lambda lib: lib.tril_indices(-1, 4),
    "triu_indices_negative_col": lambda lib: lib.triu_indices(3, -4),
    "tril_indices_float": lambda lib: lib.tril_indices(3, 4, dtype=lib.float32),
    "index_add_dtype": lambda lib: lib.zeros(3, 4).index_add(1, lib.tensor([0, 0]), lib.ones(3, 2, dtype=lib.float64)),
    "index_add_index_dtype": lambda lib: lib.zeros(3, 4).index_add(1, lib.tensor([0.0]), lib.ones(3, 1)),
    "index_add_index_2d": lambda lib: lib.zeros(3, 4).index_add(1, lib.tensor([[0, 0]]), lib.ones(3, 2)),
    "index_add_count": lambda lib: lib.zeros(3, 4).index_add(1, lib.tensor([0, 0]), lib.ones(3, 3)),
    "index_add_source_shape": lambda lib: lib.zeros(3, 4).index_add(1, lib.tensor([0, 0]), lib.ones(2, 2)),
    "index_add_source_dims": lambda lib: lib.zeros(3, 4).index_add(1, lib.tensor([0, 0]), lib.ones(2)),
    "index_add_out_of_range": lambda lib: lib.zeros(3, 4).index_add(1, lib.tensor([0, 4]), lib.ones(3, 2)),
    "index_add_negative": lambda lib: lib.zeros(3, 4).index_add(1, lib.tensor([-1]), lib.ones(3, 1)),
    "index_add_0d": lambda lib: lib.tensor(1.0).index_add(0, lib.tensor([0, 0]), lib.ones(2)),
    "index_add_leaf": lambda lib: lib.zeros(3, requires_grad=True).index_add_(0, lib.tensor([0]), lib.ones(1)),
    "index_copy_dtype": lambda lib: lib.zeros(3, 4).index_copy(1, lib.tensor([0]), lib.ones(3, 1, dtype=lib.float64)),
    "index_copy_index_int32": lambda lib: lib.zeros(3, 4).index_copy(1, lib.tensor([0], dtype=lib.int32),
                                                                     lib.ones(3, 1)),
    "index_copy_index_2d": lambda lib: lib.zeros(3, 4).index_copy(1, lib.tensor([[0, 2]]), lib.ones(3, 2)),
    "index_copy_count": lambda lib: lib.zeros(3, 4).index_copy(1, lib.tensor([0, 2]), lib.ones(3, 3)),
    "index_copy_slice_shape": lambda lib: lib.zeros(2, 3, 4).index_copy(1, lib.tensor([0, 2]), lib.ones(2, 2, 5)),
    "index_copy_source_dims": lambda lib: lib.zeros(2, 3, 4).index_copy(1, lib.tensor([0, 2]), lib.ones(2, 2)),
    "index_copy_out_of_range": lambda lib: lib.zeros(3, 4).index_copy(1, lib.tensor([0, 4]), lib.ones(3, 2)),
    "masked_scatter_dtype": lambda lib: lib.zeros(3).masked_scatter(lib.ones(3, dtype=lib.bool),
                                                                    lib.ones(3, dtype=lib.float64)),
    "masked_scatter_mask_dtype": lambda lib: lib.zeros(3).masked_scatter(lib.ones(3, dtype=lib.uint8), lib.ones(3)),
    "masked_scatter_too_few": lambda lib: lib.zeros(3).masked_scatter(lib.ones(3, dtype=lib.bool), lib.ones(2)),
    "masked_scatter_broadcast": lambda lib: lib.zeros(3, 4).masked_scatter(lib.ones(3, dtype=lib.bool), lib.ones(12)),
    "slice_scatter_shape": lambda lib: lib.slice_scatter(lib.zeros(3, 4), lib.ones(2, 4), 0, 1, 2),
    "slice_scatter_step": lambda lib: lib.slice_scatter(lib.zeros(3, 4), lib.ones(3, 4), 1, None, None, 0),
    "select_scatter_shape": lambda lib: lib.select_scatter(lib.zeros(3, 4), lib.ones(1), 0, 1),
    "select_scatter_index": lambda lib: lib.select_scatter(lib.zeros(3, 4), lib.ones(4), 0, 5),
    "select_scatter_0d": lambda lib: lib.select_scatter(lib.tensor(1.0), lib.tensor(2.0), 0, 0),
    # -- column_stack, dstack, hsplit/vsplit/dsplit, narrow_copy, combinations --------------------------------
    "column_stack_tensor": lambda lib: lib.column_stack(lib.ones(2)),
    "column_stack_number": lambda lib: lib.column_stack([lib.ones(2), 1]),
    "column_stack_empty": lambda lib: lib.column_stack([]),
    "column_stack_rows": lambda lib: lib.column_stack([lib.ones(3), lib.ones(3, 2), lib.tensor(1.0)]),
    "dstack_empty": lambda lib: lib.dstack([]),
    "dstack_sizes": lambda lib: lib.dstack([lib.ones(2, 2), lib.ones(3, 2)]),
    "hsplit_not_divisible": lambda lib: lib.hsplit(lib.ones(2, 4), 3),
    "hsplit_vector_not_divisible": lambda lib: lib.ones(4).hsplit(3),
    "hsplit_0d": lambda lib: lib.hsplit(lib.tensor(1.0), 3),
    "hsplit_zero_sections": lambda lib: lib.hsplit(lib.ones(2, 4), 0),
    "vsplit_1d": lambda lib: lib.vsplit(lib.ones(4), 2),
    "vsplit_not_divisible": lambda lib: lib.ones(2, 4).vsplit(3),
    "dsplit_2d": lambda lib: lib.dsplit(lib.ones(2, 4), 2),
    "dsplit_not_divisible": lambda lib: lib.dsplit(lib.ones(2, 2, 4), 3),
    "narrow_copy_too_long": lambda lib: lib.narrow_copy(lib.ones(3, 4), 1, 3, 2),
    "narrow_copy_start": lambda lib: lib.ones(3, 4).narrow_copy(1, 5, 0),
    "narrow_copy_negative_length": lambda lib: lib.narrow_copy(lib.ones(3, 4), 1, 0, -1),
    "combinations_2d": lambda lib: lib.combinations(lib.ones(2, 2)),
    "combinations_negative_r": lambda lib: lib.combinations(lib.ones(3), -1),
    # -- index_fill, index_put, scatter_reduce ------------------------------------------------------------------
    "index_fill_out_of_range": lambda lib: lib.zeros(3, 4).index_fill(1, lib.tensor([0, 4]), 1.5),
    "index_fill_float_index": lambda lib: lib.zeros(3, 4).index_fill(1, lib.tensor([0.0]), 1.5),
    "index_fill_int32_index": lambda lib: lib.zeros(3, 4).index_fill(1, lib.tensor([0], dtype=lib.int32), 1.5),
    "index_fill_2d_index": lambda lib: lib.zeros(3, 4).index_fill(1, lib.tensor([[0]]), 1.5),
    "index_fill_1d_value": lambda lib: lib.zeros(3, 4).index_fill(1, lib.tensor([0]), lib.ones(2)),
    "index_fill_dim": lambda lib: lib.zeros(3, 4).index_fill(2, lib.tensor([0]), 1.0),
    "index_fill_leaf": lambda lib: lib.zeros(3, requires_grad=True).index_fill_(0, lib.tensor([0]), 1.0),
    "index_put_dtype": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0, 1]),), lib.ones(4, dtype=lib.float64)),
    "index_put_shape": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0, 1]),), lib.ones(3)),
    "index_put_out_of_range": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0, 5]),), lib.ones(4)),
    "index_put_float_index": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0.0, 1.0]),), lib.ones(4)),
    "index_put_too_many": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0]), lib.tensor([1]), lib.tensor([1])),
                                                                lib.ones(1)),
    "index_put_number": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0, 1]),), 1.0),
    "index_put_none": lambda lib: lib.zeros(3, 4).index_put((None, lib.tensor([0, 1])), lib.tensor(2.0)),
    "index_put_tensor_indices": lambda lib: lib.zeros(3, 4).index_put(lib.tensor([0, 1]), lib.ones(4)),
    # -- x[key] = value of the wrong shape: index arrays go through index_put_, slices through a copy ----------
    # (loralib's MergedLinear.zero_pad writes result[:, self.lora_ind] = ... with a boolean mask)
    "setitem_mask_shape": lambda lib: lib.zeros(24, 36).__setitem__(
        (slice(None), lib.tensor([True, False, True] * 12)), lib.ones(12, 24)),
    "setitem_long_index_shape": lambda lib: lib.zeros(5, 3).__setitem__(lib.tensor([0, 1]), lib.ones(3, 3)),
    "setitem_list_index_shape": lambda lib: lib.zeros(5, 3).__setitem__([0, 1], lib.ones(4, 3)),
    "setitem_leading_ones": lambda lib: lib.zeros(5, 3).__setitem__(lib.tensor([0, 1]), lib.ones(1, 2, 3, 3)),
    "setitem_index_shape_with_grad": lambda lib: lib.zeros(5, 3).__setitem__(
        lib.tensor([0, 1]), lib.ones(3, 3, requires_grad=True)),
    "setitem_slice_shape": lambda lib: lib.zeros(4, 3).__setitem__(slice(0, 2), lib.ones(3, 3)),
    "scatter_reduce_out_of_range": lambda lib: lib.zeros(3, 4).scatter_reduce(1, lib.tensor([[0, 1, 0, 4]]),
                                                                              lib.ones(1, 4), "sum"),
    "scatter_reduce_reduce": lambda lib: lib.zeros(3, 4).scatter_reduce(1, lib.tensor([[0, 1]]), lib.ones(1, 2), "foo"),
    "scatter_reduce_dtype": lambda lib: lib.zeros(3, 4).scatter_reduce(1, lib.tensor([[0, 1]]),
                                                                       lib.ones(1, 2, dtype=lib.float64), "sum"),
    "scatter_reduce_float_index": lambda lib: lib.zeros(3, 4).scatter_reduce(1, lib.tensor([[0.0, 1.0]]),
                                                                             lib.ones(1, 2), "sum"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_pytorch(name):
    torch = require_torch()
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(Exception) as ours:
        ERRORS[name](minitorch)
    assert type(ours.value) is type(theirs.value), f"{type(ours.value).__name__}: {ours.value}"
    assert str(ours.value) == str(theirs.value)


# -- node names: what a learner sees in grad_fn ---------------------------------------------------
NODES = {
    "reshape": lambda lib, x: x.reshape(6, 4),
    "reshape_copy": lambda lib, x: x.transpose(0, 1).reshape(-1),
    "squeeze": lambda lib, x: x[:1].squeeze(),
    "squeeze_dim": lambda lib, x: x[:1].squeeze(0),
    "squeeze_dims": lambda lib, x: x[:1].squeeze((0, 1)),
    "unsqueeze": lambda lib, x: x.unsqueeze(0),
    "permute": lambda lib, x: x.permute(2, 0, 1),
    "transpose": lambda lib, x: x.transpose(0, 1),
    "t": lambda lib, x: x[0].t(),
    "movedim": lambda lib, x: lib.movedim(x, 0, 2),
    "repeat": lambda lib, x: x.repeat(2, 1, 1),
    "tile": lambda lib, x: x.tile(2),
    "cat": lambda lib, x: lib.cat([x, x]),
    "stack": lambda lib, x: lib.stack([x, x]),
    "split": lambda lib, x: x.split(1)[0],
    "split_sizes": lambda lib, x: x.split([1, 2], 1)[1],
    "chunk": lambda lib, x: x.chunk(2, 2)[1],
    "unbind": lambda lib, x: x.unbind(1)[2],
    "flip": lambda lib, x: x.flip(0),
    "roll": lambda lib, x: x.roll(1, 0),
    "narrow": lambda lib, x: x.narrow(1, 0, 2),
    "contiguous": lambda lib, x: x.transpose(0, 1).contiguous(),
    "clone": lambda lib, x: x.clone(),
    "select": lambda lib, x: x[1],
    "slice": lambda lib, x: x[:, 1:],
    "index_unsqueeze": lambda lib, x: x[None],
    "index_ellipsis_select": lambda lib, x: x[..., 1],
    "index_advanced": lambda lib, x: x[[0, 1]],
    "index_mask": lambda lib, x: x[x > 0],
    "gather": lambda lib, x: x.gather(1, lib.tensor([[[0]]])),
    "scatter": lambda lib, x: x.scatter(1, lib.tensor([[[0]]]), x),
    "scatter_value": lambda lib, x: x.scatter(1, lib.tensor([[[0]]]), 2.0),
    "scatter_add": lambda lib, x: x.scatter_add(1, lib.tensor([[[0]]]), x),
    "index_select": lambda lib, x: x.index_select(1, lib.tensor([0, 2])),
    "masked_fill": lambda lib, x: x.masked_fill(x > 0, 1.0),
    "masked_fill_tensor": lambda lib, x: x.masked_fill(x > 0, lib.tensor(1.0)),
    "masked_select": lambda lib, x: x.masked_select(x > 0),
    "take": lambda lib, x: x.take(lib.tensor([0, 5])),
    "tensor_split": lambda lib, x: x.tensor_split(2, 1)[1],
    "select_function": lambda lib, x: lib.select(x, 2, 1),
    "repeat_interleave_tensor": lambda lib, x: x.repeat_interleave(lib.tensor([1, 2]), dim=0),
    "unfold": lambda lib, x: x.unfold(2, 2, 1),
    "rot90": lambda lib, x: x.rot90(1, (1, 2)),
    "fliplr": lambda lib, x: x.fliplr(),
    "block_diag": lambda lib, x: lib.block_diag(x[0], x[1]),
    "take_along_dim": lambda lib, x: lib.take_along_dim(x, lib.tensor([[[0]]]), 2),
    "index_add": lambda lib, x: x.index_add(1, lib.tensor([0]), x[:, :1]),
    "index_copy": lambda lib, x: x.index_copy(1, lib.tensor([0]), x[:, :1]),
    "masked_scatter": lambda lib, x: x.masked_scatter(x > 0, x),
    "slice_scatter": lambda lib, x: lib.slice_scatter(x, x[:, 1:], 1, 1),
    "select_scatter": lambda lib, x: lib.select_scatter(x, x[:, 0], 1, 2),
}


@pytest.mark.parametrize("name", list(NODES))
def test_node_name_matches_pytorch(name):
    torch = require_torch()
    ours = NODES[name](minitorch, minitorch.randn(2, 3, 4, requires_grad=True))
    theirs = NODES[name](torch, torch.randn(2, 3, 4, requires_grad=True))
    assert ours.grad_fn.name() == theirs.grad_fn.name()


# -- views share memory and the version counter ----------------------------------------------------
VIEWS = {
    "reshape": lambda x: x.reshape(4, 3),
    "flatten": lambda x: x.flatten(),
    "view": lambda x: x.view(-1),
    "squeeze": lambda x: x[None].squeeze(0),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "permute": lambda x: x.permute(1, 0),
    "transpose": lambda x: x.transpose(0, 1),
    "t": lambda x: x.t(),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "slice": lambda x: x[1:, ::2],
    "select": lambda x: x[1],
    "expand": lambda x: x[:1].expand(5, 4),
    "split_last_piece": lambda x: x.split(2)[1],
    "chunk_last_piece": lambda x: x.chunk(2, 1)[1],
    "unbind_last_piece": lambda x: x.unbind(1)[3],
    "tensor_split_last_piece": lambda x: x.tensor_split([1, 3], 1)[2],
    "select_function": lambda x: minitorch.select(x, 1, 2),
    "unfold": lambda x: x.unfold(1, 2, 2),
    "unfold_overlapping": lambda x: x.unfold(1, 3, 1),
    "diagonal": lambda x: x.diagonal(1),
    "meshgrid": lambda x: minitorch.meshgrid(x[0], x[:, 0], indexing="xy")[1],
    "atleast_3d": lambda x: minitorch.atleast_3d(x),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_views_share_memory_and_version(name):
    x = minitorch.arange(12.0).reshape(3, 4)
    view = VIEWS[name](x)
    assert np.shares_memory(view.numpy(), x.numpy())
    before = view._version
    x[...] = 7.0
    assert view._version == before + 1
    assert bool((view == 7.0).all())


def test_copies_do_not_share_memory():
    x = minitorch.arange(12.0).reshape(3, 4)
    for copy in (x.t().reshape(12), x.flip(0), x.roll(1), x.clone(), x.t().contiguous(), x[[0, 1]], x.repeat(1, 1)):
        assert not np.shares_memory(copy.numpy(), x.numpy())
    assert x.contiguous() is x


def test_clone_keeps_layout_like_pytorch():
    torch = require_torch()
    ours = minitorch.zeros(2, 3, 4).transpose(0, 2).clone()
    assert ours.stride() == torch.zeros(2, 3, 4).transpose(0, 2).clone().stride()


# -- x[index] = value --------------------------------------------------------------------------
def test_setitem_writes_in_place_and_bumps_the_version():
    array = np.zeros((3, 4), dtype=np.float32)
    x = minitorch.from_numpy(array)
    row = x[1]
    x[1, [0, 2]] = minitorch.tensor([5.0, 6.0])
    x[0] = 1
    assert x._version == 2 and row._version == 2
    np.testing.assert_array_equal(array[1], [5, 0, 6, 0])  # NumPy sees the write: the memory is shared
    np.testing.assert_array_equal(row.numpy(), [5, 0, 6, 0])
    np.testing.assert_array_equal(array[0], [1, 1, 1, 1])


def test_setitem_is_differentiable_for_target_and_value():
    torch = require_torch()
    results = []
    for lib in (minitorch, torch):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        v = lib.tensor([10.0, 20.0], requires_grad=True)
        y = x * 2
        y[:, [0, 0]] = v  # the same column written twice: v's gradient is still read from both positions
        (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy(), v.grad.numpy(), y.grad_fn.name()))
    for mine, theirs in zip(results[0][:3], results[1][:3]):
        np.testing.assert_allclose(mine, theirs)
    assert results[0][3] in ("IndexPutBackward0", results[1][3])


def test_setitem_detects_a_saved_tensor_that_was_overwritten():
    torch = require_torch()
    for lib in (minitorch, torch):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        z = y * y  # saves y
        y[0] = 0.0
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()


def test_setitem_on_a_leaf_under_no_grad_is_allowed():
    x = minitorch.zeros(3, requires_grad=True)
    with minitorch.no_grad():
        x[1] = 2.0
    assert x.is_leaf and x.requires_grad and x.tolist() == [0.0, 2.0, 0.0]


def test_setitem_casts_like_pytorch():
    torch = require_torch()
    for make in (lambda lib: lib.zeros(3, dtype=lib.long), lambda lib: lib.zeros(3, dtype=lib.bool)):
        ours, theirs = make(minitorch), make(torch)
        ours[0], theirs[0] = 1.7, 1.7
        ours[[1]], theirs[[1]] = 2.0, 2.0
        ours[2:], theirs[2:] = minitorch.tensor([3.0]), torch.tensor([3.0])
        assert ours.tolist() == theirs.tolist()


def test_setitem_value_with_leading_ones_gets_its_shape_back():
    x = minitorch.zeros(2, 3)
    v = minitorch.ones(1, 1, 3, requires_grad=True)
    x[0] = v
    x.sum().backward()
    assert v.grad.shape == (1, 1, 3)


# -- more results against PyTorch ------------------------------------------------------------------
def test_split_and_chunk_sizes_match_pytorch():
    torch = require_torch()
    for size in (0, 1, 5, 6, 7):
        for parts in (1, 2, 3, 4):
            for lib_name, lib in (("ours", minitorch), ("theirs", torch)):
                x = lib.zeros(size)
                shapes = [tuple(p.shape) for p in x.chunk(parts)], [tuple(p.shape) for p in x.split(parts)]
                if lib_name == "ours":
                    ours = shapes
                else:
                    assert ours == shapes, (size, parts)


def test_repeated_indices_accumulate():
    x = minitorch.zeros(3, requires_grad=True)
    (x[[0, 0, 2, 0]] * minitorch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [7.0, 0.0, 3.0]


def test_scatter_add_accumulates_repeats():
    out = minitorch.zeros(3).scatter_add(0, minitorch.tensor([0, 0, 1]), minitorch.ones(3))
    assert out.tolist() == [2.0, 1.0, 0.0]


def test_nonzero_0d_and_index_shapes_match_pytorch():
    torch = require_torch()
    for value in (0, 3):
        assert tuple(minitorch.tensor(value).nonzero().shape) == tuple(torch.tensor(value).nonzero().shape)
    x_ours, x_theirs = minitorch.zeros(2, 3, 4, 5), torch.zeros(2, 3, 4, 5)
    for index in ((None, [0, 1], slice(None), None, [1, 2]), ([[0, 1]],), (True,), ([],), (..., None, 0)):
        assert tuple(x_ours[index].shape) == tuple(x_theirs[index].shape), index


def test_top_level_names_exist_in_pytorch():
    torch = require_torch()
    names = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "split", "chunk", "unbind", "flatten",
             "unflatten", "squeeze", "unsqueeze", "permute", "transpose", "swapaxes", "swapdims", "t", "movedim",
             "moveaxis", "flip", "roll", "narrow", "clone", "tile", "reshape", "broadcast_to", "gather", "scatter",
             "scatter_add", "index_select", "masked_fill", "masked_select", "take", "nonzero"]
    for name in names:
        assert hasattr(minitorch, name) and hasattr(torch, name), name


def test_setitem_on_a_view_of_a_non_leaf_rewrites_the_base_history():
    # PyTorch rewrites the base's history (CopySlices): the overwritten element gets no gradient.
    torch = require_torch()

    def build(lib):
        leaf = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        base = leaf * 2
        base[0][1] = 5.0
        (base * base).sum().backward()
        return base.grad_fn.name().split("::")[-1], leaf.grad.tolist(), base.tolist()

    assert build(minitorch) == build(torch)
    base = minitorch.ones(2, 3, requires_grad=True) * 1
    with minitorch.no_grad():
        base[0][1] = 5.0  # without recording there is no graph to rewrite
    assert base[0, 1].item() == 5.0 and base.grad_fn.name() == "MulBackward0"


def test_overlapping_unfold_is_read_only_like_expand():
    # PyTorch writes an element once per window that holds it; minitorch refuses, as it does for expand
    windows = minitorch.arange(5.0).unfold(0, 3, 1)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        windows.add_(1)


def test_non_overlapping_unfold_writes_through():
    x = minitorch.zeros(2, 4)
    x.unfold(1, 2, 2)[:, :, 0] = 1.0
    assert x.tolist() == [[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]]


@pytest.mark.parametrize("arguments", [(3, 4), (3, 4, 1), (4, 3, -1), (0, 3), (3, 0), (3, 3, 10), (3, 3, -10),
                                       (1, 1), (5, 2, -3)])
def test_triangle_indices_match_pytorch(arguments):
    torch = require_torch()
    for name in ("tril_indices", "triu_indices"):
        ours, theirs = getattr(minitorch, name)(*arguments), getattr(torch, name)(*arguments)
        assert ours.dtype == minitorch.int64
        assert ours.tolist() == theirs.tolist(), name
    ours = minitorch.tril_indices(*arguments, dtype=minitorch.int32)
    assert ours.dtype == minitorch.int32
    assert ours.tolist() == torch.tril_indices(*arguments, dtype=torch.int32).tolist()


@pytest.mark.parametrize("counts", [[1, 0, 3], [], [0, 0], [2], [4, 1]])
def test_repeat_interleave_of_counts_matches_pytorch(counts):
    torch = require_torch()
    ours = minitorch.repeat_interleave(minitorch.tensor(counts, dtype=minitorch.int64))
    theirs = torch.repeat_interleave(torch.tensor(counts, dtype=torch.int64))
    assert ours.dtype == minitorch.int64 and ours.tolist() == theirs.tolist()


def test_repeat_interleave_keeps_integer_dtypes():
    torch = require_torch()
    for lib in (minitorch, torch):
        result = lib.arange(6, dtype=lib.int32).reshape(2, 3).repeat_interleave(lib.tensor([2, 1]), dim=0)
        if lib is minitorch:
            ours = result
    assert str(ours.dtype).split(".")[-1] == str(result.dtype).split(".")[-1] and ours.tolist() == result.tolist()


def test_meshgrid_without_indexing_warns_like_pytorch():
    torch = require_torch()
    for lib in (minitorch, torch):
        with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
            grids = lib.meshgrid(lib.arange(3), lib.arange(2))
        assert [tuple(g.shape) for g in grids] == [(3, 2), (3, 2)]


def test_atleast_calling_conventions_match_pytorch():
    torch = require_torch()
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for arguments in (lambda lib: (lib.tensor(1.0),), lambda lib: (lib.zeros(2), lib.zeros(2, 3)),
                          lambda lib: ([lib.zeros(2)],), lambda lib: ((lib.zeros(2), lib.tensor(1.0)),)):
            ours = getattr(minitorch, name)(*arguments(minitorch))
            theirs = getattr(torch, name)(*arguments(torch))
            assert type(ours) is type(theirs) or (isinstance(ours, minitorch.Tensor) and torch.is_tensor(theirs))
            if isinstance(ours, tuple):
                assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]
            else:
                assert tuple(ours.shape) == tuple(theirs.shape)


def test_block_diag_of_nothing_matches_pytorch():
    torch = require_torch()
    ours, theirs = minitorch.block_diag(), torch.block_diag()
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype == minitorch.float32


def test_inplace_index_ops_write_into_memory():
    torch = require_torch()
    for lib in (minitorch, torch):
        x = lib.zeros(2, 3)
        row = x[1]
        x.index_add_(1, lib.tensor([0, 0, 2]), lib.ones(2, 3), alpha=2)
        x.index_copy_(0, lib.tensor([0]), lib.full((1, 3), 7.0))
        x.masked_scatter_(x > 3, lib.tensor([8.0, 9.0, 10.0, 11.0]))
        result = (x.tolist(), row.tolist(), x._version)
        if lib is minitorch:
            ours = result
    assert ours == result


RESULTS = {
    "combinations_r_too_big": lambda lib: lib.combinations(lib.arange(4.0), 5),
    "combinations_empty": lambda lib: lib.combinations(lib.arange(0.0), 2),
    "combinations_int": lambda lib: lib.combinations(lib.arange(4), 3, with_replacement=True),
    "combinations_bool": lambda lib: lib.combinations(lib.tensor([True, False, True])),
    "ravel_int": lambda lib: lib.arange(6).reshape(2, 3).t().ravel(),
    "column_stack_int": lambda lib: lib.column_stack([lib.arange(2), lib.arange(4).reshape(2, 2)]),
    "hsplit_indices_past_end": lambda lib: lib.hsplit(lib.arange(8).reshape(2, 4), [1, 5])[2],
    "index_fill_0d_tensor_value": lambda lib: lib.zeros(2, 3).index_fill(0, lib.tensor(1), lib.tensor(2.5)),
    "index_fill_int_float_value": lambda lib: lib.arange(4).index_fill(0, lib.tensor([0, -1]), 2.7),
    "index_fill_empty_index": lambda lib: lib.ones(2, 3).index_fill(1, lib.tensor([], dtype=lib.long), 0.0),
    "index_put_accumulate_repeats": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0, 0, 2]),), lib.tensor(2.0),
                                                                          accumulate=True),
    "index_put_mask": lambda lib: lib.arange(6.0).reshape(2, 3).index_put((lib.arange(6).reshape(2, 3) > 2,),
                                                                          lib.tensor(-1.0)),
    "index_put_int": lambda lib: lib.arange(6).index_put((lib.tensor([1, 3]),), lib.tensor([10, 20]), True),
    "scatter_reduce_int_mean": lambda lib: lib.arange(12).reshape(3, 4).scatter_reduce(
        1, lib.tensor([[0, 1, 0, 2]]), -lib.tensor([[1, 2, 4, 5]]), "mean", include_self=False),
    "scatter_reduce_int_prod": lambda lib: lib.arange(1, 13).reshape(3, 4).scatter_reduce(
        0, lib.tensor([[0, 1, 0, 2]]), lib.tensor([[2, 3, 4, 5]]), "prod", include_self=False),
    "scatter_reduce_int_amax": lambda lib: lib.arange(12).reshape(3, 4).scatter_reduce(
        1, lib.tensor([[0, 1, 0, 2]]), lib.tensor([[1, 2, 4, 5]]), "amax", include_self=False),
    "scatter_reduce_bool_sum": lambda lib: lib.tensor([True, False, False]).scatter_reduce(
        0, lib.tensor([0, 0, 1]), lib.tensor([True, True, False]), "sum"),
    "scatter_reduce_bool_amin": lambda lib: lib.tensor([True, False, True]).scatter_reduce(
        0, lib.tensor([0, 2]), lib.tensor([False, True]), "amin", include_self=False),
    "scatter_reduce_float_mean_empty_positions": lambda lib: lib.ones(4).scatter_reduce(
        0, lib.tensor([1, 1]), lib.tensor([2.0, 5.0]), "mean", include_self=False),
    "scatter_reduce_0d": lambda lib: lib.tensor(2.0).scatter_reduce(0, lib.tensor(0), lib.tensor(3.0), "prod"),
    # sequences PyTorch accepts as indices
    "index_range": lambda lib: lib.arange(12.0).reshape(3, 4)[range(2)],
    "index_range_step": lambda lib: lib.arange(12.0)[range(0, 10, 3)],
    "index_two_ranges": lambda lib: lib.arange(12.0).reshape(3, 4)[range(2), range(2)],
    "index_numpy_ints": lambda lib: lib.arange(12.0)[np.array([1, 3])],
    "index_numpy_mask": lambda lib: lib.arange(4.0)[np.array([True, False, True, False])],
    "index_bool_list": lambda lib: lib.arange(4.0)[[True, False, True, False]],
    "index_0d_tensor": lambda lib: lib.arange(4.0)[lib.tensor(2)],
    "setitem_range": lambda lib: _set(lib.zeros(4), range(2), 5.0),
    # a 0-d index into a 1-d tensor counts as a 1-d index of one element
    "gather_0d_index": lambda lib: lib.arange(4.0).gather(0, lib.tensor(2)),
    "scatter__0d_index": lambda lib: lib.zeros(4).scatter_(0, lib.tensor(2), lib.tensor(5.0)),
    "scatter_0d_index_value": lambda lib: lib.zeros(4).scatter(0, lib.tensor(2), 7.0),
    # views of strided layouts PyTorch allows
    "view_transposed_compatible": lambda lib: lib.arange(24.0).reshape(2, 3, 4).transpose(0, 1).view(3, 2, 2, 2),
    "view_sliced": lambda lib: lib.arange(24.0).reshape(4, 6)[:, :4].view(4, 2, 2),
    "view_expanded": lambda lib: lib.ones(3, 1).expand(3, 4).view(3, 2, 2),
    "view_stepped": lambda lib: lib.arange(12.0)[::2].view(2, 3),
}


def _set(tensor, index, value):
    tensor[index] = value
    return tensor


def test_list_of_sequences_is_read_as_a_tuple_with_pytorchs_warning():
    torch = require_torch()
    outcomes = []
    for lib in (minitorch, torch):
        with pytest.warns(UserWarning, match="Using a non-tuple sequence for multidimensional indexing") as caught:
            result = lib.arange(12.0).reshape(3, 4)[[[0, 1], [1, 2]]]
        outcomes.append((result.tolist(), str(caught[0].message).split(" (Triggered internally")[0]))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", list(RESULTS))
def test_results_match_pytorch(name):
    torch = require_torch()
    theirs, ours = RESULTS[name](torch), RESULTS[name](minitorch)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_index_put_in_place_writes_into_memory_and_is_top_level():
    torch = require_torch()
    for lib in (minitorch, torch):
        x = lib.zeros(2, 3)
        row = x[1]
        returned = lib.index_put_(x, (lib.tensor([1, 1]), lib.tensor([0, 2])), lib.tensor([4.0, 5.0]))
        x.scatter_reduce_(1, lib.tensor([[2, 2]]), lib.tensor([[3.0, 7.0]]), "amax")
        result = (returned is x, x.tolist(), row.tolist(), x._version)
        if lib is minitorch:
            ours = result
    assert ours == result


def test_later_top_level_names_exist_in_pytorch():
    torch = require_torch()
    names = ["ravel", "column_stack", "dstack", "hsplit", "vsplit", "dsplit", "narrow_copy", "combinations",
             "index_fill", "index_put", "index_put_", "scatter_reduce"]
    for name in names:
        assert hasattr(minitorch, name) and hasattr(torch, name), name
    methods = ["ravel", "hsplit", "vsplit", "dsplit", "narrow_copy", "index_fill", "index_fill_", "index_put",
               "index_put_", "scatter_reduce", "scatter_reduce_"]
    for name in methods:
        assert hasattr(minitorch.Tensor, name) and hasattr(torch.Tensor, name), name


def test_new_top_level_names_exist_in_pytorch():
    torch = require_torch()
    names = ["tensor_split", "select", "repeat_interleave", "meshgrid", "cartesian_prod", "block_diag", "atleast_1d",
             "atleast_2d", "atleast_3d", "rot90", "fliplr", "flipud", "take_along_dim", "tril_indices", "triu_indices",
             "index_add", "index_copy", "masked_scatter", "slice_scatter", "select_scatter"]
    for name in names:
        assert hasattr(minitorch, name) and hasattr(torch, name), name
    methods = ["tensor_split", "select", "repeat_interleave", "unfold", "rot90", "fliplr", "flipud", "take_along_dim",
               "index_add", "index_add_", "index_copy", "index_copy_", "masked_scatter", "masked_scatter_",
               "slice_scatter", "select_scatter"]
    for name in methods:
        assert hasattr(minitorch.Tensor, name) and hasattr(torch.Tensor, name), name
