"""Embedding, EmbeddingBag and one_hot against PyTorch (copied weights, float64), plus gradcheck."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch

RTOL, ATOL = 1e-6, 1e-12


@pytest.fixture
def torch():
    return require_torch()


def _close(ours, theirs, message=""):
    np.testing.assert_allclose(np.asarray(ours.detach().numpy()), theirs.detach().numpy(), rtol=RTOL, atol=ATOL,
                               err_msg=message)


def _pair(torch, rng, ours_class, theirs_class, *args, **kwargs):
    ours = ours_class(*args, dtype=minitorch.float64, **kwargs)
    theirs = theirs_class(*args, dtype=torch.float64, **kwargs)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(rng.standard_normal(tuple(theirs.weight.shape))))
    ours.load_state_dict({k: minitorch.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    return ours, theirs


def _backward_both(y, ty, rng, torch):
    grad = rng.standard_normal(tuple(ty.shape))
    y.backward(minitorch.from_numpy(grad))
    ty.backward(torch.from_numpy(grad))


INDICES = [[1, 3, 3, 0], [[2, 2, 4], [0, 4, 1]], 3, [[[1], [1]]]]


@pytest.mark.parametrize("indices", INDICES)
@pytest.mark.parametrize("options", [{}, {"padding_idx": 3}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
                                     {"padding_idx": 1, "scale_grad_by_freq": True}, {"max_norm": 1.0},
                                     {"max_norm": 1.5, "norm_type": 1.0}])
def test_embedding_matches_torch(torch, indices, options):
    rng = np.random.default_rng(0)
    ours, theirs = _pair(torch, rng, nn.Embedding, torch.nn.Embedding, 5, 3, **options)
    assert list(ours.state_dict()) == ["weight"]
    for _ in range(2):
        y, ty = ours(minitorch.tensor(indices)), theirs(torch.tensor(indices))
        _close(y, ty)
        _backward_both(y, ty, rng, torch)
        _close(ours.weight.grad, theirs.weight.grad, "weight grad")
        _close(ours.weight, theirs.weight, "weight after max_norm")  # renormalised rows, in place


def test_embedding_init_and_from_pretrained(torch):
    table = nn.Embedding(6, 4, padding_idx=2)
    assert table.weight[2].abs().sum().item() == 0 and table.weight.abs().sum().item() > 0
    weights = minitorch.randn(3, 2, dtype=minitorch.float64)
    frozen = nn.Embedding.from_pretrained(weights)
    assert not frozen.weight.requires_grad
    assert frozen(minitorch.tensor([1])).tolist() == [weights[1].tolist()]
    trainable = nn.Embedding.from_pretrained(weights, freeze=False, padding_idx=0)
    trainable(minitorch.tensor([0, 1, 1])).sum().backward()
    assert trainable.weight.grad.tolist() == [[0.0, 0.0], [2.0, 2.0], [0.0, 0.0]]
    bag = nn.EmbeddingBag.from_pretrained(weights, mode="sum")
    assert not bag.weight.requires_grad
    theirs = torch.nn.EmbeddingBag.from_pretrained(torch.from_numpy(weights.numpy()), mode="sum")
    assert repr(bag) == repr(theirs)


def test_embedding_int32_indices_and_graph_name(torch):
    table = nn.Embedding(4, 2)
    y = table(minitorch.tensor([3, 0], dtype=minitorch.int32))
    assert y.shape == (2, 2) and y.grad_fn.name() == "EmbeddingBackward0"


BAG_CASES = [
    ([1, 2, 4, 4, 3, 0, 2], [0, 2, 2, 5], False),  # an empty bag in the middle
    ([1, 2, 4, 4, 3, 0, 2], [0, 3, 7], True),  # the last offset closes the last bag
    ([1, 2, 4, 4, 3, 0, 2], [0, 1, 1, 7], True),
    ([[1, 2, 4], [4, 3, 3]], None, False),  # 2-D input: each row is a bag
]


@pytest.mark.parametrize("indices, offsets, include_last_offset", BAG_CASES)
@pytest.mark.parametrize("mode, options", [
    (mode, options)
    for mode in ("sum", "mean", "max")
    for options in ({}, {"padding_idx": 4}, {"scale_grad_by_freq": True}, {"max_norm": 1.0})
    if not (mode == "max" and options.get("scale_grad_by_freq"))  # refused (see test_errors_match_torch)
])
def test_embedding_bag_matches_torch(torch, indices, offsets, include_last_offset, mode, options):
    rng = np.random.default_rng(1)
    ours, theirs = _pair(torch, rng, nn.EmbeddingBag, torch.nn.EmbeddingBag, 5, 3, mode=mode,
                         include_last_offset=include_last_offset, **options)
    our_offsets = None if offsets is None else minitorch.tensor(offsets)
    their_offsets = None if offsets is None else torch.tensor(offsets)
    if options.get("scale_grad_by_freq"):
        # PyTorch 2.13's CPU embedding_bag divides by the wrong count here (pytorch/pytorch#190063, fixed
        # upstream by #190264): the oracle is the documented rule, built from torch's embedding + index_add.
        theirs = _EmbeddingBagOracle(theirs, torch)
    y, ty = ours(minitorch.tensor(indices), our_offsets), theirs(torch.tensor(indices), their_offsets)
    _close(y, ty)
    _backward_both(y, ty, rng, torch)
    _close(ours.weight.grad, theirs.weight.grad, "weight grad")


class _EmbeddingBagOracle:
    """``EmbeddingBag`` (sum or mean) written with PyTorch's ``embedding`` and ``index_add``."""

    def __init__(self, bag, torch):
        self.bag, self.torch, self.weight = bag, torch, bag.weight

    def __call__(self, indices, offsets):
        torch, bag = self.torch, self.bag
        if indices.dim() == 2:
            offsets = torch.arange(0, indices.numel(), indices.shape[1])
            indices = indices.reshape(-1)
        bags = len(offsets) - 1 if bag.include_last_offset else len(offsets)
        bag_of_entry = torch.searchsorted(offsets, torch.arange(len(indices)), right=True) - 1
        keep = bag_of_entry < bags
        if bag.padding_idx is not None:
            keep &= indices != bag.padding_idx
        rows = torch.nn.functional.embedding(indices, bag.weight, bag.padding_idx, scale_grad_by_freq=True)
        sums = torch.zeros(bags, rows.shape[1], dtype=rows.dtype).index_add(0, bag_of_entry[keep], rows[keep])
        if bag.mode == "sum":
            return sums
        counts = torch.bincount(bag_of_entry[keep], minlength=bags).clamp(min=1)
        return sums / counts.unsqueeze(1)


