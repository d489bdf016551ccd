"""Stochastic gradient descent, with momentum, Nesterov momentum and weight decay."""

from __future__ import annotations

from collections.abc import Iterable

from .optimizer import Optimizer, _check_implementation_flags, _check_non_negative, _use_grad_for_differentiable


class SGD(Optimizer):
    r"""Stochastic gradient descent (optionally with momentum), as ``torch.optim.SGD``.

    For each parameter ``p`` with gradient ``g``, step ``t``::

        g = -g                                 if maximize
        g = g + weight_decay * p               (L2 penalty, added to the gradient)
        if momentum != 0:
            b = g                              at the first step
            b = momentum * b + (1 - dampening) * g   after that
            g = g + momentum * b               if nesterov
            g = b                              otherwise
        p = p - lr * g

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-3).
        momentum: momentum factor (default 0).
        dampening: how much of the new gradient the momentum buffer takes in (default 0).
        weight_decay: L2 penalty (default 0).
        nesterov: use Nesterov momentum (needs momentum > 0 and dampening 0).
        maximize: maximize the objective instead of minimizing it.

    State per parameter: ``"momentum_buffer"`` (only when momentum is used).

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, 2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.SGD([weight], lr=0.1, momentum=0.9)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([0.8000, 1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        # The shared check also refuses NaN, which PyTorch's SGD alone lets through (its Adam refuses it).
        _check_non_negative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
            "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
            "fused": fused,
        }
        _check_implementation_flags(foreach=foreach, fused=fused, differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss (if one is given)."""
        loss = self._evaluate_closure(closure) if closure is not None else None
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                grad = param.grad
                if group["maximize"] or group["weight_decay"] != 0 or group["momentum"] != 0:
                    grad = self._direction(param, grad, group)  # the options beyond the learning rate
                param.add_(grad, alpha=-group["lr"])
        return loss

    def _direction(self, param, grad, group):
        """The step's direction with ``maximize``, ``weight_decay`` and ``momentum`` (PyTorch's order)."""
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        if group["momentum"] == 0:
            return grad
        momentum, state = group["momentum"], self.state[param]
        buffer = state.get("momentum_buffer")
        if buffer is None:
            # The first step starts the buffer at the gradient itself (no dampening).
            buffer = grad.detach().clone()
            state["momentum_buffer"] = buffer
        else:
            buffer.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
        return grad.add(buffer, alpha=momentum) if group["nesterov"] else buffer
