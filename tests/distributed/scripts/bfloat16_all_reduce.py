"""bfloat16 tensors through all_reduce on each rank; the results' bit patterns go to OUT/rank<r>.npz.

Run as ``mpiexec -n N python bfloat16_all_reduce.py OUT``. Rank r holds ``(r + 1) * base`` with base
a fixed set of values, in bfloat16.
"""

import datetime
import sys

import numpy as np

import minitorch
import minitorch.distributed as dist

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
base = [1.1, -2.7, 3.14159, 1e-3, 250.0, -0.5]
results = {}
for name, op in {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "avg": dist.ReduceOp.AVG}.items():
    t = minitorch.tensor([(rank + 1) * v for v in base], dtype=minitorch.bfloat16)
    dist.all_reduce(t, op=op)
    assert t.dtype == minitorch.bfloat16
    results[name] = np.asarray(t._data).view(np.uint16)
np.savez(f"{sys.argv[1]}/rank{rank}.npz", **results)
dist.destroy_process_group()
