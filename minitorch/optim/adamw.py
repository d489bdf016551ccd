"""AdamW: Adam with decoupled weight decay (Loshchilov and Hutter, 2017)."""

from __future__ import annotations

from collections.abc import Iterable

from .adam import Adam


class AdamW(Adam):
    r"""AdamW, as ``torch.optim.AdamW``: Adam whose weight decay shrinks the parameter directly.

    With plain Adam, an L2 term added to the gradient is divided by ``sqrt(v)`` like the rest
    of the gradient, so parameters with large gradients are barely decayed. AdamW instead
    multiplies the parameter by ``1 - lr * weight_decay`` before the Adam update, so every
    parameter decays at the same rate. It is ``Adam(..., decoupled_weight_decay=True)`` with a
    default ``weight_decay`` of 1e-2.

        >>> import minitorch
        >>> weight = minitorch.tensor([1.0, -2.0], requires_grad=True)
        >>> optimizer = minitorch.optim.AdamW([weight], lr=0.1, weight_decay=0.5)
        >>> (weight * weight).sum().backward()
        >>> optimizer.step()
        >>> weight
        tensor([ 0.8500, -1.8000], requires_grad=True)
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize, capturable=capturable,
            differentiable=differentiable, fused=fused, decoupled_weight_decay=True,
        )
