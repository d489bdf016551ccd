"""Chapter 6: data (Dataset, DataLoader, batching and collation, samplers, splits, transforms, worker processes)."""

from author import code, md, solution, tests, write

DATASETS_MODULE = '''
%%writefile chapter06_datasets.py
"""Datasets for chapter 6's worker-process demos (written by the notebook next to itself).

They live in a module, not in a notebook cell, so that DataLoader workers started with the "spawn"
start method (a fresh Python process) can import them: see section 6 of the chapter.
"""

import time

import numpy as np

import minitorch
from minitorch.utils.data import Dataset, get_worker_info


class SlowReads(Dataset):
    """Digits that take ``seconds`` to read each, standing in for files on a disk or a network share: the
    time is spent waiting (``time.sleep``), not computing, as a process does while the disk fetches a file."""

    def __init__(self, images, labels, seconds=0.004):
        self.images = np.asarray(images, dtype=np.float32)
        self.labels = np.asarray(labels)
        self.seconds = seconds

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        time.sleep(self.seconds)                     # waiting for the "disk": no CPU used
        return minitorch.from_numpy(self.images[index].reshape(-1)), int(self.labels[index])


class DigitImages(Dataset):
    """uint8 images (N, H, W) and their labels; ``transform`` prepares each image as it is loaded."""

    def __init__(self, images, labels, transform=None):
        self.images = np.asarray(images)
        self.labels = np.asarray(labels)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        image = self.images[index]
        if self.transform is not None:
            image = self.transform(image)
        return image, int(self.labels[index])


class WhoLoadedMe(Dataset):
    """Each sample tells which worker loaded it and draws two random numbers: one from NumPy's global
    generator, one from the dataset's own generator ``self.rng``."""

    def __init__(self, size):
        self.size = size
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        info = get_worker_info()                     # None in the main process
        worker = -1 if info is None else info.id
        return index, worker, np.random.random(), self.rng.random()


def reseed_dataset_generator(worker_id):
    """A worker_init_fn: give this worker's copy of the dataset a generator of its own."""
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)
'''

