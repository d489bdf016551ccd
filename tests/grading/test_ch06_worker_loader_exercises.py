"""Chapter 6's build-it with worker processes: the learner's ``DataLoader`` (index and result queues, in-order
delivery, per-worker seeding, a worker's error raised in the main process, clean shutdown).

* minitorch's ``DataLoader`` (the reference) shows on every case what ``torch.utils.data.DataLoader`` shows;
* the notebook's solution and a differently written loader pass; plausible mistakes fail naming the concept;
* an answer that calls minitorch's loader fails in ``check``, under the grader's withholding and in
  ``minitorch-grade``'s sandbox, and scores 0 under ``nbgrader autograde`` while the honest loader keeps full marks;
* the learner's loader is the library piece ``DataLoader`` that the capstone asks for with PyTorch's arguments,
  taken from a saved chapter 6, and the chapter runs top to bottom with the piece blank.

Every run of the report counts the worker processes still running afterwards, so a test here that passes leaves
none behind either.
"""

from __future__ import annotations

import heapq
import itertools
import multiprocessing
import random
import re
import shutil
import signal
import time
import traceback

import nbformat
import numpy as np
import pytest

import minitorch
from grading import check
from grading.library import loader as loader_piece
from grading.library.loader import running_children, worker_loader_report
from grading.registry import get
from minitorch.utils.data import default_collate
from tests.grading.chapter_notebooks import COURSE, NOTEBOOK_IMPORTS, graded_cells, solutions
from tests.support import require, require_torch

CHAPTER, CELL, EXERCISE = "06_data", "ch06-worker-loader", "ch06.worker_loader"
SOURCE = graded_cells(CHAPTER, "source", "solution")[CELL]


def _hidden_cases() -> list[tuple]:
    block = graded_cells(CHAPTER, "source", "grade")[f"{CELL}-tests"].split("### BEGIN HIDDEN TESTS", 1)[1]
    found = []
    exec(block.replace("from grading import check_hidden", ""),
         dict(NOTEBOOK_IMPORTS, worker_loader_report_of_mine=None,
              check_hidden=lambda name, function, cases: found.extend(cases)))  # fmt: skip
    return found


CASES = list(get(EXERCISE).public) + _hidden_cases()


def _same(ours, theirs) -> None:
    for number, (mine, reference) in enumerate(zip(ours, theirs, strict=True), start=1):
        mine, reference = np.asarray(mine), np.asarray(reference)
        assert mine.shape == reference.shape, f"output {number}: shapes {mine.shape} and {reference.shape}"
        np.testing.assert_allclose(mine.astype(np.float64), reference.astype(np.float64), rtol=0, atol=0,
                                   err_msg=f"output {number}")  # fmt: skip


# -- the reference is PyTorch's loader ------------------------------------------------------------------------
@pytest.mark.parametrize("case_number", range(len(CASES)))
def test_minitorchs_loader_shows_what_pytorchs_shows(case_number):
    """Batches, order, which worker read each sample, the workers' seeds and random draws, the worker_init_fn's
    reseeding, the error's type, worker and message, and no worker left: torch.utils.data.DataLoader on the same
    dataset (its samples made with torch) agrees exactly with the reference, on every public and hidden case."""
    torch = require_torch()
    case = CASES[case_number]
    ours = get(EXERCISE).reference(*case)
    # PyTorch's loader installs a SIGCHLD handler of its own and leaves it; put the previous one back, so that the
    # next tests' workers ending do not run PyTorch's code (which the check, rightly, counts against them).
    previous = signal.getsignal(signal.SIGCHLD)
    try:
        theirs = worker_loader_report(torch.utils.data.DataLoader, torch.utils.data.get_worker_info, *case, lib=torch)
    finally:
        signal.signal(signal.SIGCHLD, previous)
    _same(ours, theirs)


def test_the_cases_cover_every_option():
    workers = {int(case[6]) for case in CASES}
    assert workers == {0, 1, 2, 3}
    assert any(case[5] for case in CASES) and any(len(case[8]) for case in CASES) and any(case[4] for case in CASES)
    assert any(len(case[8]) and case[5] for case in CASES)  # a sampler with drop_last
    # a slow read in the first batch of an unshuffled run with workers: the second batch is ready first
    assert any(case[6] >= 2 and not case[4] and not len(case[8]) and case[2][: case[3]].sum() > 0 for case in CASES)


