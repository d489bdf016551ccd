"""Reductions beyond the op table: PyTorch's errors, result dtypes, named results, warnings.

Forward/backward parity and gradchecks live in ``table_reduction.py``; this file checks
what the table cannot express: exceptions (type and exact message, against PyTorch's),
the dtypes of results, ``return_types`` and the degrees-of-freedom warning.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import minitorch
from tests.ops.op_table import Arg
from tests.support import require_torch


def _inputs(lib):
    return {
        "x": lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]),
        "i": lib.tensor([[1, 2, 3], [4, 5, 6]]),
        "b": lib.tensor([True, False]),
        "empty": lib.zeros(0, 3),
    }


ERRORS = {
    "mean_int": lambda lib, t: t["i"].mean(),
    "mean_int_dim": lambda lib, t: t["i"].mean(1),
    "mean_bool": lambda lib, t: t["b"].mean(),
    "mean_dtype_int": lambda lib, t: t["x"].mean(dtype=lib.int64),
    "sum_dim_out_of_range": lambda lib, t: t["x"].sum(2),
    "sum_dim_repeated": lambda lib, t: t["x"].sum((0, -2)),
    "max_empty": lambda lib, t: t["empty"].max(),
    "max_empty_dim": lambda lib, t: t["empty"].max(0),
    "min_empty_dim": lambda lib, t: t["empty"].min(0),
    "amax_empty": lambda lib, t: t["empty"].amax(),
    "amax_empty_dim": lambda lib, t: t["empty"].amax(0),
    "amin_empty_dim": lambda lib, t: t["empty"].amin(0),
    "argmax_empty": lambda lib, t: t["empty"].argmax(),
    "argmin_empty_dim": lambda lib, t: t["empty"].argmin(0),
    "argmax_bool": lambda lib, t: t["b"].argmax(),
    "max_dim_out_of_range": lambda lib, t: t["x"].max(-3),
    "var_int": lambda lib, t: t["i"].var(),
    "std_int": lambda lib, t: t["i"].std(1),
    "norm_int": lambda lib, t: t["i"].norm(),
    "norm_bad_order": lambda lib, t: t["x"].norm("abc"),
    "norm_fro_three_dims": lambda lib, t: lib.ones(2, 2, 2).norm("fro", (0, 1, 2)),
    "norm_narrowing_dtype": lambda lib, t: t["x"].norm(dtype=lib.float16),
    "norm_inf_empty": lambda lib, t: t["empty"].norm(float("inf")),
    "cumsum_dim_out_of_range": lambda lib, t: t["x"].cumsum(2),
    # cumulative ops
    "cumprod_dim_out_of_range": lambda lib, t: t["x"].cumprod(2),
    "cummax_dim_out_of_range": lambda lib, t: lib.cummax(t["x"], -3),
    "logcumsumexp_int": lambda lib, t: t["i"].logcumsumexp(0),
    "logcumsumexp_bool": lambda lib, t: t["b"].logcumsumexp(0),
    # NaN-skipping reductions and counting
    "nanmean_int": lambda lib, t: t["i"].nanmean(),
    "nanmean_int_with_dtype": lambda lib, t: lib.nanmean(t["i"], dtype=lib.float32),
    "count_nonzero_dim_repeated": lambda lib, t: lib.count_nonzero(t["x"], (0, -2)),
    "count_nonzero_dim_out_of_range": lambda lib, t: t["x"].count_nonzero(2),
    # diff and trapezoid
    "diff_0d": lambda lib, t: lib.tensor(1.0).diff(),
    "diff_negative_order": lambda lib, t: t["x"].diff(-1),
    "diff_prepend_0d": lambda lib, t: t["x"].diff(prepend=lib.tensor(1.0)),
    "diff_prepend_other_shape": lambda lib, t: lib.diff(t["x"], dim=0, prepend=lib.ones(1, 2)),
    "diff_append_fewer_dims": lambda lib, t: lib.diff(t["x"], append=lib.ones(3)),
    "trapezoid_0d": lambda lib, t: lib.trapezoid(lib.tensor(1.0)),
    "trapezoid_x_length": lambda lib, t: lib.trapezoid(t["x"], lib.ones(2)),
    "trapezoid_dim_out_of_range": lambda lib, t: lib.trapezoid(t["x"], dim=2),
    # order statistics
    "median_bool": lambda lib, t: t["b"].median(),
    "median_dim_bool": lambda lib, t: t["b"].median(0),
    "nanmedian_bool": lambda lib, t: t["b"].nanmedian(),
    "median_empty_dim": lambda lib, t: t["empty"].median(0),
    "nanmedian_empty_dim": lambda lib, t: t["empty"].nanmedian(0),
    "median_dim_out_of_range": lambda lib, t: t["x"].median(2),
    "mode_empty": lambda lib, t: lib.zeros(0).mode(),
    "mode_empty_dim": lambda lib, t: t["empty"].mode(0),
    "kthvalue_bool": lambda lib, t: t["b"].kthvalue(1),
    "kthvalue_k_too_large": lambda lib, t: t["x"].kthvalue(4, 1),
    "kthvalue_k_zero": lambda lib, t: t["x"].kthvalue(0),
    "kthvalue_0d_k_two": lambda lib, t: lib.tensor(2.0).kthvalue(2),
    "kthvalue_empty_dim": lambda lib, t: t["empty"].kthvalue(1, 0),
    # quantiles
    "quantile_int": lambda lib, t: t["i"].quantile(0.5),
    "quantile_q_out_of_range": lambda lib, t: t["x"].quantile(1.5),
    "quantile_q_negative": lambda lib, t: lib.quantile(t["x"], -0.1, dim=1),
    "quantile_q_tensor_out_of_range": lambda lib, t: t["x"].quantile(lib.tensor([0.5, 1.5])),
    "quantile_q_2d": lambda lib, t: t["x"].quantile(lib.tensor([[0.5]])),
    "quantile_q_other_dtype": lambda lib, t: t["x"].quantile(lib.tensor([0.5], dtype=lib.float64)),
    "quantile_bad_interpolation": lambda lib, t: t["x"].quantile(0.5, interpolation="cubic"),
    "quantile_empty": lambda lib, t: t["empty"].quantile(0.5, dim=1),
    "nanquantile_q_out_of_range": lambda lib, t: t["x"].nanquantile(2.0),
    "nanquantile_int": lambda lib, t: lib.nanquantile(t["i"], 0.5, dim=0),
    # searching and counting
    "searchsorted_bad_side": lambda lib, t: lib.searchsorted(lib.arange(3.0), t["x"], side="middle"),
    "searchsorted_opposite_side_and_right": lambda lib, t: lib.searchsorted(lib.arange(3.0), t["x"], side="left",
                                                                            right=True),
    "searchsorted_0d_boundaries": lambda lib, t: lib.searchsorted(lib.tensor(1.0), t["x"]),
    "searchsorted_leading_dims_differ": lambda lib, t: lib.searchsorted(lib.zeros(3, 4), t["x"]),
    "searchsorted_sorter_size": lambda lib, t: lib.searchsorted(lib.arange(3.0), t["x"], sorter=lib.tensor([0, 1])),
    "searchsorted_bool": lambda lib, t: lib.searchsorted(t["b"], t["b"]),
    "bucketize_2d_boundaries": lambda lib, t: lib.bucketize(t["x"], lib.zeros(2, 2)),
    "bincount_float": lambda lib, t: t["x"].reshape(-1).bincount(),
    "bincount_bool": lambda lib, t: t["b"].bincount(),
    "bincount_negative": lambda lib, t: lib.bincount(lib.tensor([1, -1])),
    "bincount_2d": lambda lib, t: lib.bincount(t["i"]),
    "bincount_weights_length": lambda lib, t: lib.bincount(lib.tensor([1, 2]), lib.ones(3)),
    "bincount_negative_minlength": lambda lib, t: lib.bincount(lib.tensor([1, 2]), minlength=-1),
    "histc_int": lambda lib, t: t["i"].histc(),
    "histc_no_bins": lambda lib, t: t["x"].histc(bins=0),
    "histc_max_below_min": lambda lib, t: t["x"].histc(4, min=3, max=1),
    "histc_infinite_range": lambda lib, t: lib.histc(lib.tensor([1.0, float("inf")]), bins=3),
    "unique_dim_of_0d": lambda lib, t: lib.unique(lib.tensor(2.0), dim=0),
    "unique_dim_out_of_range": lambda lib, t: lib.unique(t["x"], dim=2),
    "unique_other_dim_empty": lambda lib, t: lib.unique(t["empty"], dim=1),
    "unique_consecutive_dim_of_0d": lambda lib, t: lib.unique_consecutive(lib.tensor(2.0), dim=0),
    # pointwise ops (ops/pointwise.py) with argument rules of their own
    "logaddexp_int": lambda lib, t: lib.logaddexp(t["i"], t["i"]),
    "logaddexp_number": lambda lib, t: lib.logaddexp(t["x"], 1.0),
    "logaddexp2_bool": lambda lib, t: t["b"].logaddexp2(t["b"]),
    "heaviside_dtypes_differ": lambda lib, t: lib.heaviside(t["x"], lib.tensor([0.5], dtype=lib.float64)),
    "heaviside_number_values": lambda lib, t: lib.heaviside(t["x"], 0.5),
    "heaviside_shapes": lambda lib, t: t["x"].heaviside(lib.ones(2)),
    "heaviside_backward": lambda lib, t: lib.heaviside(t["x"].requires_grad_(), lib.tensor([0.5])).sum().backward(),
    # special functions, float bits, integers, membership
    "polygamma_negative_order": lambda lib, t: lib.polygamma(-1, t["x"]),
    "float_power_in_place_float32": lambda lib, t: t["x"].float_power_(2),
    "float_power_in_place_int": lambda lib, t: t["i"].float_power_(2.0),
    "fmax_shapes": lambda lib, t: lib.fmax(t["x"], lib.ones(2)),
    "nextafter_int": lambda lib, t: lib.nextafter(t["i"], t["i"]),
    "frexp_int": lambda lib, t: t["i"].frexp(),
    "ldexp_shapes": lambda lib, t: lib.ldexp(t["x"], lib.tensor([1, 2])),
    "gcd_float": lambda lib, t: lib.gcd(t["x"], t["x"]),
    "gcd_bool": lambda lib, t: t["b"].gcd(t["b"]),
    "lcm_int_float": lambda lib, t: lib.lcm(t["i"], t["x"]),
    "isin_bool": lambda lib, t: lib.isin(t["i"], t["b"]),
    "isin_bool_elements": lambda lib, t: lib.isin(t["b"], t["i"]),
    "positive_bool": lambda lib, t: t["b"].positive(),
    "positive_number": lambda lib, t: lib.positive(1.0),
    # aminmax, renorm, trapezoids, histogram, unravel_index
    "aminmax_empty": lambda lib, t: t["empty"].aminmax(),
    "aminmax_empty_dim": lambda lib, t: lib.aminmax(t["empty"], dim=0),
    "aminmax_dim_out_of_range": lambda lib, t: t["x"].aminmax(dim=2),
    "renorm_zero_p": lambda lib, t: t["x"].renorm(0, 0, 1.0),
    "renorm_negative_maxnorm": lambda lib, t: lib.renorm(t["x"], 2, 0, -0.5),
    "renorm_1d": lambda lib, t: lib.ones(3).renorm(2, 0, 1.0),
    "renorm_dim_out_of_range": lambda lib, t: t["x"].renorm(2, -3, 1.0),
    "renorm_int": lambda lib, t: t["i"].renorm(2, 0, 1.0),
    "cumulative_trapezoid_0d": lambda lib, t: lib.cumulative_trapezoid(lib.tensor(1.0)),
    "cumulative_trapezoid_bool": lambda lib, t: lib.cumulative_trapezoid(t["b"]),
    "cumulative_trapezoid_bool_x": lambda lib, t: lib.cumulative_trapezoid(t["x"], lib.tensor([True, False, True])),
    "cumulative_trapezoid_x_length": lambda lib, t: lib.cumulative_trapezoid(t["x"], lib.ones(2)),
    "cumulative_trapezoid_dim_out_of_range": lambda lib, t: lib.cumulative_trapezoid(t["x"], dim=-3),
    "trapz_x_length": lambda lib, t: lib.trapz(t["x"], lib.ones(4)),
    "histogram_int": lambda lib, t: t["i"].histogram(3),
    "histogram_no_bins": lambda lib, t: t["x"].histogram(0),
    "histogram_reversed_range": lambda lib, t: lib.histogram(t["x"], 3, range=(2.0, 1.0)),
    "histogram_infinite_range": lambda lib, t: lib.histogram(t["x"], 3, range=(0.0, float("inf"))),
    "histogram_nan_data": lambda lib, t: lib.histogram(lib.tensor([1.0, float("nan")]), 3),
    "histogram_edges_2d": lambda lib, t: lib.histogram(t["x"], lib.ones(2, 2)),
    "histogram_one_edge": lambda lib, t: lib.histogram(t["x"], lib.tensor([1.0])),
    "histogram_edges_dtype": lambda lib, t: lib.histogram(t["x"], lib.tensor([0.0, 1.0], dtype=lib.float64)),
    "histogram_weight_size": lambda lib, t: lib.histogram(t["x"], 3, weight=lib.ones(5)),
    "histogram_weight_dtype": lambda lib, t: lib.histogram(t["x"], 3, weight=lib.ones(2, 3, dtype=lib.float64)),
    "unravel_index_negative_size": lambda lib, t: lib.unravel_index(t["i"], (2, -3)),
    "unravel_index_float_size": lambda lib, t: lib.unravel_index(t["i"], (2.0, 3)),
    "unravel_index_zero_size": lambda lib, t: lib.unravel_index(t["i"], (0, 3)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(name):
    torch = require_torch()
    fn = ERRORS[name]
    with pytest.raises(Exception) as theirs:
        fn(torch, _inputs(torch))
    with pytest.raises(type(theirs.value)) as ours:
        fn(minitorch, _inputs(minitorch))
    assert str(ours.value) == str(theirs.value)


OVERLOAD_ERRORS = {  # PyTorch's argument parser lists its overloads; the type is what matters
    "prod_tuple": lambda lib, t: t["x"].prod((0, 1)),
    "max_tuple": lambda lib, t: t["x"].max((0, 1)),
    "argmax_tuple": lambda lib, t: t["x"].argmax((0, 1)),
    "var_unbiased_and_correction": lambda lib, t: lib.var(t["x"], 1, unbiased=False, correction=1),
    "xlogy_two_numbers": lambda lib, t: lib.xlogy(2.0, 3.0),
    "trapezoid_x_and_dx": lambda lib, t: lib.trapezoid(t["x"], lib.ones(3), dx=2.0),
    "count_nonzero_keepdim": lambda lib, t: lib.count_nonzero(t["x"], 0, keepdim=True),
    "float_power_two_numbers": lambda lib, t: lib.float_power(2.0, 3),
    "polygamma_float_order": lambda lib, t: lib.polygamma(1.5, t["x"]),
    "fmax_number": lambda lib, t: lib.fmax(t["x"], 1.0),
    "nextafter_number": lambda lib, t: t["x"].nextafter(0.0),
    "ldexp_number": lambda lib, t: lib.ldexp(t["x"], 2),
    "gcd_number": lambda lib, t: lib.gcd(t["i"], 2),
    "isin_two_numbers": lambda lib, t: lib.isin(2.0, 3.0),
    "isin_list": lambda lib, t: lib.isin(t["i"], [1, 2]),
    "aminmax_tuple_dim": lambda lib, t: t["x"].aminmax(dim=(0, 1)),
    "aminmax_positional_dim": lambda lib, t: lib.aminmax(t["x"], 1),
    "trapz_number_spacing": lambda lib, t: lib.trapz(t["x"], 2.0),
    "cumulative_trapezoid_x_and_dx": lambda lib, t: lib.cumulative_trapezoid(t["x"], lib.ones(3), dx=2),
    "unravel_index_float": lambda lib, t: lib.unravel_index(t["x"], (2, 3)),
    "unravel_index_bool": lambda lib, t: lib.unravel_index(t["b"], (2,)),
}


@pytest.mark.parametrize("name", list(OVERLOAD_ERRORS))
def test_invalid_argument_combinations_are_type_errors(name):
    torch = require_torch()
    fn = OVERLOAD_ERRORS[name]
    with pytest.raises(TypeError):
        fn(torch, _inputs(torch))
    with pytest.raises(TypeError):
        fn(minitorch, _inputs(minitorch))


RESULTS = {
    "sum_int": lambda lib, t: t["i"].sum(),
    "sum_bool": lambda lib, t: t["b"].sum(),
    "sum_uint8": lambda lib, t: t["i"].to(lib.uint8).sum(0),
    "prod_int32": lambda lib, t: t["i"].int().prod(),
    "prod_bool": lambda lib, t: t["b"].prod(),
    "prod_0d_dim": lambda lib, t: lib.tensor(3.0).prod(0),
    "mean_int_with_dtype": lambda lib, t: t["i"].mean(dtype=lib.float64),
    "mean_empty_dim": lambda lib, t: t["empty"].mean(0),
    "max_int": lambda lib, t: t["i"].max(),
    "max_bool_dim": lambda lib, t: t["b"].max(0),
    "max_empty_other_dim": lambda lib, t: t["empty"].max(1),
    "amax_dim_none": lambda lib, t: t["x"].amax(None),
    "amax_0d": lambda lib, t: lib.tensor(2.0).amax(0),
    "argmax_0d": lambda lib, t: lib.tensor(2.0).argmax(0, keepdim=True),
    "argmax_keepdim_all": lambda lib, t: t["x"].argmax(keepdim=True),
    "argmax_first_of_ties": lambda lib, t: lib.tensor([1.0, 3.0, 3.0]).argmax(),
    "cumsum_int32": lambda lib, t: t["i"].int().cumsum(1),
    "cumsum_bool": lambda lib, t: t["b"].cumsum(0),
    "cumsum_to_int": lambda lib, t: t["x"].cumsum(1, dtype=lib.int64),
    "logsumexp_int": lambda lib, t: t["i"].logsumexp(1),
    "logsumexp_bool": lambda lib, t: t["b"].logsumexp(0),
    "logsumexp_minus_inf": lambda lib, t: lib.full((3,), -float("inf")).logsumexp(0),
    "logsumexp_plus_inf": lambda lib, t: lib.tensor([1.0, float("inf")]).logsumexp(0),
    "logsumexp_empty": lambda lib, t: t["empty"].logsumexp(0),
    "all_uint8": lambda lib, t: t["i"].to(lib.uint8).all(),
    "all_float_nan": lambda lib, t: lib.tensor([float("nan"), 1.0]).all(),
    "any_int8": lambda lib, t: t["i"].to(lib.int8).any(1, keepdim=True),
    "norm_empty": lambda lib, t: t["empty"].norm(),
    "norm_none": lambda lib, t: t["x"].norm(None),
    "norm_fro_float64": lambda lib, t: t["x"].norm("fro", dtype=lib.float64),
    "var_dim_list": lambda lib, t: t["x"].var([0, 1]),
    "var_correction_float": lambda lib, t: t["x"].var(1, correction=0.5),
    "var_mean_unbiased_positional": lambda lib, t: lib.var_mean(t["x"], False),
    "std_mean_keepdim": lambda lib, t: lib.std_mean(t["x"], 1, keepdim=True),
    "max_with_tensor_is_maximum": lambda lib, t: lib.max(t["x"], t["x"].flip(0)),
    "min_with_tensor_is_minimum": lambda lib, t: t["x"].min(lib.zeros(3)),
    # cumulative ops: integer accumulation, 0-d and empty inputs
    "cumprod_int32": lambda lib, t: t["i"].int().cumprod(1),
    "cumprod_bool": lambda lib, t: t["b"].cumprod(0),
    "cumprod_to_float": lambda lib, t: t["i"].cumprod(0, dtype=lib.float32),
    "cumprod_empty": lambda lib, t: t["empty"].cumprod(1),
    "cummax_bool": lambda lib, t: lib.tensor([False, True, False, True]).cummax(0),
    "cummin_0d": lambda lib, t: lib.tensor(2.0).cummin(0),
    "cummax_empty": lambda lib, t: t["empty"].cummax(1),
    "logcumsumexp_empty": lambda lib, t: t["empty"].logcumsumexp(0),
    # NaN-skipping reductions and counting
    "nansum_int32": lambda lib, t: t["i"].int().nansum(0),
    "nansum_bool": lambda lib, t: t["b"].nansum(),
    "nansum_all_nan": lambda lib, t: lib.tensor([float("nan")] * 2).nansum(),
    "nanmean_all_nan": lambda lib, t: lib.tensor([float("nan")] * 2).nanmean(),
    "nanmean_empty": lambda lib, t: t["empty"].nanmean(0),
    "count_nonzero_nan": lambda lib, t: lib.tensor([float("nan"), 0.0, -0.0]).count_nonzero(),
    "count_nonzero_bool": lambda lib, t: t["b"].count_nonzero(0),
    "count_nonzero_empty": lambda lib, t: t["empty"].count_nonzero(0),
    "count_nonzero_list": lambda lib, t: lib.count_nonzero(t["x"], [0, 1]),
    # diff and trapezoid
    "diff_past_the_length": lambda lib, t: t["x"].diff(5),
    "diff_bool": lambda lib, t: lib.tensor([True, False, False, True]).diff(),
    "diff_uint8": lambda lib, t: lib.tensor([3, 1, 2], dtype=lib.uint8).diff(),
    "diff_prepend_double": lambda lib, t: t["x"].diff(prepend=lib.ones(2, 1, dtype=lib.float64)),
    "trapezoid_empty": lambda lib, t: lib.trapezoid(t["empty"], dim=0),
    "trapezoid_one_sample": lambda lib, t: lib.trapezoid(lib.ones(3, 1)),
    "trapezoid_int": lambda lib, t: lib.trapezoid(t["i"]),
    "trapezoid_int_dx": lambda lib, t: lib.trapezoid(t["i"], dx=2),
    "trapezoid_int_x": lambda lib, t: lib.trapezoid(t["i"], lib.tensor([0, 1, 3])),
    "trapezoid_float64_x": lambda lib, t: lib.trapezoid(t["x"], lib.tensor([0.0, 1.0, 3.0], dtype=lib.float64)),
    # order statistics: empty, NaN, integers
    "median_empty": lambda lib, t: lib.zeros(0).median(),
    "median_int": lambda lib, t: t["i"].median(),
    "median_int_dim": lambda lib, t: t["i"].median(1),
    "median_nan_first_index": lambda lib, t: lib.tensor([[3.0, float("nan"), 2.0, float("nan")]]).median(1),
    "median_empty_other_dim": lambda lib, t: t["empty"].median(1),
    "median_0d_keepdim": lambda lib, t: lib.tensor(2.0).median(0, keepdim=True),
    "nanmedian_all_nan": lambda lib, t: lib.tensor([float("nan")] * 3).nanmedian(),
    "nanmedian_empty": lambda lib, t: lib.zeros(0).nanmedian(),
    "nanmedian_int": lambda lib, t: t["i"].nanmedian(0),
    "mode_bool": lambda lib, t: t["b"].mode(),
    "mode_0d": lambda lib, t: lib.tensor(3.0).mode(),
    "mode_empty_other_dim": lambda lib, t: t["empty"].mode(0 + 1),
    "mode_ties_smallest_last_index": lambda lib, t: lib.tensor([2.0, 1.0, 2.0, 1.0, 3.0, 1.0, 2.0]).mode(),
    "kthvalue_empty_other_dim": lambda lib, t: t["empty"].kthvalue(1, 1),
    "kthvalue_nan_largest": lambda lib, t: lib.tensor([3.0, float("nan"), 1.0]).kthvalue(3),
    "kthvalue_int": lambda lib, t: t["i"].kthvalue(2, 1, True),
    # quantiles
    "quantile_0d": lambda lib, t: lib.tensor(2.0).quantile(0.5),
    "quantile_0d_dim_keepdim": lambda lib, t: lib.tensor(2.0).quantile(0.5, dim=0, keepdim=True),
    "quantile_keepdim_all": lambda lib, t: t["x"].quantile(lib.tensor([0.5, 0.1]), keepdim=True),
    "quantile_empty_q": lambda lib, t: t["x"].quantile(lib.tensor([])),
    "quantile_0d_q": lambda lib, t: t["x"].quantile(lib.tensor(0.3), dim=1),
    "quantile_q_ends": lambda lib, t: lib.quantile(t["x"], lib.tensor([0.0, 1.0]), dim=0),
    "quantile_float64": lambda lib, t: t["x"].double().quantile(0.123, dim=1, interpolation="nearest"),
    "nanquantile_all_nan": lambda lib, t: lib.tensor([float("nan")] * 3).nanquantile(lib.tensor([0.1, 0.9])),
    # searching and counting
    "searchsorted_number": lambda lib, t: lib.searchsorted(lib.tensor([1.0, 3.0, 5.0]), 4.0),
    "searchsorted_int_number": lambda lib, t: lib.searchsorted(lib.tensor([1.0, 3.0, 5.0]), 3, right=True),
    "searchsorted_0d_value": lambda lib, t: lib.searchsorted(lib.tensor([1.0, 3.0]), lib.tensor(2.0)),
    "searchsorted_empty_boundaries": lambda lib, t: lib.searchsorted(lib.zeros(0), t["x"]),
    "searchsorted_empty_values": lambda lib, t: lib.searchsorted(lib.tensor([1.0, 3.0]), lib.zeros(0)),
    "searchsorted_int_in_float": lambda lib, t: lib.searchsorted(lib.tensor([1.0, 3.0, 5.0]), lib.tensor([3, 6])),
    "searchsorted_float_in_int": lambda lib, t: lib.searchsorted(lib.tensor([1, 3, 5]), lib.tensor([3.0, 2.5])),
    "bucketize_number": lambda lib, t: lib.bucketize(3.0, lib.tensor([1.0, 3.0, 5.0]), right=True),
    "bincount_empty": lambda lib, t: lib.bincount(lib.tensor([], dtype=lib.int64)),
    "bincount_empty_minlength_weights": lambda lib, t: lib.bincount(lib.tensor([], dtype=lib.int64), lib.zeros(0),
                                                                    minlength=3),
    "bincount_int32": lambda lib, t: lib.bincount(lib.tensor([1, 1, 4], dtype=lib.int32)),
    "bincount_uint8": lambda lib, t: lib.bincount(lib.tensor([1, 1, 4], dtype=lib.uint8), minlength=2),
    "bincount_bool_weights": lambda lib, t: lib.bincount(lib.tensor([1, 1, 0]), lib.tensor([True, False, True])),
    "bincount_float64_weights": lambda lib, t: lib.bincount(lib.tensor([1, 1, 0]), lib.ones(3, dtype=lib.float64)),
    "histc_empty": lambda lib, t: lib.zeros(0).histc(bins=3),
    "histc_constant": lambda lib, t: lib.ones(4).histc(bins=4),
    "histc_same_min_max_given": lambda lib, t: t["x"].histc(bins=5, min=2, max=2),
    "histc_float64": lambda lib, t: t["x"].double().histc(bins=3, min=-1, max=1),
    "histc_nan_inside_range": lambda lib, t: lib.tensor([1.0, float("nan")]).histc(bins=3, min=0, max=2),
    "histc_float32_edges": lambda lib, t: lib.tensor([0.0, 0.1, 0.2, 0.3, 0.7, 0.9, 1.0]).histc(10, 0, 1),
    # unique values
    "unique_0d": lambda lib, t: lib.tensor(3.0).unique(return_inverse=True, return_counts=True),
    "unique_empty": lambda lib, t: lib.zeros(0).unique(return_inverse=True, return_counts=True),
    "unique_dim_empty": lambda lib, t: t["empty"].unique(dim=0, return_inverse=True, return_counts=True),
    "unique_unsorted_is_sorted": lambda lib, t: lib.tensor([5, 3, 9, 1, 3, 5, 7]).unique(sorted=False),
    "unique_bool": lambda lib, t: lib.tensor([True, False, True]).unique(return_counts=True),
    "unique_signed_zeros": lambda lib, t: lib.tensor([2.0, -0.0, 0.0, 1.5]).unique(return_counts=True),
    "unique_dim_3d": lambda lib, t: lib.tensor([[[1, 2]], [[0, 5]], [[1, 2]]]).unique(dim=-1, return_inverse=True),
    "unique_consecutive_0d": lambda lib, t: lib.tensor(2.0).unique_consecutive(return_inverse=True, return_counts=True),
    "unique_consecutive_empty": lambda lib, t: lib.zeros(0).unique_consecutive(return_counts=True),
    "unique_consecutive_dim1": lambda lib, t: lib.tensor([[1, 1, 2], [0, 0, 0]]).unique_consecutive(dim=1),
    # special functions: result dtypes and values at the edges
    "lgamma_bool": lambda lib, t: t["b"].lgamma(),
    "digamma_zeros": lambda lib, t: lib.tensor([0.0, -0.0, -3.0]).double().digamma(),
    "polygamma_0_is_digamma": lambda lib, t: lib.polygamma(0, t["x"].double()),
    "i0_float64": lambda lib, t: t["x"].double().i0(),
    "erfc_float64_tail": lambda lib, t: lib.erfc(lib.tensor([5.0, 20.0, 26.5], dtype=lib.float64)),
    "sinc_bool": lambda lib, t: t["b"].sinc(),
    "float_power_bool": lambda lib, t: lib.float_power(t["b"], t["b"]),
    "float_power_number_base": lambda lib, t: lib.float_power(2, t["i"]),
    "float_power_in_place": lambda lib, t: t["x"].double().float_power_(lib.tensor([2, 3, 0])),
    "ldexp_float64_large_exponent": lambda lib, t: lib.ldexp(lib.ones(2, dtype=lib.float64), lib.tensor([200, -1060])),
    "ldexp_float32_0d_float64": lambda lib, t: lib.ldexp(t["x"], lib.tensor(1.0, dtype=lib.float64)),
    "ldexp_float64_0d": lambda lib, t: lib.ldexp(lib.tensor(1.5, dtype=lib.float64), t["i"]),
    "ldexp_bool": lambda lib, t: lib.ldexp(t["b"], t["b"]),
    "frexp_float64": lambda lib, t: lib.frexp(t["x"].double() * 1e200),
    "frexp_empty": lambda lib, t: t["empty"].frexp(),
    "fmax_int_uint8": lambda lib, t: lib.fmax(t["i"], lib.tensor([2, 9, 0], dtype=lib.uint8)),
    "fmin_bool": lambda lib, t: lib.fmin(t["b"], lib.tensor([True, True])),
    "nextafter_promotes": lambda lib, t: lib.nextafter(t["x"], lib.ones(3, dtype=lib.float64)),
    "nextafter_0d_other": lambda lib, t: lib.nextafter(t["x"], lib.tensor(5.0, dtype=lib.float64)),
    "gcd_signs_and_zeros": lambda lib, t: lib.gcd(lib.tensor([-4, 0, 6, 0]), lib.tensor([6, 0, -9, -5])),
    "lcm_signs_and_zeros": lambda lib, t: lib.lcm(lib.tensor([-4, 0, 6, 0]), lib.tensor([6, 0, -9, -5])),
    "lcm_int8_wraps": lambda lib, t: lib.lcm(lib.tensor([100, -128], dtype=lib.int8),
                                             lib.tensor([3, 0], dtype=lib.int8)),
    "gcd_uint8_int64": lambda lib, t: lib.gcd(lib.tensor([12, 200], dtype=lib.uint8), lib.tensor([18, -50])),
    "isin_promotes": lambda lib, t: lib.isin(lib.tensor([1, 2], dtype=lib.uint8), lib.tensor([-255, 2])),
    "isin_0d": lambda lib, t: lib.isin(lib.tensor(3), t["i"]),
    "isin_empty": lambda lib, t: lib.isin(t["empty"], t["x"]),
    "isin_empty_test": lambda lib, t: lib.isin(t["x"], t["empty"], invert=True),
    "isposinf_empty": lambda lib, t: t["empty"].isposinf(),
    "positive_int": lambda lib, t: lib.positive(t["i"]),
    # aminmax, argwhere, renorm, trapezoids, histogram, unravel_index
    "aminmax_bool": lambda lib, t: t["b"].aminmax(),
    "aminmax_empty_other_dim": lambda lib, t: t["empty"].aminmax(dim=1),
    "aminmax_0d_dim": lambda lib, t: lib.tensor(2.0).aminmax(dim=0, keepdim=True),
    "aminmax_nan": lambda lib, t: lib.tensor([1.0, float("nan"), -1.0]).aminmax(),
    "argwhere_0d": lambda lib, t: lib.tensor(2.0).argwhere(),
    "argwhere_empty": lambda lib, t: lib.argwhere(t["empty"]),
    "renorm_empty": lambda lib, t: lib.renorm(t["empty"], 2, 0, 1.0),
    "renorm_float64": lambda lib, t: t["x"].double().renorm(1.5, 1, 1.0),
    "cumulative_trapezoid_int_dx": lambda lib, t: lib.cumulative_trapezoid(t["i"], dx=2),
    "cumulative_trapezoid_one_sample": lambda lib, t: lib.cumulative_trapezoid(lib.ones(3, 1)),
    "cumulative_trapezoid_empty": lambda lib, t: lib.cumulative_trapezoid(lib.zeros(0)),
    "cumulative_trapezoid_float64_x": lambda lib, t: lib.cumulative_trapezoid(t["x"], lib.tensor([0.0, 1.0, 3.0],
                                                                                                 dtype=lib.float64)),
    "trapz_int": lambda lib, t: lib.trapz(t["i"], dim=0),
    "histogram_default_bins": lambda lib, t: t["x"].histogram(),
    "histogram_empty": lambda lib, t: lib.histogram(lib.zeros(0), 3),
    "histogram_empty_density": lambda lib, t: lib.histogram(lib.zeros(0), 3, density=True),
    "histogram_constant": lambda lib, t: lib.ones(4).histogram(3),
    "histogram_same_min_max_given": lambda lib, t: t["x"].histogram(5, range=(2, 2)),
    "histogram_decreasing_edges": lambda lib, t: lib.histogram(t["x"], lib.tensor([1.0, 0.0])),
    "histogram_repeated_edge": lambda lib, t: lib.histogram(lib.tensor([0.3, 1.0, 0.0]),
                                                            lib.tensor([0.0, 0.3, 0.3, 1.0])),
    "histogram_float64_weights_density": lambda lib, t: lib.histogram(t["x"].double(), 4, weight=t["x"].double().abs(),
                                                                      density=True),
    "histogram_float32_edges": lambda lib, t: lib.histogram(lib.tensor([0.1, 0.2, 0.3, 0.7]), 10, range=(0.0, 1.0)),
    "unravel_index_0d": lambda lib, t: lib.unravel_index(lib.tensor(4), (2, 3)),
    "unravel_index_int32": lambda lib, t: lib.unravel_index(t["i"].int(), lib.Size([2, 3])),
    "unravel_index_empty_shape": lambda lib, t: lib.unravel_index(lib.tensor([0, 1]), ()),
}


@pytest.mark.parametrize("name", list(RESULTS))
def test_results_match_pytorch(name):
    torch = require_torch()
    fn = RESULTS[name]
    theirs = fn(torch, _inputs(torch))
    ours = fn(minitorch, _inputs(minitorch))
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    ours = ours if isinstance(ours, tuple) else (ours,)
    assert len(ours) == len(theirs)
    for mine, reference in zip(ours, theirs):
        assert str(mine.dtype).split(".")[-1] == str(reference.dtype).split(".")[-1]
        assert tuple(mine.shape) == tuple(reference.shape)
        np.testing.assert_allclose(mine.numpy(), reference.numpy(), rtol=1e-6, equal_nan=True)
        assert isinstance(mine._data, np.ndarray), "results are arrays, never NumPy scalars"


def test_max_with_dim_returns_named_values_and_indices():
    x = minitorch.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], requires_grad=True)
    result = x.max(dim=1)
    assert isinstance(result, minitorch.return_types.max)
    values, indices = result
    assert result.values is values and result.indices is indices
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert indices.dtype == minitorch.int64 and not indices.requires_grad
    assert values.grad_fn.name() == "MaxBackward0"
    assert repr(result).startswith("minitorch.return_types.max(\nvalues=tensor([5., 7.], grad_fn=<MaxBackward0>)")
    assert isinstance(x.min(0), minitorch.return_types.min)
    assert x.min(0).indices.tolist() == [0, 1, 0]


def test_node_names_match_pytorch():
    torch = require_torch()
    for fn in (
        lambda lib, x: x.sum(), lambda lib, x: x.sum(1), lambda lib, x: x.mean(), lambda lib, x: x.mean((0, 1)),
        lambda lib, x: x.prod(), lambda lib, x: x.prod(0),
        lambda lib, x: x.max(), lambda lib, x: x.max(1).values, lambda lib, x: x.amax(1), lambda lib, x: x.amin(),
        lambda lib, x: x.var(), lambda lib, x: x.std(1), lambda lib, x: x.norm(), lambda lib, x: x.logsumexp(1),
        lambda lib, x: x.cumsum(1),
    ):
        ours = fn(minitorch, minitorch.ones(2, 3, requires_grad=True)).grad_fn.name()
        theirs = fn(torch, torch.ones(2, 3, requires_grad=True)).grad_fn.name()
        assert ours == theirs


@pytest.mark.parametrize("name,correction", [("var", 2), ("std", 3)])
def test_no_degrees_of_freedom_warns_and_gives_nan_or_inf(name, correction):
    torch = require_torch()
    with pytest.warns(UserWarning, match=r"degrees of freedom is <= 0") as record:
        ours = getattr(minitorch.tensor([1.0, 2.0]), name)(correction=correction)
    with pytest.warns(UserWarning) as torch_record:
        theirs = getattr(torch.tensor([1.0, 2.0]), name)(correction=correction)
    assert str(record[0].message) == str(torch_record[0].message).split(" (Triggered internally")[0]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_prod_gradient_with_zeros_and_second_derivative():
    """``prod`` stays exact through zeros: the gradient and the Hessian match PyTorch's."""
    torch = require_torch()
    values = [[0.0, 2.0, -3.0], [0.0, 0.0, 1.5]]

    def hessian_rows(lib, dim):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = x.prod() if dim is None else x.prod(dim).sum()
        (grad,) = lib.autograd.grad(y, x, create_graph=True)
        rows = [lib.autograd.grad(grad.reshape(-1)[k], x, retain_graph=True)[0].detach().numpy() for k in range(6)]
        return grad.detach().numpy(), np.stack(rows)

    for dim in (None, 0, 1):
        ours, theirs = hessian_rows(minitorch, dim), hessian_rows(torch, dim)
        np.testing.assert_allclose(ours[0], theirs[0])
        np.testing.assert_allclose(ours[1], theirs[1])


