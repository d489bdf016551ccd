"""``minitorch.distributed``: several processes training one model, as ``torch.distributed``.

Each process (a *rank*) runs the same script on its own share of the data; collectives
(``all_reduce``, ``broadcast``, ...) combine tensors across the ranks. The communication
itself is done by an existing engine, never by this package:

* ``backend="mpi"``: CPU tensors, through ``mpi4py`` and an MPI library
  (``pip install mpi4py mpich``, or the ``distributed`` extra);
* ``backend="nccl"``: GPU tensors, through CuPy's NCCL (``cupyx.distributed``; untested
  here, see ``backends/nccl.py``).

Start N processes with the launcher (like ``torchrun``)::

    python -m minitorch.distributed.run --nproc-per-node 2 train.py --epochs 3

and in ``train.py``::

    import minitorch.distributed as dist
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    total = minitorch.tensor([float(rank)])
    dist.all_reduce(total)               # every rank now holds 0 + 1 + ... + (world - 1)

``mpiexec -n 2 python train.py`` works too. Files: ``distributed_c10d.py`` (groups and
collectives), ``reduce_op.py``, ``work.py`` (async handles), ``watchdog.py`` (timeouts and
failed ranks), ``backends/`` (MPI, NCCL), ``run.py`` (the launcher).
``minitorch.nn.parallel.DistributedDataParallel`` and
``minitorch.utils.data.distributed.DistributedSampler`` build on it.
"""

from .distributed_c10d import (
    Backend,
    GroupMember,
    ProcessGroup,
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    default_pg_timeout,
    destroy_process_group,
    gather,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    init_process_group,
    irecv,
    is_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    isend,
    monitored_barrier,
    new_group,
    recv,
    reduce,
    reduce_scatter_tensor,
    scatter,
    send,
)
from .object_collectives import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from .reduce_op import ReduceOp
from .watchdog import DistBackendError, DistError, DistStoreError
from .work import Work

__all__ = [
    "Backend", "DistBackendError", "DistError", "DistStoreError", "GroupMember", "ProcessGroup", "ReduceOp", "Work",
    "all_gather", "all_gather_into_tensor", "all_reduce", "barrier", "broadcast", "default_pg_timeout",
    "destroy_process_group", "gather", "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks",
    "get_rank", "get_world_size", "init_process_group", "irecv", "is_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "isend", "new_group", "recv", "reduce", "reduce_scatter_tensor",
    "scatter", "send", "all_to_all", "all_to_all_single", "monitored_barrier", "all_gather_object",
    "broadcast_object_list", "gather_object", "scatter_object_list",
]
