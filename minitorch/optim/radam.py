"""RAdam: Adam whose adaptive step is switched on only once its variance estimate is reliable."""

from __future__ import annotations

from collections.abc import Iterable

import minitorch

from .optimizer import (
    Optimizer,
    _check_betas,
    _check_implementation_flags,
    _check_non_negative,
    _step_device,
    _use_grad_for_differentiable,
    _zero_step,
)


class RAdam(Optimizer):
    r"""Rectified Adam, as ``torch.optim.RAdam`` (Liu et al., 2019).

    For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...``::

        g = -g                                        if maximize
        p = p * (1 - lr * weight_decay)               if decoupled_weight_decay
        g = g + weight_decay * p                      otherwise
        m = beta1 * m + (1 - beta1) * g               (state "exp_avg")
        v = beta2 * v + (1 - beta2) * g**2            (state "exp_avg_sq")
        m_hat = m / (1 - beta1**t)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
        if rho_t > 5:   (enough steps for the variance of the adaptive step to be finite)
            r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
            p = p - lr * m_hat * r * sqrt(1 - beta2**t) / (sqrt(v) + eps)
        else:           (early steps: plain momentum SGD)
            p = p - lr * m_hat

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-3).
        betas: decay rates of the two running averages (default (0.9, 0.999)).
        eps: added to the denominator for numerical stability (default 1e-8).
        weight_decay: weight decay (default 0).
        decoupled_weight_decay: decay the parameter directly, as AdamW does.
        maximize: maximize the objective instead of minimizing it.

    The first steps are plain momentum steps (here ``m_hat`` is the gradient itself):

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.RAdam([weight], lr=0.1)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_non_negative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_non_negative(weight_decay=weight_decay)
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
            "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        _check_implementation_flags(foreach=foreach, differentiable=differentiable)
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
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                step = state["step"].item()

                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)

                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                bias_corrected_exp_avg = exp_avg / bias_correction1

                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    rectification = (
                        (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                    root = exp_avg_sq.sqrt()
                    # In place unless the step is recorded: sqrt's backward needs its own output intact.
                    root = root.add(eps) if group["differentiable"] else root.add_(eps)
                    adaptive_lr = (bias_correction2**0.5) / root
                    param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rectification, alpha=-1.0)
                else:
                    param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
        return loss
