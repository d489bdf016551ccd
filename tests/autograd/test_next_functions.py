"""``grad_fn.next_functions`` lists what PyTorch lists: number operands of arithmetic as ``(None, 0)``.

PyTorch's add, sub, mul and div wrap a Python number operand into a 0-d tensor before they run,
so the number is an input of the node with no history. Ops that take the number as a setting
(``x ** 2``, ``1 - x``, ``clamp``) list the tensor alone. The graph widget and the YouTube
series' autograd tutorial print these tuples.
"""

from __future__ import annotations

import re

import pytest

import minitorch
from tests.support import require_torch

EXPRESSIONS = [
    "x + 1", "1 + x", "x - 1", "1 - x", "x * 2", "2 * x", "x / 2", "x ** 2", "2 ** x",
    "lib.add(x, 1)", "x.add(1)", "lib.mul(x, 2)", "x.mul(2.5)", "x.sub(1)", "x.div(2)",
    "x.div(2, rounding_mode='floor')", "x.clamp(0, 1)", "x.pow(2)", "lib.remainder(x, 2)",
    "x + y", "x * y", "lib.sin(x) * 2 + 1", "(2 * lib.sin(x) + 1).sum()", "x + True",
]


def _structure(node, depth=4):
    """The graph below ``node`` as nested (name, [(child structure or None, index), ...])."""
    if node is None:
        return None
    children = [] if depth == 0 else [(_structure(child, depth - 1), index) for child, index in node.next_functions]
    return type(node).__name__, children


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_next_functions_match_pytorch(expression):
    torch = require_torch()
    structures = []
    for lib in (minitorch, torch):
        x = lib.tensor([0.5, -1.5, 2.0], requires_grad=True)
        y = lib.tensor([1.0, 2.0, 3.0])
        structures.append(_structure(eval(expression, {"lib": lib, "x": x, "y": y}).grad_fn))
    assert structures[0] == structures[1]


def test_wrapped_number_gets_no_gradient_and_the_tensor_gets_its_own():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    d = 3 * x + 1
    assert d.grad_fn.next_functions[1] == (None, 0)
    d.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_node_repr_names_the_class_like_pytorch():
    torch = require_torch()
    reprs = []
    for lib in (minitorch, torch):
        x = lib.tensor([1.0], requires_grad=True)
        reprs.append([re.sub(r"0x[0-9a-f]+", "0x", repr(node)) for node, _ in (x * 2).grad_fn.next_functions])
    assert reprs[0] == reprs[1] == ["<AccumulateGrad object at 0x>", "None"]
