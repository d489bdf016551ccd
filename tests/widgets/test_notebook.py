"""The demo notebook runs top to bottom with nbclient, and its saved widget state holds all three widgets."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.support import require
from tests.widgets.support import pictures, require_dot

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


def test_demo_notebook_runs_and_saves_the_state_of_all_three_widgets(monkeypatch, capsys):
    notebook, seconds = execute_demo(monkeypatch)
    with capsys.disabled():  # printed, never asserted: a shared machine's load decides a wall-clock bound
        print(f"\nthe widgets' demo notebook ran in {seconds:.1f} s")
    errors = [output for cell in notebook.cells for output in cell.get("outputs", []) if output.output_type == "error"]
    assert errors == []
    shown = [
        output for cell in notebook.cells for output in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in output.get("data", {})
    ]
    assert len(shown) == 4  # two steppers, the monitor and the timer (its progress shows inside it, then goes)
    saved_text = [output["data"].get("text/plain", "") for output in shown]
    assert not any("object at 0x" in text for text in saved_text)  # text-only viewers read words
    assert not any("timing:" in text or "%" in text.split("\n")[0] for text in saved_text[3:])  # no stale bar

    state = notebook.metadata["widgets"][WIDGET_STATE]["state"]
    models = {model_id: model for model_id, model in state.items()}

    def of(name, dom_class=None):
        return [m for m in models.values() if m["model_name"] == name
                and (dom_class is None or dom_class in m["state"].get("_dom_classes", []))]

    # The graph steppers: anywidget views holding the drawing once and every frame's changes, so the browser
    # steps without a kernel; the output beside each keeps a static picture of the whole graph.
    steppers = [m for m in models.values() if "svg_parts" in m["state"]]
    assert len(steppers) == 2
    for stepper in steppers:
        view = stepper["state"]
        assert view["svg_parts"][0].lstrip().startswith("<svg")
        assert len(view["changes"]) == len(view["captions"]) == view["frame_count"]
        assert view["captions"][0].startswith("Before forward") and "Backward step" in view["captions"][-1]
        assert "svgPanZoom" in view["_esm"]
    first = steppers[0]["state"]
    assert first["frame_count"] == 11 and any("MulBackward0" in part for part in first["svg_parts"])
    statics = [output["data"].get("text/html", "") for output in shown]
    statics = [html for html in statics if "minitorch-static" in html]
    assert len(statics) == 4  # two graphs, the monitor, the timer
    assert all(pictures(html) for html in statics)  # drawings as SVG images

    # The gradient monitor: its charts are SVG kept in the notebook, and its status says where the data ends.
    monitor_boxes = of("VBoxModel", "minitorch-gradient-monitor")
    assert len(monitor_boxes) == 1
    html_values = " ".join(m["state"].get("value", "") for m in of("HTMLModel"))
    assert html_values.count("<svg") >= 3  # overview, histograms, timer plot
    assert "150 steps seen" in html_values and "data ends at step 150" in html_values
    assert "vanishing gradients" in html_values
    assert any("150 steps seen" in html and pictures(html) for html in statics)  # the static copy is up to date

    # The device timer: its messages and GFLOP/s table.
    assert len(of("VBoxModel", "minitorch-device-timer")) == 1
    assert "GFLOP/s" in html_values and "matmul" in html_values
