"""``torch.use_deterministic_algorithms`` and its questions, and ``torch._assert``.

PyTorch keeps a global switch that makes ops with a nondeterministic kernel (atomic adds on a GPU,
some cuDNN algorithms) either raise or warn. Every minitorch op computes the same result from the
same inputs (NumPy on the CPU, the same CuPy kernels on a GPU), so the switch changes no result
here; it is kept, with PyTorch's argument checks, so that reproducibility recipes run unchanged
and report back what they set.

    >>> import minitorch
    >>> minitorch.use_deterministic_algorithms(True)
    >>> minitorch.are_deterministic_algorithms_enabled()
    True
    >>> minitorch.use_deterministic_algorithms(False)
"""

from __future__ import annotations


class _DeterministicState:
    enabled = False
    warn_only = False


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Turn the deterministic-algorithms switch on or off (``warn_only``: warn instead of raising)."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms expects a bool, but got {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"use_deterministic_algorithms expects a bool for warn_only, but got "
                        f"{type(warn_only).__name__}")
    _DeterministicState.enabled = mode
    _DeterministicState.warn_only = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _DeterministicState.enabled


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether the switch was set with ``warn_only=True``."""
    return _DeterministicState.warn_only


def set_deterministic_debug_mode(debug_mode) -> None:
    """PyTorch's other spelling: 0 or "default" (off), 1 or "warn", 2 or "error"."""
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 when the switch is off, 1 when it only warns, 2 when it raises."""
    if not _DeterministicState.enabled:
        return 0
    return 1 if _DeterministicState.warn_only else 2


def _assert(condition, message):
    """PyTorch's ``torch._assert``: Python's ``assert`` as a function (so tracing can record it)."""
    if type(condition) is not bool and hasattr(condition, "item"):
        condition = bool(condition)
    assert condition, message
