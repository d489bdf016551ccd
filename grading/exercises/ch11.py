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
    hint="Loop over model.modules(); for each, take the gradients of its own parameters "
    "(module.parameters(recurse=False)); skip modules that have none (Tanh, the Sequential itself). A layer's norm is "
    "the square root of the sum of the squares of all its gradients, weight and bias together: "
    "minitorch.sqrt(sum((g ** 2).sum() for g in grads)). Return minitorch.stack(norms).",
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
    hint="A uniform distribution on [-a, a] has standard deviation a / sqrt(3), so a = sqrt(3) * std. Xavier: "
    "std = gain * sqrt(2 / (fan_in + fan_out)). Kaiming (mode fan_in): std = gain / sqrt(fan_in). Return "
    "(xavier_bound, kaiming_bound) as two numbers.",
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
    hint="total_norm = sqrt(sum of every squared entry of both gradients), computed before clipping. "
    "coefficient = max_norm / (total_norm + 1e-6), but never above 1 (minitorch.clamp(coefficient, max=1.0)): "
    "gradients already short enough are left alone. Return (grad_a * coefficient, grad_b * coefficient, total_norm).",
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
    hint="In training: keep the entries where keep_mask is True, zero the others (x * keep_mask), and divide by "
    "1 - p so the expected value of each output equals its input. In evaluation (training False): return x unchanged.",
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
        "Forward: per feature (column), the batch mean μ and the biased variance σ² (divide by N), "
        "x̂ = (x − μ)/√(σ² + ε), y = γ·x̂ + β. Backward: β and γ are easy (sums over the batch); for x, remember "
        "that μ and σ² depend on every x in the column, so each x gets three contributions.",
        "With g = grad_output: ∂β = Σ g, ∂γ = Σ g·x̂ (sums over the batch). For x, with ĝ = g·γ: "
        "∂x = (1/√(σ²+ε)) · (ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)), the means over the batch.",
        "Compute μ, σ², the inverse standard deviation and x̂ once, reuse them in backward; keep the batch "
        "dimension with keepdim=True (or broadcasting of 1-d per-feature tensors) so the shapes line up.",
    ],
)
