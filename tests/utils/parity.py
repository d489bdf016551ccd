"""Comparing minitorch results with PyTorch's: the same structure, types, dtypes and values."""

from __future__ import annotations

import numpy as np

import minitorch


def assert_same_batch(ours, theirs, path: str = "batch") -> None:
    """``ours`` (minitorch) has the structure, container types, dtypes, shapes and values of ``theirs`` (torch)."""
    import torch

    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, minitorch.Tensor), f"{path}: {type(ours).__name__} instead of a tensor"
        same_dtype = str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert same_dtype, f"{path}: {ours.dtype} vs {theirs.dtype}"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{path}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=path)
        return
    assert type(ours).__name__ == type(theirs).__name__, f"{path}: {type(ours).__name__} vs {type(theirs).__name__}"
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs), f"{path}: keys {list(ours)} vs {list(theirs)}"
        for key in theirs:
            assert_same_batch(ours[key], theirs[key], f"{path}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), f"{path}: length {len(ours)} vs {len(theirs)}"
        if hasattr(theirs, "_fields"):
            assert ours._fields == theirs._fields
        for index, (mine, other) in enumerate(zip(ours, theirs)):
            assert_same_batch(mine, other, f"{path}[{index}]")
    elif isinstance(theirs, np.ndarray):
        assert ours.dtype == theirs.dtype, path
        np.testing.assert_array_equal(ours, theirs, err_msg=path)
    else:
        assert ours == theirs, f"{path}: {ours!r} vs {theirs!r}"


class TensorLeaf:
    """A place in a sample description where each library puts its own tensor (see ``to_lib``)."""

    def __init__(self, array) -> None:
        self.array = array


def to_lib(value, lib):
    """A sample description with its ``TensorLeaf`` leaves made into ``lib`` tensors."""
    if isinstance(value, TensorLeaf):
        return lib.tensor(value.array)
    if isinstance(value, dict):
        return type(value)((key, to_lib(item, lib)) for key, item in value.items())
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_lib(item, lib) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(to_lib(item, lib) for item in value)
    return value
