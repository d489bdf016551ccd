"""``DistributedSampler``: each rank of a distributed job reads its own share of the dataset.

With ``W`` ranks (``num_replicas``), the indices ``0 .. N-1`` (shuffled with the seed
``seed + epoch`` when ``shuffle``, the same permutation on every rank) are dealt out like
cards: rank ``r`` gets positions ``r, r + W, r + 2W, ...``. So that every rank gets the same
number ``ceil(N / W)`` of samples, the list is first padded by repeating its beginning
(``drop_last=False``), or cut to ``floor(N / W) * W`` (``drop_last=True``)::

    N = 10, W = 4, shuffle=False:   0 1 2 3 4 5 6 7 8 9 | 0 1     (padded to 12)
    rank 0: [0, 4, 8]   rank 1: [1, 5, 9]   rank 2: [2, 6, 0]   rank 3: [3, 7, 1]

Call ``set_epoch(epoch)`` before each epoch, or every epoch repeats the same shuffle.

The partition is PyTorch's, exactly, and so is the shuffle: ``randperm`` with a ``Generator``
seeded by ``seed + epoch`` (identical on every rank, and the same permutation as PyTorch's:
see ``minitorch/_random.py``).

    >>> from minitorch.utils.data.distributed import DistributedSampler
    >>> [list(DistributedSampler(range(10), num_replicas=4, rank=r, shuffle=False)) for r in range(4)]
    [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ... import distributed as dist
from ..._creation import randperm
from ..._random import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[int]):
    """The indices of ``dataset`` that belong to ``rank`` out of ``num_replicas`` (by default, the process group's)."""

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size()
        if rank is None:
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)  # floor(N / W)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        if self.shuffle:
            generator = Generator().manual_seed(self.seed + self.epoch)  # the same permutation on every rank
            indices = randperm(len(self.dataset), generator=generator).tolist()
        else:
            indices = list(range(len(self.dataset)))
        return iter(partition(indices, self.num_replicas, self.rank, self.drop_last))

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use the shuffle of ``epoch`` next (call it before each epoch, with the same value on every rank)."""
        self.epoch = epoch


def partition(indices: list[int], num_replicas: int, rank: int, drop_last: bool) -> list[int]:
    """Rank ``rank``'s share of ``indices``: padded (or cut) to a multiple of ``num_replicas``, then every
    ``num_replicas``-th position starting at ``rank``."""
    num_samples = (math.ceil((len(indices) - num_replicas) / num_replicas)
                   if drop_last and len(indices) % num_replicas else math.ceil(len(indices) / num_replicas))
    total_size = num_samples * num_replicas
    if drop_last:
        indices = indices[:total_size]
    else:
        padding = total_size - len(indices)
        # Repeat the beginning; a tiny dataset (fewer samples than ranks) is repeated as often as needed.
        indices = indices + (indices * math.ceil(padding / len(indices)))[:padding] if padding else list(indices)
    return indices[rank:total_size:num_replicas]