@pytest.mark.parametrize("indices, offsets", [([1, 2, 4, 4, 3, 0], [0, 2, 2]), ([[1, 2], [4, 4]], None)])
@pytest.mark.parametrize("padding_idx", [None, 4])
def test_embedding_bag_per_sample_weights(torch, indices, offsets, padding_idx):
    rng = np.random.default_rng(2)
    table = rng.standard_normal((5, 3))
    sample_weights = rng.standard_normal(np.shape(indices))
    w, tw = minitorch.from_numpy(table.copy()).requires_grad_(), torch.from_numpy(table.copy()).requires_grad_()
    s, ts = (minitorch.from_numpy(sample_weights.copy()).requires_grad_(),
             torch.from_numpy(sample_weights.copy()).requires_grad_())
    y = F.embedding_bag(minitorch.tensor(indices), w, None if offsets is None else minitorch.tensor(offsets),
                        mode="sum", per_sample_weights=s, padding_idx=padding_idx)
    ty = torch.nn.functional.embedding_bag(torch.tensor(indices), tw, None if offsets is None else
                                           torch.tensor(offsets), mode="sum", per_sample_weights=ts,
                                           padding_idx=padding_idx)
    _close(y, ty)
    _backward_both(y, ty, rng, torch)
    _close(w.grad, tw.grad)
    _close(s.grad, ts.grad)


