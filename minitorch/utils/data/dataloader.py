"""``DataLoader``: mini-batches from a dataset, loaded in the main process or in parallel worker processes.

One batch is made in three steps: the *sampler* picks the indices (in order, or shuffled),
the *dataset* returns one sample per index, and the *collate function* stacks the samples
into tensors (``default_collate``). With ``num_workers=0`` the main process does it all,
one batch at a time, between training steps.

With ``num_workers=N`` the main process only hands out work. ``N`` worker processes (real
processes, not threads: Python threads share one interpreter lock, so only processes make
Python code run in parallel) each receive a copy of the dataset, fetch and collate whole
batches, and send them back. The main process keeps ``prefetch_factor * N`` batches in
flight, handed out round robin, and delivers them in the sampler's order, so the batches
are exactly those of ``num_workers=0``; loading the next batches overlaps with training on
the current one.

How a worker gets its copy of the dataset depends on the multiprocessing start method:

* ``fork`` (Linux's default before Python 3.14): the worker is a copy of the main process,
  memory included. Nothing is pickled, and a dataset defined in a notebook works.
* ``spawn`` (macOS and Windows) and ``forkserver`` (Linux from Python 3.14): the worker is a
  fresh Python interpreter. The dataset, ``collate_fn`` and ``worker_init_fn`` are pickled,
  and the worker re-imports their classes and functions *by module name*. A class defined
  in a notebook (or at the Python prompt) lives in the module ``__main__`` of that session
  and cannot be imported by another process: the loader detects this before starting any
  worker and raises an error that says so. Put the dataset class in a ``.py`` file next to
  the notebook and import it (``from my_datasets import Digits``), or ask for
  ``multiprocessing_context="fork"`` on Linux. Lambdas and functions defined inside other
  functions cannot be pickled either.

Errors: an exception raised in a worker is raised again in the main process, with the
worker's traceback in its message. A worker that dies (a segmentation fault, the system's
out-of-memory killer, ``os._exit``) is noticed at once and reported with its exit code or
signal; ``timeout=`` bounds the wait for a batch. After an error the iteration is over and
its workers are stopped (PyTorch keeps them running). Workers never outlive their
iterator: finishing the epoch, leaving the loop early (``break``), an exception, or the
iterator being garbage-collected all stop and join them (``persistent_workers=True`` keeps
them for the loader's lifetime instead).
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import time
import warnings
from collections.abc import Callable, Iterable

from ... import _dtype, cuda
from ..._creation import empty
from . import _worker
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .pin_memory import pin_memory
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _InfiniteConstantSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

get_worker_info = _worker.get_worker_info

# How long stopping workers may take before they are terminated (seconds).
_SHUTDOWN_GRACE_SECONDS = 2.0


class DataLoader:
    """Iterate over ``dataset`` in mini-batches, optionally loading them in worker processes.

    Arguments, as in ``torch.utils.data.DataLoader``:

    * ``batch_size`` (default 1): samples per batch; ``None`` turns batching off (each
      sample comes out on its own, NumPy arrays converted to tensors by ``default_convert``).
    * ``shuffle``: a new random order every epoch (a ``RandomSampler``); ``sampler``: any
      iterable of indices with ``__len__``; ``batch_sampler``: an iterable of lists of indices
      (then leave ``batch_size``, ``shuffle``, ``sampler`` and ``drop_last`` alone).
    * ``drop_last``: drop the last, incomplete batch.
    * ``collate_fn``: turns a list of samples into a batch (default ``default_collate``).
    * ``num_workers`` (default 0): how many worker processes load batches (0: the main process
      does). ``prefetch_factor`` (default 2 with workers): batches loaded ahead per worker.
      ``persistent_workers``: keep the workers (and their dataset copies) from one epoch to
      the next instead of starting new ones. ``worker_init_fn(worker_id)``: called in each
      worker after seeding, before loading. ``multiprocessing_context``: ``"fork"``,
      ``"spawn"``, ``"forkserver"`` or a context object (default: the platform's).
      ``timeout``: seconds to wait for a batch from the workers before raising (0: forever).
      ``in_order=False``: deliver batches as they arrive rather than in the sampler's order.
    * ``generator``: the ``minitorch.Generator`` that shuffles and that draws the workers'
      ``base_seed`` (each worker seeds Python's ``random``, NumPy's global generator and
      minitorch's default generator with ``base_seed + worker_id``).
    * ``pin_memory``: with a GPU, each batch comes in page-locked (pinned) host memory, so
      ``batch.to("cuda", non_blocking=True)`` copies while the host goes on (``pin_memory.py``).
      Without CUDA it warns and yields ordinary batches, as PyTorch does. ``pin_memory_device``
      is accepted for compatibility (PyTorch deprecates it).

    ``len(loader)`` is the number of batches (for an ``IterableDataset``, an estimate from
    ``len(dataset)``). Read the module docstring on worker processes, start methods and
    notebooks.

    Example: a training loop with a progress bar. ``tqdm.auto`` picks the notebook widget
    in Jupyter and a text bar in a terminal; since the loader has a length, the bar knows
    its total::

        >>> import minitorch
        >>> from minitorch.utils.data import DataLoader, TensorDataset
        >>> from tqdm.auto import tqdm
        >>> dataset = TensorDataset(minitorch.randn(100, 3), minitorch.randint(0, 2, (100,)))
        >>> loader = DataLoader(dataset, batch_size=32, shuffle=True)
        >>> for epoch in range(2):
        ...     progress = tqdm(loader, desc=f"epoch {epoch}", leave=False)
        ...     for features, labels in progress:
        ...         progress.set_postfix(batch=len(labels))  # e.g. the running loss
        >>> [tuple(x.shape) for x, _ in loader]
        [(32, 3), (32, 3), (32, 3), (4, 3)]

    With worker processes (in a script, start the work under ``if __name__ == "__main__":``
    so that spawned workers can import the script without running it)::

        loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=2)
    """

    # Attributes that define the batches; changing them after construction would silently desynchronize.
    _FROZEN_ATTRIBUTES = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")
    _initialized = False

    def __init__(
        self,
        dataset: Dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable | None = None,
        batch_sampler: Sampler | Iterable | None = None,
        num_workers: int = 0,
        collate_fn: Callable | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable | None = None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
                "multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:  # a stream has no indices to sample or shuffle
            if shuffle not in (False, None):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                    f"batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called = None  # len(loader) of an IterableDataset, to warn when it was wrong
        self._iterator = None
        self._initialized = True
        self.check_worker_number_rationality()

    # -- settings -------------------------------------------------------------------------------
    @property
    def multiprocessing_context(self):
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context) -> None:
        if context is not None:
            if self.num_workers == 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading (num_workers > 0), but got "
                    f"num_workers={self.num_workers}"
                )
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(
                        f"multiprocessing_context option should specify a valid start method in {methods!r}, but got "
                        f"multiprocessing_context={context!r}"
                    )
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a string specifying the "
                    f"start method, but got multiprocessing_context={context}"
                )
        self._multiprocessing_context = context

    def __setattr__(self, name, value) -> None:
        if self._initialized and name in self._FROZEN_ATTRIBUTES:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        """What the iterator draws from: lists of indices when batching, single indices otherwise."""
        return self.batch_sampler if self._auto_collation else self.sampler

    # -- iteration ----------------------------------------------------------------------------
    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None or self._iterator._shutdown:  # first epoch, or the workers stopped on an error
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessIterator(self)
        self.check_worker_number_rationality()
        return _MultiProcessIterator(self)

    def __len__(self) -> int:
        if self._is_iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """Warn when asking for more workers than there are CPU cores to run them (as PyTorch does)."""
        if not self.num_workers:
            return
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if cores is None or self.num_workers > cores:
            suggestion = (
                f"Our suggested max number of worker in current system is {cores}, which is smaller than what this "
                "DataLoader is going to create."
                if cores is not None
                else "DataLoader is not able to compute a suggested max number of worker in current system."
            )
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. {suggestion} Please be "
                "aware that excessive worker creation might get DataLoader running slow or even freeze, lower the "
                "worker number to avoid potential slowness/freeze if necessary.",
                stacklevel=2,
            )


class _BaseIterator:
    """What both iterators share: the sampler's iterator, the workers' base seed, the length check."""

    def __init__(self, loader: DataLoader) -> None:
        # The iterator keeps what it needs from the loader, never the loader itself: a loader that
        # owns its (persistent) iterator must not be kept alive by it.
        self._dataset = loader.dataset
        self._is_iterable = loader._is_iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._collate_fn = loader.collate_fn
        self._timeout = loader.timeout
        self._persistent_workers = loader.persistent_workers
        self._pin_memory = loader.pin_memory and cuda.is_available()
        if loader.pin_memory:
            if not cuda.is_available():
                warnings.warn(
                    "'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                    "won't be used.",
                    stacklevel=3,
                )
        self._sampler_iterator = iter(self._index_sampler)
        # One draw from the loader's generator (the default one if None) per iterator, as PyTorch does.
        self._base_seed = int(empty((), dtype=_dtype.int64).random_(generator=loader.generator).item())
        self._num_yielded = 0
        self._length_reported = loader._IterableDataset_len_called

    def __iter__(self):
        return self

    def _reset(self, loader: DataLoader) -> None:
        self._sampler_iterator = iter(self._index_sampler)
        self._num_yielded = 0
        self._length_reported = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iterator)  # raises StopIteration at the end of the epoch

    def __next__(self):
        data = self._next_data()
        if self._pin_memory:  # in the main process, as PyTorch's pin-memory thread does: CUDA lives here
            data = pin_memory(data)
        self._num_yielded += 1
        if self._is_iterable and self._length_reported is not None and self._num_yielded > self._length_reported:
            message = (
                f"Length of IterableDataset {self._dataset} was reported to be {self._length_reported}(when "
                f"accessing len(dataloader)), but {self._num_yielded} samples have been fetched. "
            )
            if self._num_workers > 0:
                message += (
                    "For multiprocessing data-loading, this could be caused by not properly configuring the "
                    "IterableDataset replica at each worker (see the IterableDataset docstring)."
                )
            warnings.warn(message, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)


class _SingleProcessIterator(_BaseIterator):
    """``num_workers=0``: fetch and collate each batch in the main process when it is asked for."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("DataLoader with num_workers=0 requires timeout == 0 (timeout applies to workers)")
        self._fetcher = _worker.create_fetcher(
            self._dataset, self._is_iterable, self._auto_collation, self._collate_fn, self._drop_last
        )

    def _next_data(self):
        indices = self._next_index()  # StopIteration here ends the epoch
        return self._fetcher.fetch(indices)  # ... and here, when an IterableDataset runs out


class _WorkerProcess:
    """The main process's handle on one worker: its process and two pipes, one for tasks and one for results.

    Plain pipes, with no helper threads on the main process's side: a message is written
    when ``send`` returns, and a pipe whose other end is gone fails at once (EOFError,
    BrokenPipeError) instead of waiting forever.
    """

    def __init__(self, context, worker_id: int, num_workers: int, base_seed: int, setup, done_event) -> None:
        self.id = worker_id
        self.active = True  # False once its IterableDataset copy has run out
        self.outstanding = 0  # tasks sent and not answered yet
        task_reader, self.tasks = context.Pipe(duplex=False)
        self.results, result_writer = context.Pipe(duplex=False)
        self.process = context.Process(
            target=_worker._worker_loop,
            args=(worker_id, num_workers, base_seed, setup, task_reader, result_writer, done_event, os.getpid()),
            name=f"DataLoader worker {worker_id}",
            daemon=True,  # ended by multiprocessing if the main process exits with the worker still running
        )
        self.process.start()
        # The worker's ends of the pipes belong to the worker only. Closing the main process's copies
        # means that a worker dying in the middle of a message makes reading fail (EOFError) instead of
        # hang, and that sending a task to a dead worker fails (BrokenPipeError). (They are closed before
        # the next worker starts, so that a forked worker does not inherit them either.)
        task_reader.close()
        result_writer.close()

    def close(self) -> None:
        self.tasks.close()
        self.results.close()


class _MultiProcessIterator(_BaseIterator):
    """``num_workers > 0``: batches are made by worker processes and delivered in order.

    Bookkeeping: each task (one batch) gets a number ``task_index`` in the order the sampler
    produced it; ``_task_owner`` maps the tasks in flight to the worker that has them. Each
    worker answers its tasks in the order it received them, on its own pipe, so the next
    batch in order is simply the next message from the worker that owns the oldest task.
    """

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._workers: list[_WorkerProcess] = []
        self._shutdown = True  # nothing to stop until the workers exist
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if not self._prefetch_factor:
            raise AssertionError("prefetch_factor must be greater than 0 for multi-process loading")
        context = loader.multiprocessing_context or multiprocessing.get_context()
        setup = _worker._WorkerSetup(
            dataset=self._dataset,
            is_iterable=self._is_iterable,
            auto_collation=self._auto_collation,
            collate_fn=self._collate_fn,
            drop_last=self._drop_last,
            worker_init_fn=loader.worker_init_fn,
        )
        method = context.get_start_method()
        if method != "fork":  # the worker is a fresh interpreter: pickle once here, where errors are clear
            setup = _worker.pickle_setup(setup, method)
        self._done_event = context.Event()
        self._shutdown = False
        try:
            for worker_id in range(self._num_workers):
                self._workers.append(
                    _WorkerProcess(context, worker_id, self._num_workers, self._base_seed, setup, self._done_event)
                )
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, first_iteration=True)

    def _reset(self, loader: DataLoader, first_iteration: bool = False) -> None:
        super()._reset(loader)
        self._next_task_index = 0
        self._task_owner: dict[int, int] = {}
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        for worker in self._workers:
            worker.active = True
            worker.outstanding = 0
        if not first_iteration:
            # Persistent workers: start the next epoch. Results of an epoch left early may still be on
            # their way; everything a worker sends before its acknowledgement belongs to the old epoch.
            for worker in self._workers:
                self._send(worker, _worker._ResumeIteration())
            for worker in self._workers:
                while not isinstance(self._receive(worker)[0], _worker._ResumeIteration):
                    pass
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        """Send the sampler's next batch of indices to the next worker in turn (that still has data)."""
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            indices = self._next_index()
        except StopIteration:
            return
        active_workers = sum(worker.active for worker in self._workers)
        for _ in range(self._num_workers):
            worker = self._workers[next(self._worker_cycle)]
            if worker.active and (self._in_order or worker.outstanding < max_tasks // active_workers):
                break
        else:
            return  # every worker's stream has run out
        self._send(worker, (self._next_task_index, indices))
        self._task_owner[self._next_task_index] = worker.id
        worker.outstanding += 1
        self._next_task_index += 1

    def _next_data(self):
        while True:
            if not self._task_owner:  # nothing in flight: the sampler (or every worker's stream) is exhausted
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if self._in_order:
                candidates = [self._task_owner[min(self._task_owner)]]
            else:
                candidates = sorted(set(self._task_owner.values()))
            worker = self._wait_for_result(candidates)
            task_index, result = self._receive(worker)
            del self._task_owner[task_index]
            worker.outstanding -= 1
            if isinstance(result, _worker._IterableDatasetStopIteration):
                self._retire(worker)
                self._try_put_index()
                continue
            self._try_put_index()
            if isinstance(result, _worker.ExceptionWrapper):
                self._shutdown_workers()
                result.reraise()
            return result

    def _retire(self, worker: _WorkerProcess) -> None:
        """The worker's stream has run out: it gets no more tasks, and the ones it had are dropped."""
        worker.active = False
        for task_index in [index for index, owner in self._task_owner.items() if owner == worker.id]:
            del self._task_owner[task_index]
        worker.outstanding = 0
        if not self._persistent_workers:
            self._send(worker, None)  # it may stop now

    def _send(self, worker: _WorkerProcess, message) -> None:
        try:
            worker.tasks.send(message)
        except OSError:  # BrokenPipeError: nobody reads the other end any more
            raise self._worker_failure(worker) from None

    def _wait_for_result(self, worker_ids: list[int]) -> _WorkerProcess:
        """Sleep until one of these workers has a result ready; raise if one died or ``timeout`` passed."""
        readers = {self._workers[worker_id].results: self._workers[worker_id] for worker_id in worker_ids}
        exits = {self._workers[worker_id].process.sentinel: self._workers[worker_id] for worker_id in worker_ids}
        # A process's sentinel becomes ready when the process ends: a dead worker wakes us up at once.
        ready = multiprocessing.connection.wait([*readers, *exits], timeout=self._timeout or None)
        if not ready:
            self._shutdown_workers()
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        for item in ready:
            if item in readers:  # read what a worker sent, even if it ended afterwards
                return readers[item]
        raise self._worker_failure(exits[ready[0]])

    def _receive(self, worker: _WorkerProcess):
        """The next ``(task_index, result)`` message of ``worker``."""
        if not worker.results.poll():
            self._wait_for_result([worker.id])
        try:
            payload = worker.results.recv_bytes()
        except (EOFError, OSError):
            raise self._worker_failure(worker) from None
        return pickle.loads(payload)

    def _worker_failure(self, worker: _WorkerProcess) -> RuntimeError:
        """Stop the loader and describe how ``worker`` ended."""
        worker.process.join(timeout=1.0)
        pid, exit_code = worker.process.pid, worker.process.exitcode
        if exit_code is None:
            how = "closed its connection to the main process"
        elif exit_code < 0:
            how = f"was killed by signal {-exit_code} ({_signal_name(-exit_code)})"
        else:
            how = f"exited with exit code {exit_code}"
        self._shutdown_workers()
        return RuntimeError(
            f"DataLoader worker {worker.id} (pid {pid}) exited unexpectedly: it {how}. A worker ends like this when "
            "native code crashes (SIGSEGV), when the system runs out of memory (the OOM killer sends SIGKILL), or "
            "when the dataset calls os._exit() or sys.exit(). Run with num_workers=0 to see the error in the main "
            "process."
        )

    def _shutdown_workers(self) -> None:
        """Stop every worker and wait for it (terminate the ones that do not stop in time)."""
        if self._shutdown:
            return
        self._shutdown = True
        self._done_event.set()  # workers skip the tasks still queued
        for worker in self._workers:
            try:
                worker.tasks.send(None)
            except (OSError, ValueError):  # the worker is gone already, or the pipe was closed (garbage collection)
                pass
        deadline = time.monotonic() + _SHUTDOWN_GRACE_SECONDS
        for worker in self._workers:
            worker.process.join(timeout=max(0.0, deadline - time.monotonic()))
        for worker in self._workers:
            if worker.process.is_alive():  # busy in a long __getitem__, or stuck
                worker.process.terminate()
                worker.process.join(timeout=1.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.close()

    def __del__(self) -> None:
        # Garbage collection of the iterator (a loop left with ``break``, an exception) stops the workers.
        if getattr(self, "_workers", None) is not None:
            try:
                self._shutdown_workers()
            except Exception:  # at interpreter exit, modules may already be torn down
                pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"
