"""Anomaly detection: find the op whose backward produced NaN.

Inside ``detect_anomaly()`` every recorded op keeps the stack trace of its forward call,
and the engine checks each gradient it computes. The first NaN raises an error that
names the node (``Function 'DivBackward0' returned nan values in its 0th output.``) and
warns with the forward line that created it. It slows everything down: use it to debug.
"""

from __future__ import annotations

import warnings

from .grad_mode import _AnomalyState, _DecoratorContextManager


class detect_anomaly(_DecoratorContextManager):
    """Check every backward result for NaN inside this block and report where it came from."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for "
            "debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self):
        self.previous = _AnomalyState.enabled
        _AnomalyState.enabled = self.check_nan

    def __exit__(self, *exc_info):
        _AnomalyState.enabled = self.previous
        return False

    def clone(self):
        return self.__class__(self.check_nan)


class set_detect_anomaly(_DecoratorContextManager):
    """Turn anomaly detection on or off (at once, and back at the end of a ``with`` block)."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.previous = _AnomalyState.enabled
        self.mode = bool(mode) and check_nan
        _AnomalyState.enabled = self.mode

    def __enter__(self):
        _AnomalyState.enabled = self.mode

    def __exit__(self, *exc_info):
        _AnomalyState.enabled = self.previous
        return False

    def clone(self):
        return self.__class__(self.mode)


def is_anomaly_enabled() -> bool:
    return _AnomalyState.enabled
