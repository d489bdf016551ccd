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
    labels=[
        "4 samples, 3 classes",
        "6 samples, 10 classes, larger logits",
        "logits in the hundreds: exp() overflows float32 unless each row's largest logit is subtracted first",
    ],
    hints=[
        "Cross-entropy is the negative log of the probability the softmax gives the correct class, averaged over the "
        "batch. Computed naively, exp() of large logits overflows float32 (above about 88): work with logarithms and "
        "shift each row first.",
        "loss_i = log Σ_k exp(z_ik) − z_i,y_i, and log Σ_k exp(z_k) = m + log Σ_k exp(z_k − m) for any m; choose m = "
        "the row's maximum so every exponential is at most 1. The loss is the mean of loss_i.",
        "amax over the class dimension with keepdim=True gives m; exp, sum and log do the rest; indexing with a range "
        "of row numbers and the targets (or gather) picks the target logit of each row.",
    ],
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
    labels=[
        "the first step, from a zero velocity",
        "a velocity already built up: it is decayed by the momentum, not by the learning rate",
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
    # _adam_arrays: Adam's update of one parameter on its arrays (Speed only), which Adam.step calls
    withheld=("minitorch.optim.Adam", "minitorch.optim.AdamW", "minitorch.optim._adam_arrays.adam_on_arrays"),
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
    labels=[
        "the first step (t = 1) from zero moments: the bias correction matters most here",
        "step 7, moments already built up",
        "tiny gradients and a large eps: eps is added after the square root",
    ],
    hints=[
        "Adam keeps two running averages per parameter, of the gradient and of its square, and steps by their ratio: "
        "large where gradients agree, small where they are noisy. Both averages start at 0, so early on they are "
        "corrected for that bias.",
        "m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g², m̂ = m/(1 − β₁ᵗ), v̂ = v/(1 − β₂ᵗ), p ← p − lr · m̂/(√v̂ + ε), "
        "with t the step number (1 for the first) and ε outside the square root.",
        "Write the five formulas one per line in that order, with tensor arithmetic. Return the new parameter and the "
        "new m and v: the uncorrected averages are what the next step needs.",
    ],
)

exercise(
    "ch05.cosine_lr",
    function="cosine_lr",
    reference=_cosine_lr,
    public=[(0, 100, 0.1, 0.0), (25, 100, 0.1, 0.0), (50, 100, 0.1, 0.001), (100, 100, 0.1, 0.001), (7, 10, 1.0, 0.5)],
    output_type="any",
    check_dtype=False,
    labels=[
        "step 0: base_lr",
        "a quarter of the way",
        "half-way, with min_lr above 0",
        "the last step: min_lr",
        "10 steps from 1.0 down to 0.5",
    ],
    hints=[
        "The learning rate follows half a cosine wave: it starts at base_lr, falls slowly, then faster, then slowly "
        "again, and ends at min_lr after total_steps.",
        "cos goes from 1 to −1 as its angle goes from 0 to π: map the step to the angle π · step / total_steps, and "
        "rescale (1 + cos) / 2, which goes from 1 to 0, onto the range from min_lr to base_lr.",
        "The math module has cos and pi; the answer is a plain Python float. Check your formula at step 0, "
        "total_steps / 2 and total_steps.",
    ],
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
        "Forward computes the mean cross-entropy stably (shift each row by its maximum). Backward needs the loss's "
        "derivative with respect to each logit: derive it on paper first, as the text asks, for one sample, then "
        "account for the mean over the batch and for grad_output.",
        "For one sample, L = log Σ_k exp(z_k) − z_y. Differentiate each of the two terms with respect to one logit "
        "z_j (the second term depends on z_j only when j = y), and write the first in terms of the softmax. Then: the "
        "mean divides by the batch size, and the chain rule multiplies by grad_output.",
        "In forward, save what backward needs with ctx.save_for_backward (the softmax probabilities are cheap to "
        "keep; minitorch.nn.functional.one_hot builds a one-hot of the targets, cast to the logits' dtype). backward "
        "returns one gradient per input of forward: None for the targets.",
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
    withheld=("minitorch.optim.AdamW.step", "minitorch.optim.Adam.step", "minitorch.optim._adam_arrays.adam_on_arrays"),
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


# -- build it: the Optimizer base under AdamW ----------------------------------------------------------------
# The report (grading/library/optim.py, shared with the notebook) runs an AdamW class through the base class's
# promises and AdamW's steps; the reference is minitorch's optim.AdamW (tests: and torch.optim.AdamW).
from grading.library.optim import OPTIMIZER_OUTPUTS, optimizer_report  # noqa: E402

# minitorch's Optimizer and AdamW, withheld while ch05.optimizer_base is graded
OPTIMIZER_BASE = tuple(
    f"minitorch.optim.Optimizer.{method}"
    for method in ("__init__", "add_param_group", "zero_grad", "state_dict", "load_state_dict")
) + ("minitorch.optim.AdamW.__init__", "minitorch.optim.AdamW.step", "minitorch.optim.Adam.step",
     "minitorch.optim._adam_arrays.adam_on_arrays")

exercise(
    "ch05.optimizer_base",
    function="optimizer_report_of_mine",
    withheld=OPTIMIZER_BASE,
    reference=lambda *case: optimizer_report(optim.AdamW, *case),
    input_type="numpy",
    output_type="any",
    check_dtype=False,
    public=[
        (randn(6, seed=560), np.array([2, 3]), randn(3, 6, seed=561), 0.1, 0.0),
        (randn(7, seed=562), np.array([3, 1]), randn(4, 7, seed=563), 0.05, 0.3),
        (randn(5, seed=564), np.array([1, 2]), randn(6, 5, seed=565, scale=0.01), 0.01, 1.0),
    ],
    labels=[
        "three steps, no weight decay: groups, defaults, Adam's moments, state_dict",
        "weight decay 0.3 in the first group only: decoupled, and the second group's own lr",
        "six steps with tiny gradients and weight decay 1.0: bias correction and decay both show",
    ],
    outputs=OPTIMIZER_OUTPUTS,
    rtol=2e-5,
    atol=1e-7,
    hints=[
        "The base class is bookkeeping: a list of groups (dicts of params and options), a dict of per-parameter "
        "dicts, and two translations between that and a plain dict that refers to no tensor. The subclass's step() "
        "only reads groups and state. Keep state keyed by the tensor object, so it follows the parameter.",
        "A group is completed from the defaults for every option it leaves out, and no tensor may sit in two groups "
        "(PyTorch: ValueError 'some parameters appear in more than one parameter group'). state_dict numbers the "
        "parameters 0, 1, 2, ... in group order and replaces each tensor by its number, in 'param_groups' and as "
        "the keys of 'state'; load_state_dict maps the numbers back onto this optimizer's own parameters, group by "
        "group, and takes the saved options too. AdamW at step t: p(1 - lr wd) first, then the Adam update with "
        "m/(1 - beta1^t) and v/(1 - beta2^t).",
        "zero_grad(set_to_none) either assigns None to each .grad or zeroes it in place. The saved 'step' may be a "
        "0-d tensor (PyTorch saves it so): read it with float(). Copy tensors on the way out and in, so a saved "
        "state_dict does not change as training goes on.",
    ],
)
