"""Review questions of chapter 1: tensors (dtypes, promotion, views and strides, broadcasting, NumPy)."""

from grading.review import choice, number

QUESTIONS = [
    choice(
        "What is the dtype of `minitorch.tensor([1, 2, 3])`?",
        ["int32", "int64", "float32", "float64"],
        "b",
        "Python integers become int64 (and Python floats become the default float dtype, float32), as in PyTorch.",
    ),
    choice(
        "`x = minitorch.tensor([1, 2, 3])` (int64). What is the dtype of `x + 1.5`?",
        ["int64", "float64", "float32", "an error: the dtypes differ"],
        "c",
        "Promotion looks at the kind first: a float number with an integer tensor gives a float. A Python number does "
        "not widen a tensor's precision, so the result takes the default float dtype, float32.",
    ),
    number(
        "How many elements does the result of adding a tensor of shape (4, 1, 3) and one of shape (5, 1) have?",
        60,
        "Broadcasting aligns shapes from the right: (4, 1, 3) and (1, 5, 1) give (4, 5, 3), so 4·5·3 = 60 elements. "
        "Size-1 dimensions are stretched with stride 0, without copying.",
    ),
    choice(
        "`x = minitorch.arange(12).view(3, 4)` has strides (4, 1). What are the strides of `x.t()`?",
        ["(4, 1)", "(1, 4)", "(3, 1)", "(1, 3)"],
        "b",
        "A transpose is a view: it swaps the shape and the strides and copies nothing. Moving one step along the new "
        "first dimension moves one element in memory, along the second four.",
    ),
    choice(
        "`a = np.zeros(3)`, `t = minitorch.from_numpy(a)`, then `a[0] = 5`. What is `t[0].item()`?",
        ["0.0: from_numpy copied the array", "5.0: from_numpy shares memory with the array", "an error", "nan"],
        "b",
        "`from_numpy` and `.numpy()` share memory; `minitorch.tensor(array)` copies. A write through either side shows "
        "on the other.",
    ),
    number(
        "`minitorch.tensor([127], dtype=minitorch.int8) + 1` holds which number?",
        -128,
        "Integer arithmetic wraps around: 127 is the largest int8, and one more is -128 (two's complement). "
        "No error, no "
        "promotion to a wider type.",
    ),
]
