"""Chapter 1's pieces of the learner's library: a strided tensor on flat storage, broadcasting, kernels.

Three things live here, all public (learner-side) code:

* the **reports** the chapter's checks compare: each runs a fixed chain of operations on a tensor class
  (the learner's, or minitorch's below) and returns what PyTorch would show at each step (``.shape``,
  ``.stride()``, ``.storage_offset()``, ``.is_contiguous()``, the values), as arrays. The notebook's
  check functions and the exercises' references call the same report, so the two cannot drift apart;
* **minitorch's equivalents** of the pieces, used when a learner's piece is blank: a strided tensor whose
  every answer comes from a ``minitorch.Tensor`` viewing the same storage (its ``stride()``, its
  ``data_ptr()`` for the storage offset, its ``permute``/``view``/``expand``/``contiguous``), and kernels
  that run on minitorch's views;
* the **registrations**, one line per piece, at the end (chapter 1's GPU kernel among them: its stand-in, report and
  minitorch's equivalent are in ``elementwise.py``).

A strided tensor here has ``storage`` (a 1-D NumPy array), ``shape`` and ``strides`` (tuples of ints, in
elements) and ``offset`` (the storage offset, in elements): the element at ``index`` sits at
``storage[offset + sum(index[d] * strides[d])]``.
"""

from __future__ import annotations

import math
import re

import numpy as np

import minitorch
from grading.library import piece
from grading.library.elementwise import minitorch_bias_gelu

VIEW_ERROR = (
    "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
    "contiguous subspaces). Use .reshape(...) instead."
)


def _ints(values) -> tuple[int, ...]:
    return tuple(int(value) for value in np.asarray(values).reshape(-1).tolist())


# -- minitorch's strided tensor ------------------------------------------------------------------------------
class MinitorchStridedTensor:
    """The strided-tensor interface answered by minitorch: a ``minitorch.Tensor`` viewing ``storage``.

    Same constructor and methods as the learner's ``StridedTensor``; each answer is read from minitorch
    (``stride()``, ``is_contiguous()``, ``data_ptr()`` against the storage's for the offset).
    """

    def __init__(self, storage, shape, strides=None, offset=0, *, _tensor=None):
        self.storage = storage
        if _tensor is None:
            shape = _ints(shape)
            strides = _ints(strides) if strides is not None else _contiguous_strides(shape)
            _tensor = minitorch.from_numpy(_as_strided(storage, shape, strides, int(offset)))
        self.tensor = _tensor
        self.shape = tuple(_tensor.shape)
        self.strides = tuple(_tensor.stride())
        itemsize = storage.itemsize
        start = minitorch.from_numpy(storage).data_ptr()
        self.offset = (_tensor.data_ptr() - start) // itemsize if _tensor.numel() else 0

    def _like(self, tensor, storage=None):
        return MinitorchStridedTensor(self.storage if storage is None else storage, None, _tensor=tensor)

    def position(self, index) -> int:
        return self.offset + sum(int(i) * s for i, s in zip(index, self.strides))

    def index(self, position) -> tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(int(position) - self.offset, self.shape))

    def positions(self) -> np.ndarray:
        every = np.arange(self.storage.size)
        return _as_strided(every, self.shape, self.strides, self.offset).copy()

    def numpy(self) -> np.ndarray:
        return self.storage[self.positions()]

    def is_contiguous(self) -> bool:
        return bool(self.tensor.is_contiguous())

    def permute(self, *dims):
        return self._like(self.tensor.permute(*dims))

    def transpose(self, dim0, dim1):
        return self._like(self.tensor.transpose(dim0, dim1))

    def __getitem__(self, slices):
        return self._like(self.tensor[slices])

    def expand(self, *sizes):
        return self._like(self.tensor.expand(*sizes))

    def as_strided(self, shape, strides, offset):
        return MinitorchStridedTensor(self.storage, shape, strides, offset)

    def view(self, *shape):
        return self._like(self.tensor.view(*shape))

    def contiguous(self):
        result = self.tensor.contiguous()
        if result.data_ptr() == self.tensor.data_ptr():
            return self
        storage = result.numpy().reshape(-1)
        return MinitorchStridedTensor(storage, result.shape)


