"""Datasets and random_split, against PyTorch's (tests/utils mirrors minitorch/utils/data)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from tests.support import require_torch


class Numbers(Dataset):
    def __init__(self, values):
        self.values = list(values)

    def __len__(self):
        return len(self.values)

    def __getitem__(self, index):
        return self.values[index]


class Stream(IterableDataset):
    def __init__(self, values):
        self.values = list(values)

    def __iter__(self):
        return iter(self.values)

    def __len__(self):
        return len(self.values)


def test_dataset_base_class_asks_for_getitem_and_adds_to_a_concat_dataset():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__"):
        Dataset()[0]
    both = Numbers([1, 2]) + Numbers([3])
    assert isinstance(both, ConcatDataset) and [both[i] for i in range(3)] == [1, 2, 3]
    chained = Stream([1]) + Stream([2, 3])
    assert isinstance(chained, ChainDataset) and list(chained) == [1, 2, 3] and len(chained) == 3


def test_tensor_dataset_rows_and_size_check():
    features = minitorch.arange(12.0).reshape(4, 3)
    labels = minitorch.tensor([0, 1, 0, 1])
    dataset = TensorDataset(features, labels)
    assert len(dataset) == 4
    x, y = dataset[2]
    assert x.tolist() == [6.0, 7.0, 8.0] and y.item() == 0
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(features, minitorch.tensor([0, 1]))


def test_stack_dataset_tuples_dicts_and_batches():
    letters, numbers = Numbers("abc"), Numbers([1, 2, 3])
    assert StackDataset(letters, numbers)[1] == ("b", 2)
    assert StackDataset(letter=letters, number=numbers)[2] == {"letter": "c", "number": 3}
    assert StackDataset(letters, numbers).__getitems__([0, 2]) == [("a", 1), ("c", 3)]
    assert StackDataset(x=letters, y=Subset(numbers, [2, 1, 0])).__getitems__([0]) == [{"x": "a", "y": 3}]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(letters, Numbers([1]))
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()
    with pytest.raises(ValueError, match="but both types are given"):
        StackDataset(letters, y=numbers)


def test_concat_dataset_matches_pytorch_including_negative_indices():
    torch = require_torch()
    parts = [list(range(3)), list(range(10, 15)), list(range(20, 22))]
    ours = ConcatDataset([Numbers(part) for part in parts])
    theirs = torch.utils.data.ConcatDataset([Numbers(part) for part in parts])
    assert ours.cumulative_sizes == theirs.cumulative_sizes == [3, 8, 10]
    assert len(ours) == len(theirs)
    for index in range(-10, 10):
        assert ours[index] == theirs[index]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        ours[-11]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Stream([1])])


def test_chain_dataset_rejects_map_style_parts():
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([Numbers([1])]))


def test_subset_indexing_batches_and_the_getitems_guard():
    data = Numbers(range(10, 20))
    subset = Subset(data, [4, 2, 7])
    assert len(subset) == 3 and subset[1] == 12 and subset.__getitems__([0, 2]) == [14, 17]
    nested = Subset(Subset(data, [9, 8, 7, 6]), [3, 0])
    assert nested.__getitems__([0, 1]) == [16, 19]

    class Doubled(Subset):
        def __getitem__(self, index):
            return 2 * super().__getitem__(index)

    with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
        Doubled(data, [0])


@pytest.mark.parametrize(
    "size, lengths",
    [
        (10, [3, 7]),
        (10, [0.3, 0.7]),
        (10, [0.25, 0.75]),  # floor gives 2 + 7, the remainder goes to the first split
        (30, [0.3, 0.3, 0.4]),
        (11, [0.1, 0.1, 0.1, 0.7]),
        (7, [1 / 3, 1 / 3, 1 / 3]),
        (5, [1.0]),
    ],
)
def test_random_split_lengths_match_pytorch_and_cover_every_index_once(size, lengths):
    torch = require_torch()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        ours = random_split(range(size), lengths, generator=minitorch.Generator().manual_seed(0))
        theirs = torch.utils.data.random_split(range(size), lengths, generator=torch.Generator().manual_seed(0))
    assert [len(part) for part in ours] == [len(part) for part in theirs]
    everything = sorted(index for part in ours for index in part.indices)
    assert everything == list(range(size))


def test_random_split_is_reproducible_from_the_generator_and_uses_the_default_one():
    first = random_split(range(20), [5, 15], generator=minitorch.Generator().manual_seed(3))
    second = random_split(range(20), [5, 15], generator=minitorch.Generator().manual_seed(3))
    other = random_split(range(20), [5, 15], generator=minitorch.Generator().manual_seed(4))
    assert [part.indices for part in first] == [part.indices for part in second]
    assert [part.indices for part in first] != [part.indices for part in other]
    minitorch.manual_seed(11)
    default_first = random_split(range(20), [0.5, 0.5])
    minitorch.manual_seed(11)
    default_second = random_split(range(20), [0.5, 0.5])
    assert [part.indices for part in default_first] == [part.indices for part in default_second]


def test_random_split_errors_and_warnings_match_pytorch():
    torch = require_torch()
    for module in (minitorch.utils.data, torch.utils.data):
        with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
            module.random_split(range(10), [3, 3])
        with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
            module.random_split(range(10), [0.5, 1.5, -1.0])
        with pytest.warns(UserWarning, match="Length of split at index 1 is 0. This might result in an empty dataset."):
            module.random_split(range(2), [0.9, 0.1])


def test_dataset_generic_annotations_work_as_in_pytorch():
    class Typed(Dataset[int]):
        def __getitem__(self, index):
            return index

    assert Typed()[4] == 4
    assert np.array_equal(np.asarray([Typed()[i] for i in range(3)]), [0, 1, 2])


def test_tensor_dataset_batches_equal_its_samples_and_respect_subclasses():
    features = minitorch.arange(12.0).reshape(6, 2)
    labels = minitorch.tensor([5, 4, 3, 2, 1, 0])
    dataset = TensorDataset(features, labels)
    batch = dataset.__getitems__([4, 0, 4])
    assert [(x.tolist(), y.item()) for x, y in batch] == [(dataset[i][0].tolist(), dataset[i][1].item()) for i in
                                                          [4, 0, 4]]

    class Scaled(TensorDataset):  # a subclass that changes the samples keeps its meaning in batches
        def __getitem__(self, index):
            x, y = super().__getitem__(index)
            return x * 10, y

    assert [x.tolist() for x, _ in Scaled(features, labels).__getitems__([1])] == [[20.0, 30.0]]

    trainable = minitorch.ones(3, 2, requires_grad=True)  # rows stay in the autograd graph
    rows = TensorDataset(trainable).__getitems__([0, 2])
    sum(row.sum() for (row,) in rows).backward()
    assert trainable.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