def test_norm_gradient_is_zero_at_zero():
    x = minitorch.zeros(3, dtype=minitorch.float64, requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_logsumexp_is_stable_for_large_values():
    x = minitorch.tensor([1e4, 1e4 + 1.0], dtype=minitorch.float64, requires_grad=True)
    y = x.logsumexp(0)
    y.backward()
    assert np.isfinite(y.item()) and abs(y.item() - (1e4 + 1.0 + np.log1p(np.exp(-1.0)))) < 1e-9
    np.testing.assert_allclose(x.grad.numpy(), [1 / (1 + np.e), np.e / (1 + np.e)], rtol=1e-6)


def test_top_level_names():
    for name in (
        "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "var_mean", "std_mean",
        "norm", "logsumexp", "cumsum", "all", "any",
    ):
        assert callable(getattr(minitorch, name)), name


@st.composite
def _shape_and_dims(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))
    ndim = len(shape)
    chosen = draw(st.lists(st.integers(0, max(ndim - 1, 0)), unique=True, max_size=ndim)) if ndim else []
    dims = tuple(d - ndim if draw(st.booleans()) else d for d in chosen)  # some negative
    return shape, (dims if len(dims) != 1 or draw(st.booleans()) else dims[0])


REDUCTIONS = {
    "sum": lambda lib, x, dims, keepdim: x.sum(dims, keepdim),
    "mean": lambda lib, x, dims, keepdim: x.mean(dims, keepdim),
    "amax": lambda lib, x, dims, keepdim: x.amax(dims, keepdim),
    "amin": lambda lib, x, dims, keepdim: lib.amin(x, dims, keepdim),
    "var": lambda lib, x, dims, keepdim: x.var(dims, keepdim=keepdim, correction=0),
    "std": lambda lib, x, dims, keepdim: x.std(dims, keepdim=keepdim, correction=0),
    "norm": lambda lib, x, dims, keepdim: x.norm(2, dims, keepdim),
    "logsumexp": lambda lib, x, dims, keepdim: x.logsumexp(dims, keepdim),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
@settings(max_examples=25, deadline=None)
@given(shape_and_dims=_shape_and_dims(), keepdim=st.booleans(), seed=st.integers(0, 2**16))
def test_reduction_dims_hypothesis(name, shape_and_dims, keepdim, seed):
    """Random shapes and dims (int, tuple, negative, empty tuple = all), keepdim both ways; gradients too."""
    torch = require_torch()
    shape, dims = shape_and_dims
    if name in ("var", "std", "logsumexp") and dims == ():
        dims = None  # PyTorch's var/std read () as "all", logsumexp needs dims; None says "all" for every op
        if name == "logsumexp":
            dims = tuple(range(len(shape)))
    values = Arg(shape, distinct=True).make(np.random.default_rng(seed))  # no ties: amax's gradient is unique

    def run(lib):
        x = lib.tensor(values, requires_grad=True)
        y = REDUCTIONS[name](lib, x, dims, keepdim)
        grad_output = lib.tensor(np.random.default_rng(seed + 1).standard_normal(tuple(y.shape)))
        (grad,) = lib.autograd.grad(y, x, grad_output)
        return y.detach().numpy(), grad.numpy()

    for ours, theirs in zip(run(minitorch), run(torch)):
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("descending", [False, True])
def test_nan_sorts_as_the_largest_value_like_pytorch(descending):
    torch = require_torch()
    nan, inf = float("nan"), float("inf")
    rows = [[1.0, nan, 3.0, inf, nan, -1.0, 3.0], [nan, 2.0, 2.0, -inf, 0.0, 5.0, nan]]
    ours = minitorch.tensor(rows).sort(dim=1, descending=descending, stable=True)
    theirs = torch.tensor(rows).sort(dim=1, descending=descending, stable=True)
    assert ours.indices.tolist() == theirs.indices.tolist()
    np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())  # NaN equals NaN here
    for largest in (False, True):
        assert (
            minitorch.tensor(rows).topk(3, largest=largest).indices.tolist()
            == torch.tensor(rows).topk(3, largest=largest).indices.tolist()
        )


