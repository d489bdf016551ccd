"""The learner's own minitorch (grading/library): a piece that is the learner's is used, a blank or wrong piece
falls back to minitorch's with one line, a later chapter takes the piece from the saved chapter notebook, the
fallbacks come from public minitorch (never the answer key), and a chapter runs top to bottom with a piece blank.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import grading.library as library
from grading.library import tensor as strided
from tests.grading.chapter_notebooks import COURSE, namespace, solutions
from tests.support import require

CHAPTER = "01_tensors"
PIECES = ("StridedTensor", "broadcast_shapes", "broadcast_index", "tensor_map", "tensor_zip", "tensor_reduce",
          "matmul_blocks", "bias_gelu_kernel")  # fmt: skip


@pytest.fixture(autouse=True)
def _no_saved_course(tmp_path, monkeypatch):
    """Each test starts where no saved chapter notebook can be found, unless it puts one there."""
    monkeypatch.delenv("MINITORCH_COURSE_FOLDER", raising=False)
    monkeypatch.chdir(tmp_path)
    library.set_course_folder(None)
    yield
    library.set_course_folder(None)


def _learner_namespace() -> dict:
    return dict(solutions(CHAPTER))


def test_the_chapter_registers_its_pieces():
    registered = library.pieces()
    assert [name for name in registered if registered[name].chapter == CHAPTER] == list(PIECES)


def test_a_piece_that_is_the_learners_is_used(capsys):
    names = _learner_namespace()
    assert library.use("StridedTensor", names) is names["StridedTensor"]
    assert library.use("tensor_zip", names) is names["tensor_zip"]
    assert capsys.readouterr().out.splitlines() == [
        "using your StridedTensor (this notebook)",
        "using your tensor_zip (this notebook)",
    ]


def test_use_reads_the_calling_cells_globals(capsys):
    names = _learner_namespace()
    exec("found = use('matmul_blocks')", names | {"use": library.use})
    assert capsys.readouterr().out == "using your matmul_blocks (this notebook)\n"


def test_a_blank_piece_falls_back_to_minitorchs_in_one_line(capsys):
    blank = namespace(CHAPTER, "release")
    assert library.use("StridedTensor", blank) is strided.MinitorchStridedTensor
    assert library.use("tensor_map", blank) is strided.minitorch_map
    assert capsys.readouterr().out.splitlines() == [
        "your StridedTensor is still blank: using minitorch's",
        "your tensor_map is still blank: using minitorch's",
    ]


def test_a_piece_that_fails_its_checks_falls_back_naming_the_check(capsys):
    names = _learner_namespace()
    exec(_strided_cell(), names)  # a class of its own, safe to break

    def transpose_without_strides(self, dim0, dim1):
        shape = list(self.shape)
        shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
        return type(self)(self.storage, shape, self.strides, self.offset)

    names["StridedTensor"].transpose = transpose_without_strides
    assert library.use("StridedTensor", names) is strided.MinitorchStridedTensor
    assert capsys.readouterr().out == (
        "your StridedTensor does not pass its public checks yet (ch01.strided_views): using minitorch's\n"
    )


def _strided_cell() -> str:
    from tests.grading.chapter_notebooks import graded_cells

    return graded_cells(CHAPTER, "source", "solution")["ch01-strided"]


def _save_chapter(course: Path, edition: str) -> Path:
    """The chapter's notebook as a learner saves it: course/01_tensors/01_tensors.ipynb."""
    folder = course / CHAPTER
    folder.mkdir(parents=True)
    shutil.copy(COURSE / edition / CHAPTER / f"{CHAPTER}.ipynb", folder / f"{CHAPTER}.ipynb")
    return folder / f"{CHAPTER}.ipynb"


def test_a_later_chapter_takes_the_piece_from_the_saved_notebook(tmp_path, monkeypatch, capsys):
    saved = _save_chapter(tmp_path / "course", "source")
    later = tmp_path / "course" / "02_autograd"
    later.mkdir()
    monkeypatch.chdir(later)  # Jupyter runs a chapter in its own folder, beside the others
    tensor_class = library.use("StridedTensor", {})
    tensor_zip = library.use("tensor_zip", {})
    assert capsys.readouterr().out.splitlines() == [
        f"using your StridedTensor ({saved})",
        f"using your tensor_zip ({saved})",
    ]
    assert tensor_class is not strided.MinitorchStridedTensor and tensor_zip is not strided.minitorch_zip
    # the learner's pieces work together: a column plus a row, broadcast, into a transposed out
    column, row = tensor_class(np.arange(3.0), (3, 1)), tensor_class(np.arange(4.0) * 10, (4,))
    out = tensor_class(np.zeros(12), (4, 3)).transpose(0, 1)
    tensor_zip(np.add, out, column, row)
    np.testing.assert_array_equal(out.numpy(), np.arange(3.0)[:, None] + np.arange(4.0) * 10)


