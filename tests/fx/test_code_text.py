"""A traced module's ``.code`` is torch.fx's text, to the last character (programs print it).

torch.fx's source ends with the indentation of a next line, so ``print(gm.code)`` ends with a line of
four spaces; the examples of pytorch/examples/fx print the code of edited graphs.
"""

from __future__ import annotations

import operator

import minitorch
from tests.corpus.compare import as_torch_names
from tests.support import require_torch


def _code(lib):
    class M(lib.nn.Module):
        def forward(self, x, y):
            return x + y, lib.add(x, y), x.relu()

    traced = lib.fx.symbolic_trace(M())
    for node in traced.graph.nodes:
        if node.target in (operator.add, lib.add):
            with traced.graph.inserting_after(node):
                replacement = traced.graph.call_function(lib.bitwise_and, node.args, node.kwargs)
                node.replace_all_uses_with(replacement)
            traced.graph.erase_node(node)
    traced.recompile()
    return traced.code


def test_code_is_torch_fx_text():
    torch = require_torch()
    assert as_torch_names(_code(minitorch)) == _code(torch)
