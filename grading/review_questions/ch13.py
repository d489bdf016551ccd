"""Review questions of chapter 13: the ecosystem (NumPy, DLPack, SciPy, scikit-learn, PyTorch files)."""

from grading.review import choice

QUESTIONS = [
    choice(
        "Which of these copies the data?",
        ["minitorch.from_numpy(a)", "t.numpy()", "np.asarray(t)", "minitorch.tensor(a)"],
        "d",
        "from_numpy, .numpy() and np.asarray share memory with no copy; minitorch.tensor(data) always copies, as "
        "torch.tensor does.",
    ),
    choice(
        "`t` requires grad and may live on a GPU. What is the safe way to get a NumPy array out of it?",
        ["t.numpy()", "t.detach().cpu().numpy()", "np.array(t.grad)", "t.tolist()"],
        "b",
        "detach() leaves the graph (numpy() refuses a tensor that requires grad), cpu() brings the numbers to the "
        "host (NumPy arrays live there), and numpy() then shares that memory.",
    ),
    choice(
        "What does DLPack give you?",
        [
            "a file format for weights",
            "a way for two libraries (minitorch, PyTorch, NumPy, CuPy) to share one tensor's memory, on CPU and GPU, "
            "without a copy",
            "a faster matrix product",
            "a converter between ONNX and PyTorch",
        ],
        "b",
        "from_dlpack in each library wraps the other's buffer: zero copies, on the same device.",
    ),
    choice(
        '`scipy.optimize.minimize(fun, x0, jac=True, method="L-BFGS-B")`: what must `fun` return?',
        [
            "the value only; SciPy estimates the gradient",
            "a pair (value, gradient), which autograd computes in one forward and one backward pass",
            "the gradient only",
            "a minitorch tensor",
        ],
        "b",
        "With jac=True SciPy takes value and gradient together, as NumPy float64 arrays; "
        "minitorch.interop.scipy.value_and_grad builds such a function from a tensor function.",
    ),
    choice(
        "A checkpoint file contains a pickled reference to `os.system`. What does `minitorch.load(path)` do "
        "by default?",
        [
            "runs it",
            "refuses to load: the default allow-list rebuilds only tensors, storages and plain containers",
            "skips that entry silently",
            "asks for confirmation",
        ],
        "b",
        "Loading follows PyTorch's weights_only rule: code in a file runs only if you pass weights_only=False, for a "
        "file you trust.",
    ),
    choice(
        "The same training program runs on minitorch and on PyTorch from the same weights and data. The losses agree:",
        [
            "exactly, bit for bit",
            "up to float32 rounding (relative differences around 1e-6)",
            "to about 1%",
            "only in the first step",
        ],
        "b",
        "The same operations in a different order of summation round differently, so the last bits of float32 "
        "differ; the algorithm is the same.",
    ),
]