# -- cumulative ops, order statistics, quantiles, counting (and the pointwise ops added with them) ------
NEW_TOP_LEVEL_NAMES = (
    "softmax", "log_softmax", "cumprod", "logcumsumexp", "cummax", "cummin", "nansum", "nanmean", "count_nonzero",
    "diff", "trapezoid", "bincount", "histc", "median", "nanmedian", "mode", "kthvalue", "quantile", "nanquantile",
    "msort", "searchsorted", "bucketize", "unique", "unique_consecutive", "nan_to_num", "nan_to_num_", "logaddexp",
    "logaddexp2", "xlogy", "logit", "sgn", "signbit", "heaviside", "deg2rad", "rad2deg", "erfinv",
    "erfc", "lgamma", "digamma", "polygamma", "sinc", "i0", "float_power", "fmax", "fmin", "gcd", "lcm", "isin",
    "isneginf", "isposinf", "isreal", "positive", "nextafter", "ldexp", "frexp", "aminmax", "argwhere",
    "cumulative_trapezoid", "trapz", "histogram", "renorm", "unravel_index",
)


def test_new_names_exist_where_pytorch_has_them():
    """Every new function is at the top level, and a Tensor method exactly where ``torch.Tensor`` has one."""
    torch = require_torch()
    for name in NEW_TOP_LEVEL_NAMES:
        assert callable(getattr(minitorch, name)), name
        assert hasattr(minitorch.Tensor, name) == hasattr(torch.Tensor, name), name


