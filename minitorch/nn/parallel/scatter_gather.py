"""Cutting a batch into one piece per device (``scatter``) and joining the results (``gather``).

``scatter`` walks the arguments of ``forward``: every tensor is cut along ``dim`` into
nearly equal chunks, as ``tensor.chunk(len(devices), dim)`` cuts it (a batch of 5 on 3
devices gives 2, 2 and 1 rows; a batch of 4 on 3 devices gives only 2 chunks, and then
only 2 replicas run), and each chunk moves to its device. Lists, tuples and dicts are
walked into; anything else (a number, a string, a flag) is given to every replica as is.

``gather`` concatenates the replicas' outputs along ``dim`` on the output device. Both
are made of differentiable ops (``chunk``, ``to``, ``cat``), so backward does the reverse
on its own: ``cat``'s backward cuts the gradient into the replicas' pieces and ``to``'s
moves each piece back to the device its input came from.

    >>> import minitorch
    >>> from minitorch.nn.parallel import scatter, gather
    >>> pieces = scatter(minitorch.arange(5.0), ["cpu", "cpu", "cpu"])
    >>> [piece.tolist() for piece in pieces]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    >>> gather(pieces, "cpu")
    tensor([0., 1., 2., 3., 4.])
"""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ...ops.shape import cat
from ._functions import as_device

__all__ = ["scatter", "scatter_kwargs", "gather"]


def _is_namedtuple(obj) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def _scatter_tensor(tensor: Tensor, devices: list, dim: int) -> list:
    pieces = tensor.chunk(len(devices), dim)
    return [piece.to(device) for piece, device in zip(pieces, devices)]


def scatter(inputs, target_gpus, dim: int = 0) -> list:
    """One entry per device (fewer if the batch has fewer rows than devices): ``inputs`` with its tensors cut."""
    devices = [as_device(spec) for spec in target_gpus]

    def scatter_map(obj):
        if isinstance(obj, Tensor):
            return _scatter_tensor(obj, devices, dim)
        # zip(*...) turns "per argument, a list of pieces" into "per device, the arguments";
        # it stops at the shortest list, so every replica gets a piece of every tensor.
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(items) for items in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(items) for items in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in devices]

    return scatter_map(inputs)


def scatter_kwargs(inputs: tuple, kwargs: dict, target_gpus, dim: int = 0) -> tuple[tuple, tuple]:
    """Scatter positional and keyword arguments alike; pad the shorter with empty ones."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(scattered_inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def _gather_tensors(tensors: list, target, dim: int) -> Tensor:
    if dim == 0 and all(t.dim() == 0 for t in tensors):
        warnings.warn(
            "Was asked to gather along dimension 0, but all input tensors were scalars; will instead unsqueeze and "
            "return a vector.",
            stacklevel=4,
        )
        tensors = [t.view(1) for t in tensors]
    return cat([t.to(target) for t in tensors], dim)


def gather(outputs: list, target_device, dim: int = 0):
    """Join the replicas' ``outputs`` (tensors, or lists, tuples, dicts of them) on ``target_device`` along ``dim``."""
    target = as_device(target_device)

    def gather_map(outputs):
        out = outputs[0]
        if isinstance(out, Tensor):
            return _gather_tensors(outputs, target, dim)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outputs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((key, gather_map([d[key] for d in outputs])) for key in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outputs)))
        if isinstance(out, (list, tuple)):
            return type(out)(map(gather_map, zip(*outputs)))
        raise TypeError(
            f"DataParallel can gather tensors, None, and lists, tuples and dicts of them, but a replica returned "
            f"{type(out).__name__}"
        )

    return gather_map(outputs)