def _contiguous_strides(shape) -> tuple[int, ...]:
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def _as_strided(array, shape, strides, offset):
    itemsize = array.itemsize
    return np.lib.stride_tricks.as_strided(array[offset:], tuple(shape), tuple(s * itemsize for s in strides))


# -- minitorch's broadcasting -----------------------------------------------------------------------------
def minitorch_broadcast_shapes(shape_a, shape_b) -> tuple[int, ...]:
    """minitorch.broadcast_shapes (PyTorch's error when the shapes do not broadcast)."""
    return tuple(minitorch.broadcast_shapes(tuple(shape_a), tuple(shape_b)))


def minitorch_broadcast_index(index, big_shape, shape) -> tuple[int, ...]:
    """The index of ``shape`` read at ``index`` of ``big_shape``: minitorch's expand of an arange, read back."""
    ordinals = minitorch.arange(max(math.prod(shape), 1)).reshape(tuple(shape)).expand(tuple(big_shape))
    return tuple(int(i) for i in np.unravel_index(int(ordinals[tuple(index)].item()), tuple(shape)))


# -- minitorch's kernels ------------------------------------------------------------------------------------
def _minitorch_view(tensor):
    return minitorch.from_numpy(_as_strided(tensor.storage, tensor.shape, tensor.strides, tensor.offset))


def minitorch_map(fn, out, a) -> None:
    """out[i] = fn(a[i]): minitorch's views of both storages, broadcasting a to out's shape."""
    result = fn(_minitorch_view(a).expand(tuple(out.shape)).numpy())
    _minitorch_view(out).copy_(minitorch.from_numpy(np.asarray(result, dtype=out.storage.dtype)))


def minitorch_zip(fn, out, a, b) -> None:
    """out[i] = fn(a[i], b[i]), a and b broadcast to out's shape by minitorch's expand."""
    shape = tuple(out.shape)
    result = fn(_minitorch_view(a).expand(shape).numpy(), _minitorch_view(b).expand(shape).numpy())
    _minitorch_view(out).copy_(minitorch.from_numpy(np.asarray(result, dtype=out.storage.dtype)))


def minitorch_reduce(fn, out, a, dim) -> None:
    """out (a's shape with size 1 at dim) = fn over dim of a, starting from out's values."""
    values = _minitorch_view(a).numpy()
    start = _minitorch_view(out).numpy()
    result = fn(start, fn.reduce(values, axis=int(dim), keepdims=True))
    _minitorch_view(out).copy_(minitorch.from_numpy(np.asarray(result, dtype=out.storage.dtype)))


def minitorch_matmul(a, b, block_size):
    """a @ b with minitorch.matmul on views of their storages: a new contiguous tensor."""
    product = minitorch.matmul(_minitorch_view(a), _minitorch_view(b)).numpy()
    return MinitorchStridedTensor(np.ascontiguousarray(product).reshape(-1), product.shape)


# -- the reports the checks compare ---------------------------------------------------------------------------
VIEWS_OUTPUTS = tuple(
    [
        "contiguous strides of the new tensor",
        "is_contiguous() of the new tensor",
        "position(index) of every index, in row-major order",
        "index(position) of every position (back from position to index)",
    ]
    + [
        f"{what} after {step}"
        for step in ("permute", "slicing", "transpose", "as_strided", "expand")
        for what in ("shape", "strides", "storage offset", "is_contiguous()", "values (read through positions())")
    ]
)


def _stride_report(tensor) -> np.ndarray:
    """Strides as PyTorch shows them, except that a dimension of size 1 reports 0: it is never stepped
    along, and PyTorch and NumPy choose different strides for it."""
    return np.array([s if n != 1 else 0 for n, s in zip(tensor.shape, tensor.strides)], dtype=np.int64)


def _describe(tensor) -> list[np.ndarray]:
    return [
        np.array(tuple(tensor.shape), dtype=np.int64),
        _stride_report(tensor),
        np.int64(tensor.offset),
        np.bool_(tensor.is_contiguous()),
        np.asarray(tensor.storage[np.asarray(tensor.positions(), dtype=np.int64)], dtype=np.float64),
    ]