def test_new_node_names_match_pytorch():
    torch = require_torch()
    for fn in (
        lambda lib, x: x.cumprod(1), lambda lib, x: x.logcumsumexp(1), lambda lib, x: x.cummax(1).values,
        lambda lib, x: x.cummin(0).values, lambda lib, x: x.nansum(), lambda lib, x: x.median(),
        lambda lib, x: x.median(1).values, lambda lib, x: x.nanmedian(), lambda lib, x: x.nanmedian(1).values,
        lambda lib, x: x.mode(1).values, lambda lib, x: x.kthvalue(1).values, lambda lib, x: x.msort(),
        lambda lib, x: x.nan_to_num(), lambda lib, x: x.logaddexp(x), lambda lib, x: x.logaddexp2(x),
        lambda lib, x: x.xlogy(x), lambda lib, x: x.logit(), lambda lib, x: x.sgn(), lambda lib, x: x.deg2rad(),
        lambda lib, x: x.rad2deg(), lambda lib, x: x.erfinv(),
        lambda lib, x: x.erfc(), lambda lib, x: x.lgamma(), lambda lib, x: x.digamma(), lambda lib, x: x.polygamma(2),
        lambda lib, x: x.i0(), lambda lib, x: x.sinc(), lambda lib, x: x.fmax(x), lambda lib, x: x.fmin(x),
        lambda lib, x: x.nextafter(x), lambda lib, x: x.frexp().mantissa, lambda lib, x: x.aminmax().min,
        lambda lib, x: x.aminmax(dim=1).max,
    ):
        ours = fn(minitorch, minitorch.full((2, 3), 0.5, requires_grad=True)).grad_fn.name()
        theirs = fn(torch, torch.full((2, 3), 0.5, requires_grad=True)).grad_fn.name()
        assert ours == theirs


