"""A widget that also leaves a picture: the live view, and a static copy of its state beside it.

A notebook output holds a *bundle*: the same output in several formats, and the viewer shows
the richest one it can. JupyterLab with a running kernel shows the live widget
(``application/vnd.jupyter.widget-view+json``); GitHub, nbviewer, an HTML export or any viewer
without the widget's state shows the ``text/html`` copy (inline SVG: the graph, the charts,
the timings as they were); a text-only viewer shows ``text/plain``, the same state in words.

The copy is refreshed when the widget's state changes (``update_static()``; the monitor does it
at the end of each cell), through the display's id, so what a saved notebook keeps is the
state it was saved in.
"""

from __future__ import annotations

__all__ = ["StaticFallback"]


class StaticFallback:
    """Mixin: ``widget`` (the ipywidgets view) plus ``static_html()`` (its state as HTML) make the output."""

    def static_html(self) -> str:
        raise NotImplementedError(f"{type(self).__name__} must define static_html: its state as HTML")

    def static_text(self) -> str:
        raise NotImplementedError(f"{type(self).__name__} must define static_text: its state in words")

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude) or {}
        if isinstance(bundle, tuple):  # (data, metadata), as anywidget returns it
            bundle = bundle[0]
        bundle = dict(bundle)
        bundle["text/html"] = self.static_html()
        # A text-only viewer (a terminal, a diff, a plain-text export) reads words, not "<...View object at 0x...>".
        bundle["text/plain"] = self.static_text()
        return bundle

    def __repr__(self) -> str:
        return self.static_text()

    def _ipython_display_(self):
        from IPython.display import display

        handle = display(self._repr_mimebundle_(), raw=True, display_id=True)
        if handle is not None:
            self.__dict__.setdefault("_display_handles", []).append(handle)

    def update_static(self) -> None:
        """Refresh the static copy in every output showing this widget."""
        handles = self.__dict__.get("_display_handles", [])
        if handles:
            bundle = self._repr_mimebundle_()
            for handle in handles:
                handle.update(bundle, raw=True)