def views_report(tensor_class, storage, shape, perm, slices, as_shape, as_strides, as_offset, expand_shape):
    """A chain of views of ``storage``, and what each step shows (the outputs named in VIEWS_OUTPUTS).

    ``slices`` holds one row ``(start, stop, step)`` per dimension; ``expand_shape`` may use -1 (keep).
    """
    shape = _ints(shape)
    base = tensor_class(storage, shape)
    indices = list(np.ndindex(*shape))
    report = [
        np.array(base.strides, dtype=np.int64),
        np.bool_(base.is_contiguous()),
        np.array([base.position(index) for index in indices], dtype=np.int64),
        np.array([base.index(base.position(index)) for index in indices], dtype=np.int64),
    ]
    permuted = base.permute(*_ints(perm))
    rows = np.asarray(slices).reshape(-1, 3).tolist()
    sliced = permuted[tuple(slice(int(start), int(stop), int(step)) for start, stop, step in rows)]
    transposed = sliced.transpose(0, len(shape) - 1)
    strided = base.as_strided(_ints(as_shape), _ints(as_strides), int(as_offset))
    expanded = strided.expand(*_ints(expand_shape))
    for tensor in (permuted, sliced, transposed, strided, expanded):
        report += _describe(tensor)
    return tuple(report)


VIEW_OUTPUTS = (
    "view of the strided tensor: 1 made, 0 refused with PyTorch's RuntimeError, -1 another error or message",
    "strides of that view (0 where refused)",
    "storage offset of that view",
    "values of that view",
    "contiguous() of a contiguous tensor returns it (the same storage, no copy)",
    "is_contiguous() after contiguous()",
    "strides after contiguous()",
    "storage offset after contiguous()",
    "values after contiguous()",
    "strides of the contiguous copy's view",
    "values of the contiguous copy's view",
)


def view_report(tensor_class, storage, shape, perm, as_offset, view_shape):
    """``view`` and ``contiguous`` on a permuted view of ``storage`` (outputs named in VIEW_OUTPUTS)."""
    shape, view_shape = _ints(shape), _ints(view_shape)
    base = tensor_class(storage, shape).as_strided(shape, _contiguous_strides(shape), int(as_offset))
    permuted = base.permute(*_ints(perm))
    try:
        view = permuted.view(*view_shape)
        made, view_strides, view_offset = 1, _stride_report(view), view.offset
        view_values = np.asarray(view.storage[view.positions()], dtype=np.float64)
    except NotImplementedError:
        raise  # a blank piece: the check says "not implemented yet"
    except Exception as error:  # noqa: BLE001 - which error, and its text, are part of the answer
        made = 0 if isinstance(error, RuntimeError) and str(error) == VIEW_ERROR else -1
        view_strides, view_offset = np.zeros(len(view_shape), dtype=np.int64), -1
        view_values = np.zeros(view_shape, dtype=np.float64)
    copy = permuted.contiguous()
    again = copy.contiguous()
    try:
        copy_view = copy.view(*view_shape)
        copy_view_strides = _stride_report(copy_view)
        copy_view_values = np.asarray(copy_view.storage[copy_view.positions()], dtype=np.float64)
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - a copy that is not contiguous: the outputs before say so
        copy_view_strides = np.zeros(len(view_shape), dtype=np.int64)
        copy_view_values = np.zeros(view_shape, dtype=np.float64)
    return (
        np.int64(made),
        view_strides,
        np.int64(view_offset),
        view_values,
        np.bool_(again is copy or (again.storage is copy.storage and again.offset == copy.offset)),
        np.bool_(copy.is_contiguous()),
        _stride_report(copy),
        np.int64(copy.offset),
        np.asarray(copy.storage[copy.positions()], dtype=np.float64),
        copy_view_strides,
        copy_view_values,
    )


BROADCAST_OUTPUTS = (
    "shapes that do not broadcast: 1 RuntimeError in PyTorch's words, 0 nothing raised, -1 another error",
    "the broadcast shape (empty when the shapes do not broadcast)",
    "the sizes and the dimension PyTorch's message names (size of a, size of b, dimension; -1 when none)",
    "broadcast_index into a, for every index of the broadcast shape",
    "broadcast_index into b, for every index of the broadcast shape",
)

BROADCAST_ERROR = re.compile(
    r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension (\d+)"
)


