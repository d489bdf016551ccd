"""The ``meta`` device: tensors with a shape and a dtype but no data.

``torch.empty(1000, 1000, device="meta")`` costs no memory, and ops on meta tensors work out
the shape and dtype of their results without computing any values: a learner can ask what
shape a model's output has, or build a model too large for memory (``with torch.device("meta"):``)
and then give it real storage with ``Module.to_empty(device="cpu")``.

How: the meta device is one more backend (see ``_device.py``). Its array is a ``MetaArray``,
a NumPy array whose strides are all 0, so every element is the same single number in memory.
The ops run unchanged on it (they only ask for ``tensor._xp``): NumPy hands each operation
involving a ``MetaArray`` to ``__array_ufunc__`` / ``__array_function__`` below, which runs
it on the zero-stride stand-ins and keeps only the shape and dtype of the result. The values
inside are meaningless, so a learner cannot read them: moving to another device, ``item()``,
``tolist()`` and ``numpy()`` raise PyTorch's errors, and writes into a meta tensor (an in-place
op, an initialiser) change nothing. Random initialisers draw no random numbers, as in PyTorch.
The library's own argument checks that look at values (are the class labels in range?) see the
stand-in zeros and pass.

Elementwise ops, reductions and matrix products work out their result's shape and dtype from
the shapes alone (and one element of each dtype). One difference from PyTorch: any other op
(a convolution, a concatenation, an indexing) runs once on the zero stand-ins before only its
result's shape is kept, so on huge meta tensors it costs that op's time and memory once;
creating and moving meta tensors costs nothing.
"""

from __future__ import annotations

import numpy as np

from ._device import Backend, register_backend

__all__ = ["MetaArray", "meta_array", "MetaBackend", "COPY_OUT_MESSAGE"]

COPY_OUT_MESSAGE = "Cannot copy out of meta tensor; no data!"


def meta_array(shape, dtype) -> MetaArray:
    """A ``MetaArray`` of ``shape`` and ``dtype``: one element in memory, seen at every position."""
    # Writable, so code that checks before writing goes on; the writes themselves change nothing (below).
    shape = tuple(shape)
    single = np.zeros(1, dtype=dtype)
    return np.lib.stride_tricks.as_strided(single, shape, (0,) * len(shape), writeable=True).view(MetaArray)


def _plain(value):
    """A ``MetaArray`` as the plain zero-stride ndarray it views (so NumPy computes on it); others unchanged."""
    if isinstance(value, MetaArray):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item) for item in value)
    return value


def _as_meta(value):
    """What an operation returned, with every array (or NumPy number) replaced by a MetaArray of its shape."""
    if isinstance(value, np.ndarray):
        return meta_array(value.shape, value.dtype)
    if isinstance(value, np.generic):
        return meta_array((), value.dtype)
    if isinstance(value, tuple):
        return tuple(_as_meta(item) for item in value)
    if isinstance(value, list):
        return [_as_meta(item) for item in value]
    return value


def _one_of_each(operand):
    """A 0-d zero of ``operand``'s dtype (or the Python number itself): what NumPy's type rules need."""
    return np.zeros((), dtype=operand.dtype) if isinstance(operand, np.ndarray) else operand


def _elementwise_result(ufunc, inputs, kwargs):
    """An elementwise op's result, computed without touching the elements: the operands' broadcast
    shape, and the dtype the op gives on one element of each."""
    shape = np.broadcast_shapes(*(np.shape(operand) for operand in inputs))
    single = ufunc(*(_one_of_each(operand) for operand in inputs), **kwargs)
    if isinstance(single, tuple):  # ufuncs with two results (divmod, frexp)
        return tuple(meta_array(shape, np.asarray(part).dtype) for part in single)
    return meta_array(shape, np.asarray(single).dtype)


def _matmul_result(a, b, **kwargs):
    """``a @ b`` without multiplying: batch dimensions broadcast, ``(n, k) @ (k, m) -> (n, m)``, a 1-D
    operand counts as a row (on the left) or a column (on the right) that is then dropped."""
    left = (1,) + np.shape(a) if np.ndim(a) == 1 else np.shape(a)
    right = np.shape(b) + (1,) if np.ndim(b) == 1 else np.shape(b)
    if left[-1] != right[-2]:
        return _as_meta(np.matmul(np.zeros(left[-2:]), np.zeros(right[-2:])))  # NumPy's error
    shape = np.broadcast_shapes(left[:-2], right[:-2]) + (left[-2], right[-1])
    if np.ndim(b) == 1:
        shape = shape[:-1]
    if np.ndim(a) == 1:
        shape = shape[:-2] + shape[-1:] if np.ndim(b) != 1 else shape[:-1]
    dtype = np.matmul(np.zeros((1, 1), a.dtype), np.zeros((1, 1), b.dtype), **kwargs).dtype
    return meta_array(shape, dtype)


