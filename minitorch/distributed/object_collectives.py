"""Collectives of Python objects: ``all_gather_object``, ``gather_object``, ``broadcast_object_list``,
``scatter_object_list``, as ``torch.distributed`` has them.

The engines move bytes, not objects, so each object is pickled into a uint8 tensor and the tensor
collectives move it. The sizes differ from rank to rank, so every call is two collectives: first the
sizes (so each rank can make room for the largest), then the bytes, padded to that size; each rank
unpickles what it received. As in PyTorch, this uses ``pickle``, which runs code while it loads:
exchange objects only between ranks of your own job, never data from elsewhere.
"""

from __future__ import annotations

import io
import pickle

import numpy as np

from .._creation import tensor as make_tensor, zeros
from .._dtype import int64, uint8
from . import distributed_c10d as c10d

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]


def _device(group):
    """Objects travel on the CPU for MPI and on the current GPU for NCCL (whose collectives see only GPU memory)."""
    if c10d.get_backend(group) == c10d.Backend.NCCL:
        from .. import cuda  # noqa: PLC0415 - only an NCCL job needs the GPU module

        return f"cuda:{cuda.current_device()}"
    return "cpu"


def _object_to_tensor(obj, device):
    """``obj`` pickled: a uint8 tensor of its bytes and a one-element int64 tensor of their count."""
    buffer = io.BytesIO()
    pickle.Pickler(buffer).dump(obj)
    data = np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy()
    return make_tensor(data, dtype=uint8, device=device), make_tensor([data.size], dtype=int64, device=device)


def _tensor_to_object(data, size: int):
    """The object pickled in the first ``size`` bytes of ``data``."""
    return pickle.loads(data[:size].cpu().numpy().tobytes())


def _padded(data, length: int):
    """``data`` followed by zeros up to ``length`` bytes (every rank sends the same number)."""
    padded = zeros(length, dtype=uint8, device=data.device)
    padded[: data.numel()] = data
    return padded


def all_gather_object(object_list: list, obj, group=None) -> None:
    """``object_list[k]`` becomes rank ``k``'s ``obj``, on every rank (``object_list`` has one slot per rank)."""
    if c10d._group_for(group, "all_gather_object") is None:
        return
    world = c10d.get_world_size(group)
    if len(object_list) != world:
        raise ValueError(f"all_gather_object: object_list must have one slot per rank of the group ({world}), "
                         f"got {len(object_list)}")
    device = _device(group)
    data, size = _object_to_tensor(obj, device)
    sizes = [zeros(1, dtype=int64, device=device) for _ in range(world)]
    c10d.all_gather(sizes, size, group=group)
    longest = max(int(s.item()) for s in sizes)
    gathered = [zeros(longest, dtype=uint8, device=device) for _ in range(world)]
    c10d.all_gather(gathered, _padded(data, longest), group=group)
    for k in range(world):
        object_list[k] = _tensor_to_object(gathered[k], int(sizes[k].item()))


def gather_object(obj, object_gather_list: list | None = None, dst: int | None = None, group=None,
                  group_dst: int | None = None) -> None:
    """Rank ``dst`` receives every rank's ``obj`` in ``object_gather_list`` (the other ranks pass None)."""
    pg = c10d._group_for(group, "gather_object")
    if pg is None:
        return
    root = c10d._rank_in(pg, dst, group_dst, "dst")
    on_root = pg.rank() == root
    if on_root and object_gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not on_root and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    world = pg.size()
    device = _device(group)
    data, size = _object_to_tensor(obj, device)
    sizes = [zeros(1, dtype=int64, device=device) for _ in range(world)]
    c10d.all_gather(sizes, size, group=group)  # every rank must pad to the same length
    longest = max(int(s.item()) for s in sizes)
    gathered = [zeros(longest, dtype=uint8, device=device) for _ in range(world)] if on_root else None
    c10d.gather(_padded(data, longest), gathered, group=group, group_dst=root)
    if on_root:
        if len(object_gather_list) != world:
            raise ValueError(f"gather_object: object_gather_list must have one slot per rank ({world}), "
                             f"got {len(object_gather_list)}")
        for k in range(world):
            object_gather_list[k] = _tensor_to_object(gathered[k], int(sizes[k].item()))


def broadcast_object_list(object_list: list, src: int | None = None, group=None, device=None,
                          group_src: int | None = None) -> None:
    """Every rank's ``object_list`` becomes rank ``src``'s, element by element (the lists have the same length)."""
    pg = c10d._group_for(group, "broadcast_object_list")
    if pg is None:
        return
    root = c10d._rank_in(pg, src, group_src, "src")
    device = device if device is not None else _device(group)
    sizes = zeros(len(object_list), dtype=int64, device=device)
    if pg.rank() == root:
        pickled = [_object_to_tensor(obj, device) for obj in object_list]
        for k, (_, size) in enumerate(pickled):
            sizes[k] = size[0]
    c10d.broadcast(sizes, group=group, group_src=root)
    counts = [int(size) for size in sizes.tolist()]
    if pg.rank() == root:
        data = _padded_concatenation([d for d, _ in pickled], sum(counts), device)
    else:
        data = zeros(sum(counts), dtype=uint8, device=device)
    c10d.broadcast(data, group=group, group_src=root)
    if pg.rank() != root:
        start = 0
        for k, count in enumerate(counts):
            object_list[k] = _tensor_to_object(data[start:start + count], count)
            start += count


def _padded_concatenation(pieces, total: int, device):
    joined = zeros(total, dtype=uint8, device=device)
    start = 0
    for piece in pieces:
        joined[start:start + piece.numel()] = piece
        start += piece.numel()
    return joined


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list: list | None = None,
                        src: int | None = None, group=None, group_src: int | None = None) -> None:
    """Rank ``k`` receives ``scatter_object_input_list[k]`` of rank ``src`` as ``scatter_object_output_list[0]``."""
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    pg = c10d._group_for(group, "scatter_object_list")
    if pg is None:
        return
    root = c10d._rank_in(pg, src, group_src, "src")
    world = pg.size()
    device = _device(group)
    longest = zeros(1, dtype=int64, device=device)
    pieces = sizes = None
    if pg.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != world:
            got = "None" if scatter_object_input_list is None else len(scatter_object_input_list)
            raise ValueError(f"scatter_object_list: scatter_object_input_list must hold one object per rank ({world}) "
                             f"on the source rank, got {got}")
        pickled = [_object_to_tensor(obj, device) for obj in scatter_object_input_list]
        longest[0] = max(int(size.item()) for _, size in pickled)
        sizes = [size for _, size in pickled]
    c10d.broadcast(longest, group=group, group_src=root)
    length = int(longest.item())
    if pg.rank() == root:
        pieces = [_padded(data, length) for data, _ in pickled]
    received = zeros(length, dtype=uint8, device=device)
    received_size = zeros(1, dtype=int64, device=device)
    c10d.scatter(received, pieces, group=group, group_src=root)
    c10d.scatter(received_size, sizes, group=group, group_src=root)
    scatter_object_output_list[0] = _tensor_to_object(received, int(received_size.item()))
