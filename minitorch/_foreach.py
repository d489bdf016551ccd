"""``torch._foreach_*``: one op applied to every tensor of a list (``_foreach_mul_(params, 0.9)``).

PyTorch's optimizers, and optimizers written outside it (Lion, Adan...), update all parameters with these:
on a GPU one kernel launch then serves a whole list of tensors instead of one launch per tensor. The
result is exactly that of the loop, which is what minitorch runs::

    _foreach_add_(params, updates, alpha=-lr)   ==   for p, u in zip(params, updates): p.add_(u, alpha=-lr)

Every name comes in two forms, as in PyTorch: ``_foreach_exp(tensors)`` returns a tuple of new tensors,
``_foreach_exp_(tensors)`` changes each tensor in place and returns the list. The second operand of a
binary op is one number, a list of numbers (one per tensor), a list of tensors, or (``add``, ``sub``,
``mul``, ``div``) one tensor for all; ``addcmul``/``addcdiv`` take a value or a list of them, ``lerp`` a
weight, a list of weights or a list of weight tensors. The families are generated from the tables below.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Number

from ._tensor import Tensor

# ops of one tensor: _foreach_exp(tensors) is (t.exp() for t in tensors)
UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
         "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin",
         "sinh", "sqrt", "tan", "tanh", "trunc")
# ops of a tensor and a second operand; add and sub also take alpha= with a tensor operand
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow", "clamp_min", "clamp_max")
# ops of a tensor and two lists of tensors, scaled by a value: self + value * t1 * t2 (or t1 / t2)
TERNARY = ("addcmul", "addcdiv")


def _check_lists(*lists) -> None:
    """PyTorch's checks: at least one tensor, and lists of equal length."""
    if len(lists[0]) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in lists[1:]:
        if len(other) != len(lists[0]):
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(lists[0])} "
                               f"and {len(other)}")


def _per_tensor(tensors, operand) -> list:
    """``operand`` as one item per tensor: a list is taken as it is (its length checked), anything else repeated."""
    if isinstance(operand, (list, tuple)):
        if len(operand) != len(tensors):
            if operand and isinstance(operand[0], Tensor):
                _check_lists(tensors, operand)
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(operand)
    return [operand] * len(tensors)


def _unary(name: str) -> tuple[Callable, Callable]:
    def out_of_place(self):
        _check_lists(self)
        return tuple(getattr(t, name)() for t in self)

    def in_place(self):
        _check_lists(self)
        for t in self:
            getattr(t, name + "_")()
        return self

    return out_of_place, in_place


def _alpha_options(name: str, alpha) -> dict:
    return {"alpha": alpha} if alpha != 1 and name in ("add", "sub") else {}


# maximum and minimum of a tensor and a number are clamps (Tensor.maximum takes tensors only); in place they are
# clamps always (PyTorch has no Tensor.maximum_)
_WITH_A_NUMBER = {"maximum": "clamp_min", "minimum": "clamp_max"}


def _method(name: str, operand) -> str:
    return name if isinstance(operand, Tensor) else _WITH_A_NUMBER.get(name, name)


def _binary(name: str) -> tuple[Callable, Callable]:
    def out_of_place(self, other, *, alpha=1):
        _check_lists(self)
        options = _alpha_options(name, alpha)
        return tuple(getattr(t, _method(name, o))(o, **options) for t, o in zip(self, _per_tensor(self, other)))

    def in_place(self, other, *, alpha=1):
        _check_lists(self)
        options = _alpha_options(name, alpha)
        for t, o in zip(self, _per_tensor(self, other)):
            getattr(t, _WITH_A_NUMBER.get(name, name) + "_")(o, **options)
        return self

    return out_of_place, in_place


def _values(self, value) -> list:
    """``addcmul``'s scale: a number, a list of numbers, or a 1-d tensor holding one number per tensor."""
    if isinstance(value, Tensor):
        value = value.tolist()
    return _per_tensor(self, value)


def _ternary(name: str) -> tuple[Callable, Callable]:
    def out_of_place(self, tensor1, tensor2, value=1):
        _check_lists(self, tensor1, tensor2)
        values = _values(self, value)
        return tuple(getattr(t, name)(a, b, value=v) for t, a, b, v in zip(self, tensor1, tensor2, values))

    def in_place(self, tensor1, tensor2, value=1):
        _check_lists(self, tensor1, tensor2)
        for t, a, b, v in zip(self, tensor1, tensor2, _values(self, value)):
            getattr(t, name + "_")(a, b, value=v)
        return self

    return out_of_place, in_place


def _foreach_lerp(self, tensors1, weight):
    """``self + weight * (tensors1 - self)`` per tensor; ``weight``: a number, a list of numbers or of tensors."""
    _check_lists(self, tensors1)
    return tuple(t.lerp(end, w) for t, end, w in zip(self, tensors1, _per_tensor(self, weight)))


def _foreach_lerp_(self, tensors1, weight):
    _check_lists(self, tensors1)
    for t, end, w in zip(self, tensors1, _per_tensor(self, weight)):
        t.lerp_(end, w)
    return self


def _foreach_pow(self, exponent):
    """``t ** exponent`` per tensor, or ``self ** t`` when ``self`` is a number (``_foreach_pow(2.0, tensors)``)."""
    if isinstance(self, Number):
        _check_lists(exponent)
        return tuple(t.new_full((), self).pow(t) for t in exponent)
    return _binary("pow")[0](self, exponent)


def _foreach_norm(self, ord=2, dtype=None):
    """The ``ord``-norm of each tensor, flattened: a tuple of 0-d tensors (``clip_grad_norm_``'s first step)."""
    _check_lists(self)
    return tuple((t if dtype is None else t.to(dtype)).norm(p=ord) for t in self)


def _foreach_max(self):
    """The largest element of each tensor."""
    _check_lists(self)
    return tuple(t.max() for t in self)


def _foreach_clone(self):
    return tuple(t.clone() for t in self)


def _foreach_copy_(self, src, non_blocking=False):
    _check_lists(self, src)
    for t, s in zip(self, src):
        t.copy_(s)
    return self


def _foreach_zero_(self):
    for t in self:
        t.zero_()
    return self


def _generated() -> dict:
    functions = {}
    for family, names in ((_unary, UNARY), (_binary, BINARY), (_ternary, TERNARY)):
        for name in names:
            out_of_place, in_place = family(name)
            for function, public in ((out_of_place, f"_foreach_{name}"), (in_place, f"_foreach_{name}_")):
                function.__name__ = function.__qualname__ = public
                result = "in place" if public.endswith("_") else "new tensors"
                function.__doc__ = f"``{name}`` applied to each tensor of a list ({result})."
                functions[public] = function
    pow_in_place = functions["_foreach_pow_"]
    functions.update(_foreach_pow=_foreach_pow, _foreach_pow_=pow_in_place)
    return functions


FOREACH = _generated() | {
    function.__name__: function
    for function in (_foreach_lerp, _foreach_lerp_, _foreach_norm, _foreach_max, _foreach_clone, _foreach_copy_,
                     _foreach_zero_)
}
