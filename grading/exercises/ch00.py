"""Chapter 0 (welcome): three warm-up exercises with tensors.

Expected values come from the references below (NumPy or minitorch), never written down; the
public cases are inputs only.
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn

exercise(
    "ch00.squares",
    function="squares",
    reference=lambda n: minitorch.arange(n) ** 2,
    public=[(5,), (1,), (12,)],
    hint="minitorch.arange(n) gives 0, 1, ..., n-1 as int64; ** 2 squares every entry at once.",
)

exercise(
    "ch00.celsius_to_fahrenheit",
    function="celsius_to_fahrenheit",
    reference=lambda celsius: minitorch.from_numpy(celsius.numpy() * np.float32(1.8) + np.float32(32)),
    public=[
        (np.array([0.0, 100.0, -40.0, 37.0], dtype=np.float32),),
        (randn(3, 4, seed=100, scale=20.0),),
    ],
    atol=1e-4,  # float32 rounds C * 9 / 5 and C * 1.8 differently, by a few millionths of a degree
    hint="F = C * 9 / 5 + 32, written once for the whole tensor (no loop): arithmetic applies to every entry.",
)


def _sum_mean_max(x):
    values = x.numpy()
    return values.sum(dtype=values.dtype), values.mean(dtype=values.dtype), values.max()


exercise(
    "ch00.sum_mean_max",
    function="sum_mean_max",
    reference=_sum_mean_max,
    public=[
        (np.array([1.0, 2.0, 3.0, 10.0], dtype=np.float32),),
        (randn(4, 5, seed=101),),
    ],
    hint="Return three tensors, (x.sum(), x.mean(), x.max()), not Python numbers: .item() is not needed here.",
)
