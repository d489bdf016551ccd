"""``Variable``: the wrapper PyTorch had before 0.4, kept so that older code still runs.

Before PyTorch 0.4 a tensor could not record a graph: ``Variable(tensor, requires_grad=True)`` wrapped it
in something that could. Since then every tensor records its own graph, and ``Variable`` survives as a
name. Calling it returns a plain tensor that shares the data's memory, cut out of any graph (a leaf),
with ``requires_grad`` as asked; ``isinstance(x, Variable)`` is true for every tensor. Code written for
the old API (GAN zoos, older course notebooks) therefore runs unchanged. ``volatile=True``, the old
``no_grad``, is accepted and ignored with PyTorch's warning.
"""

from __future__ import annotations

import warnings

from .._tensor_base import TensorBase as Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor)

    def __call__(cls, data, requires_grad: bool = False, volatile: bool = False):
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and data._data.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        return Tensor._make(data._data, data._device, requires_grad=requires_grad,
                            version_counter=data._version_counter)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: ``data`` itself, as a leaf sharing its memory (see the module)."""
