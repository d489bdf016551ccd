"""``torch.save`` of a view writes its whole storage, and ``torch.load`` gives back a view of that whole storage
(``untyped_storage()``, ``storage_offset()``, views sharing memory), compared with PyTorch's files and loads."""

from __future__ import annotations

import io

import pytest

import minitorch
from tests.support import require_torch


@pytest.fixture
def torch():
    return require_torch()


def _round_trip(lib):
    large = lib.arange(1, 1000, dtype=lib.float64)
    small = large[3:8]
    buffer = io.BytesIO()
    lib.save([small, large[10:20:3]], buffer)
    buffer.seek(0)
    loaded_small, loaded_strided = lib.load(buffer)
    return (loaded_small.untyped_storage().size(), loaded_small.storage_offset(), loaded_strided.storage_offset(),
            loaded_strided.stride(), loaded_strided.tolist(), loaded_strided.untyped_storage().data_ptr() ==
            loaded_small.untyped_storage().data_ptr(), len(buffer.getvalue()) > 999 * 8)


def test_a_saved_view_loads_as_a_view_of_its_whole_storage(torch):
    assert _round_trip(minitorch) == _round_trip(torch)
    assert _round_trip(minitorch)[0] == 999 * 8


def test_a_saved_clone_is_small(torch):
    def build(lib):
        buffer = io.BytesIO()
        lib.save(lib.arange(1, 1000)[0:5].clone(), buffer)
        buffer.seek(0)
        return lib.load(buffer).untyped_storage().size()

    assert build(minitorch) == build(torch) == 40
