"""Chapter 1's exercise checks reject the typical mistakes: distances without the square root or
transposed, a masked mean over every column or one mean for all rows, columns standardized with the
population spread, by row or not centred, one-hot codes as integers or transposed.

The checks every chapter shares (the solutions pass, the blank stubs report "not implemented yet")
are in test_chapter_exercises.py.
"""

from __future__ import annotations

import pytest

import minitorch
from grading import check


def forgot_square_root(a, b):
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(dim=-1)


def transposed_distances(a, b):
    return ((a[None, :, :] - b[:, None, :]) ** 2).sum(dim=-1).sqrt()  # shape (m, n), not (n, m)


def divided_by_columns(x, mask):
    return (x * mask).sum(dim=1) / x.shape[1]


def one_mean_for_all(x, mask):
    return x[mask].mean()


def population_std(x):
    return (x - x.mean(dim=0)) / x.std(dim=0, correction=0)


def standardized_rows(x):
    return (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True)


def not_centred(x):
    return x / x.std(dim=0)


def integer_one_hot(labels, num_classes):
    return minitorch.nn.functional.one_hot(labels, num_classes)


def transposed_one_hot(labels, num_classes):
    return (minitorch.arange(num_classes)[:, None] == labels[None, :]).float()


@pytest.mark.parametrize(
    "name, wrong",
    [
        ("pairwise_distances", forgot_square_root),
        ("pairwise_distances", transposed_distances),
        ("masked_mean", divided_by_columns),
        ("masked_mean", one_mean_for_all),
        ("standardize_columns", population_std),
        ("standardize_columns", standardized_rows),
        ("standardize_columns", not_centred),
        ("one_hot", integer_one_hot),
        ("one_hot", transposed_one_hot),
    ],
)
def test_typical_mistakes_fail(name, wrong, capsys):
    with pytest.raises(AssertionError):
        check(f"ch01.{name}", wrong)
    assert "FAILED" in capsys.readouterr().out


# -- build it: the strided tensor, broadcasting, kernels, the block matrix product ----------------------------
# Each mistake is the reference solution (the instructor's edition's cell) with one method or line changed, the
# way a learner gets it wrong; the check must fail and its report must name the concept (the output's name).
import math  # noqa: E402

import numpy as np  # noqa: E402

from grading.library import tensor as strided  # noqa: E402
from tests.grading.chapter_notebooks import NOTEBOOK_IMPORTS, graded_cells, solutions  # noqa: E402
from tests.support import require_torch  # noqa: E402


def _fresh(cell: str) -> dict:
    """The instructor's cell run in a fresh namespace: a class of its own, safe to break one method of."""
    names = dict(NOTEBOOK_IMPORTS)
    for grade_id in ("ch01-strided", "ch01-broadcast", cell):
        exec(graded_cells("01_tensors", "source", "solution")[grade_id], names)
    return names


def _strided_with(method: str, replacement) -> type:
    names = _fresh("ch01-strided")
    setattr(names["StridedTensor"], method, replacement)
    return names["StridedTensor"]


def _transpose_shape_only(self, dim0, dim1):
    shape = list(self.shape)
    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    return type(self)(self.storage, shape, self.strides, self.offset)


def _slice_keeps_offset(self, slices):
    shape, strides = list(self.shape), list(self.strides)
    for d, cut in enumerate(slices):
        start, stop, step = cut.indices(shape[d])
        shape[d], strides[d] = len(range(start, stop, step)), strides[d] * step
    return type(self)(self.storage, shape, strides, self.offset)


def _slice_keeps_stride(self, slices):
    shape, offset = list(self.shape), self.offset
    for d, cut in enumerate(slices):
        start, stop, step = cut.indices(shape[d])
        shape[d], offset = len(range(start, stop, step)), offset + start * self.strides[d]
    return type(self)(self.storage, shape, self.strides, offset)


def _expand_keeps_stride(self, *sizes):
    added = len(sizes) - len(self.shape)
    shape = [size if size != -1 else self.shape[d - added] for d, size in enumerate(sizes)]
    strides = [0] * added + list(self.strides)
    return type(self)(self.storage, shape, strides, self.offset)


def _contiguous_strict(self):
    expected, step = [], 1
    for size in reversed(self.shape):
        expected.insert(0, step)
        step *= size
    return list(self.strides) == expected


