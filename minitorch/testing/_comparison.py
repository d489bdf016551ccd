"""``assert_close``: are two results the same, up to the rounding their dtype allows?

Two floating-point computations of the same math rarely agree bit for bit (summation order,
fused operations), so tests compare with a tolerance. An element passes when

    |actual - expected| <= atol + rtol * |expected|

with ``rtol`` and ``atol`` chosen from the dtype when not given (float32: 1.3e-6 and 1e-5, float64:
1e-7 and 1e-7, integers and bools: exactly equal). Before any value is compared, the shapes must be
equal, and by default the devices and dtypes too. Sequences and mappings are compared item by item,
and a failure says which item. The messages are ``torch.testing.assert_close``'s.

    >>> import minitorch
    >>> minitorch.testing.assert_close(minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 2.0 + 1e-7]))
    >>> minitorch.testing.assert_close(minitorch.tensor([1.0, 2.0]), minitorch.tensor([1.0, 2.5]))
    Traceback (most recent call last):
    ...
    AssertionError: Tensor-likes are not close!
    <BLANKLINE>
    Mismatched elements: 1 / 2 (50.0%)
    Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .. import _dtype
from .._creation import as_tensor
from .._tensor import Tensor

__all__ = ["assert_close"]

# (rtol, atol) per dtype; any other dtype compares exactly
_DTYPE_PRECISIONS = {_dtype.float16: (0.001, 1e-5), _dtype.bfloat16: (0.016, 1e-5), _dtype.float32: (1.3e-6, 1e-5),
                     _dtype.float64: (1e-7, 1e-7)}


class _Mismatch(Exception):
    """A failed comparison: the exception type to raise, its message, and where in the inputs it happened."""

    def __init__(self, kind: type, message: str, where: tuple = ()):
        super().__init__(message)
        self.kind, self.message, self.where = kind, message, where

    def error(self, msg=None) -> Exception:
        message = self.message if msg is None else (msg(self.message) if callable(msg) else msg)
        if self.where and msg is None:
            message += "\n\nThe failure occurred for item " + "".join(str([item]) for item in self.where)
        return self.kind(message)


def _mismatch_message(identifier: str, extra: str | None, abs_diff, abs_index, atol, rel_diff, rel_index, rtol):
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff, index, tolerance) -> str:
        if index is None:
            text = f"{kind.title()} difference: {diff}"
        else:
            text = f"Greatest {kind} difference: {diff} at index {index}"
        return text + ("" if equality else f" (up to {tolerance} allowed)") + "\n"

    message = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        message += f"{extra.strip()}\n"
    message += line("absolute", abs_diff, abs_index, atol) + line("relative", rel_diff, rel_index, rtol)
    return message.strip()


def _tolerances(actual_dtype, expected_dtype, rtol, atol) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in (actual_dtype, expected_dtype)]
    return max(r for r, _ in pairs), max(a for _, a in pairs)


def _as_tensor(value) -> Tensor:
    return value if isinstance(value, Tensor) else as_tensor(value)


def _compare_tensors(actual, expected, *, rtol, atol, equal_nan, check_device, check_dtype, check_stride):
    actual, expected = _as_tensor(actual), _as_tensor(expected)

    def attribute(name, mine, theirs):
        raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: {mine} != {theirs}.")

    if actual.shape != expected.shape:
        attribute("shape", actual.shape, expected.shape)
    if check_stride and actual.stride() != expected.stride():
        attribute("stride()", actual.stride(), expected.stride())
    if check_device and actual.device != expected.device:
        attribute("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        attribute("dtype", actual.dtype, expected.dtype)
    rtol, atol = _tolerances(actual.dtype, expected.dtype, rtol, atol)
    # Values are compared on the host, in the dtype both promote to (as PyTorch equalises them).
    common = _dtype.promote_types(actual.dtype, expected.dtype)
    mine = actual._device.backend.to_host(actual._data).astype(common.numpy_dtype)
    theirs = expected._device.backend.to_host(expected._data).astype(common.numpy_dtype)
    if common.is_floating_point:
        with np.errstate(invalid="ignore", over="ignore"):
            matches = np.isclose(mine, theirs, rtol=rtol, atol=atol, equal_nan=equal_nan) | (mine == theirs)
    else:
        matches = np.abs(mine.astype(np.int64) - theirs.astype(np.int64)) <= atol + rtol * np.abs(theirs)
    if matches.all():
        return
    if actual.dim() == 0:
        raise _Mismatch(AssertionError, _scalar_message(mine.item(), theirs.item(), rtol, atol))
    raise _Mismatch(AssertionError, _tensor_message(mine, theirs, matches, rtol, atol, common))


def _tensor_message(mine, theirs, matches, rtol, atol, common) -> str:
    total, mismatched = matches.size, int(matches.size - matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    shape = matches.shape
    mine, theirs, matches = mine.ravel(), theirs.ravel(), matches.ravel()
    if not common.is_floating_point:  # integers: differences in int64, relative ones in the default float
        mine, theirs = mine.astype(np.int64), theirs.astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        abs_diff = np.abs(mine - theirs)
        abs_diff[matches] = 0
        rel_diff = abs_diff / np.abs(theirs)
        if not common.is_floating_point:
            rel_diff = rel_diff.astype(_dtype.get_default_dtype().numpy_dtype)
    rel_diff[matches] = 0
    abs_index, rel_index = _argmax_with_nan(abs_diff), _argmax_with_nan(rel_diff)

    def where(flat: int) -> tuple:
        return tuple(int(i) for i in np.unravel_index(flat, shape))

    return _mismatch_message("Tensor-likes", extra, abs_diff[abs_index].item(), where(abs_index), atol,
                             rel_diff[rel_index].item(), where(rel_index), rtol)


def _argmax_with_nan(values: np.ndarray) -> int:
    """The index ``torch.max(values, 0)`` reports: the first NaN if there is one, else the first largest."""
    nans = np.flatnonzero(np.isnan(values)) if _dtype.is_floating(values.dtype) else []
    return int(nans[0]) if len(nans) else int(np.argmax(values))


def _scalar_message(actual, expected, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol, rel_diff, None,
                             rtol)


def _is_tensor_like(value) -> bool:
    return isinstance(value, (Tensor, np.ndarray))


def _is_number(value) -> bool:
    return isinstance(value, (bool, int, float, np.number)) and not isinstance(value, np.ndarray)


def _compare(actual, expected, where: tuple, options: dict) -> None:
    try:
        if _is_tensor_like(actual) and _is_tensor_like(expected) and type(actual) is not np.ndarray or (
            type(actual) is np.ndarray and type(expected) is np.ndarray
        ):
            if isinstance(actual, Tensor) != isinstance(expected, Tensor):
                raise TypeError
            return _compare_tensors(actual, expected, **options)
        if _is_number(actual) and _is_number(expected):
            return _compare_numbers(actual, expected, options)
        if isinstance(actual, Mapping) and isinstance(expected, Mapping):
            missing, extra = sorted(set(expected) - set(actual), key=str), sorted(set(actual) - set(expected), key=str)
            if missing or extra:
                raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                                f"Missing keys in the actual mapping: {missing}\n"
                                f"Additional keys in the actual mapping: {extra}")
            for key in expected:
                _compare(actual[key], expected[key], where + (key,), options)
            return None
        if isinstance(actual, Sequence) and isinstance(expected, Sequence) and not isinstance(actual, str) \
                and not isinstance(expected, str):
            if len(actual) != len(expected):
                lengths = f"{len(actual)} != {len(expected)}"
                raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {lengths}")
            for index, (mine, theirs) in enumerate(zip(actual, expected)):
                _compare(mine, theirs, where + (index,), options)
            return None
        raise TypeError
    except _Mismatch as mismatch:
        if not mismatch.where:
            mismatch.where = where
        raise
    except TypeError:
        raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                        f"{type(expected)}.", where) from None


def _compare_numbers(actual, expected, options) -> None:
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual != expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
        return
    if options["check_dtype"] and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    floating = isinstance(actual, float) or isinstance(expected, float)
    rtol, atol = options["rtol"], options["atol"]
    if (rtol is None) != (atol is None):
        _tolerances(None, None, rtol, atol)
    if rtol is None:
        rtol, atol = (1e-7, 1e-7) if floating else (0.0, 0.0)
    if actual == expected:
        return
    if options["equal_nan"] and floating and np.isnan(actual) and np.isnan(expected):
        return
    if abs(actual - expected) <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_message(actual, expected, rtol, atol))


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False, msg=None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close (see the module docstring).

    ``msg``: a string replaces the message; a callable gets the generated message and returns the one to raise.
    """
    options = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan, "check_device": check_device,
               "check_dtype": check_dtype, "check_stride": check_stride}
    try:
        _compare(actual, expected, (), options)
    except _Mismatch as mismatch:
        raise mismatch.error(msg) from None
