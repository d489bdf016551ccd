"""How a tensor prints: ``tensor([1., 2.], requires_grad=True)``, like PyTorch.

Floats print with 4 decimals, or in scientific notation when their magnitudes differ by
more than a factor of 1000 (or are very large or small); whole-number floats print as
``1.``. Tensors of more than 1000 elements are summarised with ``...``. The suffix names
what differs from the defaults: dtype, device, and the autograd state.
"""

from __future__ import annotations

import numpy as np

from . import _dtype

_DEFAULT_DTYPES = ("float32", "int64", "bool")


def _float_formatter(values: np.ndarray):
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return lambda v: _special(v)
    magnitudes = np.abs(finite)
    nonzero = magnitudes[magnitudes > 0]
    integral = np.all(finite == np.round(finite))
    if integral and (nonzero.size == 0 or nonzero.max() < 1e8):
        return lambda v: _special(v) if not np.isfinite(v) else f"{v:.0f}."
    scientific = nonzero.size > 0 and (
        nonzero.max() / nonzero.min() > 1000.0 or nonzero.max() > 1e8 or nonzero.min() < 1e-4
    )
    if scientific:
        return lambda v: _special(v) if not np.isfinite(v) else f"{v:.4e}"
    return lambda v: _special(v) if not np.isfinite(v) else f"{v:.4f}"


def _special(value) -> str:
    if np.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"


def format_values(array: np.ndarray, prefix: str) -> str:
    if array.dtype.kind == "f":
        formatter = {"float_kind": _float_formatter(array.astype(np.float64))}
    elif array.dtype.kind == "b":
        formatter = {"bool": lambda v: "True" if v else "False"}
    else:
        formatter = {"int": lambda v: str(int(v))}
    if array.ndim == 0:
        return next(iter(formatter.values()))(array.item())
    return np.array2string(
        array, separator=", ", prefix=prefix, formatter=formatter, threshold=1000, edgeitems=3, max_line_width=80
    )


def tensor_repr(tensor) -> str:
    array = tensor._device.backend.to_host(tensor._data)
    prefix = "tensor("
    suffixes = []
    if array.size == 0 and array.ndim == 1:
        body = "[]"
    elif array.size == 0:
        body = "[]"
        suffixes.append(f"size={tuple(array.shape)}")
    else:
        body = format_values(array, prefix)
    if tensor.device.type != "cpu":
        suffixes.append(f"device='{tensor.device}'")
    dtype = _dtype.from_numpy_dtype(array.dtype)
    if dtype.name not in _DEFAULT_DTYPES or (dtype.is_floating_point and dtype is not _dtype.get_default_dtype()):
        suffixes.append(f"dtype={dtype!r}")
    if tensor.grad_fn is not None:
        suffixes.append(f"grad_fn=<{tensor.grad_fn.name()}>")
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + body
    for suffix in suffixes:
        # Like PyTorch: keep a suffix on the last line unless that line would pass 80 characters.
        last_line = text.rsplit("\n", 1)[-1]
        if len(last_line) + len(suffix) + 2 > 80:
            text += ",\n       " + suffix
        else:
            text += ", " + suffix
    return text + ")"
