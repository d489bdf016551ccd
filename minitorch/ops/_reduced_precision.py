"""bfloat16 (and float16) ops computed in float32 and rounded once, as PyTorch's CPU kernels do.

PyTorch loads bfloat16 numbers into float32 registers, computes there (its "opmath type") and rounds
only the result back to bfloat16. A one-step op on ml_dtypes' bfloat16 arrays already does that
(``a + b`` is computed in float32 and rounded). An op of several steps, such as softmax
(``exp(x - max) / sum``), would round after every step instead and drift from PyTorch's numbers:
its ``forward`` carries ``@computes_in_float32``.

    >>> import minitorch
    >>> minitorch.tensor([1.0, 2.0, 3.0], dtype=minitorch.bfloat16).softmax(0)
    tensor([0.0898, 0.2451, 0.6641], dtype=minitorch.bfloat16)

What such a forward saves for backward is float32 (an output: its rounded value, which is what PyTorch
keeps), so the backward computes in float32 as well, and the engine rounds each gradient to its input's
dtype once, as it does for every gradient: PyTorch's backward kernels also compute in float32.
"""

from __future__ import annotations

import functools

from .. import _dtype

_REDUCED = frozenset((_dtype.bfloat16.numpy_dtype, _dtype.float16.numpy_dtype))
_FLOAT32 = _dtype.float32.numpy_dtype


def computes_in_float32(forward):
    """``forward(ctx, *args)`` on float32 copies of its bfloat16 (or float16) arrays, its float32 results
    rounded back. (PyTorch computes float16 in float32 on the CPU as well.)"""

    @functools.wraps(forward)
    def forward_in_float32(ctx, *args):
        reduced = next((arg.dtype for arg in args if getattr(arg, "dtype", None) in _REDUCED), None)
        if reduced is None:
            return forward(ctx, *args)
        widened = [arg.astype(_FLOAT32) if getattr(arg, "dtype", None) == reduced else arg for arg in args]
        results = forward(ctx, *widened)
        rounded = {}

        def round_back(value):
            if getattr(value, "dtype", None) != _FLOAT32:
                return value  # indices, masks
            rounded[id(value)] = value.astype(reduced)
            return rounded[id(value)]

        results = tuple(map(round_back, results)) if isinstance(results, tuple) else round_back(results)
        if ctx._non_differentiable:  # outputs forward marked (statistics): mark their rounded copies instead
            ctx._non_differentiable = tuple(rounded.get(id(value), value) for value in ctx._non_differentiable)
        if getattr(ctx, "_to_save", ()):  # an output kept for backward: its rounded value, as PyTorch keeps it
            ctx._to_save = tuple(rounded[id(value)].astype(_FLOAT32) if id(value) in rounded else value
                                 for value in ctx._to_save)
        return results

    return forward_in_float32


def cascade_sum(xp, values, step: int = 16, levels: int = 8):
    """The sum of a 16-bit ``values`` (1-d) as PyTorch's ``nll_loss`` adds them: partial sums in ``values``' own dtype
    (every addition rounded), cascaded to limit the error: level 0 adds ``step`` values, then passes its sum up
    to level 1 and restarts; level 1 passes up after ``step`` of those, and so on. The first value passes straight
    to the top. At the end the partial sums still held at each level are added, from level 0 up.
    (PyTorch's ``step`` is ``2 ** max(4, ceil(log2(n)) // 8)``: 16 below 2 ** 40 values.)"""
    zero = xp.zeros((), dtype=values.dtype)
    held = []
    for _ in range(levels - 1):
        rows = -(-(values.shape[0] - 1) // step) if values.shape[0] else 0
        padded = xp.concatenate([values[1:], xp.zeros(rows * step - (values.shape[0] - 1), dtype=values.dtype)])
        sums = xp.zeros(rows, dtype=values.dtype)
        for column in padded.reshape(rows, step).T:  # ``step`` additions, each rounded, for every group at once
            sums = (sums + column).astype(values.dtype)
        complete = (values.shape[0] - 1) // step if values.shape[0] else 0
        held.append(sums[complete] if complete < rows else zero)  # an unfinished group stays at this level
        values = xp.concatenate([values[:1], sums[:complete]])  # the first value and each finished group: up
    top = zero
    for value in values:  # the top level (the first value, and a group only past 16 ** 7 values)
        top = (top + value).astype(zero.dtype)
    total = zero
    for partial in (*held, top):
        total = (total + partial).astype(zero.dtype)
    return xp.asarray(total)
