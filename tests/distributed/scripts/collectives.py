"""Every collective on every dtype, on each rank; the results go to OUT/rank<r>.npz for the test to check by hand.

Run as ``mpiexec -n N python collectives.py OUT``. Names in the archive: ``<collective>/<dtype>[/<variant>]``.
"""

import datetime
import sys
import time

import numpy as np
from collective_cases import DTYPES, rank_input

import minitorch
import minitorch.distributed as dist

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
results = {}


def tensor(array):
    return minitorch.tensor(array)


def ops_for(dtype):
    ops = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN,
           "product": dist.ReduceOp.PRODUCT}
    if dtype.startswith("float"):
        ops["avg"] = dist.ReduceOp.AVG
    return ops


for dtype in DTYPES:
    mine = rank_input(rank, dtype)
    for name, op in ops_for(dtype).items():
        t = tensor(mine)
        assert dist.all_reduce(t, op=op) is None
        results[f"all_reduce/{dtype}/{name}"] = t.numpy()
    t = tensor(mine)
    dist.broadcast(t, src=world - 1)
    results[f"broadcast/{dtype}"] = t.numpy()
    t = tensor(mine)
    dist.reduce(t, dst=world - 1, op=dist.ReduceOp.SUM)
    results[f"reduce/{dtype}"] = t.numpy()
    outputs = [minitorch.zeros_like(tensor(mine)) for _ in range(world)]
    dist.all_gather(outputs, tensor(mine))
    results[f"all_gather/{dtype}"] = np.stack([o.numpy() for o in outputs])
    concatenated = minitorch.zeros((world * mine.shape[0],) + mine.shape[1:], dtype=tensor(mine).dtype)
    dist.all_gather_into_tensor(concatenated, tensor(mine))
    results[f"all_gather_into_tensor/{dtype}/cat"] = concatenated.numpy()
    stacked = minitorch.zeros((world,) + mine.shape, dtype=tensor(mine).dtype)
    dist.all_gather_into_tensor(stacked, tensor(mine))
    results[f"all_gather_into_tensor/{dtype}/stack"] = stacked.numpy()
    if dtype != "bool":
        big = rank_input(rank, dtype, salt=1)
        big = np.concatenate([big] * world)  # (world * 3, 4): rank k keeps rows 3k .. 3k + 2 of the sum
        piece = minitorch.zeros(mine.shape, dtype=tensor(mine).dtype)
        dist.reduce_scatter_tensor(piece, tensor(big))
        results[f"reduce_scatter_tensor/{dtype}"] = piece.numpy()
    gathered = [minitorch.zeros_like(tensor(mine)) for _ in range(world)] if rank == 0 else None
    dist.gather(tensor(mine), gathered, dst=0)
    if rank == 0:
        results[f"gather/{dtype}"] = np.stack([g.numpy() for g in gathered])
    pieces = [tensor(rank_input(k, dtype, salt=2)) for k in range(world)] if rank == 0 else None
    received = minitorch.zeros_like(tensor(mine))
    dist.scatter(received, pieces, src=0)
    results[f"scatter/{dtype}"] = received.numpy()
    # a ring of point-to-point messages: to the next rank, from the previous one
    inbox = minitorch.zeros_like(tensor(mine))
    work = dist.isend(tensor(mine), dst=(rank + 1) % world)
    sender = dist.recv(inbox, src=None)
    work.wait()
    results[f"send_recv/{dtype}"] = inbox.numpy()
    results[f"send_recv/{dtype}/sender"] = np.array(sender)

# a non-contiguous tensor (a transposed view) is reduced in place through its base
base = tensor(rank_input(rank, "float64"))
view = base.t()
dist.all_reduce(view)
results["all_reduce/noncontiguous"] = base.numpy()

# async handles: launched together, waited for later; the results are there once wait() returns
handles, tensors = [], []
for k in range(3):
    t = tensor(rank_input(rank, "float64", salt=3 + k))
    tensors.append(t)
    handles.append(dist.all_reduce(t, async_op=True))
assert all(isinstance(h, dist.Work) for h in handles)
deadline = time.monotonic() + 30
while not all(h.is_completed() for h in handles) and time.monotonic() < deadline:
    pass
results["async/completed_by_polling"] = np.array(all(h.is_completed() for h in handles))
for k, (h, t) in enumerate(zip(handles, tensors)):
    assert h.wait() is True and h.is_success()
    results[f"async/{k}"] = t.numpy()
results["async/barrier"] = np.array(dist.barrier(async_op=True).wait())

# sub-groups: ranks {0, world-1}, and the odd ranks; every rank calls new_group for each
ends = dist.new_group([0, world - 1])
odd = dist.new_group([r for r in range(world) if r % 2 == 1])
results["group/ends/rank"] = np.array(dist.get_rank(ends))
results["group/ends/size"] = np.array(dist.get_world_size(ends))
t = tensor(rank_input(rank, "int64", salt=4))
returned = dist.all_reduce(t, group=ends)
results["group/ends/all_reduce"] = t.numpy()
results["group/ends/returned_none"] = np.array(returned is None)
t = tensor(rank_input(rank, "int64", salt=5))
dist.broadcast(t, src=world - 1, group=odd)  # a global rank as src, as in PyTorch
results["group/odd/broadcast"] = t.numpy()
outputs = [minitorch.zeros(3, 4, dtype=minitorch.int64) for _ in range(max(dist.get_world_size(odd), 1))]
dist.all_gather(outputs, tensor(rank_input(rank, "int64", salt=6)), group=odd)
results["group/odd/all_gather"] = np.stack([o.numpy() for o in outputs])
dist.barrier()

# errors in PyTorch's words
try:
    dist.all_gather_into_tensor(minitorch.zeros(5), minitorch.zeros(3))
except ValueError as error:
    results["errors/all_gather_into_tensor"] = np.array(str(error))
try:
    dist.gather(minitorch.zeros(2), None if rank == 0 else [minitorch.zeros(2)] * world, dst=0)
except ValueError as error:
    results["errors/gather_list"] = np.array(str(error))
dist.barrier()
dist.destroy_process_group()
results["after/is_initialized"] = np.array(dist.is_initialized())
np.savez(f"{sys.argv[1]}/rank{rank}.npz", **results)