@pytest.mark.parametrize("name", ["cummax", "cummin", "median", "nanmedian", "mode", "kthvalue"])
def test_named_results(name):
    x = minitorch.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, 4.0]], requires_grad=True)
    result = getattr(x, name)(1) if name != "kthvalue" else x.kthvalue(2, 1)
    assert isinstance(result, getattr(minitorch.return_types, name))
    values, indices = result
    assert result.values is values and result.indices is indices
    assert indices.dtype == minitorch.int64 and not indices.requires_grad and values.requires_grad
    assert repr(result).startswith(f"minitorch.return_types.{name}(\nvalues=tensor(")


TIED_ROWS = [[1.0, 2.0, 2.0, 2.0, 3.0], [2.0, 2.0, 1.0, 1.0, 5.0], [0.0, 0.0, 0.0, 0.0, 0.0], [5.0, 2.0, 7.0, 2.0, 2.0]]


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.median(1), lambda lib, x: x.nanmedian(1), lambda lib, x: x.kthvalue(2, 1),
    lambda lib, x: x.kthvalue(4, 1, True), lambda lib, x: x.median(0),
])
def test_order_statistics_at_ties(fn):
    """At ties PyTorch's index comes from its selection algorithm (documented as unspecified); the values match,
    the index holds the returned value, and the whole gradient goes to that one element."""
    torch = require_torch()
    ours = fn(minitorch, minitorch.tensor(TIED_ROWS, dtype=minitorch.float64, requires_grad=True))
    theirs = fn(torch, torch.tensor(TIED_ROWS, dtype=torch.float64))
    np.testing.assert_array_equal(ours.values.detach().numpy(), theirs.values.numpy())
    x = minitorch.tensor(TIED_ROWS, dtype=minitorch.float64, requires_grad=True)
    values, indices = fn(minitorch, x)
    dim = 0 if values.shape[0] == 5 else 1
    picked = x.detach().gather(dim, indices if indices.ndim == 2 else indices.unsqueeze(dim))
    np.testing.assert_array_equal(picked.reshape(values.shape).numpy(), values.detach().numpy())
    values.sum().backward()
    assert x.grad.sum().item() == values.numel()
    assert np.all(x.grad.sum(dim).numpy() == 1.0)


