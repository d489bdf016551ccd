"""The tree is ruff-clean (the configuration is in pyproject.toml): a change that is not fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support import require

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    require("ruff", "the tree's lint settings are checked with ruff (the test extra installs it)")
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