def test_sparse_gradcheck():
    # (padding_idx and scale_grad_by_freq change the gradient on purpose, so finite differences
    # cannot check them; the parity tests above do.)
    rng = np.random.default_rng(3)
    weight = minitorch.from_numpy(rng.standard_normal((5, 2))).requires_grad_()
    indices = minitorch.tensor([[0, 3, 3], [4, 1, 3]])
    for function in (
        lambda w: F.embedding(indices, w),
        lambda w: F.embedding_bag(indices, w, mode="mean"),
        lambda w: F.embedding_bag(indices, w, mode="max"),
    ):
        assert minitorch.autograd.gradcheck(function, (weight,))
        assert minitorch.autograd.gradgradcheck(function, (weight,))
    sample_weights = minitorch.from_numpy(rng.standard_normal((2, 3))).requires_grad_()
    assert minitorch.autograd.gradcheck(
        lambda w, s: F.embedding_bag(indices, w, mode="sum", per_sample_weights=s), (weight, sample_weights)
    )


@pytest.mark.parametrize("values, num_classes", [([0, 2, 1], -1), ([[1], [3]], 5), (4, -1), ([], 3)])
def test_one_hot_matches_torch(torch, values, num_classes):
    ours = F.one_hot(minitorch.tensor(values, dtype=minitorch.int64), num_classes)
    theirs = torch.nn.functional.one_hot(torch.tensor(values, dtype=torch.int64), num_classes)
    assert ours.dtype == minitorch.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def _raises_like(ours_call, theirs_call):
    with pytest.raises(Exception) as theirs:
        theirs_call()
    with pytest.raises(type(theirs.value)) as ours:
        ours_call()
    # (PyTorch appends a C++ dump of the offending tensor to some messages, "\n[ torch.LongTensor{} ]": not compared.)
    assert str(ours.value).replace("minitorch", "torch") == str(theirs.value).split("\n[ torch.")[0]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.Embedding(5, 2, padding_idx=5),
    lambda lib: lib.nn.Embedding(5, 2, padding_idx=-6),
    lambda lib: lib.nn.EmbeddingBag(5, 2, padding_idx=7),
    lambda lib: lib.nn.Embedding(5, 2, _weight=lib.ones(4, 2)),
    lambda lib: lib.nn.Embedding.from_pretrained(lib.ones(4)),
    lambda lib: lib.nn.Embedding(5, 2)(lib.tensor([5])),
    lambda lib: lib.nn.Embedding(5, 2)(lib.tensor([-1])),
    lambda lib: lib.nn.Embedding(5, 2)(lib.tensor([1.0])),
    lambda lib: lib.nn.EmbeddingBag(5, 2)(lib.tensor([1, 2])),
    lambda lib: lib.nn.EmbeddingBag(5, 2)(lib.tensor([1, 2]), lib.tensor([1])),
    lambda lib: lib.nn.EmbeddingBag(5, 2)(lib.tensor([1, 2]), lib.tensor([0, 3])),
    lambda lib: lib.nn.EmbeddingBag(5, 2)(lib.tensor([1, 7]), lib.tensor([0])),
    lambda lib: lib.nn.EmbeddingBag(5, 2)(lib.tensor([[1, 2]]), lib.tensor([0])),
    lambda lib: lib.nn.EmbeddingBag(5, 2)(lib.tensor([[[1, 2]]])),
    lambda lib: lib.nn.EmbeddingBag(5, 2, mode="min")(lib.tensor([1, 2]), lib.tensor([0])),
    lambda lib: lib.nn.EmbeddingBag(5, 2, mode="max", scale_grad_by_freq=True)(lib.tensor([1, 2]), lib.tensor([0])),
    lambda lib: lib.nn.EmbeddingBag(5, 2, mode="max")(lib.tensor([1, 2]), lib.tensor([0]), lib.ones(2)),
    lambda lib: lib.nn.EmbeddingBag(5, 2, mode="sum")(lib.tensor([1, 2]), lib.tensor([0]), lib.ones(3)),
    lambda lib: lib.nn.functional.one_hot(lib.tensor([1.0])),
    lambda lib: lib.nn.functional.one_hot(lib.tensor([1], dtype=lib.int32)),
    lambda lib: lib.nn.functional.one_hot(lib.tensor([-1])),
    lambda lib: lib.nn.functional.one_hot(lib.tensor([3]), 2),
    lambda lib: lib.nn.functional.one_hot(lib.tensor([], dtype=lib.int64)),
])
def test_errors_match_torch(torch, call):
    _raises_like(lambda: call(minitorch), lambda: call(torch))
