"""Op-table entries for ``minitorch/ops/nn_ops.py`` (reached through ``nn.functional``)."""

from tests.ops.op_table import OpInfo, S

OPS = [
    OpInfo("linear", lambda lib, x, w, b: lib.nn.functional.linear(x, w, b),
           [S((4, 3), (5, 3), (5,)), S((2, 4, 3), (5, 3), (5,)), S((3,), (5, 3), (5,)), S((4, 3), (5, 3), (4, 5))]),
    OpInfo("linear_no_bias", lambda lib, x, w: lib.nn.functional.linear(x, w),
           [S((4, 3), (5, 3)), S((2, 2, 3), (1, 3))]),
    OpInfo("softmax", lambda lib, x: lib.nn.functional.softmax(x, dim=-1),
           [S((3, 5)), S((2, 3, 4)), S((4,)), S(())]),
    OpInfo("tensor_softmax", lambda lib, x: x.softmax(1), [S((3, 5)), S((2, 3, 4))]),
    OpInfo("tensor_log_softmax", lambda lib, x: x.log_softmax(-1), [S((3, 5)), S((2, 3, 4))]),
    OpInfo("softmax_dim0", lambda lib, x: lib.nn.functional.softmax(x, dim=0), [S((3, 5)), S((2, 3, 4))]),
    OpInfo("softmax_large", lambda lib, x: lib.nn.functional.softmax(x * 400.0, dim=1),
           [S((3, 5))], rtol=1e-6, atol=1e-9, rtol32=1e-3, atol32=1e-4),
    OpInfo("log_softmax", lambda lib, x: lib.nn.functional.log_softmax(x, dim=-1),
           [S((3, 5)), S((2, 3, 4)), S((4,)), S(())]),
    OpInfo("log_softmax_dim1", lambda lib, x: lib.nn.functional.log_softmax(x, dim=1), [S((2, 3, 4))]),
    OpInfo("log_softmax_large", lambda lib, x: lib.nn.functional.log_softmax(x * 400.0, dim=-1),
           [S((3, 5))], rtol32=1e-4, atol32=1e-4),
    OpInfo("rms_norm", lambda lib, x, w: lib.nn.functional.rms_norm(x, (4,), w), [S((3, 4), (4,)), S((2, 3, 4), (4,))]),
    OpInfo("rms_norm_2d_shape_eps", lambda lib, x: lib.nn.functional.rms_norm(x, (3, 4), eps=1e-3), [S((2, 3, 4))]),
    OpInfo("normalize", lambda lib, x: lib.nn.functional.normalize(x), [S((3, 4)), S((2, 3, 4))]),
    OpInfo("normalize_p1_dim", lambda lib, x: lib.nn.functional.normalize(x, p=1.0, dim=-1), [S((3, 4))]),
]
