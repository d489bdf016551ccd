"""Turning a case into call arguments and an answer into arrays, and comparing answers with the reference.

The same functions serve the learner's instant checks (:mod:`grading.checks`), the code that runs inside
the sandbox (:mod:`grading._runner`: arguments in, arrays out) and the batch grader, which compares
outside the sandbox. One implementation, so a case that passes in the notebook passes in the grader.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ALLOWED_KINDS = "biufc"  # bool, signed and unsigned integers, floats, complex: never objects (pickles)


def call_arguments(case: tuple, input_type: str) -> list:
    """Fresh arguments for one call: copies, so a function that writes into its input spoils nothing."""
    arguments = []
    for value in case:
        if isinstance(value, np.ndarray):
            if input_type == "tensor":
                import minitorch  # the reference solutions and the learner's tensors

                arguments.append(minitorch.tensor(value.copy()))
            else:
                arguments.append(value.copy())
        else:
            arguments.append(value)
    return arguments


class UnsupportedOutput(TypeError):
    """The function returned something that is neither a tensor, an array, a number nor a tuple of them."""


def output_arrays(result) -> tuple[list[str], list[np.ndarray]]:
    """``(kinds, arrays)`` for a function's answer, one of each per output (a tuple answer has several).

    A kind is ``tensor``, ``ndarray`` or ``number``; anything else (None, a list of lists, an object)
    raises :class:`UnsupportedOutput` saying what came back.
    """
    if isinstance(result, (tuple, list)):
        kinds, arrays = [], []
        for item in result:
            if isinstance(item, (tuple, list)):
                raise UnsupportedOutput("returned a nested tuple")
            item_kinds, item_arrays = output_arrays(item)
            kinds += item_kinds
            arrays += item_arrays
        return kinds, arrays
    if result is None:
        raise UnsupportedOutput("returned None")
    if isinstance(result, np.ndarray):
        return ["ndarray"], [_checked(np.array(result, copy=True))]
    if isinstance(result, (bool, int, float, complex, np.generic)):
        return ["number"], [_checked(np.asarray(result))]
    tensor_class = _tensor_class()
    if tensor_class is not None and isinstance(result, tensor_class):
        return ["tensor"], [_checked(np.array(result.detach().cpu().numpy(), copy=True))]
    raise UnsupportedOutput(f"returned a {type(result).__module__}.{type(result).__qualname__}")


def _checked(array: np.ndarray) -> np.ndarray:
    if array.dtype.kind not in ALLOWED_KINDS:
        raise UnsupportedOutput(f"returned an array of dtype {array.dtype}")
    return array


def _tensor_class():
    try:
        import minitorch
    except ImportError:  # the grader compares arrays; minitorch is only needed to recognise tensors
        return None
    return minitorch.Tensor


@dataclass(frozen=True)
class Mismatch:
    """Why an answer is wrong: ``kind`` is one of type, count, shape, dtype, values."""

    kind: str
    detail: str  # for the learner, on a public case: may quote values
    safe_detail: str  # for feedback on a hidden case: never quotes inputs, shapes or values

    def __str__(self) -> str:
        return self.detail


TEXT_WIDTH = 64  # bytes per text in an encoded array of texts


def encode_texts(texts) -> np.ndarray:
    """Short texts (parameter names) as an array an answer may hold: one row of UTF-8 bytes per text, padded
    with zeros to ``TEXT_WIDTH``. :func:`compare` reads such an output back as texts when told to."""
    rows = [text.encode("utf-8") for text in texts]
    if any(len(row) > TEXT_WIDTH for row in rows):
        raise ValueError(f"texts are at most {TEXT_WIDTH} bytes long")
    encoded = np.zeros((len(rows), TEXT_WIDTH), dtype=np.uint8)
    for index, row in enumerate(rows):
        encoded[index, : len(row)] = np.frombuffer(row, dtype=np.uint8)
    return encoded


def decode_texts(array: np.ndarray) -> list[str] | None:
    """The texts of an array made by :func:`encode_texts`, or None when it is not one."""
    if array.dtype != np.uint8 or array.ndim != 2 or array.shape[1] != TEXT_WIDTH:
        return None
    return [bytes(row).rstrip(b"\0").decode("utf-8", "replace") for row in array]


def _text_mismatch(want: np.ndarray, have: np.ndarray, label: str) -> Mismatch | None:
    """Names compared as names: 'expected ['gain', 'first.weight'], got [...]', never as byte differences."""
    wanted, had = decode_texts(want), decode_texts(have)
    if wanted is not None and had is not None:
        if wanted == had:
            return None
        return Mismatch("values", f"{label}expected {wanted}, got {had}", f"{label}wrong names")
    return None  # not an encoded array: compared as numbers (its shape or dtype says what is wrong)


def compare(
    expected: list[np.ndarray], got: list[np.ndarray], *, rtol: float, atol: float, check_dtype: bool,
    at_most: bool = False, texts: tuple[int, ...] = (),
):
    """None when ``got`` matches ``expected`` (same count, shapes, dtypes and close values), else a Mismatch.

    ``at_most``: the expected values are bounds to reach, not answers to equal (a validation loss to get
    below, say): an entry passes when it is at most its bound plus ``atol``; nan never passes.
    ``texts``: the positions (from 1) of outputs that hold texts encoded by :func:`encode_texts`; they are
    compared and reported as lists of texts.
    """
    if len(expected) != len(got):
        detail = f"expected {len(expected)} output(s), got {len(got)}"
        return Mismatch("count", detail, detail)
    for position, (want, have) in enumerate(zip(expected, got)):
        label = f"output {position + 1}: " if len(expected) > 1 else ""
        if position + 1 in texts:
            mismatch = _text_mismatch(want, have, label)
            if mismatch is not None:
                return mismatch
        if want.shape != have.shape:
            return Mismatch(
                "shape",
                f"{label}wrong shape: expected {tuple(want.shape)}, got {tuple(have.shape)}",
                f"{label}wrong shape",
            )
        if check_dtype and want.dtype != have.dtype:
            detail = f"{label}wrong dtype: expected {want.dtype}, got {have.dtype}"
            return Mismatch("dtype", detail, detail)
        if at_most:
            mismatch = _above_bound(want, have, atol, label)
            if mismatch is not None:
                return mismatch
            continue
        not_finite = _not_finite(want, have, label)
        if not_finite is not None:
            return not_finite
        wrong = _wrong_entries(want, have, rtol, atol)
        if wrong.any():
            count, total = int(wrong.sum()), wrong.size
            index = tuple(int(i) for i in np.argwhere(wrong)[0])
            difference = _largest_difference(want, have)
            where = f" at index {index}" if index else ""
            detail = (
                f"{label}wrong values in {count} of {total} entries; largest difference {difference:.3g}; "
                f"first{where}: expected {_scalar_text(want[index])}, got {_scalar_text(have[index])}"
            )
            return Mismatch("values", detail, f"{label}wrong values")  # no counts: they would tell the size
    return None


def _above_bound(bound: np.ndarray, have: np.ndarray, atol: float, label: str) -> Mismatch | None:
    with np.errstate(all="ignore"):
        above = ~(have.astype(np.float64) <= bound.astype(np.float64) + atol)  # nan compares False: above
    if not above.any():
        return None
    index = tuple(int(i) for i in np.argwhere(above)[0])
    where = f" at index {index}" if index else ""
    detail = f"{label}{_scalar_text(have[index])}{where} is above the target {_scalar_text(bound[index])}"
    return Mismatch("above", detail, f"{label}above the target")


def _not_finite(want: np.ndarray, have: np.ndarray, label: str) -> Mismatch | None:
    """NaN (or an infinity) where the reference is finite, reported as such and where it first is.

    Not as a "largest difference": a NaN is no tolerance problem but an undefined operation (inf - inf,
    0 / 0, inf / inf), most often after an exp() that overflowed, and the learner should hear that.
    """
    if have.dtype.kind not in "fc":
        return None
    with np.errstate(all="ignore"):
        finite_want = np.isfinite(want) if want.dtype.kind in "fc" else np.ones(want.shape, dtype=bool)
        nan = np.isnan(have) & finite_want
        infinite = np.isinf(have) & finite_want
    bad = nan if nan.any() else infinite
    if not bad.any():
        return None
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    where = f"at index {index}"
    if nan.any():
        what, why = "NaN", (
            "NaN (not a number) comes from an undefined operation such as inf - inf, 0 / 0 or inf / inf, "
            "most often after exp() overflowed; it is not a matter of tolerance"
        )
    else:
        what, why = "inf", "a value overflowed its dtype (exp() of a large number, say)"
    if bad.size == 1:
        found = f"got {what} where the reference is finite (expected {_scalar_text(want[index])})"
    else:
        found = (
            f"{what} in {int(bad.sum())} of {bad.size} entries where the reference is finite; first {where}: "
            f"expected {_scalar_text(want[index])}, got {_scalar_text(have[index])}"
        )
    detail = f"{label}{found}. {why[0].upper()}{why[1:]}"
    return Mismatch("values", detail, f"{label}{what} where the reference is finite")


def _wrong_entries(want: np.ndarray, have: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    if want.dtype.kind in "fc" or have.dtype.kind in "fc":
        want_c, have_c = want.astype(np.complex128), have.astype(np.complex128)
        with np.errstate(all="ignore"):
            close = np.abs(have_c - want_c) <= atol + rtol * np.abs(want_c)
        both_nan = np.isnan(want_c) & np.isnan(have_c)
        same_infinity = np.isinf(want_c) & (want_c == have_c)
        return ~(close | both_nan | same_infinity)
    return want != have


def _scalar_text(value) -> str:
    value = value.item()
    return f"{value:.6g}" if isinstance(value, float) else repr(value)


def _largest_difference(want: np.ndarray, have: np.ndarray) -> float:
    with np.errstate(all="ignore"):
        difference = np.abs(want.astype(np.complex128) - have.astype(np.complex128))
    finite = difference[np.isfinite(difference)]
    return float(finite.max()) if finite.size else float("nan")


def describe(value) -> str:
    """A short, readable rendering of one argument for the learner's failure report."""
    if isinstance(value, np.ndarray):
        body = np.array2string(value, threshold=24, edgeitems=3, precision=4, separator=", ")
        return f"array of shape {tuple(value.shape)}, dtype {value.dtype}:\n{body}"
    return repr(value)
