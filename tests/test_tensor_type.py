"""The legacy typed classes (``FloatTensor``, ``LongTensor``...) and ``Tensor.type``, against PyTorch."""

from __future__ import annotations

import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


NAMES = ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor",
         "CharTensor", "ByteTensor", "BoolTensor")


def _describe(lib, build):
    try:
        value = build(lib)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return ("error", type(error).__name__, str(error))
    if isinstance(value, (minitorch.Tensor,)) or type(value).__name__ == "Tensor":
        data = value.tolist() if value.numel() and "empty" not in getattr(build, "__name__", "") else None
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), data)
    return ("value", value)


CASES = {
    "shape": lambda lib: lib.FloatTensor(2, 3).shape,
    "size-object": lambda lib: lib.LongTensor(lib.Size([2, 1])).shape,
    "empty": lambda lib: lib.DoubleTensor(),
    "data-list": lambda lib: lib.FloatTensor([1, 2, 3]),
    "data-tuple": lambda lib: lib.LongTensor((1, 2)),
    "data-nested": lambda lib: lib.IntTensor([[1, 2], [3, 4]]),
    "bool": lambda lib: lib.BoolTensor([1, 0, 1]),
    "byte": lambda lib: lib.ByteTensor([1, 255]),
    "char": lambda lib: lib.CharTensor([-1, 2]),
    "short": lambda lib: lib.ShortTensor([3]),
    "from-same-tensor": lambda lib: lib.FloatTensor(lib.tensor([1.0, 2.0])),
    "from-other-tensor": lambda lib: lib.FloatTensor(lib.tensor([1, 2])),
    "isinstance-float": lambda lib: isinstance(lib.ones(2), lib.FloatTensor),
    "isinstance-long": lambda lib: isinstance(lib.ones(2), lib.LongTensor),
    "isinstance-long-true": lambda lib: isinstance(lib.arange(2), lib.LongTensor),
    "isinstance-double": lambda lib: isinstance(lib.ones(2, dtype=lib.float64), lib.DoubleTensor),
    "isinstance-non-tensor": lambda lib: isinstance([1.0], lib.FloatTensor),
    "dtype-attribute": lambda lib: str(lib.LongTensor.dtype).split(".")[-1],
    "not-a-subclass": lambda lib: issubclass(lib.FloatTensor, lib.Tensor),
    "type-name": lambda lib: lib.ones(2).type(),
    "type-name-long": lambda lib: lib.arange(2).type(),
    "type-name-bool": lambda lib: (lib.ones(2) > 0).type(),
    "type-to-class": lambda lib: lib.ones(2).type(lib.LongTensor),
    "type-to-string": lambda lib: lib.ones(2).type("torch.IntTensor"),
    "type-to-dtype": lambda lib: lib.ones(2).type(lib.float64),
    "type-bad-string": lambda lib: lib.ones(2).type("torch.NopeTensor"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_typed_classes_match_pytorch(torch, case):
    build = CASES[case]
    ours, theirs = _describe(minitorch, build), _describe(torch, build)
    if case == "shape" or case == "empty":
        assert ours[:3] == theirs[:3]  # uninitialised memory: only dtype and shape are defined
    else:
        assert ours == theirs


def test_every_typed_class_exists_and_makes_its_dtype(torch):
    for name in NAMES:
        ours, theirs = getattr(minitorch, name), getattr(torch, name)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert ours(2).dtype is ours.dtype and isinstance(ours(2), ours)
        assert ours.__name__ == theirs.__name__ == name


def test_type_keeps_the_graph():
    x = minitorch.ones(2, requires_grad=True)
    y = x.type(minitorch.DoubleTensor)
    y.sum().backward()
    assert y.dtype is minitorch.float64 and x.grad.tolist() == [1.0, 1.0]