def _shrunk_for_reduction(operand, axis):
    """``operand`` with each reduced axis cut to length 1 (a reduction's result has the same shape either
    way), so reducing it touches only as many elements as the result has."""
    if not isinstance(operand, np.ndarray) or operand.ndim == 0:
        return operand
    axes = range(operand.ndim) if axis is None else np.atleast_1d(axis)
    index = [slice(None)] * operand.ndim
    for reduced in axes:
        if operand.shape[reduced] > 1:
            index[reduced] = slice(0, 1)
    return operand[tuple(index)]


class MetaArray(np.ndarray):
    """A NumPy array standing in for a meta tensor's data: shape and dtype only (all strides are 0)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.pop("out", None)
        if out is not None and any(isinstance(target, MetaArray) for target in out):
            return out[0] if len(out) == 1 else out  # a write into a meta array changes nothing
        if out is not None:
            kwargs["out"] = out
        inputs = _plain(inputs)
        with np.errstate(all="ignore"):  # the stand-in values are zeros: 0 / 0 and log(0) mean nothing here
            if out is None and method == "__call__" and ufunc is np.matmul:
                return _matmul_result(*inputs, **kwargs)
            if out is None and method == "__call__" and ufunc.signature is None:
                return _elementwise_result(ufunc, inputs, kwargs)
            if out is None and method == "reduce":
                inputs = (_shrunk_for_reduction(inputs[0], kwargs.get("axis", 0)),) + inputs[1:]
            return _as_meta(getattr(ufunc, method)(*inputs, **kwargs))

    def __array_function__(self, function, types, args, kwargs):
        if function in (np.copyto, np.put_along_axis, np.put, np.place, np.putmask) and isinstance(args[0], MetaArray):
            return None  # writes into a meta array change nothing
        kwargs = {key: _plain(value) for key, value in kwargs.items()}
        with np.errstate(all="ignore"):
            return _as_meta(function(*_plain(args), **kwargs))

    def __setitem__(self, index, value):
        """Writes into a meta array change nothing: there is no data to change."""

    def __getitem__(self, index):
        return _as_meta(self.view(np.ndarray)[_plain(index)])

    def tolist(self):
        raise NotImplementedError(COPY_OUT_MESSAGE)

    def item(self, *args):
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def copy(self, order="C"):
        return meta_array(self.shape, self.dtype)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return meta_array(self.shape, dtype)

    def reshape(self, *shape, order="C"):
        return _as_meta(self.view(np.ndarray).reshape(*shape, order=order))


class _MetaArrayModule:
    """NumPy, for the meta device: the functions that make arrays make MetaArrays (allocating nothing);
    every other name is NumPy's own, which hands MetaArray operands to ``MetaArray``'s protocols."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def _shape(shape):
        return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)

    def empty(self, shape, dtype=float, order="C", **kwargs):
        return meta_array(self._shape(shape), np.dtype(dtype))

    zeros = ones = empty

    def full(self, shape, fill_value, dtype=None, order="C", **kwargs):
        return meta_array(self._shape(shape), np.dtype(dtype) if dtype is not None else np.asarray(fill_value).dtype)

    def empty_like(self, prototype, dtype=None, order="K", subok=True, shape=None, **kwargs):
        shape = np.shape(prototype) if shape is None else self._shape(shape)
        return meta_array(shape, np.dtype(dtype) if dtype is not None else np.asarray(_plain(prototype)).dtype)

    zeros_like = ones_like = empty_like

    def full_like(self, prototype, fill_value, dtype=None, order="K", subok=True, shape=None, **kwargs):
        return self.empty_like(prototype, dtype, shape=shape)

    def asarray(self, value, dtype=None, **kwargs):
        if isinstance(value, MetaArray):
            return value if dtype is None else value.astype(dtype)
        return _as_meta(np.asarray(value, dtype=dtype, **kwargs))

    array = ascontiguousarray = asarray


META_NUMPY = _MetaArrayModule()


class MetaBackend(Backend):
    """The meta device: ``MetaArray``s; moving data onto it keeps the shape and dtype, moving off it fails."""

    array_module = META_NUMPY

    def to_device(self, array, index: int, blocking: bool = False):
        return meta_array(np.shape(array), array.dtype)

    def to_host(self, array, non_blocking: bool = False) -> np.ndarray:
        raise NotImplementedError(COPY_OUT_MESSAGE)


register_backend("meta", MetaBackend("meta"))
