"""Review questions of chapter 5: losses and optimizers."""

import math

from grading.review import choice, number

QUESTIONS = [
    number(
        "What is `nn.CrossEntropyLoss()` of the logits [[0, 0, 0, 0]] for target class 0? (3 decimals)",
        math.log(4),
        "All four classes get probability 1/4, and the loss is −log(1/4) = log 4 ≈ 1.386: the loss of a model that "
        "knows nothing yet, a useful sanity check for the first step of training.",
        abs_tol=5e-4,
    ),
    choice(
        "For one sample, the gradient of the softmax cross-entropy loss with respect to the logits z is:",
        ["softmax(z)", "p − y, with p = softmax(z) and y the one-hot target", "−log p_y", "y − p"],
        "b",
        "The log-sum-exp's derivative is the softmax, and −z_y contributes −1 at the target: p − y. With mean "
        "reduction over a batch of N, each row is divided by N.",
    ),
    number(
        "SGD with lr=0.1 and momentum=0.9 starts at w = 1 and sees the gradient 1 at every step. What is w after two "
        "steps?",
        0.71,
        "PyTorch's momentum: buf = momentum·buf + grad, w -= lr·buf. Step 1: buf = 1, w = 0.9. Step 2: buf = 0.9 + 1 = "
        "1.9, w = 0.9 − 0.19 = 0.71.",
        rel_tol=1e-6,
    ),
    number(
        "Adam with lr=0.01 starts at w = 1 and sees the gradient 5. What is w after the first step? (3 decimals)",
        0.99,
        "After bias correction, m̂ = g and v̂ = g², so the step is lr·g/|g| = lr (up to eps): Adam's first step moves "
        "every parameter by about lr whatever the gradient's size. 1 − 0.01 = 0.99.",
        abs_tol=5e-4,
    ),
    choice(
        "Why do `nn.CrossEntropyLoss` and `nn.BCEWithLogitsLoss` take logits rather than probabilities?",
        [
            "logits are smaller, so they use less memory",
            "working on logits lets them use the log-sum-exp trick, finite and informative even when the model is "
            "confidently wrong",
            "probabilities cannot be differentiated",
            "it is a convention with no numerical effect",
        ],
        "b",
        "log(softmax) computed as z − (m + log Σ e^(z−m)) never overflows and never takes log(0); a softmax followed "
        "by a log can give −inf and a zero gradient exactly when the model most needs correcting.",
    ),
    choice(
        "In a training loop with a learning-rate scheduler, when is `scheduler.step()` called?",
        [
            "before optimizer.step()",
            "after optimizer.step() (once per epoch or per batch, as the scheduler is designed)",
            "before loss.backward()",
            "only once, before training",
        ],
        "b",
        "Calling it before the optimizer's step skips the first value of the schedule (PyTorch warns about it).",
    ),
]
