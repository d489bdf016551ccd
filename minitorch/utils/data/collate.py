"""Collation: turning a list of samples into one batch.

``default_collate`` is the ``DataLoader``'s default ``collate_fn``. It looks at the *first*
sample of the batch and recurses into its structure, stacking the leaves along a new
first dimension:

=====================================  ============================================
each sample is                         the batch is
=====================================  ============================================
a Tensor of shape ``s``                a Tensor of shape ``(batch, *s)`` (stacked)
a NumPy array (not strings/objects)    a Tensor, stacked; the array's dtype is kept
a NumPy scalar (``np.float32(1)``)     a 1-d Tensor of that dtype
a Python ``float``                     a float64 Tensor
a Python ``int`` (``bool``)            an int64 (bool) Tensor
a ``str`` or ``bytes``                 the list of them, unchanged
a dict ``{key: value}``                ``{key: collate(values of key)}``, same dict type
a named tuple                          the same named tuple of collated fields
a tuple or list ``(a, b)``             ``[collate(all a), collate(all b)]`` (*transposed*)
=====================================  ============================================

So a dataset returning ``(image, label)`` pairs gives batches ``[images, labels]``.

``default_convert`` is what the loader uses when batching is off (``batch_size=None``): it
only turns NumPy arrays into tensors, inside the same containers, and stacks nothing.
"""

from __future__ import annotations

import collections.abc
import copy

import numpy as np

from ... import _dtype
from ..._creation import as_tensor, from_numpy, tensor
from ..._tensor import Tensor
from ...ops.shape import stack

__all__ = ["default_collate", "default_convert"]

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _holds_strings_or_objects(array: np.ndarray) -> bool:
    # NumPy kinds: S bytes, a old bytes, U unicode, O Python objects: none of them becomes a tensor
    return array.dtype.kind in "SaUO"


def default_convert(data):
    """NumPy arrays (and NumPy scalars) become tensors, inside any dict, tuple or list; the rest is kept.

    Example::

        >>> import numpy as np
        >>> default_convert({"x": np.array([0, 1]), "name": "a"})
        {'x': tensor([0, 1]), 'name': 'a'}
    """
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if _holds_strings_or_objects(data) else as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        return _same_mapping_type(data, converted)
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a named tuple
        return type(data)(*(default_convert(item) for item in data))
    if isinstance(data, tuple):
        return [default_convert(item) for item in data]  # a list, as PyTorch does (for backward compatibility)
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _same_sequence_type(data, [default_convert(item) for item in data])
    return data


def default_collate(batch):
    """Stack a list of samples into a batch (see the table in this module's docstring).

    Example::

        >>> default_collate([0, 1, 2, 3])
        tensor([0, 1, 2, 3])
        >>> default_collate(["a", "b", "c"])
        ['a', 'b', 'c']
        >>> default_collate([{"A": 0, "B": 1}, {"A": 100, "B": 100}])
        {'A': tensor([  0, 100]), 'B': tensor([  1, 100])}
        >>> default_collate([(0, 1.5), (2, 3.5)])
        [tensor([0, 2]), tensor([1.5000, 3.5000], dtype=minitorch.float64)]
    """
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(batch, 0)
    if isinstance(first, np.ndarray):
        if _holds_strings_or_objects(first):
            raise TypeError(default_collate_err_msg_format.format(first.dtype))
        return stack([from_numpy(np.asarray(array)) for array in batch], 0)
    if isinstance(first, (np.bool_, np.number)):
        return from_numpy(np.array(batch))  # keeps the scalars' NumPy dtype, as torch.as_tensor does
    if isinstance(first, float):
        return tensor(batch, dtype=_dtype.float64)
    if isinstance(first, int):  # bool is an int: a list of bools becomes a bool tensor
        return tensor(batch)
    if isinstance(first, (str, bytes)):
        return batch
    if isinstance(first, collections.abc.Mapping):
        collated = {key: default_collate([sample[key] for sample in batch]) for key in first}
        return _same_mapping_type(first, collated)
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a named tuple: collate field by field
        return type(first)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        size = len(first)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # transpose: [(a0, b0), (a1, b1)] -> [(a0, a1), (b0, b1)], then collate each column
        # (a column of strings stays the tuple that zip made, as in PyTorch)
        columns = [default_collate(column) for column in zip(*batch)]
        if isinstance(first, tuple):
            return columns  # a list, as PyTorch does (for backward compatibility)
        return _same_sequence_type(first, columns)
    raise TypeError(default_collate_err_msg_format.format(type(first)))


def _same_mapping_type(template, values: dict):
    """``values`` in a mapping of ``template``'s type when that type can be rebuilt, else a plain dict."""
    try:
        if isinstance(template, collections.abc.MutableMapping):
            clone = copy.copy(template)  # keeps subclasses such as OrderedDict or defaultdict
            clone.update(values)
            return clone
        return type(template)(values)
    except TypeError:
        return values


def _same_sequence_type(template, values: list):
    try:
        if isinstance(template, collections.abc.MutableSequence):
            clone = copy.copy(template)
            for position, value in enumerate(values):
                clone[position] = value
            return clone
        return type(template)(values)
    except TypeError:
        return values
