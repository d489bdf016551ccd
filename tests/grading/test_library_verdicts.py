"""my_library remembers a saved piece's verdict: a piece checked once is not checked again in a later chapter
unless its cells or the checker changed, the first check runs for real, a changed piece is judged again, and a
remembered verdict never carries over to other source text. The graders never read the remembered verdicts.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import grading.library as library
from tests.grading.chapter_notebooks import COURSE

CHAPTER = "01_tensors"
PIECE, CELL = "broadcast_shapes", "ch01-broadcast"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_kernel(tmp_path, monkeypatch):
    """No saved course but the test's own, and nothing remembered in memory (as in a new chapter's kernel)."""
    monkeypatch.delenv("MINITORCH_COURSE_FOLDER", raising=False)
    monkeypatch.chdir(tmp_path)
    library.set_course_folder(tmp_path / "course")
    _new_kernel()
    yield
    library.set_course_folder(None)
    _new_kernel()


def _new_kernel():
    library._saved_judgements.clear()
    library._saved_runs.clear()


@pytest.fixture
def judged(monkeypatch):
    """The pieces whose checks really ran."""
    names = []
    real = library._judge

    def counting(entry, namespace, source):
        names.append(entry.name)
        return real(entry, namespace, source)

    monkeypatch.setattr(library, "_judge", counting)
    return names


def _save_chapter(course: Path, edition: str = "source") -> Path:
    folder = course / CHAPTER
    folder.mkdir(parents=True)
    shutil.copy(COURSE / edition / CHAPTER / f"{CHAPTER}.ipynb", folder / f"{CHAPTER}.ipynb")
    return folder / f"{CHAPTER}.ipynb"


def _edit_cell(path: Path, grade_id: str, edit) -> None:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = edit(source)
            break
    else:
        raise AssertionError(f"no cell {grade_id}")
    path.write_text(json.dumps(notebook), encoding="utf-8")


def _wrong(source: str) -> str:
    # a plausible mistake: shapes compared from the left instead of the right
    return source + "\n\ndef broadcast_shapes(*shapes):\n    return tuple(max(sizes) for sizes in zip(*shapes))\n"


def test_the_first_check_runs_and_a_later_chapter_takes_the_remembered_verdict(tmp_path, judged):
    saved = _save_chapter(tmp_path / "course")
    first = library.find(PIECE)
    assert first.status == library.YOURS and judged == [PIECE]
    store = tmp_path / "course" / library.VERDICTS_FILE
    assert [verdict["status"] for verdict in json.loads(store.read_text()).values()] == [library.YOURS]
    _new_kernel()  # the next chapter
    again = library.find(PIECE)
    assert judged == [PIECE]  # not checked again
    assert again.status == library.YOURS and again.source == str(saved)
    assert again.value((3, 1), (4,)) == (3, 4)  # still the learner's own piece, rebuilt from its cells


def test_a_changed_piece_is_judged_again(tmp_path, judged):
    saved = _save_chapter(tmp_path / "course")
    assert library.find(PIECE).status == library.YOURS
    _edit_cell(saved, CELL, _wrong)
    _new_kernel()
    found = library.find(PIECE)
    assert judged == [PIECE, PIECE]
    assert found.status == library.FAILING and "ch01" in found.detail
    _edit_cell(saved, CELL, lambda source: source + "\n# a comment is a change too\n")
    _new_kernel()
    library.find(PIECE)
    assert len(judged) == 3


def test_a_blank_piece_made_yours_is_judged_again(tmp_path, judged):
    saved = _save_chapter(tmp_path / "course", "release")
    assert library.find(PIECE).status == library.BLANK
    shutil.copy(COURSE / "source" / CHAPTER / f"{CHAPTER}.ipynb", saved)
    _new_kernel()
    assert library.find(PIECE).status == library.YOURS and judged == [PIECE, PIECE]


def test_a_remembered_pass_never_carries_over_to_other_source(tmp_path, judged):
    """Every remembered verdict says "yours", the wrong piece's cell text included nowhere: it is still judged."""
    saved = _save_chapter(tmp_path / "course")
    library.find(PIECE)
    store = tmp_path / "course" / library.VERDICTS_FILE
    _edit_cell(saved, CELL, _wrong)
    _new_kernel()
    remembered = json.loads(store.read_text())
    store.write_text(json.dumps({key: dict(verdict, status=library.YOURS) for key, verdict in remembered.items()}))
    assert library.find(PIECE).status == library.FAILING and len(judged) == 2


def test_a_changed_checker_judges_again(tmp_path, judged, monkeypatch):
    _save_chapter(tmp_path / "course")
    library.find(PIECE)
    _new_kernel()
    monkeypatch.setattr(library, "_checker_version", lambda entry: "another checker")
    library.find(PIECE)
    assert judged == [PIECE, PIECE]


def test_an_unreadable_store_remembers_nothing_and_judges(tmp_path, judged):
    _save_chapter(tmp_path / "course")
    (tmp_path / "course" / library.VERDICTS_FILE).write_text("not json")
    assert library.find(PIECE).status == library.YOURS and judged == [PIECE]


def test_the_graders_never_read_the_remembered_verdicts():
    """The batch grader, nbgrader's hidden checks and the public check do not import the library's verdicts."""
    for path in ("grading/checks.py", "grading/grader.py", "grading/_runner.py", "grading/sandbox.py",
                 "grading/notebook.py", "grading/withhold.py", "grading/cli.py"):  # fmt: skip
        text = (ROOT / path).read_text(encoding="utf-8")
        assert "my_library_verdicts" not in text and "VERDICTS_FILE" not in text and "_saved_judgements" not in text
        assert "library.find" not in text and "from grading.library import" not in text, path


def _notebook_namespace(extra_cell: str = "") -> dict:
    """The chapter's solutions as a kernel holds them, with ``In``: the text of the cells run so far."""
    from tests.grading.chapter_notebooks import solutions

    names = dict(solutions(CHAPTER))
    names["In"] = ["", "import numpy as np", "def broadcast_shapes(*shapes): ...", extra_cell]
    return names


def test_this_notebooks_verdict_is_remembered_for_the_same_cells_run_again(tmp_path, judged):
    (tmp_path / "course").mkdir()
    assert library.find(PIECE, _notebook_namespace()).status == library.YOURS
    again = _notebook_namespace()
    found = library.find(PIECE, again)
    assert judged == [PIECE] and found.status == library.YOURS and found.value is again[PIECE]
    # any cell run before that differs, or a namespace without In (no notebook), is judged for real
    library.find(PIECE, _notebook_namespace("x = 1"))
    without_history = _notebook_namespace()
    del without_history["In"]
    library.find(PIECE, without_history)
    assert judged == [PIECE, PIECE, PIECE]


def test_this_notebooks_wrong_piece_is_judged_though_a_pass_is_remembered(tmp_path, judged):
    saved = _save_chapter(tmp_path / "course")
    library.find(PIECE, _notebook_namespace())
    _edit_cell(saved, CELL, _wrong)
    wrong = dict(library._run_saved_cells(saved, (CELL,)), In=_notebook_namespace(_wrong(""))["In"])
    assert library.find(PIECE, wrong).status == library.FAILING and len(judged) == 2
