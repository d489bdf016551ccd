"""Chapter 11 (training dynamics and debugging): per-layer gradient norms, the Xavier and Kaiming
initialisation bounds, gradient clipping by the total norm, and dropout's forward pass with a given mask.

Expected values are computed by minitorch itself (autograd and ``nn.utils.get_total_norm`` for the
gradient norms, ``nn.utils.clip_grad_norm_`` for clipping, tensor operations for dropout) or by the
initialisation formulas, never written down; the public cases are inputs only.

``mlp_gradient_norms`` is a wrapper the notebook gives the learner: it builds a small model from the
case's weights, runs one backward pass and calls the learner's ``layer_grad_norms(model)`` (a check
cannot pass a model, only arrays and numbers).
"""

import math

import numpy as np

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from grading.registry import exercise, randn

# every public way to run backward: the BatchNorm exercise asks for the backward pass by hand
AUTOGRAD_ENGINE = (
    "minitorch.Tensor.backward",
    "minitorch.autograd.backward",
    "minitorch.autograd.grad",
    "minitorch.autograd.graph.step_backward",
    "minitorch.autograd.engine.run_backward",
)


def _model_with_gradients(x, target, w1, b1, w2, b2):
    """Linear -> Tanh -> Linear with the given weights, after one backward pass of the MSE loss."""
    model = nn.Sequential(nn.Linear(w1.shape[1], w1.shape[0]), nn.Tanh(), nn.Linear(w2.shape[1], w2.shape[0]))
    with minitorch.no_grad():
        for layer, weight, bias in ((model[0], w1, b1), (model[2], w2, b2)):
            layer.weight.copy_(weight)
            layer.bias.copy_(bias)
    F.mse_loss(model(x), target).backward()
    return model


def _mlp_gradient_norms(x, target, w1, b1, w2, b2):
    model = _model_with_gradients(x, target, w1, b1, w2, b2)
    layers = [model[0], model[2]]
    return minitorch.stack([nn.utils.get_total_norm([p.grad for p in layer.parameters()]) for layer in layers])


exercise(
    "ch11.layer_grad_norms",
    function="mlp_gradient_norms",
    reference=_mlp_gradient_norms,
    public=[
        (
            randn(8, 3, seed=1100),
            randn(8, 2, seed=1101),
            randn(5, 3, seed=1102),
            randn(5, seed=1103),
            randn(2, 5, seed=1104),
            randn(2, seed=1105),
        ),
        (
            randn(16, 4, seed=1106),
            randn(16, 1, seed=1107),
            randn(6, 4, seed=1108, scale=0.1),
            randn(6, seed=1109, scale=0.1),
            randn(1, 6, seed=1110),
            randn(1, seed=1111),
        ),
    ],
    rtol=1e-4,
    atol=1e-6,
    labels=[
        "2 layers, 2 outputs",
        "one output",
    ],
    hints=[
        "A layer's gradient norm measures how big its update will be: one number per layer with parameters, from all "
        "its parameters' gradients together (weight and bias).",
        "norm(layer) = √(Σ over the layer's parameters Σ over entries g²). Layers without parameters (the activation, "
        "the container itself) are skipped.",
        "Visit the modules in order; ask each only for its own parameters (the recurse argument of parameters()); "
        "stack the norms into one tensor.",
    ],
)


def _init_bounds(fan_in, fan_out, gain):
    """Xavier-uniform and Kaiming-uniform (mode fan_in) bounds, as nn.init computes them."""
    xavier_std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    kaiming_std = gain / math.sqrt(fan_in)
    return math.sqrt(3.0) * xavier_std, math.sqrt(3.0) * kaiming_std


exercise(
    "ch11.init_bounds",
    function="init_bounds",
    reference=_init_bounds,
    public=[(64, 32, 1.0), (256, 256, math.sqrt(2.0)), (3, 100, 5.0 / 3.0)],
    output_type="any",
    check_dtype=False,
    labels=[
        "gain 1",
        "gain √2 (ReLU), fan_in = fan_out",
        "gain 5/3 (tanh), fan_out much larger than fan_in",
    ],
    hints=[
        "Both initialisations draw from a uniform distribution on [−a, a] chosen so the weights have a target "
        "standard deviation that keeps the signal's scale through the layers.",
        "Uniform on [−a, a] has standard deviation a / √3. Xavier: std = gain · √(2 / (fan_in + fan_out)). Kaiming "
        "(mode fan_in): std = gain / √fan_in.",
        "Turn each standard deviation into its bound with the first relation; the math module gives sqrt. Return "
        "(xavier_bound, kaiming_bound) as two Python numbers.",
    ],
)


def _clip_gradients(grad_a, grad_b, max_norm):
    parameters = []
    for gradient in (grad_a, grad_b):
        parameter = nn.Parameter(minitorch.zeros_like(gradient))
        parameter.grad = gradient.clone()
        parameters.append(parameter)
    total_norm = nn.utils.clip_grad_norm_(parameters, max_norm)
    return parameters[0].grad, parameters[1].grad, total_norm


