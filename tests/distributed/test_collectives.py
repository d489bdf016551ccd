"""Every collective of minitorch.distributed, in real processes (2 and 4 ranks), against NumPy by hand.

One ``mpiexec`` launch per world size runs all the checks (scripts/collectives.py) and leaves each
rank's results in an archive; here NumPy computes what each rank must hold, from the same inputs
(scripts/collective_cases.py). Integer inputs make sums exact; floating-point sums may be added in
another order than NumPy's, hence a tolerance of a few units in the last place for them.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from tests.distributed.launch import run_mpiexec
from tests.distributed.scripts.collective_cases import DTYPES, rank_input

WORLD_SIZES = [2, 4]


@functools.cache
def _results(world: int, folder: str) -> list[dict]:
    run_mpiexec(world, "collectives.py", folder, timeout=180)
    return [dict(np.load(f"{folder}/rank{rank}.npz")) for rank in range(world)]


@pytest.fixture(scope="module", params=WORLD_SIZES, ids=lambda w: f"{w}ranks")
def world(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(f"collectives{request.param}")
    return request.param, _results(request.param, str(folder))


def _close(got, expected, dtype):
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if dtype.startswith("float"):  # MPI may add in another order than NumPy: rounding differs in the last bits
        np.testing.assert_allclose(got, expected, rtol={"float16": 1e-3, "float32": 1e-6, "float64": 1e-13}[dtype],
                                   atol={"float16": 1e-2, "float32": 1e-6, "float64": 1e-13}[dtype])
    else:
        np.testing.assert_array_equal(got, expected)


def _reduce(arrays, name, dtype):
    stacked = np.stack(arrays)
    if dtype == "bool":  # a reduced bool tensor is what the op gives on 0/1, cast back to bool
        stacked = stacked.astype(np.int64)
    wide = stacked.astype(np.float64) if dtype == "float16" else stacked
    result = {"sum": wide.sum(0), "max": wide.max(0), "min": wide.min(0), "product": wide.prod(0),
              "avg": wide.sum(0) / len(arrays)}[name]
    return result.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_all_reduce_every_op(world, dtype):
    size, results = world
    inputs = [rank_input(r, dtype) for r in range(size)]
    names = ["sum", "max", "min", "product"] + (["avg"] if dtype.startswith("float") else [])
    for rank in range(size):
        for name in names:
            _close(results[rank][f"all_reduce/{dtype}/{name}"], _reduce(inputs, name, dtype), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_data_movement(world, dtype):
    size, results = world
    inputs = [rank_input(r, dtype) for r in range(size)]
    for rank in range(size):
        got = results[rank]
        np.testing.assert_array_equal(got[f"broadcast/{dtype}"], inputs[size - 1])
        np.testing.assert_array_equal(got[f"all_gather/{dtype}"], np.stack(inputs))
        np.testing.assert_array_equal(got[f"all_gather_into_tensor/{dtype}/cat"], np.concatenate(inputs))
        np.testing.assert_array_equal(got[f"all_gather_into_tensor/{dtype}/stack"], np.stack(inputs))
        np.testing.assert_array_equal(got[f"scatter/{dtype}"], rank_input(rank, dtype, salt=2))
        np.testing.assert_array_equal(got[f"send_recv/{dtype}"], inputs[(rank - 1) % size])
        assert int(got[f"send_recv/{dtype}/sender"]) == (rank - 1) % size
    np.testing.assert_array_equal(results[0][f"gather/{dtype}"], np.stack(inputs))
    assert f"gather/{dtype}" not in results[1]


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "bool"])
def test_reduce_and_reduce_scatter(world, dtype):
    size, results = world
    inputs = [rank_input(r, dtype) for r in range(size)]
    _close(results[size - 1][f"reduce/{dtype}"], _reduce(inputs, "sum", dtype), dtype)
    for rank in range(size - 1):  # the other ranks keep their own tensor
        np.testing.assert_array_equal(results[rank][f"reduce/{dtype}"], inputs[rank])
    big = [np.concatenate([rank_input(r, dtype, salt=1)] * size) for r in range(size)]
    total = _reduce(big, "sum", dtype)
    rows = inputs[0].shape[0]
    for rank in range(size):
        _close(results[rank][f"reduce_scatter_tensor/{dtype}"], total[rank * rows:(rank + 1) * rows], dtype)


def test_non_contiguous_tensor_is_reduced_in_place(world):
    size, results = world
    expected = sum(rank_input(r, "float64") for r in range(size))
    for rank in range(size):
        np.testing.assert_allclose(results[rank]["all_reduce/noncontiguous"], expected, rtol=1e-13, atol=1e-13)


def test_async_handles(world):
    size, results = world
    for rank in range(size):
        assert bool(results[rank]["async/completed_by_polling"])
        assert bool(results[rank]["async/barrier"])
        for k in range(3):
            expected = sum(rank_input(r, "float64", salt=3 + k) for r in range(size))
            np.testing.assert_allclose(results[rank][f"async/{k}"], expected, rtol=1e-13, atol=1e-13)


def test_sub_groups(world):
    size, results = world
    ends, odd = [0, size - 1], [r for r in range(size) if r % 2 == 1]
    for rank in range(size):
        got = results[rank]
        assert int(got["group/ends/rank"]) == (ends.index(rank) if rank in ends else -1)
        assert int(got["group/ends/size"]) == (2 if rank in ends else -1)
        assert bool(got["group/ends/returned_none"])
        if rank in ends:
            expected = sum(rank_input(r, "int64", salt=4) for r in ends)
        else:  # not a member: the call does nothing
            expected = rank_input(rank, "int64", salt=4)
        np.testing.assert_array_equal(got["group/ends/all_reduce"], expected)
        if rank in odd:
            np.testing.assert_array_equal(got["group/odd/broadcast"], rank_input(size - 1, "int64", salt=5))
            np.testing.assert_array_equal(got["group/odd/all_gather"],
                                          np.stack([rank_input(r, "int64", salt=6) for r in odd]))
        else:
            np.testing.assert_array_equal(got["group/odd/broadcast"], rank_input(rank, "int64", salt=5))


def test_errors_in_pytorchs_words_and_destroy(world):
    size, results = world
    for rank in range(size):
        got = results[rank]
        assert str(got["errors/all_gather_into_tensor"]) == (
            "output tensor size must be equal to world_size times input tensor size")
        assert not bool(got["after/is_initialized"])
    assert "must NOT be specified on non-destination ranks" in str(results[1]["errors/gather_list"])
    assert "must be specified on destination rank" in str(results[0]["errors/gather_list"])
