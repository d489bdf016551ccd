"""ASGD: SGD with a decaying step size that also keeps a running average of the iterates."""

from __future__ import annotations

from collections.abc import Iterable

import minitorch

from .optimizer import (
    Optimizer,
    _check_implementation_flags,
    _check_non_negative,
    _scalar_dtype,
    _use_grad_for_differentiable,
    _zero_step,
)


class ASGD(Optimizer):
    r"""Averaged stochastic gradient descent, as ``torch.optim.ASGD`` (Polyak and Juditsky, 1992).

    For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...``::

        g = -g                                  if maximize
        g = g + weight_decay * p
        p = p * (1 - lambd * eta) - eta * g     (eta: state "eta", starts at lr)
        ax = p                                  while mu == 1 (before averaging starts)
        ax = ax + mu * (p - ax)                 after that    (state "ax": the average)
        eta = lr / (1 + lambd * lr * t) ** alpha
        mu = 1 / max(1, t - t0)                 (state "mu")

    The averaged parameters ``state[p]["ax"]`` are often a better solution than ``p`` itself;
    copy them into the model after training to use them. ``eta`` and ``mu`` are 0-d tensors of
    the default float dtype (float32), as in PyTorch.

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-2).
        lambd: decay term (default 1e-4).
        alpha: power of the step-size decay (default 0.75).
        t0: the step at which averaging starts (default 1e6).
        weight_decay: L2 penalty (default 0).
        maximize: maximize the objective instead of minimizing it.

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.ASGD([weight], lr=0.1, lambd=0.0)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_non_negative(lr=lr, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }
        _check_implementation_flags(foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss (if one is given)."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    # PyTorch keeps ASGD's scalar state on the parameter's device.
                    state["step"] = _zero_step(param.device)
                    state["eta"] = minitorch.tensor(lr, dtype=_scalar_dtype(), device=param.device)
                    state["mu"] = minitorch.tensor(1.0, dtype=_scalar_dtype(), device=param.device)
                    state["ax"] = minitorch.zeros_like(param)
                eta, mu, ax = state["eta"], state["mu"], state["ax"]
                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)

                eta_value = eta.item()
                param.mul_(1 - lambd * eta_value)
                param.add_(grad, alpha=-eta_value)

                if mu.item() != 1:
                    ax.add_(param.sub(ax).mul_(mu))
                else:
                    ax.copy_(param)

                # PyTorch builds the new values as default-dtype tensors (float32) before copying them
                # in, so they are rounded to float32 even when eta and mu are float64 (after loading).
                step = state["step"].item()
                eta.copy_(minitorch.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
                mu.copy_(minitorch.as_tensor(1 / max(1, step - t0)))
        return loss
