"""The kit's Jupyter server extension: a saved notebook keeps the widgets' static pictures, never a dead view.

The browser test (``test_browser.py``) saves and reopens the demo notebook in JupyterLab; these
check the hook on its own, through jupyter_server's real contents manager, and that installing
the kit enables it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from tests.support import require
from tests.widgets.support import require_dot

ROOT = Path(__file__).resolve().parents[2]
LAB_SETTINGS = ROOT / "jupyter-config" / "lab" / "overrides.json"
SERVER_CONFIG = ROOT / "jupyter-config" / "jupyter_server_config.d" / "minitorch-kit.json"
VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
STASH = "minitorch-kit"


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
    assert views == []  # on disk, no output has a live view: every viewer shows the picture
    kept, gone = saved.cells[1].outputs
    assert kept["metadata"][STASH]["widget-view"]["model_id"] == "kept"  # moved beside the picture
    assert STASH not in gone["metadata"]  # its model is not saved: dropped
    assert all("minitorch-static" in output["data"]["text/html"] for output in (kept, gone))
    # the kit's server hands the notebook back with the saved model's view in place: it reopens live
    opened = manager.get("saved.ipynb")["content"]
    views = [output["data"][VIEW]["model_id"] for cell in opened["cells"] for output in cell.get("outputs", [])
             if VIEW in output.get("data", {})]
    assert views == ["kept"]
    assert STASH not in opened["cells"][1]["outputs"][0]["metadata"]
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


def _real_widget_notebook():
    """A notebook as the kit's lab sends it to be saved: the tour's stepper and a monitor, shown with their
    live views and pictures, and the widget state JupyterLab saves (``saveState: true``)."""
    nbformat = require("nbformat", "the notebooks are read with nbformat")
    require("anywidget", "the stepper's view is an anywidget")
    require_dot()
    from ipywidgets.embed import dependency_state

    import minitorch
    import minitorch.nn as nn
    import widgets

    a = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = minitorch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    stepper = widgets.GraphStepper(((a * b).exp() + b).sum(), names={"a": a, "b": b})
    monitor = widgets.GradientMonitor(nn.Linear(2, 1))
    notebook = nbformat.v4.new_notebook()
    for name, shown in (("stepper", stepper), ("monitor", monitor)):
        data = shown._repr_mimebundle_()
        notebook.cells.append(nbformat.v4.new_code_cell(name, outputs=[
            nbformat.v4.new_output("display_data", data=data)]))
    assert all(VIEW in cell.outputs[0]["data"] for cell in notebook.cells)
    views = [stepper.widget, monitor.widget]
    state = dependency_state(views, drop_defaults=False)
    notebook.metadata["widgets"] = {STATE: {"version_major": 2, "version_minor": 0, "state": state}}
    return json.loads(json.dumps(notebook))


def _manager_with_the_extension(tmp_path):
    require("jupyter_server", "JupyterLab's server saves the notebooks")
    import logging
    from types import SimpleNamespace

    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

    import widgets.saving as saving

    manager = AsyncLargeFileManager(root_dir=str(tmp_path))  # the server's default contents manager
    saving._load_jupyter_server_extension(SimpleNamespace(contents_manager=manager, log=logging.getLogger("test")))
    return manager


def _picture_cells(html: str) -> int:
    """How many static pictures an HTML page shows without running any script."""
    without_scripts = re.sub(r"<script\b.*?</script>", "", html, flags=re.S)
    return without_scripts.count("class='minitorch-static") + without_scripts.count('class="minitorch-static')


def test_a_notebook_saved_with_widget_state_shows_every_picture_in_the_html_export(tmp_path):
    nbconvert = require("nbconvert", "the HTML export")
    import asyncio

    manager = _manager_with_the_extension(tmp_path)
    notebook = _real_widget_notebook()
    # as nbconvert exports it before the fix: the live views replace the pictures (the measured problem)
    unsaved = tmp_path / "unsaved.ipynb"
    unsaved.write_text(json.dumps(notebook))
    assert _picture_cells(nbconvert.HTMLExporter().from_filename(str(unsaved))[0]) == 0
    asyncio.run(manager.save({"type": "notebook", "format": "json", "content": notebook}, "saved.ipynb"))
    saved = json.loads((tmp_path / "saved.ipynb").read_text())
    model_ids = set(saved["metadata"]["widgets"][STATE]["state"])
    outputs = [output for cell in saved["cells"] for output in cell["outputs"]]
    # on disk: the picture and the words in every widget output, no live view; the state is kept
    assert [sorted(output["data"]) for output in outputs] == [["text/html", "text/plain"]] * 2
    assert all(output["metadata"][STASH]["widget-view"]["model_id"] in model_ids for output in outputs)
    for exporter in (nbconvert.HTMLExporter(), nbconvert.HTMLExporter(template_name="classic")):
        html = exporter.from_filename(str(tmp_path / "saved.ipynb"))[0]
        # with JavaScript off (the page without its scripts), every widget cell shows its picture
        assert _picture_cells(html) == 2
        assert re.search(r"minitorch-graph-static.*?data:image/svg\+xml;base64,", html, flags=re.S)  # drawn
        assert '<script type="application/vnd.jupyter.widget-view+json">' not in html  # no live view to render
    # a viewer that reads the file itself (nbviewer, GitHub) shows the richest format it knows: the picture
    assert all("minitorch-static" in "".join(output["data"]["text/html"]) for output in outputs)
    # and the kit's server opens it live: every view back, pointing to a saved model
    opened = asyncio.run(manager.get("saved.ipynb"))["content"]
    views = [output["data"].get(VIEW) for cell in opened["cells"] for output in cell["outputs"]]
    assert [view["model_id"] in model_ids for view in views] == [True, True]


def test_an_export_made_by_the_kits_server_reads_the_pictures(tmp_path):
    import asyncio

    import widgets.saving as saving

    manager = _manager_with_the_extension(tmp_path)
    asyncio.run(manager.save({"type": "notebook", "format": "json", "content": _notebook(saved_ids=["kept"])},
                             "saved.ipynb"))

    async def as_the_export_handler():
        token = saving._exporting.set(True)
        try:
            return await manager.get("saved.ipynb")
        finally:
            saving._exporting.reset(token)

    exported = asyncio.run(as_the_export_handler())["content"]
    assert not [output for cell in exported["cells"] for output in cell.get("outputs", [])
                if VIEW in output.get("data", {})]
    from jupyter_server.nbconvert.handlers import NbconvertFileHandler

    assert getattr(NbconvertFileHandler.get, "minitorch_kit", False)  # the export handler sets the flag


def test_the_first_save_after_reopening_keeps_the_widget_state(tmp_path):
    import asyncio

    manager = _manager_with_the_extension(tmp_path)
    notebook = _notebook(saved_ids=["kept", "layout", "other"])
    state = notebook["metadata"]["widgets"][STATE]["state"]
    state["kept"]["state"]["layout"] = "IPY_MODEL_layout"  # a model the view's model refers to
    asyncio.run(manager.save({"type": "notebook", "format": "json", "content": notebook}, "saved.ipynb"))
    # reopened in JupyterLab: the kernel starts, the widget manager forgets the restored models, and the
    # save it sends has the views but an empty state (ipywidgets' bug: 84 models to 0)
    reopened = asyncio.run(manager.get("saved.ipynb"))["content"]
    reopened["metadata"]["widgets"][STATE]["state"] = {}
    asyncio.run(manager.save({"type": "notebook", "format": "json", "content": reopened}, "saved.ipynb"))
    saved = json.loads((tmp_path / "saved.ipynb").read_text())
    # what the outputs still point to is kept, with what it refers to; a model nothing shows is not
    assert set(saved["metadata"]["widgets"][STATE]["state"]) == {"kept", "layout"}
    assert saved["cells"][1]["outputs"][0]["metadata"][STASH]["widget-view"]["model_id"] == "kept"
    # a later save with the cells run again (new models, new views) does not bring the old ones back
    rerun = json.loads(json.dumps(reopened))
    rerun["cells"][1]["outputs"] = [_widget_output("new")]
    rerun["metadata"]["widgets"][STATE]["state"] = {"new": {"model_name": "AnyModel", "state": {}}}
    asyncio.run(manager.save({"type": "notebook", "format": "json", "content": rerun}, "saved.ipynb"))
    assert set(json.loads((tmp_path / "saved.ipynb").read_text())["metadata"]["widgets"][STATE]["state"]) == {"new"}


def test_the_kits_lab_saves_widget_state_and_starts_the_default_kernel():
    settings = json.loads(LAB_SETTINGS.read_text())
    assert settings["@jupyter-widgets/jupyterlab-manager:plugin"] == {"saveState": True}
    assert settings["@jupyterlab/notebook-extension:tracker"] == {"autoStartDefaultKernel": True}
    # the settings exist in JupyterLab's own schemas (a misspelt key would be ignored silently)
    import sys

    schemas = Path(sys.prefix) / "share" / "jupyter"
    tracker = schemas / "lab" / "schemas" / "@jupyterlab" / "notebook-extension" / "tracker.json"
    manager = (schemas / "labextensions" / "@jupyter-widgets" / "jupyterlab-manager" / "schemas"
               / "@jupyter-widgets" / "jupyterlab-manager" / "plugin.json")
    if not tracker.exists() or not manager.exists():
        require("jupyterlab_is_installed_with_its_schemas", "JupyterLab's settings schemas")
    assert json.loads(tracker.read_text())["properties"]["autoStartDefaultKernel"]["type"] == "boolean"
    assert json.loads(manager.read_text())["properties"]["saveState"]["type"] == "boolean"
    makefile = (ROOT / "Makefile").read_text()
    assert "LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json" in makefile
    assert "cp $(LAB_SETTINGS) $@" in makefile
    lab_rule = next(line for line in makefile.splitlines() if line.startswith("lab:"))
    assert "$(LAB_OVERRIDES)" in lab_rule


def test_drawings_are_kept_as_images_that_a_sanitising_viewer_leaves_alone():
    from tests.widgets.support import pictures
    from widgets.static import svg_as_images

    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="540pt" style="max-width:none"><text>a &lt; b</text></svg>'
    html = svg_as_images(f"<div class='minitorch-static'><p>before</p>{svg}<p>after</p>{svg}</div>",
                         alt='the graph "x"')
    assert "<svg" not in html and "<p>before</p>" in html and "<p>after</p>" in html
    assert pictures(html) == [svg, svg]  # the same drawing, byte for byte
    assert html.count('style="width:540pt;max-width:100%;height:auto;max-width:none"') == 2  # its size kept
    assert 'alt="the graph &quot;x&quot;"' in html
    # what JupyterLab's sanitiser checks (the scheme of href and cite, never src) and an HTML export shows
    assert re.findall(r"<img [^>]*>", html)[0].count("src=") == 1 and "href=" not in html