def broadcasting_report(broadcast_shapes, broadcast_index, shape_a, shape_b):
    """Broadcast two shapes and map every index of the result back into each (outputs in BROADCAST_OUTPUTS)."""
    shape_a, shape_b = _ints(shape_a), _ints(shape_b)
    named = np.full(3, -1, dtype=np.int64)
    empty = np.zeros((0,), dtype=np.int64)
    try:
        shape = tuple(int(n) for n in broadcast_shapes(shape_a, shape_b))
    except NotImplementedError:
        raise  # a blank piece: the check says "not implemented yet"
    except Exception as error:  # noqa: BLE001 - which error, and its words, are part of the answer
        match = BROADCAST_ERROR.fullmatch(str(error)) if isinstance(error, RuntimeError) else None
        if match is None:
            return np.int64(-1), empty, named, empty, empty
        return np.int64(1), empty, np.array([int(group) for group in match.groups()], dtype=np.int64), empty, empty
    indices = list(np.ndindex(*shape))
    into_a = np.array([_ints(broadcast_index(index, shape, shape_a)) for index in indices], dtype=np.int64)
    into_b = np.array([_ints(broadcast_index(index, shape, shape_b)) for index in indices], dtype=np.int64)
    return (
        np.int64(0), np.array(shape, dtype=np.int64), named,
        into_a.reshape(len(indices), len(shape_a)), into_b.reshape(len(indices), len(shape_b)),
    )


KERNEL_OUTPUTS = (
    "map: out = a * a, written into a transposed out",
    "zip: out = a + b, b broadcast",
    "zip: out = a * b, b broadcast",
    "reduce: sum over dim, folded into out's start value 0.5",
    "reduce: max over dim",
    "out's storage after map (each value at out's positions)",
)


def _strided_input(tensor_class, storage, shape, perm, offset):
    """A non-contiguous tensor: ``shape`` at ``offset`` of ``storage``, then permuted by ``perm``."""
    shape = _ints(shape)
    return tensor_class(storage, shape).as_strided(shape, _contiguous_strides(shape), int(offset)).permute(*_ints(perm))


def _fresh_out(tensor_class, shape, fill):
    """A new out tensor of ``shape`` that is not contiguous: a transposed view of fresh storage."""
    shape = tuple(shape)
    storage = np.full(max(math.prod(shape), 1), fill, dtype=np.float64)
    reversed_tensor = tensor_class(storage, shape[::-1])
    return reversed_tensor.permute(*range(len(shape) - 1, -1, -1))


VECTORISED_KERNEL_OUTPUTS = KERNEL_OUTPUTS + (
    "single elements read or written one at a time (a vectorised kernel reads and writes whole index arrays: 0)",
)


class CountingStorage(np.ndarray):
    """A storage (a NumPy array, sharing the memory) that counts the reads and writes of single elements
    (``storage[k]``, ``storage[k] = v``): a Python loop over elements makes one per element, a vectorised
    kernel none (``storage[positions]`` with an index array is one step)."""

    single_accesses = 0

    def __getitem__(self, key):
        if _single(key):
            CountingStorage.single_accesses += 1
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        if _single(key):
            CountingStorage.single_accesses += 1
        super().__setitem__(key, value)


def _single(key) -> bool:
    keys = key if isinstance(key, tuple) else (key,)
    return all(isinstance(part, (int, np.integer)) for part in keys)


