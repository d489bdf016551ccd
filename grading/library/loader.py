"""Chapter 6's piece of the learner's library: ``DataLoader`` with worker processes.

Two things live here, both public (learner-side) code:

* ``worker_loader_report``: runs a DataLoader class (the learner's, minitorch's ``utils.data.DataLoader``, or in
  the tests PyTorch's ``torch.utils.data.DataLoader``) through what a loader with workers promises, and returns
  what it shows as arrays. The notebook's check function and the exercise's reference call the same report;
* the registration of the piece (minitorch's ``DataLoader`` is the fallback). The capstone calls
  ``use("DataLoader")`` and builds it with PyTorch's arguments: ``DataLoader(dataset, batch_size=...,
  shuffle=..., num_workers=..., collate_fn=..., drop_last=...)``.

The report makes three runs over a dataset built from the case's arrays:

1. one epoch with the case's options (``batch_size``, ``shuffle`` with a seeded ``generator``, ``drop_last``, a
   ``sampler`` when the case gives an order, ``num_workers`` and a ``worker_init_fn``). Each sample says which
   worker read it (``get_worker_info().id``, -1 in the main process), that worker's ``seed``, and three random
   draws: Python's ``random``, minitorch's default generator (``torch``'s in PyTorch's run) and the dataset's own
   generator, which the ``worker_init_fn`` reseeds from ``get_worker_info()``. Reading sample ``i`` first waits
   ``delays[i]`` seconds, so workers can finish their batches out of order;
2. one batch, then the iterator deleted (a loop left early);
3. an epoch over a dataset whose sample ``fail_at`` cannot be read (``ValueError``): how the error reached the
   main process, and how many batches came before it.

After each run it counts the worker processes still running (children of this process, from ``/proc``, or
``multiprocessing.active_children()`` where there is no ``/proc``), giving them a moment to end; any still running
are then killed, so a loader that leaves its workers behind does not leave them in the learner's notebook.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import random
import re
import signal
import time

import numpy as np

from grading.library import piece

FAILURE = "sample {index} could not be read"
CAUGHT = re.compile(r"Caught (\w+) in DataLoader worker process (\d+)")
# How long worker processes get to end after their iterator is finished or deleted (seconds).
GRACE_SECONDS = 1.0

LOADER_OUTPUTS = (
    "batch sizes, in the order delivered: the sampler's order, even when a later batch is ready first (drop_last "
    "drops a short last batch)",
    "features, batch after batch: the same batches in the same order as minitorch's DataLoader",
    "labels, batch after batch",
    "which worker read each sample (get_worker_info().id, -1 in the main process): batch k goes to worker "
    "k mod num_workers",
    "each sample's get_worker_info().seed: base_seed + worker id (base_seed drawn from the loader's generator; "
    "-1 in the main process)",
    "random draws in each worker, from Python's random and minitorch's default generator: each worker seeded with "
    "base_seed + worker id (0 in the main process)",
    "a draw from the dataset's own generator, which worker_init_fn(worker_id) reseeds in each worker from "
    "get_worker_info()",
    "a worker's error: 1 if raised in the main process as the same type; the worker its message names ('Caught "
    "ValueError in DataLoader worker process N', -1 when none); 1 if the original message is in it; the batches "
    "delivered before it",
    "worker processes still running after a finished epoch, after a loop left early (the iterator deleted) and "
    "after a worker's error (0 each: every worker ends)",
)


class ProbeReads:
    """Sample i: (features[i], labels[i], the worker that read it, its seed, random draws), after delays[i] s."""

    def __init__(self, features, labels, delays, get_worker_info, lib):
        self.features, self.labels, self.delays = features, labels, delays
        self.get_worker_info, self.lib = get_worker_info, lib
        self.rng = np.random.default_rng(12345)  # each worker's copy starts alike: worker_init_fn reseeds it

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        time.sleep(float(self.delays[index]))  # a slow read: workers finish out of order
        info = self.get_worker_info()
        if info is None:
            worker, seed, draws = -1, -1, [0.0, 0.0]
        else:
            worker, seed = int(info.id), int(info.seed)
            draws = [random.random(), float(self.lib.rand(1).item())]
        draws.append(float(self.rng.random()))
        features = self.lib.tensor(self.features[index])
        return features, int(self.labels[index]), worker, seed, self.lib.tensor(draws, dtype=self.lib.float64)


class FailingReads:
    """Sample i: (features[i], labels[i]); sample ``fail_at`` raises ValueError (a file that cannot be read)."""

    def __init__(self, features, labels, fail_at, lib):
        self.features, self.labels, self.fail_at, self.lib = features, labels, fail_at, lib

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        if index == self.fail_at:
            raise ValueError(FAILURE.format(index=index))
        return self.lib.tensor(self.features[index]), int(self.labels[index])


class ReseedOwnGenerator:
    """A worker_init_fn: give this worker's copy of the dataset a generator of its own, from its seed and id."""

    def __init__(self, get_worker_info):
        self.get_worker_info = get_worker_info

    def __call__(self, worker_id):
        info = self.get_worker_info()
        info.dataset.rng = np.random.default_rng([int(info.seed) % 2**63, int(worker_id)])


def running_children() -> set[int]:
    """Process ids of this process's children that still run (a zombie, ended but not yet reaped, does not)."""
    if not os.path.isdir("/proc"):
        return {child.pid for child in multiprocessing.active_children()}
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended while we looked
        if int(fields[1]) == me and fields[0] not in ("Z", "X"):
            found.add(int(entry))
    return found


