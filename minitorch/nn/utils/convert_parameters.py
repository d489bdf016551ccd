"""Parameters as one flat vector and back (for optimizers and analyses that want a single vector).

    >>> import minitorch
    >>> layer = minitorch.nn.Linear(3, 2)
    >>> minitorch.nn.utils.parameters_to_vector(layer.parameters()).shape
    minitorch.Size([8])
"""

from __future__ import annotations

from collections.abc import Iterable

from ..._tensor import Tensor
from ...ops import shape as shape_ops
from ..modules.module import _typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param: Tensor, previous_device):
    """All parameters must live on one device; returns that device."""
    if previous_device is not None and param.device != previous_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return param.device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated into one vector (differentiable)."""
    device = None
    pieces = []
    for param in parameters:
        device = _check_param_device(param, device)
        pieces.append(param.view(-1))
    return shape_ops.cat(pieces)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Make each parameter a view of its slice of ``vec`` (the inverse of ``parameters_to_vector``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        count = param.numel()
        param.data = vec[pointer:pointer + count].view_as(param).data
        pointer += count
