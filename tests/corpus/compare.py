"""Compare what a program printed under minitorch with what it printed under PyTorch.

The output is cut into text and numbers. Text must match exactly, except for spaces that touch
a number (tensor printing pads columns to the widest entry, so one value of a different width
moves the spaces, not the meaning), runs of other spaces (they count as one) and memory
addresses (``0x7f...``), which are ignored. Numbers written as integers (shapes, counts, indices,
labels) must match exactly. Numbers with a decimal point or an exponent are compared with a
tolerance:

    |minitorch - pytorch| <= atol + rtol * |pytorch|

where ``atol`` is one and a half units in the last decimal printed by PyTorch (a program prints
with a fixed number of decimals, and two correct float32 results may round to neighbouring last
digits: one unit, plus room for the decimal-to-binary error of the printed numbers) and ``rtol`` is
0. A program may widen both, never narrow them, in a header line such as
``# corpus-tolerance: rtol=1e-4 atol=1e-6``, with its reason written beside it.

One spelling differs by design: minitorch names itself where PyTorch says ``torch``
(``minitorch.float32``, ``minitorch.Size([2, 3])``); ``as_torch_names`` rewrites those before the
comparison. The longer name can make a printed tensor's suffixes (``dtype=...``, ``grad_fn=...``)
wrap onto the next line where PyTorch's fit on one, so a line break before such a suffix counts
as a space in both outputs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# A number stands alone: not glued to a name (``float32``, ``conv1``) and not part of a longer
# number. nan and inf are numbers too (PyTorch prints them bare).
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)(?![\w])")
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
TOLERANCE_LINE = re.compile(r"^#\s*corpus-tolerance:(.*)$", re.MULTILINE)


def as_torch_names(text: str) -> str:
    """minitorch's output with its own module names spelled as PyTorch's (``minitorch.Size`` -> ``torch.Size``)."""
    return re.sub(r"\bminitorch\.vision\b", "torchvision", re.sub(r"\bminitorch\.(?!vision\b)", "torch.", text))


@dataclass(frozen=True)
class Tolerance:
    rtol: float = 0.0
    atol: float | None = None  # added room; 1.5 units in the last printed decimal always apply


def tolerance_of(source: str) -> Tolerance:
    """The tolerance a program declares in its header (``# corpus-tolerance: rtol=... atol=...``)."""
    match = TOLERANCE_LINE.search(source)
    if match is None:
        return Tolerance()
    values = dict(re.findall(r"(rtol|atol)\s*=\s*([-+0-9.eE]+)", match.group(1)))
    return Tolerance(
        rtol=float(values.get("rtol", 0.0)), atol=float(values["atol"]) if "atol" in values else None
    )


SUFFIX_BREAK = re.compile(r",\n\s+(?=(?:dtype|grad_fn|requires_grad|device)=)")


def tokens(text: str) -> list[tuple[str, str]]:
    """``[("text", ...), ("number", ...), ...]`` with addresses masked and whitespace runs collapsed."""
    text = SUFFIX_BREAK.sub(", ", ADDRESS.sub("0x?", text))
    pieces, numbers, position = [], [], 0
    for match in NUMBER.finditer(text):
        pieces.append(text[position : match.start()])
        numbers.append(match.group())
        position = match.end()
    pieces.append(text[position:])
    parts: list[tuple[str, str]] = []
    for index, piece in enumerate(pieces):
        # Spaces that touch a number are padding (tensor columns); other runs of spaces count as one.
        if index > 0:
            piece = piece.lstrip(" \t")
        if index < len(numbers):
            piece = piece.rstrip(" \t")
        parts.append(("text", re.sub(r"[ \t]+", " ", piece)))
        if index < len(numbers):
            parts.append(("number", numbers[index]))
    return parts


def _is_integer(token: str) -> bool:
    return re.fullmatch(r"[-+]?\d+", token) is not None


def _last_place(token: str) -> float:
    """One unit in the last printed decimal: ``0.1235`` -> 1e-4, ``1.5e-03`` -> 1e-4, ``2.`` -> 1."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def _numbers_agree(got: str, expected: str, tolerance: Tolerance) -> bool:
    if _is_integer(expected):
        return got == expected
    got_value, expected_value = float(got), float(expected)
    if math.isnan(expected_value) or math.isinf(expected_value):
        return got_value == expected_value or (math.isnan(got_value) and math.isnan(expected_value))
    atol = max(1.5 * _last_place(expected), tolerance.atol or 0.0)  # a declared atol widens, never narrows
    return abs(got_value - expected_value) <= atol + tolerance.rtol * abs(expected_value)


def first_difference(got: str, expected: str, tolerance: Tolerance) -> str | None:
    """None when ``got`` matches ``expected``; otherwise the first mismatch, with its line in both."""
    got_tokens, expected_tokens = tokens(got), tokens(expected)
    got_position = expected_position = 0
    for (got_kind, got_text), (expected_kind, expected_text) in zip(got_tokens, expected_tokens):
        if got_kind != expected_kind:
            same = False
        elif got_kind == "text":
            same = got_text == expected_text
        else:
            same = _numbers_agree(got_text, expected_text, tolerance)
        if not same:
            return (
                f"minitorch printed {got_text!r} where PyTorch printed {expected_text!r}\n"
                f"  minitorch line: {_line_at(got_tokens, got_position, got)}\n"
                f"  PyTorch line:   {_line_at(expected_tokens, expected_position, expected)}"
            )
        got_position += 1
        expected_position += 1
    if len(got_tokens) != len(expected_tokens):
        return (
            f"minitorch printed {len(got_tokens)} pieces where PyTorch printed {len(expected_tokens)}; "
            f"the common part matches.\n  minitorch ends: {got[-200:]!r}\n  PyTorch ends:   {expected[-200:]!r}"
        )
    return None


def _line_at(parts: list[tuple[str, str]], index: int, original: str) -> str:
    """The line of ``original`` where token ``index`` sits (found by counting the newlines before it)."""
    line_number = sum(text.count("\n") for kind, text in parts[:index] if kind == "text")
    lines = original.splitlines() or [""]
    return lines[min(line_number, len(lines) - 1)].strip()[:200]
