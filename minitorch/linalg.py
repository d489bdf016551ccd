"""``minitorch.linalg``: the ``torch.linalg`` names of the linear-algebra ops.

Nothing is computed here: each function is the op from ``minitorch/ops/`` under the name
and defaults ``torch.linalg`` gives it (``linalg.inv`` is ``inverse``; ``linalg.cross`` and
``linalg.diagonal`` work on the *last* dimensions by default). Most matrix norms are sums
and maxima of absolute values, so their gradients come from ``abs``, ``sum`` and ``amax``;
the spectral ones (``2``, ``-2``, ``'nuc'``) come from the singular values (``svdvals``).

    >>> import minitorch
    >>> minitorch.linalg.inv(minitorch.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
"""

from __future__ import annotations

from . import _dtype, return_types as _return_types
from ._arguments import public as _public
from ._tensor import Tensor
from .ops import linalg as _linalg, reduction as _reduction
from .ops._util import wrap_dim as _wrap_dim

matmul = _public(_linalg.matmul)

# Each function takes its tensors as the torch namespace does: a list where a tensor goes gets PyTorch's TypeError.
det = _public(_linalg.det)
eigh = _public(_linalg.eigh)
eigvalsh = _public(_linalg.eigvalsh)
matrix_exp = _public(_linalg.matrix_exp)
matrix_power = _public(_linalg.matrix_power)
matrix_rank = _public(_linalg.matrix_rank)
pinv = _public(_linalg.pinv)
solve = _public(_linalg.solve)
svdvals = _public(_linalg.svdvals)

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_exp", "matrix_norm",
    "matrix_power", "matrix_rank", "norm", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "vector_norm",
    "lstsq", "multi_dot", "vecdot",
]


@_public
def inv(A: Tensor) -> Tensor:
    """The inverse of each square matrix in ``A``."""
    return _linalg.inverse(A)


@_public
def qr(A: Tensor, mode: str = "reduced"):
    """``(Q, R)`` with ``A = QR``, ``Q`` with orthonormal columns and ``R`` upper triangular."""
    return _linalg.linalg_qr(A, mode)


@_public
def svd(A: Tensor, full_matrices: bool = True):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh`` (``Vh``, the transpose of ``torch.svd``'s ``V``)."""
    return _linalg.linalg_svd(A, full_matrices)


@_public
def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """``L`` with ``A = L L^T`` for symmetric positive-definite ``A`` (``L^T`` when ``upper``)."""
    return _linalg.linalg_cholesky(A, upper=upper)


@_public
def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (the last dimension by default)."""
    return _linalg.linalg_cross(input, other, dim=dim)


@_public
def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of the matrices in ``A`` (the last two dimensions by default), as a view."""
    return _linalg.diagonal(A, offset, dim1, dim2)


@_public
def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``(sum |x_i|^ord)^(1/ord)`` over ``dim`` (all elements by default); ``ord`` may be ``inf``, ``-inf`` or 0."""
    return _reduction.norm(x, ord, dim, keepdim, dtype)


@_public
def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """A norm of each matrix in ``A`` (dimensions ``dim``):

    * ``'fro'``: ``sqrt(sum a_ij^2)``, the 2-norm of all entries;
    * ``1`` / ``-1``: the largest / smallest column sum of ``|a_ij|``;
    * ``inf`` / ``-inf``: the largest / smallest row sum of ``|a_ij|``;
    * ``2`` / ``-2``: the largest / smallest singular value; ``'nuc'``: their sum (gradients through ``svdvals``).
    """
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    spectral = ord in (2, -2, "nuc")
    supported = ord in ("fro", "nuc") if isinstance(ord, str) else ord in (1, -1, 2, -2, float("inf"), float("-inf"))
    if not supported:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    rows, columns = (_wrap_dim(d, A._data.ndim) for d in dim)
    if ord == "fro":
        return _reduction.norm(A, 2, (rows, columns), keepdim, dtype)
    if dtype is not None:
        A = A.to(dtype)
    if spectral:
        if rows == columns:
            raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
        _linalg._check_matrices(A, "linalg.matrix_norm")
        values = svdvals(A.movedim((rows, columns), (-2, -1)))
        result = values.sum(-1) if ord == "nuc" else (_reduction.amax if ord > 0 else _reduction.amin)(values, -1)
        if keepdim:
            for axis in sorted((rows, columns)):
                result = result.unsqueeze(axis)
        return result
    summed_over, then_extreme = (rows, columns) if abs(ord) == 1 else (columns, rows)
    sums = A.abs().sum(summed_over, keepdim=True)
    extreme = (_reduction.amax if ord > 0 else _reduction.amin)(sums, then_extreme, keepdim=True)
    return extreme if keepdim else extreme.squeeze((rows, columns))


@_public
def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``vector_norm`` or ``matrix_norm``, as ``torch.linalg.norm`` chooses: with ``dim`` of two dimensions (or a
    2-D ``A`` and an ``ord``) a matrix norm, otherwise a vector norm (of all elements when both are None)."""
    if dim is None and ord is not None:
        if A._data.ndim not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A._data.ndim}D."
            )
        dim = tuple(range(A._data.ndim))
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


