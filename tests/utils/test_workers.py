"""DataLoader with worker processes: same batches as without, seeding, sharding, failures, clean-up.

The datasets live in ``tests/utils/worker_datasets.py``, an importable module, so that the
``spawn`` start method can re-import them in its fresh worker processes. Every test runs
under a 20 s limit (``conftest.py``): the failure tests prove that the loader never hangs.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.resource_tracker
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import DataLoader, get_worker_info
from tests.support import require, require_torch
from tests.utils.parity import assert_same_batch
from tests.utils.worker_datasets import (
    FailsAt,
    MinitorchShardedRange,
    RandomDraws,
    ShardedRange,
    ShowsInit,
    Squares,
    WhoLoadedMe,
    record_worker_init,
)

ROOT = Path(__file__).resolve().parents[2]
START_METHODS = [method for method in ("fork", "spawn") if method in multiprocessing.get_all_start_methods()]
needs_fork = pytest.mark.skipif("fork" not in START_METHODS, reason="the fork start method exists on Linux and macOS")


def child_pids() -> set[int]:
    """The process ids of this process's children, less multiprocessing's resource tracker: the spawn start method
    starts that helper the first time a process uses it, and it stays (as it does under PyTorch's DataLoader)."""
    tracker = getattr(multiprocessing.resource_tracker._resource_tracker, "_pid", None)
    return _children() - {tracker}


def _children() -> set[int]:
    """The process ids of this process's children (psutil, else /proc, else multiprocessing's own list)."""
    try:
        import psutil
    except ImportError:
        pass
    else:
        return {child.pid for child in psutil.Process().children()}
    if os.path.isdir("/proc/self"):
        me, children = os.getpid(), set()
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()  # after "pid (command)": state, ppid, ...
            except OSError:  # the process ended while we looked
                continue
            if int(fields[1]) == me:
                children.add(int(name))
        return children
    return {process.pid for process in multiprocessing.active_children()}


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def as_lists(batch):
    """A batch with its tensors made into lists, for comparing minitorch batches with each other."""
    if isinstance(batch, minitorch.Tensor):
        return ("tensor", str(batch.dtype), batch.tolist())
    if isinstance(batch, dict):
        return {key: as_lists(value) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [as_lists(item) for item in batch]
    return batch


def load(dataset, **options):
    return [as_lists(batch) for batch in DataLoader(dataset, **options)]


# -- the same batches -------------------------------------------------------------------------------
@pytest.mark.parametrize("num_workers", [1, 2])
@pytest.mark.parametrize("shuffle", [False, True])
def test_workers_give_the_same_batches_as_the_main_process(num_workers, shuffle):
    def options(workers):
        return {"batch_size": 4, "shuffle": shuffle, "num_workers": workers,
                "generator": minitorch.Generator().manual_seed(7)}

    expected = load(Squares(), **options(0))
    assert load(Squares(), **options(num_workers)) == expected
    assert load(Squares(), **options(num_workers), prefetch_factor=1) == expected
    assert load(Squares(), **options(num_workers), drop_last=True) == expected[:-1]


@pytest.mark.skipif("spawn" not in START_METHODS, reason="no spawn start method")
def test_spawned_workers_give_the_same_batches_as_the_main_process():
    generator_seed = 3
    expected = load(Squares(), batch_size=5, shuffle=True, generator=minitorch.Generator().manual_seed(generator_seed))
    spawned = load(Squares(), batch_size=5, shuffle=True, generator=minitorch.Generator().manual_seed(generator_seed),
                   num_workers=2, multiprocessing_context="spawn")
    assert spawned == expected


@needs_fork
def test_forked_workers_give_the_same_batches_as_the_main_process():
    context = multiprocessing.get_context("fork")
    expected = load(Squares(), batch_size=3)
    assert load(Squares(), batch_size=3, num_workers=2, multiprocessing_context=context) == expected


def test_batches_with_workers_equal_pytorchs_with_workers():
    torch = require_torch()
    for batch_size in (1, 4, None):
        ours = list(DataLoader(Squares(), batch_size=batch_size, num_workers=2))
        theirs = list(torch.utils.data.DataLoader(Squares(), batch_size=batch_size, num_workers=2))
        assert len(ours) == len(theirs)
        for mine, other in zip(ours, theirs):
            assert_same_batch(mine, other)


def test_batches_arrive_without_order_when_asked_but_all_of_them():
    expected = load(Squares(), batch_size=2)
    unordered = load(Squares(), batch_size=2, num_workers=2, in_order=False)
    assert sorted(map(repr, unordered)) == sorted(map(repr, expected))


def test_each_batch_is_made_by_one_worker_in_turn_in_another_process():
    batches = list(DataLoader(WhoLoadedMe(16), batch_size=2, num_workers=2))
    pids = set()
    for position, (indices, worker_ids, worker_pids) in enumerate(batches):
        assert indices.tolist() == [2 * position, 2 * position + 1]
        assert worker_ids.tolist() == [position % 2] * 2  # round robin
        assert len(set(worker_pids.tolist())) == 1
        pids.update(worker_pids.tolist())
    assert len(pids) == 2 and os.getpid() not in pids


# -- worker info and seeding -------------------------------------------------------------------------
def _draws_by_worker(loader):
    draws = {}
    for batch in loader:
        worker = batch["worker"].item()
        draws.setdefault(worker, []).append(
            (batch["seed"].item(), batch["python"].item(), batch["numpy"].item(), batch["minitorch"].item())
        )
    return draws


def test_each_worker_has_its_own_seed_and_random_streams_reproducible_from_the_generator():
    def loader(seed):
        return DataLoader(RandomDraws(), num_workers=2, generator=minitorch.Generator().manual_seed(seed))

    draws = _draws_by_worker(loader(0))
    assert sorted(draws) == [0, 1]
    seeds = {worker: values[0][0] for worker, values in draws.items()}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker id
    for generator in (1, 2, 3):  # python, numpy, minitorch: different streams in the two workers
        assert [value[generator] for value in draws[0]] != [value[generator] for value in draws[1]]
    assert _draws_by_worker(loader(0)) == draws  # the loader's generator decides everything
    other = _draws_by_worker(loader(1))
    assert other[0][0][0] != seeds[0] and other[0][0][1:] != draws[0][0][1:]


def test_worker_seeding_is_base_seed_plus_worker_id_for_every_generator():
    (first,) = _draws_by_worker(DataLoader(RandomDraws(), num_workers=1, batch_size=1)).values()
    seed, python_draw, numpy_draw, minitorch_draw = first[0]
    random.seed(seed)
    minitorch.manual_seed(seed)
    np.random.seed([seed & 0xFFFF_FFFF, seed >> 32])
    assert (random.random(), float(np.random.rand()), minitorch.rand(1).item()) == (
        python_draw, numpy_draw, pytest.approx(minitorch_draw))


def test_base_seed_follows_manual_seed_without_a_generator_and_pytorch_uses_the_same_rule():
    torch = require_torch()
    minitorch.manual_seed(12)
    first = _draws_by_worker(DataLoader(RandomDraws(), num_workers=2))
    minitorch.manual_seed(12)
    assert _draws_by_worker(DataLoader(RandomDraws(), num_workers=2)) == first
    torch_seeds = {}
    for batch in torch.utils.data.DataLoader(RandomDraws(), num_workers=2):
        torch_seeds[batch["worker"].item()] = batch["seed"].item()
    assert torch_seeds[1] == torch_seeds[0] + 1


def test_get_worker_info_is_none_in_the_main_process_and_frozen_in_workers():
    assert get_worker_info() is None
    info_type = minitorch.utils.data.WorkerInfo
    info = info_type(id=0, num_workers=2, seed=5, dataset=None)
    with pytest.raises(AttributeError):
        info.id = 1


def test_worker_init_fn_runs_in_each_worker_with_its_id():
    values = sorted(set(sum((batch.tolist() for batch in DataLoader(ShowsInit(), num_workers=2,
                                                                      worker_init_fn=record_worker_init)), [])))
    assert values == [0, 1]
    assert [batch.tolist() for batch in DataLoader(ShowsInit())] == [[-1]] * 4  # no workers, no init


# -- iterable datasets ----------------------------------------------------------------------------------
def _torch_sharded(torch, start, end):
    class TorchShardedRange(ShardedRange, torch.utils.data.IterableDataset):
        pass

    return TorchShardedRange(start, end)


@needs_fork
@pytest.mark.parametrize("start, end, num_workers, batch_size", [(3, 7, 2, 1), (0, 11, 3, 2), (0, 10, 2, None),
                                                                  (0, 5, 4, 3)])
def test_iterable_dataset_sharding_matches_pytorch(start, end, num_workers, batch_size):
    torch = require_torch()
    ours = list(DataLoader(MinitorchShardedRange(start, end), num_workers=num_workers, batch_size=batch_size))
    theirs = list(torch.utils.data.DataLoader(_torch_sharded(torch, start, end), num_workers=num_workers,
                                              batch_size=batch_size, multiprocessing_context="fork"))
    assert len(ours) == len(theirs)
    for mine, other in zip(ours, theirs):  # tensors, or plain ints when batching is off
        assert_same_batch(mine, other)
    values = sorted(np.concatenate([np.atleast_1d(np.asarray(batch)) for batch in ours]).tolist())
    assert values == list(range(start, end))  # each sample exactly once


def test_iterable_dataset_sharding_gives_pytorchs_documented_order():
    batches = [batch.tolist() for batch in DataLoader(MinitorchShardedRange(3, 7), num_workers=2)]
    assert batches == [[3], [5], [4], [6]]  # worker 0 owns 3, 4; worker 1 owns 5, 6; one batch from each in turn


def test_iterable_dataset_with_persistent_workers_restarts_every_epoch():
    loader = DataLoader(MinitorchShardedRange(0, 9), batch_size=2, num_workers=2, persistent_workers=True)
    first = [batch.tolist() for batch in loader]
    second = [batch.tolist() for batch in loader]
    assert first == second and sorted(sum(first, [])) == list(range(9))


# -- persistent workers --------------------------------------------------------------------------------------
def test_persistent_workers_are_kept_between_epochs_and_new_ones_start_otherwise():
    def worker_pids(loader):
        return {pid for _, _, pids in loader for pid in pids.tolist()}

    persistent = DataLoader(WhoLoadedMe(8), batch_size=2, num_workers=2, persistent_workers=True)
    assert worker_pids(persistent) == worker_pids(persistent)
    fresh = DataLoader(WhoLoadedMe(8), batch_size=2, num_workers=2)
    assert worker_pids(fresh).isdisjoint(worker_pids(fresh))


def test_persistent_workers_after_an_epoch_left_early_give_the_right_batches():
    loader = DataLoader(Squares(), batch_size=2, num_workers=2, persistent_workers=True, prefetch_factor=3)
    for position, _ in enumerate(loader):
        if position == 1:
            break  # results of the tasks in flight must not leak into the next epoch
    assert [as_lists(batch) for batch in loader] == load(Squares(), batch_size=2)
    assert len(list(loader)) == len(loader) == 12


# -- failures ------------------------------------------------------------------------------------------------
def _fail(how, method=None, timeout=0, num_workers=2):
    """Load ``FailsAt(how)`` and return the exception, the seconds it took, and the children left behind."""
    before = child_pids()
    started = time.monotonic()
    with pytest.raises(Exception) as caught:
        for _ in DataLoader(FailsAt(how), batch_size=2, num_workers=num_workers, timeout=timeout,
                            multiprocessing_context=method):
            pass
    elapsed = time.monotonic() - started
    return caught.value, elapsed, child_pids() - before


@pytest.mark.parametrize("method", [None, "spawn"])
def test_an_exception_in_a_worker_is_raised_again_with_the_workers_traceback(method):
    if method is not None and method not in START_METHODS:
        pytest.skip(f"no {method} start method")
    error, elapsed, left = _fail("raise", method)
    assert type(error) is ValueError
    message = str(error)
    assert message.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback (most recent")
    assert "worker_datasets.py" in message and "sample 5 is broken" in message
    assert elapsed < 10 and left == set()


def test_a_key_error_in_a_worker_keeps_its_type_and_prints_its_traceback_readably():
    error, _, left = _fail("keyerror")
    assert type(error) is KeyError and left == set()
    assert str(error).startswith("Caught KeyError in DataLoader worker process 0.\nOriginal Traceback")


def test_the_same_errors_as_pytorch_for_an_exception_in_a_worker():
    torch = require_torch()
    with pytest.raises(ValueError) as caught:
        list(torch.utils.data.DataLoader(FailsAt("raise"), batch_size=2, num_workers=2))
    theirs = str(caught.value)
    # PyTorch's workers live on as long as the traceback holds its iterator (minitorch stops its own). Drop the
    # traceback so that reference counting frees the iterator at once: left to the cycle collector, PyTorch's
    # shutdown waits 5 s per worker (its task queues are finalized before the iterator's __del__ can use them).
    caught.value.__traceback__ = None
    del caught
    error, _, _ = _fail("raise")
    assert str(error).splitlines()[:2] == theirs.splitlines()[:2]
    assert str(error).splitlines()[-1] == theirs.splitlines()[-1] == "ValueError: sample 5 is broken"


@pytest.mark.parametrize("method", [None, "spawn"])
def test_a_worker_that_exits_is_reported_with_its_exit_code(method):
    if method is not None and method not in START_METHODS:
        pytest.skip(f"no {method} start method")
    error, elapsed, left = _fail("exit", method)
    assert type(error) is RuntimeError
    assert "DataLoader worker 0" in str(error) and "exited unexpectedly" in str(error)
    assert "exit code 1" in str(error)
    assert elapsed < 10 and left == set()


def test_a_killed_worker_is_reported_with_its_signal():
    error, elapsed, left = _fail("sigkill")
    assert type(error) is RuntimeError
    assert "exited unexpectedly" in str(error) and "killed by signal 9 (SIGKILL)" in str(error)
    assert elapsed < 10 and left == set()


def test_a_stuck_worker_raises_after_the_timeout():
    error, elapsed, left = _fail("sleep", timeout=1)
    assert type(error) is RuntimeError and str(error) == "DataLoader timed out after 1 seconds"
    assert 1 <= elapsed < 8 and left == set()  # 1 s of waiting, then at most the shutdown grace period


def test_a_batch_that_cannot_be_pickled_is_reported_from_the_worker():
    # a generator cannot travel between processes; the worker says so instead of going silent
    error, elapsed, left = _fail_with_dataset(_GeneratorSamples())
    assert "DataLoader worker process" in str(error) and "pickle" in str(error)
    assert elapsed < 10 and left == set()


class _GeneratorSamples:
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return (value for value in range(index))


def _fail_with_dataset(dataset, **options):
    before = child_pids()
    started = time.monotonic()
    with pytest.raises(Exception) as caught:
        list(DataLoader(dataset, num_workers=2, collate_fn=_keep, **options))
    return caught.value, time.monotonic() - started, child_pids() - before


def _keep(batch):
    return batch


@needs_fork
def test_an_exception_class_that_cannot_be_pickled_arrives_as_a_runtime_error():
    class LocalError(Exception):
        pass

    class RaisesLocalError:
        def __len__(self):
            return 2

        def __getitem__(self, index):
            raise LocalError("a local exception")

    error, _, left = _fail_with_dataset(RaisesLocalError(), multiprocessing_context="fork")
    assert type(error) is RuntimeError and "LocalError: a local exception" in str(error) and left == set()


# -- no worker outlives its loader -----------------------------------------------------------------------------
def test_no_worker_is_left_after_a_complete_epoch_an_early_break_or_an_exception():
    before = child_pids()
    assert len(list(DataLoader(Squares(), batch_size=2, num_workers=2))) == 12
    assert child_pids() == before

    for _ in DataLoader(Squares(), batch_size=2, num_workers=2):
        assert len(child_pids() - before) == 2  # the workers run while the loop does
        break
    assert child_pids() == before

    with pytest.raises(ZeroDivisionError):
        for _ in DataLoader(Squares(), batch_size=2, num_workers=2):
            raise ZeroDivisionError("an error in the training step")
    assert child_pids() == before


def test_no_worker_is_left_after_the_iterator_is_deleted_or_garbage_collected():
    before = child_pids()
    iterator = iter(DataLoader(Squares(), num_workers=2))
    next(iterator)
    pids = child_pids() - before
    assert len(pids) == 2
    del iterator
    assert child_pids() == before and not any(is_running(pid) for pid in pids)

    iterator = iter(DataLoader(Squares(), num_workers=2))
    next(iterator)
    cycle = [iterator]
    cycle.append(cycle)  # only the cycle collector can free it
    del iterator, cycle
    gc.collect()
    assert child_pids() == before


def test_persistent_workers_live_as_long_as_their_loader():
    before = child_pids()
    loader = DataLoader(Squares(), batch_size=4, num_workers=2, persistent_workers=True)
    list(loader)
    list(loader)
    assert len(child_pids() - before) == 2
    del loader
    assert child_pids() == before


@pytest.mark.skipif("spawn" not in START_METHODS, reason="no spawn start method")
def test_spawned_workers_are_gone_after_an_early_break():
    loader = DataLoader(WhoLoadedMe(16), batch_size=2, num_workers=2, multiprocessing_context="spawn")
    pids = set()
    for position, (_, _, worker_pids) in enumerate(loader):
        pids.update(worker_pids.tolist())
        if position == 2:
            break
    assert len(pids) == 2 and not any(is_running(pid) for pid in pids)


# -- notebooks and the spawn start method -------------------------------------------------------------------------
_INTERACTIVE_SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    from minitorch.utils.data import DataLoader

    class Squares:  # defined in __main__, as in a notebook cell
        def __len__(self):
            return 6
        def __getitem__(self, index):
            return index * index

    if {method!r} == "fork":
        print([batch.tolist() for batch in DataLoader(Squares(), batch_size=3, num_workers=2,
                                                       multiprocessing_context="fork")])
    else:
        try:
            list(DataLoader(Squares(), num_workers=2, multiprocessing_context={method!r}))
        except RuntimeError as error:
            print(error)
    """
)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_dataset_defined_interactively_works_with_fork_and_gets_a_clear_error_with_spawn(method):
    if method not in START_METHODS:
        pytest.skip(f"no {method} start method")
    # python -c: __main__ has no file, like a notebook's or the Python prompt's
    completed = subprocess.run([sys.executable, "-c", _INTERACTIVE_SCRIPT.format(root=str(ROOT), method=method)],
                               capture_output=True, text=True, timeout=15)
    assert completed.returncode == 0, completed.stderr
    if method == "fork":
        assert completed.stdout.strip() == "[[0, 1, 4], [9, 16, 25]]"
    else:
        assert "the class 'Squares' is defined in an interactive session" in completed.stdout
        assert "Move Squares into a .py file next to the notebook" in completed.stdout


def test_an_unpicklable_collate_fn_under_spawn_gets_a_clear_error():
    if "spawn" not in START_METHODS:
        pytest.skip("no spawn start method")
    before = child_pids()
    with pytest.raises(Exception, match="cannot send the dataset, collate_fn or worker_init_fn") as caught:
        list(DataLoader(Squares(), num_workers=2, collate_fn=lambda batch: batch, multiprocessing_context="spawn"))
    assert "Lambdas" in str(caught.value)
    assert child_pids() - before <= _spawn_helpers(child_pids() - before)


def _spawn_helpers(pids: set[int]) -> set[int]:
    """multiprocessing's resource tracker (started once by spawn), which is not a worker."""
    helpers = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"resource_tracker" in cmdline.read():
                    helpers.add(pid)
        except OSError:
            pass
    return helpers


def test_a_notebook_dataset_works_with_fork_and_gets_a_clear_error_with_spawn():
    """The real thing: a Jupyter kernel runs cells that define a dataset class and load it with workers."""
    if "fork" not in START_METHODS:
        pytest.skip("the notebook half of this test uses the fork start method")
    nbformat = require("nbformat", "the notebook test builds a notebook")
    nbclient = require("nbclient", "the notebook test runs a notebook in a Jupyter kernel")
    cells = [
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom minitorch.utils.data import DataLoader",
        "class Squares:\n    def __len__(self):\n        return 6\n    def __getitem__(self, index):\n"
        "        return index * index",
        "print([b.tolist() for b in DataLoader(Squares(), batch_size=3, num_workers=2, "
        "multiprocessing_context='fork')])",
        "try:\n    list(DataLoader(Squares(), num_workers=2, multiprocessing_context='spawn'))\n"
        "except RuntimeError as error:\n    print(error)",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    nbclient.NotebookClient(notebook, timeout=15, kernel_name="python3").execute()
    outputs = ["".join(output.get("text", "") for output in cell.outputs) for cell in notebook.cells]
    assert outputs[2].strip() == "[[0, 1, 4], [9, 16, 25]]"
    assert "the class 'Squares' is defined in an interactive session" in outputs[3]
