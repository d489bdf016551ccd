"""What runs inside a DataLoader worker process, and what the main process and a worker say to each other.

The conversation (``dataloader.py`` has the main process's side):

* The main process sends *tasks* on the worker's task pipe: ``(task_index, indices)`` means
  "fetch these samples and collate them"; ``None`` means "stop"; ``_ResumeIteration()``
  means "a new epoch starts" (persistent workers only).
* The worker answers each task on its own result pipe with ``(task_index, batch)``. When
  something goes wrong, the batch is an ``ExceptionWrapper`` (the error and its traceback,
  as text) that the main process raises again; when an ``IterableDataset`` runs out, it is
  an ``_IterableDatasetStopIteration`` marker.

Everything that crosses between processes is pickled. Tensors pickle as their NumPy
array (``Tensor.__reduce_ex__``), which costs about one copy of the data.

Before loading anything, a worker seeds the random generators it may use (Python's
``random``, NumPy's global one, minitorch's default one) with ``base_seed + worker_id``,
where ``base_seed`` is drawn from the loader's generator: every worker gets its own random
stream (random augmentations differ between workers) and the whole run is reproducible
from ``minitorch.manual_seed`` or the loader's ``generator``.
"""

from __future__ import annotations

import io
import os
import pickle
import queue
import random
import signal
import sys
import threading
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._random import manual_seed

# How often an idle worker checks that the main process is still there and still wants it (seconds).
_IDLE_CHECK_INTERVAL = 0.5

_worker_info: WorkerInfo | None = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Who am I? The answer ``get_worker_info()`` gives inside a worker process.

    ``id``: this worker's number, ``0 .. num_workers - 1``; ``num_workers``: how many there
    are; ``seed``: the seed this worker's random generators were given (``base_seed + id``);
    ``dataset``: this process's own copy of the dataset.
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any


def get_worker_info() -> WorkerInfo | None:
    """Information about the DataLoader worker process this code runs in; ``None`` in the main process.

    Use it in an ``IterableDataset``'s ``__iter__`` (or a ``worker_init_fn``) to give each
    worker its own share of the data, or its ``seed`` to seed other libraries.
    """
    return _worker_info


class KeyErrorMessage(str):
    """A message that prints as itself: ``KeyError`` would otherwise show the worker's traceback as a repr."""

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception caught in a worker, packed so that the main process can raise it again.

    A traceback cannot be pickled, so it travels as text. ``reraise`` raises the same
    exception type with the message
    ``Caught ValueError in DataLoader worker process 0.\\nOriginal Traceback (most recent call last): ...``
    (PyTorch's words), so the error names the line of the dataset that failed.
    """

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        exc_type, exc_value, exc_traceback = exc_info or sys.exc_info()
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc_value, exc_traceback))
        self.where = where

    def reraise(self):
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            message = KeyErrorMessage(message)
        try:
            exception = self.exc_type(message)
        except Exception:  # an exception class whose constructor wants other arguments
            raise RuntimeError(message) from None
        raise exception


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's ``IterableDataset`` copy has run out of samples."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Persistent workers: start the next epoch (and acknowledge it, so stale results can be told apart)."""


@dataclass
class _WorkerSetup:
    """What every worker needs to know to fetch batches: the same for all workers of a loader."""

    dataset: Any
    is_iterable: bool
    auto_collation: bool
    collate_fn: Callable
    drop_last: bool
    worker_init_fn: Callable | None


# -- fetching one batch (shared with single-process loading) ------------------------------------
class _MapDatasetFetcher:
    """Map-style dataset: ``dataset[i]`` for each index of the batch, then ``collate_fn``."""

    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, indices):
        if not self.auto_collation:  # batching off: ``indices`` is one index
            return self.collate_fn(self.dataset[indices])
        get_batch = getattr(self.dataset, "__getitems__", None)
        if get_batch:  # the dataset knows how to read a whole batch at once
            samples = get_batch(indices)
        else:
            samples = [self.dataset[index] for index in indices]
        return self.collate_fn(samples)


