"""``GradScaler``: loss scaling, so that small gradients survive a low-precision backward pass.

In float16 the smallest normal number is about 6e-5: gradients smaller than that underflow to 0
and the model stops learning. Loss scaling multiplies the loss by a large factor ``S`` before
backward (every gradient is then ``S`` times larger, far from underflow), divides the gradients by
``S`` before the optimizer step, and adapts ``S`` as training goes:

    loss = model(x)                     # (under autocast, in low precision)
    scaler.scale(loss).backward()       # gradients of S * loss
    scaler.step(optimizer)              # unscale (g / S); skip the step if any g is inf or NaN
    scaler.update()                     # inf/NaN seen: S *= backoff_factor (0.5);
                                        # growth_interval clean steps in a row: S *= growth_factor (2)

``unscale_(optimizer)`` may be called before ``step`` to work on the true gradients (clipping their
norm). The scale lives in a tensor on the loss's device; ``state_dict()`` saves it with the factors.
This is ``torch.amp.GradScaler``: the same algorithm, messages and ``state_dict``.

    >>> import minitorch
    >>> scaler = minitorch.amp.GradScaler("cpu", init_scale=1024.0)
    >>> w = minitorch.nn.Parameter(minitorch.tensor([1.0]))
    >>> optimizer = minitorch.optim.SGD([w], lr=0.1)
    >>> scaler.scale((w * 3).sum()).backward()
    >>> w.grad                               # 1024 * 3
    tensor([3072.])
    >>> scaler.step(optimizer); scaler.update()
    >>> w                                    # 1 - 0.1 * 3: the step used the unscaled gradient
    Parameter containing:
    tensor([0.7000], requires_grad=True)
"""

from __future__ import annotations

import enum
import warnings
from collections import defaultdict
from collections.abc import Iterable

from .. import _creation, _dtype
from .._device import get_backend
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """``GradScaler(device="cuda", init_scale=2**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)``; on a machine without CUDA, a ``"cuda"`` scaler disables itself
    with PyTorch's warning (every method then passes through)."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device, self._enabled = device, enabled
        if device == "cuda" and enabled and not get_backend("cuda").is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale, self._growth_factor, self._backoff_factor = init_scale, growth_factor, backoff_factor
            self._growth_interval, self._init_growth_tracker = growth_interval, 0
            self._scale: Tensor | None = None  # made on the first scale(), on the loss's device
            self._growth_tracker: Tensor | None = None
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    # -- scaling the loss ----------------------------------------------------------------------------------
    def _lazy_init(self, device) -> None:
        self._scale = _creation.full((), self._init_scale, dtype=_dtype.float32, device=device)
        self._growth_tracker = _creation.full((), self._init_growth_tracker, dtype=_dtype.int32, device=device)

    def _check_scale_growth_tracker(self, name: str) -> tuple[Tensor, Tensor]:
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {name} but _scale is None.  " + fix)
        return self._scale, self._growth_tracker

    def scale(self, outputs):
        """``outputs * S`` (a tensor, or every tensor of a list, tuple or other iterable)."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(device=outputs.device)

        def apply_scale(value):
            if isinstance(value, Tensor):
                if self._scale is None:
                    self._lazy_init(value.device)
                return value * self._scale.to(device=value.device)
            if isinstance(value, Iterable):
                scaled = map(apply_scale, value)
                return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    # -- unscaling the gradients and stepping ---------------------------------------------------------------
    def unscale_(self, optimizer) -> None:
        """Divide this optimizer's gradients by ``S`` in place, noting whether any is inf or NaN (once per step)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = self._scale.double().reciprocal().float()  # the reciprocal in float64, as PyTorch does
        found = {}
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if param.grad.dtype == _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    device = param.grad.device
                    flag = found.setdefault(device, _creation.zeros((), dtype=_dtype.float32, device=device))
                    if not bool(param.grad.isfinite().all()):
                        flag.fill_(1.0)
                    param.grad.mul_(inverse.to(device))
        state["found_inf_per_device"] = found
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless ``unscale_`` ran) and ``optimizer.step()``, skipped when a gradient is inf or NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        result = None
        if not sum(float(flag) for flag in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Back off after an inf/NaN, grow after ``growth_interval`` clean steps; or set ``new_scale``."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor "
                          "with requires_grad=False.")
                if new_scale.device.type != self._device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found = [flag for state in self._per_optimizer_states.values()
                     for flag in state["found_inf_per_device"].values()]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if sum(float(flag) for flag in found):
                scale.mul_(self._backoff_factor)
                tracker.fill_(0)
            elif int(tracker) + 1 == self._growth_interval:
                scale.mul_(self._growth_factor)
                tracker.fill_(0)
            else:
                tracker.add_(1)
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    # -- reading and saving ---------------------------------------------------------------------------------
    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        """The scale, the factors, the interval and ``_growth_tracker`` (an empty dict when disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
