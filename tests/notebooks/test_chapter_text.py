"""The chapters' prose renders as written: headings are headings, exercises are numbered in order.

Read from the generated instructor edition (``notebooks/source``), which is what both editions show.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

COURSE = Path(__file__).resolve().parents[2] / "notebooks" / "source"
CHAPTERS = sorted(path for path in COURSE.glob("*/*.ipynb") if path.stem == path.parent.name)


def _markdown(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_no_heading_is_indented_into_the_list_before_it(path):
    # Markdown reads an indented "### ..." after a bullet as part of that bullet's text
    indented = [line for text in _markdown(path) for line in text.splitlines() if re.match(r"^\s+#{1,6} ", line)]
    assert not indented, f"{path.stem}: indented headings {indented}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_exercises_are_numbered_in_order(path):
    numbers = [int(number) for text in _markdown(path)
               for number in re.findall(r"^#{2,4} Exercise (\d+)\b", text, flags=re.M)]
    assert numbers == list(range(1, len(numbers) + 1)), f"{path.stem}: exercises numbered {numbers}"


def test_the_checks_find_what_they_look_for():
    assert re.match(r"^\s+#{1,6} ", "    ### Measured: how much memory streaming saves")
    assert re.findall(r"^#{2,4} Exercise (\d+)\b", "text\n### Exercise 5: max pooling\n", flags=re.M) == ["5"]
