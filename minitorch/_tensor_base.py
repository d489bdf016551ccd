"""What every layer below the Tensor class knows of a tensor: that it is one, and how to make one.

The core is read in layers (ARCHITECTURE.md): dtypes and devices; this module; the graph machinery
(``autograd/``: nodes, ``Function``, the engine); the ops (``ops/``); the ``Tensor`` class, which binds
the ops as methods (``_tensor.py``); the public face (``__init__.py``). A layer imports only the layers
below it, so the graph machinery and the ops cannot import ``Tensor`` itself. What they need of it is
here:

* ``TensorBase``, the class every ``minitorch.Tensor`` derives from (PyTorch has the same split,
  ``torch._C.TensorBase`` under ``torch.Tensor``): ``isinstance(x, TensorBase)`` asks "is x a tensor?";
  the fields (``_data``, ``_device``, autograd's ``_requires_grad``, ``grad_fn``...) are ``Tensor``'s slots;
* ``TensorBase._make(array, device)``, the fast internal constructor every op's output goes through:
  ``Tensor._make``, which ``_tensor.py`` registers (``register_tensor_class``) where it defines ``Tensor``,
  so a reader finds the constructor beside the fields it sets, and an op's output has all of Tensor's methods.

The graph machinery and the ops import ``TensorBase as Tensor``: in their code ``isinstance(x, Tensor)``
and ``Tensor._make(...)`` read as what they mean.
"""

from __future__ import annotations


class Size(tuple):
    """A tensor's shape: a tuple of ints (``torch.Size``)."""

    def numel(self) -> int:
        count = 1
        for extent in self:
            count *= extent
        return count

    def __repr__(self) -> str:
        return f"minitorch.Size({list(self)})"

    def __getitem__(self, index):
        result = tuple.__getitem__(self, index)
        return Size(result) if isinstance(index, slice) else result

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


# A new tensor's version counter: a fresh ``[0]`` (``[0].copy`` is one C call). Inside ``inference_mode`` it is
# grad_mode's ``InferenceVersionCounter``, which marks the tensor as an inference tensor.
new_version_counter = [0].copy


class TensorBase:
    """What the layers below ``_tensor.py`` know of ``minitorch.Tensor``: the class to ask ``isinstance`` of, and
    ``_make``. The fields, ``_make`` and the methods are ``Tensor``'s, in ``_tensor.py``."""

    __slots__ = ()
    # ``TensorBase._make(array, device)``: ``Tensor._make``, the internal constructor every op's output goes through
    # (wrap an array without copying it). ``_tensor.py`` registers it as it defines ``Tensor``.
    _make = None


def register_tensor_class(cls) -> None:
    """Make ``cls._make`` (``minitorch.Tensor``'s) what the layers below it call as ``TensorBase._make``."""
    TensorBase._make = cls.__dict__["_make"]
