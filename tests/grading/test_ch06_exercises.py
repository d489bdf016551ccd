"""Chapter 6's exercise checks reject the usual mistakes (cat instead of stack, float labels, a lost last
batch, train and validation swapped, statistics from the wrong data, a division by a zero spread), and
the references agree with the library: DataLoader batches, a seeded randperm, zero mean and unit spread.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from grading import check, randn
from grading.registry import get
from minitorch.utils.data import DataLoader, TensorDataset


# -- typical mistakes -----------------------------------------------------------------------------
def _load_batch_with(collate):
    def load_batch(features, labels, indices):
        return collate([(features[i], int(labels[i])) for i in indices.tolist()])

    return load_batch


def _batches_with(batch_indices):
    def batches_as_tensors(num_samples, batch_size, drop_last):
        return [minitorch.tensor(batch, dtype=minitorch.int64) for batch in batch_indices(num_samples, batch_size,
                                                                                         drop_last)]

    return batches_as_tensors


def _always_drops_last(num_samples, batch_size, drop_last):
    for start in range(0, num_samples - batch_size + 1, batch_size):
        yield list(range(start, start + batch_size))


def _never_drops_last(num_samples, batch_size, drop_last):
    for start in range(0, num_samples, batch_size):
        yield list(range(start, min(start + batch_size, num_samples)))


def _split_with(order, count):
    def train_val_split(num_samples, val_fraction, seed):
        num_val = count(num_samples * val_fraction)
        permutation = minitorch.randperm(num_samples, generator=minitorch.Generator().manual_seed(seed))
        train, validation = permutation[: num_samples - num_val], permutation[num_samples - num_val:]
        return (train, validation) if order == "train first" else (validation, train)

    return train_val_split


def _standardize_with(statistics_from, correction, guard):
    def standardize(features, train_features):
        source = train_features if statistics_from == "train" else features
        std = source.std(dim=0, correction=correction)
        if guard:
            std = minitorch.where(std > 0, std, minitorch.ones_like(std))
        return (features - source.mean(dim=0)) / std

    return standardize


WRONG = {
    "collate: cat instead of stack": (
        "ch06.load_batch",
        _load_batch_with(lambda s: (minitorch.cat([x for x, _ in s]), minitorch.tensor([y for _, y in s])))),
    "collate: float labels": (
        "ch06.load_batch",
        _load_batch_with(lambda s: (minitorch.stack([x for x, _ in s]), minitorch.tensor([float(y) for _, y in s])))),
    "collate: a list of samples, not stacked": (
        "ch06.load_batch", _load_batch_with(lambda s: ([x for x, _ in s], minitorch.tensor([y for _, y in s])))),
    "batches: last one always dropped": ("ch06.batch_indices", _batches_with(_always_drops_last)),
    "batches: last one never dropped": ("ch06.batch_indices", _batches_with(_never_drops_last)),
    "split: validation first": ("ch06.train_val_split", _split_with("validation first", int)),
    "split: rounded, not floored": ("ch06.train_val_split", _split_with("train first", round)),
    "split: unseeded permutation": (
        "ch06.train_val_split",
        lambda n, fraction, seed: (minitorch.randperm(n)[: n - int(n * fraction)],
                                   minitorch.randperm(n)[n - int(n * fraction):])),
    "standardize: statistics of the features, not of the training set": (
        "ch06.standardize", _standardize_with("features", 0, True)),
    "standardize: no guard against a zero spread": ("ch06.standardize", _standardize_with("train", 0, False)),
    "standardize: unbiased std": ("ch06.standardize", _standardize_with("train", 1, True)),
}


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_typical_mistake_fails_the_check(mistake, capsys):
    name, function = WRONG[mistake]
    with pytest.raises(AssertionError):
        check(name, function)
    assert "FAILED" in capsys.readouterr().out


# -- the references are what the library does -------------------------------------------------------
def test_load_batch_reference_is_a_dataloader_batch():
    features, labels = minitorch.tensor(randn(9, 3, seed=1)), minitorch.arange(9)
    xs, ys = get("ch06.load_batch").reference(features, labels, minitorch.tensor([0, 1, 2, 3]))
    loader_xs, loader_ys = next(iter(DataLoader(TensorDataset(features, labels), batch_size=4)))
    assert minitorch.equal(xs, loader_xs) and minitorch.equal(ys, loader_ys)


@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_indices_reference_matches_a_dataloader(drop_last):
    dataset = TensorDataset(minitorch.arange(11))
    batches = get("ch06.batch_indices").reference(11, 4, drop_last)
    from_loader = [indices for (indices,) in DataLoader(dataset, batch_size=4, drop_last=drop_last)]
    assert [batch.tolist() for batch in batches] == [indices.tolist() for indices in from_loader]


def test_train_val_split_reference_is_the_seeded_permutation_cut():
    train, validation = get("ch06.train_val_split").reference(20, 0.25, 5)
    permutation = minitorch.randperm(20, generator=minitorch.Generator().manual_seed(5))
    assert train.tolist() == permutation[:15].tolist() and validation.tolist() == permutation[15:].tolist()


def test_standardize_reference_gives_zero_mean_unit_spread_on_the_training_set():
    train = minitorch.tensor(np.concatenate([randn(50, 3, seed=2, scale=4.0), np.zeros((50, 1), np.float32)], 1))
    result = get("ch06.standardize").reference(train, train)
    assert minitorch.allclose(result.mean(dim=0), minitorch.zeros(4), atol=1e-5)
    assert minitorch.allclose(result.std(dim=0, correction=0), minitorch.tensor([1.0, 1.0, 1.0, 0.0]), atol=1e-5)
