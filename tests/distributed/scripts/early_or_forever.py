"""``early_or_forever.py MODE MARKER``: ``early`` raises on rank 1 before init_process_group; ``forever`` joins and
then waits for a long time on every rank (the test kills the launcher meanwhile). MARKER tags the processes."""

import datetime
import os
import sys
import time

import minitorch.distributed as dist

mode = sys.argv[1]
rank = int(os.environ.get("RANK", "0"))
if mode == "early" and rank == 1:
    raise FileNotFoundError("rank 1 cannot find data/train.bin")
dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=120))
with open(os.path.join(sys.argv[2], f"rank{rank}.joined"), "w"):  # the test waits for these files
    pass
time.sleep(300 if mode == "forever" else 0)
dist.destroy_process_group()