def kernels_report(tensor_class, tensor_map, tensor_zip, tensor_reduce, a_storage, a_shape, a_perm, a_offset,
                   b_storage, b_shape, dim, *, vectorised=False):  # fmt: skip
    """Map, zip and reduce on strided inputs, written into strided outs (outputs named in KERNEL_OUTPUTS).

    ``tensor_class`` builds the inputs and the outs (minitorch's strided tensor in the checks, so a kernel is
    judged on its own); the values are read back through each out's positions. With ``vectorised``, the
    storages count single-element accesses (VECTORISED_KERNEL_OUTPUTS' last output).
    """
    a = _strided_input(tensor_class, np.asarray(a_storage, dtype=np.float64), a_shape, a_perm, a_offset)
    b = tensor_class(np.asarray(b_storage, dtype=np.float64), _ints(b_shape))
    shape = tuple(a.shape)
    dim = int(dim)
    reduced_shape = shape[:dim] + (1,) + shape[dim + 1 :]
    mapped, added, multiplied = (_fresh_out(tensor_class, shape, 0.0) for _ in range(3))
    # a sum starts from out's values (0.5 here, so that a kernel that ignores them is seen), a max from -inf
    summed, largest = _fresh_out(tensor_class, reduced_shape, 0.5), _fresh_out(tensor_class, reduced_shape, -np.inf)
    tensors = (a, b, mapped, added, multiplied, summed, largest)
    if vectorised:
        for tensor in tensors:
            tensor.storage = tensor.storage.view(CountingStorage)
    CountingStorage.single_accesses = 0
    tensor_map(np.square, mapped, a)
    tensor_zip(np.add, added, a, b)
    tensor_zip(np.multiply, multiplied, a, b)
    tensor_reduce(np.add, summed, a, dim)
    tensor_reduce(np.maximum, largest, a, dim)
    singles = CountingStorage.single_accesses
    for tensor in tensors:
        tensor.storage = np.asarray(tensor.storage).view(np.ndarray)

    def read(out):
        return np.asarray(out.storage[out.positions()], dtype=np.float64)

    report = (read(mapped), read(added), read(multiplied), read(summed), read(largest), np.array(mapped.storage))
    return report + (np.int64(singles),) if vectorised else report


MATMUL_OUTPUTS = ("the product's shape", "the product's strides (a new contiguous tensor)", "the product's values")


def matmul_report(tensor_class, matmul_blocks, a_storage, a_shape, transpose_a, b_storage, b_shape, block_size):
    """``a @ b`` by blocks; ``a`` is transposed first (a strided view) when ``transpose_a`` is 1."""
    a_shape, b_shape = _ints(a_shape), _ints(b_shape)
    a = tensor_class(np.asarray(a_storage, dtype=np.float64), a_shape)
    if int(transpose_a):
        a = a.transpose(0, 1)
    b = tensor_class(np.asarray(b_storage, dtype=np.float64), b_shape)
    product = matmul_blocks(a, b, int(block_size))
    values = np.asarray(product.storage[product.positions()], dtype=np.float64)
    return np.array(tuple(product.shape), dtype=np.int64), _stride_report(product), values


# -- the pieces -----------------------------------------------------------------------------------------------
def _strided_tensor():
    return MinitorchStridedTensor


def _returns(value):
    return lambda: value


piece("StridedTensor", chapter="01_tensors", cells=("ch01-strided",),
      checks={"ch01.strided_views": "strided_views_report", "ch01.view_and_contiguous": "view_and_contiguous_report"},
      fallback=_strided_tensor)  # fmt: skip
piece("broadcast_shapes", chapter="01_tensors", cells=("ch01-broadcast",),
      checks={"ch01.broadcasting": "broadcasting_report_of_mine"},
      fallback=_returns(minitorch_broadcast_shapes))  # fmt: skip
piece("broadcast_index", chapter="01_tensors", cells=("ch01-broadcast",),
      checks={"ch01.broadcasting": "broadcasting_report_of_mine"},
      fallback=_returns(minitorch_broadcast_index))  # fmt: skip
_KERNELS = (("tensor_map", minitorch_map), ("tensor_zip", minitorch_zip), ("tensor_reduce", minitorch_reduce))
for _name, _fallback in _KERNELS:
    piece(_name, chapter="01_tensors", cells=("ch01-broadcast", "ch01-kernels-fast"),
          checks={"ch01.kernels_vectorised": "kernels_vectorised_report"}, fallback=_returns(_fallback))  # fmt: skip
piece("matmul_blocks", chapter="01_tensors", cells=("ch01-matmul",),
      checks={"ch01.block_matmul": "block_matmul_report"}, fallback=_returns(minitorch_matmul))  # fmt: skip
# the chapter's GPU kernel (grading/library/elementwise.py): used where a later cell has a GPU; without one it is
# listed as built and checked, and the stand-in that checked it is all that runs it
piece("bias_gelu_kernel", chapter="01_tensors", cells=("ch01-gpu-kernel",),
      checks={"ch01.gpu_kernel": "gpu_kernel_report"}, fallback=_returns(minitorch_bias_gelu))  # fmt: skip
