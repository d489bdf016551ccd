"""Datasets for the worker-process tests, in an importable module.

Under the ``spawn`` start method a worker re-imports the dataset's class by module name, so
these cannot live inside the test functions (nor in a notebook): see the module docstring
of ``minitorch.utils.data``. They are written against the duck-typed dataset protocol
(``__len__`` and ``__getitem__``), so the same objects work with PyTorch's DataLoader.
"""

from __future__ import annotations

import math
import os
import random
import signal
import time

import numpy as np

from minitorch.utils.data import IterableDataset


def _worker_info():
    """minitorch's worker info, or PyTorch's when the dataset runs under PyTorch's loader."""
    from minitorch.utils.data import get_worker_info

    info = get_worker_info()
    if info is None:
        try:
            from torch.utils.data import get_worker_info as torch_get_worker_info
        except ImportError:
            return None
        info = torch_get_worker_info()
    return info


class Squares:
    """``(index, float(index) ** 2, an array)``: several collate types in one sample."""

    def __init__(self, length: int = 23) -> None:
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index):
        return index, float(index) ** 2, np.arange(3, dtype=np.float32) + index


class WhoLoadedMe:
    """``(index, worker id, pid)``: which process produced each sample (-1 and the main pid without workers)."""

    def __init__(self, length: int = 16) -> None:
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index):
        info = _worker_info()
        return index, -1 if info is None else info.id, os.getpid()


class RandomDraws:
    """What each worker's random generators produce: the worker's seed and one draw from each generator."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index):
        import minitorch

        info = _worker_info()
        return {
            "worker": -1 if info is None else info.id,
            "seed": -1 if info is None else info.seed,
            "python": random.random(),
            "numpy": float(np.random.rand()),
            "minitorch": float(minitorch.rand(1).item()),
        }


class ShardedRange:
    """An iterable dataset over ``range(start, end)`` that splits the range between workers (PyTorch's example)."""

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end

    def __iter__(self):
        info = _worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per_worker = math.ceil((self.end - self.start) / info.num_workers)
        first = self.start + info.id * per_worker
        return iter(range(first, min(first + per_worker, self.end)))

    def __len__(self) -> int:
        return self.end - self.start


class MinitorchShardedRange(ShardedRange, IterableDataset):
    """``ShardedRange`` as a minitorch ``IterableDataset`` (the loader needs the type to know it is a stream)."""


class FailsAt:
    """Fails at sample ``bad_index`` in the way named by ``how``; every other sample is its index."""

    def __init__(self, how: str, bad_index: int = 5, length: int = 20) -> None:
        self.how, self.bad_index, self.length = how, bad_index, length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index):
        if index == self.bad_index:
            if self.how == "raise":
                raise ValueError(f"sample {index} is broken")
            if self.how == "keyerror":
                raise KeyError(f"no sample {index}")
            if self.how == "exit":
                os._exit(1)
            if self.how == "sigkill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.how == "sleep":
                time.sleep(60)
        return index


def record_worker_init(worker_id: int) -> None:
    """A worker_init_fn: leaves a mark that the dataset copy in this worker can show."""
    info = _worker_info()
    info.dataset.initialized_by = worker_id


class ShowsInit:
    initialized_by = None

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index):
        return -1 if self.initialized_by is None else self.initialized_by
