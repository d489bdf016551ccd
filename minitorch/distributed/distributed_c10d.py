"""Process groups and collectives on tensors: ``torch.distributed``'s functions, with its names.

A *process group* is a set of processes (*ranks*) that take part in collectives together.
``init_process_group`` makes the default one, of every process the launcher started;
``new_group`` makes sub-groups. A collective is called by every rank of its group, in the
same order, with tensors of the same shapes:

==========================  ==========================================================
``all_reduce(t)``           every rank ends with ``op(t_0, t_1, ...)`` (default: the sum)
``broadcast(t, src)``       every rank ends with rank ``src``'s ``t``
``reduce(t, dst)``          rank ``dst`` ends with the reduction
``all_gather(list, t)``     ``list[k]`` is rank ``k``'s ``t``, on every rank
``all_gather_into_tensor``  the same, into one tensor (ranks' pieces one after another)
``reduce_scatter_tensor``   reduce, then rank ``k`` keeps the ``k``-th piece
``gather`` / ``scatter``    all to one rank / from one rank, a piece each
``send`` / ``recv``         one rank to another
``all_to_all``              rank ``i``'s ``j``-th piece goes to rank ``j`` (a transpose)
``barrier()``               wait until every rank has got here
``monitored_barrier()``     the same, and rank 0 names the ranks that never arrived
==========================  ==========================================================

Ranks (``src``, ``dst``) are *global* ranks, as in PyTorch, even for a sub-group. Every
collective takes ``async_op=True`` and then returns a ``Work`` handle to ``wait()`` on.

This file checks the arguments (in PyTorch's words) and moves between tensors and arrays;
the backends (``backends/mpi.py``, ``backends/nccl.py``) do the communication.
"""

from __future__ import annotations

import math
import os
import time
from datetime import timedelta

from .._creation import zeros, zeros_like
from .._dtype import int32, is_floating
from .._tensor import Tensor
from .backends import mpi as _mpi, nccl as _nccl
from .reduce_op import RedOpType, ReduceOp, as_reduce_op
from .work import Work

__all__ = [
    "Backend", "ProcessGroup", "GroupMember", "default_pg_timeout", "init_process_group", "destroy_process_group",
    "is_initialized", "is_available", "is_mpi_available", "is_nccl_available", "get_rank", "get_world_size",
    "get_backend", "get_process_group_ranks", "get_global_rank", "get_group_rank", "new_group", "all_reduce",
    "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor", "gather", "scatter",
    "send", "recv", "isend", "irecv", "barrier", "ReduceOp", "Work", "all_to_all", "all_to_all_single",
    "monitored_barrier",
]

default_pg_timeout = timedelta(minutes=30)  # PyTorch's default for CPU backends
RUN_DIR_VARIABLE = "MINITORCH_DISTRIBUTED_RUN_DIR"  # set by the launcher: where ranks leave their records


class Backend:
    """The backend names (``Backend.MPI == "mpi"``); PyTorch's ``gloo`` is not one of them."""

    MPI = "mpi"
    NCCL = "nccl"


class ProcessGroup:
    """A group of ranks, as returned by ``new_group`` (pass it as ``group=``); ``None`` means the default one.

    On a rank that is not a member, the group has no backend: collectives on it do nothing and
    return None, and ``get_rank(group)`` is -1, as in PyTorch.
    """

    def __init__(self, backend_group, ranks: list[int], backend_name: str):
        self._backend = backend_group
        self._ranks = list(ranks)
        self._backend_name = backend_name

    def rank(self) -> int:
        return self._backend.rank() if self._backend is not None else -1

    def size(self) -> int:
        return len(self._ranks)

    def name(self) -> str:
        return self._backend_name

    def __repr__(self) -> str:
        return f"<ProcessGroup {self._backend_name} ranks={self._ranks}>"


class GroupMember:
    WORLD = None  # the default group, once initialized
    NON_GROUP_MEMBER = -100


_groups: list[ProcessGroup] = []  # every group made, in order; index 0 is the default one


# -- the default group ----------------------------------------------------------------------
def is_available() -> bool:
    """Is a backend installed? (mpi4py for ``"mpi"``; ``is_nccl_available`` says whether NCCL is too.)"""
    return _mpi.is_available() or _nccl.is_available()


