"""``fx.replace_pattern`` (minitorch/fx/subgraph_rewriter.py) against torch.fx's: the same matches, the same
generated code, the same results."""

from __future__ import annotations

import pytest

import minitorch
from tests.corpus.compare import as_torch_names
from tests.support import require_torch


def _rewrite(lib, forward, pattern, replacement):
    traced = lib.fx.symbolic_trace(_named(forward, lib))
    return traced, lib.fx.replace_pattern(traced, _named(pattern, lib), _named(replacement, lib))


def _named(function, lib):
    """``function(lib, a, b...)`` as a function of its inputs alone, keeping their names for the trace."""
    names = function.__code__.co_varnames[1:function.__code__.co_argcount]
    source = f"def {function.__name__}({', '.join(names)}):\n    return function(lib, {', '.join(names)})\n"
    namespace = {"function": function, "lib": lib}
    exec(source, namespace)
    return namespace[function.__name__]


def program(lib, x, w1, w2):
    m1 = lib.cat([lib.neg(w1), w2]).sum()
    m2 = lib.cat([lib.neg(w1), w2]).sum()
    return x + lib.max(m1) + lib.max(m2)


def neg_cat_sum(lib, a1, a2):
    return lib.cat([lib.neg(a1), a2]).sum()


def stack(lib, w1, w2):
    return lib.stack([w1, w2])


def chain(lib, x):
    y = lib.relu(x)
    return lib.sigmoid(y) + y.exp()  # relu's result is read twice: a match must not leave a reader outside


def relu_then_sigmoid(lib, a):
    return lib.sigmoid(lib.relu(a))


def tanh(lib, a):
    return lib.tanh(a)


def twice(lib, x):
    return lib.add(lib.mul(x, 2), 1) + lib.add(lib.mul(x, 3), 1)  # the constant 2 differs from the pattern's 3


def mul_three_add_one(lib, a):
    return lib.add(lib.mul(a, 3), 1)


def neg(lib, a):
    return lib.neg(a)


@pytest.mark.parametrize("forward, pattern, replacement, inputs", [
    (program, neg_cat_sum, stack, ([1.0, 2.0], [0.5, -1.0, 2.0], [3.0, 1.0, -2.0])),
    (chain, relu_then_sigmoid, tanh, ([-1.0, 0.5, 2.0],)),
    (twice, mul_three_add_one, neg, ([-1.0, 0.5, 2.0],)),
])
def test_replace_pattern_matches_rewrites_and_runs_as_torch_fx_does(forward, pattern, replacement, inputs):
    torch = require_torch()
    ours, our_matches = _rewrite(minitorch, forward, pattern, replacement)
    theirs, their_matches = _rewrite(torch, forward, pattern, replacement)
    assert len(our_matches) == len(their_matches)
    describe = lambda matches: [  # noqa: E731
        (match.anchor.name, sorted((p.name, getattr(g, "name", g)) for p, g in match.nodes_map.items()))
        for match in matches]
    assert describe(our_matches) == describe(their_matches)
    assert as_torch_names(ours.code) == theirs.code
    result = ours(*map(minitorch.tensor, inputs))
    assert result.tolist() == pytest.approx(theirs(*map(torch.tensor, inputs)).tolist())
