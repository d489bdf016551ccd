"""Saved notebooks show the widgets' static pictures, never "Error displaying widget: model not found".

A widget's output holds two formats (``static.py``): the live view
(``application/vnd.jupyter.widget-view+json``, a pointer to a widget *model* by its id) and a
static copy (``text/html``). JupyterLab ranks the live view first, and its widget renderer
(``@jupyter-widgets/jupyterlab-manager``, ``WidgetRenderer.renderModel``) writes "Error
displaying widget: model not found" (and logs a console error) when the model is gone, without
falling back to the other formats. The model is gone whenever the notebook is reopened and the
model's state was not saved with it: JupyterLab's default (``saveState: false``) saves none.

So the kit's Jupyter server removes, as it saves, every live view whose model is not in the
notebook's saved widget state (``metadata.widgets``): what remains in that output is the static
copy (and ``text/plain``), which JupyterLab, GitHub, nbviewer and an HTML export all show.
Views whose model was saved stay, so a notebook saved with widget state still reopens live.
Only the file on disk changes: the open notebook keeps its live widgets until it is reloaded.

It is a Jupyter server extension (``_load_jupyter_server_extension`` registers
``drop_dead_widget_views_before_save`` as a pre-save hook, beside any others), enabled by
``jupyter-config/jupyter_server_config.d/minitorch-kit.json``, which installing the kit puts
in the environment's ``etc/jupyter``.
"""

from __future__ import annotations

__all__ = ["WIDGET_VIEW", "WIDGET_STATE", "saved_model_ids", "drop_dead_widget_views",
           "drop_dead_widget_views_before_save"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# What an output says when the live view was all it had (ipywidgets always adds text/plain, so rarely).
NO_STATE = "A widget was shown here; its state was not saved with the notebook: run the cell to see it again.\n"


def saved_model_ids(notebook: dict) -> set[str]:
    """The ids of the widget models whose state ``notebook`` (nbformat 4, as a dict) keeps."""
    widgets = (notebook.get("metadata") or {}).get("widgets") or {}
    state = (widgets.get(WIDGET_STATE) or {}).get("state") or {}
    return set(state) if isinstance(state, dict) else set()


def drop_dead_widget_views(notebook: dict) -> int:
    """Remove the live views whose model is not saved in ``notebook``; return how many were removed.

    The rest of each output (its static ``text/html`` copy, ``text/plain``) is kept as it is.
    """
    saved = saved_model_ids(notebook)
    dropped = 0
    for cell in notebook.get("cells") or []:
        outputs = cell.get("outputs") if cell.get("cell_type") == "code" else None
        for output in outputs or []:
            data = output.get("data")
            if not isinstance(data, dict) or WIDGET_VIEW not in data:
                continue
            view = data[WIDGET_VIEW]
            if isinstance(view, dict) and view.get("model_id") in saved:
                continue
            del data[WIDGET_VIEW]
            metadata = output.get("metadata")
            if isinstance(metadata, dict):
                metadata.pop(WIDGET_VIEW, None)
            if not data:
                data["text/plain"] = NO_STATE
            dropped += 1
    return dropped


def drop_dead_widget_views_before_save(model: dict, path: str = "", contents_manager=None, **kwargs) -> None:
    """The pre-save hook (jupyter_server's ``ContentsManager`` calls it with the file's model)."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        dropped = drop_dead_widget_views(model["content"])
        if dropped and contents_manager is not None:
            contents_manager.log.debug("minitorch-kit: %d widget views without saved state not saved in %s",
                                       dropped, path)


def _jupyter_server_extension_points():
    return [{"module": "widgets.saving"}]


def _load_jupyter_server_extension(server_app) -> None:
    """Register the pre-save hook with the server's contents manager."""
    server_app.contents_manager.register_pre_save_hook(drop_dead_widget_views_before_save)
    server_app.log.info("minitorch-kit: saved notebooks keep the widgets' static pictures")
