"""Chapter 12's piece of the learner's library: DDP's gradient buckets, run across real processes.

``ddp_report(ddp_class, ...)`` trains nothing: it starts ``world_size`` processes with minitorch's launcher
(``python -m minitorch.distributed.run``, MPI underneath), and on every rank wraps the same small model in
``ddp_class(model, bucket_cap_mb=...)``, runs one forward and backward on that rank's share of a global batch,
and records what the wrapper did (``_ddp_rank.py`` is the script each rank runs). The notebook's check function
calls the same report. A check runs all its cases in one launch (``prepare_cases``, before the cases are judged
one by one): the processes start once per check, not once per case, and a case of fewer ranks runs on the first
ranks, in a process group of their own. The exercise's reference, ``one_process_report``, is what minitorch's
``nn.parallel.DistributedDataParallel`` reports, computed in one process (its bucket assignment, and the gradient
of the mean loss over the whole global batch); tests/grading/test_ch12_exercises.py runs minitorch's DDP itself
through the report, on 2 and 3 real processes, and checks that it gives exactly that.

What a ``ddp_class`` promises (the chapter's text, PyTorch's behaviour):

* ``ddp_class(module, bucket_cap_mb=None)``: a Module whose forward is ``module``'s; ``self.buckets`` lists its
  buckets in launch order, each a list of parameters (the tensors themselves);
* a backward averages every gradient over the ranks, with one ``dist.all_reduce`` per bucket, each launched once
  all of its bucket's gradients are ready;
* a forward after a backward that left a parameter without a gradient raises PyTorch's RuntimeError ("Expected to
  have finished reduction in the prior iteration before starting a new one. ...").

How the learner's class reaches the other processes: a class from an importable module travels as its module and
name; a class defined in a notebook travels as the text of the cell that defines it (found through the source
cache that Jupyter, nbgrader's kernel and the batch grader's runner all fill), run on each rank in a namespace
that already holds the names the chapter imports (``minitorch``, ``nn``, ``F``, ``dist``, ``np``, ``math``).

While an exercise is graded with minitorch's DDP withheld (grading/withhold.py), the ranks withhold it too:
the launch goes through the guard's ``run_trusted_program``, which tells the ranks the pieces, and a rank that
reaches one reports it back, so the call fails naming the piece, as it would in one process.
"""

from __future__ import annotations

import contextlib
import io
import json
import linecache
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from grading import checks
from grading.compare import call_arguments
from grading.library import piece

RANK_SCRIPT = Path(__file__).with_name("_ddp_rank.py")
UNFINISHED_REDUCTION = "Expected to have finished reduction in the prior iteration before starting a new one."
LAUNCH_SECONDS = 90  # a bound on one whole launch, ranks started and finished (a collective waits 30 s at most)

DDP_OUTPUTS = (
    "the bucket of each parameter, in registration order (buckets are filled in REVERSE order of registration, "
    "each closing once it holds at least the byte cap; the first one's cap is 1 MiB when bucket_cap_mb is None)",
    "all_reduce calls during one backward, on each rank: one per bucket (a bucket's gradients flattened into one "
    "tensor, never one call per parameter)",
    "for each all_reduce in turn: 1 if it carried bucket k (k = 0, 1, ...) once ALL of that bucket's gradients were "
    "ready (after every one of its parameters' post-accumulate-grad hooks had run), else 0",
    "each rank's gradients after backward, all parameters flattened in registration order: the AVERAGE over the "
    "ranks (the sum divided by the world size), the same on every rank",
    "a forward after a backward that left a parameter unused: 1 refused with PyTorch's RuntimeError 'Expected to "
    "have finished reduction in the prior iteration before starting a new one...', 0 accepted, -1 another error",
)


# -- the model and the data: the same on every rank, and in a test's single process ----------------------
def build_model(widths, seed: int, unused: bool = False):
    """Linear layers of the given widths with tanh between them, from ``minitorch.manual_seed(seed)``; with
    ``unused``, a Linear(2, 2) registered first and never used by forward."""
    import minitorch
    from minitorch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            if unused:
                self.spare = nn.Linear(2, 2)
            self.layers = nn.ModuleList(
                [nn.Linear(int(a), int(b)) for a, b in zip(list(widths)[:-1], list(widths)[1:])])

        def forward(self, x):
            for index, layer in enumerate(self.layers):
                x = layer(x)
                if index < len(self.layers) - 1:
                    x = x.tanh()
            return x

    minitorch.manual_seed(int(seed))
    return Net()


