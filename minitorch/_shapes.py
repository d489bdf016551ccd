"""Shape rules every layer shares: wrapping a dimension index, broadcasting, expanding.

They sit at the bottom of the package, beside dtypes and devices, because the ``Tensor`` class,
the autograd engine (reducing a gradient to its input's shape) and the ops all need them, and
each rule must have one implementation and one error message, PyTorch's.

    >>> broadcast_shapes((2, 1, 4), (3, 1))
    (2, 3, 4)
    >>> wrap_dim(-1, 3)
    2
"""

from __future__ import annotations


def wrap_dim(dim: int, ndim: int) -> int:
    """A dimension index in ``[0, ndim)``; negative ones count from the end (0-d tensors accept 0 and -1)."""
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})")
    return dim + bound if dim < 0 else dim


def broadcast_shapes(*shapes) -> tuple:
    """The shape that ``shapes`` broadcast to, or PyTorch's error naming the sizes that clash.

    Align the shapes at their last dimension; in each dimension the sizes must be equal or 1,
    and the result takes the size that is not 1.
    """
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for offset, extent in enumerate(reversed(shape)):
            position = ndim - 1 - offset
            if result[position] == 1:
                result[position] = extent
            elif extent != 1 and extent != result[position]:
                raise RuntimeError(
                    f"The size of tensor a ({result[position]}) must match the size of tensor b ({extent}) "
                    f"at non-singleton dimension {position}"
                )
    return tuple(result)


def is_expandable(shape, target) -> bool:
    """Can a tensor of ``shape`` be broadcast to ``target`` (``expand``) without changing ``target``?"""
    return expand_mismatch(shape, target) is None


def expand_mismatch(shape, target) -> str | None:
    """PyTorch's message for the first dimension where ``shape`` cannot expand to ``target``, or None.

    The callers say themselves what PyTorch says when ``shape`` has more dimensions than
    ``target`` (the message differs between ``expand``, assignment and the layers).
    """
    if len(shape) > len(target):
        return f"the tensor has {len(shape)} dimensions, more than the {len(target)} of {list(target)}"
    leading = len(target) - len(shape)
    for axis, extent in enumerate(shape):
        wanted = target[leading + axis]
        if extent != 1 and extent != wanted and wanted != -1:  # -1 keeps the size (``expand``)
            return (
                f"The expanded size of the tensor ({wanted}) must match the existing size ({extent}) at non-singleton "
                f"dimension {leading + axis}.  Target sizes: {list(target)}.  Tensor sizes: {list(shape)}"
            )
    return None


def check_expandable(shape, target) -> None:
    """PyTorch's error when ``shape`` cannot be broadcast (expanded) to ``target``."""
    if len(shape) > len(target):
        raise RuntimeError(
            f"The expanded size of the tensor ({len(target)}) must be greater or equal to the number of dimensions in "
            f"the tensor ({len(shape)})"
        )
    mismatch = expand_mismatch(shape, target)
    if mismatch is not None:
        raise RuntimeError(mismatch)


def sizes_given(positional: tuple, keyword, name: str, function: str) -> tuple:
    """Sizes passed either as ``f(x, 2, 3)`` / ``f(x, (2, 3))`` or by PyTorch's keyword (``f(x, dims=(2, 3))``)."""
    if keyword is None:
        return positional
    if positional:
        raise TypeError(f"{function}() got multiple values for argument '{name}'")
    return (keyword,)


def shape_argument(args) -> tuple:
    """Sizes given as ``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])`` (or a Size) as one tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(int(a) for a in args)
