# Corpus program: PyTorch's optim documentation: per-parameter options, add_param_group, optimizer and scheduler
#   state_dicts, and the Examples of every learning-rate scheduler (LambdaLR, MultiplicativeLR, StepLR, MultiStepLR,
#   ConstantLR, LinearLR, ExponentialLR, PolynomialLR, CosineAnnealingLR, SequentialLR, ChainedScheduler,
#   ReduceLROnPlateau, CyclicLR, OneCycleLR, CosineAnnealingWarmRestarts).
# Source: pytorch/pytorch, docs/source/optim.rst (per-parameter options, taking an optimization step, how to adjust
#   learning rate) and the Example sections of torch/optim/lr_scheduler.py's docstrings.
# Licence: BSD-3-Clause (PyTorch); the docs' examples, put together in one script.
# Changes: each scheduler steps a plain SGD on one parameter for a few epochs and prints get_last_lr().
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
import torch
from torch import nn, optim
from torch.optim import lr_scheduler

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(3, 4)
        self.classifier = nn.Linear(4, 2)

    def forward(self, x):
        return self.classifier(self.base(x))


model = Net()
optimizer = optim.SGD([
    {'params': model.base.parameters(), 'lr': 1e-2},
    {'params': model.classifier.parameters()}
], lr=1e-3, momentum=0.9)
print([group['lr'] for group in optimizer.param_groups], optimizer.defaults['lr'])
bias_params = [p for name, p in model.named_parameters() if 'bias' in name]
others = [p for name, p in model.named_parameters() if 'bias' not in name]
optimizer = optim.SGD([{'params': others}, {'params': bias_params, 'weight_decay': 0}], weight_decay=1e-2, lr=1e-2)
extra = nn.Parameter(torch.ones(2))
optimizer.add_param_group({'params': [extra], 'lr': 0.5})
print(len(optimizer.param_groups), optimizer.param_groups[2]['weight_decay'], optimizer.param_groups[2]['lr'])
loss = model(torch.randn(5, 3)).pow(2).mean() + extra.sum()
loss.backward()
optimizer.step()
print(model.base.bias, extra)
print(optimizer.state_dict()['param_groups'][0]['params'], sorted(optimizer.state_dict()['param_groups'][2]))


def run(make, epochs=6, lr=0.05, metric=None):
    optimizer = optim.SGD([nn.Parameter(torch.zeros(1))], lr=lr)
    scheduler = make(optimizer)
    lrs = []
    for epoch in range(epochs):
        optimizer.step()
        if metric is None:
            scheduler.step()
        else:
            scheduler.step(metric[epoch])
        lrs.append(round(optimizer.param_groups[0]['lr'], 8))
    print(type(scheduler).__name__, lrs)
    return scheduler


run(lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch))
run(lambda o: lr_scheduler.MultiplicativeLR(o, lr_lambda=lambda epoch: 0.95))
run(lambda o: lr_scheduler.StepLR(o, step_size=2, gamma=0.1))
run(lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 4], gamma=0.1))
run(lambda o: lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4))
run(lambda o: lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=4))
run(lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9))
run(lambda o: lr_scheduler.PolynomialLR(o, total_iters=4, power=1.0))
run(lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.001), epochs=9)
run(lambda o: lr_scheduler.SequentialLR(o, schedulers=[lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2),
                                                      lr_scheduler.ExponentialLR(o, gamma=0.9)], milestones=[2]))
run(lambda o: lr_scheduler.ChainedScheduler([lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2),
                                             lr_scheduler.ExponentialLR(o, gamma=0.9)]))
run(lambda o: lr_scheduler.ReduceLROnPlateau(o, 'min', patience=1, factor=0.5),
    metric=[1.0, 0.9, 0.95, 0.95, 0.96, 0.97])
run(lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2), epochs=8)
run(lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode='triangular2'), epochs=10)
run(lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.01, total_steps=8), epochs=7)
run(lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001), epochs=10)
scheduler = run(lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5))
print(scheduler.state_dict(), scheduler.get_last_lr())
opt = optim.Adam([nn.Parameter(torch.ones(2))], lr=0.1)
sched = lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
print(opt.param_groups[0]['lr'], opt.param_groups[0]['initial_lr'])
