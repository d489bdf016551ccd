"""Chapter 2 (autograd): a custom Function's backward, central differences, a Hessian-vector product.

The references are closed forms computed with NumPy (independent of the autograd they check);
the public cases are inputs only.
"""

import numpy as np

import minitorch
from grading.registry import exercise, randn


def _sigmoid(values):
    return 1.0 / (1.0 + np.exp(-values))


def _silu_with_grad(x, grad_output):
    """y = x * sigmoid(x); dx = grad_output * (s + x * s * (1 - s)) = grad_output * s * (1 + x * (1 - s))."""
    values, upstream = x.numpy(), grad_output.numpy()
    s = _sigmoid(values)
    return (values * s).astype(values.dtype), (upstream * s * (1 + values * (1 - s))).astype(values.dtype)


exercise(
    "ch02.silu_with_grad",
    function="silu_with_grad",
    reference=_silu_with_grad,
    public=[
        (np.array([-3.0, -1.0, 0.0, 0.5, 2.0], dtype=np.float32), np.ones(5, dtype=np.float32)),
        (randn(3, 4, seed=200, scale=2.0), randn(3, 4, seed=201)),
    ],
    atol=1e-5,
    hint="Product rule: d/dx [x * s(x)] = s(x) + x * s'(x), with s'(x) = s(x) * (1 - s(x)). In backward, "
    "multiply that local derivative by grad_output (the chain rule): the second case's grad_output is not all ones.",
)


def wiggly(x):
    """The numerical-gradient exercise's function: f(x) = sum(sin(x) * x**2) + sin(sum(x)), a scalar.

    The second term couples every entry to every other (f is not a sum of one term per entry), so a loop that
    nudges x in place and forgets to restore it gets the later entries' slopes wrong.
    """
    return (x.sin() * x**2).sum() + x.sum().sin()


def _numerical_gradient(x, eps):
    # Nudging entry j changes its own term sin(x_j) x_j**2 and the shared term sin(S), S = sum(x), by the same
    # amounts for every j: the central difference of f is the two differences added, for every entry at once.
    values = x.numpy().astype(np.float64)

    def term(v):
        return np.sin(v) * v**2

    total = values.sum()
    own = (term(values + eps) - term(values - eps)) / (2 * eps)
    shared = (np.sin(total + eps) - np.sin(total - eps)) / (2 * eps)
    return minitorch.from_numpy((own + shared).astype(x.numpy().dtype))


exercise(
    "ch02.numerical_gradient",
    function="numerical_gradient",
    reference=_numerical_gradient,
    public=[
        (randn(5, seed=210, dtype="float64"), 1e-3),
        (randn(2, 3, seed=211, dtype="float64"), 1e-4),
    ],
    rtol=1e-6,
    atol=1e-8,
    hints=[
        "Estimate each partial derivative on its own: move one entry a little up, a little down, and see how much "
        "the function's value changes, with every other entry exactly as it was.",
        "∂f/∂x_j ≈ (f(x + ε e_j) − f(x − ε e_j)) / (2ε), with e_j one at entry j and zero elsewhere.",
        "Loop j over the entries of a flattened copy; build the two nudged inputs from fresh copies (clone) each "
        "time, so that x itself, and the next entry's estimate, never see an earlier nudge. Reshape at the end.",
    ],
)


def _hessian_vector_product(x, v):
    """f(x) = logsumexp(x) over all entries; grad f = p = softmax(x); H v = p * v - p * (p . v)."""
    values, direction = x.numpy(), v.numpy()
    p = np.exp(values - values.max())
    p = p / p.sum()
    return (p * direction - p * (p * direction).sum()).astype(values.dtype)


exercise(
    "ch02.hessian_vector_product",
    function="hessian_vector_product",
    reference=_hessian_vector_product,
    public=[
        (np.array([0.0, 1.0, 2.0], dtype=np.float64), np.array([1.0, 0.0, 0.0], dtype=np.float64)),
        (randn(4, seed=220, dtype="float64"), randn(4, seed=221, dtype="float64")),
        (randn(2, 3, seed=222, dtype="float64"), randn(2, 3, seed=223, dtype="float64")),
    ],
    rtol=1e-7,
    atol=1e-10,
    hint="g = minitorch.autograd.grad(f, x, create_graph=True)[0] keeps a graph of the gradient; then "
    "minitorch.autograd.grad((g * v).sum(), x)[0] differentiates g . v once more, which is H v.",
)
