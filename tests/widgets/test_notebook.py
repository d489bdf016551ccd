"""The demo notebook runs top to bottom with nbclient, and its saved widget state holds all three widgets."""

from __future__ import annotations

import base64
import os
import time
from pathlib import Path

from tests.support import require
from tests.widgets.support import require_dot

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "release" / "widgets_tour.ipynb"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def test_demo_notebook_is_committed_without_outputs():
    nbformat = require("nbformat", "the notebooks are read with nbformat")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    assert "widgets" not in notebook.metadata


def execute_demo(monkeypatch):
    nbformat = require("nbformat", "the notebooks are read with nbformat")
    nbclient = require("nbclient", "the tests run the notebooks with nbclient")
    require("ipykernel", "nbclient runs the notebook in an IPython kernel")
    require_dot()
    # The kernel imports minitorch and widgets from this checkout, installed or not.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", store_widget_state=True,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    return notebook, time.perf_counter() - start


def test_demo_notebook_runs_and_saves_the_state_of_all_three_widgets(monkeypatch):
    notebook, seconds = execute_demo(monkeypatch)
    assert seconds < 60, f"the demo took {seconds:.0f} s; it must run well under a minute"
    errors = [output for cell in notebook.cells for output in cell.get("outputs", []) if output.output_type == "error"]
    assert errors == []
    shown = [
        output for cell in notebook.cells for output in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in output.get("data", {})
    ]
    assert len(shown) == 5  # two steppers, the monitor, the timer's progress bar and the timer

    state = notebook.metadata["widgets"][WIDGET_STATE]["state"]
    models = {model_id: model for model_id, model in state.items()}

    def of(name, dom_class=None):
        return [m for m in models.values() if m["model_name"] == name
                and (dom_class is None or dom_class in m["state"].get("_dom_classes", []))]

    # The graph steppers: a Stack of pre-rendered SVG frames, linked to the slider in the browser.
    stacks = of("StackModel", "minitorch-graph-frames")
    assert len(stacks) == 2
    for stack in stacks:
        children = [models[ref.removeprefix("IPY_MODEL_")]["state"]["value"] for ref in stack["state"]["children"]]
        assert all("<svg" in child for child in children)
        assert "Before forward" in children[0] and "Backward step" in children[-1]
    first = [models[ref.removeprefix("IPY_MODEL_")]["state"]["value"] for ref in stacks[0]["state"]["children"]]
    assert len(first) == 11 and "MulBackward0" in first[-1] and "grad [" in first[-1]
    links = [m["state"] for m in of("LinkModel")]
    stack_ids = {"IPY_MODEL_" + model_id for model_id, model in models.items() if model in stacks}
    assert sum(link["target"][0] in stack_ids and link["target"][1] == "selected_index" for link in links) == 2
    assert len(of("PlayModel")) == 2

    # The gradient monitor: its charts are PNG images kept in the notebook.
    monitor_boxes = of("VBoxModel", "minitorch-gradient-monitor")
    assert len(monitor_boxes) == 1
    images = [m for m in of("ImageModel") if m.get("buffers")]
    pngs = [base64.b64decode(buffer["data"]) for m in images for buffer in m["buffers"]]
    assert sum(png.startswith(b"\x89PNG") for png in pngs) >= 3  # overview, histograms, timer plot
    monitor_html = " ".join(m["state"].get("value", "") for m in of("HTMLModel"))
    assert "150 steps seen" in monitor_html and "vanishing gradients" in monitor_html

    # The device timer: its messages and GFLOP/s table.
    assert len(of("VBoxModel", "minitorch-device-timer")) == 1
    assert "GFLOP/s" in monitor_html and "matmul" in monitor_html
