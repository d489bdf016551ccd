"""Samplers: the order in which a map-style dataset is visited.

A sampler is any iterable of indices (``SequentialSampler``: 0, 1, 2, ...;
``RandomSampler``: a fresh permutation every time it is iterated, so every epoch is
shuffled differently). ``BatchSampler`` groups the indices of another sampler into lists,
one list per mini-batch; the ``DataLoader`` builds one for you from ``batch_size``.

The random samplers draw from a ``minitorch.Generator``: pass ``generator=`` for a
reproducible order. The draws are PyTorch's (``randperm``, ``randint``, ``multinomial``, and
the seed a ``RandomSampler`` takes from the default generator), so the same seed gives the
same order as under PyTorch.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

from ... import _dtype
from ..._creation import as_tensor, empty, multinomial, randint, randperm
from ..._random import Generator

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: subclasses define ``__iter__`` (indices, or lists of indices) and usually ``__len__``."""

    def __iter__(self) -> Iterator[T_co]:
        # PyTorch's exception type for the method every sampler must define
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``, always in this order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random order: a permutation (each index once), or ``num_samples`` draws with ``replacement``.

    Without a ``generator`` each iteration takes a fresh seed from the default generator,
    so ``minitorch.manual_seed`` makes the shuffles reproducible. Asking for more samples
    than the dataset holds (without replacement) chains several permutations.
    """

    def __init__(
        self, data_source: Sized, replacement: bool = False, num_samples: int | None = None, generator=None
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        size = len(self.data_source)
        generator = self.generator
        if generator is None:  # a private stream, seeded from the default generator
            seed = int(empty((), dtype=_dtype.int64).random_().item())
            generator = Generator().manual_seed(seed)
        if self.replacement:
            # drawn 32 at a time, so a huge num_samples never sits in memory at once
            for _ in range(self.num_samples // 32):
                yield from randint(size, (32,), generator=generator).tolist()
            yield from randint(size, (self.num_samples % 32,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // size):
                yield from randperm(size, generator=generator).tolist()
            yield from randperm(size, generator=generator).tolist()[: self.num_samples % size]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given ``indices`` in a random order (a new one at every iteration)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for position in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[position]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices in ``0 .. len(weights) - 1``, index ``i`` with probability ``weights[i] / sum``.

    The weights need not sum to one. A common use: oversample rare classes by giving each
    sample the weight ``1 / count(its class)``.
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator=None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=_dtype.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one shorter unless ``drop_last``).

    Example::

        >>> list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False))
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
        >>> list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True))
        [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    """

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        batch = list(itertools.islice(indices, self.batch_size))
        while batch:
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class _InfiniteConstantSampler(Sampler[None]):
    """``None`` forever: the stand-in sampler of an ``IterableDataset``, which has no indices.

    The loader still needs "one more sample, please" tokens to count batches; with a
    ``BatchSampler`` around it, each token is ``[None] * batch_size``.
    """

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None
