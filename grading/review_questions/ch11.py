"""Review questions of chapter 11: training dynamics (initialisation, clipping, dropout, BatchNorm, debugging)."""

import math

from grading.review import choice, number

QUESTIONS = [
    number(
        "Kaiming (He) initialisation for a ReLU layer with fan_in = 512: what standard deviation? (4 decimals)",
        math.sqrt(2 / 512),
        "σ = sqrt(2/fan_in) = sqrt(2/512) = 0.0625. The factor 2 makes up for ReLU zeroing half of its inputs, so "
        "the signal keeps its size through depth.",
        abs_tol=5e-5,
    ),
    number(
        "Xavier uniform initialisation (gain 1), fan_in = 100, fan_out = 200: what is the bound a of U(−a, a)? "
        "(4 decimals)",
        math.sqrt(6 / 300),
        "σ = sqrt(2/(fan_in + fan_out)) and a uniform bound is sqrt(3)·σ: a = sqrt(6/300) ≈ 0.1414.",
        abs_tol=5e-5,
    ),
    number(
        "`nn.Dropout(p=0.2)` in `train()` mode on a tensor of ones: what value do the kept entries have?",
        1.25,
        "The survivors are scaled by 1/(1 − p) = 1.25, so the expected value stays 1 and nothing needs rescaling in "
        "eval() mode, where Dropout does nothing.",
    ),
    number(
        "Two parameters have the gradients [3, 4] and [12]. What total norm does `clip_grad_norm_` compute (and "
        "return)?",
        13,
        "The norm of all gradients together: sqrt(9 + 16 + 144) = 13. If it exceeds max_norm, every gradient is "
        "scaled by max_norm/13.",
    ),
    choice(
        "`nn.BatchNorm1d` in `eval()` mode normalises each feature with:",
        [
            "the mean and variance of the current batch",
            "the running mean and variance collected during training",
            "mean 0 and variance 1, always",
            "nothing: BatchNorm is off in eval()",
        ],
        "b",
        "In train() it uses the batch's statistics and updates running averages; in eval() it uses those "
        "averages, so a "
        "single example gets the same answer whatever batch it comes in.",
    ),
    choice(
        "What is the first check of any new training setup?",
        [
            "train on the full dataset for many epochs",
            "overfit one small batch: the loss should go to almost zero",
            "tune the learning rate",
            "add dropout",
        ],
        "b",
        "If the model cannot memorise a handful of examples, something is broken (the loss, the data, the update); "
        "it takes seconds to find out.",
    ),
    choice(
        "A `nan` appears in training. What does `minitorch.autograd.detect_anomaly()` tell you?",
        [
            "which parameter is nan",
            "the backward node that produced the nan and the forward line that created it",
            "the learning rate to use",
            "nothing in backward, only in forward",
        ],
        "b",
        "Under detect_anomaly every backward step is checked for nan, and the error names the node and where in the "
        "forward code it was recorded.",
    ),
]