def test_the_report_counts_a_running_child_and_ends_it():
    before = running_children()
    child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(30,), daemon=True)
    child.start()
    assert child.pid in running_children() - before
    assert loader_piece.workers_left(before) == 1  # counted, then killed
    child.join(timeout=5)
    assert not child.is_alive() and child.pid not in running_children()


# -- the solution, and a loader written differently -------------------------------------------------------------
def _namespace(source: str) -> dict:
    names = dict(NOTEBOOK_IMPORTS, __name__="__main__")
    exec(compile(source, "<chapter 6 worker loader>", "exec"), names)
    return names


def test_the_solution_passes(capsys):
    check(EXERCISE, solutions(CHAPTER)["worker_loader_report_of_mine"])
    assert "all 4 public cases pass" in capsys.readouterr().out


def test_the_solution_passes_with_pytorch_imported(capsys):
    """``import torch`` registers an after-fork hook that multiprocessing runs in every worker it forks: that is
    not the learner reaching PyTorch, and the workers must not be stopped for it."""
    require_torch()
    check(EXERCISE, solutions(CHAPTER)["worker_loader_report_of_mine"])
    assert "all 4 public cases pass" in capsys.readouterr().out


def test_the_solution_passes_with_pytorchs_compiler_imported(capsys):
    """``torch._inductor`` registers an ``os.register_at_fork`` hook, which ``os.fork`` runs in every child (after a
    test suite has compared minitorch.compile with torch.compile, it is there): not the learner reaching PyTorch."""
    require_torch()
    import torch._inductor.async_compile  # noqa: F401 - registers its after-fork hook

    check(EXERCISE, solutions(CHAPTER)["worker_loader_report_of_mine"])
    assert "all 4 public cases pass" in capsys.readouterr().out


def test_the_solution_passes_the_hidden_cases(capsys):
    from grading import check_hidden

    check_hidden(EXERCISE, solutions(CHAPTER)["worker_loader_report_of_mine"], _hidden_cases())
    assert "all 4 hidden cases pass" in capsys.readouterr().out


_worker_state = {}  # this process's WorkerInfo-like record, set in each worker of HeapLoader


class _Info:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def heap_get_worker_info():
    return _worker_state.get("info")


def _heap_worker(dataset, tasks, results, seed, init, number, count, collate):
    random.seed(seed)
    minitorch.manual_seed(seed)
    _worker_state["info"] = _Info(id=number, num_workers=count, seed=seed, dataset=dataset)
    if init:
        init(number)
    for task in iter(tasks.get, None):  # a SimpleQueue: get blocks until the next task or the stop signal
        position, indices = task
        try:
            results.put((position, True, collate([dataset[i] for i in indices])))
        except Exception as failure:
            results.put((position, False, (type(failure), number, "".join(traceback.format_exception(failure)))))


