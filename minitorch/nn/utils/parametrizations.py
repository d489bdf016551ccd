"""Ready-made parametrizations: ``weight_norm``, ``spectral_norm`` and ``orthogonal``.

Each registers a small module with ``parametrize.register_parametrization``: the layer's weight is
then *computed* from other tensors on every access, and gradients flow to those tensors.

- ``weight_norm``: ``w = g v / ||v||`` (norm per output row by default): the weight's length ``g``
  and direction ``v`` are learned separately.
- ``spectral_norm``: ``w = W / sigma(W)``, ``sigma`` the largest singular value, estimated by one step
  of the power method per training access: the layer can stretch no vector by more than 1.
- ``orthogonal``: ``Q`` with orthonormal columns (or rows), the matrix exponential of a skew-symmetric
  matrix (square weights) or a product of Householder reflections (others).

    >>> import minitorch
    >>> from minitorch import nn
    >>> m = nn.utils.parametrizations.weight_norm(nn.Linear(20, 40))
    >>> m.parametrizations.weight.original0.shape, m.parametrizations.weight.original1.shape
    (minitorch.Size([40, 1]), minitorch.Size([40, 20]))
"""

from __future__ import annotations

from enum import Enum, auto

from ... import _creation
from ..._tensor import Tensor
from ..._type_info import finfo
from ...autograd.grad_mode import no_grad
from ...ops import linalg, pointwise, shape as shape_ops
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# -- weight_norm ---------------------------------------------------------------------------------
def norm_except_dim(v, power: float = 2, dim: int = 0):
    """The ``power``-norm of ``v`` over every dimension except ``dim``, shaped to broadcast against ``v``
    (size 1 everywhere but ``dim``); ``dim=-1`` means one norm of the whole tensor (PyTorch's rule)."""
    if dim == -1:
        return v.norm(power)
    moved = v.transpose(0, dim) if dim != 0 else v
    shape = [1] * v.dim()
    shape[dim] = v.shape[dim]
    return moved.contiguous().view(v.shape[dim], -1).norm(power, dim=1).view(shape)


class _WeightNorm(Module):
    """``forward(g, v) = g v / ||v||``;  ``right_inverse(w) = (||w||, w)`` (the norm taken except along ``dim``)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Replace ``module.<name>`` by ``g * v / ||v||`` with two learned tensors: ``original0`` (``g``, the
    norm of each slice along ``dim``; ``dim=None``: one norm) and ``original1`` (``v``, the direction).
    (PyTorch also renames a state dict's ``<name>_g``/``<name>_v`` from the deprecated ``nn.utils.weight_norm``
    while loading; minitorch's modules have no load-state-dict hooks for that.)"""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


