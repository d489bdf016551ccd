"""What every layer below the Tensor class knows of a tensor: its fields, and how to make one.

The core is read in layers (ARCHITECTURE.md): dtypes and devices; this module; the graph machinery
(``autograd/``: nodes, ``Function``, the engine); the ops (``ops/``); the ``Tensor`` class, which binds
the ops as methods (``_tensor.py``); the public face (``__init__.py``). A layer imports only the layers
below it, so the graph machinery and the ops cannot import ``Tensor`` itself. What they need of it is
here:

* ``TensorBase``, the class every ``minitorch.Tensor`` derives from (PyTorch has the same split,
  ``torch._C.TensorBase`` under ``torch.Tensor``): ``isinstance(x, TensorBase)`` asks "is x a tensor?";
  its slots are the fields (``_data``, ``_device``, autograd's ``_requires_grad``, ``grad_fn``...);
* ``TensorBase._make(array, device)``, the fast internal constructor every op's output goes through.
  It builds the class registered with ``register_tensor_class`` (``minitorch.Tensor``, which registers
  itself where it is defined), so an op's output has all of Tensor's methods.

The graph machinery and the ops import ``TensorBase as Tensor``: in their code ``isinstance(x, Tensor)``
and ``Tensor._make(...)`` read as what they mean.
"""

from __future__ import annotations

from ._device import CPU


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


# The class ``TensorBase._make`` builds: minitorch.Tensor, registered by minitorch/_tensor.py.
_tensor_class = None
# A new tensor's version counter: a fresh ``[0]`` (``[0].copy`` is one C call). Inside ``inference_mode`` it is
# grad_mode's ``InferenceVersionCounter``, which marks the tensor as an inference tensor.
new_version_counter = [0].copy


def register_tensor_class(cls) -> None:
    """Make ``cls`` (a subclass of ``TensorBase``) the class of every tensor an op makes."""
    global _tensor_class
    _tensor_class = cls


class TensorBase:
    """The fields of a tensor; ``minitorch.Tensor`` (``_tensor.py``) adds the methods."""

    # The fields. ``_init`` sets them (the one place, ``_make`` calls it); a view also gets ``_base_history`` and
    # ``_view_made_without_grad`` where it is made (autograd/function.py, ops/copy_slices.py).
    __slots__ = (
        "_data", "_device", "_requires_grad", "_grad", "grad_fn", "_output_nr", "_version_counter", "_base",
        "_base_history", "_view_made_without_grad", "_retains_grad", "_backward_hooks", "_post_accumulate_hooks",
        "_accumulator_ref", "__weakref__",
        "__dict__",  # a learner's own attributes (fastai's ``x.g = ...``), as a PyTorch tensor allows; empty until used
    )

    def _init(self, data, device, requires_grad=False, grad_fn=None, output_nr=0, version_counter=None):
        self._data = data  # the numbers: a NumPy array on the CPU, a CuPy array on a GPU
        self._device = device
        self._requires_grad = requires_grad
        self._grad = None
        self.grad_fn = grad_fn  # the node that made this tensor (None for a leaf)
        self._output_nr = output_nr  # which output of that node it is
        self._version_counter = version_counter if version_counter is not None else new_version_counter()  # [0]
        self._base = None  # a view's base; its history when the view's own was recorded: _base_history
        self._retains_grad, self._backward_hooks = False, None  # retain_grad() and tensor hooks (autograd/hooks.py)
        self._post_accumulate_hooks, self._accumulator_ref = None, None  # a leaf's hooks; its AccumulateGrad, weakly

    @classmethod
    def _make(cls, data, device=None, requires_grad=False, grad_fn=None, output_nr=0, version_counter=None):
        """Wrap an array without copying it: the internal constructor every op's output goes through."""
        self = object.__new__(_tensor_class)
        self._init(data, CPU if device is None else device, requires_grad, grad_fn, output_nr, version_counter)
        return self
