"""Chapter 12's exercise checks accept ``chunk`` itself as scatter_batch and reject the typical
mistakes: chunks split evenly or floor-sized, outputs stacked, or concatenated even when they are 0-d, a
plain mean or sum of the replicas' gradients, a replicated Linear that averages its gradients, takes
the bias gradient as a mean or forgets the bias; a ring all-reduce that stops after the reduce-scatter,
averages instead of summing, or passes the wrong chunks in its all-gather; a rank's share taken as a
block, not padded, padded with the last index, or ignoring drop_last.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check


def test_chunk_itself_passes(capsys):
    check("ch12.scatter_batch", lambda x, num_chunks: x.chunk(num_chunks))
    assert "public cases pass" in capsys.readouterr().out


# -- typical mistakes -------------------------------------------------------------------------------
def split_evenly(x, num_chunks):
    """numpy.array_split's rule: always num_chunks pieces, sizes differing by at most one."""
    rows = x.shape[0]
    bounds = [index * rows // num_chunks for index in range(num_chunks + 1)]
    return tuple(x[start:stop] for start, stop in zip(bounds[:-1], bounds[1:]))


def floor_size(x, num_chunks):
    size = max(x.shape[0] // num_chunks, 1)
    return tuple(x[start:start + size] for start in range(0, x.shape[0], size))


def stack_instead_of_cat(*outputs):
    return minitorch.stack(list(outputs), dim=0)


def cat_only(*outputs):
    return minitorch.cat(list(outputs), dim=0)  # fails on 0-d outputs


def plain_mean(replica_grads, chunk_sizes):
    return replica_grads.mean(dim=0)


def plain_sum(replica_grads, chunk_sizes):
    return replica_grads.sum(dim=0)


def _pieces(x, grad_output, num_replicas):
    size = -(-x.shape[0] // num_replicas)
    return [(x[s:s + size], grad_output[s:s + size]) for s in range(0, x.shape[0], size)]


def averaged_gradients(x, weight, bias, grad_output, num_replicas):
    pieces = _pieces(x, grad_output, num_replicas)
    output = minitorch.cat([piece @ weight.T + bias for piece, _ in pieces])
    grad_weight = sum(grad.T @ piece for piece, grad in pieces) / len(pieces)
    grad_bias = sum(grad.sum(dim=0) for _, grad in pieces) / len(pieces)
    return output, grad_weight, grad_bias


def bias_gradient_as_mean(x, weight, bias, grad_output, num_replicas):
    pieces = _pieces(x, grad_output, num_replicas)
    output = minitorch.cat([piece @ weight.T + bias for piece, _ in pieces])
    grad_weight = sum(grad.T @ piece for piece, grad in pieces)
    grad_bias = sum(grad.mean(dim=0) for _, grad in pieces)  # the bias is added to every row: its gradient is a sum
    return output, grad_weight, grad_bias


def output_without_bias(x, weight, bias, grad_output, num_replicas):
    pieces = _pieces(x, grad_output, num_replicas)
    output = minitorch.cat([piece @ weight.T for piece, _ in pieces])
    return output, sum(grad.T @ piece for piece, grad in pieces), sum(grad.sum(dim=0) for _, grad in pieces)


def _ring_chunks(buffers):
    world = buffers.shape[0]
    return world, [list(row.tensor_split(world)) for row in buffers.clone()]


def _reduce_scatter(world, chunks):
    for step in range(world - 1):
        sent = [chunks[k][(k - step) % world].clone() for k in range(world)]
        for k in range(world):
            c = (k - step) % world
            chunks[(k + 1) % world][c] = chunks[(k + 1) % world][c] + sent[k]


def _all_gather(world, chunks):
    for step in range(world - 1):
        sent = [chunks[k][(k + 1 - step) % world].clone() for k in range(world)]
        for k in range(world):
            chunks[(k + 1) % world][(k + 1 - step) % world] = sent[k]


def reduce_scatter_only(buffers):
    world, chunks = _ring_chunks(buffers)
    _reduce_scatter(world, chunks)
    return minitorch.stack([minitorch.cat(row) for row in chunks])


def ring_average(buffers):
    world, chunks = _ring_chunks(buffers)
    _reduce_scatter(world, chunks)
    _all_gather(world, chunks)
    return minitorch.stack([minitorch.cat(row) for row in chunks]) / world


def all_gather_with_the_wrong_chunks(buffers):
    """The all-gather phase sends chunk (k - s) % W, as the reduce-scatter did: not the complete chunk it holds."""
    world, chunks = _ring_chunks(buffers)
    _reduce_scatter(world, chunks)
    for step in range(world - 1):
        sent = [chunks[k][(k - step) % world].clone() for k in range(world)]
        for k in range(world):
            chunks[(k + 1) % world][(k - step) % world] = sent[k]
    return minitorch.stack([minitorch.cat(row) for row in chunks])


def block_share(indices, num_replicas, rank, drop_last):
    size = -(-indices.shape[0] // num_replicas)
    return indices[rank * size:(rank + 1) * size]


def no_padding(indices, num_replicas, rank, drop_last):
    return indices[rank::num_replicas]


def padded_with_last(indices, num_replicas, rank, drop_last):
    count = indices.shape[0]
    total = -(-count // num_replicas) * num_replicas
    padded = minitorch.cat([indices, indices[-1:].repeat(total - count)])
    return padded[rank::num_replicas]


def drop_last_ignored(indices, num_replicas, rank, drop_last):
    count = indices.shape[0]
    total = -(-count // num_replicas) * num_replicas
    return indices.repeat(2)[:total][rank::num_replicas]


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("scatter_batch", split_evenly),
        ("scatter_batch", floor_size),
        ("gather_outputs", stack_instead_of_cat),
        ("gather_outputs", cat_only),
        ("average_gradients", plain_mean),
        ("average_gradients", plain_sum),
        ("replicated_linear", averaged_gradients),
        ("replicated_linear", bias_gradient_as_mean),
        ("replicated_linear", output_without_bias),
        ("ring_all_reduce", reduce_scatter_only),
        ("ring_all_reduce", ring_average),
        ("ring_all_reduce", all_gather_with_the_wrong_chunks),
        ("rank_indices", block_share),
        ("rank_indices", no_padding),
        ("rank_indices", padded_with_last),
        ("rank_indices", drop_last_ignored),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch12.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out


# -- exercise 7: DDP's gradient buckets, across real processes ---------------------------------------------------
# The classes below travel to the ranks by import (this module), as the notebook's travel by their cell's text.
import json  # noqa: E402

import numpy as np  # noqa: E402

import minitorch.distributed as dist  # noqa: E402
from grading import check_hidden  # noqa: E402
from grading.library.ddp import (  # noqa: E402
    UNFINISHED_REDUCTION,
    build_model,
    ddp_report,
    minitorch_ddp_class,
    one_process_report,
)
from minitorch import nn  # noqa: E402

DDP_CASES = [  # (widths, world size, cap in KB (0: PyTorch's default), rows per rank, seed)
    (np.array([5, 16, 16, 3]), 2, 0.5, 3, 1230),
    (np.array([6, 520, 520, 3]), 3, 0.0, 2, 1231),
]


class AsyncBucketsDDP(nn.Module):
    """A correct BucketedDDP written another way: caps from running byte totals, non-blocking all-reduces (SUM,
    divided afterwards) waited for when the last bucket has gone, counters rebuilt at every forward."""

    def __init__(self, module, bucket_cap_mb=None):
        super().__init__()
        self.module = module
        params = [p for p in module.parameters() if p.requires_grad]
        limit = 25 * 2**20 if bucket_cap_mb is None else int(bucket_cap_mb * 2**20)
        first = 2**20 if bucket_cap_mb is None else limit
        self.buckets = self.assign(params, first, limit)
        self.position = {}
        for number, bucket in enumerate(self.buckets):
            for p in bucket:
                self.position[id(p)] = number
        self.works = []
        self.arrived = [0] * len(self.buckets)
        self.launched = 0
        for p in params:
            p.register_post_accumulate_grad_hook(self.on_gradient)

    @staticmethod
    def assign(params, first, limit):
        buckets, total = [[]], 0
        for p in params[::-1]:
            buckets[-1].append(p)
            total += p.nbytes
            if total >= (first if len(buckets) == 1 else limit):
                buckets.append([])
                total = 0
        return [bucket for bucket in buckets if bucket]

    def forward(self, *args, **kwargs):
        if any(self.arrived):
            for work, _, _ in self.works:
                work.wait()
            self.works = []
            raise RuntimeError(UNFINISHED_REDUCTION + " Parameters which did not receive grad: ...")
        return self.module(*args, **kwargs)

    def on_gradient(self, p):
        self.arrived[self.position[id(p)]] += 1
        while self.launched < len(self.buckets) and self.arrived[self.launched] == len(self.buckets[self.launched]):
            self.launch(self.buckets[self.launched])
            self.launched += 1
        if self.launched == len(self.buckets):
            for work, flat, bucket in self.works:
                work.wait()
                flat.div_(dist.get_world_size())
                for piece, q in zip(flat.split([q.numel() for q in bucket]), bucket):
                    q.grad.copy_(piece.view_as(q))
            self.works, self.arrived, self.launched = [], [0] * len(self.buckets), 0

    def launch(self, bucket):
        flat = minitorch.cat([q.grad.flatten() for q in bucket])
        self.works.append((dist.all_reduce(flat, op=dist.ReduceOp.SUM, async_op=True), flat, bucket))


class ForwardOrder(AsyncBucketsDDP):
    """Buckets filled from the first registered parameter: the last layer's gradients wait for the first's."""

    @staticmethod
    def assign(params, first, limit):
        return AsyncBucketsDDP.assign(params[::-1], first, limit)


class EachParameterAlone(AsyncBucketsDDP):
    """Buckets formed, but every gradient all-reduced by a call of its own."""

    def launch(self, bucket):
        for q in bucket:
            flat = q.grad.flatten()
            self.works.append((dist.all_reduce(flat, async_op=True), flat, [q]))


class SumNotAverage(AsyncBucketsDDP):
    """The all-reduce's sum kept: every gradient world_size times too large."""

    def on_gradient(self, p):
        self.arrived[self.position[id(p)]] += 1
        while self.launched < len(self.buckets) and self.arrived[self.launched] == len(self.buckets[self.launched]):
            self.launch(self.buckets[self.launched])
            self.launched += 1
        if self.launched == len(self.buckets):
            for work, flat, bucket in self.works:
                work.wait()
                for piece, q in zip(flat.split([q.numel() for q in bucket]), bucket):
                    q.grad.copy_(piece.view_as(q))
            self.works, self.arrived, self.launched = [], [0] * len(self.buckets), 0


class LaunchedTooEarly(AsyncBucketsDDP):
    """A bucket launched when all but one of its gradients are ready (an off-by-one in the count), the missing one
    taken as zeros."""

    def on_gradient(self, p):
        self.arrived[self.position[id(p)]] += 1
        while self.launched < len(self.buckets) and (
            self.arrived[self.launched] >= len(self.buckets[self.launched]) - 1
        ):
            self.launch(self.buckets[self.launched])
            self.launched += 1
        if self.launched == len(self.buckets) and sum(self.arrived) == sum(map(len, self.buckets)):
            for work, flat, bucket in self.works:
                work.wait()
                flat.div_(dist.get_world_size())
                for piece, q in zip(flat.split([q.numel() for q in bucket]), bucket):
                    if q.grad is None:
                        q.grad = piece.view_as(q).clone()
                    else:
                        q.grad.copy_(piece.view_as(q))
            self.works, self.arrived, self.launched = [], [0] * len(self.buckets), 0

    def launch(self, bucket):
        grads = [q.grad.flatten() if q.grad is not None else minitorch.zeros(q.numel()) for q in bucket]
        flat = minitorch.cat(grads)
        self.works.append((dist.all_reduce(flat, async_op=True), flat, bucket))


class AcceptsUnusedParameters(AsyncBucketsDDP):
    """Forward never refuses: a backward that left a bucket unreduced goes unnoticed, as do its stale gradients."""

    def forward(self, *args, **kwargs):
        for work, _, _ in self.works:
            work.wait()
        self.works, self.arrived, self.launched = [], [0] * len(self.buckets), 0
        return self.module(*args, **kwargs)


class OnMinitorchsDDP(minitorch_ddp_class()):
    """Not built: minitorch's own DDP under another name."""


def _mine(ddp_class):
    def ddp_report_of_mine(widths, world_size, bucket_cap_kb, batch_per_rank, seed):
        return ddp_report(ddp_class, widths, world_size, bucket_cap_kb, batch_per_rank, seed)

    return ddp_report_of_mine


def test_ddp_buckets_written_differently_passes(capsys):
    check("ch12.ddp_buckets", _mine(AsyncBucketsDDP))
    assert "public cases pass" in capsys.readouterr().out


@pytest.mark.parametrize(
    "mistake, concept",
    [
        (ForwardOrder, "REVERSE order of registration"),
        (EachParameterAlone, "one per bucket"),
        (SumNotAverage, "AVERAGE over the ranks"),
        (LaunchedTooEarly, "ALL of that bucket's gradients were ready"),
        (AcceptsUnusedParameters, "refused with PyTorch's RuntimeError"),
    ],
    ids=lambda value: value.__name__ if isinstance(value, type) else None,
)
def test_ddp_bucket_mistakes_fail_with_feedback_naming_the_concept(mistake, concept, capsys):
    with pytest.raises(AssertionError):
        check("ch12.ddp_buckets", _mine(mistake))
    out = capsys.readouterr().out
    assert "FAILED" in out and concept in out, out


def test_an_answer_on_minitorchs_ddp_fails_naming_the_piece(capsys):
    """The ranks withhold minitorch's DDP too: a subclass of it fails, naming it."""
    with pytest.raises(AssertionError):
        check("ch12.ddp_buckets", _mine(OnMinitorchsDDP))
    out = capsys.readouterr().out
    assert "calls minitorch's own minitorch.nn.parallel.DistributedDataParallel" in out, out


HIDDEN_DDP_CASES = [  # the instructor's hidden cases (notebooks/tools/chapters/12_multiple_devices.py)
    (np.array([4, 9, 8, 7, 5]), 3, 0.125, 2, 12700),
    (np.array([3, 600, 450, 6]), 2, 0.0, 1, 12701),
    (np.array([6, 10, 4]), 2, 64.0, 4, 12702),
]


@pytest.mark.parametrize("case", DDP_CASES + HIDDEN_DDP_CASES, ids=lambda case: f"{case[1]}ranks-{case[2]}KB")
def test_minitorchs_ddp_in_real_processes_reports_the_reference(case):
    """minitorch's DDP itself, run through the report on 2 and 3 real processes, gives the reference's outputs: its
    buckets, one all-reduce per bucket (counted on every rank), each launched once its bucket was complete, the
    unused parameter refused, and on every rank the gradient of one process on the global batch, to 1e-6."""
    buckets, calls, launched_ready, grads, refused = ddp_report(minitorch_ddp_class(), *case)
    expected = one_process_report(*case)
    assert buckets.tolist() == expected[0].tolist()
    assert calls.tolist() == expected[1].tolist() == [buckets.max() + 1] * case[1]
    assert launched_ready.tolist() == expected[2].tolist()
    assert grads.shape == expected[3].shape and np.abs(grads - expected[3]).max() <= 1e-6
    assert refused == expected[4] == 1
    assert len(set(buckets.tolist())) >= (1 if case[2] == 64.0 else 2)  # several buckets, except in the large cap


@pytest.mark.parametrize("case", DDP_CASES + HIDDEN_DDP_CASES, ids=lambda case: f"{case[1]}ranks-{case[2]}KB")
def test_the_reference_buckets_are_pytorchs(case):
    """The buckets the reference reports are PyTorch's assignment for the same parameters (reverse registration
    order, PyTorch's first and later caps)."""
    torch = require_torch_or_skip()
    import torch.distributed as torch_dist

    widths, world, cap_kb, batch, seed = case
    buckets = one_process_report(*case)[0]
    sizes = [p.numel() for p in build_model(widths, seed).parameters()]
    cap = 25 * 2**20 if cap_kb == 0 else int(cap_kb * 1024)
    first = 2**20 if cap_kb == 0 else cap
    tensors = [torch.zeros(size) for size in sizes][::-1]
    expected, _ = torch_dist._compute_bucket_assignment_by_size(
        tensors, [first, cap], [False] * len(sizes), list(reversed(range(len(sizes)))))
    assert [sorted(np.flatnonzero(buckets == k).tolist(), reverse=True) for k in range(buckets.max() + 1)] == [
        list(bucket) for bucket in expected]


def require_torch_or_skip():
    from tests.support import require_torch

    return require_torch()


class BlankDDP(nn.Module):
    """The learner's edition: the stub raises NotImplementedError on every rank."""

    def __init__(self, module, bucket_cap_mb=None):
        super().__init__()
        raise NotImplementedError


class FailsOnTwoRanks(AsyncBucketsDDP):
    """Correct on 3 ranks; on 2 ranks an error of the learner's own (a rank stops in the first job of a launch)."""

    def __init__(self, module, bucket_cap_mb=None):
        if dist.get_world_size() == 2:
            raise ValueError("two ranks are not enough")
        super().__init__(module, bucket_cap_mb)


@pytest.fixture
def launches(monkeypatch):
    """The launches of rank processes made from here on (each: the jobs it ran), with nothing remembered before."""
    from grading.library import ddp

    monkeypatch.setattr(ddp, "_outcomes", {})
    monkeypatch.setattr(ddp, "_outcomes_under_a_guard", {})
    made = []
    launch = ddp._launch

    def counted(folder, world_size, guard):
        made.append((world_size, [job["world_size"] for job in json.loads((folder / "job.json").read_text())["jobs"]]))
        return launch(folder, world_size, guard)

    monkeypatch.setattr(ddp, "_launch", counted)
    return made


def test_a_check_starts_the_processes_once_for_all_its_cases(launches, capsys):
    """check: one launch of 3 processes runs both public cases, the 2-rank one on a group of 2 (each rank's call
    count and gradient: 2 of them); check_hidden: one more launch, for the 3 hidden cases only; the chapter's cell
    that prints the report outside the check launches nothing."""
    check("ch12.ddp_buckets", _mine(AsyncBucketsDDP))
    assert "all 2 public cases pass" in capsys.readouterr().out
    assert launches == [(3, [2, 3])]
    check_hidden("ch12.ddp_buckets", _mine(AsyncBucketsDDP), HIDDEN_DDP_CASES)
    assert "all 3 hidden cases pass" in capsys.readouterr().out
    assert launches == [(3, [2, 3]), (3, [3, 2, 2])]
    buckets, calls, launched_ready, grads, refused = ddp_report(AsyncBucketsDDP, *DDP_CASES[0])
    expected = one_process_report(*DDP_CASES[0])
    assert calls.tolist() == expected[1].tolist() and grads.shape == expected[3].shape == (2, grads.shape[1])
    assert np.abs(grads - expected[3]).max() <= 1e-6 and len(launches) == 2


def test_a_blank_class_is_not_launched_again(launches, capsys):
    """The learner's edition: the blank stub is reported as not implemented; the check that my_library's judge runs
    next (the same public cases, the same cell text) and the chapter's cell that prints the report find that
    outcome remembered, and start no process."""
    with pytest.raises(AssertionError, match="not implemented yet"):
        check("ch12.ddp_buckets", _mine(BlankDDP))
    assert "ch12.ddp_buckets: not implemented yet" in capsys.readouterr().out
    # both cases in one launch: a rank that meets the stub reports it and goes on to the next job
    assert launches == [(3, [2, 3])]
    made = len(launches)
    with pytest.raises(AssertionError, match="not implemented yet"):
        check("ch12.ddp_buckets", _mine(BlankDDP))
    with pytest.raises(NotImplementedError):  # the chapter's cell that prints the report, outside the check
        ddp_report(BlankDDP, *DDP_CASES[0])
    assert len(launches) == made


def test_a_rank_error_in_one_job_leaves_the_other_jobs_to_their_own_launch(launches, capsys):
    """An error of the learner's on 2 ranks is reported for that case; the 3-rank case, which the same launch could
    not finish, runs in a launch of its own and gives minitorch's report."""
    with pytest.raises(AssertionError):
        check("ch12.ddp_buckets", _mine(FailsOnTwoRanks))
    out = capsys.readouterr().out
    assert "public case 1 of 2" in out and "ValueError" in out and "two ranks are not enough" in out, out
    assert "1 more public case" not in out, out
    assert [world for world, _ in launches] == [3, 2, 3]  # both cases together, then each case alone
    buckets, calls, launched_ready, grads, refused = ddp_report(FailsOnTwoRanks, *DDP_CASES[1])
    expected = one_process_report(*DDP_CASES[1])
    assert buckets.tolist() == expected[0].tolist() and np.abs(grads - expected[3]).max() <= 1e-6


def test_the_refusal_is_pytorchs_message():
    """The first sentence the report looks for is the one minitorch's DDP raises (PyTorch's words)."""
    import inspect

    from minitorch.nn.parallel import distributed

    assert UNFINISHED_REDUCTION in inspect.getsource(distributed)


DDP_SHORTCUT = """
from grading.library.ddp import ddp_report, minitorch_ddp_class


def ddp_report_of_mine(widths, world_size, bucket_cap_kb, batch_per_rank, seed):
    return ddp_report(minitorch_ddp_class(), widths, world_size, bucket_cap_kb, batch_per_rank, seed)
"""


def test_the_batch_grader_runs_the_ranks_in_its_sandbox_and_scores_minitorchs_ddp_zero(tmp_path):
    """minitorch-grade (bubblewrap): the whole chapter, its launches included, scores full marks; an answer whose
    ranks run minitorch's DDP loses exactly this exercise, the feedback naming the withheld piece."""
    from tests.grading.chapter_notebooks import grade_with_shortcut

    grade_with_shortcut(tmp_path, "12_multiple_devices", DDP_SHORTCUT, "ch12.ddp_buckets")


def test_nbgrader_autograde_runs_the_ranks_and_scores_minitorchs_ddp_zero(tmp_path):
    """nbgrader's own path (the learner's kernel, no sandbox): exercise 7's cells as a small assignment; the
    instructor's solution keeps its 3 points, an answer whose ranks run minitorch's DDP scores 0 and is told why."""
    import nbformat

    from tests.grading.chapter_notebooks import COURSE
    from tests.grading.test_nbgrader import REPOSITORY, _nbgrader
    from tests.support import require

    require("nbgrader", "the instructor extra: generates the learner's edition")
    chapter = COURSE / "source" / "12_multiple_devices" / "12_multiple_devices.ipynb"
    cells = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell for cell in nbformat.read(chapter, 4).cells}
    imports = nbformat.v4.new_code_cell("import numpy as np\n\nimport minitorch\nfrom grading import check")
    document = nbformat.v4.new_notebook(cells=[imports, cells["ch12-ddp-buckets"], cells["ch12-ddp-buckets-tests"]])
    document.metadata = nbformat.read(chapter, 4).metadata
    course = tmp_path / "course"
    (course / "source" / "ddp").mkdir(parents=True)
    nbformat.write(document, course / "source" / "ddp" / "ddp.ipynb")
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"load_subconfig({str(REPOSITORY / 'notebooks' / 'nbgrader_config.py')!r})\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{course}/gradebook.db'\n"
    )
    _nbgrader(course, "generate_assignment", "ddp", "--force")
    shortcut = nbformat.read(course / "source" / "ddp" / "ddp.ipynb", 4)
    shortcut.cells.insert(2, nbformat.v4.new_code_cell(DDP_SHORTCUT))
    for student, submitted in (("honest", document), ("shortcut", shortcut)):
        folder = course / "submitted" / student / "ddp"
        folder.mkdir(parents=True)
        nbformat.write(submitted, folder / "ddp.ipynb")
    _nbgrader(course, "autograde", "ddp", "--force")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        scores = {student: gradebook.find_submission("ddp", student).score for student in ("honest", "shortcut")}
    assert scores == {"honest": 3.0, "shortcut": 0.0}
    graded = (course / "autograded" / "shortcut" / "ddp" / "ddp.ipynb").read_text()
    assert "calls minitorch's own minitorch.nn.parallel.DistributedDataParallel" in graded


def test_a_later_chapter_takes_bucketed_ddp_from_the_saved_chapter_12(tmp_path, monkeypatch, capsys):
    """The piece of the learner's library: a later chapter runs the saved chapter's cell, whose class still travels
    to the ranks as that cell's text, passes its public checks there and is handed out; blank, minitorch's DDP."""
    import shutil

    from grading import library
    from tests.grading.chapter_notebooks import COURSE

    course = tmp_path / "course"
    (course / "12_multiple_devices").mkdir(parents=True)
    saved = course / "12_multiple_devices" / "12_multiple_devices.ipynb"
    shutil.copy(COURSE / "source" / "12_multiple_devices" / "12_multiple_devices.ipynb", saved)
    (course / "13_ecosystem_and_pytorch").mkdir()
    monkeypatch.chdir(course / "13_ecosystem_and_pytorch")
    mine = library.use("BucketedDDP", {})
    assert capsys.readouterr().out == f"using your BucketedDDP ({saved})\n"
    assert mine.__name__ == "BucketedDDP" and mine is not minitorch_ddp_class()
    shutil.copy(COURSE / "release" / "12_multiple_devices" / "12_multiple_devices.ipynb", saved)
    assert library.use("BucketedDDP", {}) is minitorch_ddp_class()
    assert capsys.readouterr().out == "your BucketedDDP is still blank: using minitorch's\n"


def test_a_graded_call_may_start_only_the_grading_packages_rank_script():
    """The exception the withholding makes for exercise 7 is narrow: this Python running the rank script (through
    minitorch's launcher or not); any other program started through it is a hit, as every program start is."""
    import sys

    from grading.library.ddp import RANK_SCRIPT
    from grading.withhold import WithheldPiece, Withholding, _trusted_command, active_guard

    launcher = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", "2"]
    assert _trusted_command(launcher + [str(RANK_SCRIPT), "folder"])
    assert _trusted_command([sys.executable, str(RANK_SCRIPT), "folder"])
    assert not _trusted_command(launcher + ["train.py"])
    assert not _trusted_command([sys.executable, "-c", "import minitorch"])
    assert not _trusted_command(["/bin/sh", str(RANK_SCRIPT)])
    guard = Withholding("ch12.ddp_buckets", ("minitorch.nn.parallel.DistributedDataParallel",))
    assert active_guard() is None
    with guard.active():
        assert active_guard() is guard
        with pytest.raises(WithheldPiece):
            guard.run_trusted_program([sys.executable, "-c", "print('a fresh interpreter')"])
    assert active_guard() is None
    assert guard.hits and guard.hits[0].startswith("another program")