# -- spectral_norm -------------------------------------------------------------------------------
class _SpectralNorm(Module):
    """``forward(W) = W / sigma`` with ``sigma = u . (W v)``, ``u`` and ``v`` the power method's estimates of
    the top singular vectors (buffers ``_u``, ``_v``, refined on every access in training mode).
    A weight of more than 2 dimensions is seen as the matrix ``(size of dim, everything else)``."""

    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            rows, columns = weight_mat.shape
            u = weight_mat.new_empty(rows).normal_(0, 1)
            v = weight_mat.new_empty(columns).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)  # start from good estimates, as PyTorch does

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        """``u <- W v / |W v|``, ``v <- W^T u / |W^T u|``, written into the buffers (they keep their identity)."""
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(linalg.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(linalg.mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()  # the gradient must not see later in-place updates
        sigma = linalg.vdot(u, linalg.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Replace ``module.<name>`` by ``W / sigma(W)``, its largest singular value estimated by the power method.
    ``dim`` is the output dimension (1 for transposed convolutions, else 0)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# -- orthogonal ----------------------------------------------------------------------------------
class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _householder_product(reflectors, tau):
    """``H_1 H_2 ... H_k`` applied to the first ``k`` columns of the identity, ``H_i = I - tau_i w_i w_i^T`` with
    ``w_i`` = column ``i`` of ``reflectors`` below the diagonal and 1 on it (``linalg.householder_product``)."""
    n, k = reflectors.shape[-2], reflectors.shape[-1]
    rows = _creation.arange(n).unsqueeze(-1)
    columns = _creation.arange(k)
    below = (rows > columns).to(reflectors.dtype)
    on_diagonal = (rows == columns).to(reflectors.dtype)
    w = reflectors * below + on_diagonal  # every w_i side by side, as columns
    q = _creation.eye(n, k, dtype=reflectors.dtype).expand(reflectors.shape).clone()
    for i in reversed(range(k)):  # one reflection per column: H_i (H_{i+1} ... H_k I)
        w_i = w[..., :, i:i + 1]
        q = q - tau[..., i:i + 1].unsqueeze(-1) * (w_i @ (w_i.transpose(-2, -1) @ q))
    return q


def _is_orthogonal(q) -> bool:
    n, k = q.shape[-2], q.shape[-1]
    identity = _creation.eye(k, dtype=q.dtype)
    eps = 10.0 * n * finfo(q.dtype).eps
    return pointwise.allclose(q.transpose(-2, -1) @ q, identity, atol=eps)


def _make_orthogonal(a):
    """The ``Q`` of ``a = QR`` (``a`` tall) with ``R``'s diagonal made non-negative (column signs flipped)."""
    q, r = linalg.linalg_qr(a, "reduced")
    return q * r.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


class _Orthogonal(Module):
    """``forward(X)``: an orthogonal ``Q`` from the unconstrained ``X`` (tall: ``Q^T Q = I``; wide: ``Q Q^T = I``).

    ``matrix_exp``/``cayley``: ``A = L - L^T`` from the lower triangle ``L`` of ``X`` is skew-symmetric, so
    ``exp(A)`` and ``(I - A/2)^-1 (I + A/2)`` are orthogonal. ``householder``: the reflections stored below
    ``X``'s diagonal. With ``use_trivialization``, ``Q`` is ``base @ Q``: ``base`` holds the current point and
    ``X`` only the step from it (``right_inverse`` moves ``base`` and resets ``X``)."""

    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.transpose(-2, -1)
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = shape_ops.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.transpose(-2, -1)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = linalg.matrix_exp(A)
            else:
                identity = _creation.eye(n, dtype=A.dtype)
                Q = linalg.solve(identity - 0.5 * A, identity + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = self.base @ Q
        if transposed:
            Q = Q.transpose(-2, -1)
        return Q

    def right_inverse(self, Q):
        with no_grad():
            if tuple(Q.shape) != tuple(self.shape):
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.transpose(-2, -1)
                n, k = k, n
            if "base" not in self._buffers:
                raise NotImplementedError(
                    "Assigning to an orthogonal parametrization without use_trivialization=True is not supported "
                    "in minitorch (PyTorch's path needs geqrf)."
                )
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:  # complete the tall matrix to a square one with random columns, then orthogonalise
                extra = _creation.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(shape_ops.cat([Q, extra], dim=-1))
            self.base = Q
            # X = -I makes forward give Q = base (the first k columns): for matrix_exp and cayley, A = 0 and
            # exp(0) = I; for householder, the reflections give -I and the diagonal's sign -1 turns it back to I.
            return -_creation.eye(Q_init.shape[-2], Q_init.shape[-1], dtype=Q_init.dtype).expand(Q_init.shape).clone()


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Make ``module.<name>`` (a matrix, or a batch of them) orthogonal: orthonormal columns when it is tall,
    orthonormal rows when it is wide. ``orthogonal_map``: ``"matrix_exp"`` (square weights' default),
    ``"cayley"`` or ``"householder"`` (the others' default). The weight starts as the orthogonalised original."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