def test_a_blank_saved_notebook_gives_minitorchs_pieces(tmp_path, capsys):
    _save_chapter(tmp_path / "course", "release")
    library.set_course_folder(tmp_path / "course")
    assert library.use("broadcast_index", {}) is strided.minitorch_broadcast_index
    assert capsys.readouterr().out == "your broadcast_index is still blank: using minitorch's\n"


def test_no_saved_notebook_gives_minitorchs_pieces(capsys):
    assert library.use("matmul_blocks", {}) is strided.minitorch_matmul
    assert capsys.readouterr().out == (
        "your matmul_blocks was not found (no saved 01_tensors/01_tensors.ipynb next to this chapter): "
        "using minitorch's\n"
    )


def test_my_library_shows_which_pieces_are_the_learners(capsys):
    mine = library.my_library(CHAPTER, _learner_namespace())
    assert all(mine[name] == "yours" for name in PIECES)
    assert "8 of the 8 pieces built so far are yours" in capsys.readouterr().out
    blank = library.my_library(CHAPTER, namespace(CHAPTER, "release"))
    assert all(blank[name] == "minitorch's: yours is still blank" for name in PIECES)
    assert "0 of the 8 pieces built so far are yours" in capsys.readouterr().out


def test_registering_a_piece_is_one_line(capsys):
    library.piece("later_piece", chapter="99_later", cells="ch99-later", checks={"ch99.later": "later_report"},
                  fallback=lambda: "minitorch's later piece")  # fmt: skip
    try:
        assert library.pieces()["later_piece"].cells == ("ch99-later",)
        table = library.my_library(CHAPTER, _learner_namespace())
        assert table["later_piece"] == "comes in chapter 99"
        assert "8 of the 8 pieces built so far are yours" in capsys.readouterr().out
        assert library.use("later_piece", {}) == "minitorch's later piece"
    finally:
        del library._PIECES["later_piece"]


def test_the_fallbacks_come_from_public_minitorch_not_the_answer_key():
    """The library's own files never import the answer key, and handing out every fallback imports none of it."""
    for path in Path(library.__file__).parent.glob("*.py"):
        assert "grading.exercises" not in path.read_text(), path
    script = (
        "import sys, numpy as np\n"
        "import grading.library as library\n"
        f"names = {list(PIECES)!r}\n"
        "fallbacks = [library.pieces()[name].fallback() for name in names]\n"
        "tensor = fallbacks[0](np.arange(6.0), (2, 3)).transpose(0, 1)\n"
        "out = fallbacks[0](np.zeros(6), (3, 2))\n"
        "fallbacks[3](np.negative, out, tensor)\n"
        "assert out.numpy().tolist() == [[-0.0, -3.0], [-1.0, -4.0], [-2.0, -5.0]], out.numpy()\n"
        "assert not [m for m in sys.modules if m.startswith('grading.exercises.')], sorted(sys.modules)\n"
        "print('ok', [f.__module__ for f in fallbacks])\n"
    )
    environment = dict(os.environ, PYTHONPATH=str(COURSE.parent))
    command = [sys.executable, "-c", script]
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok") and result.stdout.count("'grading.library.") == len(PIECES)
    assert result.stdout.count("grading.library.elementwise") == 1  # the GPU kernel's, beside its stand-in


