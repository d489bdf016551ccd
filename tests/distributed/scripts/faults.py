"""A job in which rank 1 misbehaves: ``faults.py MODE MARKER`` (MARKER only tags the processes for the test).

MODE: ``raise`` (an exception after the first collective), ``exit`` (its script ends early),
``never_joins`` (it never calls init_process_group), ``hangs`` (it stops answering, alive).
The other ranks wait in a collective with a 3-second timeout.
"""

import datetime
import os
import sys
import time

import minitorch
import minitorch.distributed as dist

mode = sys.argv[1]
rank = int(os.environ.get("RANK", os.environ.get("PMI_RANK", "0")))
if mode == "never_joins" and rank == 1:
    time.sleep(600)
dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=3))
total = minitorch.ones(4)
dist.all_reduce(total)
if rank == 1:
    if mode == "raise":
        raise ValueError("rank 1 cannot read its batch")
    if mode == "exit":
        sys.exit(0)
    if mode == "hangs":
        time.sleep(600)
dist.all_reduce(total)
dist.destroy_process_group()
