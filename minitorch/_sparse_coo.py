"""Sparse tensors in the COO layout: the positions (``indices``) and the numbers (``values``) of the nonzeros.

A graph's adjacency matrix is mostly zeros; PyTorch stores it as ``indices``, a ``(2, nnz)`` table of
(row, column) pairs, and ``values``, the ``nnz`` numbers found there (``torch.sparse_coo_tensor``,
``x.to_sparse()``). The same pair may appear twice until ``coalesce()`` sums the duplicates and sorts the
pairs. ``torch.sparse.mm(A, X)`` (``torch.spmm``, ``A @ X``) multiplies it with a dense matrix, and graph
networks (GCN, pygcn) do exactly that at every layer.

minitorch keeps what a learner can observe: ``layout`` is ``minitorch.sparse_coo``, ``is_sparse`` is true,
``indices()``, ``values()``, ``_nnz()``, ``coalesce()`` and ``to_dense()`` give PyTorch's results, and it
prints as PyTorch prints it. The arithmetic is dense: beside the COO table the tensor holds its dense
array (``_data``), so ``A @ X``, ``A + I`` and ``A.sum(1)`` run as the dense ops they equal, and their
results are dense tensors, as PyTorch's are for these ops. Two differences: an op that keeps the sparse
layout in PyTorch (``A * 2``, ``A.sum(dim)``) returns a dense tensor here, and a sparse tensor is a constant
(no gradient flows into its values; ``to_sparse`` of a tensor that requires grad is refused).
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _creation, _dtype
from ._memory_format import layout
from ._tensor_base import Size, TensorBase as Tensor

sparse_coo = layout("sparse_coo")


def _table(tensor) -> tuple:
    """The COO table ``(indices, values, coalesced)`` of a sparse tensor, or None for a dense one."""
    return getattr(tensor, "_coo", None)


def is_sparse(tensor) -> bool:
    return _table(tensor) is not None


def _make_sparse(indices, values, size, coalesced: bool, requires_grad: bool = False):
    """The sparse tensor of ``indices`` (int64 array ``(ndim, nnz)``) and ``values``: its dense array with the
    values summed in at their positions (duplicates add up, as ``to_dense`` does in PyTorch)."""
    dense = np.zeros(tuple(size), dtype=values.dtype)
    np.add.at(dense, tuple(indices), values)  # unbuffered: a repeated position adds each of its values
    result = Tensor._make(dense, requires_grad=requires_grad)
    result._coo = (indices, values, coalesced)
    return result


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with ``values[k]`` at position ``indices[:, k]``; ``size`` defaults to the smallest
    that holds every index."""
    indices_tensor = indices if isinstance(indices, Tensor) else _creation.tensor(indices)
    values_tensor = values if isinstance(values, Tensor) else _creation.tensor(values)
    if dtype is not None:
        values_tensor = _creation.tensor(values_tensor._data, dtype=dtype)
    index_array = indices_tensor._data.astype("int64")
    if index_array.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(index_array.shape)}")
    if index_array.shape[1] != values_tensor._data.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {index_array.shape[1]}, "
                           f"nnz from values: {values_tensor._data.shape[0]}")
    if size is None:
        size = tuple(int(m) + 1 for m in index_array.max(axis=1)) + tuple(values_tensor._data.shape[1:])
    for dim, extent in enumerate(size[: index_array.shape[0]]):
        if index_array.shape[1] and int(index_array[dim].max()) >= extent:
            raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is {extent} but found index "
                               f"{int(index_array[dim].max())}")
    return _make_sparse(index_array, values_tensor._data, Size(size), bool(is_coalesced), requires_grad)


def legacy_constructor(dtype):
    """``torch.sparse.FloatTensor(indices, values, size)``: the constructor PyTorch deprecated for
    ``sparse_coo_tensor``."""
    def construct(indices, values, size=None):
        warnings.warn("torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  Please use "
                      "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).", UserWarning, stacklevel=2)
        return sparse_coo_tensor(indices, values, size, dtype=dtype)

    construct.__name__ = f"{dtype.type_name}Tensor"
    return construct


def to_sparse(tensor):
    """``x.to_sparse()``: the nonzeros of a dense tensor as a coalesced COO tensor (row-major order)."""
    if is_sparse(tensor):
        return tensor
    if tensor._requires_grad:
        raise RuntimeError("minitorch's sparse tensors are constants: to_sparse() of a tensor that requires grad "
                           "is not supported (call .detach() first)")
    data = tensor._device.backend.to_host(tensor._data)
    indices = np.stack(np.nonzero(data)).astype(np.int64).reshape(data.ndim, -1)
    return _make_sparse(indices, data[tuple(indices)], tensor.shape, True)


def to_dense(tensor):
    """A new dense (strided) tensor with the same numbers."""
    return Tensor._make(tensor._data.copy(), tensor._device)


def coalesce(tensor):
    """The same tensor with each position once (duplicates summed), positions in row-major order."""
    indices, values, coalesced = _table(tensor)
    if coalesced:
        return tensor
    flat = np.ravel_multi_index(tuple(indices), tuple(tensor.shape[: indices.shape[0]]))
    unique, inverse = np.unique(flat, return_inverse=True)
    summed = np.zeros((len(unique),) + values.shape[1:], dtype=values.dtype)
    np.add.at(summed, inverse, values)
    table = np.stack(np.unravel_index(unique, tuple(tensor.shape[: indices.shape[0]]))).astype(np.int64)
    return _make_sparse(table.reshape(indices.shape[0], -1), summed, tensor.shape, True)


def indices(tensor, check_coalesced: bool = True):
    table = _table(tensor)
    if check_coalesced and not table[2]:
        raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
    return Tensor._make(table[0].copy())


def values(tensor, check_coalesced: bool = True):
    table = _table(tensor)
    if check_coalesced and not table[2]:
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
    return Tensor._make(table[1].copy())


def sparse_repr(tensor, tensor_repr) -> str:
    """PyTorch's print of a sparse tensor: its indices, values, size, nnz and layout."""
    indices_array, values_array, _ = _table(tensor)
    shown_indices = tensor_repr(Tensor._make(indices_array)).replace("\n", "\n" + " " * len("tensor(indices="))
    shown_values = tensor_repr(Tensor._make(values_array)).replace("\n", "\n" + " " * len("       values="))
    size = "(" + ", ".join(str(extent) for extent in tensor.shape) + ("," if len(tensor.shape) == 1 else "") + ")"
    dtype = _dtype.from_numpy_dtype(values_array.dtype)
    suffix = "" if dtype in (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool) else f", dtype={dtype}"
    return (f"tensor(indices={shown_indices},\n       values={shown_values},\n       size={size}, "
            f"nnz={indices_array.shape[1]}{suffix}, layout={sparse_coo})")
