"""``minitorch.cuda.amp``: the old home of ``GradScaler`` and ``autocast`` (``torch.cuda.amp.GradScaler``,
``torch.cuda.amp.autocast``), deprecated as in PyTorch."""

from __future__ import annotations

import warnings

from .._dtype import float16
from ..amp.autocast_mode import autocast as _autocast
from ..amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["GradScaler", "autocast"]


class GradScaler(_GradScaler):
    """``torch.amp.GradScaler("cuda", ...)`` under its old name, with PyTorch's deprecation warning."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class autocast(_autocast):
    """``torch.amp.autocast("cuda", ...)`` under its old name, with PyTorch's deprecation warning. On a machine
    without CUDA an enabled one warns and disables itself, as ``torch.amp.autocast("cuda")`` does."""

    def __init__(self, enabled: bool = True, dtype=float16, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
