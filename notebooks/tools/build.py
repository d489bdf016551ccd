"""Regenerate every chapter's instructor notebook from its script in ``notebooks/tools/chapters/``.

    python notebooks/tools/build.py            # all chapters
    python notebooks/tools/build.py 01_tensors  # one chapter
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

CHAPTERS = Path(__file__).resolve().parent / "chapters"


def main(names: list[str]) -> None:
    scripts = sorted(CHAPTERS.glob("[0-9][0-9]_*.py"))
    if names:
        scripts = [script for script in scripts if script.stem in names]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    for script in scripts:
        runpy.run_path(str(script), run_name="__main__")
        print(f"built {script.stem}")


if __name__ == "__main__":
    main(sys.argv[1:])
