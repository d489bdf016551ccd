"""For every chapter of the course (notebooks/source/<chapter>/<notebook>.ipynb):

* the committed learner's edition (notebooks/release/...) is what ``nbgrader generate_assignment``
  makes of the source today: a test cell or a solution edited in the source without regenerating fails;
* the reference solution (the source notebook) scores 100% with ``minitorch-grade``, and the blank
  learner's edition scores 0.

The chapters are discovered, so a new chapter is covered as soon as it exists.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.grading.conftest import require_bwrap
from tests.support import require

REPOSITORY = Path(__file__).resolve().parents[2]
COURSE = REPOSITORY / "notebooks"
CHAPTERS = sorted(
    path.relative_to(COURSE / "source")
    for path in (COURSE / "source").glob("*/*.ipynb")
    if ".ipynb_checkpoints" not in path.parts
)

GENERATE_ALL = """
import sys
from nbgrader.apps import NbGraderAPI
from traitlets.config.loader import PyFileConfigLoader
config = PyFileConfigLoader("nbgrader_config.py", path=sys.argv[1]).load_config()
api = NbGraderAPI(config=config)
for assignment in sys.argv[2:]:
    result = api.generate_assignment(assignment, force=True)
    if not result["success"]:
        sys.exit(result["error"] + result["log"])
"""


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    """The whole course regenerated into a temporary copy, in one nbgrader process."""
    require("nbgrader", "the instructor extra: generates the learner's edition")
    copy = tmp_path_factory.mktemp("course")
    shutil.copytree(COURSE / "source", copy / "source")
    (copy / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"load_subconfig({str(COURSE / 'nbgrader_config.py')!r})\n"
        f"c.CourseDirectory.root = {str(copy)!r}\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{copy}/gradebook.db'\n"
    )
    assignments = sorted({chapter.parts[0] for chapter in CHAPTERS})
    environment = dict(os.environ, PYTHONPATH=str(REPOSITORY))
    result = subprocess.run(
        [sys.executable, "-c", GENERATE_ALL, str(copy), *assignments],
        capture_output=True,
        text=True,
        env=environment,
        cwd=copy,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return copy


def _comparable(path: Path) -> list:
    document = json.loads(path.read_text())
    return [
        (cell["cell_type"], "".join(cell["source"]), cell.get("metadata", {}).get("nbgrader"))
        for cell in document["cells"]
    ]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=str)
def test_committed_release_is_up_to_date(regenerated, chapter):
    committed = COURSE / "release" / chapter
    assert committed.exists(), f"{committed} is missing: run nbgrader generate_assignment {chapter.parts[0]}"
    assert _comparable(committed) == _comparable(regenerated / "release" / chapter), (
        f"{committed} is stale: in notebooks/, run nbgrader generate_assignment {chapter.parts[0]} --force"
    )


@pytest.mark.parametrize("chapter", CHAPTERS, ids=str)
def test_reference_scores_full_and_blank_scores_zero(chapter, tmp_path):
    require_bwrap()
    from grading.cli import main
    from grading.notebook import read_assignment

    source = COURSE / "source" / chapter
    folder = tmp_path / "submitted"
    folder.mkdir()
    shutil.copy(source, folder / "reference.ipynb")
    shutil.copy(COURSE / "release" / chapter, folder / "blank.ipynb")
    assert main([str(folder), "--source", str(source), "--out", str(tmp_path / "out"), "--jobs", "2", "--quiet"]) == 0
    with open(tmp_path / "out" / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    maximum = read_assignment(source).max_points
    assert float(rows["reference"]["total"]) == maximum, (tmp_path / "out" / "feedback" / "reference.md").read_text()
    assert float(rows["blank"]["total"]) == 0
    assert rows["reference"]["status"] == "ok"
