"""Adam: momentum plus a per-coordinate step size from a running average of squared gradients."""

from __future__ import annotations

from collections.abc import Iterable

import minitorch

from ._adam_arrays import adam_on_arrays
from .optimizer import (
    Optimizer,
    _check_betas,
    _check_implementation_flags,
    _check_non_negative,
    _step_device,
    _use_grad_for_differentiable,
    _zero_step,
)


class Adam(Optimizer):
    r"""Adam, as ``torch.optim.Adam`` (Kingma and Ba, 2014).

    For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...``::

        g = -g                                  if maximize
        p = p * (1 - lr * weight_decay)         if decoupled_weight_decay (AdamW)
        g = g + weight_decay * p                otherwise (L2 penalty in the gradient)
        m = beta1 * m + (1 - beta1) * g         first moment   (state "exp_avg")
        v = beta2 * v + (1 - beta2) * g**2      second moment  (state "exp_avg_sq")
        v_max = max(v_max, v)                   if amsgrad     (state "max_exp_avg_sq")
        p = p - lr / (1 - beta1**t) * m / (sqrt(v or v_max) / sqrt(1 - beta2**t) + eps)

    The two ``1 - beta**t`` factors correct the bias of averages that start at zero. Note where
    ``eps`` enters: after the bias correction of ``sqrt(v)``, as in PyTorch.

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-3).
        betas: decay rates of the two running averages (default (0.9, 0.999)).
        eps: added to the denominator for numerical stability (default 1e-8).
        weight_decay: weight decay (default 0).
        amsgrad: use the maximum of all second moments so far (Reddi et al., 2018).
        maximize: maximize the objective instead of minimizing it.
        decoupled_weight_decay: shrink the parameter directly instead of adding an L2 term to
            the gradient (this is AdamW).
        foreach: ``False`` runs the loop of ``step`` below for every parameter, op by op. Otherwise (the
            default) a plain update (no graph, a float32 or float64 gradient on the CPU) runs the same
            arithmetic on the arrays, with the same results: ``_adam_arrays.py`` (Speed only).

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.Adam([weight], lr=0.1)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check_non_negative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_non_negative(weight_decay=weight_decay)
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
            "maximize": maximize, "foreach": foreach, "capturable": capturable, "differentiable": differentiable,
            "fused": fused, "decoupled_weight_decay": decoupled_weight_decay,
        }
        _check_implementation_flags(foreach=foreach, fused=fused, differentiable=differentiable)
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss (if one is given)."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = _zero_step(_step_device(param, group))
                    state["exp_avg"] = minitorch.zeros_like(param)
                    state["exp_avg_sq"] = minitorch.zeros_like(param)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = minitorch.zeros_like(param)
                if group["foreach"] is not False and adam_on_arrays(param, state, group):
                    continue  # Speed only: the same update on the arrays (_adam_arrays.py); foreach=False: this loop
                grad = param.grad if not group["maximize"] else -param.grad
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                state["step"].add_(1)

                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)

                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

                step = state["step"].item()
                bias_correction1 = 1 - beta1**step
                bias_correction2_sqrt = (1 - beta2**step) ** 0.5
                step_size = lr / bias_correction1

                if group["amsgrad"]:
                    max_exp_avg_sq = state["max_exp_avg_sq"]
                    max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq))
                    denominator = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                else:
                    denominator = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                param.addcdiv_(exp_avg, denominator, value=-step_size)
        return loss
