"""Arithmetic on two Python numbers: ``torch.add(5, 5)`` is ``tensor(10)``.

PyTorch's ``add``, ``sub``/``subtract``, ``mul``/``multiply``, ``div``/``divide``/``true_divide`` and
``floor_divide`` accept a Python number where the tensor ``input`` goes even when ``other`` is a number
too: the first number becomes a zero-dimensional tensor (``int64`` for an int, the default dtype for a
float, ``bool`` for a bool) and the other stays a number, so the usual promotion gives the result's
dtype (``torch.add(5, 5.5)`` is a float32 ``tensor(10.5000)``). Other functions (``maximum``,
``pow``, ``atan2``...) refuse two numbers in PyTorch and here alike.

    >>> import minitorch
    >>> minitorch.add(1.5, 2.5)
    tensor(4.)
    >>> minitorch.mul(2, 3)
    tensor(6)
"""

from __future__ import annotations

import functools
import numbers

from ._creation import tensor


def accepts_two_numbers(function):
    """``function`` that, given two Python numbers, turns the first into a zero-dimensional tensor."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if len(args) >= 2 and isinstance(args[0], numbers.Number) and isinstance(args[1], numbers.Number):
            args = (tensor(args[0]),) + args[1:]
        elif isinstance(kwargs.get("input"), numbers.Number) and isinstance(
            args[0] if args else kwargs.get("other"), numbers.Number
        ):
            kwargs["input"] = tensor(kwargs["input"])
        return function(*args, **kwargs)

    return wrapper
