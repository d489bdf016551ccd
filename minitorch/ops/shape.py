"""Shape ops: the same numbers arranged differently (reshape, view, permute, cat, split...).

Most return *views* that share memory with their input (as NumPy's do); their backward
rearranges the gradient the opposite way: ``reshape`` reshapes it back, ``permute``
applies the inverse permutation, ``expand`` sums over the broadcast dimensions.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.function import Op
from ._util import array_module, shape_argument


def _infer_size(shape, numel: int) -> tuple:
    """Resolve one ``-1`` in ``shape`` and check the element count, with PyTorch's messages."""
    shape = list(shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for i, s in enumerate(shape):
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[unknown[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


class Reshape(Op):
    """``y = x`` with a new shape (a view when the layout allows, else a copy);  ``dx = grad.reshape(x.shape)``."""

    node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        return x.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape), None


class View(Reshape):
    """``y = x`` seen with a new shape, always sharing memory;  ``dx = grad.reshape(x.shape)``."""

    node_name = "ViewBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        view = x.view()
        try:
            view.shape = shape  # NumPy refuses (rather than copying) when strides don't allow it
        except AttributeError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                "across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        return view


def reshape(x: Tensor, *shape) -> Tensor:
    target = _infer_size(shape_argument(shape), x._data.size)
    if target == x._data.shape:
        return View.apply(x, target) if x._requires_grad else Tensor._make(x._data, x._device, version_counter=x._version_counter)
    return Reshape.apply(x, target)


def view(x: Tensor, *shape) -> Tensor:
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
        from .conversion import to

        return to(x, shape[0])  # view(dtype) is only supported for same-size dtypes in PyTorch; a cast is close
    return View.apply(x, _infer_size(shape_argument(shape), x._data.size))


class Expand(Op):
    """``y = x`` broadcast to a larger shape (a read-only view);  ``dx = grad`` summed back to ``x.shape``."""

    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        xp = array_module(x)
        return xp.broadcast_to(x, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.input_shape), None


def expand(x: Tensor, *sizes) -> Tensor:
    """Broadcast ``x`` to ``sizes`` without copying; ``-1`` keeps a dimension's size."""
    sizes = shape_argument(sizes)
    shape = x._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(shape)}}}, size=[{', '.join(map(str, sizes))}]): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    leading = len(sizes) - len(shape)
    target = list(sizes)
    for axis, extent in enumerate(shape):
        wanted = sizes[leading + axis]
        if wanted == -1:
            target[leading + axis] = extent
        elif extent != 1 and extent != wanted:
            raise RuntimeError(
                f"The expanded size of the tensor ({wanted}) must match the existing size ({extent}) at non-singleton "
                f"dimension {leading + axis}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}"
            )
    target = tuple(target)
    if target == shape:
        return x
    return Expand.apply(x, target)
