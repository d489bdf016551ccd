"""One rank of ``grading.library.ddp.ddp_report``: ``python -m minitorch.distributed.run --nproc-per-node N
_ddp_rank.py JOB_FOLDER`` (never by hand).

``JOB_FOLDER/job.json`` lists the jobs (all the cases of one check), run one after the other in the same processes,
so that the processes start once per check rather than once per case. Each job has a process group of its own as
the default group (``dist.get_world_size()`` is the job's); a job of fewer ranks than were started runs on the first
ranks, and the other ranks go on to the next job. A rank whose job raised reports it and ends, the jobs after it
not run, except for a blank stub (NotImplementedError) or a withheld piece, which it reports and goes on.

For each job, every rank builds the same model from the same seed, takes its own rows of the global batch, wraps the
model in the class under test, runs one forward and backward, and writes what it saw to
``JOB_FOLDER/job<j>-rank<r>.json`` and ``job<j>-rank<r>.npz``. Around the class's work, this script counts the
``all_reduce`` calls and, with its own post-accumulate-grad hooks (registered before the class's, so they run
first), which gradients were ready at each call. When ``MINITORCH_WITHHELD`` names an exercise's pieces (set by the
guard's ``run_trusted_program``), the class's code runs with them withheld here too, and a piece it reaches is
reported instead of its results.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import sys
import traceback
from datetime import timedelta
from pathlib import Path

import numpy as np

import minitorch
import minitorch.distributed as dist
import minitorch.nn.functional as F
from grading.library.ddp import UNFINISHED_REDUCTION, build_model, cap_in_mb, global_batch
from minitorch import nn
from minitorch.distributed import distributed_c10d


def load_class(description: dict):
    if "module" in description:
        found = importlib.import_module(description["module"])
        for part in description["qualname"].split("."):
            found = getattr(found, part)
        return found
    import linecache

    filename = description["filename"]
    source = description["source"]
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    names = {"__name__": "__ddp_learner__", "minitorch": minitorch, "nn": nn, "F": F, "dist": dist, "np": np,
             "numpy": np, "math": math}
    exec(compile(source, filename, "exec"), names)
    return names[description["name"]]


class Counter:
    """``dist.all_reduce`` as the class under test sees it: counted, and each call's readiness noted."""

    def __init__(self, ready: set, index_of: dict):
        self.ready, self.index_of = ready, index_of
        self.calls = []  # (number of elements, the parameter indices ready at the call)
        self.original = distributed_c10d.all_reduce

    def __call__(self, tensor, *args, **kwargs):
        self.calls.append((int(tensor.numel()), frozenset(self.ready)))
        return self.original(tensor, *args, **kwargs)

    def install(self):
        dist.all_reduce = distributed_c10d.all_reduce = self

    def remove(self):
        dist.all_reduce = distributed_c10d.all_reduce = self.original


def bucket_indices(ddp, index_of: dict):
    """``ddp.buckets`` as lists of parameter indices (registration order), or None when it is not such a list."""
    try:
        return [[index_of[id(parameter)] for parameter in bucket] for bucket in ddp.buckets]
    except Exception:  # noqa: BLE001 - missing or malformed: the report says so through its outputs
        return None


