"""Text for values and gradients: how the graph stepper puts a tensor, a shape or an op into words.

Small tensors show their values, large ones a one-line summary; an op is named as the learner
wrote it (``MulBackward0`` -> ``mul``) and its documented math is split into its forward and
backward halves. The timeline (``graph_timeline.py``) builds node labels, captions and the
detail panel from these; nothing here knows about frames or drawing.

    >>> import numpy as np
    >>> value_lines(np.array([1.0, 2.0]), "grad ")      # small: the values themselves
    ['grad [1., 2.]']
    >>> value_lines(np.arange(10.0))                    # large: a summary on one line (min, max in the panel)
    ['mean 4.5 std 2.872']
"""

from __future__ import annotations

import numpy as np

import minitorch
from minitorch.autograd import graph as autograd_graph

__all__ = ["INLINE_VALUES", "to_numpy", "summary", "value_lines", "full_text", "python_value"]

INLINE_VALUES = 8  # tensors with at most this many elements show their values inside the node


# == text for values and gradients ===================================================================
def to_numpy(tensor) -> np.ndarray:
    """A NumPy copy of ``tensor``'s values (from any device), safe to keep after later in-place changes."""
    return np.array(tensor.detach().cpu().numpy(), copy=True)


def _number(value) -> str:
    return f"{float(value):.4g}"


def summary(array: np.ndarray) -> str:
    """``mean 0.1 std 0.9 min -2 max 3``: what a large tensor looks like, in one line."""
    if array.size == 0:
        return "empty"
    values = array.astype(np.float64, copy=False)
    return (
        f"mean {_number(values.mean())} std {_number(values.std())} "
        f"min {_number(values.min())} max {_number(values.max())}"
    )


def value_lines(array: np.ndarray, prefix: str = "") -> list[str]:
    """The lines that describe a tensor inside a node: its values when small, a summary when large."""
    if array.size <= INLINE_VALUES:
        if array.ndim == 0:
            return [f"{prefix}{_number(array)}"]
        text = np.array2string(array, precision=3, separator=", ", suppress_small=True, max_line_width=56)
        lines = text.splitlines()
        return [prefix + lines[0]] + [" " * len(prefix) + line for line in lines[1:]]
    # One line, so that a whole graph fits a screen at a legible size; the panel has min, max and more.
    values = array.astype(np.float64, copy=False)
    return [f"{prefix}mean {_number(values.mean())} std {_number(values.std())}"]


def full_text(array: np.ndarray) -> str:
    """The values for the detail panel, in the graph's number format: all up to 200, else a summary.

    Lines are at most 44 characters and break between numbers, never inside one.
    """
    if array.size <= 200:
        if array.ndim == 0:
            return _number(array)
        return np.array2string(array, precision=3, separator=", ", suppress_small=True, max_line_width=44)
    first = np.array2string(array.ravel()[:6], precision=3, separator=", ", suppress_small=True, max_line_width=44)
    return f"{summary(array)}\nfirst values (flattened):\n{first[:-1]}, ...]"


def python_value(value):
    """NumPy scalars as the Python numbers they hold (``np.int64(0)`` -> ``0``), inside tuples and lists too."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        items = [python_value(item) for item in value]
        if hasattr(value, "_fields"):  # a named tuple takes its fields as arguments
            return type(value)(*items)
        return type(value)(items)
    return value


def _short(value, limit: int = 40) -> str:
    """A setting as Python prints it; a long one is cut after a whole item, never inside a word."""
    if isinstance(value, minitorch.Tensor):
        return f"tensor{tuple(value.shape)}"
    text = repr(python_value(value))
    if len(text) <= limit:
        return text
    cut = max(text.rfind(",", 0, limit - 4), text.rfind(" ", 0, limit - 4))
    return (text[:cut] if cut > 0 else text[: limit - 4]) + " ..."


def _dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _shape_line(shape, dtype, device) -> str:
    text = f"{tuple(shape)} {_dtype_name(dtype)}"
    return text if str(device) == "cpu" else f"{text} {device}"


def _op_name(node) -> str:
    """``MulBackward0`` -> ``mul``: the op as the learner wrote it."""
    name = node.name()
    for suffix in ("Backward0", "Backward1", "Backward"):
        if name.endswith(suffix):
            return name[: -len(suffix)].lower() or name
    return name


def _formula_parts(node) -> tuple[str, str]:
    """The forward and the backward half of an op's documented math (``y = a * b`` / ``da = grad * b, ...``)."""
    text = autograd_graph.formula(node).replace("``", "")
    if not text:
        return "", ""
    forward, _, backward = text.partition(";")
    backward = " ".join(backward.split()).rstrip(".")
    if not backward:  # a network op (addmm, convolution, cross-entropy) states its gradients in a later paragraph
        backward = ", ".join(autograd_graph.derivatives(node))
    return forward.strip().rstrip("."), backward


def _maybe_numpy(tensor):
    return None if tensor is None else to_numpy(tensor)


def _inline(array) -> str:
    lines = value_lines(array)
    if array.size <= INLINE_VALUES:
        return " ".join(line.strip() for line in lines)
    return f"{array.shape} {summary(array)}"


def _full(array) -> str:
    return "None" if array is None else full_text(array)