def _permute_inverse(self, *dims):
    inverse = [dims.index(d) for d in range(len(dims))]
    return type(self)(self.storage, [self.shape[d] for d in inverse], [self.strides[d] for d in inverse], self.offset)


def _positions_without_offset(self):
    grids = np.indices(self.shape)
    return sum((grid * stride for grid, stride in zip(grids, self.strides)), np.zeros(self.shape, dtype=np.int64))


STRIDED_MISTAKES = {
    "transpose swaps the sizes, not the strides": (
        _strided_with("transpose", _transpose_shape_only), "strides after transpose"),
    "slicing ignores the storage offset": (
        _strided_with("__getitem__", _slice_keeps_offset), "storage offset after slicing"),
    "slicing ignores the step's stride": (_strided_with("__getitem__", _slice_keeps_stride), "strides after slicing"),
    "expand keeps a non-zero stride": (_strided_with("expand", _expand_keeps_stride), "strides after expand"),
    "is_contiguous checks size-1 dimensions too": (
        _strided_with("is_contiguous", _contiguous_strict), "is_contiguous() after as_strided"),
    "permute applies the inverse permutation": (_strided_with("permute", _permute_inverse), "after permute"),
    "positions() forgets the offset": (
        _strided_with("positions", _positions_without_offset), "values (read through positions())"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(STRIDED_MISTAKES))
def test_strided_tensor_mistakes_fail_naming_the_concept(mistake, capsys):
    tensor_class, concept = STRIDED_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch01.strided_views", lambda *case: strided.views_report(tensor_class, *case))
    out = capsys.readouterr().out
    assert "FAILED" in out and concept in out, out


def _view_always(self, *shape):
    return type(self)(self.storage, shape, None, self.offset)


def _view_only_when_contiguous(self, *shape):
    if not self.is_contiguous():
        raise RuntimeError(strided.VIEW_ERROR)
    return type(self)(self.storage, shape, None, self.offset)


def _view_other_words(self, *shape):
    try:
        return VIEW_REFERENCE(self, *shape)
    except RuntimeError:
        raise RuntimeError("cannot view a non-contiguous tensor") from None


def _view_drops_offset(self, *shape):
    view = VIEW_REFERENCE(self, *shape)
    return type(self)(view.storage, view.shape, view.strides, 0)


def _contiguous_no_copy(self):
    return self


def _contiguous_memory_order(self):
    if self.is_contiguous():
        return self
    count = math.prod(self.shape)
    return type(self)(self.storage[self.offset:self.offset + count].copy(), self.shape)


def _contiguous_always_copies(self):
    return type(self)(self.storage[self.positions()].reshape(-1), self.shape)


VIEW_REFERENCE = solutions("01_tensors")["StridedTensor"].view
VIEW_CONCEPT = "view of the strided tensor: 1 made, 0 refused"
VIEW_MISTAKES = {
    "view allowed on a non-contiguous tensor": (_strided_with("view", _view_always), VIEW_CONCEPT),
    "view refused whenever the tensor is not contiguous": (
        _strided_with("view", _view_only_when_contiguous), VIEW_CONCEPT),
    "view refuses in its own words": (_strided_with("view", _view_other_words), VIEW_CONCEPT),
    "view drops the storage offset": (_strided_with("view", _view_drops_offset), "storage offset of that view"),
    "contiguous returns a non-contiguous tensor as it is": (
        _strided_with("contiguous", _contiguous_no_copy), "is_contiguous() after contiguous()"),
    "contiguous copies the storage in memory order": (
        _strided_with("contiguous", _contiguous_memory_order), "values after contiguous()"),
    "contiguous copies a tensor that is contiguous already": (
        _strided_with("contiguous", _contiguous_always_copies), "contiguous() of a contiguous tensor returns it"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(VIEW_MISTAKES))
def test_view_and_contiguous_mistakes_fail_naming_the_concept(mistake, capsys):
    tensor_class, concept = VIEW_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch01.view_and_contiguous", lambda *case: strided.view_report(tensor_class, *case))
    out = capsys.readouterr().out
    assert "FAILED" in out and concept in out, out


class RunsStridedTensor(solutions("01_tensors")["StridedTensor"]):
    """Correct, written differently: positions by broadcasting aranges; view by merging the old dimensions into
    contiguous runs first, then cutting the new shape into those runs; index by np.unravel_index."""

    def _make(self, shape, strides, offset):
        return RunsStridedTensor(self.storage, shape, strides, offset)

    def positions(self):
        total = np.full(self.shape, self.offset, dtype=np.int64)
        for d, (size, stride) in enumerate(zip(self.shape, self.strides)):
            axis_shape = (1,) * d + (size,) + (1,) * (len(self.shape) - d - 1)
            total = total + (np.arange(size) * stride).reshape(axis_shape)
        return total

    def index(self, position):
        return tuple(int(i) for i in np.unravel_index(position - self.offset, self.shape))

    def is_contiguous(self):
        sizes = [n for n in self.shape if n != 1]
        strides = [s for n, s in zip(self.shape, self.strides) if n != 1]
        return all(strides[d] == math.prod(sizes[d + 1:]) for d in range(len(sizes)))

    def permute(self, *dims):
        order = list(dims)
        return self._make(tuple(np.array(self.shape)[order]), tuple(np.array(self.strides)[order]), self.offset)

    def transpose(self, dim0, dim1):
        order = list(range(len(self.shape)))
        order[dim1], order[dim0] = dim0, dim1
        return self.permute(*order)

    def __getitem__(self, slices):
        shape, strides, offset = list(self.shape), list(self.strides), self.offset
        for d, cut in enumerate(slices):
            chosen = range(shape[d])[cut]
            offset += (chosen.start if len(chosen) else 0) * strides[d]
            shape[d], strides[d] = len(chosen), strides[d] * chosen.step
        return self._make(shape, strides, offset)

    def expand(self, *sizes):
        padded_shape = (1,) * (len(sizes) - len(self.shape)) + self.shape
        padded_strides = (0,) * (len(sizes) - len(self.shape)) + self.strides
        shape = [old if new == -1 else new for new, old in zip(sizes, padded_shape)]
        strides = [stride if new == old else 0 for new, old, stride in zip(shape, padded_shape, padded_strides)]
        return self._make(shape, strides, self.offset)

    def as_strided(self, shape, strides, offset):
        return self._make(shape, strides, offset)

    def view(self, *shape):
        error = solutions("01_tensors")["VIEW_ERROR"]
        runs = []  # (element count, innermost stride) of each contiguous run, innermost run last
        for size, stride in zip(self.shape, self.strides):
            if size == 1:
                continue
            if runs and runs[-1][1] == stride * size:
                runs[-1] = (runs[-1][0] * size, stride)
            else:
                runs.append((size, stride))
        strides = [0] * len(shape)
        new_d = len(shape) - 1
        for count, stride in reversed(runs):
            covered = 1
            while covered < count:
                if new_d < 0:
                    raise RuntimeError(error)
                strides[new_d] = stride * covered
                covered *= shape[new_d]
                new_d -= 1
            if covered != count:
                raise RuntimeError(error)
        if any(shape[d] != 1 for d in range(new_d + 1)):
            raise RuntimeError(error)
        return self._make(shape, strides, self.offset)

    def contiguous(self):
        if self.is_contiguous():
            return self
        return RunsStridedTensor(self.numpy().ravel(), self.shape)


def test_a_strided_tensor_written_differently_passes(capsys):
    check("ch01.strided_views", lambda *case: strided.views_report(RunsStridedTensor, *case))
    check("ch01.view_and_contiguous", lambda *case: strided.view_report(RunsStridedTensor, *case))
    out = capsys.readouterr().out
    assert out.count("public cases pass") == 2, out


# -- parity with PyTorch, on views of views ------------------------------------------------------------------
class TorchStridedTensor:
    """The strided-tensor interface answered by PyTorch: torch.as_strided on the storage, and .stride(),
    .storage_offset(), .is_contiguous() of each view."""

    def __init__(self, storage, shape, strides=None, offset=0, *, tensor=None):
        torch = require_torch()
        self.storage = storage
        if tensor is None:
            flat = torch.from_numpy(storage)
            shape = tuple(int(n) for n in shape)
            strides = tuple(int(s) for s in strides) if strides is not None else strided._contiguous_strides(shape)
            tensor = flat.as_strided(shape, strides, int(offset))
        self.tensor = tensor
        self.shape, self.strides, self.offset = tuple(tensor.shape), tuple(tensor.stride()), tensor.storage_offset()

    def _like(self, tensor):
        return TorchStridedTensor(self.storage, None, tensor=tensor)

    def position(self, index):
        return self.offset + sum(i * s for i, s in zip(index, self.strides))

    def index(self, position):
        return tuple(int(i) for i in np.unravel_index(position - self.offset, self.shape))

    def positions(self):
        torch = require_torch()
        every = torch.arange(self.storage.size)
        return every.as_strided(self.shape, self.strides, self.offset).numpy()

    def is_contiguous(self):
        return self.tensor.is_contiguous()

    def permute(self, *dims):
        return self._like(self.tensor.permute(*dims))

    def transpose(self, dim0, dim1):
        return self._like(self.tensor.transpose(dim0, dim1))

    def __getitem__(self, slices):
        return self._like(self.tensor[slices])

    def expand(self, *sizes):
        return self._like(self.tensor.expand(*sizes))

    def as_strided(self, shape, strides, offset):
        return self._like(self.tensor.as_strided(tuple(shape), tuple(strides), offset))

    def view(self, *shape):
        return self._like(self.tensor.view(*shape))

    def contiguous(self):
        result = self.tensor.contiguous()
        if result.data_ptr() == self.tensor.data_ptr():
            return self
        return TorchStridedTensor(result.numpy().reshape(-1), result.shape)


def _random_view_cases(count: int, seed: int):
    """Random chains for views_report: shapes of 1 to 4 dimensions (size 1 included), any permutation, slices
    with steps, as_strided windows inside the storage, expands of the size-1 dimensions and new ones."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        shape = rng.integers(1, 5, rng.integers(1, 5))
        permutation = rng.permutation(len(shape))
        size = int(np.prod(shape)) + 4
        slices = []  # never empty: an empty view's storage offset is not defined by its elements
        for extent in shape[permutation]:
            start = int(rng.integers(0, extent))
            slices.append([start, int(rng.integers(start + 1, extent + 2)), int(rng.integers(1, 3))])
        as_shape = rng.integers(1, 4, rng.integers(1, 4))
        as_shape[rng.integers(0, len(as_shape))] = 1
        as_strides = rng.integers(0, 4, len(as_shape))
        reach = int(((as_shape - 1) * as_strides).sum())
        as_offset = int(rng.integers(0, size - reach)) if reach < size else 0
        if reach >= size:
            as_strides[:] = 0
        expand = [int(rng.integers(2, 4)) if n == 1 else -1 for n in as_shape]
        yield (rng.standard_normal(size), shape, permutation, np.array(slices), as_shape, as_strides,
               as_offset, np.array([2] + expand))  # fmt: skip


def _random_reshape_cases(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        shape = rng.integers(1, 5, rng.integers(1, 4))
        total, view_shape = int(np.prod(shape)), []
        while total > 1 and len(view_shape) < 3:
            divisors = [d for d in range(1, total + 1) if total % d == 0]
            view_shape.append(int(rng.choice(divisors)))
            total //= view_shape[-1]
        view_shape.append(total)
        storage = rng.standard_normal(int(np.prod(shape)) + 3)
        yield storage, shape, rng.permutation(len(shape)), 2, np.array(view_shape)


def _same_report(report, expected_class, case):
    expected = report(expected_class, *case)
    for tensor_class in (strided.MinitorchStridedTensor, solutions("01_tensors")["StridedTensor"], RunsStridedTensor):
        got = report(tensor_class, *case)
        for position, (want, have) in enumerate(zip(expected, got)):
            assert np.array_equal(np.asarray(want), np.asarray(have)), (tensor_class.__name__, position, case)


def test_views_of_views_match_pytorch():
    """Strides, storage offsets, contiguity and values of every step, from minitorch's strided tensor, the
    reference solution and the one written differently, equal PyTorch's on random chains of views."""
    require_torch()
    for case in _random_view_cases(150, seed=0):
        _same_report(strided.views_report, TorchStridedTensor, case)


def test_view_and_contiguous_match_pytorch():
    """Which views PyTorch makes and refuses (with its words), their strides, and contiguous()'s copies."""
    require_torch()
    made = 0
    for case in _random_reshape_cases(300, seed=1):
        _same_report(strided.view_report, TorchStridedTensor, case)
        made += int(strided.view_report(TorchStridedTensor, *case)[0])
    assert 0 < made < 300  # both outcomes were tested


# -- broadcasting ------------------------------------------------------------------------------------------------
def _broadcast_from_the_left(shape_a, shape_b):
    if len(shape_a) != len(shape_b):
        shorter, longer = sorted((tuple(shape_a), tuple(shape_b)), key=len)
        shape_a, shape_b = shorter + (1,) * (len(longer) - len(shorter)), longer
    return tuple(max(a, b) for a, b in zip(shape_a, shape_b))


def _broadcast_taking_the_larger(shape_a, shape_b):
    ndim = max(len(shape_a), len(shape_b))
    a, b = (1,) * (ndim - len(shape_a)) + tuple(shape_a), (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    return tuple(max(x, y) for x, y in zip(a, b))


def _dimension_from_the_right(shape_a, shape_b):
    try:
        return solutions("01_tensors")["broadcast_shapes"](shape_a, shape_b)
    except RuntimeError as error:
        *words, dimension = str(error).split()
        ndim = max(len(shape_a), len(shape_b))
        raise RuntimeError(" ".join(words + [str(ndim - 1 - int(dimension))])) from None


def _index_unchanged(index, big_shape, shape):
    skipped = len(big_shape) - len(shape)
    return tuple(index[skipped:])


def _index_from_the_left(index, big_shape, shape):
    return tuple(0 if size == 1 else index[d] for d, size in enumerate(shape))


def _broadcasting_with(shapes=None, index=None):
    names = solutions("01_tensors")
    shapes, index = shapes or names["broadcast_shapes"], index or names["broadcast_index"]
    return lambda a, b: strided.broadcasting_report(shapes, index, a, b)


BROADCAST_MISTAKES = {
    "shapes aligned from the left": (_broadcasting_with(shapes=_broadcast_from_the_left), "the broadcast shape"),
    "mismatched sizes accepted (the larger wins)": (
        _broadcasting_with(shapes=_broadcast_taking_the_larger), "shapes that do not broadcast"),
    "the error counts dimensions from the right": (
        _broadcasting_with(shapes=_dimension_from_the_right), "the sizes and the dimension PyTorch's message names"),
    "broadcast_index reads past a size-1 dimension": (
        _broadcasting_with(index=_index_unchanged), "broadcast_index into"),
    "broadcast_index aligned from the left": (_broadcasting_with(index=_index_from_the_left), "broadcast_index into"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(BROADCAST_MISTAKES))
def test_broadcasting_mistakes_fail_naming_the_concept(mistake, capsys):
    function, concept = BROADCAST_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check("ch01.broadcasting", function)
    out = capsys.readouterr().out
    assert "FAILED" in out and concept in out, out


def test_broadcasting_written_differently_passes(capsys):
    def shapes(shape_a, shape_b):
        result = []
        for d in range(1, max(len(shape_a), len(shape_b)) + 1):
            a = shape_a[-d] if d <= len(shape_a) else 1
            b = shape_b[-d] if d <= len(shape_b) else 1
            if a != 1 and b != 1 and a != b:
                dimension = max(len(shape_a), len(shape_b)) - d
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
                    f"dimension {dimension}"
                )
            result.insert(0, a * b if 1 in (a, b) else a)
        return tuple(result)

    def index(big_index, big_shape, shape):
        return tuple(np.where(np.array(shape) == 1, 0, np.array(big_index)[len(big_shape) - len(shape):]).tolist())

    check("ch01.broadcasting", lambda a, b: strided.broadcasting_report(shapes, index, a, b))
    assert "all 4 public cases pass" in capsys.readouterr().out


# -- kernels -------------------------------------------------------------------------------------------------
def _kernels(cell: str, **replaced):
    names = _fresh(cell)
    names.update(replaced)
    vectorised = cell != "ch01-kernels-loop"
    kernels = ("tensor_map", "tensor_zip", "tensor_reduce") if vectorised else ("map_loop", "zip_loop", "reduce_loop")
    return lambda *case: strided.kernels_report(
        strided.MinitorchStridedTensor, *(names[k] for k in kernels), *case, vectorised=vectorised
    )


def _loop_position_without_offset(tensor, index):
    return sum(i * s for i, s in zip(index, tensor.strides))


def _loop_map_by_ordinal(fn, out, a):
    names = _fresh("ch01-kernels-loop")
    for ordinal in range(math.prod(out.shape)):
        index = names["index_of_ordinal"](ordinal, out.shape)
        out.storage[ordinal] = fn(a.storage[names["position_in"](a, index)])


def _loop_zip_without_broadcasting(fn, out, a, b):
    names = _fresh("ch01-kernels-loop")
    for ordinal in range(math.prod(out.shape)):
        index = names["index_of_ordinal"](ordinal, out.shape)
        value_b = b.storage[b.offset + ordinal % math.prod(b.shape)]
        out.storage[names["position_in"](out, index)] = fn(a.storage[names["position_in"](a, index)], value_b)


def _loop_reduce_last_dim(fn, out, a, dim):
    """Steps along the last dimension of a, whatever dim says."""
    names = _fresh("ch01-kernels-loop")
    for ordinal in range(math.prod(out.shape)):
        index = list(names["index_of_ordinal"](ordinal, out.shape))
        where = names["position_in"](out, index)
        for k in range(a.shape[dim]):
            index[-1] = min(k, a.shape[-1] - 1)
            out.storage[where] = fn(out.storage[where], a.storage[names["position_in"](a, index)])


def _fast_positions_in_memory_order(tensor, shape):
    return tensor.offset + np.arange(math.prod(shape)).reshape(shape) % max(math.prod(tensor.shape), 1)


def _fast_reduce_restarting(fn, out, a, dim):
    positions_at = _fresh("ch01-kernels-fast")["positions_at"]
    out.storage[positions_at(out, out.shape)] = fn.reduce(a.storage[positions_at(a, a.shape)], axis=dim, keepdims=True)


LOOP, FAST = "ch01-kernels-loop", "ch01-kernels-fast"


def _loops_as_vectorised(*case):
    names = _fresh(LOOP)
    loops = (names["map_loop"], names["zip_loop"], names["reduce_loop"])
    return strided.kernels_report(strided.MinitorchStridedTensor, *loops, *case, vectorised=True)
KERNEL_MISTAKES = {
    "loop: the input's storage offset ignored": (
        "ch01.kernels_loop", _kernels(LOOP, position_in=_loop_position_without_offset), "map: out = a * a"),
    "loop: out written at the ordinal, not at out's position": (
        "ch01.kernels_loop", _kernels(LOOP, map_loop=_loop_map_by_ordinal), "map: out = a * a"),
    "loop: b not broadcast": ("ch01.kernels_loop", _kernels(LOOP, zip_loop=_loop_zip_without_broadcasting), "zip:"),
    "loop: reduce over the wrong dimension": (
        "ch01.kernels_loop", _kernels(LOOP, reduce_loop=_loop_reduce_last_dim), "reduce:"),
    "vectorised: the strides ignored (memory order)": (
        "ch01.kernels_vectorised", _kernels(FAST, positions_at=_fast_positions_in_memory_order), "map: out = a * a"),
    "vectorised: the loops handed in (correct values, one element at a time)": (
        "ch01.kernels_vectorised", _loops_as_vectorised, "single elements read or written one at a time"),
    "vectorised: reduce ignores out's start value": (
        "ch01.kernels_vectorised", _kernels(FAST, tensor_reduce=_fast_reduce_restarting), "reduce: sum over dim"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(KERNEL_MISTAKES))
def test_kernel_mistakes_fail_naming_the_concept(mistake, capsys):
    name, function, concept = KERNEL_MISTAKES[mistake]
    with pytest.raises(AssertionError):
        check(name, function)
    out = capsys.readouterr().out
    assert "FAILED" in out and concept in out, out


def test_kernels_written_differently_pass(capsys):
    """Loops over np.ndindex with the index math inline; vectorised with np.broadcast_to of the positions."""

    def at(tensor, index):
        own = index[len(index) - len(tensor.shape) :]
        return tensor.offset + sum((0 if n == 1 else i) * s for i, n, s in zip(own, tensor.shape, tensor.strides))

    def map_loop(fn, out, a):
        for index in np.ndindex(*out.shape):
            out.storage[at(out, index)] = fn(a.storage[at(a, index)])

    def zip_loop(fn, out, a, b):
        for index in np.ndindex(*out.shape):
            out.storage[at(out, index)] = fn(a.storage[at(a, index)], b.storage[at(b, index)])

    def reduce_loop(fn, out, a, dim):
        for index in np.ndindex(*a.shape):
            target = at(out, index[:dim] + (0,) + index[dim + 1:])
            out.storage[target] = fn(out.storage[target], a.storage[at(a, index)])

    def positions(tensor, shape):
        own = tensor.offset + sum(
            np.arange(n).reshape((n,) + (1,) * (len(tensor.shape) - d - 1)) * s
            for d, (n, s) in enumerate(zip(tensor.shape, tensor.strides))
        )
        return np.broadcast_to(own, shape)

    def tensor_map(fn, out, a):
        out.storage[positions(out, out.shape)] = fn(a.storage[positions(a, out.shape)])

    def tensor_zip(fn, out, a, b):
        values_a, values_b = a.storage[positions(a, out.shape)], b.storage[positions(b, out.shape)]
        out.storage[positions(out, out.shape)] = fn(values_a, values_b)

    def tensor_reduce(fn, out, a, dim):
        values = np.moveaxis(a.storage[positions(a, a.shape)], dim, -1)
        result = out.storage[positions(out, out.shape)]
        for k in range(values.shape[-1]):
            result = fn(result, np.expand_dims(values[..., k], dim))
        out.storage[positions(out, out.shape)] = result

    minitorch_class = strided.MinitorchStridedTensor
    loops, vectorised = (map_loop, zip_loop, reduce_loop), (tensor_map, tensor_zip, tensor_reduce)
    check("ch01.kernels_loop", lambda *case: strided.kernels_report(minitorch_class, *loops, *case))
    check("ch01.kernels_vectorised",
          lambda *case: strided.kernels_report(minitorch_class, *vectorised, *case, vectorised=True))  # fmt: skip
    assert capsys.readouterr().out.count("public cases pass") == 2


# -- the block matrix product ------------------------------------------------------------------------------------
def _matmul_with(source_change):
    names = dict(NOTEBOOK_IMPORTS)
    cell = graded_cells("01_tensors", "source", "solution")["ch01-matmul"]
    old, new = source_change
    assert old in cell
    exec(cell.replace(old, new), names)
    return names["block_matmul_report"]


MATMUL_MISTAKES = {
    "the K blocks overwrite instead of adding up": ("+= block_a @ block_b", "= block_a @ block_b"),
    "the edge blocks dropped": ("range(0, n, block_size)", "range(0, n - block_size + 1, block_size)"),
    "a's strides ignored (read as contiguous)": (
        "a_positions = a.offset + rows * a.strides[0] + columns * a.strides[1]",
        "a_positions = a.offset + rows * a.shape[1] + columns"),
    "the product not contiguous (column-major strides)": (
        "grid = product.storage.reshape(n, m)  # a view of the product's storage",
        "grid = product.storage.reshape(m, n).T\n    product = type(a)(product.storage, (n, m), (1, n))"),
}  # fmt: skip


@pytest.mark.parametrize("mistake", sorted(MATMUL_MISTAKES))
def test_block_matmul_mistakes_fail(mistake, capsys):
    with pytest.raises(AssertionError):
        check("ch01.block_matmul", _matmul_with(MATMUL_MISTAKES[mistake]))
    out = capsys.readouterr().out
    assert "FAILED" in out and "the product's" in out, out


def test_block_matmul_written_differently_passes(capsys):
    """Blocks gathered with np.ix_ from positions; the product accumulated with einsum into a separate grid."""

    def matmul_blocks(a, b, block_size):
        n, k, m = a.shape[0], a.shape[1], b.shape[1]
        grid = np.zeros((n, m))
        for i in range(0, n, block_size):
            rows = np.arange(i, min(i + block_size, n))
            for j in range(0, m, block_size):
                columns = np.arange(j, min(j + block_size, m))
                for p in range(0, k, block_size):
                    inner = np.arange(p, min(p + block_size, k))
                    ia, pa = np.ix_(rows, inner)
                    pb, jb = np.ix_(inner, columns)
                    block_a = a.storage[a.offset + ia * a.strides[0] + pa * a.strides[1]]
                    block_b = b.storage[b.offset + pb * b.strides[0] + jb * b.strides[1]]
                    grid[np.ix_(rows, columns)] += np.einsum("ik,kj->ij", block_a, block_b)
        return type(a)(grid.reshape(-1), (n, m))

    minitorch_class = strided.MinitorchStridedTensor
    check("ch01.block_matmul", lambda *case: strided.matmul_report(minitorch_class, matmul_blocks, *case))
    assert "all 3 public cases pass" in capsys.readouterr().out


# -- the withheld pieces: minitorch's own strided tensor and kernels earn nothing in the batch grader -----------
def test_minitorchs_own_pieces_handed_in_score_zero_and_the_reference_full(tmp_path):
    """A submission whose pieces are minitorch's equivalents (grading/library's fallbacks) calls the withheld
    minitorch functions (from_numpy, expand, broadcast_shapes, matmul) while its exercises are graded."""
    import csv
    import shutil

    import nbformat

    from grading.cli import main
    from tests.grading.chapter_notebooks import COURSE
    from tests.grading.conftest import TEST_LIMITS, require_bwrap

    require_bwrap()
    source = COURSE / "source" / "01_tensors" / "01_tensors.ipynb"
    folder = tmp_path / "submitted"
    folder.mkdir()
    shutil.copy(source, folder / "reference.ipynb")
    shortcut = nbformat.read(source, as_version=4)
    shortcut.cells.append(nbformat.v4.new_code_cell(
        "from grading.library import tensor as library_pieces\n"
        "class StridedTensor(library_pieces.MinitorchStridedTensor):\n"
        "    pass\n"
        "broadcast_shapes = library_pieces.minitorch_broadcast_shapes\n"
        "broadcast_index = library_pieces.minitorch_broadcast_index\n"
        "tensor_map, tensor_zip = library_pieces.minitorch_map, library_pieces.minitorch_zip\n"
        "tensor_reduce, matmul_blocks = library_pieces.minitorch_reduce, library_pieces.minitorch_matmul\n"
        "from grading.library import elementwise as library_kernels\n"
        "bias_gelu_kernel = library_kernels.minitorch_bias_gelu\n"
    ))  # fmt: skip
    nbformat.write(shortcut, folder / "shortcut.ipynb")
    out = tmp_path / "out"
    assert main([str(folder), "--source", str(source), "--out", str(out), "--quiet", *TEST_LIMITS]) == 0
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    built = ["strided_views", "view_and_contiguous", "broadcasting", "kernels_loop", "kernels_vectorised",
             "block_matmul", "gpu_kernel"]  # fmt: skip
    assert float(rows["reference"]["total"]) == 13
    assert all(float(rows["shortcut"][f"ch01.{name}"]) == 0 for name in built), rows["shortcut"]
    assert float(rows["shortcut"]["total"]) == 4  # the four exercises that rebuild nothing


def _reference_after_collecting(tensor_class):
    """The reference answer, after running the garbage collector itself (as any allocation may)."""
    import gc  # the test's own collection, inside the graded call

    def answer(*case):
        gc.collect()
        return strided.views_report(tensor_class, *case)

    return answer


def test_pytorchs_signal_handler_running_during_a_check_is_not_the_answers(capsys):
    """PyTorch's DataLoader handles SIGCHLD; a child of an earlier cell ending during a check runs its handler."""
    import os  # the test's own signal, sent during the graded call
    import signal  # as a child process ending sends it

    torch = require_torch()
    from torch.utils.data._utils import signal_handling  # the handler PyTorch's DataLoader installs

    previous = signal.getsignal(signal.SIGCHLD)
    signal_handling._SIGCHLD_handler_set = False
    signal_handling._set_SIGCHLD_handler()
    reference = _reference_after_collecting(_fresh("ch01-strided")["StridedTensor"])
    try:
        check("ch01.strided_views", lambda *case: (os.kill(os.getpid(), signal.SIGCHLD), reference(*case))[1])
    finally:
        signal.signal(signal.SIGCHLD, previous)
        signal_handling._SIGCHLD_handler_set = False
    out = capsys.readouterr().out
    assert "all 3 public cases pass" in out and "FAILED" not in out, out
    assert torch is not None


def test_pytorch_reached_from_the_answers_own_finalizer_still_counts(capsys):
    torch = require_torch()

    class Sneaky:
        def __del__(self):
            torch.zeros(1)

    def answer(*case):
        sneaky = Sneaky()
        sneaky.cycle = sneaky
        del sneaky
        return _reference_after_collecting(_fresh("ch01-strided")["StridedTensor"])(*case)

    with pytest.raises(AssertionError):
        check("ch01.strided_views", answer)
    assert "reached PyTorch" in capsys.readouterr().out
