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

# the library's cross-entropy and log-softmax: the exercises derive them (withheld while they are graded)
CROSS_ENTROPY = (
    "minitorch.nn.functional.cross_entropy",
    "minitorch.nn.functional.log_softmax",
    "minitorch.nn.functional.nll_loss",
    "minitorch.Tensor.log_softmax",
    # the ops under them (reachable directly) and the loss modules that call them
    "minitorch.ops.nn_ops.CrossEntropy",
    "minitorch.ops.nn_ops.LogSoftmax",
    "minitorch.nn.CrossEntropyLoss",
    "minitorch.nn.NLLLoss",
)


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
    withheld=CROSS_ENTROPY,
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
    withheld=("minitorch.optim.SGD",),
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
    withheld=("minitorch.optim.Adam", "minitorch.optim.AdamW"),
    reference=_adam_step,
    public=[
        (
            randn(4, seed=521),
            randn(4, seed=522),
            np.zeros(4, dtype=np.float32),
            np.zeros(4, dtype=np.float32),
            1,
            0.1,
            0.9,
            0.999,
            1e-8,
        ),
        (
            randn(2, 3, seed=523),
            randn(2, 3, seed=524),
            randn(2, 3, seed=525, scale=0.1),
            np.abs(randn(2, 3, seed=526, scale=0.1)),
            7,
            0.01,
            0.8,
            0.99,
            1e-6,
        ),
        # tiny gradients and a large eps: where eps sits (outside the square root) shows
        (
            randn(3, seed=527),
            randn(3, seed=528, scale=0.01),
            np.zeros(3, dtype=np.float32),
            np.zeros(3, dtype=np.float32),
            1,
            0.1,
            0.9,
            0.999,
            0.01,
        ),
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


# -- build it: a loss's backward as a Function, and an optimizer class ---------------------------------
import minitorch  # noqa: E402
import minitorch.optim as optim  # noqa: E402


def _softmax_cross_entropy_with_grad(logits, targets, scale):
    """The mean cross-entropy and d(scale * loss)/d(logits), by minitorch's F.cross_entropy and autograd."""
    logits = logits.detach().requires_grad_()
    loss = F.cross_entropy(logits, targets)
    (loss * scale).backward()
    return loss.detach(), logits.grad


exercise(
    "ch05.softmax_cross_entropy_with_grad",
    function="softmax_cross_entropy_with_grad",
    withheld=CROSS_ENTROPY,
    reference=_softmax_cross_entropy_with_grad,
    public=[
        (randn(4, 3, seed=530, dtype="float64"), _labels(4, 3, seed=531), 1.0),
        (randn(6, 5, seed=532, dtype="float64"), _labels(6, 5, seed=533), 1.0),
        (randn(3, 4, seed=534, dtype="float64"), _labels(3, 4, seed=535), -2.5),
        (randn(5, 3, seed=536, dtype="float64", scale=500.0), _labels(5, 3, seed=537), 1.0),
    ],
    labels=[
        "4 samples, 3 classes",
        "6 samples: the loss is a mean, so is its gradient",
        "the loss scaled by -2.5 before backward: backward multiplies by grad_output",
        "logits in the hundreds: a softmax that exponentiates them directly overflows",
    ],
    outputs=("loss", "logits.grad"),
    rtol=1e-9,
    atol=1e-12,
    hints=[
        "Write the loss of one sample as a function of its logits z: L = log Σ_k exp(z_k) − z_y. Differentiate "
        "with respect to each z_j; the two terms give one part each. Then remember the mean over the batch and "
        "the chain rule's grad_output.",
        "∂L/∂z_j = softmax(z)_j − [j = y], that is p − onehot(y) for a sample; for the mean over N samples, "
        "each row is divided by N; backward multiplies by grad_output (a 0-d tensor) and returns None for targets.",
        "forward: subtract each row's maximum, take log-sum-exp, pick the target logits, average; save the "
        "probabilities (a stable softmax) and a one-hot of the targets for backward. minitorch.nn.functional."
        "one_hot makes the one-hot; cast it to the logits' dtype.",
    ],
)


def _two_groups(first, second, learning_rate, weight_decay):
    return [
        {"params": [first]},
        {"params": [second], "lr": learning_rate / 2, "weight_decay": 0.0},
    ]


def adamw_run(optimizer_class, first, second, first_grads, second_grads, learning_rate, weight_decay, state_key):
    """Steps with fixed gradients on two parameters in two groups (in runs of 6 steps or more, the optimizer
    rebuilt from its state_dict half-way); the first parameter after every step, the second at the end, and
    the first's state entry ``state_key``."""
    first = minitorch.tensor(first, requires_grad=True)
    second = minitorch.tensor(second, requires_grad=True)
    make = lambda: optimizer_class(  # noqa: E731
        _two_groups(first, second, learning_rate, weight_decay),
        lr=learning_rate,
        betas=(0.9, 0.99),
        eps=1e-8,
        weight_decay=weight_decay,
    )
    optimizer = make()
    trajectory = []
    steps = len(first_grads)
    for step in range(steps):
        if steps >= 6 and step == steps // 2:  # save and restore, as a run that is stopped and resumed
            saved = optimizer.state_dict()
            optimizer = make()
            optimizer.load_state_dict(saved)
        first.grad = minitorch.tensor(first_grads[step])
        second.grad = None if step == 0 else minitorch.tensor(second_grads[step])  # no gradient yet: skipped
        optimizer.step()
        trajectory.append(first.detach().clone())
    return minitorch.stack(trajectory), second.detach().clone(), optimizer.state[first][state_key].clone()


exercise(
    "ch05.adamw_run",
    function="adamw_run_of_my_optimizer",
    withheld=("minitorch.optim.AdamW.step", "minitorch.optim.Adam.step"),
    reference=lambda *case: adamw_run(optim.AdamW, *case, "exp_avg_sq"),
    input_type="numpy",
    public=[
        (randn(3, seed=540), randn(2, seed=541), randn(4, 3, seed=542), randn(4, 2, seed=543), 0.1, 0.0),
        (randn(3, seed=544), randn(2, seed=545), randn(4, 3, seed=546), randn(4, 2, seed=547), 0.1, 0.5),
        (randn(2, 2, seed=548), randn(3, seed=549), randn(6, 2, 2, seed=550), randn(6, 3, seed=551), 0.05, 0.1),
    ],
    labels=[
        "no weight decay: Adam's moments and bias correction",
        "weight decay 0.5: decoupled (AdamW), not added to the gradient",
        "six steps, the optimizer rebuilt from state_dict() after three: the state must live in self.state",
    ],
    outputs=("first parameter after each step", "second parameter (its group: lr / 2, no decay)", "state exp_avg_sq"),
    rtol=2e-5,
    atol=1e-7,
    hints=[
        "Follow the Lion example: the base class keeps param_groups (each a dict with its own lr, betas, eps, "
        "weight_decay) and self.state[param] (a dict per parameter). step() loops over groups and parameters, "
        "skips those without a gradient, and updates each in place under no_grad.",
        "AdamW, per parameter at step t: first shrink the parameter, p ← p·(1 − lr·λ) (decoupled decay: the "
        "gradient is untouched); then m ← β1·m + (1 − β1)·g, v ← β2·v + (1 − β2)·g², m̂ = m/(1 − β1ᵗ), "
        "v̂ = v/(1 − β2ᵗ), p ← p − lr·m̂/(√v̂ + ε).",
        "State keys as PyTorch's: 'step', 'exp_avg', 'exp_avg_sq', created (zeros_like) the first time a "
        "parameter is stepped. Read lr and weight_decay from the group, never from self.defaults.",
    ],
)
