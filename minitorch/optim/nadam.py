"""NAdam: Adam with Nesterov momentum (Dozat, 2016)."""

from __future__ import annotations

from collections.abc import Iterable

import minitorch

from .optimizer import (
    Optimizer,
    _check_betas,
    _check_implementation_flags,
    _check_non_negative,
    _scalar_dtype,
    _step_device,
    _use_grad_for_differentiable,
    _zero_step,
)


class NAdam(Optimizer):
    r"""NAdam, as ``torch.optim.NAdam``.

    For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...``::

        g = -g                                        if maximize
        p = p * (1 - lr * weight_decay)               if decoupled_weight_decay
        g = g + weight_decay * p                      otherwise
        mu_t     = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next  = beta1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        P = P * mu_t                                  (state "mu_product", the product of all mu so far)
        m = beta1 * m + (1 - beta1) * g               (state "exp_avg")
        v = beta2 * v + (1 - beta2) * g**2            (state "exp_avg_sq")
        denominator = sqrt(v / (1 - beta2**t)) + eps
        p = p - lr * (1 - mu_t) / (1 - P) * g / denominator
              - lr * mu_next / (1 - P * mu_next) * m / denominator

    The momentum coefficient ``mu`` warms up over the first steps (``momentum_decay``), and the
    update looks one step ahead through ``mu_next``: that is the Nesterov part.

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 2e-3).
        betas: decay rates of the two running averages (default (0.9, 0.999)).
        eps: added to the denominator for numerical stability (default 1e-8).
        weight_decay: weight decay (default 0).
        momentum_decay: how fast the momentum warms up (default 4e-3).
        decoupled_weight_decay: decay the parameter directly, as AdamW does.
        maximize: maximize the objective instead of minimizing it.

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.NAdam([weight], lr=0.1)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.8944, -1.8944], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_non_negative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_non_negative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = {
            "lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
            "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
            "foreach": foreach, "capturable": capturable, "differentiable": differentiable,
        }
        _check_implementation_flags(foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss (if one is given)."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, eps, weight_decay, momentum_decay = group["lr"], group["eps"], group["weight_decay"], group[
                "momentum_decay"
            ]
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = _zero_step(_step_device(param, group))
                    # A 0-d tensor like PyTorch's, so the product is rounded to float32 the same way.
                    state["mu_product"] = minitorch.tensor(1.0, dtype=_scalar_dtype())
                    state["exp_avg"] = minitorch.zeros_like(param)
                    state["exp_avg_sq"] = minitorch.zeros_like(param)
                exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                step = state["step"].item()
                bias_correction2 = 1 - beta2**step

                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)

                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product.mul_(mu)

                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denominator = exp_avg_sq.div(bias_correction2).sqrt()
                # In place unless the step is recorded: sqrt's backward needs its own output intact.
                denominator = denominator.add(eps) if group["differentiable"] else denominator.add_(eps)

                product = mu_product.item()
                param.addcdiv_(grad, denominator, value=-lr * (1.0 - mu) / (1.0 - product))
                param.addcdiv_(exp_avg, denominator, value=-lr * mu_next / (1.0 - product * mu_next))
        return loss