class HeapLoader:
    """Correct, written differently: the iterator is a generator (its ``finally`` stops the workers when the epoch
    ends, an error escapes, or the generator is deleted), tasks go out on SimpleQueues, early results wait in a
    heap, and errors travel as (type, worker, text)."""

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, *, num_workers=0, collate_fn=None,
                 drop_last=False, worker_init_fn=None, generator=None, prefetch_factor=2):  # fmt: skip
        self.__dict__.update(dataset=dataset, batch_size=batch_size, shuffle=shuffle, sampler=sampler,
                             num_workers=num_workers, collate=collate_fn or default_collate, drop_last=drop_last,
                             init=worker_init_fn, generator=generator, ahead=prefetch_factor)  # fmt: skip

    def _index_batches(self):
        if self.sampler is not None:
            order = list(self.sampler)
        else:
            size = len(self.dataset)
            generator = self.generator
            if self.shuffle and generator is None:  # PyTorch's RandomSampler: a private, freshly seeded stream
                generator = minitorch.Generator().manual_seed(int(minitorch.empty((), dtype=minitorch.int64).random_()))
            order = minitorch.randperm(size, generator=generator).tolist() if self.shuffle else range(size)
        chunks = [list(order[i:i + self.batch_size]) for i in range(0, len(order), self.batch_size)]
        return [chunk for chunk in chunks if len(chunk) == self.batch_size or not self.drop_last]

    def __iter__(self):
        base = minitorch.empty((), dtype=minitorch.int64).random_(generator=self.generator).item()
        return self._epoch(int(base))

    def _epoch(self, base):
        batches = self._index_batches()
        if not self.num_workers:
            for indices in batches:
                yield self.collate([self.dataset[i] for i in indices])
            return
        context = multiprocessing.get_context("fork")
        results = context.Queue()
        task_queues = [context.SimpleQueue() for _ in range(self.num_workers)]
        processes = [context.Process(target=_heap_worker, daemon=True,
                                     args=(self.dataset, task_queues[w], results, base + w, self.init, w,
                                           self.num_workers, self.collate))
                     for w in range(self.num_workers)]  # fmt: skip
        for process in processes:
            process.start()
        pending = iter(enumerate(batches))

        def send_one():
            for position, indices in itertools.islice(pending, 1):
                task_queues[position % self.num_workers].put((position, indices))

        try:
            for _ in range(self.ahead * self.num_workers):
                send_one()
            arrived = []
            for wanted in range(len(batches)):
                while not arrived or arrived[0][0] != wanted:
                    heapq.heappush(arrived, results.get())
                _, ok, payload = heapq.heappop(arrived)
                send_one()
                if not ok:
                    kind, worker, text = payload
                    raise kind(f"Caught {kind.__name__} in DataLoader worker process {worker}.\nOriginal {text}")
                yield payload
        finally:
            for tasks in task_queues:
                tasks.put(None)
            for process in processes:
                process.join(timeout=2)
                if process.is_alive():
                    process.kill()
                    process.join()
            results.cancel_join_thread()
            results.close()


def heap_report(*case):
    return worker_loader_report(HeapLoader, heap_get_worker_info, *case)


def test_a_loader_written_differently_passes(capsys):
    check(EXERCISE, heap_report)
    assert "all 4 public cases pass" in capsys.readouterr().out


# -- plausible mistakes ---------------------------------------------------------------------------------------
def _mistaken(*edits) -> dict:
    """The solution cell with each (old, new) replaced: one thing a learner plausibly gets wrong."""
    source = SOURCE
    for old, new in edits:
        assert old in source, old
        source = source.replace(old, new)
    return _namespace(source)


