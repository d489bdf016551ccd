"""Speed only: ``Adam.step``'s update of one parameter done on its arrays, the same numbers in the same order.

``Adam.step`` reads as PyTorch's single-tensor loop: about nine tensor ops per parameter (``lerp_``, ``mul_``,
``addcmul_``, ``sqrt``, ``addcdiv_``...), each through the op machinery (argument checks, dtype promotion, the
in-place write and its version). For a plain update (no graph recorded, a float32 or float64 gradient just like
its parameter) that machinery decides nothing, and the capstone's 18 parameters spent longer in it than in their
arithmetic. Here each op is its NumPy expression (on the CPU), written into the same arrays with the same roundings:
a Python number times a float32 array is computed in float32, as minitorch's ops and PyTorch's kernels do, and
every in-place write bumps its tensor's version as the op would (``Tensor._bump_version``).
``foreach=False`` runs the tensor loop instead; the tests run both and compare them bit for bit
(``tests/optim/test_adam_on_arrays.py``).
"""

from __future__ import annotations

import numpy as np

from ..ops import inplace as _inplace


def adam_on_arrays(param, state: dict, group: dict) -> bool:
    """Update ``param`` and its ``state`` on the arrays and return True, or return False (nothing changed) when
    the update is not a plain one: the loop in ``Adam.step`` then runs it."""
    grad, step_tensor = param.grad, state["step"]
    moments = [state["exp_avg"], state["exp_avg_sq"]] + ([state["max_exp_avg_sq"]] if group["amsgrad"] else [])
    # _alike_without_graph: grad mode off, grad of param's dtype (float32, float64), shape and device, param
    # writable; compile's capture and ONNX's tracer make it answer False while they follow every write
    if not (_inplace._alike_without_graph(param, grad) and param._device.type == step_tensor._device.type == "cpu"
            and all(_inplace._alike_without_graph(moment, param) for moment in moments)):
        return False
    lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
    beta1, beta2 = group["betas"]
    p, g, exp_avg, exp_avg_sq = param._data, grad._data, moments[0]._data, moments[1]._data

    step_tensor._bump_version()
    step_tensor._data += 1  # state["step"].add_(1)
    if group["maximize"]:
        g = -g
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            p *= 1 - lr * weight_decay  # param.mul_(1 - lr * weight_decay)
            param._bump_version()
        else:
            g = g + p * weight_decay  # grad.add(param, alpha=weight_decay)
    weight = 1 - beta1  # exp_avg.lerp_(grad, 1 - beta1), PyTorch's two-sided formula (ops/pointwise/selection.py)
    exp_avg[...] = exp_avg + weight * (g - exp_avg) if abs(weight) < 0.5 else g - (g - exp_avg) * (1 - weight)
    exp_avg_sq *= beta2  # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    exp_avg_sq += (g * g) * (1 - beta2)
    moments[0]._bump_version()
    moments[1]._bump_version()  # twice: mul_, then addcmul_
    moments[1]._bump_version()

    step = float(step_tensor._data)
    step_size = lr / (1 - beta1**step)
    bias_correction2_sqrt = (1 - beta2**step) ** 0.5
    second = exp_avg_sq
    if group["amsgrad"]:
        second = moments[2]._data
        second[...] = np.maximum(second, exp_avg_sq)  # max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq))
        moments[2]._bump_version()
    denominator = np.sqrt(second) / bias_correction2_sqrt  # (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
    denominator += eps
    p += (exp_avg / denominator) * -step_size  # param.addcdiv_(exp_avg, denominator, value=-step_size)
    param._bump_version()
    return True

