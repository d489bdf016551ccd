"""``minitorch.amp``: automatic mixed precision's loss scaling (``GradScaler``), as ``torch.amp`` has it."""

from .grad_scaler import GradScaler

__all__ = ["GradScaler"]
