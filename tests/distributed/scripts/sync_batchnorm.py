"""SyncBatchNorm on each rank's share of one global batch: ``mpiexec -n N python sync_batchnorm.py OUT``.

Rank r holds samples of the batch made by ``sync_batchnorm_batch`` (uneven shares: r + 2 samples each); it runs
two training steps' forward and backward and writes its outputs, input gradients, local parameter gradients and
the running statistics to OUT/rank<r>.npz, for the test to compare with BatchNorm2d on the whole batch.
"""

import sys

import numpy as np

import minitorch
import minitorch.distributed as dist

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
sizes = [r + 2 for r in range(world)]
batch = np.random.default_rng(7).normal(2.0, 3.0, size=(sum(sizes), 3, 4, 5))
start = sum(sizes[:rank])
norm = minitorch.nn.SyncBatchNorm.convert_sync_batchnorm(minitorch.nn.Sequential(minitorch.nn.BatchNorm2d(3)))[0]
with minitorch.no_grad():
    norm.weight.copy_(minitorch.tensor([0.5, 1.5, -2.0]))
    norm.bias.copy_(minitorch.tensor([0.1, -0.2, 0.3]))


def upstream_of(whole):
    """The gradient arriving at the whole batch's output (each rank takes its rows)."""
    return np.cos(np.arange(whole.size)).reshape(whole.shape)


results = {"type": np.array(type(norm).__name__)}
for step in range(2):
    x = minitorch.tensor(batch[start:start + sizes[rank]] * (step + 1), dtype=minitorch.float32, requires_grad=True)
    y = norm(x)
    upstream = minitorch.tensor(upstream_of(batch)[start:start + sizes[rank]], dtype=minitorch.float32)
    (y * upstream).sum().backward()
    results[f"y{step}"] = y.detach().numpy()
    results[f"dx{step}"] = x.grad.numpy()
    results[f"dw{step}"] = norm.weight.grad.numpy().copy()
    results[f"db{step}"] = norm.bias.grad.numpy().copy()
    norm.weight.grad = norm.bias.grad = None
results["running_mean"] = norm.running_mean.numpy()
results["running_var"] = norm.running_var.numpy()
results["num_batches_tracked"] = norm.num_batches_tracked.numpy()
np.savez(f"{sys.argv[1]}/rank{rank}.npz", **results)
dist.destroy_process_group()
