# Corpus program: the Lion optimizer (Chen et al. 2023) as a torch.optim.optimizer.Optimizer subclass, twice: the
#   per-parameter update (p.data.mul_, clone().mul_().add(grad, alpha=).sign_(), p.add_(update, alpha=)) under
#   @torch.no_grad() with torch.enable_grad() for the closure, and the foreach version (torch._foreach_mul_,
#   _foreach_lerp_, _foreach_sign_, _foreach_add_ with alpha), both training the same small MLP.
# Source: lucidrains/lion-pytorch, lion_pytorch/lion_pytorch.py and lion_pytorch/foreach.py (as published; the
#   second class renamed ForeachLion here, so that both fit in one file); the README's usage.
# Licence: MIT (lion-pytorch).
# Changes: the Triton update (use_triton=True, a GPU kernel) is not used; a small regression problem on random data;
#   the shared helper exists() is defined once.
# Randomness: torch.manual_seed(0) (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-6 -- float32 training.
from __future__ import annotations
from typing import Tuple, Callable

import torch
from torch.optim.optimizer import Optimizer

# functions

def exists(val):
    return val is not None

# update functions

def update_fn(p, grad, exp_avg, lr, wd, beta1, beta2):
    # stepweight decay

    p.data.mul_(1. - lr * wd)

    # weight update

    update = exp_avg.clone().mul_(beta1).add(grad, alpha = 1. - beta1).sign_()
    p.add_(update, alpha = -lr)

    # decay the momentum running average coefficient

    exp_avg.mul_(beta2).add_(grad, alpha = 1. - beta2)

# class

class Lion(Optimizer):
    def __init__(
        self,
        params,
        lr: float = 1e-4,
        betas: Tuple[float, float] = (0.9, 0.99),
        weight_decay: float = 0.0,
        use_triton: bool = False,
        decoupled_weight_decay: bool = False,
    ):
        assert lr > 0.
        assert all([0. <= beta <= 1. for beta in betas])

        self._init_lr = lr
        self.decoupled_wd = decoupled_weight_decay

        defaults = dict(
            lr = lr,
            betas = betas,
            weight_decay = weight_decay
        )

        super().__init__(params, defaults)

        self.update_fn = update_fn

        if use_triton:
            from lion_pytorch.triton import update_fn as triton_update_fn
            self.update_fn = triton_update_fn

    @torch.no_grad()
    def step(
        self,
        closure: Callable | None = None
    ):

        loss = None
        if exists(closure):
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:
            for p in filter(lambda p: exists(p.grad), group['params']):

                grad, lr, wd, beta1, beta2, state, decoupled_wd, init_lr = p.grad, group['lr'], group['weight_decay'], *group['betas'], self.state[p], self.decoupled_wd, self._init_lr

                # maybe decoupled weight decay

                if decoupled_wd:
                    wd /= init_lr

                # init state - exponential moving average of gradient values

                if len(state) == 0:
                    state['exp_avg'] = torch.zeros_like(p)

                exp_avg = state['exp_avg']

                self.update_fn(
                    p,
                    grad,
                    exp_avg,
                    lr,
                    wd,
                    beta1,
                    beta2
                )

        return loss



class ForeachLion(Optimizer):
    def __init__(
        self,
        params,
        lr: float = 1e-4,
        betas: Tuple[float, float] = (0.9, 0.99),
        weight_decay: float = 0.0,
        decoupled_weight_decay: bool = False
    ):
        assert lr > 0.
        assert all([0. <= beta <= 1. for beta in betas])
        assert all([hasattr(torch, f'_foreach_{attr}_') for attr in ('mul', 'add', 'sign', 'lerp')]), 'this version of torch does not have the prerequisite foreach functions'

        self._init_lr = lr
        self.decoupled_wd = decoupled_weight_decay

        defaults = dict(
            lr = lr,
            betas = betas,
            weight_decay = weight_decay
        )

        super().__init__(params, defaults)

    @torch.no_grad()
    def step(
        self,
        closure: Callable | None = None
    ):

        loss = None
        if exists(closure):
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:

            lr, wd, beta1, beta2, decoupled_wd, init_lr = group['lr'], group['weight_decay'], *group['betas'], self.decoupled_wd, self._init_lr

            # maybe decoupled weight decay

            if decoupled_wd:
                wd /= init_lr

            # accumulate List[Tensor] for foreach inplace updates

            params = []
            grads = []
            exp_avgs = []

            for p in filter(lambda p: exists(p.grad), group['params']):

                grad, state = p.grad, self.state[p]

                # init state - exponential moving average of gradient values

                if len(state) == 0:
                    state['exp_avg'] = torch.zeros_like(p)

                exp_avg = state['exp_avg']

                params.append(p)
                grads.append(grad)
                exp_avgs.append(exp_avg)

            # stepweight decay

            if wd > 0.:
                torch._foreach_mul_(params, 1. - lr * wd)

            # weight update

            updates = [t.clone() for t in exp_avgs]
            torch._foreach_lerp_(updates, grads, 1. - beta1)
            torch._foreach_sign_(updates)

            torch._foreach_add_(params, updates, alpha = -lr)

            # decay momentum running average

            torch._foreach_lerp_(exp_avgs, grads, 1. - beta2)

        return loss


def train(optimizer_class, **kwargs):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.GELU(), torch.nn.Linear(32, 1))
    opt = optimizer_class(model.parameters(), lr=1e-3, weight_decay=1e-2, **kwargs)
    x = torch.randn(64, 8)
    y = x[:, :1] * 2 - x[:, 1:2] + 0.1 * torch.randn(64, 1)
    for step in range(30):
        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            return loss
        loss = opt.step(closure)
        if step % 10 == 9:
            print(optimizer_class.__name__, step + 1, round(loss.item(), 5))
    return model, opt


model, opt = train(Lion)
foreach_model, foreach_opt = train(ForeachLion)
print(all(torch.allclose(a, b, atol=1e-6) for a, b in zip(model.parameters(), foreach_model.parameters())))
state = opt.state_dict()
print(sorted(state['state'][0].keys()), state['param_groups'][0]['betas'], state['param_groups'][0]['params'])
decoupled, _ = train(Lion, decoupled_weight_decay=True)
print([round(p.norm().item(), 4) for p in decoupled.parameters()])
