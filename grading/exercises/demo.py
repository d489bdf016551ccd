"""A worked example of two exercises; the grader's own tests use it on small notebooks.

Expected values are computed by the references (minitorch's own ``relu`` and ``linear``), never
written down, and the public cases are inputs only.
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn

exercise(
    "demo.relu",
    function="relu",
    reference=lambda x: minitorch.relu(x),
    public=[
        (randn(3, 4, seed=0),),
        (np.array([[-2.0, -0.5, 0.0, 0.5, 2.0]], dtype=np.float32),),
    ],
    hint="Keep the positive entries and replace the others by 0: a comparison gives a mask, "
    "and minitorch.where picks between two tensors.",
    hints=[
        "ReLU keeps what is positive and sets the rest to 0, entry by entry.",
        "relu(x) = max(x, 0) for every entry of x; the result has x's shape and dtype.",
        "A comparison gives a mask of booleans; minitorch.where picks between two tensors by a mask.",
    ],
    # the learner writes relu: the grader's sandbox has no relu of minitorch's to call
    withheld=("minitorch.relu", "minitorch.nn.functional.relu", "minitorch.Tensor.relu"),
)

exercise(
    "demo.linear",
    function="linear",
    reference=lambda x, weight, bias: minitorch.nn.functional.linear(x, weight, bias),
    public=[
        (randn(4, 3, seed=1), randn(2, 3, seed=2), randn(2, seed=3)),
        (randn(1, 5, seed=4), randn(3, 5, seed=5), randn(3, seed=6)),
    ],
    hint="y = x @ weight.T + bias; the leading dimensions of x (there may be several, or none) stay as they are.",
    hints=[
        "A linear layer multiplies each input row by the weight matrix and adds the bias.",
        "y = x Wᵀ + b with W of shape (out_features, in_features); the leading dimensions of x stay as they are.",
        "The @ operator multiplies over the last dimension; the bias broadcasts over the rows.",
    ],
    # the function, the op it applies (reachable directly) and the layer that calls it
    withheld=(
        "minitorch.nn.functional.linear", "minitorch.ops.nn_ops.Linear", "minitorch.ops.nn_ops.LinearNoBias",
        "minitorch.nn.Linear",
    ),
)
