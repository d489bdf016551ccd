"""Samplers, against PyTorch's: orders where PyTorch's order is fixed, properties where it depends on the RNG.

The random samplers are compared here on what the seed does not decide: lengths, the set of
indices, with/without repetition, reproducibility, and the distribution. Their exact orders
(minitorch draws PyTorch's random numbers) are compared with PyTorch's in
tests/test_random_parity.py.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import (
    BatchSampler,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from tests.support import require_torch


def _generator(seed):
    return minitorch.Generator().manual_seed(seed)


def test_sequential_sampler_matches_pytorch():
    torch = require_torch()
    assert list(SequentialSampler(range(7))) == list(torch.utils.data.SequentialSampler(range(7))) == list(range(7))
    assert len(SequentialSampler(range(7))) == 7


@pytest.mark.parametrize("size, batch_size", [(10, 3), (9, 3), (1, 4), (0, 2), (13, 1)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_matches_pytorch(size, batch_size, drop_last):
    torch = require_torch()
    ours = BatchSampler(SequentialSampler(range(size)), batch_size, drop_last)
    theirs = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(size)), batch_size, drop_last)
    assert list(ours) == list(theirs)
    assert len(ours) == len(theirs)
    # any iterable of indices works as the inner sampler
    assert list(BatchSampler([5, 3, 1, 0, 2], 2, drop_last)) == list(
        torch.utils.data.BatchSampler([5, 3, 1, 0, 2], 2, drop_last)
    )


@pytest.mark.parametrize(
    "arguments, message",
    [((0, False), "batch_size should be a positive integer value, but got batch_size=0"),
     ((True, False), "batch_size should be a positive integer value, but got batch_size=True"),
     ((2, 1), "drop_last should be a boolean value, but got drop_last=1")],
)
def test_batch_sampler_argument_errors_match_pytorch(arguments, message):
    torch = require_torch()
    for module in (minitorch.utils.data, torch.utils.data):
        with pytest.raises(ValueError, match=message):
            module.BatchSampler(range(4), *arguments)


def test_random_sampler_is_a_permutation_reproducible_from_its_generator():
    torch = require_torch()
    ours = list(RandomSampler(range(50), generator=_generator(0)))
    assert sorted(ours) == list(range(50)) and ours != list(range(50))
    assert ours == list(RandomSampler(range(50), generator=_generator(0)))
    assert ours != list(RandomSampler(range(50), generator=_generator(1)))
    theirs = list(torch.utils.data.RandomSampler(range(50), generator=torch.Generator().manual_seed(0)))
    assert len(ours) == len(theirs) and sorted(theirs) == sorted(ours)
    # a sampler draws a new order every time it is iterated (every epoch)
    sampler = RandomSampler(range(50), generator=_generator(0))
    assert list(sampler) != list(sampler)


def test_random_sampler_without_generator_follows_manual_seed():
    minitorch.manual_seed(5)
    first = list(RandomSampler(range(30)))
    minitorch.manual_seed(5)
    assert list(RandomSampler(range(30))) == first


@pytest.mark.parametrize("num_samples", [1, 7, 10, 25, 64])
def test_random_sampler_num_samples_without_replacement_chains_permutations(num_samples):
    torch = require_torch()
    ours = list(RandomSampler(range(10), num_samples=num_samples, generator=_generator(0)))
    theirs = list(torch.utils.data.RandomSampler(range(10), num_samples=num_samples))
    assert len(ours) == len(theirs) == num_samples
    for start in range(0, num_samples, 10):  # each block of 10 is a permutation (or a part of one)
        block = ours[start : start + 10]
        assert len(set(block)) == len(block) and set(block) <= set(range(10))


@pytest.mark.parametrize("num_samples", [5, 32, 33, 100])
def test_random_sampler_with_replacement(num_samples):
    torch = require_torch()
    sampler = RandomSampler(range(6), replacement=True, num_samples=num_samples, generator=_generator(2))
    ours = list(sampler)
    theirs = list(torch.utils.data.RandomSampler(range(6), replacement=True, num_samples=num_samples))
    assert len(ours) == len(theirs) == len(sampler) == num_samples
    assert set(ours) <= set(range(6))
    assert ours == list(RandomSampler(range(6), replacement=True, num_samples=num_samples, generator=_generator(2)))
    if num_samples >= 32:
        assert len(set(ours)) < num_samples  # repetitions happen


def test_random_sampler_argument_errors_match_pytorch():
    torch = require_torch()
    for module in (minitorch.utils.data, torch.utils.data):
        with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=0"):
            module.RandomSampler(range(3), replacement=0)
        with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
            module.RandomSampler(range(3), num_samples=0)
        with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
            module.RandomSampler([])


def test_subset_random_sampler_shuffles_exactly_the_given_indices():
    torch = require_torch()
    indices = [3, 14, 15, 92, 65, 35]
    ours = list(SubsetRandomSampler(indices, generator=_generator(0)))
    theirs = list(torch.utils.data.SubsetRandomSampler(indices, generator=torch.Generator().manual_seed(0)))
    assert sorted(ours) == sorted(theirs) == sorted(indices)
    assert ours == list(SubsetRandomSampler(indices, generator=_generator(0)))
    assert len(SubsetRandomSampler(indices)) == 6


def test_weighted_random_sampler_draws_in_proportion_to_the_weights():
    torch = require_torch()
    weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.0]
    draws = 20_000
    ours = list(WeightedRandomSampler(weights, draws, generator=_generator(0)))
    theirs = list(torch.utils.data.WeightedRandomSampler(weights, draws, generator=torch.Generator().manual_seed(0)))
    assert len(ours) == len(theirs) == draws
    expected = np.asarray(weights) / sum(weights)
    for sample in (ours, theirs):
        counts = collections.Counter(sample)
        frequencies = np.array([counts[i] for i in range(len(weights))]) / draws
        # binomial standard deviation is at most sqrt(0.25 / 20000) = 0.0035: 4 sigma
        np.testing.assert_allclose(frequencies, expected, atol=0.014)
    assert 5 not in ours  # weight 0 is never drawn
    assert ours == list(WeightedRandomSampler(weights, draws, generator=_generator(0)))


def test_weighted_random_sampler_without_replacement_draws_each_index_at_most_once():
    torch = require_torch()
    weights = [0.9, 0.4, 0.05, 0.2, 0.3, 0.1]
    ours = list(WeightedRandomSampler(weights, 5, replacement=False, generator=_generator(0)))
    theirs = list(torch.utils.data.WeightedRandomSampler(weights, 5, replacement=False))
    assert len(ours) == len(theirs) == 5
    assert len(set(ours)) == 5 and set(ours) <= set(range(6))


def test_weighted_random_sampler_argument_errors_match_pytorch():
    torch = require_torch()
    for module in (minitorch.utils.data, torch.utils.data):
        with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
            module.WeightedRandomSampler([1.0, 2.0], 0)
        with pytest.raises(ValueError, match="replacement should be a boolean value, but got replacement=1"):
            module.WeightedRandomSampler([1.0, 2.0], 2, replacement=1)
        with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(1, 2\)"):
            module.WeightedRandomSampler([[1.0, 2.0]], 2)
    weights = WeightedRandomSampler([1, 2, 3], 2).weights
    assert weights.dtype == minitorch.float64 and weights.tolist() == [1.0, 2.0, 3.0]
