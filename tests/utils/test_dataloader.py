"""DataLoader in the main process (num_workers=0): arguments, lengths, batches, shuffling, against PyTorch.

Worker processes are tested in ``test_workers.py``.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import (
    BatchSampler,
    DataLoader,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    TensorDataset,
)
from tests.support import require_torch
from tests.utils.parity import assert_same_batch
from tests.utils.worker_datasets import MinitorchShardedRange, Squares


class Stream(IterableDataset):
    def __init__(self, length, reported_length=None):
        self.length = length
        self.reported_length = length if reported_length is None else reported_length

    def __iter__(self):
        return iter(range(self.length))

    def __len__(self):
        return self.reported_length


def _torch_stream(torch, length, reported_length=None):
    class TorchStream(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(length))

        def __len__(self):
            return length if reported_length is None else reported_length

    return TorchStream()


def _both(torch, **options):
    """The same loader over ``Squares`` in both libraries."""
    return DataLoader(Squares(), **options), torch.utils.data.DataLoader(Squares(), **options)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"batch_size": 4},
        {"batch_size": 4, "drop_last": True},
        {"batch_size": 23},
        {"batch_size": 50},
        {"batch_size": None},
        {"sampler": [5, 3, 3, 0]},
        {"sampler": SequentialSampler(range(10)), "batch_size": 3},
        {"batch_sampler": [[0, 1], [5], [7, 7, 2]]},
        {"batch_sampler": BatchSampler(SequentialSampler(range(23)), 5, drop_last=True)},
    ],
)
def test_batches_and_length_equal_pytorch(options):
    torch = require_torch()
    if isinstance(options.get("sampler"), SequentialSampler):
        torch_options = {**options, "sampler": torch.utils.data.SequentialSampler(range(10))}
    elif isinstance(options.get("batch_sampler"), BatchSampler):
        torch_options = {
            **options,
            "batch_sampler": torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(23)), 5, True),
        }
    else:
        torch_options = options
    ours, theirs = DataLoader(Squares(), **options), torch.utils.data.DataLoader(Squares(), **torch_options)
    assert len(ours) == len(theirs)
    ours_batches, theirs_batches = list(ours), list(theirs)
    assert len(ours_batches) == len(theirs_batches)
    for index, (mine, other) in enumerate(zip(ours_batches, theirs_batches)):
        assert_same_batch(mine, other, f"batch {index}")


@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (3, False), (3, True), (None, False), (10, False)])
def test_iterable_dataset_batches_and_length_equal_pytorch(batch_size, drop_last):
    torch = require_torch()
    ours = DataLoader(Stream(8), batch_size=batch_size, drop_last=drop_last)
    theirs = torch.utils.data.DataLoader(_torch_stream(torch, 8), batch_size=batch_size, drop_last=drop_last)
    assert len(ours) == len(theirs)
    ours_batches, theirs_batches = list(ours), list(theirs)
    assert len(ours_batches) == len(theirs_batches)
    for mine, other in zip(ours_batches, theirs_batches):
        assert_same_batch(mine, other)


def test_iterable_dataset_that_yields_more_than_its_length_warns_like_pytorch():
    torch = require_torch()
    for loader in (DataLoader(Stream(5, reported_length=3)),
                   torch.utils.data.DataLoader(_torch_stream(torch, 5, reported_length=3))):
        assert len(loader) == 3
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            list(loader)
        messages = [str(warning.message) for warning in caught]
        assert len(messages) == 2  # after the 4th and the 5th sample
        assert "was reported to be 3(when accessing len(dataloader)), but 4 samples have been fetched" in messages[0]


def test_shuffle_covers_every_index_once_and_is_reproducible_from_the_generator():
    features = minitorch.arange(50)

    def shuffled(seed):
        generator = minitorch.Generator().manual_seed(seed)
        return DataLoader(TensorDataset(features), batch_size=8, shuffle=True, generator=generator)

    loader = shuffled(0)
    first_epoch = [batch.tolist() for (batch,) in loader]
    second_epoch = [batch.tolist() for (batch,) in loader]
    for epoch in (first_epoch, second_epoch):
        assert sorted(sum(epoch, [])) == list(range(50))
        assert [len(batch) for batch in epoch] == [8] * 6 + [2]
    assert first_epoch != second_epoch  # a new order every epoch
    assert [batch.tolist() for (batch,) in shuffled(0)] == first_epoch
    assert [batch.tolist() for (batch,) in shuffled(1)] != first_epoch


def test_shuffle_without_a_generator_follows_manual_seed():
    loader = DataLoader(list(range(30)), batch_size=7, shuffle=True)
    minitorch.manual_seed(4)
    first = [batch.tolist() for batch in loader]
    minitorch.manual_seed(4)
    assert [batch.tolist() for batch in loader] == first
    assert sorted(sum(first, [])) == list(range(30))


def test_shuffled_loader_lengths_match_pytorch():
    torch = require_torch()
    for drop_last in (False, True):
        ours, theirs = _both(torch, batch_size=5, shuffle=True, drop_last=drop_last)
        assert len(ours) == len(theirs) == len(list(ours)) == len(list(theirs))
        assert [len(batch[0]) for batch in ours] == [len(batch[0]) for batch in theirs]


def test_random_sampler_with_replacement_in_a_loader():
    sampler = RandomSampler(range(10), replacement=True, num_samples=25, generator=minitorch.Generator().manual_seed(0))
    batches = list(DataLoader(list(range(10)), batch_size=10, sampler=sampler))
    assert [len(batch) for batch in batches] == [10, 10, 5]


@pytest.mark.parametrize(
    "arguments, error, message",
    [
        ({"num_workers": -1}, ValueError, "num_workers option should be non-negative"),
        ({"timeout": -1}, ValueError, "timeout option should be non-negative"),
        ({"prefetch_factor": 2}, ValueError, "prefetch_factor option could only be specified in multiprocessing"),
        ({"num_workers": 1, "prefetch_factor": -1}, ValueError, "prefetch_factor option should be non-negative"),
        ({"persistent_workers": True}, ValueError, "persistent_workers option needs num_workers > 0"),
        ({"shuffle": True, "sampler": [0, 1]}, ValueError, "sampler option is mutually exclusive with shuffle"),
        ({"batch_sampler": [[0]], "batch_size": 2}, ValueError,
         "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"),
        ({"batch_sampler": [[0]], "drop_last": True}, ValueError, "batch_sampler option is mutually exclusive"),
        ({"batch_size": None, "drop_last": True}, ValueError,
         "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"),
        ({"multiprocessing_context": "spawn"}, ValueError,
         "multiprocessing_context can only be used with multi-process loading"),
        ({"num_workers": 1, "multiprocessing_context": "no-such-method"}, ValueError,
         "multiprocessing_context option should specify a valid start method"),
        ({"num_workers": 1, "multiprocessing_context": 3}, TypeError,
         "multiprocessing_context option should be a valid context object or a string"),
    ],
)
def test_argument_errors_match_pytorch(arguments, error, message):
    torch = require_torch()
    for loader_class in (DataLoader, torch.utils.data.DataLoader):
        with pytest.raises(error, match=message):
            loader_class(list(range(4)), **arguments)


def test_iterable_dataset_rejects_shuffle_and_samplers_like_pytorch():
    torch = require_torch()
    cases = [({"shuffle": True}, "expected unspecified shuffle option, but got shuffle=True"),
             ({"sampler": [0]}, "expected unspecified sampler option, but got sampler=\\[0\\]"),
             ({"batch_sampler": [[0]]}, r"expected unspecified batch_sampler option, but got batch_sampler=\[\[0\]\]")]
    for arguments, message in cases:
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: " + message):
            DataLoader(Stream(3), **arguments)
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: " + message):
            torch.utils.data.DataLoader(_torch_stream(torch, 3), **arguments)


def test_settings_that_define_the_batches_cannot_change_after_construction():
    torch = require_torch()
    for loader in (DataLoader(list(range(4))), torch.utils.data.DataLoader(list(range(4)))):
        for name in ("batch_size", "sampler", "batch_sampler", "drop_last", "dataset", "persistent_workers"):
            with pytest.raises(ValueError, match=f"{name} attribute should not be set after DataLoader is initialized"):
                setattr(loader, name, None)
        loader.num_workers = 0  # other settings may change, as in PyTorch


def test_defaults_match_pytorch():
    torch = require_torch()
    ours, theirs = DataLoader(list(range(4))), torch.utils.data.DataLoader(list(range(4)))
    for name in ("batch_size", "num_workers", "pin_memory", "drop_last", "timeout", "prefetch_factor",
                 "persistent_workers", "in_order", "worker_init_fn", "generator", "multiprocessing_context"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert type(ours.sampler).__name__ == type(theirs.sampler).__name__ == "SequentialSampler"
    assert type(ours.batch_sampler).__name__ == "BatchSampler"
    assert DataLoader(list(range(4)), num_workers=2).prefetch_factor == 2


def test_timeout_needs_workers():
    with pytest.raises(AssertionError, match="timeout"):
        iter(DataLoader(list(range(4)), timeout=1))


def test_pin_memory_is_accepted_and_moves_nothing():
    loader = DataLoader(TensorDataset(minitorch.arange(6.0)), batch_size=2, pin_memory=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batches = list(loader)
    if not minitorch.cuda.is_available():
        assert any("'pin_memory' argument is set as true but no accelerator is found" in str(w.message) for w in caught)
    assert all(batch.device == minitorch.device("cpu") for (batch,) in batches)
    assert [batch.tolist() for (batch,) in batches] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]


def test_more_workers_than_cores_warns_like_pytorch():
    with pytest.warns(UserWarning, match="This DataLoader will create 1000 worker processes in total"):
        DataLoader(list(range(4)), num_workers=1000)


def test_dataset_with_getitems_gets_whole_batches():
    class Batched:
        calls = []

        def __len__(self):
            return 6

        def __getitem__(self, index):
            raise AssertionError("the loader should ask for whole batches")

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [index * 2 for index in indices]

    dataset = Batched()
    assert [batch.tolist() for batch in DataLoader(dataset, batch_size=4)] == [[0, 2, 4, 6], [8, 10]]
    assert dataset.calls == [[0, 1, 2, 3], [4, 5]]


def test_a_loader_wrapped_in_tqdm_shows_progress_with_its_total():
    from tqdm.auto import tqdm

    output = io.StringIO()
    loader = DataLoader(list(range(10)), batch_size=3)
    seen = [batch.tolist() for batch in tqdm(loader, file=output, mininterval=0, ascii=True)]
    assert seen == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert "4/4" in output.getvalue()


def test_sharded_range_without_workers_gives_everything():
    assert [batch.tolist() for batch in DataLoader(MinitorchShardedRange(3, 7))] == [[3], [4], [5], [6]]


def test_numpy_features_keep_their_dtype():
    samples = [(np.ones(2, dtype=np.float32), 1), (np.zeros(2, dtype=np.float32), 0)]
    features, labels = next(iter(DataLoader(samples, batch_size=2)))
    assert features.dtype == minitorch.float32 and labels.dtype == minitorch.int64