def is_mpi_available() -> bool:
    return _mpi.is_available()


def is_nccl_available() -> bool:
    return _nccl.is_available()


def is_initialized() -> bool:
    return GroupMember.WORLD is not None


def _default_group() -> ProcessGroup:
    if GroupMember.WORLD is None:
        raise ValueError(
            "Default process group has not been initialized, please make sure to call init_process_group.")
    return GroupMember.WORLD


def init_process_group(backend: str | None = None, init_method: str | None = None, timeout: timedelta | None = None,
                       world_size: int = -1, rank: int = -1, store=None, group_name: str = "", pg_options=None,
                       device_id=None) -> None:
    """Join the job: make the default process group of every rank the launcher started.

    ``backend`` is ``"mpi"`` (CPU tensors; the default) or ``"nccl"`` (GPU tensors). With MPI,
    the rank and the world size come from ``mpiexec`` (``python -m minitorch.distributed.run``
    starts it); ``rank``/``world_size``, when given, must agree with them, and ``init_method``
    is not used (as in PyTorch's MPI backend). ``timeout`` bounds every wait: for the other
    ranks to join, and in each collective.
    """
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")
    backend = (backend or Backend.MPI).lower()
    seconds = timeout.total_seconds()
    if backend == Backend.MPI:
        group = _mpi.world_group(seconds, os.environ.get(RUN_DIR_VARIABLE))
        try:
            _check_mpi_world(group, world_size, rank)
        except ValueError:
            group.watchdog.close()
            group.destroy()
            raise
    elif backend == Backend.NCCL:
        world_size = world_size if world_size >= 0 else int(os.environ.get("WORLD_SIZE", "-1"))
        rank = rank if rank >= 0 else int(os.environ.get("RANK", "-1"))
        if world_size < 1 or rank < 0:
            raise ValueError("backend='nccl' needs rank and world_size (or the RANK and WORLD_SIZE the launcher sets)")
        group = _nccl.world_group(world_size, rank, seconds)
    else:
        raise ValueError(
            f"Invalid backend: {backend!r}. minitorch.distributed has 'mpi' (CPU tensors, through mpi4py) and 'nccl' "
            "(GPU tensors, through CuPy); PyTorch's 'gloo' corresponds to 'mpi'.")
    GroupMember.WORLD = ProcessGroup(group, group.ranks, backend)
    _groups.clear()
    _groups.append(GroupMember.WORLD)


def _check_mpi_world(group, world_size: int, rank: int) -> None:
    size = group.size()
    if world_size >= 0 and world_size != size:
        raise ValueError(
            f"init_process_group(world_size={world_size}) but MPI started {size} process(es): start the script with "
            f"python -m minitorch.distributed.run --nproc-per-node {world_size} script.py (or mpiexec -n "
            f"{world_size} python script.py)")
    if rank >= 0 and rank != group.rank():
        raise ValueError(f"init_process_group(rank={rank}) but MPI started this process as rank {group.rank()}")


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Release a group; without an argument, every group and the default one (the job may end)."""
    if group is None or group is GroupMember.WORLD:
        world = _default_group()
        for made in _groups:
            if made._backend is not None:
                made._backend.destroy()
        watchdog = getattr(world._backend, "watchdog", None)
        if watchdog is not None:
            watchdog.close()
        _groups.clear()
        GroupMember.WORLD = None
        return
    if group._backend is not None:
        group._backend.destroy()
        group._backend = None


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (the default group: 0 .. world size - 1); -1 if it is not a member."""
    return (group or _default_group()).rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    pg = group or _default_group()
    return pg.size() if pg._backend is not None else -1


