"""One AdamW step on the capstone's 18 parameters: minitorch next to PyTorch and hand-written NumPy.

The parameters have the shapes of chapter 15's model (a 60-character vocabulary, width 48, one transformer
block), float32, with fixed gradients; one step is ``optimizer.step()`` (lr 2e-2, weight decay 1e-2). The runner
checks that the three end their first step with the same parameters. minitorch runs its default, the update on
the arrays (``minitorch/optim/_adam_arrays.py``); ``foreach=False`` would run ``Adam.step``'s loop of tensor ops.
PyTorch runs its own default on the CPU (``foreach=None``).
"""

from __future__ import annotations

import numpy as np

from benchmarks.workload import Target, Workload

SHAPES = [(60, 48), (24, 48), (48,), (48,), (144, 48), (144,), (48, 48), (48,), (48,), (48,), (96, 48), (96,),
          (48, 96), (48,), (48,), (48,), (60, 48), (60,)]  # fmt: skip
LR, BETAS, EPS, WEIGHT_DECAY = 2e-2, (0.9, 0.999), 1e-8, 1e-2


def _start():
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(shape).astype(np.float32) for shape in SHAPES]
    grads = [rng.standard_normal(shape).astype(np.float32) for shape in SHAPES]
    return values, grads


def _framework(module_name):
    def setup():
        import importlib

        lib = importlib.import_module(module_name)
        values, grads = _start()
        params = [lib.tensor(value, requires_grad=True) for value in values]
        for param, grad in zip(params, grads):
            param.grad = lib.tensor(grad)
        optimizer = lib.optim.AdamW(params, lr=LR, betas=BETAS, eps=EPS, weight_decay=WEIGHT_DECAY)

        def step():
            optimizer.step()
            return tuple(param.detach() for param in params)

        return step

    return setup


def _numpy():
    """AdamW written on the arrays: decay, the two moments, the bias-corrected step."""
    params, grads = _start()
    exp_avgs = [np.zeros_like(param) for param in params]
    exp_avg_sqs = [np.zeros_like(param) for param in params]
    beta1, beta2 = BETAS
    count = [0]

    def step():
        count[0] += 1
        bias_correction1, bias_correction2_sqrt = 1 - beta1 ** count[0], (1 - beta2 ** count[0]) ** 0.5
        for param, grad, exp_avg, exp_avg_sq in zip(params, grads, exp_avgs, exp_avg_sqs):
            param *= 1 - LR * WEIGHT_DECAY
            exp_avg += (1 - beta1) * (grad - exp_avg)
            exp_avg_sq *= beta2
            exp_avg_sq += (1 - beta2) * grad * grad
            param -= (LR / bias_correction1) * exp_avg / (np.sqrt(exp_avg_sq) / bias_correction2_sqrt + EPS)
        return tuple(params)

    return step


WORKLOADS = [
    Workload(
        name="adamw_step",
        description="AdamW.step on the capstone's 18 float32 parameters (62k numbers); time per step",
        setups={"minitorch": _framework("minitorch"), "pytorch": _framework("torch"), "numpy": _numpy},
        steps=200,
        quick_steps=20,
        target=Target("pytorch", 1.5),
        rtol=1e-5,
    ),
]
