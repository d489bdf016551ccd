"""A widget that also leaves a picture: the live view, and a static copy of its state beside it.

A notebook output holds a *bundle*: the same output in several formats, and the viewer shows
the richest one it can. JupyterLab with a running kernel shows the live widget
(``application/vnd.jupyter.widget-view+json``); GitHub, nbviewer, an HTML export or any viewer
without the widget's state shows the ``text/html`` copy (the graph, the charts, the timings as
they were, each drawing an SVG image: ``svg_as_images``); a text-only viewer shows
``text/plain``, the same state in words. ``saving.py`` keeps the live view out of the saved
file's output, so that every viewer shows the picture.

The copy is refreshed when the widget's state changes (``update_static()``; the monitor does it
at the end of each cell), through the display's id, so what a saved notebook keeps is the
state it was saved in.
"""

from __future__ import annotations

import base64
import re

__all__ = ["StaticFallback", "svg_as_images"]

_SVG = re.compile(r"<svg\b[^>]*>.*?</svg>", re.S)
_ATTRIBUTE = r'\s{name}="([^"]*)"'


def svg_as_images(html: str, alt: str = "") -> str:
    """``html`` with each inline ``<svg>`` turned into an ``<img>`` holding the same SVG as a data URI.

    A viewer that does not trust the notebook (a colleague's JupyterLab, GitHub) sanitises its HTML and
    strips inline SVG, leaving the labels as a heap of words; an image's ``src`` is left alone by
    JupyterLab's sanitiser (it checks the scheme of ``href`` and ``cite`` only), and nbconvert, nbviewer
    and a browser with JavaScript off show it as they show any image.
    """

    def image(match) -> str:
        svg = match.group(0)
        opening = svg[:svg.index(">")]
        width = re.search(_ATTRIBUTE.format(name="width"), opening)
        style = re.search(_ATTRIBUTE.format(name="style"), opening)
        sizes = [f"width:{width.group(1)}" if width else "", "max-width:100%", "height:auto",
                 style.group(1) if style else ""]
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        alt_text = alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        return (f'<img class="minitorch-picture" alt="{alt_text}" style="{";".join(filter(None, sizes))}" '
                f'src="data:image/svg+xml;base64,{data}"/>')

    return _SVG.sub(image, html)


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
        # the picture, with its drawings as images (they survive sanitising viewers); see svg_as_images
        bundle["text/html"] = svg_as_images(self.static_html(), alt=self.static_text()[:300])
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
