"""The object collectives, all_to_all and monitored_barrier on each rank, in minitorch or in PyTorch (gloo).

``mpiexec -n N python more_collectives.py minitorch OUT`` or, for PyTorch, one process per rank with RANK,
WORLD_SIZE, MASTER_ADDR and MASTER_PORT set: ``python more_collectives.py torch OUT``. Each rank writes
OUT/rank<r>.json: the ``repr`` of every object it ends with and the list of every tensor, so the test
compares the two libraries (and NumPy by hand) value for value. PHASE ``failure`` runs the monitored
barrier with ranks missing instead (see the test).
"""

import datetime
import json
import os
import sys

library, out, phase = sys.argv[1], sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else "collectives")
if library == "torch":
    import torch as lib
    import torch.distributed as dist

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
else:
    import minitorch as lib
    import minitorch.distributed as dist

    dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))

rank, world = dist.get_rank(), dist.get_world_size()
results = {}


def attempt(name, action):
    """Run ``action`` and keep what it returns; a collective a backend lacks is recorded, not fatal."""
    try:
        results[name] = action()
    except (RuntimeError, NotImplementedError, ValueError) as error:
        results[name] = f"error: {type(error).__name__}: {str(error).splitlines()[0]}"


def all_gather_object():
    gathered = [None] * world
    dist.all_gather_object(gathered, {"rank": rank, "name": "r" * (rank + 1), "values": list(range(3 * rank))})
    return repr(gathered)


def gather_object():
    gathered = [None] * world if rank == world - 1 else None
    dist.gather_object(("from", rank, "x" * (5 * rank)), gathered, dst=world - 1)
    return repr(gathered)


def broadcast_object_list():
    objects = [("a", rank), {1: "x" * 10 * rank}, None] if rank == 1 else [None, None, None]
    dist.broadcast_object_list(objects, src=1)
    return repr(objects)


def scatter_object_list():
    inputs = [{"to": k, "pad": "y" * 7 * k} for k in range(world)] if rank == 0 else None
    output = [None]
    dist.scatter_object_list(output, inputs, src=0)
    return repr(output)


def all_to_all():
    inputs = [lib.arange(j + 1 + rank, dtype=lib.float32) + 100 * rank + 10 * j for j in range(world)]
    outputs = [lib.zeros(rank + 1 + i, dtype=lib.float32) for i in range(world)]
    dist.all_to_all(outputs, inputs)
    return [o.tolist() for o in outputs]


def all_to_all_single_equal():
    sending = lib.arange(world * 2 * 3, dtype=lib.float64).reshape(world * 2, 3) + 1000 * rank
    receiving = lib.zeros(world * 2, 3, dtype=lib.float64)
    dist.all_to_all_single(receiving, sending)
    return receiving.tolist()


def all_to_all_single_uneven():
    send_rows = [(rank + j) % 3 + 1 for j in range(world)]
    receive_rows = [(i + rank) % 3 + 1 for i in range(world)]
    sending = lib.arange(sum(send_rows) * 2, dtype=lib.int64).reshape(-1, 2) + 1000 * rank
    receiving = lib.zeros(sum(receive_rows), 2, dtype=lib.int64)
    dist.all_to_all_single(receiving, sending, receive_rows, send_rows)
    return receiving.tolist()


def monitored_barrier():
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))
    return "passed"


if phase == "collectives":
    for name, action in [("all_gather_object", all_gather_object), ("gather_object", gather_object),
                         ("broadcast_object_list", broadcast_object_list),
                         ("scatter_object_list", scatter_object_list), ("all_to_all", all_to_all),
                         ("all_to_all_single_equal", all_to_all_single_equal),
                         ("all_to_all_single_uneven", all_to_all_single_uneven),
                         ("monitored_barrier", monitored_barrier)]:
        attempt(name, action)
else:  # every rank but 0 stays away: rank 0 must name them (all of them with wait_all_ranks)
    wait_all = phase == "failure_all"
    if rank == 0:
        try:
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=1), wait_all_ranks=wait_all)
            results["monitored_barrier"] = "passed"
        except RuntimeError as error:
            results["monitored_barrier"] = str(error).splitlines()[0]

with open(os.path.join(out, f"rank{rank}.json"), "w") as file:
    json.dump(results, file)
if phase == "collectives" or library == "minitorch":  # gloo closes its connections after the failed barrier
    dist.barrier()
if phase == "collectives":
    dist.destroy_process_group()
else:
    os._exit(0)  # rank 0's receives from the absent ranks are still posted: leave without finalizing them
