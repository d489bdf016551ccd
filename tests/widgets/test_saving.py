"""The kit's Jupyter server extension: a saved notebook keeps the widgets' static pictures, never a dead view.

The browser test (``test_browser.py``) saves and reopens the demo notebook in JupyterLab; these
check the hook on its own, through jupyter_server's real contents manager, and that installing
the kit enables it.
"""

from __future__ import annotations

import json
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from tests.support import require

ROOT = Path(__file__).resolve().parents[2]
SERVER_CONFIG = ROOT / "jupyter-config" / "jupyter_server_config.d" / "minitorch-kit.json"
VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"


def _widget_output(model_id: str, html: str | None = "<div class='minitorch-static'><svg></svg></div>") -> dict:
    data = {"text/plain": "GraphStepperView(...)", VIEW: {"version_major": 2, "version_minor": 0, "model_id": model_id}}
    if html is not None:
        data["text/html"] = html
    return {"output_type": "display_data", "data": data, "metadata": {}}


def _notebook(saved_ids=()) -> dict:
    nbformat = require("nbformat", "the notebooks are read with nbformat")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# widgets"),
        nbformat.v4.new_code_cell("stepper", outputs=[_widget_output("kept"), _widget_output("gone")]),
        nbformat.v4.new_code_cell("print(1)", outputs=[nbformat.v4.new_output("stream", text="1\n")]),
        nbformat.v4.new_code_cell("bare", outputs=[{"output_type": "display_data", "metadata": {},
                                                     "data": {VIEW: {"version_major": 2, "model_id": "bare"}}}]),
    ]
    if saved_ids:
        notebook.metadata["widgets"] = {STATE: {"version_major": 2, "version_minor": 0, "state": {
            model_id: {"model_name": "AnyModel", "model_module": "anywidget", "state": {}} for model_id in saved_ids
        }}}
    return json.loads(json.dumps(notebook))  # as the browser sends it: plain JSON


def test_views_whose_model_is_not_saved_are_dropped_and_the_static_picture_stays():
    from widgets.saving import NO_STATE, drop_dead_widget_views

    notebook = _notebook(saved_ids=["kept"])
    before = json.loads(json.dumps(notebook))
    assert drop_dead_widget_views(notebook) == 2  # "gone" and "bare"
    kept, gone = notebook["cells"][1]["outputs"]
    assert kept == before["cells"][1]["outputs"][0]  # its model is saved: it reopens live
    assert gone["data"] == {"text/plain": "GraphStepperView(...)",
                            "text/html": "<div class='minitorch-static'><svg></svg></div>"}
    assert notebook["cells"][2] == before["cells"][2] and notebook["cells"][0] == before["cells"][0]
    assert notebook["cells"][3]["outputs"][0]["data"] == {"text/plain": NO_STATE}  # never an empty output
    assert notebook["metadata"] == before["metadata"]
    assert drop_dead_widget_views(notebook) == 0  # nothing left to drop


def test_jupyterlab_default_settings_no_state_saved_every_view_goes():
    from widgets.saving import drop_dead_widget_views, saved_model_ids

    notebook = _notebook()
    assert saved_model_ids(notebook) == set()
    assert drop_dead_widget_views(notebook) == 3
    assert all(VIEW not in output.get("data", {}) for cell in notebook["cells"] for output in cell.get("outputs", []))


def test_the_server_extension_runs_the_hook_when_jupyter_server_saves(tmp_path):
    require("jupyter_server", "JupyterLab's server saves the notebooks")
    nbformat = require("nbformat", "the notebooks are read with nbformat")
    import logging
    from types import SimpleNamespace

    from jupyter_server.services.contents.filemanager import FileContentsManager

    import widgets.saving as saving

    assert saving._jupyter_server_extension_points() == [{"module": "widgets.saving"}]
    manager = FileContentsManager(root_dir=str(tmp_path))
    saving._load_jupyter_server_extension(SimpleNamespace(contents_manager=manager, log=logging.getLogger("test")))
    manager.save({"type": "notebook", "format": "json", "content": _notebook(saved_ids=["kept"])}, "saved.ipynb")
    saved = nbformat.read(tmp_path / "saved.ipynb", as_version=4)
    views = [output["data"][VIEW]["model_id"] for cell in saved.cells for output in cell.get("outputs", [])
             if VIEW in output.get("data", {})]
    assert views == ["kept"]
    assert "minitorch-static" in saved.cells[1].outputs[1]["data"]["text/html"]
    # a file that is not a notebook is saved as it came
    manager.save({"type": "file", "format": "text", "content": "x"}, "notes.txt")
    assert (tmp_path / "notes.txt").read_text() == "x"


def test_installing_the_kit_enables_the_extension(tmp_path):
    require("jupyter_server", "JupyterLab's server loads the extension")
    from jupyter_server.extension.config import ExtensionConfigManager

    # what jupyter_server reads from the environment's etc/jupyter once the file is there
    folder = tmp_path / "jupyter_server_config.d"
    folder.mkdir()
    (folder / SERVER_CONFIG.name).write_text(SERVER_CONFIG.read_text())
    assert ExtensionConfigManager(read_config_path=[str(tmp_path)]).enabled("widgets.saving")
    # a wheel install puts it there from pyproject.toml's data-files; the Makefile's install steps copy it
    # (pip installs no data-files for an editable install)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data_files = project["tool"]["setuptools"]["data-files"]["etc/jupyter/jupyter_server_config.d"]
    assert data_files == [str(SERVER_CONFIG.relative_to(ROOT))]
    makefile = (ROOT / "Makefile").read_text()
    assert "SERVER_EXTENSION := $(VENV)/etc/jupyter/jupyter_server_config.d/minitorch-kit.json" in makefile
    assert "cp $(SERVER_CONFIG) $(SERVER_EXTENSION)" in makefile  # in the install step
    lab_rule = next(line for line in makefile.splitlines() if line.startswith("lab:"))
    assert "$(SERVER_EXTENSION)" in lab_rule
