"""The optional real-dataset cells (notebooks/tools/optional_datasets.py): off in both editions, and a
default run downloads nothing; with the flag on they train on MNIST / Fashion-MNIST files found locally
(small fake files here: the tests never download), and offline they say why and go on."""

from __future__ import annotations

import contextlib
import io
import json
import socket
import sys
import urllib.request
from pathlib import Path

import numpy as np
import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
COURSE = REPOSITORY / "notebooks"
sys.path.insert(0, str(COURSE / "tools"))
import optional_datasets  # noqa: E402

CHAPTERS = sorted(optional_datasets.SECTIONS)


@pytest.fixture
def no_network(monkeypatch, tmp_path):
    """Any attempt to reach the network fails the test; HOME is an empty folder."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a network connection was attempted: {args[:1]}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def _run(source: str) -> str:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(source, "<optional cell>", "exec"), {"__name__": "__main__"})
    return output.getvalue()


def _flag_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    return [source for source in sources if f"{optional_datasets.FLAG} = " in source]


@pytest.mark.parametrize("edition", ["source", "release"])
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_flag_is_off_in_both_editions(chapter, edition):
    path = COURSE / edition / chapter / f"{chapter}.ipynb"
    cells = _flag_cells(path)
    assert len(cells) == 1, f"{path.name}: no optional dataset cell (regenerate it with notebooks/tools/build.py)"
    assert f"\n{optional_datasets.FLAG} = False  #" in cells[0]
    assert cells[0] == optional_datasets.cell_source(chapter)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_default_run_downloads_nothing(chapter, no_network):
    text = _run(optional_datasets.cell_source(chapter))
    assert "Skipped" in text and "nothing was downloaded" in text
    assert list(no_network.iterdir()) == []  # not even the data folder was made


def _write_idx(path: Path, array: np.ndarray) -> None:
    header = bytes([0, 0, 0x08, array.ndim]) + np.asarray(array.shape, dtype=">i4").tobytes()
    path.write_bytes(header + array.astype(np.uint8).tobytes())


def _fake_dataset(root: Path, name: str) -> None:
    raw = root / "minitorch-data" / name / "raw"
    raw.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for split, count in (("train", 256), ("t10k", 128)):
        _write_idx(raw / f"{split}-images-idx3-ubyte", rng.integers(0, 256, size=(count, 28, 28)))
        _write_idx(raw / f"{split}-labels-idx1-ubyte", rng.integers(0, 10, size=count))


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_with_the_flag_on_the_cell_trains_on_local_files(chapter, no_network):
    dataset = optional_datasets.SECTIONS[chapter][0]
    _fake_dataset(no_network, dataset)
    source = optional_datasets.cell_source(chapter).replace(
        f"{optional_datasets.FLAG} = False", f"{optional_datasets.FLAG} = True"
    )
    text = _run(source)
    assert "Skipped" not in text and "Could not" not in text
    assert "accuracy" in text or "one batch" in text, text


def test_offline_with_the_flag_on_says_why_and_goes_on(no_network):
    source = optional_datasets.cell_source("04_networks").replace(
        f"{optional_datasets.FLAG} = False", f"{optional_datasets.FLAG} = True"
    )
    # the dataset's downloader reports a network failure as a DownloadError, and no mirror answers
    from minitorch.vision.datasets import mnist, utils

    def offline(url, *args, **kwargs):
        raise utils.DownloadError(f"could not reach {url}")

    original = mnist.download_and_extract_archive
    mnist.download_and_extract_archive = offline
    try:
        text = _run(source)
    finally:
        mnist.download_and_extract_archive = original
    assert "Could not get MNIST" in text and "could not reach" in text
