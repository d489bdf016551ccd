"""DistributedSampler: PyTorch's partition and PyTorch's shuffle exactly (checked against torch's own sampler).

The indices are PyTorch's, shuffled or not, for every dataset size, number of replicas, rank, epoch and
drop_last (minitorch's random numbers are PyTorch's: minitorch/_random.py). The structure is checked too:
the same permutation on every rank, the ranks' shares partition it (padded or cut), epochs differ, seeds
repeat.
"""

from __future__ import annotations

import pytest

from minitorch.utils.data import DistributedSampler
from minitorch.utils.data.distributed import partition
from tests.support import require_torch

SIZES = [1, 3, 7, 10, 12, 23]
REPLICAS = [1, 2, 3, 4, 8]


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("replicas", REPLICAS)
@pytest.mark.parametrize("size", SIZES)
def test_unshuffled_shares_are_pytorchs(size, replicas, drop_last):
    require_torch()
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    for rank in range(replicas):
        ours = DistributedSampler(range(size), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(size), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs) == ours.num_samples and ours.total_size == theirs.total_size


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("replicas", REPLICAS)
@pytest.mark.parametrize("size", SIZES)
def test_shuffled_shares_are_pytorchs(size, replicas, drop_last):
    require_torch()
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    for epoch in range(3):
        for rank in range(replicas):
            ours = DistributedSampler(range(size), num_replicas=replicas, rank=rank, seed=17, drop_last=drop_last)
            theirs = TorchSampler(range(size), num_replicas=replicas, rank=rank, seed=17, drop_last=drop_last)
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs)


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("replicas", [2, 3, 4])
def test_shuffled_shares_partition_one_permutation(replicas, drop_last):
    size = 23
    for epoch in range(2):
        shares = []
        for rank in range(replicas):
            sampler = DistributedSampler(range(size), num_replicas=replicas, rank=rank, seed=5, drop_last=drop_last)
            sampler.set_epoch(epoch)
            shares.append(list(sampler))
        # Undo the dealing: position i of the padded (or cut) permutation went to rank i % replicas.
        dealt = [shares[i % replicas][i // replicas] for i in range(sum(map(len, shares)))]
        if drop_last:
            assert len(set(dealt)) == len(dealt) == size // replicas * replicas
        else:
            assert sorted(set(dealt)) == list(range(size))
            assert dealt[size:] == dealt[: len(dealt) - size], "padding repeats the permutation's beginning"
        assert all(len(share) == len(shares[0]) for share in shares)
        assert dealt[: len(dealt) if drop_last else size] != sorted(dealt[:size]), "the order is shuffled"


def test_epochs_and_seeds():
    def share(epoch, seed):
        sampler = DistributedSampler(range(50), num_replicas=2, rank=0, seed=seed)
        sampler.set_epoch(epoch)
        return list(sampler)

    assert share(0, 0) == share(0, 0), "reproducible: every rank computes the same permutation"
    assert share(0, 0) != share(1, 0), "set_epoch changes the shuffle"
    assert share(1, 0) == share(0, 1), "the generator is seeded with seed + epoch, as in PyTorch"


def test_partition_of_a_given_order():
    assert partition([5, 3, 9, 0, 7], 2, 1, False) == [3, 0, 5]
    assert partition([5, 3, 9, 0, 7], 2, 1, True) == [3, 0]


def test_invalid_rank_in_pytorchs_words():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)


def test_without_a_process_group_the_defaults_need_one():
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))