def workers_left(before: set[int]) -> int:
    """How many processes started since ``before`` still run after GRACE_SECONDS; those are then killed."""
    deadline = time.monotonic() + GRACE_SECONDS
    left = running_children() - before
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = running_children() - before
    for pid in left:  # the report's own clean-up: a loader's leftover workers do not outlive the check
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    killed_by = time.monotonic() + GRACE_SECONDS  # SIGKILL is delivered, not instant: wait until they have ended
    while left & running_children() and time.monotonic() < killed_by:
        time.sleep(0.01)
    return len(left)


def _collated(batches, lib):
    """(sizes, features, labels, workers, seeds, global draws, own draws) over the batches, each field in order."""
    sizes, columns = [], [[] for _ in range(5)]
    for number, batch in enumerate(batches):
        if not (isinstance(batch, (tuple, list)) and len(batch) == 5):
            raise TypeError(f"batch {number} is a {type(batch).__name__}; a batch has the structure of a sample, "
                            "(features, label, worker, seed, draws), each part collated over the batch")
        sizes.append(len(batch[1]))
        for column, part in zip(columns, batch):
            column.append(np.asarray(part.numpy() if hasattr(part, "numpy") else part))
    if not sizes:
        return [np.zeros(0, dtype=np.int64)] + [np.zeros(0) for _ in range(6)]
    features, labels, workers, seeds, draws = (np.concatenate(column) for column in columns)
    return [np.array(sizes, dtype=np.int64), features, labels.astype(np.int64), workers.astype(np.int64),
            seeds.astype(np.int64), draws.reshape(-1, 3)[:, :2], draws.reshape(-1, 3)[:, 2]]


def _error_report(error, delivered: int, fail_at: int) -> np.ndarray:
    if error is None:
        return np.array([0, -1, 0, delivered], dtype=np.int64)
    text = str(error)
    caught = CAUGHT.search(text)
    named = int(caught.group(2)) if caught and caught.group(1) == "ValueError" else -1
    original = FAILURE.format(index=fail_at) in text
    return np.array([int(type(error).__name__ == "ValueError"), named, int(original), delivered], dtype=np.int64)


def worker_loader_report(loader_class, get_worker_info, features, labels, delays, batch_size, shuffle, drop_last,
                         num_workers, seed, sampler_order, fail_at, lib=None):  # fmt: skip
    """Everything the exercise compares (LOADER_OUTPUTS), for ``loader_class`` and its ``get_worker_info``.

    The cycle collector is paused meanwhile: an iterator is deleted when its last reference goes (as PyTorch's
    loader relies on), and no other object's ``__del__`` (a minitorch loader left over from an earlier cell,
    withheld while this exercise is graded) runs in the middle of the learner's call."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _runs(loader_class, get_worker_info, features, labels, delays, batch_size, shuffle, drop_last,
                     num_workers, seed, sampler_order, fail_at, lib)
    finally:
        if collecting:
            gc.enable()


def _runs(loader_class, get_worker_info, features, labels, delays, batch_size, shuffle, drop_last, num_workers,
          seed, sampler_order, fail_at, lib):  # fmt: skip
    if lib is None:
        import minitorch as lib
    features = np.asarray(features, dtype=np.float32)
    labels, delays = np.asarray(labels, dtype=np.int64), np.asarray(delays, dtype=np.float64)
    batch_size, num_workers, fail_at = int(batch_size), int(num_workers), int(fail_at)
    options = {"batch_size": batch_size, "num_workers": num_workers}
    given_order = [int(index) for index in np.asarray(sampler_order).reshape(-1)]

    # 1. one epoch with every option
    before = running_children()
    dataset = ProbeReads(features, labels, delays, get_worker_info, lib)
    chosen = {"sampler": given_order} if given_order else {"shuffle": bool(shuffle)}
    loader = loader_class(dataset, drop_last=bool(drop_last), worker_init_fn=ReseedOwnGenerator(get_worker_info),
                          generator=lib.Generator().manual_seed(int(seed)), **chosen, **options)  # fmt: skip
    report = _collated(loader, lib)
    del loader
    left = [workers_left(before)]

    # 2. a loop left early: one batch, then the iterator is deleted
    before = running_children()
    iterator = iter(loader_class(ProbeReads(features, labels, delays * 0, get_worker_info, lib), **options))
    next(iterator)
    del iterator
    left.append(workers_left(before))

    # 3. a worker's error
    before = running_children()
    delivered, error = 0, None
    iterator = iter(loader_class(FailingReads(features, labels, fail_at, lib), **options))
    try:
        for _batch in iterator:
            delivered += 1
    except NotImplementedError:
        raise  # a blank piece: the check says "not implemented yet"
    except Exception as caught:  # noqa: BLE001 - which error arrives, and how, is the answer
        error = caught
    errors = _error_report(error, delivered, fail_at)
    if error is not None:
        # A frame that raised the exception from a local variable holds it, and it holds that frame (its traceback):
        # a cycle that would keep the iterator alive until the cycle collector runs. Cut it, as the text is read.
        error.__traceback__ = error.__context__ = error.__cause__ = None
    del iterator, error
    left.append(workers_left(before))
    return (*report, errors, np.array(left, dtype=np.int64))


def _minitorch_loader():
    from minitorch.utils.data import DataLoader

    return DataLoader


piece("DataLoader", chapter="06_data", cells=("ch06-worker-loader",),
      checks={"ch06.worker_loader": "worker_loader_report_of_mine"}, fallback=_minitorch_loader)  # fmt: skip