def get_backend(group: ProcessGroup | None = None) -> str:
    return (group or _default_group()).name()


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    return list((group or _default_group())._ranks)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    return (group or _default_group())._ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    ranks = (group or _default_group())._ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def new_group(ranks=None, timeout: timedelta | None = None, backend: str | None = None, pg_options=None,
              use_local_synchronization: bool = False, group_desc: str | None = None) -> ProcessGroup:
    """A sub-group of the given global ``ranks`` (all ranks by default).

    Every rank of the default group must call it, members or not, in the same order (as in
    PyTorch). A non-member gets a group it cannot use: ``get_rank(group) == -1``.
    """
    world = _default_group()
    ranks = sorted(range(world.size()) if ranks is None else {int(r) for r in ranks})
    for rank in ranks:
        if not 0 <= rank < world.size():
            raise ValueError(f"new_group: rank {rank} is not in the default group (world size {world.size()})")
    group_id = len(_groups)
    backend_group = world._backend.new_subgroup(ranks, group_id)
    group = ProcessGroup(backend_group, ranks, world.name())
    _groups.append(group)
    return group


# -- between tensors and arrays ---------------------------------------------------------------
def _group_for(group: ProcessGroup | None, operation: str):
    """The backend group to use, or None when this rank is not in ``group`` (the call then does nothing)."""
    pg = group if group is not None else _default_group()
    if pg._backend is None:
        return None
    return pg


def _check_tensor(value, name: str) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(value)} instead.")


def _check_tensor_list(values, name: str) -> None:
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, Tensor) for v in values):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(values)} with elements of type "
                        f"{[type(v) for v in values] if isinstance(values, (list, tuple)) else ''} instead.")


def _array_of(tensor: Tensor, pg: ProcessGroup):
    """The tensor's array, contiguous (a staging copy if it is not), and the step that writes results back."""
    if pg.name() == Backend.MPI and tensor.device.type != "cpu":
        raise RuntimeError(f"backend='mpi' works on CPU tensors; this tensor is on {tensor.device} "
                           "(use backend='nccl' for GPU tensors)")
    array = tensor._data
    if array.flags.c_contiguous:
        return array, tensor._bump_version
    staging = tensor._xp.ascontiguousarray(array)

    def write_back():
        tensor._data[...] = staging
        tensor._bump_version()

    return staging, write_back


def _average(array, size: int):
    def divide():
        if is_floating(array.dtype):
            array[...] /= size
        else:
            array[...] = (array / size).astype(array.dtype)

    return divide


def _rank_in(pg: ProcessGroup, global_rank: int | None, group_rank: int | None, name: str) -> int:
    """The group rank of ``src``/``dst`` (a global rank) or of ``group_src``/``group_dst`` (a group rank)."""
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {name} and group_{name}")
    if group_rank is not None:
        return group_rank
    global_rank = 0 if global_rank is None else global_rank
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg._ranks.index(global_rank)


def _done(work: Work, async_op: bool):
    if async_op:
        return work
    work.wait()
    return None


def _same_kind(tensors, reference: Tensor, what: str) -> None:
    for tensor in tensors:
        if tensor.dtype != reference.dtype:
            raise TypeError(f"{what}: tensors must all have the same type, got {tensor.dtype} and {reference.dtype}")


# -- the collectives ---------------------------------------------------------------------------
def all_reduce(tensor: Tensor, op=ReduceOp.SUM, group: ProcessGroup | None = None, async_op: bool = False):
    """Reduce ``tensor`` over the group's ranks, in place: every rank ends with the same result."""
    _check_tensor(tensor, "tensor")
    op = as_reduce_op(op)
    pg = _group_for(group, "all_reduce")
    if pg is None:
        return None
    array, write_back = _array_of(tensor, pg)
    work = pg._backend.allreduce(array, op)
    if op == RedOpType.AVG:
        work.then(_average(array, pg.size()))
    return _done(work.then(write_back), async_op)


