"""In-place writes through a view: ``h[0].mul_(2)``, ``h[:, t] += y``, ``h.t().relu_()``.

A view shares its base's memory, so writing through the view changes the base as well, and
autograd has to follow. After the write, the base holds "the old base, with the view's elements
replaced by ``op(old view elements, ...)``". minitorch records exactly that, as PyTorch does:

* the base gets a ``CopySlices`` node::

      new_base = old_base, with new_base.flat[positions] = op(old_base.flat[positions], ...)

  Backward: at the overwritten positions the base's gradient goes through the op's backward
  (to the old elements and to the op's other inputs); everywhere else it passes through unchanged.
* the view is read again from the new base through an ``AsStridedBackward0`` node, so what is
  computed from it later flows into the base's new history instead of its stale one.

Other views of the same base go stale too, and so do all of them when the base itself is written
in place. Each view remembers which history of its base its own history was read from
(``_base_history``); when an op receives a view whose base has moved on, ``refresh_view`` reads it
again from the base's current history first (``Function.apply`` checks). This is PyTorch's lazy
rule: nothing is done for views that are never used again.

``positions`` are the flat (row-major) indices into the base of each element of the view. They
come from the memory addresses of the two arrays, so any chain of views works (slices with steps,
transposes, diagonals, reshapes) without remembering how the view was made.
"""
from __future__ import annotations

import numpy as np

from .._tensor_base import TensorBase as Tensor  # isinstance and _make; the class sits above the ops
from ..autograd._lent_ops import lend_to_autograd
from ..autograd.function import Op
from ._util import _add_at, array_module


# -- where a view's elements sit in its base --------------------------------------------------------
def _start(array, xp) -> int:
    return array.__array_interface__["data"][0] if xp is np else array.data.ptr


def _addresses(array, xp):
    """The memory address of every element of ``array`` (an integer array of its shape)."""
    addresses = xp.full(array.shape, _start(array, xp), dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(array.shape, array.strides)):
        steps = xp.arange(size, dtype=np.int64) * stride
        addresses += steps.reshape((size,) + (1,) * (array.ndim - axis - 1))
    return addresses


def view_positions(view: Tensor):
    """Flat row-major indices into ``view._base`` of the view's elements, or ``None`` when the view's
    array does not live in the base's memory (an op marked as a view that had to copy)."""
    base_data, view_data = view._base._data, view._data
    if view_data.dtype != base_data.dtype or base_data.size == 0:
        return None
    xp = view._xp
    view_addresses = _addresses(view_data, xp)
    if base_data.flags.c_contiguous:  # the usual case: an element's position is its offset from the start
        offsets = view_addresses - _start(base_data, xp)
        positions = offsets // base_data.itemsize
        inside = (offsets >= 0) & (positions < base_data.size) & (offsets % base_data.itemsize == 0)
        return positions if bool(inside.all()) else None
    base_addresses = _addresses(base_data, xp).reshape(-1)
    order = xp.argsort(base_addresses)
    positions = order[xp.clip(xp.searchsorted(base_addresses[order], view_addresses), 0, base_data.size - 1)]
    return positions if bool((base_addresses[positions] == view_addresses).all()) else None


# -- the two nodes ----------------------------------------------------------------------------------
class AsStrided(Op):
    """``y = base.flat[positions]`` (a view's elements, read from its base);
    ``dbase = zeros with dbase.flat[positions] += grad``."""

    node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, base, positions):
        ctx.positions, ctx.base_shape = positions, base.shape
        return base.reshape(-1)[positions]

    @staticmethod
    def backward(ctx, grad):
        return ScatterIntoBase.apply(grad, ctx.positions, ctx.base_shape), None


class ScatterIntoBase(Op):
    """``y = zeros(base_shape)`` with ``y.flat[positions] += x`` (AsStrided's adjoint);
    ``dx = grad.flat[positions]``."""

    @staticmethod
    def forward(ctx, x, positions, base_shape):
        ctx.positions = positions
        result = array_module(x).zeros(int(np.prod(base_shape)), dtype=x.dtype)
        _add_at(result, (positions.reshape(-1),), x.reshape(-1))  # add: views may overlap (expand)
        return result.reshape(base_shape)

    @staticmethod
    def backward(ctx, grad):
        return AsStrided.apply(grad, ctx.positions), None, None


