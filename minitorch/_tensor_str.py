"""How a tensor prints: ``tensor([1., 2.], requires_grad=True)``, exactly like PyTorch.

The rules (PyTorch's ``torch/_tensor_str.py``, with its default print options):

* One formatter serves the whole tensor, so every element is padded to the same width
  and the columns line up: ``tensor([ 1.5000, -2.2500, 10.0000])``.
* Floats whose nonzero finite values are all whole numbers print as ``1.``; otherwise
  with 4 decimals. Scientific notation (``1.0000e-05``) is used when the largest
  magnitude is more than 1000 times the smallest, above 1e8, or (for non-whole values)
  below 1e-4.
* Tensors of more than 1000 elements are summarised: the first and last 3 entries of
  each dimension, with ``...`` between.
* Lines wrap at 80 characters. The suffix names what differs from the defaults: the
  device, the dtype, and the autograd state (``grad_fn=<MulBackward0>`` or
  ``requires_grad=True``).

The numbers above are the defaults of ``set_printoptions`` (``precision``, ``threshold``,
``edgeitems``, ``linewidth``, ``sci_mode``, ``profile``), which changes them for every print after it,
as ``torch.set_printoptions`` does:

    >>> import minitorch
    >>> minitorch.set_printoptions(precision=2)
    >>> minitorch.tensor([1.12345])
    tensor([1.12])
    >>> minitorch.set_printoptions(profile="default")
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from . import _dtype


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000  # more elements than this are summarised
    edgeitems: int = 3  # entries kept at each end of a summarised dimension
    linewidth: int = 80
    sci_mode: bool | None = None  # None: chosen from the values


PRINT_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None) -> None:
    """Change how tensors print from now on (``torch.set_printoptions``).

    ``profile``: ``"default"``, ``"short"`` (2 decimals, 2 edge items) or ``"full"`` (never summarise),
    then any other argument given overrides it. ``sci_mode`` True or False forces or forbids
    scientific notation; None (what every call without it sets) lets the values decide.
    """
    if profile is not None:
        presets = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}
        if profile in presets:
            PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = presets[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """Decides the notation and the common width of all elements of one tensor."""

    def __init__(self, values: np.ndarray):
        self.floating = _dtype.is_floating(values.dtype)
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not self.floating:
            for value in values.ravel().tolist():
                self.max_width = max(self.max_width, len(str(value)))
            return
        flat = values.astype(np.float64).ravel()
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return
        magnitudes = np.abs(nonzero_finite)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        if self.int_mode:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8
            if PRINT_OPTS.sci_mode is not None:
                self.sci_mode = PRINT_OPTS.sci_mode
            if not self.sci_mode:  # whole numbers print as "12." : one more character than the digits
                widths = [len(f"{value:.0f}") + 1 for value in nonzero_finite.tolist()]
                self.max_width = max([self.max_width, *widths])
                return
        else:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
            if PRINT_OPTS.sci_mode is not None:
                self.sci_mode = PRINT_OPTS.sci_mode
        precision = PRINT_OPTS.precision
        pattern = f"{{:.{precision}e}}" if self.sci_mode else f"{{:.{precision}f}}"
        widths = [len(pattern.format(value)) for value in nonzero_finite.tolist()]
        self.max_width = max([self.max_width, *widths])

    def format(self, value) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{PRINT_OPTS.precision}f}"
        return " " * (self.max_width - len(text)) + text


def _summarized(array: np.ndarray) -> np.ndarray:
    """The entries a summarised print shows: the first and last ``edgeitems`` along every dimension."""
    edge = PRINT_OPTS.edgeitems
    if array.ndim == 0:
        return array
    if array.ndim > 1 and not edge:
        return array[(slice(0, 0),) * array.ndim]
    if array.shape[0] > 2 * edge:
        parts = [array[:edge], array[-edge:]]
    else:
        parts = [array]
    pieces = [np.stack([_summarized(row) for row in part]) for part in parts if part.shape[0] > 0]
    if not pieces:
        return array
    return np.concatenate(pieces)


def _vector_str(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    element_length = formatter.max_width + 2  # the element, a comma and a space
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    values = array.tolist()
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and array.shape[0] > 2 * edge:
        data = [formatter.format(v) for v in values[:edge]] + [" ..."]
        data += [formatter.format(v) for v in values[-edge:]]
    else:
        data = [formatter.format(v) for v in values]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    if array.ndim == 0:
        return formatter.format(array.item())
    if array.ndim == 1:
        return _vector_str(array, indent, summarize, formatter)
    edge = PRINT_OPTS.edgeitems
    if summarize and array.shape[0] > 2 * edge:
        rows = [_tensor_str(array[i], indent + 1, summarize, formatter) for i in range(edge)]
        rows.append("...")
        rows += [_tensor_str(array[i], indent + 1, summarize, formatter) for i in range(len(array) - edge, len(array))]
    else:
        rows = [_tensor_str(row, indent + 1, summarize, formatter) for row in array]
    # Rows of a matrix are separated by one newline, matrices of a 3-d tensor by two, and so on.
    return "[" + ("," + "\n" * (array.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def format_values(array: np.ndarray, indent: int) -> str:
    """The bracketed body of the repr, for a non-empty array."""
    summarize = array.size > PRINT_OPTS.threshold
    formatter = _Formatter(_summarized(array) if summarize else array)
    return _tensor_str(array, indent, summarize, formatter)


def _add_suffixes(text: str, suffixes: list, indent: int) -> str:
    # PyTorch counts the last line as 2 characters longer than it is; copied so lines break where its do.
    # A suffix is measured as PyTorch spells it (``dtype=torch.float64``), so the same program breaks its lines
    # in the same places under both libraries.
    last_line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        length = len(suffix.replace("minitorch.", "torch."))
        if last_line_length + length + 2 > PRINT_OPTS.linewidth:
            text += ",\n" + " " * indent + suffix
            last_line_length = indent + length
        else:
            text += ", " + suffix
            last_line_length += length + 2
    return text + ")"


def tensor_repr(tensor) -> str:
    if tensor.device.type == "meta":
        return _meta_repr(tensor)
    array = tensor._device.backend.to_host(tensor._data)
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if tensor.device.type != "cpu":
        suffixes.append(f"device='{tensor.device}'")
    dtype = _dtype.from_numpy_dtype(array.dtype)
    has_default_dtype = dtype is _dtype.get_default_dtype() or dtype.name in ("int64", "bool")
    if array.size == 0:
        body = "[]"
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
    else:
        body = format_values(array, indent)
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(array.shape)}")
    if not has_default_dtype:
        suffixes.append(f"dtype={dtype!r}")
    if tensor.grad_fn is not None:
        suffixes.append(f"grad_fn=<{tensor.grad_fn.name()}>")
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


def _meta_repr(tensor) -> str:
    """A meta tensor has no values to print: ``tensor(..., device='meta', size=(2, 3))``, as PyTorch prints it."""
    suffixes = ["device='meta'", f"size={tuple(tensor._data.shape)}"]
    dtype = _dtype.from_numpy_dtype(tensor._data.dtype)
    if dtype is not _dtype.get_default_dtype():
        suffixes.append(f"dtype={dtype!r}")
    if tensor.grad_fn is not None:
        suffixes.append(f"grad_fn=<{tensor.grad_fn.name()}>")
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    return "tensor(..., " + ", ".join(suffixes) + ")"
