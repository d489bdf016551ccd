"""The examples in the widgets' docstrings run and print what they say."""

from __future__ import annotations

import doctest
import importlib

import pytest

from tests.widgets.support import require_dot


@pytest.mark.parametrize("module_name", [
    "widgets.render", "widgets.graph_values", "widgets.graph_record", "widgets.graph_timeline", "widgets.graph_view",
    "widgets.graph", "widgets.fx_timeline", "widgets.gradients", "widgets.timing", "widgets.budget",
])
def test_docstring_examples(module_name):
    require_dot()
    module = importlib.import_module(module_name)
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert results.attempted > 0 and results.failed == 0