class _IterableDatasetFetcher:
    """Iterable dataset: the next ``len(indices)`` samples of the stream (the indices are only a count)."""

    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable, drop_last: bool) -> None:
        self.dataset_iterator = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, indices):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iterator))
        samples = []
        for _ in indices:
            try:
                samples.append(next(self.dataset_iterator))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.drop_last and len(samples) < len(indices)):
            raise StopIteration
        return self.collate_fn(samples)


def create_fetcher(dataset, is_iterable: bool, auto_collation: bool, collate_fn: Callable, drop_last: bool):
    kind = _IterableDatasetFetcher if is_iterable else _MapDatasetFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)


# -- sending the worker's set-up under spawn / forkserver --------------------------------------
_SPAWN_ADVICE = (
    "With the '{method}' start method each DataLoader worker is a fresh Python process: the dataset, "
    "collate_fn and worker_init_fn are pickled, and the worker finds their classes and functions by importing "
    "the module they were defined in."
)


def _main_module_is_importable() -> bool:
    """A script's ``__main__`` can be re-imported by a spawned worker; a notebook's or a REPL's cannot."""
    return getattr(sys.modules.get("__main__"), "__file__", None) is not None


class _SetupPickler(pickle.Pickler):
    """A pickler that stops at a class or function defined in an interactive ``__main__`` (a notebook cell)."""

    def __init__(self, file, method: str) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.method = method

    def reducer_override(self, obj):
        defined_interactively = (
            isinstance(obj, (type, types.FunctionType))
            and getattr(obj, "__module__", None) == "__main__"
            and not _main_module_is_importable()
        )
        if defined_interactively:
            kind = "class" if isinstance(obj, type) else "function"
            raise RuntimeError(
                f"DataLoader cannot start its worker processes: the {kind} {obj.__qualname__!r} is defined in an "
                f"interactive session (a notebook cell or the Python prompt, module __main__). "
                + _SPAWN_ADVICE.format(method=self.method)
                + f" Definitions made in a notebook cannot be imported. Move {obj.__qualname__} into a .py file next "
                f"to the notebook and import it from there (from my_datasets import {obj.__qualname__}), or use "
                "multiprocessing_context='fork' (Linux only), or num_workers=0."
            )
        return NotImplemented  # everything else pickles as usual


def pickle_setup(setup: _WorkerSetup, method: str) -> bytes:
    """Pickle the set-up once, in the main process, so that a problem is reported here and not as a dead worker."""
    buffer = io.BytesIO()
    try:
        _SetupPickler(buffer, method).dump(setup)
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        raise type(error)(
            f"DataLoader cannot send the dataset, collate_fn or worker_init_fn to its worker processes: {error}. "
            + _SPAWN_ADVICE.format(method=method)
            + " Lambdas, functions defined inside other functions and open files cannot be pickled: define them "
            "at the top level of a module, or use multiprocessing_context='fork' (Linux only), or num_workers=0."
        ) from error
    return buffer.getvalue()


def _load_setup(payload: bytes) -> _WorkerSetup:
    try:
        return pickle.loads(payload)
    except Exception as error:
        raise RuntimeError(
            f"DataLoader worker could not load the dataset sent by the main process: {error!r}. With the 'spawn' "
            "and 'forkserver' start methods each worker is a fresh Python process that finds the dataset's classes "
            "and functions by importing the module they were defined in. Make sure that module can be imported in a "
            "fresh Python process (it is on sys.path, and a script "
            "starts its work under `if __name__ == '__main__':`)."
        ) from error


# -- the worker process -----------------------------------------------------------------------------
def _seed_random_generators(seed: int) -> None:
    """Seed Python's, NumPy's and minitorch's global generators, so each worker draws its own stream."""
    random.seed(seed)
    manual_seed(seed)
    np.random.seed([seed & 0xFFFF_FFFF, seed >> 32])  # NumPy takes 32-bit words: keep all 64 bits