def test_cumprod_second_derivative_through_zeros_matches_pytorch():
    """Zeros first, in the middle, last and twice in a row: the gradient and the Hessian match PyTorch's."""
    torch = require_torch()
    values = [[0.0, 1.5, -2.0, 0.5], [1.5, 0.0, -2.0, 0.5], [1.5, -2.0, 0.5, 0.0], [1.5, 0.0, 0.0, 0.5]]
    grad_output = np.random.default_rng(0).standard_normal((4, 4))

    def hessian_rows(lib, dim):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        (grad,) = lib.autograd.grad(x.cumprod(dim), x, lib.tensor(grad_output), create_graph=True)
        rows = [lib.autograd.grad(grad.reshape(-1)[k], x, retain_graph=True)[0].detach().numpy() for k in range(16)]
        return grad.detach().numpy(), np.stack(rows)

    for dim in (0, 1):
        ours, theirs = hessian_rows(minitorch, dim), hessian_rows(torch, dim)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-12)


def test_cumprod_first_derivative_through_zeros_without_recording():
    """A plain backward takes the O(n) path; it still matches PyTorch exactly."""
    torch = require_torch()
    values = [[0.0, 1.5, 0.0, 0.5, 2.0], [1.5, -1.0, 2.0, 0.0, 3.0]]
    grads = []
    for lib in (minitorch, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        x.cumprod(1).backward(lib.tensor(np.arange(10.0).reshape(2, 5)))
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_logcumsumexp_gradient_with_large_values():
    torch = require_torch()
    values = [-1000.0, 0.0, 1000.0, 999.0, 3.0]
    grads = []
    for lib in (minitorch, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        x.logcumsumexp(0).backward(lib.tensor([1.0, -2.0, 0.5, 0.0, 3.0], dtype=lib.float64))
        grads.append(x.grad.numpy())
    assert np.all(np.isfinite(grads[0]))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_nan_to_num_in_place():
    x = minitorch.tensor([1.0, float("nan"), float("inf")])
    version = x._version
    assert x.nan_to_num_(posinf=5.0) is x
    assert x.tolist() == [1.0, 0.0, 5.0] and x._version == version + 1
    y = minitorch.tensor([float("-inf")])
    assert minitorch.nan_to_num_(y, neginf=-1.0) is y and y.tolist() == [-1.0]


def test_unique_returns_plain_tuples():
    torch = require_torch()
    ours = minitorch.tensor([2, 1, 2]).unique(return_inverse=True)
    theirs = torch.tensor([2, 1, 2]).unique(return_inverse=True)
    assert type(ours) is type(theirs) is tuple
    assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]


@pytest.mark.parametrize("name", ["aminmax", "frexp", "histogram"])
def test_named_results_of_new_ops(name):
    torch = require_torch()
    make = {
        "aminmax": lambda lib: lib.tensor([[3.0, 1.0], [0.5, 4.0]]).aminmax(dim=1),
        "frexp": lambda lib: lib.tensor([3.0, -0.25]).frexp(),
        "histogram": lambda lib: lib.tensor([3.0, 1.0, 0.5, 4.0]).histogram(2),
    }[name]
    ours, theirs = make(minitorch), make(torch)
    assert isinstance(ours, getattr(minitorch.return_types, name))
    assert ours._fields == type(theirs).__match_args__
    for field in ours._fields:
        assert getattr(ours, field).tolist() == getattr(theirs, field).tolist()
    assert repr(ours).startswith(f"minitorch.return_types.{name}(\n{ours._fields[0]}=tensor(")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram_matches_pytorch_on_random_data(dtype):
    """Counts match exactly; float32 edges too (PyTorch's linspace, rounded once), float64 edges to the last bit."""
    torch = require_torch()
    for seed in range(40):
        rng = np.random.default_rng(seed)
        data = (rng.standard_normal(int(rng.integers(1, 300))) * rng.uniform(0.01, 100)).astype(dtype)
        bins = int(rng.integers(1, 300))
        weight = rng.uniform(0, 2, data.shape).astype(dtype)
        for options in ({}, {"range": (-1.3, 0.7), "density": True}):
            ours = minitorch.histogram(minitorch.from_numpy(data), bins, weight=minitorch.from_numpy(weight), **options)
            theirs = torch.histogram(torch.from_numpy(data), bins, weight=torch.from_numpy(weight), **options)
            rtol = 1e-5 if dtype == "float32" else 1e-12  # weights are summed in another order
            np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=rtol)
            plain = minitorch.histogram(minitorch.from_numpy(data), bins, **options)
            plain_theirs = torch.histogram(torch.from_numpy(data), bins, **options)
            if "density" in options:  # counts divided by a total and by bin widths: equal up to rounding
                np.testing.assert_allclose(plain.hist.numpy(), plain_theirs.hist.numpy(), rtol=1e-6, atol=0)
            else:
                np.testing.assert_array_equal(plain.hist.numpy(), plain_theirs.hist.numpy())
            if dtype == "float32":
                np.testing.assert_array_equal(plain.bin_edges.numpy(), plain_theirs.bin_edges.numpy())
            else:
                last_bit = 4e-16 * np.abs(plain_theirs.bin_edges.numpy()).max()  # of the largest edge
                np.testing.assert_allclose(plain.bin_edges.numpy(), plain_theirs.bin_edges.numpy(), rtol=0,
                                           atol=last_bit)