DELIVERED_AS_THEY_ARRIVE = (
    """        while self._rcvd_idx not in self._reorder:
            if self._rcvd_idx == self._send_idx:  # nothing in flight: the epoch is over
                self._shutdown_workers()
                raise StopIteration
            task_number, batch, error = self._get_result()
            self._reorder[task_number] = (batch, error)
        batch, error = self._reorder.pop(self._rcvd_idx)""",
    """        if self._rcvd_idx == self._send_idx:
            self._shutdown_workers()
            raise StopIteration
        task_number, batch, error = self._get_result()""",
)
MISTAKES = {
    "batches delivered in the order workers finish them": (
        [DELIVERED_AS_THEY_ARRIVE], "the sampler's order, even when a later batch is ready first"),
    "every worker seeded with base_seed": (
        [("seed = base_seed + worker_id", "seed = base_seed")], "base_seed + worker id"),
    "the workers' generators not seeded": (
        [("    random.seed(seed)\n    minitorch.manual_seed(seed)\n", "")], "each worker seeded with base_seed"),
    "worker_init_fn never called": (
        [("    if worker_init_fn is not None:\n        worker_init_fn(worker_id)\n", "")],
        "worker_init_fn(worker_id) reseeds"),
    "a worker's error swallowed (the failed batch skipped)": (
        [("        if error is not None:\n            self._shutdown_workers()\n            reraise(error)\n",
          "        if error is not None:\n            return self.__next__()\n")],
        "a worker's error"),
    "a worker's error raised as a RuntimeError, without its type or worker": (
        [("    raise exc_type(f\"Caught {exc_type.__name__} {where}.\\nOriginal {text}\")",
          "    raise RuntimeError(\"a DataLoader worker failed\")")],
        "a worker's error"),
    "workers never stopped": (
        [("        if self._shutdown:\n            return\n", "        return\n")], "worker processes still running"),
    "workers not stopped when the iterator is deleted": (
        [("        if getattr(self, \"_workers\", None):\n            self._shutdown_workers()\n", "        pass\n")],
        "worker processes still running"),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_mistake_fails_naming_the_concept(mistake, capsys):
    edits, words = MISTAKES[mistake]
    names = _mistaken(*edits)
    before = running_children()
    with pytest.raises(AssertionError):
        check(EXERCISE, names["worker_loader_report_of_mine"])
    out = capsys.readouterr().out
    first_failure = next(line for line in out.splitlines() if "FAILED" in line)
    assert words in first_failure, out
    assert running_children() - before == set()  # the report ended whatever the mistaken loader left running


# -- withheld: minitorch's loader gives no green, in the check and in the graders --------------------------------
CHEAT = """
import minitorch.utils.data as data
from grading.library.loader import worker_loader_report


def cheat(*case):
    return worker_loader_report(data.DataLoader, data.get_worker_info, *case)
"""


def test_the_check_refuses_minitorchs_loader_naming_it(capsys):
    names = _namespace(CHEAT)
    with pytest.raises(AssertionError):
        check(EXERCISE, names["cheat"])
    assert "calls minitorch's own minitorch.utils.data.DataLoader" in capsys.readouterr().out


def test_the_check_refuses_minitorchs_get_worker_info_naming_it(capsys):
    """The learner's loader with minitorch's get_worker_info: its first call (num_workers=0 reads in the main
    process) reaches the withheld piece."""
    names = dict(solutions(CHAPTER))
    from minitorch.utils.data import get_worker_info

    def with_minitorchs_info(*case):
        return worker_loader_report(names["DataLoader"], get_worker_info, *case)

    with pytest.raises(AssertionError):
        check(EXERCISE, with_minitorchs_info)
    assert "calls minitorch's own minitorch.utils.data._worker.get_worker_info" in capsys.readouterr().out


def test_the_graders_withholding_refuses_minitorchs_loader():
    from tests.grading.withheld_support import run_with_withheld

    printed = run_with_withheld(EXERCISE, CHAPTER, CHEAT)
    assert "withheld:" in printed and "is not available while this exercise is graded" in printed


SHORTCUT = """
from minitorch.utils.data import DataLoader, get_worker_info  # minitorch's loader under the learner's names
"""


def test_the_batch_grader_scores_minitorchs_loader_zero(tmp_path):
    """minitorch-grade in its sandbox (bubblewrap): the reference's workers run and it scores full marks; a notebook
    whose DataLoader is minitorch's loses exactly this exercise."""
    from tests.grading.chapter_notebooks import grade_with_shortcut

    grade_with_shortcut(tmp_path, CHAPTER, SHORTCUT, EXERCISE)


def test_nbgrader_autograde_runs_the_workers_and_scores_the_shortcut_zero(tmp_path):
    """nbgrader autograde, in its own kernel: the exercise's cells alone (imports, the solution, its test cell with
    the hidden cases) score full marks; the same with minitorch's loader under the learner's names scores 0."""
    require("nbgrader", "the instructor extra: autogrades")
    from tests.grading.test_run_all import _nbgrader

    course = tmp_path / "course"
    (course / "source" / "loader").mkdir(parents=True)
    imports = nbformat.v4.new_code_cell("import numpy as np\nimport minitorch\nfrom grading import check, randn")
    solution = nbformat.v4.new_code_cell(SOURCE)
    solution.metadata["nbgrader"] = {"grade": False, "grade_id": CELL, "locked": False, "schema_version": 3,
                                     "solution": True, "task": False}  # fmt: skip
    test_cell = nbformat.v4.new_code_cell(graded_cells(CHAPTER, "source", "grade")[f"{CELL}-tests"])
    test_cell.metadata["nbgrader"] = {"grade": True, "grade_id": f"{CELL}-tests", "locked": True, "points": 3,
                                      "schema_version": 3, "solution": False, "task": False}  # fmt: skip
    document = nbformat.v4.new_notebook(cells=[imports, solution, test_cell])
    document.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(document, course / "source" / "loader" / "loader.ipynb")
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"load_subconfig({str(COURSE / 'nbgrader_config.py')!r})\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{course}/gradebook.db'\n"
    )
    _nbgrader(course, "generate_assignment", "loader", "--force")
    shortcut = nbformat.read(course / "source" / "loader" / "loader.ipynb", as_version=4)
    shortcut.cells.insert(2, nbformat.v4.new_code_cell(SHORTCUT))
    for student, submitted in {"honest": document, "shortcut": shortcut}.items():
        folder = course / "submitted" / student / "loader"
        folder.mkdir(parents=True)
        nbformat.write(submitted, folder / "loader.ipynb")
    _nbgrader(course, "autograde", "loader", "--force")
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course}/gradebook.db") as gradebook:
        scores = {student: gradebook.find_submission("loader", student).score for student in ("honest", "shortcut")}
    assert scores == {"honest": 3.0, "shortcut": 0.0}
    graded = (course / "autograded" / "shortcut" / "loader" / "loader.ipynb").read_text()
    assert "minitorch.utils.data.DataLoader" in graded


