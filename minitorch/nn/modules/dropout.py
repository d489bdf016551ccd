"""Dropout layers: randomly zero parts of the input while training, to regularise a network.

In training mode each element (``Dropout``) or each whole channel (``Dropout1d/2d/3d``) is
zeroed with probability ``p`` and the survivors are scaled by ``1 / (1 - p)``, so the
expected output equals the input; in eval mode (``model.eval()``) the layer passes its
input through unchanged. Masks come from minitorch's default generator, so
``minitorch.manual_seed`` makes a run repeat exactly.

    >>> import minitorch
    >>> layer = minitorch.nn.Dropout(p=0.25)
    >>> layer
    Dropout(p=0.25, inplace=False)
    >>> x = minitorch.ones(4)
    >>> layer.eval()(x) is x
    True
"""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """What every dropout layer holds: the drop probability ``p`` and whether to overwrite the input."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` while training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` inputs (neighbouring values are correlated there)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole feature maps of ``(N, C, H, W)`` inputs."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole feature volumes of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout for self-normalising (SELU) networks: keeps the input's mean 0 and variance 1."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
