"""``minitorch.amp``: automatic mixed precision, as ``torch.amp`` has it: ``autocast`` (ops in bfloat16 or
float32 by PyTorch's lists) and loss scaling (``GradScaler``)."""

from .autocast_mode import (
    autocast,
    clear_autocast_cache,
    get_autocast_dtype,
    is_autocast_cache_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
)
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "clear_autocast_cache", "get_autocast_dtype", "is_autocast_cache_enabled",
           "is_autocast_enabled", "set_autocast_cache_enabled"]
