"""Instance normalization: normalise each channel of each sample over its spatial positions.

Used in style transfer: it removes each image's own contrast per channel. By default it
has no affine parameters and keeps no running statistics, so training and eval agree.

    >>> import minitorch
    >>> norm = minitorch.nn.InstanceNorm2d(3)
    >>> norm
    InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    >>> norm(minitorch.randn(2, 3, 4, 4)).shape
    minitorch.Size([2, 3, 4, 4])
"""

from __future__ import annotations

import warnings

from ..._tensor import Tensor
from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = [
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class _InstanceNorm(_NormBase):
    _no_batch_dims = 0  # the number of dimensions of an input without its batch dimension
    _allowed_dims = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in self._allowed_dims:
            low, high = self._allowed_dims
            raise ValueError(f"expected {low}D or {high}D input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dims
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features ({self.num_features}), "
                    f"but got: {input.size(feature_dim)}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence this warning by not "
                "passing in num_features, which is not used because affine=False",
                stacklevel=2,
            )
        if input.dim() == self._no_batch_dims:  # one sample: add the batch dimension for the computation
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of ``(N, C, L)`` or ``(C, L)`` inputs."""

    _no_batch_dims = 2
    _allowed_dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of ``(N, C, H, W)`` or ``(C, H, W)`` inputs."""

    _no_batch_dims = 3
    _allowed_dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance norm of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs."""

    _no_batch_dims = 4
    _allowed_dims = (4, 5)


class _LazyInstanceNorm(_LazyNormBase, _InstanceNorm):
    """An instance norm whose ``num_features`` is the first input's dimension 1.

    As in PyTorch, the lazy versions take the lazy batch norms' defaults (``affine=True``,
    ``track_running_stats=True``), not the instance norms' (both False), and read dimension 1 of
    an unbatched input too (so an unbatched first input is refused by the size check).
    """


class LazyInstanceNorm1d(_LazyInstanceNorm):
    """An ``InstanceNorm1d`` whose ``num_features`` comes from the first input."""

    cls_to_become = InstanceNorm1d
    _no_batch_dims = InstanceNorm1d._no_batch_dims
    _allowed_dims = InstanceNorm1d._allowed_dims


class LazyInstanceNorm2d(_LazyInstanceNorm):
    """An ``InstanceNorm2d`` whose ``num_features`` comes from the first input."""

    cls_to_become = InstanceNorm2d
    _no_batch_dims = InstanceNorm2d._no_batch_dims
    _allowed_dims = InstanceNorm2d._allowed_dims


class LazyInstanceNorm3d(_LazyInstanceNorm):
    """An ``InstanceNorm3d`` whose ``num_features`` comes from the first input."""

    cls_to_become = InstanceNorm3d
    _no_batch_dims = InstanceNorm3d._no_batch_dims
    _allowed_dims = InstanceNorm3d._allowed_dims