def broadcast(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, async_op: bool = False,
              group_src: int | None = None):
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank of the group."""
    _check_tensor(tensor, "tensor")
    pg = _group_for(group, "broadcast")
    if pg is None:
        return None
    root = _rank_in(pg, src, group_src, "src")
    array, write_back = _array_of(tensor, pg)
    return _done(pg._backend.broadcast(array, root).then(write_back), async_op)


def reduce(tensor: Tensor, dst: int | None = None, op=ReduceOp.SUM, group: ProcessGroup | None = None,
           async_op: bool = False, group_dst: int | None = None):
    """Reduce ``tensor`` over the group's ranks into rank ``dst``'s ``tensor`` (the others keep theirs)."""
    _check_tensor(tensor, "tensor")
    op = as_reduce_op(op)
    pg = _group_for(group, "reduce")
    if pg is None:
        return None
    root = _rank_in(pg, dst, group_dst, "dst")
    array, write_back = _array_of(tensor, pg)
    work = pg._backend.reduce(array, root, op)
    if pg.rank() == root:
        if op == RedOpType.AVG:
            work.then(_average(array, pg.size()))
        work.then(write_back)
    return _done(work, async_op)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: ProcessGroup | None = None, async_op: bool = False):
    """``tensor_list[k]`` becomes rank ``k``'s ``tensor`` (``k`` a rank of the group), on every rank."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    pg = _group_for(group, "all_gather")
    if pg is None:
        return None
    if len(tensor_list) != pg.size():
        raise ValueError(f"all_gather: tensor_list must hold one tensor per rank of the group ({pg.size()}), "
                         f"got {len(tensor_list)}")
    _same_kind(tensor_list, tensor, "all_gather")
    for output in tensor_list:
        if output.shape != tensor.shape:
            raise RuntimeError(f"all_gather: every output tensor must have the input's shape {list(tensor.shape)}, "
                               f"got {list(output.shape)}")
    array, _ = _array_of(tensor, pg)
    gathered = tensor._xp.empty((pg.size(),) + array.shape, dtype=array.dtype)

    def scatter_into_list():
        for output, piece in zip(tensor_list, gathered):
            output._data[...] = piece
            output._bump_version()

    return _done(pg._backend.allgather(gathered, array).then(scatter_into_list), async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: ProcessGroup | None = None,
                           async_op: bool = False):
    """The ranks' ``input_tensor``s one after another in ``output_tensor``: concatenated along dim 0
    (shape ``(world * n, ...)``) or stacked (shape ``(world, n, ...)``), as PyTorch allows both."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = _group_for(group, "all_gather_into_tensor")
    if pg is None:
        return None
    _same_kind([output_tensor], input_tensor, "all_gather_into_tensor")
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    array, _ = _array_of(input_tensor, pg)
    output, write_back = _array_of(output_tensor, pg)
    return _done(pg._backend.allgather(output, array).then(write_back), async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op=ReduceOp.SUM, group: ProcessGroup | None = None,
                          async_op: bool = False):
    """Reduce ``input`` over the ranks, then rank ``k`` keeps the ``k``-th of ``world`` equal pieces in ``output``."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    op = as_reduce_op(op)
    pg = _group_for(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    _same_kind([output], input, "reduce_scatter_tensor")
    if input.numel() != output.numel() * pg.size():
        raise ValueError("input tensor must be the same size as output size times world size")
    array, _ = _array_of(input, pg)
    array = array.copy() if array is input._data else array  # the input is not written
    result, write_back = _array_of(output, pg)
    work = pg._backend.reduce_scatter(result, array, op)
    if op == RedOpType.AVG:
        work.then(_average(result, pg.size()))
    return _done(work.then(write_back), async_op)


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int | None = None,
           group: ProcessGroup | None = None, async_op: bool = False, group_dst: int | None = None):
    """Rank ``dst`` receives every rank's ``tensor``: ``gather_list[k]`` is rank ``k``'s."""
    _check_tensor(tensor, "tensor")
    pg = _group_for(group, "gather")
    if pg is None:
        return None
    root = _rank_in(pg, dst, group_dst, "dst")
    array, _ = _array_of(tensor, pg)
    if pg.rank() == root:
        if gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_tensor_list(gather_list, "gather_list")
        if len(gather_list) != pg.size():
            raise ValueError(f"gather: gather_list must hold one tensor per rank ({pg.size()}), got {len(gather_list)}")
        _same_kind(gather_list, tensor, "gather")
        gathered = tensor._xp.empty((pg.size(),) + array.shape, dtype=array.dtype)

        def into_list():
            for output, piece in zip(gather_list, gathered):
                output._data[...] = piece.reshape(output._data.shape)
                output._bump_version()

        return _done(pg._backend.gather(gathered, array, root).then(into_list), async_op)
    if gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    return _done(pg._backend.gather(None, array, root), async_op)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int | None = None,
            group: ProcessGroup | None = None, async_op: bool = False, group_src: int | None = None):
    """Rank ``k`` receives ``scatter_list[k]`` of rank ``src`` into its ``tensor``."""
    _check_tensor(tensor, "tensor")
    pg = _group_for(group, "scatter")
    if pg is None:
        return None
    root = _rank_in(pg, src, group_src, "src")
    output, write_back = _array_of(tensor, pg)
    pieces = None
    if pg.rank() == root:
        if scatter_list is None:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_tensor_list(scatter_list, "scatter_list")
        if len(scatter_list) != pg.size():
            raise ValueError(f"scatter: scatter_list must hold one tensor per rank ({pg.size()}), "
                             f"got {len(scatter_list)}")
        _same_kind(scatter_list, tensor, "scatter")
        pieces = tensor._xp.stack([piece._data.reshape(output.shape) for piece in scatter_list])
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    return _done(pg._backend.scatter(output, pieces, root).then(write_back), async_op)


