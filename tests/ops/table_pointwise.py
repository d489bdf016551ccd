"""Op-table entries for ``minitorch/ops/pointwise.py``."""

from tests.ops.op_table import Arg, OpInfo, S

BINARY_SHAPES = [S((3, 4), (3, 4)), S((2, 3, 1), (3, 4)), S((), (2, 3)), S((4,), ())]

OPS = [
    OpInfo("add", lambda lib, a, b: a + b, BINARY_SHAPES, elementwise=2),
    OpInfo("add_alpha", lambda lib, a, b: lib.add(a, b, alpha=2.5), BINARY_SHAPES[:2]),
    OpInfo("add_scalar", lambda lib, a: 3.5 + a, [S((3, 4)), S(())], elementwise=1),
    OpInfo("sub", lambda lib, a, b: a - b, BINARY_SHAPES, elementwise=2),
    OpInfo("rsub_scalar", lambda lib, a: 2 - a, [S((3, 4))]),
    OpInfo("mul", lambda lib, a, b: a * b, BINARY_SHAPES, elementwise=2),
    OpInfo("mul_scalar", lambda lib, a: a * 1.5, [S((3, 4))]),
    OpInfo("div", lambda lib, a, b: a / b, [S((3, 4)) + (Arg((3, 4), low=0.5, high=2.0),),
                                            S((2, 3, 1)) + (Arg((3, 4), low=0.5, high=2.0),)],
           elementwise=0),
    OpInfo("rdiv_scalar", lambda lib, a: 2.0 / a, [(Arg((3, 4), low=0.5, high=2.0),)]),
    OpInfo("neg", lambda lib, a: -a, [S((3, 4)), S(())], elementwise=1),
]
