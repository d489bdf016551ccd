"""Adagrad: each coordinate's step shrinks with the sum of its squared gradients so far."""

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


class Adagrad(Optimizer):
    r"""Adagrad, as ``torch.optim.Adagrad`` (Duchi et al., 2011).

    For each parameter ``p`` with gradient ``g``, at step ``t = 1, 2, ...``::

        g = -g                                     if maximize
        g = g + weight_decay * p
        lr_t = lr / (1 + (t - 1) * lr_decay)
        s = s + g**2                               (state "sum", starts at initial_accumulator_value)
        p = p - lr_t * g / (sqrt(s) + eps)

    Coordinates that have seen large gradients take small steps; rare ones keep large steps.

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-2).
        lr_decay: learning rate decay (default 0).
        weight_decay: L2 penalty (default 0).
        initial_accumulator_value: starting value of the sum of squares (default 0).
        eps: added to the denominator for numerical stability (default 1e-10).
        maximize: maximize the objective instead of minimizing it.

    As in PyTorch, the state (``"step"`` and ``"sum"``) is created when the optimizer is built.

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.Adagrad([weight], lr=0.5)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.5000, -1.5000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_non_negative(
            lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "fused": fused,
        }
        _check_implementation_flags(foreach=foreach, fused=fused, differentiable=differentiable)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                self._init_state(param, group)

    def _init_state(self, param, group) -> None:
        state = self.state[param]
        state["step"] = _zero_step(_step_device(param, group))
        # PyTorch reads the optimizer-wide default here, even for groups that set their own.
        state["sum"] = minitorch.full_like(param, self.defaults["initial_accumulator_value"])

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss (if one is given)."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, lr_decay, eps, weight_decay = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:  # a parameter group added after construction
                    self._init_state(param, group)
                state["step"].add_(1)
                step = state["step"].item()
                grad = param.grad if not group["maximize"] else -param.grad
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                decayed_lr = lr / (1 + (step - 1) * lr_decay)
                state["sum"].addcmul_(grad, grad, value=1)
                std = state["sum"].sqrt()
                # In place unless the step is recorded: sqrt's backward needs its own output intact.
                std = std.add(eps) if group["differentiable"] else std.add_(eps)
                param.addcdiv_(grad, std, value=-decayed_lr)
        return loss