exercise(
    "ch11.clip_gradients",
    function="clip_gradients",
    withheld=("minitorch.nn.utils.clip_grad_norm_", "minitorch.nn.utils.clip_grad.clip_grad_norm_"),
    reference=_clip_gradients,
    public=[
        (randn(3, 4, seed=1120), randn(4, seed=1121), 1.0),
        (randn(2, 2, seed=1122, scale=0.01), randn(3, seed=1123, scale=0.01), 5.0),
        (randn(5, seed=1124, scale=10.0), randn(2, 3, seed=1125), 2.5),
    ],
    rtol=1e-5,
    atol=1e-6,
    labels=[
        "a total norm of about 3.7 above max_norm 1: both gradients are scaled",
        "a total norm below max_norm: the gradients are left as they are",
        "a total norm of about 13 above max_norm 2.5",
    ],
    hints=[
        "Clipping by the total norm treats all the gradients as one long vector: if that vector is longer than "
        "max_norm, scale every gradient by the same factor so the total norm becomes max_norm; if not, leave them "
        "alone.",
        "total = √(Σ of every squared entry of both gradients), measured before clipping; factor = min(1, max_norm / "
        "(total + 10⁻⁶)). Return the two scaled gradients and the total norm.",
        "Compute the total from both gradients, the factor with clamp (or min), multiply each gradient by it. The "
        "factor stays a tensor: no .item() needed.",
    ],
)


def _dropout_forward(x, keep_mask, p, training):
    if not training:
        return x
    return x * keep_mask / (1.0 - p)


def _mask(shape, keep, seed):
    return np.random.default_rng(seed).random(shape) < keep


exercise(
    "ch11.dropout_forward",
    function="dropout_forward",
    withheld=("minitorch.nn.functional.dropout",),
    reference=_dropout_forward,
    public=[
        (randn(4, 5, seed=1130), _mask((4, 5), 0.5, seed=1131), 0.5, True),
        (randn(3, 6, seed=1132), _mask((3, 6), 0.8, seed=1133), 0.2, True),
        (randn(2, 3, seed=1134), _mask((2, 3), 0.5, seed=1135), 0.5, False),
    ],
    labels=[
        "p = 0.5 in training",
        "p = 0.2: the kept values are divided by 1 − p",
        "training False: the input, unchanged",
    ],
    hints=[
        "In training, dropout zeroes some entries (here: those where keep_mask is False) and scales the kept ones up, "
        "so each output's expected value equals its input. In evaluation it does nothing.",
        "training: out = x ⊙ keep_mask / (1 − p); evaluation: out = x.",
        "One branch on training; the mask (bool) multiplies like 0 and 1, or use where.",
    ],
)


# -- build it: batch normalisation's forward and backward by hand ---------------------------------------
def _batchnorm_forward_backward(x, gamma, beta, grad_output):
    """y = BatchNorm1d(x) in training mode (batch statistics, biased variance, eps 1e-5) and the gradients of
    sum(y * grad_output) with respect to x, gamma and beta, by minitorch's F.batch_norm and autograd."""
    x, gamma, beta = (tensor.detach().requires_grad_() for tensor in (x, gamma, beta))
    y = F.batch_norm(x, None, None, gamma, beta, training=True, momentum=0.1, eps=1e-5)
    y.backward(grad_output)
    return y.detach(), x.grad, gamma.grad, beta.grad


exercise(
    "ch11.batchnorm_forward_backward",
    function="batchnorm_forward_backward",
    withheld=(
        "minitorch.nn.functional.batch_norm", "minitorch.ops.nn_ops.Normalize", "minitorch.nn.BatchNorm1d",
        *AUTOGRAD_ENGINE,
    ),
    reference=_batchnorm_forward_backward,
    public=[
        (randn(8, 3, seed=1150, dtype="float64"), np.ones(3), np.zeros(3), np.ones((8, 3))),
        (
            randn(16, 4, seed=1151, dtype="float64", scale=3.0),
            randn(4, seed=1152, dtype="float64"),
            randn(4, seed=1153, dtype="float64"),
            randn(16, 4, seed=1154, dtype="float64"),
        ),
        (
            randn(4, 5, seed=1155, dtype="float64"),
            randn(5, seed=1156, dtype="float64"),
            randn(5, seed=1157, dtype="float64"),
            randn(4, 5, seed=1158, dtype="float64"),
        ),
    ],
    labels=[
        "gamma 1, beta 0, grad_output all ones (then grad_x is 0: a shift of every input changes nothing)",
        "16 samples, any gamma, beta and grad_output: x's gradient flows through the mean and the variance too",
        "a batch of 4: the biased variance (divide by N) matters most in small batches",
    ],
    outputs=("y", "grad_x", "grad_gamma", "grad_beta"),
    rtol=1e-8,
    atol=1e-10,
    hints=[
        "Forward: per feature (column), the batch mean and the biased variance (divide by N), the normalised x̂, then "
        "the scale γ and the shift β. Backward: β and γ are easy (sums over the batch); for x, remember that the mean "
        "and the variance depend on every x in the column, so each x gets three contributions: directly through x̂, "
        "through the variance, and through the mean.",
        "Derive x's gradient on paper first, as the text asks, in this order: from the gradient of y to that of x̂ "
        "(through γ); from x̂ = (x − μ)/√(σ² + ε) to the gradients of σ², then of μ (which receives from x̂ and from "
        "σ²); finally x, with one term from each of x̂, σ² and μ. The β and γ gradients sum over the batch.",
        "Compute μ, σ², the inverse standard deviation and x̂ once and reuse them in backward; means over the batch "
        "with keepdim=True (or 1-d per-feature tensors that broadcast) keep the shapes lined up. Check your formula "
        "on the first public case: with γ = 1 and a constant grad_output, x's gradient is 0.",
    ],
)