cells = [
    md(r"""
    # 6. Data: `Dataset`, `DataLoader` and worker processes

    A model trains on mini-batches. Somebody has to cut the data into batches, shuffle it every epoch, prepare each
    sample (decode it, augment it, normalise it) and stack the samples into tensors, ideally without making the model
    wait. In PyTorch (and in minitorch, with the same names) that somebody is `torch.utils.data`.

    By the end of this chapter you will be able to:

    * write a `Dataset` (two methods) and use `TensorDataset`;
    * batch it with a `DataLoader`, and say what automatic batching and `default_collate` do with each sample;
    * shuffle reproducibly with `shuffle=True` and a `generator`, and use the samplers (`RandomSampler`,
      `BatchSampler`) directly;
    * split data into training and validation sets with `random_split`;
    * prepare samples with `minitorch.vision.transforms` inside a dataset;
    * load batches in parallel worker processes (`num_workers`), measure what that saves in time and in memory, and
      know what a dataset needs to work with workers on every operating system;
    * build a `DataLoader` with worker processes the way PyTorch's is built (index and result queues, batches in
      order, a seed per worker, a worker's error raised where you can see it, no process left behind), and use it
      as a piece of your own minitorch;
    * show a progress bar over a training loop with `tqdm`.

    The code is in `minitorch/utils/data/`: `dataset.py`, `sampler.py`, `collate.py`, `dataloader.py` and
    `_worker.py` (what runs inside a worker). Each file is short and has PyTorch's names.
    """),
    code("""
    import os
    import time

    import matplotlib.pyplot as plt
    import numpy as np
    from sklearn.datasets import load_digits

    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)
    from minitorch.utils.data import (
        BatchSampler,
        DataLoader,
        Dataset,
        RandomSampler,
        SequentialSampler,
        Subset,
        TensorDataset,
        default_collate,
        random_split,
    )
    from minitorch.vision import transforms

    generator = minitorch.manual_seed(0)   # the same random numbers on every run
    """),
    md(r"""
    ## 1. A `Dataset` is two methods

    A **map-style dataset** is anything with `__len__` (how many samples) and `__getitem__(index)` (sample number
    `index`). Subclassing `minitorch.utils.data.Dataset` documents the intent (and gives `+` to concatenate two
    datasets); the `DataLoader` only ever calls those two methods. A sample can be anything: a tensor, a tuple
    `(input, label)`, a dict.
    """),
    code("""
    class Squares(Dataset):
        \"\"\"Sample i is the pair (i, i**2), computed when asked for: nothing is stored.\"\"\"

        def __init__(self, size):
            self.size = size

        def __len__(self):
            return self.size

        def __getitem__(self, index):
            if not 0 <= index < self.size:
                raise IndexError(index)
            return minitorch.tensor([float(index)]), index ** 2


    squares = Squares(5)
    print("len:", len(squares))
    print("squares[3]:", squares[3])
    """),
    md(r"""
    Most data in this course is already in memory as tensors. **`TensorDataset(*tensors)`** wraps tensors with the
    same first dimension; sample `i` is the tuple of their `i`-th rows. Here: scikit-learn's handwritten digits
    (bundled, nothing to download), 1,797 images of 8×8 pixels as vectors of 64 numbers in $[0, 1]$, and their labels.
    """),
    code("""
    digits = load_digits()
    features = minitorch.tensor(digits.data / 16.0, dtype=minitorch.float32)   # (1797, 64)
    labels = minitorch.tensor(digits.target)                                     # (1797,) int64
    digit_set = TensorDataset(features, labels)

    x, y = digit_set[0]
    print(len(digit_set), "samples; sample 0:", tuple(x.shape), x.dtype, "label", y)
    """),
    md(r"""
    ## 2. `DataLoader`: automatic batching

    `DataLoader(dataset, batch_size=64)` is an iterable over **batches**: each time you loop over it, you get the whole
    dataset once (an *epoch*), 64 samples at a time, already stacked into tensors. `len(loader)` is the number of
    batches; the last one is smaller unless you ask for `drop_last=True`.
    """),
    code("""
    loader = DataLoader(digit_set, batch_size=64)
    print("batches per epoch:", len(loader), "=", f"ceil({len(digit_set)} / 64)")
    for batch_number, (images, targets) in enumerate(loader):
        if batch_number < 2 or batch_number == len(loader) - 1:
            print(f"batch {batch_number:2d}: images {tuple(images.shape)}, targets {tuple(targets.shape)}")

    print("with drop_last=True:", [len(t) for _, t in DataLoader(digit_set, batch_size=64, drop_last=True)][-3:])
    """),
    md(r"""
    What happens for one batch is three steps, and you can do them by hand:

    1. the **batch sampler** says *which* indices form the batch (`[0, 1, ..., 63]` here);
    2. the **dataset** returns one sample per index: a list of 64 pairs `(image, label)`;
    3. the **collate function** turns that list into the batch: `default_collate` stacks the images into one
       `(64, 64)` tensor and the labels into one `(64,)` tensor.
    """),
    code("""
    indices = next(iter(loader.batch_sampler))               # 1. which samples
    samples = [digit_set[i] for i in indices]                 # 2. a list of (image, label) pairs
    batch = default_collate(samples)                          # 3. stacked
    print("indices:", indices[:5], "...", indices[-1])
    print("a list of", len(samples), "samples; collated:", [tuple(part.shape) for part in batch])

    images, targets = next(iter(loader))
    print("same as the loader's first batch:", minitorch.equal(batch[0], images) and minitorch.equal(batch[1], targets))
    """),
    md(r"""
    `default_collate` (in `minitorch/utils/data/collate.py`) looks at the *structure* of the first sample and
    recurses into it. The rule is: tensors and NumPy arrays are stacked along a new first dimension, Python numbers
    become a 1-d tensor (`int` → int64, `float` → float64), strings stay a list, and containers are *transposed*: a
    list of `(a, b)` pairs becomes `[all a's, all b's]`, a list of dicts becomes a dict of batches.
    """),
    code("""
    print(default_collate([(minitorch.ones(2), 1), (minitorch.zeros(2), 0)]))
    print(default_collate([{"pixels": np.arange(3), "name": "left", "weight": 0.5},
                           {"pixels": np.arange(3) * 10, "name": "right", "weight": 2.0}]))
    """),
    md(r"""
    With `batch_size=None` automatic batching is off: the loader hands out samples one by one (NumPy arrays turned
    into tensors, nothing stacked). That is for datasets whose `__getitem__` already returns whole batches.

    ### Exercise 1: a collate function

    Write `collate(samples)`: `samples` is a list of pairs `(x, y)` where every `x` is a tensor of the same shape and
    every `y` is a Python `int`. Return the tuple `(xs, ys)`: `xs` stacks the `x`'s along a new first dimension
    (shape `(len(samples), *x.shape)`), `ys` is a 1-d `int64` tensor of the labels. Use `minitorch.stack` and
    `minitorch.tensor`, not `default_collate`.

    `load_batch` below it is given: it does what the `DataLoader` does for one batch (fetch the samples, call the
    collate function), and it is what the check calls.
    """),
    solution('''
    def collate(samples):
        """A list of (x, y) pairs -> (xs, ys): the x's stacked along a new first dimension, the y's as int64."""
        ### BEGIN SOLUTION
        xs = minitorch.stack([x for x, _ in samples])
        ys = minitorch.tensor([y for _, y in samples], dtype=minitorch.int64)
        return xs, ys
        ### END SOLUTION


    def load_batch(features, labels, indices):
        """Given: fetch samples (features[i], int(labels[i])) as a Dataset would, then collate them."""
        samples = [(features[i], int(labels[i])) for i in indices.tolist()]
        return collate(samples)
    ''', "ch06-collate"),
    tests("""
    check("ch06.load_batch", load_batch)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch06.load_batch", load_batch, [
        (randn(12, 4, seed=6101), np.arange(12, dtype=np.int64) % 3, np.array([11, 3, 3, 0], dtype=np.int64)),
        (randn(5, 3, 2, 2, seed=6102), np.array([4, 1, 0, 2, 9], dtype=np.int64), np.array([0, 1, 2, 3, 4])),
        (randn(3, 1, seed=6103), np.array([7, 8, 9], dtype=np.int64), np.array([1], dtype=np.int64)),
    ])
    ### END HIDDEN TESTS
    """, "ch06-collate-tests", points=2),
    md(r"""
    Your function can be the loader's collate function: `DataLoader(digit_set, batch_size=64, collate_fn=collate)`.
    A custom `collate_fn` is how you batch samples that `default_collate` cannot stack, for example sequences of
    different lengths, which must be padded to the longest one in the batch:
    """),
    code("""
    sentences = [minitorch.arange(1, n + 1) for n in (3, 5, 2, 4)]          # token ids, lengths 3, 5, 2, 4
    try:
        default_collate(sentences)
    except RuntimeError as error:
        print("default_collate:", error)


    def pad_collate(batch):
        longest = max(len(sequence) for sequence in batch)
        padded = minitorch.zeros(len(batch), longest, dtype=batch[0].dtype)    # 0 is the padding token
        for row, sequence in enumerate(batch):
            padded[row, :len(sequence)] = sequence
        return padded, minitorch.tensor([len(sequence) for sequence in batch])


    for tokens, lengths in DataLoader(sentences, batch_size=2, collate_fn=pad_collate):
        print(tokens.tolist(), "lengths", lengths.tolist())
    """),
    md(r"""
    (A plain Python list works as a dataset too: it has `__len__` and `__getitem__`.)

    ## 3. Order: shuffling and samplers

    Training on the samples in the same order every epoch lets the model learn the order (here: the digits are
    stored in a repeating 0, 1, 2, ... pattern). `shuffle=True` draws a new random order at the start of every epoch.
    """),
    code("""
    shuffled = DataLoader(digit_set, batch_size=8, shuffle=True)
    print("in order:        ", next(iter(DataLoader(digit_set, batch_size=8)))[1].tolist())
    for epoch in range(3):
        print(f"shuffled epoch {epoch}:", next(iter(shuffled))[1].tolist())
    """),
    md(r"""
    The order comes from minitorch's random generator, so `minitorch.manual_seed` fixes it for a whole program. To
    make *one loader* reproducible on its own, whatever else draws random numbers, give it its own
    **`generator`**: two loaders with generators seeded alike produce the same epochs.
    """),
    code("""
    def first_labels(loader):
        return next(iter(loader))[1].tolist()

    one = DataLoader(digit_set, batch_size=8, shuffle=True, generator=minitorch.Generator().manual_seed(42))
    two = DataLoader(digit_set, batch_size=8, shuffle=True, generator=minitorch.Generator().manual_seed(42))
    minitorch.randn(1000)                    # other random draws in between do not matter
    print(first_labels(one))
    print(first_labels(two))
    """),
    md(r"""
    `shuffle=True` is a shortcut. Inside, the loader builds two objects from `minitorch/utils/data/sampler.py`:

    * a **sampler**, an iterable of indices: `SequentialSampler` (0, 1, 2, ...) or `RandomSampler` (a permutation,
      new every time it is iterated);
    * a **`BatchSampler`** that groups the sampler's indices into lists of `batch_size`, dropping the last short
      list when `drop_last=True`.

    You can build them yourself and pass `sampler=` or `batch_sampler=` to the `DataLoader` (for example a
    `WeightedRandomSampler` that draws rare classes more often).
    """),
    code("""
    sampler = RandomSampler(range(10), generator=minitorch.Generator().manual_seed(0))
    print("RandomSampler:          ", list(sampler))
    print("BatchSampler(3):        ", list(BatchSampler(sampler, batch_size=3, drop_last=False)))
    print("BatchSampler(3, drop):  ", list(BatchSampler(sampler, batch_size=3, drop_last=True)))
    print("SequentialSampler, 4:   ", list(BatchSampler(SequentialSampler(range(10)), batch_size=4, drop_last=False)))

    loader = DataLoader(digit_set, batch_sampler=BatchSampler(RandomSampler(digit_set), batch_size=100, drop_last=True))
    print("a loader from a batch sampler:", len(loader), "batches of", len(next(iter(loader))[1]))
    """),
    md(r"""
    ### Exercise 2: a batch sampler, as a generator

    Write the generator `batch_indices(num_samples, batch_size, drop_last)`: it yields lists of consecutive indices,
    `[0, 1, ..., batch_size - 1]`, then the next `batch_size`, and so on, what `BatchSampler(SequentialSampler(...))`
    yields. The last list may be shorter; yield it only if `drop_last` is `False` (and never yield an empty list).
    Use `yield` (a function that yields is a generator: it runs a bit each time the loop asks for the next item).

    `batches_as_tensors` is given: it turns the lists into tensors for the check.
    """),
    solution('''
    def batch_indices(num_samples, batch_size, drop_last):
        """Yield lists of batch_size consecutive indices 0, 1, 2, ... (the last, shorter one unless drop_last)."""
        ### BEGIN SOLUTION
        batch = []
        for index in range(num_samples):
            batch.append(index)
            if len(batch) == batch_size:
                yield batch
                batch = []
        if batch and not drop_last:
            yield batch
        ### END SOLUTION


    def batches_as_tensors(num_samples, batch_size, drop_last):
        """Given: the batches of batch_indices as a list of int64 tensors."""
        batches = batch_indices(num_samples, batch_size, drop_last)
        return [minitorch.tensor(batch, dtype=minitorch.int64) for batch in batches]
    ''', "ch06-batch-indices"),
    tests("""
    check("ch06.batch_indices", batches_as_tensors)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch06.batch_indices", batches_as_tensors, [
        (17, 5, False), (17, 5, True), (12, 12, False), (12, 1, True), (3, 4, False), (9, 2, False),
    ])
    ### END HIDDEN TESTS
    """, "ch06-batch-indices-tests", points=2),
    md(r"""
    ### Exercise 3: build it, a mini `DataLoader`

    You now know every piece of a `DataLoader` without workers. Put them together in `mini_loader(dataset, batch_size,
    shuffle, drop_last, generator)`, a generator function that yields the batches of one epoch, **the same batches
    as `DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last, generator=generator)`**:

    * **the sampler**: the indices `0, 1, 2, ...` in order, or with `shuffle=True` a permutation drawn from
      `generator`. One detail decides whether your order matches: at the start of every epoch the `DataLoader`
      draws one number from its generator (the *base seed* that worker processes get, section 6), and only then
      the permutation. Draw it too, whether or not you shuffle: `minitorch.empty((), dtype=minitorch.int64)
      .random_(generator=generator)`;
    * **batching**: lists of `batch_size` indices in the sampler's order; the last, shorter list only if
      `drop_last` is `False` (your `batch_indices` of exercise 2 over the sampler's order does it);
    * **`collate_samples(samples)`**: a list of samples becomes one batch with the *structure* of a sample,
      recursively, as `default_collate` does: tensors are stacked along a new first dimension, Python `int`s become
      an `int64` tensor and `float`s a `float64` tensor, a dict becomes a dict with each key collated, a tuple or
      list becomes a list with each position collated.

    Here a sample is `(features, {"label": an int, "weight": a float})`, so a batch is `[features of the batch,
    {"label": ..., "weight": ...}]`. `RowsWithLabels` and `mini_loader_batches` are given: the check builds the
    dataset from its arrays, runs one epoch of your loader with `generator=minitorch.Generator().manual_seed(seed)`,
    and compares the batches with the `DataLoader`'s. `hint("ch06.mini_loader")` gives hints step by step.
    """),
    solution('''
    def collate_samples(samples):
        """A list of samples -> one batch of the same structure (default_collate's rules)."""
        ### BEGIN SOLUTION
        first = samples[0]
        if isinstance(first, minitorch.Tensor):
            return minitorch.stack(samples)
        if isinstance(first, int):
            return minitorch.tensor(samples, dtype=minitorch.int64)
        if isinstance(first, float):
            return minitorch.tensor(samples, dtype=minitorch.float64)
        if isinstance(first, dict):
            return {key: collate_samples([sample[key] for sample in samples]) for key in first}
        return [collate_samples(list(column)) for column in zip(*samples)]
        ### END SOLUTION


    def mini_loader(dataset, batch_size, shuffle, drop_last, generator):
        """Yield the batches of one epoch, as DataLoader(dataset, batch_size, shuffle, drop_last, generator) does."""
        ### BEGIN SOLUTION
        minitorch.empty((), dtype=minitorch.int64).random_(generator=generator)   # the workers' base seed
        if shuffle:
            order = minitorch.randperm(len(dataset), generator=generator).tolist()
        else:
            order = list(range(len(dataset)))
        for start in range(0, len(order), batch_size):
            chosen = order[start:start + batch_size]
            if len(chosen) < batch_size and drop_last:
                break
            yield collate_samples([dataset[index] for index in chosen])
        ### END SOLUTION


    # Given: the dataset and the report the check compares (the same as the reference's, with minitorch's DataLoader).
    from collections.abc import Mapping  # noqa: E402 (given code, after the learner's functions)

    from minitorch.utils.data import Dataset  # noqa: E402


    class RowsWithLabels(Dataset):
        """Sample i: (features[i], {"label": int(labels[i]), "weight": float(weights[i])})."""

        def __init__(self, features, labels, weights):
            self.features, self.labels, self.weights = features, labels, weights

        def __len__(self):
            return len(self.labels)

        def __getitem__(self, index):
            return self.features[index], {"label": int(self.labels[index]), "weight": float(self.weights[index])}


    def loader_report(batches):
        """(batch sizes, features, labels, weights): each field concatenated over the batches, in order."""
        sizes, fields = [], {"features": [], "label": [], "weight": []}
        for number, batch in enumerate(batches):
            if not (isinstance(batch, (tuple, list)) and len(batch) == 2 and isinstance(batch[1], Mapping)):
                kind = type(batch).__name__
                if isinstance(batch, (tuple, list)) and len(batch) == 2:
                    kind += f" whose second part is a {type(batch[1]).__name__}"
                raise TypeError(f"batch {number} is a {kind}; a batch has the structure of a sample, "
                                "(features, {'label': ..., 'weight': ...}): the dicts collated key by key")
            features, rest = batch
            sizes.append(len(features))
            fields["features"].append(features)
            fields["label"].append(rest["label"])
            fields["weight"].append(rest["weight"])
        if not sizes:
            return (np.zeros(0, dtype=np.int64),)
        return (np.array(sizes, dtype=np.int64), *(minitorch.cat(parts) for parts in fields.values()))


    def mini_loader_batches(features, labels, weights, batch_size, shuffle, drop_last, seed):
        """One epoch of your mini_loader over RowsWithLabels, with a generator seeded with seed, as a report."""
        generator = minitorch.Generator().manual_seed(seed)
        return loader_report(mini_loader(RowsWithLabels(features, labels, weights), batch_size, shuffle, drop_last,
                                         generator))
    ''', "ch06-mini-loader"),
    tests("""
    check("ch06.mini_loader", mini_loader_batches)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch06.mini_loader", mini_loader_batches, [
        (randn(7, 3, seed=6600), np.random.default_rng(6601).permutation(7), randn(7, seed=6602, dtype="float64"),
         3, True, False, 11),
        (randn(7, 3, seed=6603), np.random.default_rng(6604).permutation(7), randn(7, seed=6605, dtype="float64"),
         3, True, True, 12),
        (randn(6, 1, 2, seed=6606), np.random.default_rng(6607).permutation(6), randn(6, seed=6608, dtype="float64"),
         2, False, True, 0),
        (randn(5, 4, seed=6609), np.random.default_rng(6610).permutation(5), randn(5, seed=6611, dtype="float64"),
         8, True, False, 5),
        (randn(13, 2, seed=6612), np.random.default_rng(6613).permutation(13), randn(13, seed=6614, dtype="float64"),
         1, True, False, 99),
    ])
    ### END HIDDEN TESTS
    """, "ch06-mini-loader-tests", points=3),
    code("""
    # Your loader against minitorch's on the digits, shuffled, for two seeds.
    try:
        for seed in (0, 1):
            mine = list(mini_loader(digit_set, 256, True, False, minitorch.Generator().manual_seed(seed)))
            theirs = list(DataLoader(digit_set, batch_size=256, shuffle=True,
                                     generator=minitorch.Generator().manual_seed(seed)))
            same = len(mine) == len(theirs) and all(minitorch.equal(a[1], b[1]) for a, b in zip(mine, theirs))
            print(f"seed {seed}: {len(mine)} batches, the same labels in the same order as DataLoader's: {same}")
    except NotImplementedError:
        print("mini_loader is not written yet: finish exercise 3, then run this cell again.")
    """),
    md(r"""
    ## 4. Training and validation data: `random_split`

    A model's score only means something on data it did not train on. **`random_split(dataset, lengths,
    generator=...)`** shuffles the indices once and cuts them into pieces of the given lengths (or fractions that sum
    to 1), returning `Subset`s: views that keep the original dataset and a list of indices, so nothing is copied. Fix
    the generator's seed, or the split (and every score) changes from run to run, and a sample seen in training one
    run lands in validation the next.
    """),
    code("""
    train_part, validation_part = random_split(digit_set, [0.8, 0.2], generator=minitorch.Generator().manual_seed(0))
    print(type(train_part).__name__, len(train_part), "+", len(validation_part), "=", len(digit_set))
    print("first validation indices:", validation_part.indices[:8])
    print("overlap:", set(train_part.indices) & set(validation_part.indices))
    """),
    md(r"""
    ### Exercise 4: a split by a seeded permutation

    Write `train_val_split(num_samples, val_fraction, seed)` returning two `int64` tensors `(train_indices,
    val_indices)`, the way `random_split` does it:

    1. `num_val = int(num_samples * val_fraction)` (rounded down), `num_train = num_samples - num_val`;
    2. a permutation of `range(num_samples)` from a generator seeded with `seed`:
       `minitorch.randperm(num_samples, generator=minitorch.Generator().manual_seed(seed))`;
    3. the first `num_train` entries of the permutation are the training indices, the rest the validation indices.
    """),
    solution('''
    def train_val_split(num_samples, val_fraction, seed):
        """(train_indices, val_indices): a seeded permutation of range(num_samples), cut after num_train entries."""
        ### BEGIN SOLUTION
        num_val = int(num_samples * val_fraction)
        num_train = num_samples - num_val
        permutation = minitorch.randperm(num_samples, generator=minitorch.Generator().manual_seed(seed))
        return permutation[:num_train], permutation[num_train:]
        ### END SOLUTION
    ''', "ch06-train-val-split"),
    tests("""
    check("ch06.train_val_split", train_val_split)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch06.train_val_split", train_val_split, [
        (100, 0.25, 3), (13, 0.3, 7), (50, 0.1, 0), (2, 0.5, 11),
    ])
    ### END HIDDEN TESTS
    """, "ch06-train-val-split-tests", points=2),
    md(r"""
    ## 5. Transforms: preparing each sample as it is loaded

    Raw data is rarely what a model wants: images come as `uint8` pixels, the model wants float tensors with a mean
    near 0. And for training, *augmenting* each image (a small random shift or rotation, new every epoch) makes the
    model robust to them. A **transform** is a callable applied to each sample in `__getitem__`, so the work happens
    as samples are loaded, and a random transform gives a different variant every time.

    `minitorch.vision.transforms` has torchvision's: `ToTensor` (`uint8` `(H, W)` or `(H, W, C)` → float
    `(C, H, W)` in $[0, 1]$), `Resize`, `RandomAffine`, `RandomCrop`, `Normalize` ($(x - \text{mean}) / \text{std}$ per
    channel), and `Compose` to chain them. A dataset that takes a `transform` argument:
    """),
    code("""
    class DigitImages(Dataset):
        \"\"\"uint8 images (N, H, W) and their labels; `transform` prepares each image as it is loaded.\"\"\"

        def __init__(self, images, labels, transform=None):
            self.images = np.asarray(images)
            self.labels = np.asarray(labels)
            self.transform = transform

        def __len__(self):
            return len(self.labels)

        def __getitem__(self, index):
            image = self.images[index]
            if self.transform is not None:
                image = self.transform(image)
            return image, int(self.labels[index])


    digit_pixels = np.rint(digits.images * (255 / 16)).astype(np.uint8)       # (1797, 8, 8), like a real image file
    augment = transforms.Compose([
        transforms.ToTensor(),                                                 # uint8 (8, 8) -> float (1, 8, 8)
        transforms.Resize(16),                                                 # -> (1, 16, 16)
        transforms.RandomAffine(degrees=15, translate=(0.1, 0.1)),             # a new small rotation and shift
        transforms.Normalize((0.5,), (0.5,)),                                  # [0, 1] -> [-1, 1]
    ])
    augmented = DigitImages(digit_pixels, digits.target, transform=augment)
    print(augment)

    figure, axes = plt.subplots(1, 8, figsize=(10, 1.6))
    for axis in axes:
        image, label = augmented[0]                                            # the same sample, asked 8 times
        axis.imshow(image[0].numpy(), cmap="gray_r")
        axis.axis("off")
    figure.suptitle(f"sample 0 (a {label}), loaded 8 times")
    plt.show()
    """),
    md(r"""
    The random transforms draw from minitorch's default generator (`minitorch.manual_seed` repeats them). Their code
    is in `minitorch/vision/transforms/transforms.py` (the classes) and `functional.py` (the image operations).

    `Normalize((0.5,), (0.5,))` uses fixed numbers. For features that are not pixels, the usual choice is to
    **standardise** each feature with the mean and standard deviation of the *training* set: computing them on the
    validation or test data would leak information about it into training.

    ### Exercise 5: a standardising transform

    Write `standardize(features, train_features)`: both are `(N, D)` float tensors. Compute, per column, the mean and
    the standard deviation of `train_features` (`std(dim=0, correction=0)`: divide by $N$), replace a standard
    deviation of 0 (a pixel that is blank in every image) by 1 so nothing is divided by 0, and return
    `(features - mean) / std`.
    """),
    solution('''
    def standardize(features, train_features):
        """(features - mean) / std, per column, with the mean and std of train_features (std 0 -> 1)."""
        ### BEGIN SOLUTION
        mean = train_features.mean(dim=0)
        std = train_features.std(dim=0, correction=0)
        std = minitorch.where(std > 0, std, minitorch.ones_like(std))
        return (features - mean) / std
        ### END SOLUTION
    ''', "ch06-standardize"),
    tests("""
    check("ch06.standardize", standardize)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch06.standardize", standardize, [
        (randn(6, 4, seed=6401), randn(25, 4, seed=6402, scale=3.0) + np.float32(1.0)),
        (randn(3, 5, seed=6403), np.tile(randn(1, 5, seed=6404), (10, 1))),
        (randn(2, 64, seed=6405), np.abs(randn(40, 64, seed=6406))),
    ])
    ### END HIDDEN TESTS
    """, "ch06-standardize-tests", points=2),
    code("""
    train_features = features[minitorch.tensor(train_part.indices)]
    print("pixels blank in every training image:", int((train_features.std(dim=0) == 0).sum()))
    try:
        standardized = standardize(features, train_features)
        print("training columns after standardising: mean", round(standardize(train_features, train_features)
              .mean().item(), 6), "| any NaN:", bool(minitorch.isnan(standardized).any()))
    except NotImplementedError:
        print("standardize is not written yet: finish exercise 5, then run this cell again.")
    """),
    md(r"""
    ## 6. Worker processes: loading while the model computes

    With `num_workers=0` (the default) the main process does everything in turn: load a batch, train on it, load the
    next one, train on it... While it loads, the model waits; while it trains, nothing loads.

    With **`num_workers=N`** the `DataLoader` starts N **worker processes**. Each one gets a copy of the dataset, and
    the main process hands them batches of indices to fetch and collate; it keeps `prefetch_factor × N` batches (2 × N
    by default) in flight and delivers them in the sampler's order, so the batches are exactly those of
    `num_workers=0`. Two things happen at once:

    * loading **overlaps** computing: while the main process trains on batch $k$, the workers prepare batches
      $k+1, k+2, \dots$;
    * several workers load **in parallel**, if there are free CPU cores to run them.

    They are processes, not threads: Python's threads share one interpreter lock, so only one of them runs Python
    code at a time; separate processes each have their own. The cost: starting the processes, a copy of the dataset
    in each, and pickling every batch to send it back to the main process.

    ### What a dataset needs to go to a worker

    How a worker gets its copy of the dataset depends on the operating system's **start method**:

    * `fork` (Linux, until Python 3.14): the worker is a copy of the main process, memory and all; a dataset class
      defined in a notebook cell just works;
    * `spawn` (macOS, Windows) and `forkserver` (Linux from Python 3.14): the worker is a *fresh* Python process. The
      dataset is pickled, and the worker rebuilds it by **importing its class by module name**. A class defined in a
      notebook cell lives in the module `__main__` of the notebook's kernel, which another process cannot import.

    So a dataset meant for workers should live in a `.py` file next to the notebook, imported from it. The next cell
    writes such a file (`%%writefile` is a notebook command that saves the cell's text as a file). It holds the
    `DigitImages` class from section 5, plus three things for the experiments below. Read the docstring of
    `minitorch/utils/data/dataloader.py` for the details.
    """),
    code(DATASETS_MODULE),
    code("""
    from chapter06_datasets import DigitImages, SlowReads, WhoLoadedMe, reseed_dataset_generator

    print("this kernel's start method:", __import__("multiprocessing").get_start_method())
    """),
    md(r"""
    What happens with a class defined in the notebook under `spawn` (the `Squares` class from section 1): the
    `DataLoader` notices before it starts any worker and says why.
    """),
    code("""
    try:
        next(iter(DataLoader(Squares(4), batch_size=2, num_workers=1, multiprocessing_context="spawn")))
    except RuntimeError as error:
        print("RuntimeError:", str(error)[:400], "...")
    """),
    md(r"""
    ### Measured: how much time workers save

    Workers pay off when loading makes the main process *wait*: for a disk, a network, a decoder. `SlowReads`
    stands for a dataset of files: each `__getitem__` waits 4 ms, as for a file read, and uses almost no CPU while
    it waits. Below, one epoch of 96 samples in batches of 8 with 0, 1, 2 and 4 workers: first only loading, then
    loading and training a small MLP on each batch. The workers are started once (`persistent_workers=True`) and
    the start-up is timed on its own. BLAS (the library under NumPy's matrix products) is held to one thread
    (`threadpool_limits`), so the training step does not compete with the workers for cores in ways that change
    from machine to machine.
    """),
    code("""
    import warnings

    from threadpoolctl import threadpool_limits

    read_set = SlowReads(digits.images[:96] / 16.0, digits.target[:96], seconds=0.004)

    minitorch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(64, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    optimizer = minitorch.optim.SGD(mlp.parameters(), lr=0.01)

    def training_step(images, targets):
        optimizer.zero_grad()
        F.cross_entropy(mlp(images), targets).backward()
        optimizer.step()

    def one_epoch(loader, train):
        started = time.perf_counter()
        for images, targets in loader:
            if train:
                training_step(images, targets)
        return time.perf_counter() - started

    worker_counts = [0, 1, 2, 4]
    timings = {}                                        # num_workers -> (first epoch, loading only, with training)
    with threadpool_limits(limits=1), warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        for n in worker_counts:
            loader = DataLoader(read_set, batch_size=8, num_workers=n, persistent_workers=n > 0)
            first = one_epoch(loader, train=False)      # includes starting the workers
            timings[n] = (first, one_epoch(loader, train=False), one_epoch(loader, train=True))
            del loader                                  # stops its workers
    for message in sorted({str(warning.message).split(". ")[0] for warning in warned}):
        print(f"(the DataLoader warned, as PyTorch's does: {message!r}; with reads that wait, measure anyway)")

    batches = len(read_set) // 8
    load_ms = timings[0][1] / batches * 1e3
    train_ms = (timings[0][2] - timings[0][1]) / batches * 1e3
    print(f"in the main process, per batch: loading {load_ms:.0f} ms (8 reads of 4 ms), training {train_ms:.0f} ms")
    print(f"{'':14}{'start-up':>10}{'loading':>10}{'speed-up':>10}{'load+train':>12}{'speed-up':>10}")
    for n, (first, load, both) in timings.items():
        print(f"num_workers={n}:{max(first - load, 0.0):9.2f}s{load:9.2f}s{timings[0][1] / load:9.1f}x"
              f"{both:11.2f}s{timings[0][2] / both:9.1f}x")
    print(f"load + train without workers is the sum of the two ({timings[0][2]:.2f} s); if loading and training "
          f"overlapped perfectly, an epoch would take the longer one: {max(load_ms, train_ms) * batches / 1e3:.2f} s")
    """),
    code("""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    busy = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    positions = np.arange(len(worker_counts))
    plt.bar(positions - 0.2, [timings[n][1] for n in worker_counts], width=0.4, label="loading only")
    plt.bar(positions + 0.2, [timings[n][2] for n in worker_counts], width=0.4, label="loading + training")
    plt.xticks(positions, [f"num_workers={n}" for n in worker_counts])
    plt.ylabel("seconds per epoch")
    plt.title(f"96 reads of 4 ms, batches of 8 ({cores} cores available{busy})")
    plt.legend()
    plt.show()
    """),
    md(r"""
    How to read it (your numbers depend on your machine and on what else runs on it):

    * **Loading only**: compare each row's speed-up with its number of workers. A worker spends its time waiting
      for its reads, and a waiting process needs no core, so several workers can wait at once: with reads like
      these, the speed-up can grow with the number of workers even beyond the number of cores. What limits it is
      the work each batch still needs in the main process (receiving it, unpickling it) and, for real files, the
      disk itself.
    * **Start-up**: the first column is what starting the workers cost, paid once per epoch unless
      `persistent_workers=True` keeps them.
    * **Loading + training**: without workers an epoch takes the *sum* of loading and training (the printout
      computes it, and what a perfect overlap would give). With workers, the main process trains on batch $k$
      while the workers read batches $k+1, k+2, \dots$: compare the `num_workers=1` time with the sum and with the
      longer of the two.
    * **A dataset that computes instead of waiting** (decoding, augmenting in NumPy) needs a core per busy
      process: there, more workers than idle cores buys nothing, and on a 2-core machine a worker competes with
      the training step itself. The rule of thumb: start with `num_workers` around the number of cores, more for
      slow storage, and measure. For data already in memory as tensors (like the `TensorDataset` of the digits),
      loading costs almost nothing, and workers only add overhead.

    ### Measured: how much memory streaming saves

    The other way to avoid waiting for data would be to prepare the whole dataset before training: transform every
    image once, keep them all. That needs memory for every prepared sample at once (and random augmentations would be
    frozen, the same every epoch). A `DataLoader` *streams* instead: at any moment only the batches being prepared or
    used exist. `tracemalloc` (Python's memory tracer; NumPy reports its arrays to it) measures the largest amount of
    memory in use during each approach, here with images resized to 32×32:
    """),
    code("""
    import tracemalloc

    prepare = transforms.Compose([transforms.ToTensor(), transforms.Resize(32), transforms.Normalize((0.5,), (0.5,))])
    prepared_set = DigitImages(digit_pixels[:600], digits.target[:600], transform=prepare)   # 600 of the images

    tracemalloc.start()
    everything = minitorch.stack([prepared_set[i][0] for i in range(len(prepared_set))])   # all prepared at once
    _, peak_all_at_once = tracemalloc.get_traced_memory()
    del everything
    tracemalloc.reset_peak()
    for _images, _targets in DataLoader(prepared_set, batch_size=64):                      # streamed
        pass
    _, peak_streamed = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    for _images, _targets in DataLoader(prepared_set, batch_size=64, num_workers=2):        # streamed by workers
        pass
    _, peak_workers = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    image = prepared_set[0][0]
    image_megabytes = image.numel() * image.element_size() / 1e6
    print(f"one prepared image {tuple(image.shape)}: {image_megabytes:6.3f} MB; a batch of 64: "
          f"{64 * image_megabytes:.2f} MB; all {len(prepared_set)}: {len(prepared_set) * image_megabytes:.1f} MB")
    print(f"everything prepared first:         {peak_all_at_once / 1e6:6.2f} MB at the peak")
    print(f"streamed, num_workers=0:           {peak_streamed / 1e6:6.2f} MB at the peak")
    print(f"streamed, num_workers=2 (main):    {peak_workers / 1e6:6.2f} MB at the peak")
    """),
    md(r"""
    Preparing everything first needs the whole prepared dataset in memory (twice, briefly: the list of samples and the
    stacked tensor), and it grows with the dataset. Streaming needs a few batches, however large the dataset. With
    workers, the main process holds at most `prefetch_factor × num_workers` batches waiting for it; each worker holds
    the batch it is preparing, plus its copy of the dataset object (under `fork` the copy shares the main process's
    memory pages until one of them writes to them, so a dataset that stores file names or one large array is cheap to
    copy, while one that holds millions of small Python objects is not: Python's reference counting writes to every
    object it touches, and each touched page gets copied).

    ### What a start method costs

    Under `spawn` each worker starts a new Python interpreter and imports minitorch and NumPy before it loads
    anything, at every epoch. `persistent_workers=True` keeps the workers (and their dataset copies) from one epoch to
    the next, so that cost is paid once.
    """),
    code("""
    small_set = SlowReads(digits.images[:16] / 16.0, digits.target[:16])

    def epoch_time(loader):
        started = time.perf_counter()
        for _ in loader:
            pass
        return time.perf_counter() - started

    default_loader = DataLoader(small_set, batch_size=8, num_workers=1)
    spawn_loader = DataLoader(small_set, batch_size=8, num_workers=1, multiprocessing_context="spawn",
                              persistent_workers=True)
    method = __import__("multiprocessing").get_start_method()
    print(f"default start method ({method}): {epoch_time(default_loader):.2f} s")
    print(f"spawn, first epoch:  {epoch_time(spawn_loader):.2f} s (the workers start and import minitorch)")
    print(f"spawn, second epoch: {epoch_time(spawn_loader):.2f} s (persistent workers: already running)")
    del spawn_loader                                       # stops its workers
    """),
    md(r"""
    ### Who loaded this sample? `get_worker_info` and random numbers in workers

    Inside a worker, **`get_worker_info()`** returns the worker's `id` (0 to N-1), `num_workers`, its `seed` and its
    own copy of the `dataset`; in the main process it returns `None`. With `num_workers=2` and the default settings,
    batches go to the workers in turn: batch 0 to worker 0, batch 1 to worker 1, batch 2 to worker 0, ...

    Random numbers need care. Each worker starts as a copy, so without reseeding every worker would draw the same
    "random" augmentations. The `DataLoader` reseeds, in every worker, Python's `random`, NumPy's global generator and
    minitorch's default generator with `base_seed + worker_id` (`base_seed` drawn from the loader's generator): each
    worker gets its own stream, and the run is still reproducible. It cannot know about a generator *object* your
    dataset holds (`self.rng = np.random.default_rng(0)`): every worker's copy of it starts in the same state. The
    `WhoLoadedMe` dataset draws one number from each:
    """),
    code("""
    def show_draws(loader):
        for batch_number, (_indices, workers, global_draws, own_draws) in enumerate(loader):
            print(f"  batch {batch_number} from worker {workers[0].item()}: "
                  f"np.random {np.round(global_draws.numpy(), 3)}   self.rng {np.round(own_draws.numpy(), 3)}")

    print("two workers, no worker_init_fn:")
    show_draws(DataLoader(WhoLoadedMe(8), batch_size=2, num_workers=2))
    print("two workers, worker_init_fn=reseed_dataset_generator:")
    show_draws(DataLoader(WhoLoadedMe(8), batch_size=2, num_workers=2, worker_init_fn=reseed_dataset_generator))
    """),
    md(r"""
    Without help, batches 0 and 1 (workers 0 and 1) got the same `self.rng` numbers: two workers, one augmentation
    repeated. `worker_init_fn` runs in each worker after the seeding and before loading; `reseed_dataset_generator`
    (in `chapter06_datasets.py`) gives the worker's copy of the dataset a generator seeded from
    `get_worker_info().seed`, different in every worker. Like the dataset, a `worker_init_fn` must be importable
    under `spawn`: a function from a module, not a lambda or a function defined in the notebook.

    `get_worker_info` is also how an `IterableDataset` (a stream, with `__iter__` instead of `__getitem__`) splits
    the stream between workers, so that each sample is read by one worker only.
    """),
    md(r"""
    ### Exercise 6: build it, a `DataLoader` with worker processes

    You have used the workers; now build them. The design below is PyTorch's own (its
    `torch/utils/data/dataloader.py`, class `_MultiProcessingDataLoaderIter`, and `torch/utils/data/_utils/worker.py`,
    function `_worker_loop`), with PyTorch's names, so you can read those files next. Six steps:

    1. **Queues.** A `multiprocessing.Queue` carries Python objects between processes: `put` pickles the object and
       a background thread writes it into a pipe; `get` reads and unpickles it. Each worker gets an **index queue**
       of its own (tasks for that worker only); all workers share one **result queue** (the main process reads
       it). A task is `(task number, list of indices)`; a result is `(task number, batch, error)`.
    2. **Handing out tasks.** `_try_put_index` takes the sampler's next list of indices, numbers it with the
       counter `_send_idx`, and puts it on the index queue of the next worker in turn
       (`_worker_queue_idx_cycle`, an `itertools.cycle` over the worker ids): batch $k$ goes to worker
       $k \bmod N$. At the start it is called `prefetch_factor × num_workers` times, then once after each batch
       delivered, so that many tasks are always in flight.
    3. **In order.** Workers finish when they finish: a slow read in batch 0 lets worker 1 return batch 1 first.
       The counter `_rcvd_idx` is the number of the next batch to *deliver*. Results that arrive early wait in a
       dict keyed by task number (PyTorch's `_task_info`), and `__next__` reads the result queue until the batch
       numbered `_rcvd_idx` is there. The epoch is over when everything handed out was delivered
       (`_rcvd_idx == _send_idx`) and the sampler has nothing left.
    4. **Seeding.** Each epoch the main process draws one `base_seed` from the loader's `generator` (the line is
       given, before the shuffle, as in exercise 3). Worker `w` seeds Python's `random` and minitorch's default
       generator with `base_seed + w` (PyTorch's worker also seeds NumPy, with a hash of both numbers), sets the
       `WorkerInfo` that `get_worker_info()` returns in that process (`id`, `num_workers`, `seed`, and its own
       copy of the `dataset`), and only then calls `worker_init_fn(w)`. Forgetting the `+ w`, or the seeding
       altogether, gives every worker the same random stream: the same "random" augmentation in every worker.
    5. **Errors.** An exception in a worker must not kill it silently, nor vanish: the worker catches it and sends
       it as the result of that task. A traceback cannot be pickled, so PyTorch's `ExceptionWrapper` keeps the
       exception's type and the traceback as text; when that task's turn comes, the main process raises the same
       type with the message `Caught ValueError in DataLoader worker process 1.` then `Original Traceback (most
       recent call last): ...`, so you see which worker failed and on which line of your dataset. Here the error
       travels as a plain tuple `(type, "in DataLoader worker process w", traceback text)`: only Python's own
       types and tensors cross between processes.
    6. **Shutdown.** `_shutdown_workers` sets the `done_event`, puts `None` ("stop") on every index queue, joins
       each worker with a timeout and terminates one that is stuck in a long read. It runs when the epoch ends,
       when a worker's error is raised, and from `__del__` when the iterator is deleted (a loop left with
       `break`); it must be safe to call twice. Workers are `daemon=True`, so they also end if the main process
       exits first. No worker may outlive its iterator: each holds a copy of the dataset, and a notebook that
       leaks a few per epoch ends with hundreds of processes.

    Given in the cell: `WorkerInfo` and `get_worker_info`, most of the `DataLoader` class (its options, its
    batches of indices as in exercise 3, the `base_seed` draw), `_get_result` (which waits on the result queue and
    reports a worker that died instead of waiting forever, as PyTorch does every 5 s). You write `reraise`,
    `worker_loop`, the rest of `DataLoader.__iter__` (with `num_workers=0` the main process loads each batch
    itself; otherwise it returns the iterator below), and the iterator's `__init__`, `_try_put_index`, `__next__`,
    `_shutdown_workers` and `__del__`.

    **Start methods.** The cell uses `multiprocessing.get_context("fork")`: on Linux a worker is a copy of this
    kernel, with your classes and functions already in it. Under `spawn` (macOS, Windows) and `forkserver` (Linux
    from Python 3.14), `Process` pickles its `target` and arguments, and `worker_loop` and `DataLoader`, defined
    in this notebook (module `__main__`), cannot be found by a fresh process: PyTorch has the same limit for a
    dataset or a `worker_init_fn` defined in a notebook. On those systems put this cell's code in a `.py` file next
    to the notebook, import it from there, and use `get_context("spawn")` (on Windows `fork` does not exist).

    `worker_loader_report_of_mine(...)` (the last lines of the cell) runs your loader three times and compares with
    minitorch's `DataLoader`: one epoch with every option (each sample says which worker read it, that worker's
    seed and its random draws; some reads are slow), one batch and then the iterator deleted, and an epoch over a
    dataset whose sample `fail_at` cannot be read; after each it counts the worker processes still running.
    `hint("ch06.worker_loader")` gives hints step by step.
    """),
    solution('''
    import itertools
    import multiprocessing
    import random
    import traceback
    from queue import Empty

    import minitorch
    from grading.library.loader import worker_loader_report  # the report the check compares
    from minitorch.utils.data import default_collate

    # How long a blocked get() waits before it looks whether the other side is still there (PyTorch: 5 s).
    STATUS_CHECK_INTERVAL = 0.5


    class WorkerInfo:
        """What get_worker_info() returns in a worker: its id, how many workers, its seed, its copy of the dataset."""

        def __init__(self, id, num_workers, seed, dataset):
            self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset


    _worker_info = None  # set in each worker process; stays None in the main process


    def get_worker_info():
        """This worker's WorkerInfo; None in the main process."""
        return _worker_info


    def reraise(error):
        """Raise, in the main process, the error a worker sent: (exception type, where, its traceback as text)."""
        ### BEGIN SOLUTION
        exc_type, where, text = error
        raise exc_type(f"Caught {exc_type.__name__} {where}.\\nOriginal {text}")
        ### END SOLUTION


    def worker_loop(dataset, index_queue, result_queue, done_event, collate_fn, base_seed, worker_init_fn, worker_id,
                    num_workers):
        """The body of one worker process: seed, set up, then answer (task number, indices) until told to stop."""
        ### BEGIN SOLUTION
        global _worker_info
        seed = base_seed + worker_id
        random.seed(seed)
        minitorch.manual_seed(seed)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        if worker_init_fn is not None:
            worker_init_fn(worker_id)
        while True:
            try:
                task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except Empty:
                if done_event.is_set():  # the main process is shutting down (its "stop" may never come)
                    break
                continue
            if task is None:  # "stop"
                break
            task_number, indices = task
            try:
                result = (task_number, collate_fn([dataset[index] for index in indices]), None)
            except Exception as error:  # sent to the main process, which raises it there
                result = (task_number, None, (type(error), f"in DataLoader worker process {worker_id}",
                                              traceback.format_exc()))
            result_queue.put(result)
        ### END SOLUTION
        result_queue.cancel_join_thread()  # given: at exit, do not wait for the main process to read what is left


    class DataLoader:
        """PyTorch's DataLoader, loading in num_workers worker processes (0: in the main process)."""

        def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, *, num_workers=0, collate_fn=None,
                     drop_last=False, worker_init_fn=None, generator=None, prefetch_factor=2):
            if sampler is not None and shuffle:
                raise ValueError("sampler option is mutually exclusive with shuffle")
            self.dataset, self.batch_size, self.shuffle, self.sampler = dataset, batch_size, shuffle, sampler
            self.num_workers, self.drop_last, self.prefetch_factor = num_workers, drop_last, prefetch_factor
            self.collate_fn = collate_fn if collate_fn is not None else default_collate
            self.worker_init_fn, self.generator = worker_init_fn, generator

        def batches_of_indices(self):
            """Given: the sampler's order (exercise 3), cut into lists of batch_size indices."""
            if self.sampler is not None:
                order = list(self.sampler)
            elif self.shuffle:
                generator = self.generator
                if generator is None:  # as PyTorch's RandomSampler: a private stream seeded from the default one
                    seed = int(minitorch.empty((), dtype=minitorch.int64).random_().item())
                    generator = minitorch.Generator().manual_seed(seed)
                order = minitorch.randperm(len(self.dataset), generator=generator).tolist()
            else:
                order = list(range(len(self.dataset)))
            for start in range(0, len(order), self.batch_size):
                batch = order[start:start + self.batch_size]
                if len(batch) == self.batch_size or not self.drop_last:
                    yield batch

        def __len__(self):
            size = len(self.sampler) if self.sampler is not None else len(self.dataset)
            return size // self.batch_size if self.drop_last else -(-size // self.batch_size)

        def __iter__(self):
            # Given: one draw from the loader's generator per epoch, before the permutation, as PyTorch does
            base_seed = int(minitorch.empty((), dtype=minitorch.int64).random_(generator=self.generator).item())
            ### BEGIN SOLUTION
            if self.num_workers == 0:  # the main process loads each batch when it is asked for
                return (self.collate_fn([self.dataset[index] for index in indices])
                        for indices in self.batches_of_indices())
            return MultiProcessingIterator(self, base_seed)
            ### END SOLUTION


    class MultiProcessingIterator:
        """One epoch of batches from worker processes, delivered in the sampler's order."""

        def __init__(self, loader, base_seed):
            """Start the workers (an index queue each, one shared result queue), then hand out the first tasks."""
            ### BEGIN SOLUTION
            context = multiprocessing.get_context("fork")
            self._batches = loader.batches_of_indices()
            self._num_workers = loader.num_workers
            self._done_event = context.Event()
            self._result_queue = context.Queue()
            self._index_queues, self._workers = [], []
            for worker_id in range(self._num_workers):
                index_queue = context.Queue()
                index_queue.cancel_join_thread()
                worker = context.Process(
                    target=worker_loop,
                    args=(loader.dataset, index_queue, self._result_queue, self._done_event, loader.collate_fn,
                          base_seed, loader.worker_init_fn, worker_id, self._num_workers),
                    daemon=True,  # ended with the main process, should it exit first
                )
                worker.start()
                self._index_queues.append(index_queue)
                self._workers.append(worker)
            self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
            self._send_idx = 0  # the number of the next task to hand out
            self._rcvd_idx = 0  # the number of the next batch to deliver
            self._reorder = {}  # task number -> its batch, arrived before its turn
            self._shutdown = False
            for _ in range(loader.prefetch_factor * self._num_workers):
                self._try_put_index()
            ### END SOLUTION

        def _try_put_index(self):
            """Send the next batch of indices, numbered, to the next worker in turn (if the sampler has one left)."""
            ### BEGIN SOLUTION
            indices = next(self._batches, None)
            if indices is None:
                return
            worker_id = next(self._worker_queue_idx_cycle)
            self._index_queues[worker_id].put((self._send_idx, indices))
            self._send_idx += 1
            ### END SOLUTION

        def _get_result(self):
            """Given: the next (task number, batch, error) any worker sends; a worker that died is reported."""
            while True:
                try:
                    return self._result_queue.get(timeout=STATUS_CHECK_INTERVAL)
                except Empty:
                    dead = [worker for worker in self._workers if not worker.is_alive()]
                    if dead:  # it will send nothing more: stop waiting (deleting the iterator stops the others)
                        codes = ", ".join(f"{worker.pid}: exit code {worker.exitcode}" for worker in dead)
                        raise RuntimeError(f"DataLoader worker (pid(s) {codes}) exited unexpectedly") from None

        def __next__(self):
            """The next batch in the sampler's order; a worker's error raised here; StopIteration at the end."""
            ### BEGIN SOLUTION
            while self._rcvd_idx not in self._reorder:
                if self._rcvd_idx == self._send_idx:  # nothing in flight: the epoch is over
                    self._shutdown_workers()
                    raise StopIteration
                task_number, batch, error = self._get_result()
                self._reorder[task_number] = (batch, error)
            batch, error = self._reorder.pop(self._rcvd_idx)
            self._rcvd_idx += 1
            self._try_put_index()  # keep prefetch_factor * num_workers tasks in flight
            if error is not None:
                self._shutdown_workers()
                reraise(error)
            return batch
            ### END SOLUTION

        def _shutdown_workers(self):
            """Stop every worker and wait for it to end (terminate one that does not); safe to call twice."""
            ### BEGIN SOLUTION
            if self._shutdown:
                return
            self._shutdown = True
            self._done_event.set()
            for index_queue in self._index_queues:
                index_queue.put(None)
            for worker in self._workers:
                worker.join(timeout=2 * STATUS_CHECK_INTERVAL)
                if worker.is_alive():  # stuck in a long read: stop it
                    worker.terminate()
                    worker.join()
            for index_queue in self._index_queues:
                index_queue.close()
            self._result_queue.cancel_join_thread()
            self._result_queue.close()
            ### END SOLUTION

        def __iter__(self):
            return self

        def __del__(self):
            """The iterator is deleted (a loop left early, or it is garbage): stop its workers, if it started any."""
            ### BEGIN SOLUTION
            if getattr(self, "_workers", None):
                self._shutdown_workers()
            ### END SOLUTION


    def worker_loader_report_of_mine(features, labels, delays, batch_size, shuffle, drop_last, num_workers, seed,
                                     sampler_order, fail_at):
        """What the check compares, for your DataLoader and get_worker_info."""
        return worker_loader_report(DataLoader, get_worker_info, features, labels, delays, batch_size, shuffle,
                                    drop_last, num_workers, seed, sampler_order, fail_at)
    ''', "ch06-worker-loader"),
    tests("""
    check("ch06.worker_loader", worker_loader_report_of_mine)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    no_sampler = np.zeros(0, dtype=np.int64)
    check_hidden("ch06.worker_loader", worker_loader_report_of_mine, [  # delays: 50 ms reads make batches late
        (randn(11, 2, seed=6700), np.random.default_rng(6701).permutation(11), np.array([0.05, 0.05] + [0.0] * 9),
         2, False, True, 3, 1, no_sampler, 9),
        (randn(6, 4, seed=6702), np.random.default_rng(6703).permutation(6), np.array([0, 0, 0.05, 0, 0, 0]),
         1, True, False, 2, 21, no_sampler, 3),
        (randn(12, 1, seed=6704), np.random.default_rng(6705).permutation(12), np.array([0.0] * 3 + [0.05] + [0.0] * 8),
         5, False, True, 2, 4, np.random.default_rng(6706).permutation(12), 11),
        (randn(5, 3, seed=6707), np.random.default_rng(6708).permutation(5), np.zeros(5),
         4, False, False, 0, 8, np.random.default_rng(6709).permutation(5), 0),
    ])
    ### END HIDDEN TESTS
    """, "ch06-worker-loader-tests", points=3),
    md(r"""
    Your loader on the digits, beside minitorch's: two workers, shuffled with the same seed, and then a dataset that
    fails at one sample. `use("DataLoader")` hands out your `DataLoader` if it passes its public checks, and
    minitorch's otherwise (saying so in one line); the training loop of section 7 uses the same. (The exercise cell
    defined a `DataLoader` of its own, which replaced the name imported at the top of the notebook: below,
    minitorch's is `minitorch.utils.data.DataLoader`.)
    """),
    code("""
    from grading.library import my_library, use

    YourDataLoader = use("DataLoader")
    for name, loader_class in (("yours", YourDataLoader), ("minitorch's", minitorch.utils.data.DataLoader)):
        loader = loader_class(digit_set, batch_size=256, shuffle=True, num_workers=2,
                              generator=minitorch.Generator().manual_seed(0))
        labels_seen = minitorch.cat([targets for _, targets in loader])
        print(f"{name:12} {len(labels_seen)} labels, the first ten: {labels_seen[:10].tolist()}")


    class BrokenFile(Dataset):
        \"\"\"Sample 5 cannot be read.\"\"\"

        def __len__(self):
            return 8

        def __getitem__(self, index):
            if index == 5:
                raise ValueError(f"sample {index}: the file is corrupt")
            return minitorch.tensor([float(index)])


    try:
        for batch in YourDataLoader(BrokenFile(), batch_size=2, num_workers=2):
            print("a batch:", batch.flatten().tolist())
    except ValueError as error:
        print("ValueError:", str(error).splitlines()[0], "...", str(error).splitlines()[-1])
    print("worker processes still running:", len(__import__("multiprocessing").active_children()))
    """),
    md(r"""
    ## 7. Putting it together: a training loop with a progress bar

    Everything at once: the digits as uint8 images, a random split into training and validation indices, a dataset
    with augmentation for training and one without for validation (two datasets over the same images, each taken as
    a `Subset` of its indices), shuffled batches from two workers of *your* `DataLoader` (exercise 6; minitorch's if
    yours does not pass its checks yet), and a progress bar. Each epoch starts two new workers: minitorch's and
    PyTorch's loaders can keep theirs with `persistent_workers=True`.

    `tqdm.auto.tqdm` wraps any iterable and draws a bar as the loop runs: a widget in a notebook, text in a terminal.
    A `DataLoader` has a `len`, so the bar knows how many batches an epoch has; `set_postfix` shows the running loss.
    """),
    code("""
    from tqdm.auto import tqdm

    split = random_split(range(len(digit_pixels)), [0.8, 0.2], generator=minitorch.Generator().manual_seed(0))
    plain = transforms.Compose([transforms.ToTensor(), transforms.Resize(16), transforms.Normalize((0.5,), (0.5,))])
    train_set = Subset(DigitImages(digit_pixels, digits.target, transform=augment), split[0].indices)
    validation_set = Subset(DigitImages(digit_pixels, digits.target, transform=plain), split[1].indices)
    train_loader = YourDataLoader(train_set, batch_size=64, shuffle=True, num_workers=2,   # yours, from exercise 6
                                  generator=minitorch.Generator().manual_seed(0))
    validation_loader = YourDataLoader(validation_set, batch_size=256)

    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = minitorch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(3):
        model.train()
        progress = tqdm(train_loader, desc=f"epoch {epoch}")
        for images, targets in progress:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), targets)
            loss.backward()
            optimizer.step()
            progress.set_postfix(loss=f"{loss.item():.3f}")
        model.eval()
        with minitorch.no_grad():
            correct = sum((model(x).argmax(dim=1) == y).sum().item() for x, y in validation_loader)
        print(f"epoch {epoch}: validation accuracy {correct / len(validation_set):.1%}")
    """),
    md(r"""
    Swap `import minitorch` for `import torch` (and `minitorch.vision` for `torchvision`) and this loop runs unchanged
    on PyTorch.
    """),
    md(r"""
    ### Your library so far

    The pieces of your own minitorch, and whether each one is yours (it passes its public checks) or still
    minitorch's. The capstone takes your `DataLoader` from this notebook once it is saved, so save it before moving
    on.
    """),
    code("""
    my_library("06_data")
    """),
    md(r"""
    ## Summary

    * A `Dataset` has `__len__` and `__getitem__`; `TensorDataset` wraps tensors; `random_split` makes `Subset`s with
      a seeded generator.
    * A `DataLoader` makes batches in three steps: the (batch) sampler picks indices, the dataset returns samples,
      `collate_fn` stacks them (`default_collate` stacks tensors, turns numbers into tensors and transposes tuples and
      dicts). `shuffle=True` is a `RandomSampler`; pass a `generator` for a reproducible order.
    * Transforms prepare each sample in `__getitem__`; compute normalisation statistics on the training set only.
    * `num_workers=N` loads in N processes: loading overlaps training, and workers load in parallel; workers that
      wait (for a disk, a network) need no core while they wait, workers that compute need free cores (measure: it
      depends on your data and your machine). Streaming keeps a few batches in memory instead of the whole prepared
      dataset.
    * For workers under `spawn`/`forkserver`, put the dataset (and any `worker_init_fn`) in a module file; give a
      dataset's own random generators a per-worker seed with `worker_init_fn` and `get_worker_info()`.
    * Inside, a loader with workers is PyTorch's design, which you built: an index queue per worker and one result
      queue, tasks numbered and handed out in turn, early results held back until their turn, each worker seeded
      with `base_seed + worker_id` before `worker_init_fn`, a worker's exception raised in the main process naming
      the worker, and every worker stopped when its iterator ends or is deleted.

    Chapter 7 uses these loaders to train convolutional networks on images.
    """),
    code("""
    summary("ch06")
    """),
]

write("06_data", cells)