def test_the_chapter_runs_top_to_bottom_with_one_piece_blank(tmp_path):
    """The instructor's edition with the StridedTensor cell as the learner gets it (blank): Run All completes,
    the chapter says in one line that it uses minitorch's tensor, and the other pieces are still the learner's."""
    nbformat = require("nbformat", "reads the chapter")
    nbclient = require("nbclient", "executes the chapter as Run All does")
    document = nbformat.read(COURSE / "source" / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    release = json.loads((COURSE / "release" / CHAPTER / f"{CHAPTER}.ipynb").read_text())
    blank = next(
        cell for cell in release["cells"] if cell["metadata"].get("nbgrader", {}).get("grade_id") == "ch01-strided"
    )
    for cell in document.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "ch01-strided":
            cell.source = "".join(blank["source"])
        if "### BEGIN HIDDEN TESTS" in cell.source:  # the learner's edition has no hidden block
            cell.source = cell.source.split("### BEGIN HIDDEN TESTS", 1)[0]
    folder = tmp_path / CHAPTER
    folder.mkdir()
    settings = {"PYTHONPATH": str(COURSE.parent), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    previous = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        client = nbclient.NotebookClient(document, timeout=300, kernel_name="python3", allow_errors=False,
                                         resources={"metadata": {"path": str(folder)}})  # fmt: skip
        client.execute()
    finally:
        for name, value in previous.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
    text = "".join(
        output.get("text", "") for cell in document.cells if cell.cell_type == "code" for output in cell.outputs
    )
    assert text.count("your StridedTensor is still blank: using minitorch's") >= 2  # each use says so, once
    assert "ch01.strided_views: not implemented yet" in text
    assert "ch01.kernels_vectorised: all 3 public cases pass" in text and "using your matmul_blocks" in text
    assert "largest difference from minitorch's x @ w.T + b:" in text
    assert re.search(r"StridedTensor +minitorch's: yours is still blank", text)
    assert "7 of the 8 pieces built so far are yours" in text


# -- chapters 4 and 5: MyModule, Optimizer and AdamW ---------------------------------------------------------
LATER_PIECES = {  # piece -> (chapter, its solution cell(s), minitorch's equivalent)
    "Context": ("02_autograd", ("value_class", "function_apply"), "minitorch.autograd.function.BackwardNode"),
    "AccumulateGrad": ("02_autograd", ("value_class", "function_apply"), "minitorch.autograd.AccumulateGrad"),
    "Function": ("02_autograd", ("value_class", "function_apply"), "minitorch.autograd.Function"),
    "MyModule": ("04_networks", "ch04-module-machinery", "minitorch.nn.Module"),
    "Optimizer": ("05_losses_and_optimizers", "ch05-optimizer", "minitorch.optim.Optimizer"),
    "AdamW": ("05_losses_and_optimizers", "ch05-optimizer", "minitorch.optim.AdamW"),
}


def _minitorchs(dotted: str):
    import importlib

    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_chapters_4_and_5_register_their_pieces():
    registered = library.pieces()
    for name, (chapter, cell, _) in LATER_PIECES.items():
        cells = cell if isinstance(cell, tuple) else (cell,)
        assert registered[name].chapter == chapter and registered[name].cells == cells
    assert registered["backward"].cells == ("value_class", "function_apply", "engine")
    assert list(registered).index("StridedTensor") < list(registered).index("MyModule") < list(registered).index(
        "AdamW"
    )


@pytest.mark.parametrize("name", sorted(LATER_PIECES))
def test_a_later_piece_that_is_the_learners_is_used(name, capsys):
    chapter = LATER_PIECES[name][0]
    names = dict(solutions(chapter))
    assert library.use(name, names) is names[name]
    assert capsys.readouterr().out == f"using your {name} (this notebook)\n"


@pytest.mark.parametrize("name", sorted(LATER_PIECES))
def test_a_blank_later_piece_falls_back_to_minitorchs_in_one_line(name, capsys):
    chapter, _, equivalent = LATER_PIECES[name]
    assert library.use(name, namespace(chapter, "release")) is _minitorchs(equivalent)
    assert capsys.readouterr().out == f"your {name} is still blank: using minitorch's\n"


def test_a_failing_adamw_falls_back_naming_its_check(capsys):
    names = dict(namespace("05_losses_and_optimizers", "source"))
    original = names["AdamW"].step

    def step_without_decay(self):
        for group in self.param_groups:
            group["weight_decay"] = 0.0
        original(self)

    names["AdamW"].step = step_without_decay
    try:
        assert library.use("AdamW", names) is _minitorchs("minitorch.optim.AdamW")
    finally:
        names["AdamW"].step = original
    assert capsys.readouterr().out == (
        "your AdamW does not pass its public checks yet (ch05.optimizer_base): using minitorch's\n"
    )


def test_chapter_5_takes_mymodule_from_the_saved_chapter_4(tmp_path, monkeypatch, capsys):
    course = tmp_path / "course"
    (course / "04_networks").mkdir(parents=True)
    shutil.copy(COURSE / "source" / "04_networks" / "04_networks.ipynb", course / "04_networks" / "04_networks.ipynb")
    (course / "05_losses_and_optimizers").mkdir()
    monkeypatch.chdir(course / "05_losses_and_optimizers")
    mine = library.use("MyModule", {})
    assert capsys.readouterr().out == f"using your MyModule ({course / '04_networks' / '04_networks.ipynb'})\n"
    assert mine is not _minitorchs("minitorch.nn.Module")
    table = library.my_library("05_losses_and_optimizers", namespace("05_losses_and_optimizers", "release"))
    assert table["MyModule"] == "yours" and table["AdamW"] == "minitorch's: yours is still blank"
    assert table["StridedTensor"].startswith("minitorch's: yours was not found")


def _run_with_blank(chapter: str, blank_cell: str, tmp_path) -> str:
    """The instructor's edition of ``chapter`` with ``blank_cell`` as the learner gets it: what it printed."""
    nbformat = require("nbformat", "reads the chapter")
    nbclient = require("nbclient", "executes the chapter as Run All does")
    document = nbformat.read(COURSE / "source" / chapter / f"{chapter}.ipynb", as_version=4)
    release = json.loads((COURSE / "release" / chapter / f"{chapter}.ipynb").read_text())
    blank = next(cell for cell in release["cells"]
                 if cell["metadata"].get("nbgrader", {}).get("grade_id") == blank_cell)  # fmt: skip
    for cell in document.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == blank_cell:
            cell.source = "".join(blank["source"])
        if "### BEGIN HIDDEN TESTS" in cell.source:
            cell.source = cell.source.split("### BEGIN HIDDEN TESTS", 1)[0]
    folder = tmp_path / chapter
    folder.mkdir()
    settings = {"PYTHONPATH": str(COURSE.parent), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    previous = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        client = nbclient.NotebookClient(document, timeout=300, kernel_name="python3", allow_errors=False,
                                         resources={"metadata": {"path": str(folder)}})  # fmt: skip
        client.execute()
    finally:
        for name, value in previous.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
    return "".join(
        output.get("text", "") for cell in document.cells if cell.cell_type == "code" for output in cell.outputs
    )


def test_chapter_4_runs_top_to_bottom_with_mymodule_blank(tmp_path):
    text = _run_with_blank("04_networks", "ch04-module-machinery", tmp_path)
    assert text.count("your MyModule is still blank: using minitorch's") == 1  # the classifier's use(...)
    assert "ch04.module_machinery: not implemented yet" in text
    assert "ch04.module_report: all 3 public cases pass" in text
    assert "the copy answers as the original: True" in text
    assert re.search(r"MyModule +minitorch's: yours is still blank", text)


def test_chapter_5_runs_top_to_bottom_with_its_optimizer_blank(tmp_path):
    text = _run_with_blank("05_losses_and_optimizers", "ch05-optimizer", tmp_path)
    assert "your AdamW is still blank: using minitorch's" in text
    assert "ch05.optimizer_base: not implemented yet" in text
    assert "groups after resuming: [(0.05, 0.1), (0.05, 0.0)]" in text
    assert re.search(r"AdamW +minitorch's: yours is still blank", text)


def test_chapter_4_takes_the_engine_from_the_saved_chapter_2(tmp_path, monkeypatch, capsys):
    """The engine's pieces rebuilt from a saved chapter 2 (both of their cells, in order) pass their checks."""
    course = tmp_path / "course"
    (course / "02_autograd").mkdir(parents=True)
    shutil.copy(COURSE / "source" / "02_autograd" / "02_autograd.ipynb", course / "02_autograd" / "02_autograd.ipynb")
    (course / "04_networks").mkdir()
    monkeypatch.chdir(course / "04_networks")
    table = library.my_library("04_networks", {})
    assert [table[name] for name in ("Context", "AccumulateGrad", "Function", "backward")] == ["yours"] * 4
    assert table["MyModule"].startswith("minitorch's: yours was not found")
    assert table["AdamW"] == "comes in chapter 5"
    assert library.use("backward", {}, quiet=True).__module__ != "minitorch.autograd"