def global_batch(widths, world_size: int, batch_per_rank: int, seed: int):
    """(inputs, targets) of the whole global batch as float32 arrays; rank r's rows are [r·b, (r + 1)·b)."""
    rng = np.random.default_rng(int(seed) + 1)
    rows = int(world_size) * int(batch_per_rank)
    inputs = rng.standard_normal((rows, int(widths[0]))).astype(np.float32)
    targets = rng.standard_normal((rows, int(widths[-1]))).astype(np.float32)
    return inputs, targets


def cap_in_mb(bucket_cap_kb):
    """The case's cap (kilobytes, 0 for PyTorch's default) as DDP's ``bucket_cap_mb`` (None for the default)."""
    return None if float(bucket_cap_kb) == 0 else float(bucket_cap_kb) / 1024


# -- shipping the class to the ranks ---------------------------------------------------------------------------
def shipping(ddp_class) -> dict:
    """How a rank finds ``ddp_class``: by module and name when its module can be imported, else by the text of the
    notebook cell that defines it."""
    if not isinstance(ddp_class, type):
        raise TypeError(f"ddp_report needs your DDP class itself, got {type(ddp_class).__name__}")
    module = sys.modules.get(ddp_class.__module__)
    if module is not None and ddp_class.__module__ != "__main__" and getattr(module, "__file__", None):
        found = module
        for part in ddp_class.__qualname__.split("."):
            found = getattr(found, part, None)
        if found is ddp_class:
            return {"module": ddp_class.__module__, "qualname": ddp_class.__qualname__}
    for value in vars(ddp_class).values():
        function = getattr(value, "__func__", value)
        code = getattr(function, "__code__", None)
        if code is None:
            continue
        lines = linecache.getlines(code.co_filename)
        if lines:
            return {"source": "".join(lines), "filename": code.co_filename, "name": ddp_class.__name__}
    raise RuntimeError(
        f"cannot find the source of {ddp_class.__name__}: define it in a notebook cell (with the imports it needs) "
        "so that it can be sent to the other processes")


def _environment() -> dict:
    """This process's environment, with the folders that hold ``grading`` and ``minitorch`` importable."""
    import minitorch

    folders = [str(Path(__file__).resolve().parents[2]), str(Path(minitorch.__file__).resolve().parents[1])]
    environment = dict(os.environ)
    if environment.get("PYTHONPATH"):
        folders.append(environment["PYTHONPATH"])
    environment["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(folders))
    environment["OMP_NUM_THREADS"] = "1"
    return environment


def _active_guard():
    from grading.withhold import active_guard

    return active_guard()


def _launch(job_folder: Path, world_size: int, guard):
    command = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", str(world_size),
               str(RANK_SCRIPT), str(job_folder)]
    if guard is not None:  # graded with pieces withheld: the ranks withhold them too
        return guard.run_trusted_program(command, env=_environment(), timeout=LAUNCH_SECONDS)
    from grading.withhold import _finish_program

    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env=_environment(), text=True, errors="replace", start_new_session=True)
    return _finish_program(process, LAUNCH_SECONDS)


def _job(ddp_class, widths, world_size, bucket_cap_kb, batch_per_rank, seed) -> dict:
    return {
        "class": shipping(ddp_class),
        "widths": [int(w) for w in np.asarray(widths).reshape(-1)],
        "world_size": int(world_size),
        "bucket_cap_kb": float(bucket_cap_kb),
        "batch_per_rank": int(batch_per_rank),
        "seed": int(seed),
    }


def _key(job: dict, guard) -> str:
    """What a launch's outcome depends on: the job (the class's text, the case) and the pieces withheld."""
    return json.dumps([job, [guard.exercise, list(guard.names)] if guard is not None else None])


def ddp_report(ddp_class, widths, world_size, bucket_cap_kb, batch_per_rank, seed):
    """Everything the exercise compares (DDP_OUTPUTS), for ``ddp_class`` on ``world_size`` real processes."""
    job = _job(ddp_class, widths, world_size, bucket_cap_kb, batch_per_rank, seed)
    if _collected is not None:  # a check collecting its cases (prepare_cases): no launch, only the job
        _collected.append(job)
        raise _Collecting
    guard = _active_guard()
    key = _key(job, guard)
    # A check and then check_hidden on the same public case, in one test cell, launch the processes once; a check's
    # cases were launched together by prepare_cases before this call. Called outside a check (the chapter's cell
    # that prints the report), an outcome made under the check's withheld pieces is the same outcome when no rank
    # reached one of them: withholding changed nothing.
    if guard is None and key not in _outcomes and json.dumps(job) in _outcomes_under_a_guard:
        _outcomes[key] = _outcomes_under_a_guard[json.dumps(job)]
    if key not in _outcomes:
        returncode, output, records, arrays = _run_jobs([job], guard)[0]
        if key not in _outcomes:  # a failure that is not certain to repeat: raised, and not remembered
            _raise_what_the_ranks_raised(records, guard, returncode, output)
            raise RuntimeError(f"the {len(records)} processes finished without their results:\n{output[-1500:]}")
    kind, value = _outcomes[key]
    if kind == "raised":
        _raise_what_the_ranks_raised(value, guard, 1, "")
    return tuple(np.copy(array) for array in value)


