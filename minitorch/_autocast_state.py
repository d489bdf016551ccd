"""Whether an ``autocast`` block is open, and its dtype per device type (``minitorch.amp.autocast`` sets them).

It sits at the bottom of the layers so that an op's checks can ask it: under autocast, operands of two dtypes
(a bfloat16 activation and a float32 weight) are cast to one dtype before the op runs, so a check that
refuses mixed dtypes must let them through.
"""

from __future__ import annotations

from . import _dtype


class AutocastState:
    """Per device type: whether autocast is on and its lower-precision dtype; how many blocks are open."""

    enabled = {"cpu": False, "cuda": False}
    dtype = {"cpu": _dtype.bfloat16, "cuda": _dtype.float16}  # PyTorch's defaults
    open_blocks = 0
    cast = None  # amp's casting of the inputs of a composed op (``cast_inputs``), registered when amp is imported


def casts_inputs() -> bool:
    """Whether an autocast block is open (then the ops on its lists cast their inputs before they run)."""
    return AutocastState.open_blocks > 0


def cast_inputs(policy: str, device_types: tuple, *tensors) -> tuple:
    """``tensors`` cast by ``policy`` where autocast is on for their device and ``device_types`` (the lists the op
    is on) names it. For an op composed of others below ``amp`` (``trace``, ``cdist``, ``baddbmm``); ``amp``
    registers the casting as ``AutocastState.cast`` when it is imported."""
    return AutocastState.cast(policy, device_types, tensors)
