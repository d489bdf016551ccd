"""Rprop: each coordinate keeps its own step size, grown or shrunk by the sign of the gradient."""

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


class Rprop(Optimizer):
    r"""Resilient backpropagation, as ``torch.optim.Rprop`` (Riedmiller and Braun, 1993).

    Only the *sign* of the gradient is used. For each coordinate of a parameter ``p``::

        g = -g                                        if maximize
        if g * g_prev > 0:  step_size = min(step_size * eta_plus, step_size_max)   (same direction: speed up)
        if g * g_prev < 0:  step_size = max(step_size * eta_minus, step_size_min)  (overshot: slow down)
                            g = 0                     (and skip this coordinate once)
        p = p - sign(g) * step_size
        g_prev = g                                    (state "prev"; "step_size" starts at lr)

    Rprop suits full-batch training: mini-batch noise flips gradient signs at random.

    Args:
        params: tensors or parameter groups to optimize.
        lr: initial step size (default 1e-2).
        etas: (eta_minus, eta_plus), the shrink and growth factors (default (0.5, 1.2)).
        step_sizes: (min, max) allowed step sizes (default (1e-6, 50)).
        maximize: maximize the objective instead of minimizing it.

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.Rprop([weight], lr=0.1)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_non_negative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr, "etas": tuple(etas), "step_sizes": tuple(step_sizes), "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "capturable": capturable,
        }
        _check_implementation_flags(foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss (if one is given)."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            eta_minus, eta_plus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = _zero_step(_step_device(param, group))
                    state["prev"] = minitorch.zeros_like(param)
                    state["step_size"] = minitorch.full_like(param, group["lr"])
                prev, step_size = state["prev"], state["step_size"]
                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)

                agreement = grad.mul(prev).sign()
                # eta_plus where the sign held, eta_minus where it flipped, 1 where a gradient was zero
                # (built on a tensor of the parameter's dtype, so the factors are not rounded to float32).
                unchanged = minitorch.ones_like(agreement)
                factor = minitorch.where(agreement > 0, eta_plus, minitorch.where(agreement < 0, eta_minus, unchanged))
                step_size.mul_(factor).clamp_(step_size_min, step_size_max)

                # Where the sign flipped, the last step went too far: do not move this time, and
                # store a zero gradient so that the next step neither grows nor shrinks.
                grad = minitorch.where(agreement < 0, 0.0, grad)
                param.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
