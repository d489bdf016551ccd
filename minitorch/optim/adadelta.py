"""Adadelta: step sizes from running averages of squared gradients and squared updates."""

from __future__ import annotations

from collections.abc import Iterable

import minitorch

from .optimizer import (
    Optimizer,
    _check_implementation_flags,
    _check_non_negative,
    _step_device,
    _use_grad_for_differentiable,
    _zero_step,
)


class Adadelta(Optimizer):
    r"""Adadelta, as ``torch.optim.Adadelta`` (Zeiler, 2012).

    For each parameter ``p`` with gradient ``g``::

        g = -g                                         if maximize
        g = g + weight_decay * p
        v = rho * v + (1 - rho) * g**2                 (state "square_avg")
        delta = sqrt(u + eps) / sqrt(v + eps) * g      (u: state "acc_delta")
        u = rho * u + (1 - rho) * delta**2
        p = p - lr * delta

    The ratio ``sqrt(u) / sqrt(v)`` carries the units of the parameter, so the default
    learning rate is simply 1.

    Args:
        params: tensors or parameter groups to optimize.
        lr: scale of the update (default 1.0).
        rho: decay rate of both running averages (default 0.9).
        eps: added inside both square roots (default 1e-6).
        weight_decay: L2 penalty (default 0).
        maximize: maximize the objective instead of minimizing it.

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.Adadelta([weight], lr=1.0)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.9968, -1.9968], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_non_negative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_non_negative(eps=eps, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
            "capturable": capturable, "foreach": foreach, "differentiable": differentiable,
        }
        _check_implementation_flags(foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss (if one is given)."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = _zero_step(_step_device(param, group))
                    state["square_avg"] = minitorch.zeros_like(param)
                    state["acc_delta"] = minitorch.zeros_like(param)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"].add_(1)
                grad = param.grad if not group["maximize"] else -param.grad
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_()
                if group["differentiable"]:
                    delta = delta.clone()  # sqrt's backward needs its own output intact
                delta = delta.div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                param.add_(delta, alpha=-lr)
        return loss
