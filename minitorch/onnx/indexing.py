"""ONNX mappings of reading by index (``minitorch/ops/indexing.py``): ``x[key]``, ``index_select``, masks.

A basic key (ints, slices, ``None``, ``...``) becomes one ``Slice`` for the slices (ONNX
clamps starts and ends exactly as Python does, so sizes known only at run time are fine),
a ``Gather`` with a 0-d index per int (which drops that dimension, like ``x[3]``), and one
``Unsqueeze`` for the ``None``s.
"""

from __future__ import annotations

import numpy as np

from ..ops import indexing as ops
from ._registry import maps
from ._trace import Value
from .errors import UnsupportedOperatorError

INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def _expand_ellipsis(key: tuple, rank: int) -> tuple:
    used = sum(1 for part in key if part is not None and part is not Ellipsis)
    if Ellipsis not in key:
        return key + (slice(None),) * (rank - used)
    at = key.index(Ellipsis)
    return key[:at] + (slice(None),) * (rank - used) + key[at + 1:]


def basic_index(graph, name: str, key, rank: int) -> str:
    """``x[key]`` for a key of ints, slices, ``None`` and ``...``."""
    key = _expand_ellipsis(key if isinstance(key, tuple) else (key,), rank)
    starts, ends, axes, steps = [], [], [], []
    integers, new_axes = [], []
    axis = output_axis = 0
    for part in key:
        if part is None:
            new_axes.append(output_axis)
            output_axis += 1
        elif isinstance(part, slice):
            if part != slice(None) and part != slice(None, None, 1):
                step = 1 if part.step is None else int(part.step)
                starts.append((0 if step > 0 else INT64_MAX) if part.start is None else int(part.start))
                ends.append((INT64_MAX if step > 0 else INT64_MIN) if part.stop is None else int(part.stop))
                axes.append(axis)
                steps.append(step)
            axis += 1
            output_axis += 1
        else:
            integers.append((axis, int(part)))
            axis += 1
    if axes:
        name = graph.node("Slice", [name, graph.int64s(starts), graph.int64s(ends), graph.int64s(axes),
                                    graph.int64s(steps)])
    for axis, index in reversed(integers):  # the last first, so the earlier axes keep their numbers
        name = graph.node("Gather", [name, graph.constant(np.asarray(index, dtype=np.int64))], axis=axis)
    if new_axes:
        name = graph.unsqueeze(name, new_axes)
    if not axes and not integers and not new_axes:
        name = graph.node("Identity", [name])
    return name


@maps(ops.Slice, ops.Select, ops.Unsqueeze, ops.Alias)
def slice_(graph, call):
    x, key = call.args
    return basic_index(graph, graph.input(call, 0), key, len(x.shape))


def _index_array(graph, part) -> str:
    if isinstance(part, Value):
        return graph.name_of(part) if part.dtype == np.int64 else graph.cast(graph.name_of(part), np.int64)
    return graph.constant(np.asarray(part, dtype=np.int64))


@maps(ops.Index, ops.IndexSelect)
def index(graph, call):
    """``x[..., indices, ...]`` with one integer index array among full slices: ``Gather`` on that axis."""
    x, key = call.args
    key = _expand_ellipsis(key if isinstance(key, tuple) else (key,), len(x.shape))
    arrays = [(axis, part) for axis, part in enumerate(key) if not isinstance(part, slice)]
    full = all(part == slice(None) for part in key if isinstance(part, slice))
    if len(arrays) != 1 or not full or np.asarray(getattr(arrays[0][1], "dtype", np.int64)).dtype == np.bool_ \
            or getattr(arrays[0][1], "dtype", None) == np.bool_:
        raise UnsupportedOperatorError(
            f"Exporting 'minitorch::{call.name}' with this index (several index arrays, a mask, or arrays mixed with "
            f"partial slices) is not supported (called at {call.where}); use index_select or gather"
        )
    axis, part = arrays[0]
    return graph.node("Gather", [graph.input(call, 0), _index_array(graph, part)], axis=axis)


@maps(ops.MaskedFill, ops.MaskedFillTensor)
def masked_fill(graph, call):
    """``x`` with ``value`` where ``mask``: ``Where(mask, value, x)``."""
    x, mask, value = call.args[:3]
    mask_name = graph.name_of(mask) if isinstance(mask, Value) else graph.constant(np.asarray(mask))
    if not isinstance(mask, Value) or mask.dtype != np.bool_:
        mask_name = graph.cast(mask_name, np.bool_)
    if isinstance(value, Value):
        value_name = graph.name_of(value)
        if value.dtype != x.dtype:
            value_name = graph.cast(value_name, x.dtype)
    else:
        value_name = graph.constant(np.asarray(value, dtype=x.dtype))
    return graph.node("Where", [mask_name, value_name, graph.input(call, 0)])


@maps(ops.Tril)
def tril(graph, call):
    return graph.node("Trilu", [graph.input(call, 0), graph.constant(np.asarray(int(call.args[1]), np.int64))],
                      upper=0)


@maps(ops.Triu)
def triu(graph, call):
    return graph.node("Trilu", [graph.input(call, 0), graph.constant(np.asarray(int(call.args[1]), np.int64))],
                      upper=1)