class _ResultSender:
    """Sends pickled results to the main process from a background thread.

    A pipe holds only about 64 KB. Writing a big batch blocks until the main process reads
    it; done from a thread, the worker meanwhile starts on its next task (prefetching).
    """

    def __init__(self, connection, worker_id: int) -> None:
        self.connection = connection
        self.worker_id = worker_id
        self.outbox = queue.SimpleQueue()
        threading.Thread(target=self._send_forever, name="DataLoader result sender", daemon=True).start()

    def send(self, task_index, result) -> None:
        try:
            payload = pickle.dumps((task_index, result), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            if isinstance(result, ExceptionWrapper):  # an exception class pickle cannot find (defined in a function)
                result.exc_type = RuntimeError
            else:  # the batch holds something pickle cannot handle (a generator, a lock, ...)
                result = ExceptionWrapper(where=f"in DataLoader worker process {self.worker_id}")
            payload = pickle.dumps((task_index, result), protocol=pickle.HIGHEST_PROTOCOL)
        self.outbox.put(payload)

    def _send_forever(self) -> None:
        while True:
            payload = self.outbox.get()
            try:
                self.connection.send_bytes(payload)
            except OSError:  # the main process has closed its end: it is shutting down
                return


def _worker_loop(
    worker_id: int,
    num_workers: int,
    base_seed: int,
    setup: _WorkerSetup | bytes,
    tasks,
    result_connection,
    done_event,
    parent_pid: int,
) -> None:
    """The body of a worker process: set up, then answer tasks until told to stop."""
    # Ctrl-C is for the main process: it stops the loader, which then stops its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sender = _ResultSender(result_connection, worker_id)
    where = f"in DataLoader worker process {worker_id}"
    seed = base_seed + worker_id
    _seed_random_generators(seed)

    # A failure while setting up is sent back as the answer to the first task (and the ones after).
    setup_error = fetcher = None
    try:
        if isinstance(setup, bytes):  # spawn / forkserver: the set-up was pickled by the main process
            setup = _load_setup(setup)
        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=setup.dataset)
        if setup.worker_init_fn is not None:
            setup.worker_init_fn(worker_id)
        fetcher = create_fetcher(setup.dataset, setup.is_iterable, setup.auto_collation, setup.collate_fn,
                                 setup.drop_last)
    except Exception:
        setup_error = ExceptionWrapper(where=where)

    iteration_ended = False  # an IterableDataset ran out: ignore tasks until the next epoch
    while True:
        if not tasks.poll(_IDLE_CHECK_INTERVAL):
            # Nothing to do. Stop if the main process died (nobody will read our results) or if the loader
            # shuts down: its "stop" message may be lost when the loader is garbage-collected.
            if os.getppid() != parent_pid or done_event.is_set():
                break
            continue
        try:
            task = tasks.recv()
        except EOFError:  # the main process closed the pipe
            break
        if task is None:
            break
        if isinstance(task, _ResumeIteration):
            iteration_ended = False
            if setup_error is None:  # start the dataset's stream again
                fetcher = create_fetcher(setup.dataset, setup.is_iterable, setup.auto_collation, setup.collate_fn,
                                         setup.drop_last)
            sender.send(task, None)
            continue
        if done_event.is_set() or iteration_ended:
            continue  # the loader is shutting down, or there is nothing left to give
        task_index, indices = task
        if setup_error is not None:
            result = setup_error
        else:
            try:
                result = fetcher.fetch(indices)
            except StopIteration:
                if not setup.is_iterable:
                    result = ExceptionWrapper(where=where)
                else:
                    result = _IterableDatasetStopIteration(worker_id)
                    iteration_ended = True
            except Exception:
                result = ExceptionWrapper(where=where)
        sender.send(task_index, result)
        del result  # do not keep a batch alive while waiting for the next task