# -- least squares and products of several matrices ------------------------------------------------------------
_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@_public
def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    """The ``X`` minimising ``||A X - B||``, with LAPACK's by-products as PyTorch reports them per driver.

    ``solution = pinv(A) @ B`` (the minimum-norm least-squares solution, differentiable through ``pinv``).
    ``rank`` is reported by the rank-revealing drivers (``gelsy``, the CPU default, ``gelsd``, ``gelss``),
    ``singular_values`` by the SVD drivers (``gelsd``, ``gelss``), and ``residuals`` (the squared error
    of each column) when ``A`` has more rows than columns and full rank, except by ``gelsy``; what a
    driver does not report is an empty tensor, as in PyTorch.
    """
    driver = "gelsy" if driver is None else driver
    if driver not in _LSTSQ_DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.dim() == A.dim() - 1
    rhs = B.unsqueeze(-1) if vector else B
    solution = matmul(pinv(A), rhs)
    rows, columns = A.shape[-2], A.shape[-1]
    rank = matrix_rank(A) if driver != "gels" else A.new_empty((0,), dtype=_dtype.int64)
    singular_values = svdvals(A) if driver in ("gelsd", "gelss") else A.new_empty((0,))
    full_rank = bool((matrix_rank(A) == min(rows, columns)).all())
    if rows > columns and full_rank and driver != "gelsy":
        residuals = (matmul(A, solution) - rhs).pow(2).sum(-2)  # a vector B keeps one residual per system
    else:
        residuals = A.new_empty((0,))
    return _return_types.linalg_lstsq(solution.squeeze(-1) if vector else solution, residuals, rank, singular_values)


def multi_dot(tensors) -> Tensor:
    """``tensors[0] @ tensors[1] @ ...``; a 1-D first (last) tensor is a row (column) vector, as in PyTorch."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    result = tensors[0]
    for tensor in tensors[1:]:
        result = matmul(result, tensor)
    return result


@_public
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of ``x`` and ``y`` along ``dim`` (with broadcasting): ``sum(x * y, dim)``."""
    return _reduction.sum(x * y, dim)


@_public
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """``X`` with ``A X = input`` for ``A = L L^T``, ``L = input2`` (``upper=True``: ``A = U^T U``).

    ``torch.cholesky_solve`` (the torch namespace, not ``torch.linalg``; PyTorch's parameter names): the
    system is rebuilt from the factor and solved (``solve``), differentiable in both arguments.
    """
    factor = input2
    A = matmul(factor.mT, factor) if upper else matmul(factor, factor.mT)
    return solve(A, input)


def chain_matmul(*matrices) -> Tensor:
    """``torch.chain_matmul``, PyTorch's deprecated spelling of ``linalg.multi_dot`` for 2-D matrices."""
    return multi_dot(matrices)


@_public
def slogdet(A: Tensor):
    """``(sign, logabsdet)`` of ``det(A)``, named ``linalg_slogdet`` as ``torch.linalg.slogdet``'s result is
    (``torch.slogdet``'s is named ``slogdet``)."""
    return _return_types.linalg_slogdet(*_linalg.slogdet(A))
