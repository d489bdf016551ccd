"""Saved notebooks show every widget's picture everywhere, and reopen live in the kit's lab.

A widget's output holds several formats (``static.py``): the live view
(``application/vnd.jupyter.widget-view+json``, a pointer to a widget *model* by its id), a
static picture (``text/html``: inline SVG) and the same state in words (``text/plain``).
Every viewer other than a live JupyterLab goes wrong on the live view:

* with no saved model (JupyterLab's default, ``saveState: false``), JupyterLab's widget renderer
  writes "Error displaying widget: model not found" instead of falling back to the picture;
* with the model saved (the kit's lab saves widget state), nbconvert's HTML export renders the
  view (a script that needs JavaScript and the network) and drops the picture of the same output;
  a plain JupyterLab without anywidget (the stepper's and the monitor's views are anywidgets)
  shows "Click to show javascript error".

So what the kit's Jupyter server writes to disk never has a live view beside a picture:

* a view whose model is not saved is dropped (only the picture and the words remain);
* a view whose model is saved is *moved* into the output's metadata (``minitorch-kit`` ->
  ``widget-view``), where no viewer looks; the file shows the picture in nbconvert (with and
  without JavaScript), nbviewer, GitHub and any JupyterLab. When the kit's server opens the
  notebook, it moves the view back (``restore_widget_views``), so the kit's lab reopens it live
  from the saved state. (An export made by the kit's server, "Save and Export As", reads the file
  as it is on disk: pictures.)

Outputs without a picture (a plain ``IntSlider``) keep their view as ipywidgets saves it.

One more repair as the file is saved: JupyterLab's widget manager forgets the models it restored
from the file once the kernel starts (a known ipywidgets bug), so the first save after reopening
a notebook would write no widget state at all (84 models to 0) and the next reopening could not
show the widgets live. The hook keeps, from the file being replaced, the state of every model
that an output still points to and the new state lacks (with the models those refer to).

It is a Jupyter server extension (``_load_jupyter_server_extension`` registers
``keep_pictures_before_save`` as a pre-save hook and wraps the contents manager's ``get``),
enabled by ``jupyter-config/jupyter_server_config.d/minitorch-kit.json``, which installing the
kit puts in the environment's ``etc/jupyter``.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json

__all__ = ["WIDGET_VIEW", "WIDGET_STATE", "STASH", "saved_model_ids", "drop_dead_widget_views",
           "stash_widget_views", "restore_widget_views", "keep_lost_widget_state", "keep_pictures_before_save"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
STASH = "minitorch-kit"  # the output metadata key that keeps a moved view: {"widget-view": {...}}
# Formats that are a picture of the widget: an output holding one never needs its live view to be seen.
PICTURES = ("text/html", "image/svg+xml", "image/png", "image/jpeg")
# What an output says when the live view was all it had (ipywidgets always adds text/plain, so rarely).
NO_STATE = "A widget was shown here; its state was not saved with the notebook: run the cell to see it again.\n"


def _widget_outputs(notebook: dict):
    for cell in notebook.get("cells") or []:
        if cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs") or []:
            if isinstance(output.get("data"), dict):
                yield output


def _state(notebook: dict) -> dict:
    widgets = (notebook.get("metadata") or {}).get("widgets") or {}
    state = (widgets.get(WIDGET_STATE) or {}).get("state") or {}
    return state if isinstance(state, dict) else {}


def saved_model_ids(notebook: dict) -> set[str]:
    """The ids of the widget models whose state ``notebook`` (nbformat 4, as a dict) keeps."""
    return set(_state(notebook))


def _view_of(output: dict):
    """The live view an output points to: in its data, or moved into its metadata by the save."""
    view = output["data"].get(WIDGET_VIEW)
    if view is None:
        view = ((output.get("metadata") or {}).get(STASH) or {}).get("widget-view")
    return view if isinstance(view, dict) else None


def drop_dead_widget_views(notebook: dict) -> int:
    """Remove the live views whose model is not saved in ``notebook``; return how many were removed.

    The rest of each output (its static ``text/html`` copy, ``text/plain``) is kept as it is.
    """
    saved = saved_model_ids(notebook)
    dropped = 0
    for output in _widget_outputs(notebook):
        data = output["data"]
        metadata = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
        stash = metadata.get(STASH) if isinstance(metadata.get(STASH), dict) else {}
        if WIDGET_VIEW not in data and "widget-view" not in stash:
            continue
        view = _view_of(output)
        if view is not None and view.get("model_id") in saved:
            continue
        data.pop(WIDGET_VIEW, None)
        metadata.pop(WIDGET_VIEW, None)
        stash.pop("widget-view", None)
        if STASH in metadata and not stash:
            del metadata[STASH]
        if not data:
            data["text/plain"] = NO_STATE
        dropped += 1
    return dropped


def stash_widget_views(notebook: dict) -> int:
    """Move each live view that has a picture beside it into its output's metadata; return how many.

    Run after ``drop_dead_widget_views``: what remains in ``data`` is what every viewer shows.
    """
    moved = 0
    for output in _widget_outputs(notebook):
        data = output["data"]
        if WIDGET_VIEW not in data or not any(key in data for key in PICTURES):
            continue
        if not isinstance(output.get("metadata"), dict):
            output["metadata"] = {}
        stash = output["metadata"].setdefault(STASH, {})
        stash["widget-view"] = data.pop(WIDGET_VIEW)
        moved += 1
    return moved


def restore_widget_views(notebook: dict) -> int:
    """Put each moved view back into its output (the kit's lab shows it live); return how many.

    A view whose model is not in the saved state stays out (it would only say "model not found").
    """
    saved = saved_model_ids(notebook)
    restored = 0
    for output in _widget_outputs(notebook):
        metadata = output.get("metadata")
        stash = metadata.get(STASH) if isinstance(metadata, dict) else None
        if not isinstance(stash, dict) or "widget-view" not in stash:
            continue
        view = stash.pop("widget-view")
        if not stash:
            del metadata[STASH]
        if isinstance(view, dict) and view.get("model_id") in saved:
            output["data"][WIDGET_VIEW] = view
            restored += 1
    return restored


def _references(state: dict) -> set[str]:
    """The model ids a model's state points to (``"IPY_MODEL_<id>"``: its children, its layout, ...)."""
    found = set()
    for text in json.dumps(state).split('"IPY_MODEL_')[1:]:
        found.add(text.split('"', 1)[0])
    return found


def keep_lost_widget_state(notebook: dict, previous: dict) -> int:
    """Copy from ``previous`` (the file being replaced) the state of every model an output of ``notebook``
    points to that ``notebook``'s own state lacks, with every model it refers to; return how many.
    """
    old = _state(previous)
    if not old:
        return 0
    new = _state(notebook)
    wanted = [view["model_id"] for view in map(_view_of, _widget_outputs(notebook))
              if view is not None and view.get("model_id") not in new and view.get("model_id") in old]
    kept = {}
    while wanted:
        model_id = wanted.pop()
        if model_id in kept or model_id in new or model_id not in old:
            continue
        kept[model_id] = old[model_id]
        wanted.extend(_references(old[model_id]))
    if kept:
        metadata = notebook.setdefault("metadata", {})
        widgets = metadata.setdefault("widgets", {})
        section = widgets.setdefault(WIDGET_STATE, {})
        old_section = previous["metadata"]["widgets"][WIDGET_STATE]
        for key, default in (("version_major", 2), ("version_minor", 0)):  # the state's format, as the file had it
            section.setdefault(key, old_section.get(key, default))
        section.setdefault("state", {}).update(kept)
    return len(kept)


def _previous_file(path: str, contents_manager) -> dict:
    """The notebook on disk that this save replaces (``{}`` when there is none or it cannot be read)."""
    get_path = getattr(contents_manager, "_get_os_path", None)
    if get_path is None:
        return {}
    try:
        with open(get_path(path), encoding="utf-8") as file:
            previous = json.load(file)
    except (OSError, ValueError):
        return {}
    return previous if isinstance(previous, dict) else {}


def keep_pictures_before_save(model: dict, path: str = "", contents_manager=None, **kwargs) -> None:
    """The pre-save hook (jupyter_server's ``ContentsManager`` calls it with the file's model)."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    notebook = model["content"]
    kept = keep_lost_widget_state(notebook, _previous_file(path, contents_manager)) if contents_manager else 0
    dropped = drop_dead_widget_views(notebook)
    moved = stash_widget_views(notebook)
    if contents_manager is not None and (kept or dropped or moved):
        contents_manager.log.debug("minitorch-kit: %s: %d widget models kept from the previous save, %d views "
                                   "without saved state dropped, %d views moved beside their pictures",
                                   path, kept, dropped, moved)


# The old name of the hook (a notebook server configured by hand may still name it).
drop_dead_widget_views_before_save = keep_pictures_before_save

# True while the kit's server exports a notebook (nbconvert's handler reads it through ``get``): the
# export shows the file as it is on disk, pictures and no live views.
_exporting = contextvars.ContextVar("minitorch_kit_exporting", default=False)


def _restoring_get(get):
    """``contents_manager.get`` that hands JupyterLab each notebook with its moved views back in place."""

    def restore(model):
        if (isinstance(model, dict) and model.get("type") == "notebook" and isinstance(model.get("content"), dict)
                and not _exporting.get()):
            restore_widget_views(model["content"])
        return model

    if inspect.iscoroutinefunction(get):
        @functools.wraps(get)
        async def restoring(*args, **kwargs):
            return restore(await get(*args, **kwargs))
    else:
        @functools.wraps(get)
        def restoring(*args, **kwargs):
            return restore(get(*args, **kwargs))
    restoring.minitorch_kit = True
    return restoring


def _exporting_get(handler_get):
    @functools.wraps(handler_get)
    async def get(self, *args, **kwargs):
        token = _exporting.set(True)
        try:
            return await handler_get(self, *args, **kwargs)
        finally:
            _exporting.reset(token)

    get.minitorch_kit = True
    return get


def _jupyter_server_extension_points():
    return [{"module": "widgets.saving"}]


def _load_jupyter_server_extension(server_app) -> None:
    """Register the pre-save hook and the view restore with the server's contents manager."""
    manager = server_app.contents_manager
    manager.register_pre_save_hook(keep_pictures_before_save)
    if not getattr(manager.get, "minitorch_kit", False):
        manager.get = _restoring_get(manager.get)
    try:
        from jupyter_server.nbconvert.handlers import NbconvertFileHandler
    except ImportError:  # pragma: no cover - an older server without the export handler
        NbconvertFileHandler = None
    if NbconvertFileHandler is not None and not getattr(NbconvertFileHandler.get, "minitorch_kit", False):
        NbconvertFileHandler.get = _exporting_get(NbconvertFileHandler.get)
    server_app.log.info("minitorch-kit: saved notebooks keep the widgets' static pictures")
