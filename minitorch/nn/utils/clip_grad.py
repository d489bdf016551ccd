"""Gradient clipping: keep one bad batch from throwing the weights far away.

* ``clip_grad_norm_``: if the norm of all gradients together (as one long vector) is
  above ``max_norm``, scale every gradient down by the same factor so it equals ``max_norm``.
  The direction of the update is kept; only its length is limited.
* ``clip_grad_value_``: clamp every gradient element into ``[-clip_value, clip_value]``.

Call them between ``loss.backward()`` and ``optimizer.step()``.

    >>> import minitorch
    >>> w = minitorch.tensor([3.0, 4.0], requires_grad=True)
    >>> w.grad = minitorch.tensor([3.0, 4.0])
    >>> minitorch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
    tensor(5.)
    >>> w.grad
    tensor([0.6000, 0.8000])
"""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable

import numpy as np

from ... import _dtype
from ..._creation import tensor as make_tensor
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops._util import array_module

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _as_list(tensors) -> list:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _vector_norm(array, norm_type: float):
    """The ``norm_type``-norm of all elements of ``array`` (a 0-d array on its device)."""
    xp = array_module(array)
    magnitudes = xp.abs(array)
    if norm_type == math.inf:
        return magnitudes.max() if magnitudes.size else xp.zeros((), array.dtype)
    if norm_type == -math.inf:
        return magnitudes.min() if magnitudes.size else xp.full((), math.inf, array.dtype)
    if norm_type == 0:
        return xp.asarray((magnitudes != 0).sum(), dtype=array.dtype)
    if norm_type == 2:
        return xp.sqrt((magnitudes * magnitudes).sum())
    if norm_type == 1:
        return magnitudes.sum()
    return (magnitudes**norm_type).sum() ** (1.0 / norm_type)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The norm of the norms of ``tensors``: the norm they would have as one concatenated vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return make_tensor(0.0)
    first = tensors[0]
    result_dtype = _dtype.from_numpy_dtype(first._data.dtype)
    for other in tensors[1:]:
        result_dtype = _dtype.promote_types(result_dtype, other.dtype)
    # One norm per tensor on its own device, brought to the host to be combined.
    norms = [t._device.backend.to_host(_vector_norm(t._data, norm_type)) for t in tensors]
    host_norms = np.asarray(norms, dtype=result_dtype.numpy_dtype)
    total = _vector_norm(host_norms, norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return make_tensor(total, dtype=result_dtype, device=first.device)


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale the gradients by ``max_norm / (total_norm + 1e-6)`` when that factor is below 1."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    # Computed in the norm's dtype, as PyTorch does (1e-6 keeps a zero norm from dividing by zero).
    total = total_norm._device.backend.to_host(total_norm._data)
    coefficient = min(float(max_norm / (total + 1e-6)), 1.0)
    with no_grad():
        for grad in grads:
            grad.mul_(coefficient)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Rescale the gradients of ``parameters`` so their total norm is at most ``max_norm``; returns the norm before.

    ``norm_type`` may be ``inf`` (the largest absolute value). With ``error_if_nonfinite``,
    a NaN or infinite total norm raises instead of spreading NaNs into every weight.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """Deprecated spelling of ``clip_grad_norm_``."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element of ``parameters`` into ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    with no_grad():
        for param in _as_list(parameters):
            if param.grad is not None:
                param.grad.clamp_(min=-clip_value, max=clip_value)
