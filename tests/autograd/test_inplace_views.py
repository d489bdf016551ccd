"""In-place writes through views while recording (``ops/copy_slices.py``), checked against PyTorch.

Each case runs the same code on minitorch and on torch: the values, every leaf's gradient and the
names of the nodes that the write leaves behind must agree. Finite differences (gradcheck and
gradgradcheck) check the rewritten history independently of PyTorch.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _inputs(lib):
    rng = np.random.default_rng(7)
    x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = lib.tensor(rng.standard_normal(4), requires_grad=True)
    return x, w


def _augmented_assignment(lib):
    x, w = _inputs(lib)
    h = x * 1
    h[0] += w * x[1]  # Python: tmp = h[0]; tmp += ...; h[0] = tmp
    return h, (x, w)


def _method_on_a_row(lib):
    x, w = _inputs(lib)
    h = x * 2
    h[1].mul_(w)
    h[2].relu_()
    return h, (x, w)


def _strided_transposed_view(lib):
    x, w = _inputs(lib)
    h = x * x
    h.t()[::2, 1:].mul_(x[:2, :2])
    return h, (x, w)


def _reshaped_view(lib):
    x, w = _inputs(lib)
    h = x.cos()
    h.view(2, 6)[:, 1::2].add_(w[:3], alpha=-2.0)
    return h, (x, w)


def _column_fill_and_copy(lib):
    x, w = _inputs(lib)
    h = x.sin()
    h[:, 0].zero_()
    h[:, 3].copy_(w[:3])
    return h, (x, w)


def _base_that_is_not_contiguous(lib):
    x, w = _inputs(lib)
    h = x.t() * 3  # NumPy keeps the transposed (Fortran) layout: the base itself is not row-major
    h[1].sub_(w[:3])
    return h, (x, w)


def _sibling_view_made_before_the_write(lib):
    x, w = _inputs(lib)
    h = x * 1
    left = h[:, :2]  # shares h[0, :2] with the row written below
    h[0].mul_(w)
    return left * left.sum(), (x, w)


def _view_of_a_view(lib):
    x, w = _inputs(lib)
    h = x * 1
    row = h[2]
    row[1:3].mul_(w[1:3])
    return h + row.sum(), (x, w)


def _base_without_grad_written_with_a_tensor_that_has_it(lib):
    _, w = _inputs(lib)
    h = lib.zeros(3, 4, dtype=lib.float64)
    h[1].add_(w)
    h[:, 2].mul_(w[:3])
    return h, (w,)


def _setitem_on_a_view_with_an_index_list(lib):
    x, w = _inputs(lib)
    h = x * 1
    row = h[1]
    row[[0, 2]] = w[:2] * 3
    return h, (x, w)


CASES = [
    _augmented_assignment, _method_on_a_row, _strided_transposed_view, _reshaped_view, _column_fill_and_copy,
    _base_that_is_not_contiguous, _sibling_view_made_before_the_write, _view_of_a_view,
    _base_without_grad_written_with_a_tensor_that_has_it, _setitem_on_a_view_with_an_index_list,
]  # fmt: skip


def _run(lib, case):
    result, leaves = case(lib)
    weights = lib.tensor(np.linspace(-1.0, 2.0, result.numel()).reshape(tuple(result.shape)))
    (result * weights).sum().backward()
    return result.detach().numpy().copy(), [None if leaf.grad is None else leaf.grad.numpy().copy() for leaf in leaves]


@pytest.mark.parametrize("case", CASES, ids=[case.__name__.strip("_") for case in CASES])
def test_values_and_gradients_equal_pytorch(torch, case):
    mine, theirs = _run(minitorch, case), _run(torch, case)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12)
    for ours, reference in zip(mine[1], theirs[1]):
        assert (ours is None) == (reference is None)
        if ours is not None:
            np.testing.assert_allclose(ours, reference, rtol=1e-12, atol=1e-14)


def test_the_nodes_left_behind_are_pytorchs(torch):
    def names(lib):
        x, _ = _inputs(lib)
        h = x * 2
        sibling = h[:, 1]
        row = h[0]
        row.mul_(3)
        short = lambda node: node.name().split("::")[-1]  # noqa: E731 (torch::autograd::CopySlices)
        # (PyTorch reads a stale view again when its grad_fn is looked at, minitorch when an op uses it)
        used = (sibling * 1).grad_fn.next_functions[0][0]
        return short(h.grad_fn), short(row.grad_fn), short(used), short(h.grad_fn.next_functions[0][0])

    assert names(minitorch) == names(torch) == ("CopySlices", "AsStridedBackward0", "AsStridedBackward0",
                                                "MulBackward0")  # fmt: skip


def test_gradcheck_and_gradgradcheck_through_a_write_into_a_view():
    def f(x, w):
        h = x * x
        h[1:, ::2].mul_(w)
        h.t()[0].add_(w.sum())
        return h

    x = minitorch.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    w = minitorch.tensor(np.random.default_rng(1).standard_normal((2, 2)), requires_grad=True)
    assert minitorch.autograd.gradcheck(f, (x, w))
    assert minitorch.autograd.gradgradcheck(f, (x, w))


def test_without_recording_the_write_changes_values_only():
    x, _ = _inputs(minitorch)
    h = x * 1
    with minitorch.no_grad():
        h[0].mul_(0)
    assert h.grad_fn.name() == "MulBackward0" and h[0].abs().sum().item() == 0
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((3, 4)))  # the graph was not rewritten


@pytest.mark.parametrize(
    "write, start",
    [
        (lambda x: x[0].add_(1), 0),
        (lambda x: _made_without_grad(x * 1).add_(1), 0),
        (lambda x: (x * 1).split(2, dim=1)[0].mul_(2), 0),
        (lambda x: (x * 1).unbind(0)[1].mul_(2), 0),
    ],
    ids=["view_of_a_leaf", "view_made_in_no_grad", "output_of_split", "output_of_unbind"],
)
def test_refusals_use_pytorchs_words(torch, write, start):
    def message(lib):
        x, _ = _inputs(lib)
        with pytest.raises(RuntimeError) as info:
            write(x)
        return str(info.value)

    mine, theirs = message(minitorch), message(torch)
    # PyTorch names multi-output functions by their node class ("UnbindBackward0"); both start alike
    assert mine.split(" is ")[-1] == theirs.split(" is ")[-1] and mine[:9] == theirs[:9]


def test_pieces_of_a_split_cannot_be_used_after_their_base_changed(torch):
    # Both raise when such a piece is next used.
    def use(lib):
        x, w = _inputs(lib)
        h = x * 1
        first, _ = h.split(2, dim=1)
        h[1].mul_(w)
        with pytest.raises(RuntimeError) as info:
            (first * 2).sum().backward()
        return str(info.value)

    assert use(minitorch) == use(torch).replace("SplitBackward0", "Split")


def _made_without_grad(base):
    lib = minitorch if isinstance(base, minitorch.Tensor) else __import__("torch")
    with lib.no_grad():
        return base[:]


def test_written_tensors_and_their_views_are_freed():
    x, _ = _inputs(minitorch)
    h = x * 1
    views = [h[i] for i in range(3)]
    probes = [weakref.ref(view) for view in views] + [weakref.ref(h)]
    h[0].mul_(2)
    (views[1] * 2).sum().backward()  # a stale sibling, read again on use
    del h, views
    gc.collect()
    assert all(probe() is None for probe in probes)


def test_integer_tensors_are_written_without_history():
    h = minitorch.arange(6).reshape(2, 3)
    h[1].mul_(2)
    assert h.tolist() == [[0, 1, 2], [6, 8, 10]] and h.grad_fn is None


def test_assignment_node_names_follow_the_kind_of_index(torch):
    def names(lib):
        x, _ = _inputs(lib)
        found = []
        for index in (0, (slice(None), 1), [0, 2], x > 0):
            h = x * 1
            h[index] = 5.0
            found.append(h.grad_fn.name().split("::")[-1])
        return found

    assert names(minitorch) == names(torch) == ["CopySlices", "CopySlices", "IndexPutBackward0", "IndexPutBackward0"]


def _stale_view_after_a_direct_write(lib):
    x, w = _inputs(lib)
    h = x * 1
    row = h[0]  # made before the write to h itself
    h.mul_(3)
    return row * w, (x, w)


def _view_made_before_its_base_had_a_history(lib):
    _, w = _inputs(lib)
    h = lib.zeros(3, 4, dtype=lib.float64)
    row = h[1]  # h has no history yet: row is a constant for now
    h[1] = w * 2
    return row * w, (w,)


def _backward_called_on_a_stale_view(lib):
    x, w = _inputs(lib)
    h = x * 1
    column = h[:, 2]
    h[1].mul_(w[2])
    return column, (x, w)


@pytest.mark.parametrize(
    "case", [_stale_view_after_a_direct_write, _view_made_before_its_base_had_a_history,
             _backward_called_on_a_stale_view],  # fmt: skip
    ids=lambda case: case.__name__.strip("_"),
)
def test_views_made_before_a_write_follow_the_new_history(torch, case):
    mine, theirs = _run(minitorch, case), _run(torch, case)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12)
    for ours, reference in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(ours, reference, rtol=1e-12, atol=1e-14)


def test_backward_straight_from_a_stale_view(torch):
    def run(lib):
        x, w = _inputs(lib)
        h = x * 1
        column = h[:, 2]
        h[1].mul_(w[2])
        column.backward(lib.ones(3, dtype=lib.float64))
        return x.grad.numpy(), w.grad.numpy()

    for ours, theirs in zip(run(minitorch), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
