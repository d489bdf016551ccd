"""Sparse COO tensors (``minitorch/_sparse_coo.py``, ``minitorch.sparse``) against PyTorch.

What a program observes must be PyTorch's: the layout, the COO table before and after ``coalesce``, the
print, ``to_dense``, products with dense matrices and the gradient they send to the dense operand, the
dtypes of mixed sums, the legacy ``torch.sparse.FloatTensor`` constructor and the errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from tests.corpus.compare import as_torch_names
from tests.support import require_torch

INDICES = [[0, 2, 1, 0], [1, 0, 2, 1]]  # (0, 1) twice: an uncoalesced table
VALUES = [1.5, -2.0, 3.0, 0.5]


def _observe(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 3))
        legacy = lib.sparse.FloatTensor(lib.tensor(INDICES), lib.tensor(VALUES), lib.Size([3, 4]))
    c = s.coalesce()
    dense = lib.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 7, requires_grad=True)
    product = lib.spmm(s, dense)
    (product * lib.tensor([1.0, -1.0, 2.0, 0.5])).sum().backward()
    from_dense = lib.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse()
    as_int = lib.sparse_coo_tensor(np.array(INDICES, dtype=np.int32), lib.ones(4), (3, 3), dtype=lib.int64)
    return {
        "layout": (str(s.layout), str(c.layout), str(product.layout), str(lib.ones(2).layout)),
        "is_sparse": (s.is_sparse, lib.ones(2).is_sparse, s.to_dense().is_sparse),
        "coalesced": (s.is_coalesced(), c.is_coalesced(), from_dense.is_coalesced()),
        "nnz": (s._nnz(), c._nnz(), from_dense._nnz()),
        "table": (c.indices().tolist(), c.values().tolist(), s._indices().tolist(), s._values().tolist(),
                  from_dense.indices().tolist(), from_dense.values().tolist()),
        "dims": (s.sparse_dim(), s.dense_dim(), s.shape, s.dim()),
        "dense": s.to_dense().tolist(),
        "print": (repr(s), repr(c), repr(from_dense), repr(as_int), repr(legacy)),
        "product": (product.tolist(), lib.sparse.mm(s, dense).tolist(), (s @ dense).tolist(),
                    lib.mm(s, dense).tolist()),
        "grad": dense.grad.tolist(),
        "mixed": ((lib.eye(3) + as_int).dtype, (lib.eye(3) + as_int).tolist(), as_int.dtype),
        "sum": lib.sum(lib.eye(3) + s, dim=1).tolist(),
    }


def test_sparse_coo_tensors_behave_as_pytorchs():
    torch = require_torch()
    mine, theirs = _observe(minitorch), _observe(torch)
    mine["print"] = tuple(as_torch_names(text) for text in mine["print"])
    mine["layout"] = tuple(as_torch_names(text) for text in mine["layout"])
    mine["mixed"] = (str(mine["mixed"][0]).replace("minitorch", "torch"),) + mine["mixed"][1:2] + (
        str(mine["mixed"][2]).replace("minitorch", "torch"),)
    theirs["mixed"] = (str(theirs["mixed"][0]),) + theirs["mixed"][1:2] + (str(theirs["mixed"][2]),)
    for key in theirs:
        if key in ("product", "grad", "sum"):
            np.testing.assert_allclose(np.array(mine[key]), np.array(theirs[key]), rtol=1e-6, err_msg=key)
        else:
            assert mine[key] == theirs[key], key


@pytest.mark.parametrize("call", [
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (2, 3), check_invariants=True),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES[:3]), (3, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 3)).indices(),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 3)).values(),
])
def test_errors_are_pytorchs(call):
    torch = require_torch()
    messages = []
    for lib in (minitorch, torch):
        with pytest.raises(RuntimeError) as caught:
            call(lib)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_a_graph_convolution_on_a_sparse_adjacency_trains_as_on_the_dense_one():
    """pygcn's layer: ``spmm(adj, x @ W)``; the weights' gradient equals the dense computation's (float64)."""
    rng = np.random.default_rng(0)
    adjacency = (rng.random((6, 6)) < 0.4) * rng.random((6, 6))
    features, weight = rng.normal(size=(6, 3)), rng.normal(size=(3, 2))
    grads = []
    for make_sparse in (True, False):
        w = minitorch.tensor(weight, requires_grad=True)
        a = minitorch.tensor(adjacency)
        a = a.to_sparse() if make_sparse else a
        minitorch.spmm(a, minitorch.tensor(features) @ w).tanh().sum().backward()
        grads.append(w.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
    torch = require_torch()
    w = torch.tensor(weight, requires_grad=True)
    torch.spmm(torch.tensor(adjacency).to_sparse(), torch.tensor(features) @ w).tanh().sum().backward()
    np.testing.assert_allclose(grads[0], w.grad.numpy(), rtol=1e-10)


def test_a_sparse_tensor_is_a_constant():
    with pytest.raises(RuntimeError, match="requires grad"):
        minitorch.ones(2, 2, requires_grad=True).to_sparse()
