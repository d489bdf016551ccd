"""Datasets: where the samples come from.

A *map-style* dataset (``Dataset``) is a table: ``len(dataset)`` samples, and
``dataset[i]`` returns sample ``i``. A sampler chooses the order of the indices; the
``DataLoader`` fetches and batches them.

An *iterable-style* dataset (``IterableDataset``) is a stream: ``iter(dataset)`` yields
samples one after another (lines of a file, records from a socket). There are no indices,
so there is no sampler; with worker processes each worker iterates its own copy, and the
dataset uses ``get_worker_info()`` to pick its share (see ``IterableDataset``).

The rest of the file combines datasets: ``TensorDataset`` (rows of tensors),
``StackDataset`` (several datasets side by side), ``ConcatDataset`` and ``ChainDataset``
(one after the other), ``Subset`` and ``random_split`` (a selection of indices).
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

from ..._creation import randperm
from ..._random import default_generator
from ..._tensor import Tensor

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "StackDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map from indices to samples: subclasses define ``__getitem__`` (and usually ``__len__``).

    A subclass may also define ``__getitems__(indices)``, returning the list of samples of a
    whole batch at once; the ``DataLoader`` then calls it instead of ``__getitem__`` per index.

    Example::

        >>> class Squares(Dataset):
        ...     def __len__(self):
        ...         return 5
        ...     def __getitem__(self, index):
        ...         return index * index
        >>> Squares()[3]
        9
    """

    def __getitem__(self, index) -> T_co:
        # PyTorch's message and type for a subclass that forgot the one method it must define
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples: subclasses define ``__iter__``.

    With ``num_workers > 0`` every worker process iterates its *own copy* of the dataset, so
    without care each sample comes out ``num_workers`` times. Split the work in ``__iter__``
    with ``get_worker_info()`` (``None`` in the main process)::

        >>> import math
        >>> from minitorch.utils.data import get_worker_info
        >>> class Range(IterableDataset):
        ...     def __init__(self, start, end):
        ...         self.start, self.end = start, end
        ...     def __iter__(self):
        ...         info = get_worker_info()
        ...         if info is None:  # loading in the main process: everything
        ...             return iter(range(self.start, self.end))
        ...         per_worker = math.ceil((self.end - self.start) / info.num_workers)
        ...         first = self.start + info.id * per_worker
        ...         return iter(range(first, min(first + per_worker, self.end)))
        >>> list(Range(3, 7))
        [3, 4, 5, 6]

    ``DataLoader(Range(3, 7), num_workers=2)`` then gives 3, 5, 4, 6: worker 0 owns 3 and 4,
    worker 1 owns 5 and 6, and the loader takes one batch from each worker in turn.
    """

    def __add__(self, other: Dataset) -> ChainDataset:
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are rows: ``dataset[i] == (tensors[0][i], tensors[1][i], ...)``.

    Example::

        >>> import minitorch
        >>> features, labels = minitorch.zeros(4, 3), minitorch.tensor([0, 1, 0, 1])
        >>> x, y = TensorDataset(features, labels)[1]
        >>> x.shape, y.item()
        (minitorch.Size([3]), 1)
    """

    def __init__(self, *tensors) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __getitems__(self, indices: list) -> list[tuple]:
        """A whole batch of samples at once (the ``DataLoader`` calls this instead of ``__getitem__`` per index).

        The samples are the same as ``[self[i] for i in indices]``, but each tensor is indexed
        once for the whole batch and then split into rows, instead of once per sample: the
        per-operation overhead is paid a few times per batch, not hundreds of times.
        """
        if type(self).__getitem__ is not TensorDataset.__getitem__:  # a subclass changed what a sample is
            return [self[index] for index in indices]
        columns = [_rows(tensor[indices]) for tensor in self.tensors]
        return list(zip(*columns))

    def __len__(self) -> int:
        return self.tensors[0].size(0)


def _rows(batch: Tensor) -> list[Tensor]:
    """The rows of ``batch`` as tensors that view it (``batch.unbind(0)``, minus the autograd bookkeeping).

    Data tensors rarely require gradients; when they do, ``unbind`` keeps the rows in the graph.
    """
    if batch.requires_grad:
        return list(batch.unbind(0))
    return [Tensor._make(row, batch.device, version_counter=batch._version_counter) for row in batch._data]


class StackDataset(Dataset):
    """Several datasets of the same length side by side: samples are tuples or dicts.

    ``StackDataset(images, labels)[i] == (images[i], labels[i])`` and
    ``StackDataset(image=images, label=labels)[i] == {"image": images[i], "label": labels[i]}``.
    """

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or"
                "``dict``- (via ``kwargs``) like input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        datasets = list(args) if args else list(kwargs.values())
        self._length = len(datasets[0])
        if any(self._length != len(dataset) for dataset in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list):
        """A whole batch at once, using each part's own ``__getitems__`` when it has one."""
        named = isinstance(self.datasets, dict)
        parts = self.datasets.items() if named else enumerate(self.datasets)
        columns = {}
        for key, dataset in parts:
            if callable(getattr(dataset, "__getitems__", None)):
                items = dataset.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError(
                        f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}"
                    )
            else:
                items = [dataset[index] for index in indices]
            columns[key] = items
        if named:
            return [{key: items[row] for key, items in columns.items()} for row in range(len(indices))]
        return [tuple(items[row] for items in columns.values()) for row in range(len(indices))]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after the other: index ``len(first)`` is the second's sample 0.

    ``cumulative_sizes[k]`` is the number of samples in datasets ``0..k``; a binary search in
    it finds which dataset an index falls into.
    """

    @staticmethod
    def cumsum(sequence) -> list[int]:
        return list(itertools.accumulate(len(dataset) for dataset in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index = len(self) + index
        dataset_index = bisect.bisect_right(self.cumulative_sizes, index)
        start = 0 if dataset_index == 0 else self.cumulative_sizes[dataset_index - 1]
        return self.datasets[dataset_index][index - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other, chained lazily as they are iterated."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset

    def __len__(self) -> int:
        total = 0
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(dataset)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``: ``Subset(data, [4, 2])[1] == data[2]``.

    A subclass that overrides ``__getitem__`` must also override ``__getitems__`` (the
    ``DataLoader`` calls the latter), as in PyTorch.
    """

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            # PyTorch's guard (and exception type): the DataLoader would silently bypass the override
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: list[int]) -> list:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[index] for index in indices])
        return [self.dataset[self.indices[index]] for index in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[int | float], generator=default_generator) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths (or fractions).

    Fractions that sum to 1 become ``floor(fraction * len(dataset))`` samples each, and the
    samples left over are handed out one at a time, round robin from the first subset:
    ``random_split(range(10), [0.25, 0.75])`` gives lengths 3 and 7. One random permutation
    (from ``generator``) is cut into consecutive pieces.

    Example::

        >>> import minitorch
        >>> train, test = random_split(range(10), [0.8, 0.2], generator=minitorch.Generator().manual_seed(0))
        >>> len(train), len(test), sorted(list(train) + list(test)) == list(range(10))
        (8, 2, True)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for position, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {position} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * fraction))
        remainder = len(dataset) - sum(subset_lengths)
        for extra in range(remainder):
            subset_lengths[extra % len(subset_lengths)] += 1
        lengths = subset_lengths
        for position, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {position} is 0. This might result in an empty dataset.", stacklevel=2
                )
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [
        Subset(dataset, indices[end - length : end]) for end, length in zip(itertools.accumulate(lengths), lengths)
    ]