# job -> ("report", the report) of a launch that finished without an error, or ("raised", the ranks' records) when
# a rank reached a withheld piece or a blank stub (NotImplementedError): outcomes that the same job always has.
_outcomes: dict[str, tuple] = {}
_outcomes_under_a_guard: dict[str, tuple] = {}  # job -> its outcome with pieces withheld, when none was reached
_collected: list | None = None


class _Collecting(BaseException):
    """Raised by ``ddp_report`` while ``prepare_cases`` collects a check's jobs (a BaseException, so that an
    ``except Exception`` in the function under check does not swallow it)."""


def _run_jobs(jobs: list[dict], guard) -> list[tuple]:
    """Run ``jobs`` in ONE launch of as many processes as the largest job needs (a job of fewer ranks runs on the
    first ranks, in a process group of its own; the others go on to the next job), and remember each job's outcome
    that will not change (see :data:`_outcomes`). Returns (exit code, output, ranks' records, ranks' arrays) per job.
    """
    launched = max(job["world_size"] for job in jobs)
    with tempfile.TemporaryDirectory(prefix="ddp-report-") as folder:
        folder = Path(folder)
        (folder / "job.json").write_text(json.dumps({"jobs": jobs}))
        returncode, output = _launch(folder, launched, guard)
        results = []
        for index, job in enumerate(jobs):
            prefix = folder / f"job{index}-rank"
            records = [json.loads(Path(f"{prefix}{rank}.json").read_text())
                       if Path(f"{prefix}{rank}.json").exists() else None for rank in range(job["world_size"])]
            arrays = [dict(np.load(f"{prefix}{rank}.npz")) if Path(f"{prefix}{rank}.npz").exists() else None
                      for rank in range(job["world_size"])]
            results.append((returncode, output, records, arrays))
    for job, (_, _, records, arrays) in zip(jobs, results):
        outcome = _outcome(records, arrays)
        if outcome is not None:
            for remembered in (_outcomes, _outcomes_under_a_guard):
                if len(remembered) >= 64:
                    remembered.pop(next(iter(remembered)))
            _outcomes[_key(job, guard)] = outcome
            if guard is not None and not any(record is not None and (record.get("withheld") or (
                    record.get("error") or [""])[0] == "WithheldPiece") for record in records):  # fmt: skip
                _outcomes_under_a_guard[json.dumps(job)] = outcome
    return results


def _outcome(records, arrays):
    """A job's outcome when it is certain (a report, a withheld piece reached, a blank stub), else None."""
    if any(record is not None and (record.get("withheld") or (record.get("error") or [""])[0] in (
            "NotImplementedError", "WithheldPiece")) for record in records):  # fmt: skip
        return "raised", records
    if any(record is None or "error" in record for record in records) or any(found is None for found in arrays):
        return None  # a crash, a timeout, the learner's error: raised from this launch's own records
    first = arrays[0]
    return "report", (
        first["buckets"],
        np.array([record["all_reduce_calls"] for record in records], dtype=np.int64),
        first["launched_ready"],
        np.stack([rank_arrays["grads"] for rank_arrays in arrays]),
        np.int64(records[0]["unused"]),
    )


def prepare_cases(exercise, function, cases) -> None:
    """All the cases of one check in one launch (``grading.checks.batch_cases``): each case's call of ``function``
    (the learner's ``ddp_report_of_mine``) is first made only to collect its job, then every job not yet run goes
    to one set of processes, under the exercise's withheld pieces. The check then calls ``function`` on each case
    as always, and each call finds its outcome. Anything unusual (the function does not reach ``ddp_report``, or
    raises first) leaves the cases to be launched one by one."""
    global _collected
    guard = checks._withholding(exercise)
    if guard is not None and (guard.refusal(function) or guard.replaced):
        return  # the check refuses before any call: nothing to launch
    jobs = []
    for case in cases:
        _collected = []
        try:
            with checks.quiet(), contextlib.redirect_stdout(io.StringIO()):
                function(*call_arguments(case, exercise.input_type))
        except _Collecting:
            pass
        except Exception:  # noqa: BLE001 - the function's own error: its case will say so when it is checked
            return
        finally:
            collected, _collected = _collected, None
        if len(collected) != 1:
            return
        jobs.extend(job for job in collected if _key(job, guard) not in _outcomes and job not in jobs)
    if jobs:
        try:
            _run_jobs(jobs, guard)
        except Exception:  # noqa: BLE001 - a launch that cannot start: each case's own call reports it, as before
            return


