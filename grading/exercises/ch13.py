"""Chapter 13 (the ecosystem and the way to PyTorch): a value-and-gradient function for SciPy, weights read
from NumPy arrays into a model, and a training step written for any library that spells things like PyTorch.

Expected values are computed by the references below (``minitorch.interop.scipy.value_and_grad``,
``load_state_dict`` and minitorch's autograd), never written down; the public cases are inputs only.
"""

import numpy as np

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from grading.registry import exercise, randn
from minitorch.interop.scipy import value_and_grad


def rosenbrock(x):
    """The Rosenbrock function of a 1-D tensor: sum of (1 - x[i])**2 + 100 * (x[i+1] - x[i]**2)**2."""
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


exercise(
    "ch13.rosenbrock_value_and_grad",
    function="rosenbrock_value_and_grad",
    reference=lambda x: value_and_grad(rosenbrock)(x),
    public=[
        (np.array([-1.2, 1.0]),),
        (np.array([1.0, 1.0, 1.0]),),
        (randn(5, seed=1300, dtype="float64"),),
    ],
    input_type="numpy",
    output_type="any",
    rtol=1e-9,
    atol=1e-9,
    labels=[
        "2 variables",
        "3 variables",
        "5 variables",
    ],
    hints=[
        "SciPy's optimisers ask for the value and the gradient of a function at a NumPy point; autograd can supply "
        "the gradient if the point becomes a leaf tensor.",
        "Return (f(x), ∇f(x)): f as a Python float, ∇f as a float64 NumPy array of x's shape. f is the rosenbrock "
        "function the notebook defines, computed with tensor operations.",
        "Make a float64 tensor from x that requires grad, evaluate the function, run backward, and convert the value "
        "and the leaf's gradient back to Python and NumPy.",
    ],
)


def _agnostic_step(x, labels, weight, bias, lr):
    weight = weight.detach().requires_grad_()
    bias = bias.detach().requires_grad_()
    loss = F.cross_entropy(x @ weight.T + bias, labels)
    grad_weight, grad_bias = minitorch.autograd.grad(loss, (weight, bias))
    with minitorch.no_grad():
        return weight - lr * grad_weight, bias - lr * grad_bias, loss.detach()


def _labels(count, classes, seed):
    return np.random.default_rng(seed).integers(0, classes, count).astype(np.int64)


exercise(
    "ch13.agnostic_step",
    function="agnostic_step",
    reference=_agnostic_step,
    public=[
        (randn(8, 4, seed=1320), _labels(8, 3, 1321), randn(3, 4, seed=1322), randn(3, seed=1323), 0.5),
        (randn(16, 6, seed=1324), _labels(16, 5, 1325), randn(5, 6, seed=1326), randn(5, seed=1327), 0.1),
    ],
    rtol=1e-5,
    atol=1e-6,
    labels=[
        "3 classes, learning rate 0.5",
        "5 classes, learning rate 0.1",
    ],
    hints=[
        "Write the step once against the module lib you are given (minitorch or torch): every name comes from lib or "
        "is a tensor method, so the same code runs on both libraries.",
        "loss = cross_entropy(x Wᵀ + b, labels); W' = W − lr · ∂loss/∂W, b' = b − lr · ∂loss/∂b.",
        "Make weight and bias fresh leaves that require grad, get both gradients with lib.autograd.grad, and step "
        "under lib.no_grad(). Return (new weight, new bias, loss before the step), all three detached from any graph.",
    ],
)


def _predict_from_numpy_weights(x, w1, b1, w2, b2):
    model = nn.Sequential(nn.Linear(w1.shape[1], w1.shape[0]), nn.ReLU(), nn.Linear(w2.shape[1], w2.shape[0]))
    arrays = {"0.weight": w1, "0.bias": b1, "2.weight": w2, "2.bias": b2}
    model.load_state_dict({name: minitorch.from_numpy(array) for name, array in arrays.items()})
    with minitorch.no_grad():
        return model(minitorch.from_numpy(x))


exercise(
    "ch13.predict_from_numpy_weights",
    function="predict_from_numpy_weights",
    reference=_predict_from_numpy_weights,
    public=[
        (randn(4, 3, seed=1310), randn(5, 3, seed=1311), randn(5, seed=1312), randn(2, 5, seed=1313),
         randn(2, seed=1314)),
        (randn(1, 6, seed=1315), randn(8, 6, seed=1316), randn(8, seed=1317), randn(4, 8, seed=1318),
         randn(4, seed=1319)),
    ],
    input_type="numpy",
    rtol=1e-5,
    atol=1e-6,
    labels=[
        "5 hidden units, 2 outputs",
        "a single row, 8 hidden units",
    ],
    hints=[
        "The arrays arrive as NumPy arrays, as read from an .npz file. Rebuild the network they came from, load "
        "them into it, and run it on x.",
        "The sizes come from the weight shapes ((out, in), as PyTorch stores them): Linear, ReLU, Linear in an "
        "nn.Sequential, whose state_dict keys are '0.weight', '0.bias', '2.weight', '2.bias'.",
        "minitorch.from_numpy turns each array into a tensor, for load_state_dict and for the input.",
    ],
)
