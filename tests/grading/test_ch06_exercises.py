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
from tests.grading.withheld_support import run_with_withheld, withheld_names_missing


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


# -- build it: a mini DataLoader ----------------------------------------------------------------------------
# Each wrong loader differs from the reference (the notebook's solution) in one thing a learner plausibly gets
# wrong; the check must fail and name the case or output that shows it.
from tests.grading.chapter_notebooks import solutions  # noqa: E402

SOLUTIONS = solutions("06_data")
collate_samples = SOLUTIONS["collate_samples"]


def _report_with(mini_loader):
    names = dict(SOLUTIONS, mini_loader=mini_loader)
    return lambda *case: names["loader_report"](
        mini_loader(names["RowsWithLabels"](*case[:3]), case[3], case[4], case[5],
                    minitorch.Generator().manual_seed(case[6]))
    )


def _loader(*, base_seed=True, own_generator=True, drop=lambda chosen, size, drop_last: drop_last and chosen < size,
            collate=None):
    collate = collate or collate_samples

    def mini_loader(dataset, batch_size, shuffle, drop_last, generator):
        if base_seed:
            minitorch.empty((), dtype=minitorch.int64).random_(generator=generator)
        if shuffle:
            order = minitorch.randperm(len(dataset), generator=generator if own_generator else None).tolist()
        else:
            order = list(range(len(dataset)))
        for start in range(0, len(order), batch_size):
            chosen = order[start:start + batch_size]
            if drop(len(chosen), batch_size, drop_last):
                break
            yield collate([dataset[index] for index in chosen])

    return mini_loader


def _collate_floats_as_float32(samples):
    first = samples[0]
    if isinstance(first, float):
        return minitorch.tensor(samples)  # float32, where default_collate makes float64
    if isinstance(first, dict):
        return {key: _collate_floats_as_float32([sample[key] for sample in samples]) for key in first}
    if isinstance(first, (tuple, list)):
        return [_collate_floats_as_float32(list(column)) for column in zip(*samples)]
    return collate_samples(samples)


def _collate_not_into_dicts(samples):
    first = samples[0]
    if isinstance(first, (tuple, list)):
        columns = list(zip(*samples))
        return [minitorch.stack(list(columns[0])), list(columns[1])]  # the dicts stay a list of dicts
    return collate_samples(samples)


def _loader_with_a_sampler_and_batch_sampler(dataset, batch_size, shuffle, drop_last, generator):
    """Correct, written differently: an index sampler and a batch sampler of its own (generators), and a
    recursive collate by type. (minitorch's samplers are withheld while this exercise is graded, in the
    check as in the grader.)"""

    def sampler():
        size = len(dataset)
        yield from (minitorch.randperm(size, generator=generator).tolist() if shuffle else range(size))

    def batches(indices):
        batch = []
        for index in indices:
            batch.append(index)
            if len(batch) == batch_size:
                yield batch
                batch = []
        if batch and not drop_last:
            yield batch

    minitorch.empty((), dtype=minitorch.int64).random_(generator=generator)

    def collate(samples):
        first = samples[0]
        if isinstance(first, minitorch.Tensor):
            return minitorch.stack(samples, dim=0)
        if isinstance(first, (int, float)):
            return minitorch.tensor(samples, dtype=minitorch.float64 if isinstance(first, float) else minitorch.int64)
        if isinstance(first, dict):
            return {key: collate([sample[key] for sample in samples]) for key in first}
        return [collate([sample[position] for sample in samples]) for position in range(len(first))]

    for indices in batches(sampler()):
        yield collate([dataset[index] for index in indices])


def test_the_librarys_samplers_are_refused_by_the_check(capsys):
    """The instant check withholds what the grader withholds: the library's samplers give no green."""

    def with_the_librarys_samplers(dataset, batch_size, shuffle, drop_last, generator):
        from minitorch.utils.data import BatchSampler, RandomSampler, SequentialSampler

        minitorch.empty((), dtype=minitorch.int64).random_(generator=generator)
        sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        for indices in BatchSampler(sampler, batch_size, drop_last):
            yield minitorch.utils.data.default_collate([dataset[index] for index in indices])

    with pytest.raises(AssertionError):
        check("ch06.mini_loader", _report_with(with_the_librarys_samplers))
    assert "calls minitorch's own minitorch.utils.data." in capsys.readouterr().out


WRONG_LOADERS = {
    "no base-seed draw before the permutation": (
        _loader(base_seed=False), "the DataLoader draws one number (the workers' base seed)"),
    "shuffles with the default generator": (
        _loader(own_generator=False), "public case 3 of 4 (shuffle=True with a seeded generator"),
    "ignores drop_last": (
        _loader(drop=lambda chosen, size, drop_last: False), "drop_last=True: the short last batch is dropped"),
    "always drops the short batch": (
        _loader(drop=lambda chosen, size, drop_last: chosen < size), "the last batch holds the 2 left over"),
    "floats collated as float32": (
        _loader(collate=_collate_floats_as_float32), "output 4 (weights, batch after batch)"),
    "collate does not recurse into dicts": (
        _loader(collate=_collate_not_into_dicts),
        "is a list whose second part is a list; a batch has the structure of a sample"),
}


@pytest.mark.parametrize("mistake", sorted(WRONG_LOADERS))
def test_mini_loader_mistakes_fail_naming_the_problem(mistake, capsys):
    loader, says = WRONG_LOADERS[mistake]
    with pytest.raises(AssertionError):
        check("ch06.mini_loader", _report_with(loader))
    out = capsys.readouterr().out
    assert "FAILED" in out and says in out, out


def test_mini_loader_written_differently_passes(capsys):
    check("ch06.mini_loader", _report_with(_loader_with_a_sampler_and_batch_sampler))
    assert "all 4 public cases pass" in capsys.readouterr().out


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("length", [10, 11, 3])
def test_the_notebooks_mini_loader_gives_the_dataloaders_batches(shuffle, drop_last, length):
    features = minitorch.randn(length, 2)
    labels = minitorch.arange(length)
    dataset = TensorDataset(features, labels)
    mine = list(SOLUTIONS["mini_loader"](dataset, 4, shuffle, drop_last, minitorch.Generator().manual_seed(5)))
    theirs = list(DataLoader(dataset, batch_size=4, shuffle=shuffle, drop_last=drop_last,
                             generator=minitorch.Generator().manual_seed(5)))
    assert len(mine) == len(theirs)
    for (my_x, my_y), (x, y) in zip(mine, theirs):
        assert minitorch.equal(my_x, x) and minitorch.equal(my_y, y)


# -- the withheld pieces: the grader switches minitorch's loader off while mini_loader_batches is graded -----------
def test_every_withheld_piece_exists():
    assert withheld_names_missing("ch06") == []


def test_the_solution_passes_and_a_shortcut_raises_with_the_loader_withheld():
    cheat = (
        "def cheat(features, labels, weights, batch_size, shuffle, drop_last, seed):\n"
        "    data = minitorch.utils.data\n"
        "    dataset = data.TensorDataset(features, labels, weights)\n"
        "    generator = minitorch.Generator().manual_seed(seed)\n"
        "    return list(data.DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,\n"
        "                                generator=generator))"
    )
    assert "is not available while this exercise is graded" in run_with_withheld("ch06.mini_loader", "06_data", cheat)