def _raise_what_the_ranks_raised(records, guard, returncode, output):
    """A rank's withheld piece, NotImplementedError (a blank stub) or error, raised here, in the graded call."""
    for rank, record in enumerate(records):
        if record is not None and record.get("withheld"):
            piece_name = record["withheld"]
            if guard is not None:
                guard.record_hit(piece_name)
                from grading.withhold import WithheldPiece

                raise WithheldPiece(guard.message(piece_name), piece_name)
            raise RuntimeError(f"rank {rank} reached the withheld {piece_name}")
    for rank, record in enumerate(records):
        if record is not None and record.get("error"):
            kind, message = record["error"]
            if kind in ("NotImplementedError", "WithheldPiece"):
                _raise_where_the_rank_raised(NotImplementedError(message), record.get("where"))
            raise RuntimeError(f"on rank {rank} of {len(records)}, your class raised {kind}: {message}")
    if returncode != 0 or any(record is None for record in records):
        tail = output[-1500:] if isinstance(output, str) else ""
        raise RuntimeError(f"the {len(records)} processes did not finish (exit code {returncode}):\n{tail}")


def _raise_where_the_rank_raised(error: BaseException, where) -> None:
    """Raise ``error`` from a frame named as the rank's innermost one (file, qualified name, line): a blank stub
    of the learner's class is then named as the stub that raised, as it would be in one process."""
    if not where:
        raise error
    filename, qualname, line = where
    code = compile("\n" * (max(int(line), 1) - 1) + "raise error_from_the_rank", str(filename), "exec")
    code = code.replace(co_name=str(qualname).rpartition(".")[2], co_qualname=str(qualname))
    exec(code, {"error_from_the_rank": error})


# -- what minitorch's DDP reports, computed in one process: the exercise's reference ---------------------------
def one_process_report(widths, world_size, bucket_cap_kb, batch_per_rank, seed):
    """The report's outputs as minitorch's DDP gives them (tests/grading/test_ch12_exercises.py runs it in real
    processes and compares), computed in this process alone: minitorch's bucket assignment (PyTorch's rule, on
    the parameters in reverse registration order), one all-reduce per bucket, each once its bucket is complete,
    on every rank the gradient of ONE process on the global batch (the average of the ranks' gradients, since
    every rank has the same number of rows), and the unused parameter refused."""
    import minitorch
    import minitorch.nn.functional as F
    from minitorch.nn.parallel.distributed import _compute_bucket_assignment_by_size

    model = build_model(widths, seed)
    parameters = list(model.parameters())
    cap_mb = cap_in_mb(bucket_cap_kb)
    cap = int((25 if cap_mb is None else cap_mb) * 1024 * 1024)
    first_cap = 1024 * 1024 if cap_mb is None else cap
    assignment = _compute_bucket_assignment_by_size(parameters[::-1], [first_cap, cap])
    bucket_of = np.empty(len(parameters), dtype=np.int64)
    for k, bucket in enumerate(assignment):
        bucket_of[[len(parameters) - 1 - position for position in bucket]] = k
    inputs, targets = global_batch(widths, world_size, batch_per_rank, seed)
    F.mse_loss(model(minitorch.tensor(inputs)), minitorch.tensor(targets)).backward()
    grads = np.concatenate([parameter.grad.numpy().astype(np.float32).reshape(-1) for parameter in parameters])
    world_size = int(world_size)
    return (
        bucket_of,
        np.full(world_size, len(assignment), dtype=np.int64),
        np.ones(len(assignment), dtype=np.int64),
        np.tile(grads, (world_size, 1)),
        np.int64(1),
    )


# -- minitorch's DDP as a ddp_class: the tests' check of the reference, and the fallback of the piece -----------
def minitorch_ddp_class():
    """``nn.parallel.DistributedDataParallel`` with the report's ``buckets`` (lists of parameters, in launch order)."""
    return MinitorchBuckets


def _minitorch_buckets_class():
    from minitorch.nn.parallel import DistributedDataParallel

    class MinitorchBuckets(DistributedDataParallel):
        @property
        def buckets(self):
            return [list(bucket.parameters) for bucket in self._buckets]

    MinitorchBuckets.__module__ = __name__
    MinitorchBuckets.__qualname__ = "MinitorchBuckets"
    return MinitorchBuckets


MinitorchBuckets = _minitorch_buckets_class()

checks.batch_cases("ch12.ddp_buckets", prepare_cases)
piece("BucketedDDP", chapter="12_multiple_devices", cells=("ch12-ddp-buckets",),
      checks={"ch12.ddp_buckets": "ddp_report_of_mine"}, fallback=minitorch_ddp_class)  # fmt: skip
