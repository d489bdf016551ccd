"""RMSprop: divide the gradient by a running root-mean-square of recent gradients."""

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


class RMSprop(Optimizer):
    r"""RMSprop, as ``torch.optim.RMSprop`` (Hinton's lecture notes; centered form from Graves, 2013).

    For each parameter ``p`` with gradient ``g``::

        g = -g                                      if maximize
        g = g + weight_decay * p
        v = alpha * v + (1 - alpha) * g**2          (state "square_avg")
        if centered:
            m = alpha * m + (1 - alpha) * g         (state "grad_avg")
            denominator = sqrt(v - m**2) + eps      (an estimate of the variance, not the raw second moment)
        else:
            denominator = sqrt(v) + eps
        if momentum > 0:
            b = momentum * b + g / denominator      (state "momentum_buffer")
            p = p - lr * b
        else:
            p = p - lr * g / denominator

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-2).
        alpha: smoothing constant of the running averages (default 0.99).
        eps: added to the denominator for numerical stability (default 1e-8).
        weight_decay: L2 penalty (default 0).
        momentum: momentum factor (default 0).
        centered: normalize by the estimated variance of the gradient.
        maximize: maximize the objective instead of minimizing it.

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.RMSprop([weight], lr=0.01)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_non_negative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable,
        }
        _check_implementation_flags(foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss (if one is given)."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            weight_decay, momentum = group["weight_decay"], group["momentum"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = _zero_step(_step_device(param, group))
                    state["square_avg"] = minitorch.zeros_like(param)
                    if momentum > 0:
                        state["momentum_buffer"] = minitorch.zeros_like(param)
                    if group["centered"]:
                        state["grad_avg"] = minitorch.zeros_like(param)
                square_avg = state["square_avg"]
                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)

                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if group["centered"]:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    denominator = (square_avg - grad_avg * grad_avg).sqrt_()
                else:
                    denominator = square_avg.sqrt()
                # In place unless the step is recorded: sqrt's backward needs its own output intact.
                denominator = denominator.add(eps) if group["differentiable"] else denominator.add_(eps)

                if momentum > 0:
                    buffer = state["momentum_buffer"]
                    buffer.mul_(momentum).addcdiv_(grad, denominator)
                    param.add_(buffer, alpha=-lr)
                else:
                    param.addcdiv_(grad, denominator, value=-lr)
        return loss
