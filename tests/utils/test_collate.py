"""default_collate / default_convert and the batches of a DataLoader without shuffling, against PyTorch.

Every kind of sample the collate table lists (tensors, NumPy arrays and scalars, Python
numbers, strings, dicts, named tuples, tuples and lists, nested) is loaded by both
DataLoaders in the same order; the batches must have the same structure, container types,
dtypes and values.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import DataLoader, default_collate, default_convert
from tests.support import require_torch
from tests.utils.parity import TensorLeaf, assert_same_batch, to_lib

Point = collections.namedtuple("Point", ["x", "y"])


def _samples(kind: str, count: int = 7) -> list:
    """``count`` samples of one kind; ``TensorLeaf(array)`` leaves become each library's tensors."""
    rng = np.random.default_rng(0)
    makers = {
        "tensor_float": lambda i: TensorLeaf(rng.standard_normal((2, 3)).astype(np.float32)),
        "tensor_int": lambda i: TensorLeaf(np.array([i, 2 * i], dtype=np.int64)),
        "tensor_scalar": lambda i: TensorLeaf(np.float64(i) / 3),
        "numpy_float32": lambda i: rng.standard_normal(4).astype(np.float32),
        "numpy_float64": lambda i: rng.standard_normal((2, 2)),
        "numpy_int16": lambda i: np.arange(3, dtype=np.int16) * i,
        "numpy_uint8": lambda i: np.full((2, 2), i, dtype=np.uint8),
        "numpy_bool": lambda i: np.array([i % 2 == 0, True]),
        "numpy_0d": lambda i: np.array(i * 1.5),
        "numpy_scalar_float32": lambda i: np.float32(i) / 2,
        "numpy_scalar_int32": lambda i: np.int32(i),
        "numpy_scalar_float64": lambda i: np.float64(i) * 0.1,
        "numpy_scalar_bool": lambda i: np.bool_(i % 3 == 0),
        "int": lambda i: i * 10,
        "float": lambda i: i / 4,
        "bool": lambda i: i % 2 == 1,
        "str": lambda i: f"sample {i}",
        "bytes": lambda i: bytes([65 + i]),
        "dict": lambda i: {"image": rng.standard_normal(3).astype(np.float32), "label": i, "name": str(i)},
        "ordered_dict": lambda i: collections.OrderedDict(b=i, a=float(i)),
        "namedtuple": lambda i: Point(x=i, y=np.array([i, i + 1], dtype=np.int32)),
        "tuple": lambda i: (rng.standard_normal(2).astype(np.float32), i),
        "list": lambda i: [i, float(i), "x"],
        "nested": lambda i: {"pair": (i, [float(i), TensorLeaf(np.array([i]))]), "meta": {"id": str(i)}},
    }
    return [makers[kind](i) for i in range(count)]


KINDS = [
    "tensor_float", "tensor_int", "tensor_scalar", "numpy_float32", "numpy_float64", "numpy_int16", "numpy_uint8",
    "numpy_bool", "numpy_0d", "numpy_scalar_float32", "numpy_scalar_int32", "numpy_scalar_float64",
    "numpy_scalar_bool", "int", "float", "bool", "str", "bytes", "dict", "ordered_dict", "namedtuple", "tuple",
    "list", "nested",
]


@pytest.mark.parametrize("kind", KINDS)
def test_default_collate_matches_pytorch(kind):
    torch = require_torch()
    samples = _samples(kind)
    ours = default_collate(to_lib(samples, minitorch))
    theirs = torch.utils.data.default_collate(to_lib(samples, torch))
    assert_same_batch(ours, theirs)


@pytest.mark.parametrize("kind", KINDS)
def test_default_convert_matches_pytorch(kind):
    torch = require_torch()
    for sample in _samples(kind, count=2):
        theirs = torch.utils.data.default_convert(to_lib(sample, torch))
        assert_same_batch(default_convert(to_lib(sample, minitorch)), theirs)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("batch_size, drop_last", [(3, False), (3, True), (1, False), (None, False)])
def test_dataloader_batches_equal_pytorch_without_shuffling(kind, batch_size, drop_last):
    torch = require_torch()
    samples = _samples(kind)
    ours = list(DataLoader(to_lib(samples, minitorch), batch_size=batch_size, drop_last=drop_last))
    theirs = list(torch.utils.data.DataLoader(to_lib(samples, torch), batch_size=batch_size, drop_last=drop_last))
    assert len(ours) == len(theirs)
    for index, (mine, other) in enumerate(zip(ours, theirs)):
        assert_same_batch(mine, other, f"batch {index}")


def test_default_convert_shares_memory_with_numpy_arrays():
    array = np.zeros(3)
    converted = default_convert(array)
    array[0] = 5.0
    assert converted[0].item() == 5.0


@pytest.mark.parametrize(
    "batch, error, message",
    [
        ([np.array(["a", "b"]), np.array(["c", "d"])], TypeError,
         "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <U1"),
        ([object(), object()], TypeError,
         "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'object'>"),
        ([[1, 2], [3]], RuntimeError, "each element in list of batch should be of equal size"),
    ],
)
def test_default_collate_errors_match_pytorch(batch, error, message):
    torch = require_torch()
    for collate in (default_collate, torch.utils.data.default_collate):
        with pytest.raises(error, match=message):
            collate(batch)


def test_default_collate_of_unequal_tensors_raises_pytorchs_stack_error():
    torch = require_torch()
    with pytest.raises(RuntimeError) as ours:
        default_collate([minitorch.zeros(3), minitorch.zeros(4)])
    with pytest.raises(RuntimeError) as theirs:
        torch.utils.data.default_collate([torch.zeros(3), torch.zeros(4)])
    assert str(ours.value) == str(theirs.value)


def test_numpy_object_and_string_arrays_are_left_alone_by_default_convert():
    strings = np.array(["a", "b"])
    assert default_convert(strings) is strings
