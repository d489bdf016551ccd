"""Review questions of chapter 0: the kit, how the notebooks work, the first tensors."""

from grading.review import choice, number

QUESTIONS = [
    choice(
        "Why does code written for minitorch also run on PyTorch?",
        [
            "minitorch calls PyTorch underneath",
            "minitorch uses PyTorch's names and behaviour (minitorch.tensor, Tensor.backward, nn.Linear, ...)",
            "the notebooks translate the code before running it",
            "it does not: the two libraries have different APIs",
        ],
        "b",
        "minitorch re-implements PyTorch's core on NumPy with the same names and semantics; PyTorch's documented "
        "behaviour is its specification. Only the inside differs: short Python files instead of C++ and CUDA.",
    ),
    choice(
        "You open minitorch/ops/pointwise/arithmetic.py to see how `a * b` works. What do you find for the Mul "
        "operation?",
        [
            "only the forward computation; the derivative is computed by finite differences",
            "a call into PyTorch's C++ kernel",
            "its forward computation and its derivative (backward) side by side",
            "a Python loop over the elements",
        ],
        "c",
        "Every op keeps forward and backward together, with the derivative in its docstring (for y = a*b: "
        "da = grad*b, db = grad*a). `Tensor.__mul__` is a one-line call into that op.",
    ),
    choice(
        "An exercise's visible check reports a failure and you move on. What decides the grade if an instructor "
        "grades the notebook?",
        [
            "the visible check cell, exactly as you left it",
            "hidden cases: other inputs, checked the same way against the reference",
            "whether the notebook ran to the end",
            "the number of cells you ran",
        ],
        "b",
        "The visible check is for you; a grader ignores edits to it and calls your function on hidden inputs. A "
        "function that computes the right thing for every input passes them; one tuned to the visible cases does not.",
    ),
    choice(
        "minitorch.cuda.is_available() returns False on your laptop. What does that mean for the course?",
        [
            "the course cannot run",
            "every chapter runs on the CPU; GPU cells detect the missing device and explain what they would show",
            "you must install CuPy first",
            "the exercises are skipped",
        ],
        "b",
        "Everything runs on an ordinary laptop without a GPU. The device is chosen at run time, so the same code runs "
        "on the GPU of a machine that has one.",
    ),
    number(
        "What is `minitorch.arange(5).sum().item()`? (arange(5) is 0, 1, 2, 3, 4.)",
        10,
        "0 + 1 + 2 + 3 + 4 = 10. `.sum()` gives a 0-dimensional tensor and `.item()` turns it into a Python number, "
        "exactly as in PyTorch.",
    ),
    choice(
        "Which layer of the kit records operations and computes gradients?",
        ["NumPy / CuPy", "Tensor + ops", "autograd", "nn, optim, utils.data"],
        "c",
        "The layers, bottom up: the arrays (NumPy or CuPy), Tensor and its ops (forward on arrays, backward in tensor "
        "operations), autograd (records operations and runs backward), then nn, optim, data and vision. Each "
        "layer uses "
        "only the ones below it.",
    ),
]
