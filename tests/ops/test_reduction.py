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