class CopySlices(Op):
    """``y = base`` with ``y.flat[positions] = new_values``;
    ``dbase = grad`` with ``dbase.flat[positions] = 0`` (those elements were replaced),
    ``dnew_values = grad.flat[positions]``."""

    node_name = "CopySlices"

    @staticmethod
    def forward(ctx, base, new_values, positions):
        ctx.positions = positions
        result = base.copy()  # row-major, so reshape(-1) below is a view of it
        result.reshape(-1)[positions] = new_values
        return result

    @staticmethod
    def backward(ctx, grad):
        grad_base = grad_new = None
        if ctx.needs_input_grad[0]:
            grad_base = CopySlices.apply(grad, 0.0, ctx.positions)
        if ctx.needs_input_grad[1]:
            grad_new = AsStrided.apply(grad, ctx.positions)
        return grad_base, grad_new, None


# -- the write --------------------------------------------------------------------------------------
_MULTI_OUTPUT_ADVICE = (
    "This view is the output of a function that returns multiple views. Such functions do not allow the output "
    "views to be modified inplace. You should replace the inplace operation by an out-of-place one."
)


def _multi_output_view_name(view: Tensor) -> str | None:
    """``"Split"`` when ``view`` is a piece returned by ``split`` (and so on), else None."""
    node = view.grad_fn
    if node is not None and node._forward_class.is_view and getattr(node, "_output_meta", None) is not None:
        return node._forward_class.__name__
    return None


def _check_view_may_be_written(view: Tensor, base: Tensor) -> None:
    """PyTorch's refusals, in its words."""
    if base._requires_grad and base.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if base._requires_grad and view._view_made_without_grad:
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
            "this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both "
            "the view and the inplace either both inside the no_grad block (if you don't want the inplace to be "
            "tracked) or both outside (if you want the inplace to be tracked)."
        )
    function = _multi_output_view_name(view)
    if function is not None:
        raise RuntimeError(f"Output {view._output_nr} of {function} is a view and is being modified inplace. "
                           + _MULTI_OUTPUT_ADVICE)  # fmt: skip


def _read_again(view: Tensor, positions) -> None:
    """``view``'s history: its elements read from its base's current history."""
    base = view._base
    reread = AsStrided.apply(base, positions)
    view.grad_fn, view._output_nr, view._requires_grad = reread.grad_fn, 0, reread._requires_grad
    view._base_history = base.grad_fn


@lend_to_autograd
def refresh_view(view: Tensor) -> None:
    """Bring a stale view's history up to date (module docstring); ``Function.apply`` calls it."""
    base = view._base
    function = _multi_output_view_name(view)
    if function is not None and base._requires_grad:
        raise RuntimeError(f"Output {view._output_nr} of {function} is a view and its base or another view of its "
                           "base has been modified inplace. " + _MULTI_OUTPUT_ADVICE)  # fmt: skip
    positions = view_positions(view)
    if positions is None or not base._requires_grad:
        view._base_history = base.grad_fn  # nothing to follow
        return
    _read_again(view, positions)


def write_through_view(view: Tensor, positions, compute, others: tuple, store) -> Tensor:
    """``view`` overwritten with ``compute(view, *others)``, and the base's history rewritten (module docstring).

    ``store(view, result)`` checks and writes ``result`` into the view's memory and returns it in the
    view's dtype (``ops/inplace.py`` owns those checks).
    """
    base = view._base
    if view._base_history is not base.grad_fn and not view._view_made_without_grad:
        refresh_view(view)
    _check_view_may_be_written(view, base)
    # The base's memory with its history so far: the two nodes below save none of its values, and
    # the old elements are read (copied) before the write.
    old_base = Tensor._make(base._data, base._device, requires_grad=base._requires_grad, grad_fn=base.grad_fn,
                            output_nr=base._output_nr)  # fmt: skip
    old_view = AsStrided.apply(old_base, positions)
    new_view = store(view, compute(old_view, *others))
    new_base = CopySlices.apply(old_base, new_view, positions)
    if not new_base._requires_grad:  # nothing differentiable was written (integer data)
        return view
    base.grad_fn, base._output_nr, base._requires_grad = new_base.grad_fn, 0, True
    _read_again(view, positions)  # the other views of the base are read again when next used
    return view
