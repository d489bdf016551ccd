"""Chapter 6 (data): a collate function, a sequential batch-index generator with ``drop_last``, a
train/validation split by a seeded permutation, and a standardising transform.

Expected values are computed by minitorch itself (``default_collate``, ``BatchSampler`` over a
``SequentialSampler``, ``random_split`` with a seeded ``Generator``, tensor reductions), never written
down; the public cases are inputs only.

Two exercises are generator-shaped or list-shaped, which a check cannot call directly (a case holds
arrays and numbers only). The notebook therefore gives the learner a small wrapper next to each one,
and the wrapper is what is checked: ``load_batch`` fetches samples as a ``Dataset`` would and hands
them to the learner's ``collate``; ``batches_as_tensors`` turns the learner's ``batch_indices``
generator into a list of tensors.
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn
from minitorch.utils.data import BatchSampler, SequentialSampler, default_collate, random_split


def _load_batch(features, labels, indices):
    """Samples ``(features[i], int(labels[i]))`` for each index, collated by ``default_collate``."""
    samples = [(features[index], int(labels[index])) for index in indices.tolist()]
    return tuple(default_collate(samples))


def _integers(low, high, size, seed):
    return np.random.default_rng(seed).integers(low, high, size=size).astype(np.int64)


exercise(
    "ch06.load_batch",
    function="load_batch",
    # the library's collate
    withheld=(
        "minitorch.utils.data.default_collate",
    ),
    reference=_load_batch,
    public=[
        (randn(10, 3, seed=600), _integers(0, 10, 10, seed=601), np.array([4, 0, 7], dtype=np.int64)),
        (randn(6, 2, 4, seed=602), _integers(0, 5, 6, seed=603), np.array([5, 1, 2, 3, 0], dtype=np.int64)),
        (randn(4, 5, seed=604), _integers(0, 3, 4, seed=605), np.array([2], dtype=np.int64)),
    ],
    labels=[
        "3 samples of 3 features",
        "5 samples of shape (2, 4): stacked along a new first dimension",
        "a single sample: still a batch of 1",
    ],
    hints=[
        "collate turns a list of samples, each (features, label), into one batch with the same structure: all the "
        "features in one tensor, all the labels in another.",
        "With B samples of features of shape S, the batch's features have shape (B, *S), sample i at position i along "
        "a new first dimension; the labels become one int64 tensor of shape (B,).",
        "Separate the two parts of the samples (zip(*samples), or two comprehensions); one minitorch function stacks "
        "tensors along a new dimension (cat would glue them end to end instead); minitorch.tensor makes a tensor of "
        "Python ints. Return a tuple.",
    ],
)


def _batches_as_tensors(num_samples, batch_size, drop_last):
    sampler = BatchSampler(SequentialSampler(range(num_samples)), batch_size, drop_last)
    return [minitorch.tensor(batch, dtype=minitorch.int64) for batch in sampler]


exercise(
    "ch06.batch_indices",
    function="batches_as_tensors",
    # the library's batch sampler
    withheld=(
        "minitorch.utils.data.BatchSampler",
    ),
    reference=_batches_as_tensors,
    public=[(10, 3, False), (10, 3, True), (8, 4, True), (5, 8, False)],
    labels=[
        "10 in batches of 3: the last batch holds the 1 left over",
        "drop_last=True: the short last batch is dropped",
        "8 in batches of 4 with drop_last: nothing to drop",
        "a batch size larger than the dataset: one short batch",
    ],
    hints=[
        "Walk through the indices 0, 1, 2, ... in order and hand them out in groups of batch_size; a generator yields "
        "each group as soon as it is full.",
        "num_samples indices make ⌊num_samples / batch_size⌋ full batches and one shorter batch of the remaining "
        "num_samples mod batch_size indices, when that remainder is not 0. drop_last=True drops the shorter batch.",
        "Keep a list that grows by one index at a time; yield it when its length reaches batch_size and start a new "
        "one. After the loop, decide whether what is left is yielded.",
    ],
)


def _train_val_split(num_samples, val_fraction, seed):
    num_val = int(num_samples * val_fraction)
    generator = minitorch.Generator().manual_seed(seed)
    train, validation = random_split(range(num_samples), [num_samples - num_val, num_val], generator=generator)
    return minitorch.tensor(train.indices, dtype=minitorch.int64), minitorch.tensor(validation.indices,
                                                                                     dtype=minitorch.int64)


exercise(
    "ch06.train_val_split",
    function="train_val_split",
    # the library's split
    withheld=(
        "minitorch.utils.data.random_split",
    ),
    reference=_train_val_split,
    public=[(10, 0.2, 0), (1797, 0.2, 1), (7, 0.5, 42)],
    labels=[
        "10 samples, 20% for validation",
        "1797 samples: int() rounds the validation size down (359)",
        "7 samples, half: 3 for validation, 4 for training",
    ],
    hints=[
        "Shuffle the indices 0 .. num_samples-1 once, with a generator seeded by seed (so the split is the same every "
        "run), then cut the shuffled list in two.",
        "The validation part has ⌊num_samples × val_fraction⌋ samples (round down, as int() does); the training "
        "part is the first num_samples − that many entries of the permutation, the validation part the rest.",
        "minitorch.randperm(n, generator=g) shuffles; a generator is minitorch.Generator() followed by its "
        "manual_seed(...). Slice the permutation at the cut. Both results are int64 tensors.",
    ],
)


def _standardize(features, train_features):
    mean = train_features.mean(dim=0)
    std = train_features.std(dim=0, correction=0)
    std = minitorch.where(std > 0, std, minitorch.ones_like(std))
    return (features - mean) / std


def _with_constant_columns(array, columns, value):
    array = array.copy()
    array[:, columns] = value
    return array


exercise(
    "ch06.standardize",
    function="standardize",
    reference=_standardize,
    public=[
        (randn(5, 3, seed=610), randn(20, 3, seed=611, scale=2.0)),
        (randn(4, 6, seed=612), _with_constant_columns(randn(30, 6, seed=613), [0, 4], 0.0)),
        (randn(1, 2, seed=614), randn(8, 2, seed=615) + np.float32(5.0)),
    ],
    rtol=1e-4,
    atol=1e-5,
    labels=[
        "statistics of the training features, applied to other features",
        "two constant training columns: their spread is 0, divide by 1 there",
        "a single sample to transform, training features far from 0",
    ],
    hints=[
        "Standardize with statistics of the training set only: for every feature (column), subtract its mean and "
        "divide by its spread, and apply those same two numbers to whichever features you are given.",
        "z = (x − μ) / σ per column, with μ and σ over the rows (dim=0) of train_features and σ the population "
        "standard deviation (dividing by N: correction=0). A feature that never changes has σ = 0: use 1 there.",
        "mean(dim=...) and std(dim=..., correction=...) give μ and σ; minitorch.where(condition, a, b) swaps the "
        "zero spreads for ones. Broadcasting does the per-column arithmetic.",
    ],
)


# -- build it: a mini DataLoader ------------------------------------------------------------------------
# The notebook gives the learner the same dataset and report: sample i is (features[i], {"label": labels[i],
# "weight": weights[i]}) as Python numbers, and the report flattens the batches (their sizes, then every
# field in batch order) so that order, batching, drop_last and collation are all compared.
from collections.abc import Mapping  # noqa: E402

from minitorch.utils.data import DataLoader, Dataset  # noqa: E402


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


def _loader_batches(features, labels, weights, batch_size, shuffle, drop_last, seed):
    loader = DataLoader(RowsWithLabels(features, labels, weights), batch_size=batch_size, shuffle=shuffle,
                        drop_last=drop_last, generator=minitorch.Generator().manual_seed(seed))
    return loader_report(loader)


def _labels(size, seed):
    return np.random.default_rng(seed).permutation(size).astype(np.int64)  # every label once: the order shows


exercise(
    "ch06.mini_loader",
    function="mini_loader_batches",
    withheld=(
        "minitorch.utils.data.DataLoader", "minitorch.utils.data.RandomSampler",
        "minitorch.utils.data.SequentialSampler", "minitorch.utils.data.BatchSampler",
        "minitorch.utils.data.default_collate",
    ),
    reference=_loader_batches,
    output_type="any",
    public=[
        (randn(10, 3, seed=650), _labels(10, 651), randn(10, seed=652, dtype="float64"), 4, False, False, 0),
        (randn(10, 3, seed=653), _labels(10, 654), randn(10, seed=655, dtype="float64"), 4, False, True, 0),
        (randn(9, 2, seed=656), _labels(9, 657), randn(9, seed=658, dtype="float64"), 4, True, False, 3),
        (randn(12, 2, seed=659), _labels(12, 660), randn(12, seed=661, dtype="float64"), 5, True, True, 3),
    ],
    labels=[
        "in order, 10 samples in batches of 4: the last batch holds the 2 left over",
        "in order, drop_last=True: the short last batch is dropped",
        "shuffle=True with a seeded generator: the DataLoader draws one number (the workers' base seed) from the "
        "generator before the permutation",
        "shuffle=True and drop_last=True",
    ],
    outputs=("batch sizes", "features, batch after batch", "labels, batch after batch", "weights, batch after batch"),
    hints=[
        "Three parts, as in section 2: a sampler decides the order of the indices (0, 1, 2, ... or a permutation "
        "drawn from the generator), batching cuts that order into lists of batch_size (the short last list only when "
        "drop_last is False), and collate turns each list of samples into one batch with the structure of a sample. "
        "The DataLoader draws one number from the generator at the start of every epoch (the base seed its workers "
        "get, section 6) before it shuffles: draw it too, or your order differs from its.",
        "collate looks at the first sample: a tensor: stack them all along a new dim 0; a Python int: one int64 "
        "tensor; a Python float: one float64 tensor (default_collate's rule); a dict: a dict that collates each key "
        "over the samples; a tuple or list: collate each position over the samples.",
        "collate is naturally recursive (it calls itself on each key or position). The base seed is drawn as the "
        "exercise text says; the permutation comes from minitorch.randperm with the same generator. Then reuse the "
        "idea of exercise 2 over that order, yielding one collated batch per list of indices.",
    ],
)


# -- build it: a DataLoader with worker processes ------------------------------------------------------------
# The report (grading/library/loader.py, shared with the notebook) runs a DataLoader class through one epoch with
# every option, a loop left early and a worker's error, and counts the worker processes left; the reference is
# minitorch's DataLoader (tests: and torch.utils.data.DataLoader).
import gc  # noqa: E402
import pickle  # noqa: E402
import warnings  # noqa: E402

from grading.library.loader import LOADER_OUTPUTS, worker_loader_report  # noqa: E402
from minitorch.utils.data import get_worker_info  # noqa: E402

# minitorch's DataLoader and everything that runs in its workers, withheld while ch06.worker_loader is graded
WORKER_LOADER = (
    "minitorch.utils.data.DataLoader",
    "minitorch.utils.data.dataloader._BaseIterator",
    "minitorch.utils.data.dataloader._SingleProcessIterator",
    "minitorch.utils.data.dataloader._MultiProcessIterator",
    "minitorch.utils.data.dataloader._WorkerProcess",
    "minitorch.utils.data._worker.get_worker_info",
    "minitorch.utils.data._worker.ExceptionWrapper",
    "minitorch.utils.data._worker._worker_loop",
    "minitorch.utils.data._worker._seed_random_generators",
    "minitorch.utils.data._worker._ResultSender",
    "minitorch.utils.data._worker._MapDatasetFetcher",
    "minitorch.utils.data._worker.create_fetcher",
)


_expected_reports: dict[bytes, tuple] = {}


def _case_key(case) -> bytes:
    return pickle.dumps([np.asarray(value).tobytes() + str(np.asarray(value).dtype).encode() for value in case])


def _minitorchs_worker_loader(*case):
    """minitorch's report for ``case``. Every run on a case gives the same report (the generator is seeded, the
    order is fixed): it is computed once per case and reused, since the check, ``use`` and ``my_library`` each
    compare with it."""
    key = _case_key(case)
    if key not in _expected_reports:
        _expected_reports[key] = _minitorchs_report(*case)
    return tuple(np.array(output, copy=True) for output in _expected_reports[key])


def _minitorchs_report(*case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "more workers than cores": the learner's loader never says it
        report = worker_loader_report(DataLoader, get_worker_info, *case)
    # Garbage now, before the learner's call: a minitorch iterator collected during it would run withheld code.
    gc.collect()
    return report


def _delays(size, slow, seconds=0.05):
    """Sample i waits ``seconds`` when i is in ``slow``: the batch holding them is ready after the ones behind it."""
    delays = np.zeros(size)
    delays[list(slow)] = seconds
    return delays


NO_SAMPLER = np.zeros(0, dtype=np.int64)

exercise(
    "ch06.worker_loader",
    function="worker_loader_report_of_mine",
    withheld=WORKER_LOADER,
    reference=_minitorchs_worker_loader,
    input_type="numpy",
    output_type="any",
    check_dtype=False,
    public=[
        (randn(7, 2, seed=677), _labels(7, 678), _delays(7, []), 2, True, False, 0, 5, NO_SAMPLER, 5),
        (randn(10, 3, seed=670), _labels(10, 671), _delays(10, range(3)), 3, False, False, 2, 0, NO_SAMPLER, 4),
        (randn(9, 2, seed=672), _labels(9, 673), _delays(9, [1, 5]), 2, True, True, 3, 7, NO_SAMPLER, 7),
        (randn(8, 2, seed=674), _labels(8, 675), _delays(8, []), 3, False, False, 1, 3, _labels(8, 676), 0),
    ],
    labels=[
        "num_workers=0: the main process loads (get_worker_info() is None there), and its error is raised as it is",
        "two workers; batch 0 reads slowly, so batch 1 is ready first: still delivered in order",
        "three workers, shuffle=True with a seeded generator, drop_last=True: each worker seeded base_seed + its id",
        "one worker, a sampler's order; the first sample cannot be read",
    ],
    outputs=LOADER_OUTPUTS,
    hints=[
        "Two kinds of process, talking through queues. The main process numbers each batch of indices as the "
        "sampler makes it and puts (number, indices) on one worker's index queue, taking the workers in turn; a "
        "worker takes tasks from its own index queue, fetches and collates, and puts (number, batch) on the one "
        "result queue everyone shares. Results arrive in whatever order workers finish; the main process hands "
        "them out by number, keeping early ones aside. Nothing but tasks, results and a stop signal crosses "
        "between processes.",
        "Keep two counters, as PyTorch does: _send_idx (the next task to hand out) and _rcvd_idx (the next batch "
        "to deliver). Prime prefetch_factor × num_workers tasks; after delivering a batch, hand out one more. The "
        "epoch is over when _rcvd_idx == _send_idx and the sampler is empty. Worker w's seed is base_seed + w: "
        "seed Python's random and minitorch's default generator with it, then set the worker's WorkerInfo, then "
        "call worker_init_fn(w). An error in a worker becomes (type, 'in DataLoader worker process w', traceback "
        "text); the main process raises type('Caught <TypeName> in DataLoader worker process w.\\nOriginal "
        "<text>') when that batch's turn comes.",
        "multiprocessing.get_context('fork') gives Queue, Event and Process; each Process runs worker_loop with "
        "its own arguments, as a daemon. A dict from task number to (batch, error) is the "
        "reorder buffer: loop on the result queue until the number you want is in it. To stop: set the event, put "
        "None on every index queue, join each worker with a timeout (terminate one that is still alive), and "
        "make this safe to call twice, since the end of the epoch, an error and __del__ may all call it.",
    ],
)
