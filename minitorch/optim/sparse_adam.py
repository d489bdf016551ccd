"""SparseAdam: Adam that updates only the rows of a parameter that received a gradient ("lazy" Adam).

An embedding table of a million rows sees a few hundred of them per batch. Plain Adam would
decay the running averages of every row at every step; SparseAdam touches only the rows that
were looked up, which is both cheaper and, for rare words, keeps their statistics from fading.

In PyTorch, ``nn.Embedding(sparse=True)`` produces a *sparse* gradient (the looked-up rows and
their values) and SparseAdam reads the rows from it. minitorch has dense tensors only: its
``Embedding(sparse=True)`` gives an ordinary gradient, zero in the rows nobody looked up, and
this SparseAdam takes as "the rows that received gradient" those where the gradient is not all
zero. The two agree except for a row that was looked up but whose gradient is exactly zero,
which PyTorch would still update (its averages decay) and minitorch leaves alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import minitorch

from .optimizer import Optimizer, _zero_step


class SparseAdam(Optimizer):
    r"""SparseAdam, as ``torch.optim.SparseAdam``: Adam's update on the rows with a gradient only.

    For each parameter ``p`` and each row ``i`` (index along dimension 0) whose gradient ``g_i`` is not all
    zero, at step ``t``::

        g_i = -g_i                                  if maximize
        m_i = m_i + (1 - beta1) * (g_i - m_i)       state "exp_avg"
        v_i = v_i + (1 - beta2) * (g_i**2 - v_i)    state "exp_avg_sq"
        p_i = p_i - lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m_i / (sqrt(v_i) + eps)

    Other rows keep their values and their running averages. ``t`` counts the parameter's steps.

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-3).
        betas: decay rates of the two running averages (default (0.9, 0.999)).
        eps: added to the denominator (default 1e-8).
        maximize: maximize the objective instead of minimizing it.

        >>> import minitorch
        >>> table = minitorch.nn.Embedding(5, 2, sparse=True)
        >>> optimizer = minitorch.optim.SparseAdam(table.parameters(), lr=0.1)
        >>> before = table.weight.detach().clone()
        >>> table(minitorch.tensor([1, 3])).sum().backward()
        >>> optimizer.step()
        >>> (table.weight != before).any(dim=1).tolist()   # only rows 1 and 3 moved
        [False, True, False, True, False]
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, minitorch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps, "maximize": maximize})

    @minitorch.no_grad()
    def step(self, closure=None):
        """Update the rows of every parameter that received gradient; return the closure's loss (if given)."""
        loss = self._evaluate_closure(closure)
        for group in self.param_groups:
            lr, eps, (beta1, beta2) = float(group["lr"]), group["eps"], group["betas"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                grad = param.grad if not group["maximize"] else -param.grad
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = _zero_step()
                    state["exp_avg"] = minitorch.zeros_like(param)
                    state["exp_avg_sq"] = minitorch.zeros_like(param)
                state["step"].add_(1)
                step = state["step"].item()
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]

                # the rows that received gradient, as a mask that broadcasts over the row's entries
                received = (grad != 0).reshape(grad.shape[0], -1).any(dim=1) if grad.dim() else grad != 0
                received = received.reshape((-1,) + (1,) * (grad.dim() - 1)) if grad.dim() else received

                # the same arithmetic, in the same order, as PyTorch's sparse update
                exp_avg_update = (grad - exp_avg).mul_(1 - beta1)
                exp_avg_sq_update = (grad * grad - exp_avg_sq).mul_(1 - beta2)
                numerator = exp_avg_update + exp_avg
                denominator = (exp_avg_sq_update + exp_avg_sq).sqrt_().add_(eps)
                exp_avg.copy_(minitorch.where(received, exp_avg + exp_avg_update, exp_avg))
                exp_avg_sq.copy_(minitorch.where(received, exp_avg_sq + exp_avg_sq_update, exp_avg_sq))
                step_size = lr * math.sqrt(1 - beta2**step) / (1 - beta1**step)
                param.add_(minitorch.where(received, numerator.div_(denominator).mul_(-step_size), 0.0))
        return loss