def barrier(group: ProcessGroup | None = None, async_op: bool = False, device_ids=None):
    """Wait until every rank of the group has called ``barrier``."""
    pg = _group_for(group, "barrier")
    if pg is None:
        return None
    return _done(pg._backend.barrier(), async_op)


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor], group: ProcessGroup | None = None,
               async_op: bool = False):
    """Rank ``i`` sends ``input_tensor_list[j]`` to rank ``j``, which receives it as ``output_tensor_list[i]``.

    A transpose of who-holds-what: before, rank ``i`` holds row ``i`` of a ``world x world`` table of tensors;
    after, it holds column ``i``. Tensors may differ in size from pair to pair (not in dtype).
    """
    _check_tensor_list(output_tensor_list, "output_tensor_list")
    _check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = _group_for(group, "all_to_all")
    if pg is None:
        return None
    for name, tensors in (("input_tensor_list", input_tensor_list), ("output_tensor_list", output_tensor_list)):
        if len(tensors) != pg.size():
            raise ValueError(f"all_to_all: {name} must hold one tensor per rank of the group ({pg.size()}), "
                             f"got {len(tensors)}")
    reference = input_tensor_list[0]
    _same_kind(list(input_tensor_list) + list(output_tensor_list), reference, "all_to_all")
    xp = reference._xp
    pieces = [_array_of(t, pg)[0].reshape(-1) for t in input_tensor_list]
    sending = xp.concatenate(pieces) if pieces else xp.empty(0, reference._data.dtype)
    receiving = xp.empty(sum(t.numel() for t in output_tensor_list), dtype=sending.dtype)

    def into_list():
        start = 0
        for output in output_tensor_list:
            output._data[...] = receiving[start:start + output.numel()].reshape(output._data.shape)
            output._bump_version()
            start += output.numel()

    return _done(pg._backend.alltoall(receiving, [t.numel() for t in output_tensor_list], sending,
                                      [t.numel() for t in input_tensor_list]).then(into_list), async_op)


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: list[int] | None = None,
                      input_split_sizes: list[int] | None = None, group: ProcessGroup | None = None,
                      async_op: bool = False):
    """``all_to_all`` on one tensor each way, split along dim 0: rank ``i``'s ``j``-th slice of ``input`` goes to
    rank ``j`` and lands as the ``i``-th slice of its ``output``. Without split sizes the slices are equal."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = _group_for(group, "all_to_all_single")
    if pg is None:
        return None
    _same_kind([output], input, "all_to_all_single")
    world = pg.size()
    row = math.prod(input.shape[1:]) if input.dim() else 1

    def splits(sizes, tensor, name):
        if sizes is None or len(sizes) == 0:
            rows = tensor.shape[0] if tensor.dim() else 1
            if rows % world:
                raise ValueError(f"all_to_all_single: {name}.size(0) = {rows} is not divisible by the world size "
                                 f"{world}; pass {name}_split_sizes")
            return [rows // world] * world
        sizes = [int(size) for size in sizes]
        if len(sizes) != world or sum(sizes) != (tensor.shape[0] if tensor.dim() else 1):
            raise ValueError(f"all_to_all_single: {name}_split_sizes {sizes} must have one entry per rank ({world}) "
                             f"summing to {name}.size(0) = {tensor.shape[0] if tensor.dim() else 1}")
        return sizes

    sending_rows = splits(input_split_sizes, input, "input")
    receiving_rows = splits(output_split_sizes, output, "output")
    sending, _ = _array_of(input, pg)
    receiving, write_back = _array_of(output, pg)
    work = pg._backend.alltoall(receiving.reshape(-1), [rows * row for rows in receiving_rows], sending.reshape(-1),
                                [rows * row for rows in sending_rows])
    return _done(work.then(write_back), async_op)


def monitored_barrier(group: ProcessGroup | None = None, timeout: timedelta | None = None,
                      wait_all_ranks: bool = False) -> None:
    """A barrier that names the ranks that did not arrive: rank 0 waits for a message from each other rank within
    ``timeout``, then releases them. A missing rank raises on rank 0 ``[Rank 0]: Rank k failed to pass
    monitoredBarrier in T ms`` (every missing rank with ``wait_all_ranks=True``), where ``barrier`` would only hang.
    """
    pg = _group_for(group, "monitored_barrier")
    if pg is None:
        return
    seconds = timeout.total_seconds() if timeout is not None else _timeout_seconds(pg)
    milliseconds = int(seconds * 1000)
    token = zeros(1, dtype=int32) if pg.name() == Backend.MPI else zeros(1, dtype=int32, device="cuda")
    if pg.rank() != 0:
        send(token, group_dst=0, group=group, tag=_MONITORED_BARRIER_TAG)
        irecv(token, group_src=0, group=group, tag=_MONITORED_BARRIER_TAG).wait(timedelta(seconds=seconds))
        return
    arrivals = {k: irecv(zeros_like(token), group_src=k, group=group, tag=_MONITORED_BARRIER_TAG)
                for k in range(1, pg.size())}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(work.is_completed() for work in arrivals.values()):
        time.sleep(0.001)
    missing = [pg._ranks[k] for k, work in arrivals.items() if not work.is_completed()]
    if missing and wait_all_ranks:
        raise RuntimeError(f"[Rank 0]: Ranks {', '.join(map(str, missing))} failed to pass monitoredBarrier in "
                           f"{milliseconds} ms")
    if missing:
        raise RuntimeError(f"[Rank 0]: Rank {missing[0]} failed to pass monitoredBarrier in {milliseconds} ms\n"
                           f" Original exception: \n rank {missing[0]} sent nothing within the timeout")
    for k in range(1, pg.size()):
        send(token, group_dst=k, group=group, tag=_MONITORED_BARRIER_TAG)


def _timeout_seconds(pg: ProcessGroup) -> float:
    """The group's own timeout (``init_process_group(timeout=...)``), PyTorch's default for monitored_barrier."""
    watchdog = getattr(pg._backend, "watchdog", None)
    return watchdog.timeout if watchdog is not None else default_pg_timeout.total_seconds()


_MONITORED_BARRIER_TAG = 0x6D62  # "mb": keeps the barrier's messages apart from a program's own sends


def isend(tensor: Tensor, dst: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
          group_dst: int | None = None):
    """Start sending ``tensor`` to rank ``dst``; returns the ``Work`` (the tensor must not change before it ends)."""
    _check_tensor(tensor, "tensor")
    pg = _group_for(group, "isend")
    if pg is None:
        return None
    peer = _rank_in(pg, dst, group_dst, "dst")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: should not be the same as the rank of the current process.")
    array, _ = _array_of(tensor, pg)
    return pg._backend.send(array, peer, tag)


def irecv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
          group_src: int | None = None):
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None); returns the ``Work``."""
    _check_tensor(tensor, "tensor")
    pg = _group_for(group, "irecv")
    if pg is None:
        return None
    peer = None if src is None and group_src is None else _rank_in(pg, src, group_src, "src")
    array, write_back = _array_of(tensor, pg)
    return pg._backend.recv(array, peer, tag).then(write_back)


def send(tensor: Tensor, dst: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
         group_dst: int | None = None) -> None:
    """Send ``tensor`` to rank ``dst`` (returns once it has left; rank ``dst`` calls ``recv``)."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's global rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    if src is not None:
        return src
    return work.source_rank() if hasattr(work, "source_rank") else group_src
