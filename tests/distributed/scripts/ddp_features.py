"""DDP's less common paths on 2 ranks; results to OUT/features-rank<r>.npz.

* find_unused_parameters=True: a layer used on rank 0 only gets rank 0's gradient / 2 on both ranks;
  a layer no rank uses keeps ``grad`` None;
* find_unused_parameters=False with an unused layer: the next forward raises PyTorch's error;
* buffers (BatchNorm's running statistics) are rank 0's after construction and at each forward.
"""

import datetime
import sys

import numpy as np

import minitorch
import minitorch.distributed as dist
from minitorch import nn

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
results = {}


class Branches(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Linear(3, 2)
        self.rank0_only = nn.Linear(3, 2)
        self.never = nn.Linear(3, 2)

    def forward(self, x):
        out = self.shared(x)
        if rank == 0:
            out = out + self.rank0_only(x)
        return out


minitorch.manual_seed(0)
model = Branches().double()
ddp = nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)
x = minitorch.tensor(np.random.default_rng(rank).normal(size=(4, 3)))
ddp(x).sum().backward()
results["shared_grad"] = model.shared.weight.grad.numpy()
results["rank0_only_grad"] = model.rank0_only.weight.grad.numpy()
results["never_grad_is_none"] = np.array(model.never.weight.grad is None)
results["x"] = x.numpy()

model = Branches().double()
strict = nn.parallel.DistributedDataParallel(model)
strict(x).sum().backward()
try:
    strict(x)
except RuntimeError as error:
    results["unfinished_error"] = np.array(str(error))

minitorch.manual_seed(rank)
network = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).double()
network[1].running_mean.fill_(float(rank + 1))
ddp = nn.parallel.DistributedDataParallel(network)
results["running_mean_after_construction"] = network[1].running_mean.numpy().copy()
network[1].running_mean.fill_(float(10 * (rank + 1)))  # drift on purpose: the next forward re-broadcasts
ddp(x)
results["running_mean_after_forward"] = network[1].running_mean.numpy().copy()
results["weight"] = network[0].weight.detach().numpy()
np.savez(f"{sys.argv[1]}/features-rank{rank}.npz", **results)
dist.destroy_process_group()