def test_float_power_in_place_and_positive():
    x = minitorch.tensor([2.0, 3.0], dtype=minitorch.float64)
    version = x._version
    assert x.float_power_(2) is x and x.tolist() == [4.0, 9.0] and x._version == version + 1
    y = minitorch.tensor([1.0, -2.0], requires_grad=True)
    assert minitorch.positive(y) is y and y.positive() is y


def test_special_function_derivative_chain_matches_pytorch():
    """lgamma' = digamma, digamma' = polygamma(1), polygamma(n)' = polygamma(n + 1): three orders deep."""
    torch = require_torch()
    values = [0.3, 1.5, 4.0, -0.5, -2.7]

    def derivatives(lib, function):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = function(lib, x).sum()
        found = []
        for _ in range(3):
            (y,) = lib.autograd.grad(y, x, create_graph=True)
            found.append(y.detach().numpy())
            y = y.sum()
        return found

    for function in (lambda lib, x: x.lgamma(), lambda lib, x: x.digamma(), lambda lib, x: lib.polygamma(2, x),
                     lambda lib, x: x.i0(), lambda lib, x: x.erfc()):
        for ours, theirs in zip(derivatives(minitorch, function), derivatives(torch, function)):
            np.testing.assert_allclose(ours, theirs, rtol=1e-8)


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_puts_nan_values_last_in_every_layout(right):
    torch = require_torch()
    nan = float("nan")
    for boundaries in ([1.0, 3.0, 5.0], [[1.0, 3.0, 5.0], [0.0, 2.0, 9.0]]):
        values = [[nan, 4.0], [2.0, nan]] if isinstance(boundaries[0], list) else [nan, 4.0, -1.0]
        ours = minitorch.searchsorted(minitorch.tensor(boundaries), minitorch.tensor(values), right=right)
        theirs = torch.searchsorted(torch.tensor(boundaries), torch.tensor(values), right=right)
        assert ours.tolist() == theirs.tolist()
