"""Forward-mode AD, as ``torch.autograd.forward_ad``: a tangent travels forward with each value.

Reverse mode (``backward``) gives ``v^T J``, the gradient of one output with respect to every input.
Forward mode gives ``J t``: how every output moves when the inputs move along ``t``. Inside a
``dual_level``, ``make_dual(x, t)`` gives a *dual tensor*: ``x``'s values (a view of ``x``) with
the tangent ``t`` attached. Every op applied to a dual tensor gives a dual tensor, whose tangent is
the op's Jacobian-vector product; ``unpack_dual(y)`` reads ``(primal, tangent)``::

    >>> import minitorch
    >>> import minitorch.autograd.forward_ad as fwAD
    >>> x = minitorch.tensor([1.0, 2.0])
    >>> with fwAD.dual_level():
    ...     y = fwAD.make_dual(x, minitorch.ones(2)) ** 2
    ...     fwAD.unpack_dual(y).tangent
    tensor([2., 4.])

How an op's tangent is found. PyTorch keeps a forward formula per op beside the backward one.
minitorch derives it from the backward it already has, by the *double backward trick*: an op's
backward computes ``g(u) = J^T u``, which is linear in ``u``; so ``<g(u), t>`` has gradient ``J t``
with respect to ``u``. One call of the op on inputs that require grad, one backward with
``create_graph=True`` for a dummy ``u``, one more backward: ``J t``, exact (no finite step), for
every op whose backward is itself differentiable. A custom ``Function`` gives its own rule as
``jvp(ctx, *tangents)``, as in PyTorch.

While a level is open, the step of ``Function.apply`` (the one entry point of every op) that wraps
the outputs as tensors is swapped for one that also computes their tangents (as ``minitorch.compile``'s
recorder swaps entry points while it records); the plain path knows nothing of it. Tangents live in a
table beside the tensors, keyed by the tensor, and are dropped when the level closes. One level at a
time, as in PyTorch.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

from .._tensor_base import TensorBase as Tensor  # isinstance and _make: the graph knows no Tensor methods
from . import _lent_ops, function as _function
from ._grad import grad as _grad
from .grad_mode import enable_grad

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

_current_level = -1
_tangents: dict = {}  # id(tensor) -> (weak reference to the tensor, its tangent), for the open level
_contexts: list = []  # the ctx of each custom Function call in progress (its jvp reads what forward stored)
_original_run_forward = _function.Function.__dict__["_run_forward"].__func__
_original_wrap_outputs = _function._wrap_outputs


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the values and the tangent (``None`` for a tensor with none)."""

    primal: Tensor
    tangent: Tensor | None


def enter_dual_level() -> int:
    """Open the forward-AD level (PyTorch supports one at a time); ``Function.apply`` starts tracking tangents."""
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level = 0
    _function._wrap_outputs = _wrap_outputs_with_tangents
    _function.Function._run_forward = classmethod(_run_forward_keeping_ctx)
    return _current_level


def exit_dual_level(*, level=None) -> None:
    """Close the level: every tangent made in it is dropped, and ``Function.apply`` is the plain one again."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    _tangents.clear()
    _contexts.clear()
    _function._wrap_outputs = _original_wrap_outputs
    _function.Function._run_forward = classmethod(_original_run_forward)
    _current_level = level - 1


class dual_level:  # noqa: N801 - PyTorch's name
    """``with dual_level():`` the block where dual tensors exist; their tangents are gone after it."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc_info):
        exit_dual_level()


def _set_tangent(tensor, tangent) -> None:
    key = id(tensor)
    _tangents[key] = (weakref.ref(tensor, lambda _, key=key: _tangents.pop(key, None)), tangent)


def _tangent_of(tensor):
    entry = _tangents.get(id(tensor))
    return entry[1] if entry is not None and entry[0]() is tensor else None


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` carrying ``tangent`` (used as it is when it is laid out like ``tensor``, else copied).

    Reverse mode sees the view as any other: gradients reach ``tensor`` through it."""
    if (_current_level if level is None else level) < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if _tangent_of(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           "level 0 is not supported.")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
            f"not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient is of size "
            f"{list(tangent.shape)}."
        )
    if tangent.stride() != tensor.stride():  # another layout: copied (contiguous, as a primal usually is)
        tangent = tangent.clone().contiguous()
    dual = tensor.view_as(tensor)
    _set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """``(primal, tangent)``: a view of ``tensor``'s values without tangent, and the tangent itself (or ``None``)."""
    if (_current_level if level is None else level) < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = _tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(tensor.view_as(tensor), tangent)


# -- what every op does while a level is open ---------------------------------------------------------------
def _run_forward_keeping_ctx(cls, ctx, inputs, device):
    """A custom Function's forward, its ``ctx`` kept for its ``jvp``."""
    _contexts.append(ctx)
    return _original_run_forward(cls, ctx, inputs, device)


def _wrap_outputs_with_tangents(cls, raw, device, args):
    """``Function.apply``'s step 3 (the outputs wrapped as tensors) and, when an input carries a tangent, the
    tangents of the outputs: by the Function's own ``jvp``, else by the double backward trick."""
    outputs = _original_wrap_outputs(cls, raw, device, args)
    ctx = _contexts.pop() if not cls._forward_takes_arrays and _contexts else None  # a custom Function's
    tangents = [_tangent_of(arg) if isinstance(arg, Tensor) else None for arg in args]
    if all(tangent is None for tangent in tangents):
        return outputs
    if cls.jvp is not _function.Function.jvp:  # the Function's own rule
        found = cls.jvp(ctx, *tangents)
        found = found if type(found) is tuple else (found,)
    elif cls._forward_takes_arrays or cls.__module__.startswith("minitorch."):  # minitorch's own ops
        found = _jvp_by_double_backward(cls, args, tangents)
    else:
        found = cls.jvp(ctx, *tangents)  # PyTorch's error: a custom Function needs its jvp for forward mode
    for output, tangent in zip(outputs if type(outputs) is tuple else (outputs,), found):
        if isinstance(output, Tensor) and tangent is not None and output.is_floating_point():
            _set_tangent(output, tangent)
    return outputs


def _jvp_by_double_backward(cls, args, tangents):
    """``J t`` of one call of ``cls`` at ``args``: the gradient, with respect to a dummy ``u``, of ``<J^T u, t>``."""
    # The same call on aliases of the inputs that carry tangents, recorded afresh (no tangents on them).
    aliases = [Tensor._make(arg._data, arg._device, requires_grad=True) if tangent is not None else arg
               for arg, tangent in zip(args, tangents)]
    with enable_grad():
        outputs = cls.apply(*aliases)
        outputs = outputs if type(outputs) is tuple else (outputs,)
        live = [i for i, output in enumerate(outputs) if isinstance(output, Tensor) and output.requires_grad]
        if not live:
            return ()
        dummies = [_lent_ops.zeros_like(outputs[i], requires_grad=True) for i in live]
        sources = [alias for alias, tangent in zip(aliases, tangents) if tangent is not None]
        pulled = _grad([outputs[i] for i in live], sources, dummies, create_graph=True, allow_unused=True)
        total = None
        for transposed, tangent in zip(pulled, [t for t in tangents if t is not None]):
            if transposed is not None and transposed.requires_grad:
                term = (transposed * tangent).sum()
                total = term if total is None else total + term
    found = [None] * len(outputs)
    pushed = _grad(total, dummies, allow_unused=True) if total is not None else [None] * len(live)
    for i, tangent in zip(live, pushed):
        found[i] = tangent.detach() if tangent is not None else _lent_ops.zeros_like(outputs[i])
    return found
