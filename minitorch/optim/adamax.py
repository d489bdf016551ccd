"""Adamax: Adam with the infinity norm in place of the root mean square."""

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


class Adamax(Optimizer):
    r"""Adamax, as ``torch.optim.Adamax`` (the infinity-norm variant in Kingma and Ba, 2014).

    For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...``::

        g = -g                                   if maximize
        g = g + weight_decay * p
        m = beta1 * m + (1 - beta1) * g          (state "exp_avg")
        u = max(beta2 * u, |g| + eps)            (state "exp_inf")
        p = p - lr / (1 - beta1**t) * m / u

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 2e-3).
        betas: decay rates of the average and of the infinity norm (default (0.9, 0.999)).
        eps: added to ``|g|`` for numerical stability (default 1e-8).
        weight_decay: L2 penalty (default 0).
        maximize: maximize the objective instead of minimizing it.

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.Adamax([weight], lr=0.1)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_non_negative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_non_negative(weight_decay=weight_decay)
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
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
                    state["exp_inf"] = minitorch.zeros_like(param)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)

                exp_avg.lerp_(grad, 1 - beta1)
                if group["differentiable"]:
                    # Out of place, so that maximum's saved inputs are not the buffer copy_ overwrites.
                    exp_inf.copy_(exp_inf.mul(beta2).maximum(grad.abs().add_(eps)))
                else:
                    exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(eps)))

                bias_correction = 1 - beta1 ** state["step"].item()
                param.addcdiv_(exp_avg, exp_inf, value=-lr / bias_correction)
        return loss
