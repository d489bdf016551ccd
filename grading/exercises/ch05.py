"""Chapter 5 (losses and optimizers): stable cross-entropy, an SGD-with-momentum step, an Adam step, a cosine schedule.

Expected values are computed by the references below (minitorch's ``cross_entropy`` and the update
rules exactly as ``minitorch/optim/sgd.py`` and ``adam.py`` apply them), never written down; the
public cases are inputs only. tests/grading/test_ch05_exercises.py checks the references against
``optim.SGD``, ``optim.Adam`` and ``lr_scheduler.CosineAnnealingLR`` themselves.
"""

import math

import numpy as np

import minitorch.nn.functional as F
from grading.registry import exercise, randn


def _sgd_momentum_step(param, grad, velocity, learning_rate, momentum):
    """PyTorch's momentum: the buffer sums gradients (``v = momentum * v + g``), the step is ``-lr * v``."""
    new_velocity = momentum * velocity + grad
    return param - learning_rate * new_velocity, new_velocity


def _adam_step(param, grad, exp_avg, exp_avg_sq, step, learning_rate, beta1, beta2, eps):
    """One Adam update at step number ``step`` (1 for the first), with bias correction as in ``optim.Adam``."""
    new_exp_avg = beta1 * exp_avg + (1 - beta1) * grad
    new_exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * grad * grad
    corrected_avg = new_exp_avg / (1 - beta1**step)
    corrected_avg_sq = new_exp_avg_sq / (1 - beta2**step)
    new_param = param - learning_rate * corrected_avg / (corrected_avg_sq.sqrt() + eps)
    return new_param, new_exp_avg, new_exp_avg_sq


def _cosine_lr(step, total_steps, base_lr, min_lr):
    """``CosineAnnealingLR``'s closed form: from ``base_lr`` at step 0 down to ``min_lr`` at ``total_steps``."""
    return min_lr + (base_lr - min_lr) * (1 + math.cos(math.pi * step / total_steps)) / 2


def _labels(count, classes, seed):
    return np.random.default_rng(seed).integers(0, classes, size=count)


exercise(
    "ch05.cross_entropy",
    function="cross_entropy",
    reference=lambda logits, targets: F.cross_entropy(logits, targets),
    public=[
        (randn(4, 3, seed=501), _labels(4, 3, seed=502)),
        (randn(6, 10, seed=503, scale=3.0), _labels(6, 10, seed=504)),
        # logits in the hundreds: exp() overflows float32 (above about 88), so only the stable form survives
        (randn(5, 4, seed=505, scale=300.0), _labels(5, 4, seed=506)),
    ],
    hint="loss_i = logsumexp(logits_i) - logits_i[target_i], averaged over the batch. Subtract each row's maximum "
    "before exp() (log-sum-exp: m + log(sum(exp(z - m)))) so nothing overflows; pick the target logit with "
    "logits[minitorch.arange(N), targets] or gather.",
)

exercise(
    "ch05.sgd_momentum_step",
    function="sgd_momentum_step",
    reference=_sgd_momentum_step,
    public=[
        (randn(5, seed=511), randn(5, seed=512), np.zeros(5, dtype=np.float32), 0.1, 0.9),
        (randn(3, 4, seed=513), randn(3, 4, seed=514), randn(3, 4, seed=515, scale=0.5), 0.01, 0.8),
    ],
    hints=[
        "The velocity is a running sum of past gradients, each step's decayed by the momentum factor; the step "
        "then moves the parameter against the velocity.",
        "PyTorch's convention: v_new = μ·v + g and p_new = p − lr·v_new. The learning rate is applied at the step, "
        "not stored in the velocity.",
        "Two lines: one computes the new velocity from momentum, velocity and grad; the other the new parameter "
        "from param, lr and that new velocity. Return both, new parameter first.",
    ],
)

exercise(
    "ch05.adam_step",
    function="adam_step",
    reference=_adam_step,
    public=[
        (randn(4, seed=521), randn(4, seed=522), np.zeros(4, dtype=np.float32), np.zeros(4, dtype=np.float32),
         1, 0.1, 0.9, 0.999, 1e-8),
        (randn(2, 3, seed=523), randn(2, 3, seed=524), randn(2, 3, seed=525, scale=0.1),
         np.abs(randn(2, 3, seed=526, scale=0.1)), 7, 0.01, 0.8, 0.99, 1e-6),
        # tiny gradients and a large eps: where eps sits (outside the square root) shows
        (randn(3, seed=527), randn(3, seed=528, scale=0.01), np.zeros(3, dtype=np.float32),
         np.zeros(3, dtype=np.float32), 1, 0.1, 0.9, 0.999, 0.01),
    ],
    hint="m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g**2; then bias-correct: "
    "m_hat = m / (1 - beta1**step), v_hat = v / (1 - beta2**step); param - lr * m_hat / (sqrt(v_hat) + eps). "
    "Return the new param and the new m and v (not the corrected ones).",
)

exercise(
    "ch05.cosine_lr",
    function="cosine_lr",
    reference=_cosine_lr,
    public=[(0, 100, 0.1, 0.0), (25, 100, 0.1, 0.0), (50, 100, 0.1, 0.001), (100, 100, 0.1, 0.001), (7, 10, 1.0, 0.5)],
    output_type="any",
    check_dtype=False,
    hint="lr = min_lr + (base_lr - min_lr) * (1 + cos(pi * step / total_steps)) / 2: base_lr at step 0, "
    "halfway between at total_steps / 2, min_lr at total_steps (math.cos and math.pi).",
)