# -- the library piece: what the capstone gets from use("DataLoader") ---------------------------------------------
def test_the_piece_is_registered_for_the_capstone():
    from grading import library

    entry = library.pieces()["DataLoader"]
    assert entry.chapter == CHAPTER and entry.cells == (CELL,)
    assert dict(entry.checks) == {EXERCISE: "worker_loader_report_of_mine"}
    assert entry.fallback() is minitorch.utils.data.DataLoader


def test_the_learners_loader_is_used(capsys):
    from grading import library

    names = dict(solutions(CHAPTER))
    assert library.use("DataLoader", names) is names["DataLoader"]
    assert capsys.readouterr().out == "using your DataLoader (this notebook)\n"


def test_a_blank_loader_falls_back_to_minitorchs_in_one_line(capsys):
    from grading import library
    from tests.grading.chapter_notebooks import namespace

    assert library.use("DataLoader", namespace(CHAPTER, "release")) is minitorch.utils.data.DataLoader
    assert capsys.readouterr().out == "your DataLoader is still blank: using minitorch's\n"


def _capstone_epoch(loader_class, num_workers):
    """What the capstone does with the piece: PyTorch's arguments, a collate_fn, shuffle and drop_last."""
    minitorch.manual_seed(3)
    dataset = minitorch.utils.data.TensorDataset(minitorch.arange(23 * 4).reshape(23, 4), minitorch.arange(23))

    def stacked(samples):
        return minitorch.stack([x for x, _ in samples]), minitorch.stack([y for _, y in samples])

    loader = loader_class(dataset, batch_size=5, shuffle=True, num_workers=num_workers, collate_fn=stacked,
                          drop_last=True)  # fmt: skip
    return [(x.tolist(), y.tolist()) for x, y in loader]


def test_the_capstone_takes_the_loader_from_a_saved_chapter_6(tmp_path, monkeypatch, capsys):
    """From a saved chapter 6 (its cell run in a fresh namespace), called as the capstone calls it: the same batches
    as minitorch's DataLoader, with and without workers, and no worker left."""
    from grading import library

    course = tmp_path / "course"
    (course / CHAPTER).mkdir(parents=True)
    shutil.copy(COURSE / "source" / CHAPTER / f"{CHAPTER}.ipynb", course / CHAPTER / f"{CHAPTER}.ipynb")
    (course / "15_capstone").mkdir()
    monkeypatch.chdir(course / "15_capstone")
    before = running_children()
    theirs = library.use("DataLoader", {})
    assert capsys.readouterr().out == f"using your DataLoader ({course / CHAPTER / f'{CHAPTER}.ipynb'})\n"
    assert theirs is not minitorch.utils.data.DataLoader
    for num_workers in (0, 2):
        assert _capstone_epoch(theirs, num_workers) == _capstone_epoch(minitorch.utils.data.DataLoader, num_workers)
    assert loader_piece.workers_left(before) == 0


def test_the_chapter_runs_top_to_bottom_with_the_loader_blank(tmp_path):
    from tests.grading.test_library import _run_with_blank

    text = _run_with_blank(CHAPTER, CELL, tmp_path)
    assert text.count("your DataLoader is still blank: using minitorch's") == 1
    assert f"{EXERCISE}: not implemented yet" in text
    assert "ch06.mini_loader: all 4 public cases pass" in text
    assert re.search(r"DataLoader +minitorch's: yours is still blank", text)
    assert "validation accuracy" in text