def run(job: dict, rank: int, world: int, guard) -> tuple[dict, dict]:
    widths, seed, cap = job["widths"], job["seed"], cap_in_mb(job["bucket_cap_kb"])
    model = build_model(widths, seed)
    parameters = list(model.parameters())
    index_of = {id(parameter): index for index, parameter in enumerate(parameters)}
    ready: set = set()
    for parameter in parameters:  # first in each parameter's list of hooks: runs before the class's
        parameter.register_post_accumulate_grad_hook(lambda p: ready.add(index_of[id(p)]))
    inputs, targets = global_batch(widths, world, job["batch_per_rank"], seed)
    rows = slice(rank * job["batch_per_rank"], (rank + 1) * job["batch_per_rank"])
    inputs, targets = minitorch.tensor(inputs[rows]), minitorch.tensor(targets[rows])
    spare = build_model(widths, seed, unused=True)
    counter = Counter(ready, index_of)
    counter.install()
    if guard is not None:
        guard.start()
    try:
        ddp_class = load_class(job["class"])
        ddp = ddp_class(model, bucket_cap_mb=cap)
        counter.calls.clear()  # only the backward's calls count
        F.mse_loss(ddp(inputs), targets).backward()
        calls = list(counter.calls)
        buckets = bucket_indices(ddp, index_of)
        # a parameter that gets no gradient: the next forward must refuse, with PyTorch's error
        wrapped = ddp_class(spare, bucket_cap_mb=cap)
        F.mse_loss(wrapped(inputs), targets).backward()
        try:
            wrapped(inputs)
            unused = 0
        except RuntimeError as error:
            unused = 1 if str(error).startswith(UNFINISHED_REDUCTION) else -1
        except NotImplementedError:
            raise
        except Exception:  # noqa: BLE001 - which error it is, is the answer
            unused = -1
    finally:
        if guard is not None:
            guard.stop()
        counter.remove()
    sizes = [parameter.numel() for parameter in parameters]
    flags = []
    for k, (count, ready_then) in enumerate(calls):
        fits = buckets is not None and k < len(buckets) and set(buckets[k]) <= ready_then and (
            count == sum(sizes[i] for i in buckets[k]))
        flags.append(int(fits))
    bucket_of = np.full(len(parameters), -1, dtype=np.int64)
    for k, bucket in enumerate(buckets or []):
        bucket_of[bucket] = k
    grads = np.concatenate([
        (parameter.grad.detach().numpy() if parameter.grad is not None else np.full(parameter.shape, np.nan))
        .astype(np.float32).reshape(-1) for parameter in parameters])
    record = {"all_reduce_calls": len(calls), "unused": unused}
    arrays = {"buckets": bucket_of, "launched_ready": np.array(flags, dtype=np.int64), "grads": grads}
    return record, arrays


def innermost_frame(error: BaseException) -> list:
    """[file name, qualified name, line] of the frame that raised ``error`` (a blank stub of the class, say)."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    if trace is None:
        return []
    code = trace.tb_frame.f_code
    return [code.co_filename, getattr(code, "co_qualname", code.co_name), trace.tb_lineno]


@contextlib.contextmanager
def world_of(group):
    """Inside: ``group``, the job's own, is the default process group (``dist.get_world_size()``, ``dist.all_reduce``
    without a group)."""
    world, distributed_c10d.GroupMember.WORLD = distributed_c10d.GroupMember.WORLD, group
    try:
        yield
    finally:
        distributed_c10d.GroupMember.WORLD = world


def main() -> None:
    folder = Path(sys.argv[1])
    jobs = json.loads((folder / "job.json").read_text())["jobs"]
    dist.init_process_group("mpi", timeout=timedelta(seconds=30))  # a rank that never comes: an error, not a hang
    rank = dist.get_rank()
    # a process group (an MPI communicator) of its own for each job, made by every rank in the same order (a
    # collective): a rank that leaves a job early can never meet a collective of that job in the next one
    groups = [dist.new_group(list(range(job["world_size"]))) for job in jobs]
    withheld = os.environ.get("MINITORCH_WITHHELD")
    for index, job in enumerate(jobs):
        world = job["world_size"]
        if rank >= world:
            continue  # a job of fewer ranks: this process is not one of them
        guard = None
        if withheld:
            from grading.withhold import Withholding  # only when graded: a guard of the exercise's pieces per job

            told = json.loads(withheld)
            guard = Withholding(told["exercise"], told["names"])
        prefix = folder / f"job{index}-rank{rank}"
        code = 0
        try:
            with world_of(groups[index]):
                record, arrays = run(job, rank, world, guard)
            np.savez(f"{prefix}.npz", **arrays)
        except BaseException as error:  # noqa: BLE001 - reported to the caller, which raises it in the graded call
            record = {"error": [type(error).__name__, str(error)[:800]], "where": innermost_frame(error)}
            if guard is not None and guard.hits:
                record = {"withheld": guard.hits[0]}
            traceback.print_exc()
            # a blank stub or a withheld piece: what every rank meets at the same point, so this rank goes on to the
            # next job (should another rank wait in this job's group, it times out there); any other error ends it
            code = 0 if isinstance(error, NotImplementedError) or (guard is not None and guard.hits) else 1
        if guard is not None and guard.hits and "withheld" not in record:
            record = {"withheld": guard.hits[0]}
        Path(f"{prefix}.json").write_text(json.dumps(record))
        if code:  # the other ranks may wait in a collective of this job: the jobs after it are not run
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)  # the launcher stops the other ranks; none waits in a collective for this one
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
