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
    labels=[
        "n = 5",
        "n = 1: just 0",
        "n = 12",
    ],
    hints=[
        "Make all the numbers 0, 1, ..., n-1 at once as a tensor, then square the whole tensor in one operation: no "
        "Python loop over the numbers.",
        "The answer is the tensor [0², 1², ..., (n-1)²], with n entries, in the integer dtype of the range (int64).",
        "minitorch has a function that makes a range of integers (the chapter used it); an arithmetic operator "
        "applies to every entry of a tensor.",
    ],
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
    labels=[
        "0, 100, −40 and 37 °C",
        "a (3, 4) tensor of temperatures",
    ],
    hints=[
        "A temperature conversion is one arithmetic formula, and arithmetic on a tensor applies to every entry: write "
        "it once for the whole tensor.",
        "F = C × 9/5 + 32 (0 °C is 32 °F, 100 °C is 212 °F).",
        "Multiply, then add, with the tensor you are given on the left; the result keeps the shape and the float "
        "dtype of the input.",
    ],
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
    labels=[
        "four numbers",
        "a (4, 5) tensor: every entry counts",
    ],
    hints=[
        "Tensors have reduction methods that collapse all their entries into one value; you need three of them.",
        "sum = x₁ + ... + xₙ, mean = sum / n, max = the largest entry. Each comes back as a 0-d tensor, not as a "
        "Python number.",
        "Call the three reductions as methods of x and return them as a tuple in the order sum, mean, max; no .item() "
        "is needed.",
    ],
)
