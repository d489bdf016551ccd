"""``minitorch.cuda.amp``: the old home of ``GradScaler`` (``torch.cuda.amp.GradScaler``), deprecated as in PyTorch."""

from __future__ import annotations

import warnings

from ..amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["GradScaler"]


class GradScaler(_GradScaler):
    """``torch.amp.GradScaler("cuda", ...)`` under its old name, with PyTorch's deprecation warning."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
