"""ONNX mappings of reading by index (``minitorch/ops/indexing.py``): ``x[key]``, ``index_select``, masks.

A basic key (ints, slices, ``None``, ``...``) becomes one ``Slice`` for the slices (ONNX
clamps starts and ends exactly as Python does, so sizes known only at run time are fine; a
bound computed from ``x.shape`` along a dynamic axis is computed in the graph as well),
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


def _bound(graph, value, other_value, default: int, third_value=None):
    """A slice bound or index: an int, or a rule ``(symbol, factor, offset)`` when it changed with a dynamic
    axis between the recordings (``T`` from ``x.shape[1]`` in ``mask[:T, :T]``)."""
    if value is None:
        return default
    other_value = value if other_value is None else other_value
    third_value = other_value if third_value is None else third_value
    if int(value) == int(other_value) == int(third_value):
        return int(value)
    return graph.size_rule(int(value), int(other_value), int(third_value))


def _same_form(key, other_key, rank: int) -> tuple:
    """``other_key`` (the key in another recording) laid out like ``key``; ``key`` itself when it has another form."""
    key = _expand_ellipsis(key if isinstance(key, tuple) else (key,), rank)
    if other_key is None:
        return key
    other_key = _expand_ellipsis(other_key if isinstance(other_key, tuple) else (other_key,), rank)
    return other_key if len(other_key) == len(key) else key


def basic_index(graph, name: str, key, rank: int, other_key=None, third_key=None) -> str:
    """``x[key]`` for a key of ints, slices, ``None`` and ``...``.

    ``other_key`` is the same key in the second recording: a bound that differs there was
    computed from a size of the input, and is computed in the graph too.
    """
    other_key, third_key = _same_form(key, other_key, rank), _same_form(key, third_key, rank)
    key = _expand_ellipsis(key if isinstance(key, tuple) else (key,), rank)
    starts, ends, axes, steps = [], [], [], []
    integers, new_axes = [], []
    axis = output_axis = 0
    for part, other, third in zip(key, other_key, third_key):
        if part is None:
            new_axes.append(output_axis)
            output_axis += 1
        elif isinstance(part, slice):
            if part != slice(None) and part != slice(None, None, 1):
                step = 1 if part.step is None else int(part.step)
                if isinstance(other, slice) and (other.step or 1) != step:
                    raise UnsupportedOperatorError(
                        f"Exporting 'minitorch::{graph.call.name}' with a slice step that depends on the input is not "
                        f"supported (called at {graph.call.where})"
                    )
                other = other if isinstance(other, slice) else part
                third = third if isinstance(third, slice) else part
                starts.append(_bound(graph, part.start, other.start, 0 if step > 0 else INT64_MAX, third.start))
                ends.append(_bound(graph, part.stop, other.stop, INT64_MAX if step > 0 else INT64_MIN, third.stop))
                axes.append(axis)
                steps.append(step)
            axis += 1
            output_axis += 1
        else:
            integers.append((axis, _bound(graph, part, other if not isinstance(other, slice) else part, 0,
                                          third if not isinstance(third, slice) else part)))
            axis += 1
    if axes:
        name = graph.node("Slice", [name, graph.int64_vector(starts), graph.int64_vector(ends), graph.int64s(axes),
                                    graph.int64s(steps)])
    for axis, index in reversed(integers):  # the last first, so the earlier axes keep their numbers
        index_name = (graph.constant(np.asarray(index, dtype=np.int64)) if isinstance(index, int)
                      else graph.squeeze(graph.size_of(index), [0]))  # a 0-d index drops the axis, like x[i]
        name = graph.node("Gather", [name, index_name], axis=axis)
    if new_axes:
        name = graph.unsqueeze(name, new_axes)
    if not axes and not integers and not new_axes:
        name = graph.node("Identity", [name])
    return name


@maps(ops.Slice, ops.Select, ops.Unsqueeze, ops.Alias, size_aware=True)
def slice_(graph, call):
    x, key = call.args
    other_key = getattr(call, "other_args", (None, None))[1]
    third_key = getattr(call, "third_args", (None, None))[1]
    return basic_index(graph, graph.input(call, 0), key, len(x.shape), other_key, third_key)


def _index_array(graph, part) -> str:
    if isinstance(part, Value):
        return graph.name_of(part) if part.dtype == np.int64 else graph.cast(graph.name_of(part), np.int64)
    return graph.constant(np.asarray(part, dtype=np.int64))


@maps(ops.Index, ops.IndexSelect, *ops.PADDINGS.values())
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
